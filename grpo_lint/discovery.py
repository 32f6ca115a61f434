"""Which files a run reads: named files as given, directories walked for YAML and JSON."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

SUFFIXES = (".yaml", ".yml", ".json")
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tox", "site-packages", "wandb", ".hypothesis",
})  # fmt: skip


class Candidate(NamedTuple):
    path: Path
    display: str
    explicit: bool  # named on the command line, not found by walking a directory


def discover(paths: list[str]) -> Iterator[Candidate]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                for name in sorted(files):
                    if name.lower().endswith(SUFFIXES):
                        found = Path(root) / name
                        yield Candidate(found, str(found), explicit=False)
        else:
            yield Candidate(path, raw, explicit=True)
