"""The repository a run belongs to: the git work tree around the paths, else their common parent."""

from __future__ import annotations

import os
from pathlib import Path

# What makes the working directory a repository's root when there is no `.git` (an unpacked archive):
# never a home folder with a stray file, which would make grpo-lint read everything below it.
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", ".gitmodules", "README.md")


def find_root(paths: list[str]) -> Path:
    """The nearest folder above the paths that holds `.git`; without one, the working directory when the
    paths are inside it and it holds a project's files (`grpo-lint scripts/run.sh` run at the root of an
    unpacked repository sees all of it: its pins, its copy of the framework), else the paths' common parent."""
    from grpo_lint.early import common_folder, git_root

    found = git_root(paths)
    if found is not None:
        return Path(found)
    common = Path(common_folder(paths))
    here = Path(os.getcwd())
    if (common == here or here in common.parents) and any((here / marker).is_file() for marker in _PROJECT_MARKERS):
        return here
    return common


def is_project(folder: Path) -> bool:
    """Whether a folder holds a project's own files (a work tree, or an unpacked repository)."""
    return (folder / ".git").exists() or any((folder / marker).is_file() for marker in _PROJECT_MARKERS)


def in_git_work_tree(root: Path) -> bool:
    return (root / ".git").exists()
