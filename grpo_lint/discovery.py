"""Which files a run reads: named files as given, directories walked for YAML and JSON.

`exclude` globs (from the settings file) prune the walk; they apply to named files only with
--force-exclude, as in ruff, because a pre-commit hook names every file it passes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from grpo_lint.options import Options, PathPatterns

SUFFIXES = (".yaml", ".yml", ".json", ".sh", ".bash", ".py")
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tox", "site-packages", "wandb", ".hypothesis",
})  # fmt: skip


class Candidate(NamedTuple):
    path: Path
    display: str
    explicit: bool  # named on the command line, not found by walking a directory


def discover(paths: list[str], options: Options | None = None) -> Iterator[Candidate]:
    exclude = options.exclude if options is not None else None
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(
                    d
                    for d in dirs
                    if d not in SKIP_DIRS and not d.startswith(".") and not matches(os.path.join(root, d), exclude)
                )
                for name in sorted(files):
                    found = os.path.join(root, name)
                    if name.lower().endswith(SUFFIXES) and not matches(found, exclude):
                        yield Candidate(Path(found), found, explicit=False)
        elif not (options is not None and options.force_exclude and matches(raw, exclude)):
            yield Candidate(path, raw, explicit=True)


def from_list(files: list[str], options: Options) -> Iterator[Candidate]:
    """Files listed by another tool (git): kept like a directory walk's, by suffix and `exclude`."""
    for name in files:
        if name.lower().endswith(SUFFIXES) and not matches(name, options.exclude) and os.path.isfile(name):
            yield Candidate(Path(name), name, explicit=False)


def matches(path: str, patterns: PathPatterns | None) -> bool:
    """Whether `path` matches one of the globs, taken relative to the settings file's directory.

    A pattern with a `/` is matched against the whole relative path (`*` also crosses `/`, so
    `legacy/*` covers everything below legacy/); a pattern without one matches any single part
    of the path, so `drafts` or `*.local.yaml` work at any depth.
    """
    if patterns is None or not patterns.patterns:
        return False
    absolute = os.path.abspath(path)
    base = patterns.base or os.getcwd()
    relative = os.path.relpath(absolute, base).replace(os.sep, "/")
    if relative.startswith("../"):
        relative = absolute.replace(os.sep, "/")
    parts = relative.split("/")
    for pattern in patterns.patterns:
        pattern = pattern.removeprefix("./").rstrip("/")
        if "/" in pattern:
            if fnmatchcase(relative, pattern) or fnmatchcase(relative, pattern + "/*"):
                return True
        elif any(fnmatchcase(part, pattern) for part in parts):
            return True
    return False
