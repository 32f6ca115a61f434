"""The repository a run belongs to: the git work tree around the paths, else their common parent."""

from __future__ import annotations

import os
from pathlib import Path


def find_root(paths: list[str]) -> Path:
    """The nearest folder above the paths that holds `.git`; without one, the paths' common parent."""
    folders = []
    for raw in paths or ["."]:
        absolute = os.path.abspath(raw)
        folders.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
    try:
        common = Path(os.path.commonpath(folders))
    except ValueError:  # paths on different drives
        common = Path(folders[0])
    for folder in (common, *common.parents):
        if (folder / ".git").exists():
            return folder
    return common


def in_git_work_tree(root: Path) -> bool:
    return (root / ".git").exists()
