"""Which files of a folder a run looks at: git's own list inside a work tree, else a bounded walk.

Files that cannot be configs are dropped by name and size before anything reads them whole.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from grpo_lint.sources.reading import read_head, special_kind

if TYPE_CHECKING:
    from grpo_lint.workspace.git import PendingGit

# Launch scripts: shell files, and the batch files of cluster schedulers (Slurm's `.slurm`/`.sbatch`, the `.job`,
# `.pbs` and `.qsub` files of Slurm, PBS and SGE sites), which are shell scripts with scheduler comments.
SHELL_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch", ".job", ".pbs", ".qsub")
CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
SUFFIXES = CONFIG_SUFFIXES + SHELL_SUFFIXES + (".py", ".ipynb")
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
    from grpo_lint.workspace.git import GitError, names

    pending = _PENDING.pop(str(folder), None) or _start_listing(folder)
    try:
        output = pending.output()
    except GitError:
        return None
    return sorted(names(_without_skipped(output)))


def _without_skipped(output: bytes) -> bytes:
    """git's NUL-separated list without the names that have a hidden or tool folder among their folders. The
    list is searched for each such folder's name at once (a monorepo lists 10,000s of names, a few of them
    hidden: `.github/`), and only the names found are looked at one by one."""
    listed = b"\0" + output
    flat = listed.replace(b"\0", b"/")  # one search per folder name, wherever a name or a folder starts
    spans: set[tuple[int, int]] = set()
    for needle in _SKIP_NEEDLES:
        at = flat.find(needle)
        while at >= 0:
            start = listed.rfind(b"\0", 0, at + 1) + 1
            end = listed.find(b"\0", at + 1)
            spans.add((start, len(listed) if end < 0 else end))
            at = flat.find(needle, at + 1)
    drop = sorted(span for span in spans if _skipped_name(listed[span[0] : span[1]]))
    if not drop:
        return output
    kept, at = [], 0
    for start, end in drop:
        kept.append(listed[at:start])
        at = end
    kept.append(listed[at:])
    return b"".join(kept)


def _skipped_name(name: bytes) -> bool:
    """Whether one of a name's folders is hidden or a tool's."""
    return any(_skipped(folder) for folder in name.decode("utf-8", "surrogateescape").split("/")[:-1])


# The start of such a folder's name (hidden, or a tool's) in the list with its NULs read as `/`.
_SKIP_NEEDLES = (b"/.", *(f"/{d}/".encode() for d in sorted(SKIP_DIRS) if not d.startswith(".")))


def held(written: str, files: list[str]) -> bool | None:
    """Whether a path that a config or a command writes, relative to a folder not known (where the run starts), is a
    file of the repository: some file's path ends with it (its part after its last `..`). None when that cannot be
    told: empty, absolute, or not written out (`$HOME/x`, `~/x`, `{...}`, a backquote)."""
    named = written.strip().replace("\\", "/").removeprefix("./")
    if not named or os.path.isabs(named) or any(c in named for c in "$~{`"):
        return None
    parts = [part for part in named.split("/") if part not in ("", ".")]
    last_up = max((index for index, part in enumerate(parts) if part == ".."), default=-1)
    tail = "/" + "/".join(parts[last_up + 1 :])  # (`../configs/ds.json`: a folder above where it runs)
    if tail == "/":
        return None
    return any(("/" + name).endswith(tail) for name in files)


def list_ahead(folder: Path) -> None:
    """Start git's listing of `folder` now, so that it runs while the rest of grpo-lint loads (a monorepo's
    untracked-file walk is most of a pre-commit run's wait); `git_files(folder)` collects it. A listing not
    collected is stopped when grpo-lint exits."""
    global _STOPPED_AT_EXIT
    key = str(folder)
    if key not in _PENDING:
        if not _STOPPED_AT_EXIT:
            import atexit

            atexit.register(_abandon_all)
            _STOPPED_AT_EXIT = True
        _PENDING[key] = _start_listing(folder)


def _start_listing(folder: Path) -> PendingGit:
    from grpo_lint.early import GIT_TIMEOUT, LISTING, git_command, git_environment, take_listing
    from grpo_lint.workspace.git import PendingGit, start_git
    from grpo_lint.workspace.process import Running

    command = git_command(str(folder), LISTING)
    started = take_listing(os.path.abspath(folder), command)  # (the console script starts it first thing)
    if started is not None:
        return PendingGit(list(LISTING), Running(command, git_environment(), GIT_TIMEOUT, started), None)
    return start_git(list(LISTING), cwd=folder)


def _abandon_all() -> None:
    while _PENDING:
        _PENDING.popitem()[1].abandon()


_PENDING: dict[str, PendingGit] = {}
_STOPPED_AT_EXIT = False


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
    except FileNotFoundError:
        if os.path.lexists(path):
            return "a symlink to a file that does not exist (not opened)"
        return "not in the work tree (git still lists it: deleted, and the deletion not yet committed)"
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
