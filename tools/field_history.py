"""Derive when each dataclass field of a framework appeared and disappeared, from its git tags.

    python tools/field_history.py REPO_GIT_DIR FILE:CLASS [FILE:CLASS ...] > history.json

Reads each tagged release's source with `git show` and `ast` (nothing is imported or run) and
prints {field: [first tag with it, first later tag without it or null]}. Only field names and
release numbers are recorded.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from packaging.version import InvalidVersion, Version


def tags(git_dir: str) -> list[str]:
    out = subprocess.run(["git", "-C", git_dir, "tag"], capture_output=True, text=True, check=True)
    result = []
    for tag in out.stdout.split():
        try:
            version = Version(tag.lstrip("v"))
        except InvalidVersion:
            continue
        if not version.is_prerelease:
            result.append((version, tag))
    return [tag for _, tag in sorted(result)]


def fields_at(git_dir: str, tag: str, path: str, cls: str) -> set[str] | None:
    shown = subprocess.run(["git", "-C", git_dir, "show", f"{tag}:{path}"], capture_output=True, text=True)
    if shown.returncode != 0:
        return None
    tree = ast.parse(shown.stdout)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return {
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            }
    return None


def main() -> None:
    git_dir, targets = sys.argv[1], sys.argv[2:]
    history: dict[str, list[str | None]] = {}
    for tag in tags(git_dir):
        present: set[str] = set()
        found = False
        for target in targets:
            path, cls = target.split(":")
            names = fields_at(git_dir, tag, path, cls)
            if names is not None:
                found = True
                present |= names
        if not found:
            continue
        for name in present:
            if name not in history or history[name][1] is not None:
                history.setdefault(name, [tag.lstrip("v"), None])
                if history[name][1] is not None:  # came back after a removal
                    history[name] = [tag.lstrip("v"), None]
        for name, (_since, removed) in history.items():
            if removed is None and name not in present:
                history[name][1] = tag.lstrip("v")
    json.dump(dict(sorted(history.items())), sys.stdout, indent=0)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
