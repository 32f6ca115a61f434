"""Which files of a folder a run looks at: git's own list inside a work tree, else a bounded walk.

Files that cannot be configs are dropped by name and size before anything reads them whole.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from grpo_lint.patterns import lazy
from grpo_lint.sources.reading import read_head, special_kind

# Launch scripts and configs; `.slurm` / `.sbatch` batch files are launch scripts too.
SUFFIXES = (".yaml", ".yml", ".json", ".sh", ".bash", ".slurm", ".sbatch", ".py", ".ipynb")
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".tox", "site-packages", "wandb", ".hypothesis",
})  # fmt: skip
MAX_CONFIG_BYTES = 2 * 1024 * 1024  # a found file larger than this is data, not a config
MAX_NOTEBOOK_BYTES = 10 * 1024 * 1024  # notebooks carry their outputs (plots, logs): read up to the input bound
_NOT_CONFIGS = ("trainer_state.json", "tokenizer.json", "tokenizer_config.json", "package-lock.json")
_MAX_DEPTH = 24


def git_files(folder: Path) -> list[str] | None:
    """Files git tracks or would track below `folder` (`.gitignore` honoured), relative to it.

    None when git is missing or the folder is not in a work tree. The folder is the working
    directory and every argument is fixed text: nothing from the repository reaches git's options, and
    no command the repository's git configuration names runs (grpo_lint.workspace.git).
    """
    from grpo_lint.workspace.git import GitError, git, names

    try:
        listed = names(git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=folder))
    except GitError:
        return None
    skipped = _SKIPPED_FOLDER
    return sorted(n for n in listed if not skipped.search(n))


# A path with a hidden or tool folder among its folders (one search per name: a monorepo lists 10,000s).
_SKIPPED_FOLDER = lazy(r"(?:^|/)(?:\.[^/]*|" + "|".join(re.escape(d) for d in sorted(SKIP_DIRS)) + r")/")


def _skipped(folder: str) -> bool:
    return folder in SKIP_DIRS or folder.startswith(".")


def walk_files(folder: Path, max_depth: int = _MAX_DEPTH, limit: int | None = None) -> list[str]:
    """Every file below `folder`, relative to it, skipping tool and hidden folders (depth-limited;
    with `limit`, the walk stops after that many files)."""
    found: list[str] = []
    base_depth = str(folder).rstrip(os.sep).count(os.sep)
    for root, dirs, files in os.walk(folder):
        if limit is not None and len(found) >= limit:
            break
        if root.count(os.sep) - base_depth >= max_depth:
            dirs[:] = []
        dirs[:] = sorted(d for d in dirs if not _skipped(d))
        relative = os.path.relpath(root, folder)
        for name in files:
            found.append(name if relative == "." else os.path.join(relative, name).replace(os.sep, "/"))
    return sorted(found)


def lintable(name: str) -> bool:
    """A file a walk lints, by name alone."""
    lowered = name.lower()
    base = lowered.rpartition("/")[2]
    return lowered.endswith(SUFFIXES) and base not in _NOT_CONFIGS and not base.startswith("tokenizer")


def too_big_or_data(path: Path) -> str | None:
    """Why a found file is not a config, judged by its size and first bytes (never read whole)."""
    try:
        info = path.stat()
    except (OSError, ValueError):
        return None
    kind = special_kind(info.st_mode)
    if kind is not None:
        return f"{kind}, not a regular file (not opened)"
    size = info.st_size
    if size > (MAX_NOTEBOOK_BYTES if path.suffix.lower() == ".ipynb" else MAX_CONFIG_BYTES):
        return f"{size // (1024 * 1024)} MB: too large to be a config"
    if path.suffix.lower() == ".json":
        head = (read_head(path, 256) or b"").lstrip(b"\xef\xbb\xbf \t\r\n")
        if head.startswith(b"["):
            return "a JSON list (a dataset), not a config"
    return None
