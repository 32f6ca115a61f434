"""Derive when each argument of `swift rlhf` appeared and disappeared, from ms-swift's git tags.

    python tools/swift_history.py MS_SWIFT_GIT_DIR [RELEASE=SOURCE_DIR ...] > grpo_lint/data/swift_history.json

(RELEASE=SOURCE_DIR: a release newer than the clone's tags, read from an unpacked wheel's folder that holds
`swift/`.)

For every release tag, the fields of `RLHFArguments` and of every class it inherits from are collected by
reading the sources with `git show` and `ast` (nothing is imported or run): classes are taken from the
argument modules (files whose path names `arg`) and followed by name through their bases. Prints
{field: [first release with it or null, first later release without it or null]}. Fields of transformers'
TrainingArguments are not ms-swift's and are left out. Only names and release numbers are recorded.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from packaging.version import InvalidVersion, Version

ROOT_CLASS = "RLHFArguments"


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "-C", git_dir, *args], capture_output=True, text=True, check=False).stdout


def tags(git_dir: str) -> list[str]:
    found = []
    for tag in _git(git_dir, "tag").split():
        try:
            version = Version(tag.lstrip("v"))
        except InvalidVersion:
            continue
        if not version.is_prerelease and version >= Version("3.1.1"):
            found.append((version, tag))
    return [tag for _, tag in sorted(found)]


def classes_at(git_dir: str, tag: str) -> dict[str, tuple[list[str], set[str]]]:
    """Every class of the argument modules at a tag: its base names and its annotated fields."""
    files = [
        name
        for name in _git(git_dir, "ls-tree", "-r", "--name-only", tag, "--", "swift").split("\n")
        if name.endswith(".py") and "arg" in name.lower()
    ]
    return _classes(_git(git_dir, "show", f"{tag}:{name}") for name in files)


def classes_in(folder: str) -> dict[str, tuple[list[str], set[str]]]:
    """The same, from a source folder that holds `swift/`."""
    from pathlib import Path

    files = [p for p in sorted(Path(folder, "swift").rglob("*.py")) if "arg" in str(p.relative_to(folder)).lower()]
    return _classes(p.read_text(encoding="utf-8", errors="replace") for p in files)


def _classes(texts) -> dict[str, tuple[list[str], set[str]]]:  # type: ignore[no-untyped-def]
    classes: dict[str, tuple[list[str], set[str]]] = {}
    for text in texts:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = [
                b.id if isinstance(b, ast.Name) else b.attr
                for b in node.bases
                if isinstance(b, ast.Name | ast.Attribute)
            ]
            fields = {
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                and "ClassVar" not in ast.unparse(item.annotation)
            }  # fmt: skip
            classes.setdefault(node.name, (bases, fields))
    return classes


def fields_of(classes: dict[str, tuple[list[str], set[str]]], name: str, seen: set[str]) -> set[str]:
    if name in seen or name not in classes:
        return set()
    seen.add(name)
    bases, fields = classes[name]
    found = set(fields)
    for base in bases:
        found |= fields_of(classes, base, seen)
    return found


def main() -> None:
    git_dir, trees = sys.argv[1], dict(arg.split("=", 1) for arg in sys.argv[2:])
    history: dict[str, list[str | None]] = {}
    first = None
    releases = [(tag.lstrip("v"), tag) for tag in tags(git_dir)] + [(r, None) for r in trees]
    for release, tag in releases:
        classes = classes_at(git_dir, tag) if tag is not None else classes_in(trees[release])
        present = fields_of(classes, ROOT_CLASS, set())
        if not present:
            continue
        first = first or release
        for name in present:
            if name not in history:
                history[name] = [None if release == first else release, None]
            elif history[name][1] is not None:  # came back after a removal: the later life counts
                history[name] = [release, None]
        for name, (_since, removed) in history.items():
            if removed is None and name not in present:
                history[name][1] = release
    json.dump(dict(sorted(history.items())), sys.stdout, indent=0)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
