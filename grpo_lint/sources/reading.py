"""Open only what is safe to read: regular files, inside the linted tree, never more than a bound.

Every file grpo-lint reads goes through `read_file`: a FIFO would block forever, `/dev/zero` never
ends, and a file named by a launch script may lie outside the repository (its keys would then be
printed into a CI log). `inside` says whether a path stays in the tree after symlinks are followed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from grpo_lint.limits import MAX_FILE_BYTES
from grpo_lint.sources.document import ReadProblem

_CHUNK = 1024 * 1024
# Fixed texts not yet written (`--fix --diff`, and the check of each fix before it is kept): the
# bytes to read instead of a file's, by real path. Empty outside `overlaid`.
_OVERLAY: dict[str, bytes] = {}
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def special_kind(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO (named pipe)"), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def is_regular(path: Path | str) -> bool:
    """A regular file (after symlinks), judged without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def is_folder(path: Path | str) -> bool:
    """A folder (after symlinks); False for a path the system refuses to look at (a name too long, a loop)."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _open_regular(path: Path | str, links: bool = True) -> tuple[int, int] | ReadProblem:
    """A descriptor and the size of a regular file, else why not. Opened non-blocking (opening a
    FIFO never waits for a writer) and checked with fstat on the descriptor, so what is read is what
    was checked. `links=False`: a symbolic link is not followed (it is not read)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        return ReadProblem("is a directory, not a file")
    except (OSError, ValueError) as exc:
        try:  # a socket cannot be opened at all: say what it is
            kind = special_kind(os.stat(path).st_mode)
        except (OSError, ValueError):
            kind = None
        if kind is not None:
            return ReadProblem(f"is {kind}, not a regular file; not read")
        return ReadProblem(f"cannot be read: {_reason(exc)}")
    try:
        info = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        return ReadProblem(f"cannot be read: {_reason(exc)}")
    kind = special_kind(info.st_mode)
    if kind is not None:
        os.close(fd)
        return ReadProblem(f"is {kind}, not a regular file; not read")
    return fd, info.st_size


def read_file(
    path: Path | str, limit: int = MAX_FILE_BYTES, within: Path | None = None, links: bool = True
) -> bytes | ReadProblem:
    """The bytes of a regular file of at most `limit` bytes, else why not. With `within`, a file that
    lies outside that folder once symlinks are followed is not opened; with `links=False`, a symbolic link is not
    followed at all."""
    if within is not None and not inside(path, within):
        return ReadProblem("is outside the repository (a symlink leading out of it); not read")
    if _OVERLAY:
        replaced = _OVERLAY.get(os.path.realpath(path))
        if replaced is not None:
            return replaced if len(replaced) <= limit else too_large(len(replaced), limit)
    opened = _open_regular(path, links)
    if isinstance(opened, ReadProblem):
        return opened
    fd, size = opened
    try:
        if size > limit:
            return too_large(size, limit)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return read_stream(handle, limit)  # the size may change, and /proc files say 0
    except OSError as exc:
        return ReadProblem(f"cannot be read: {_reason(exc)}")
    finally:
        os.close(fd)


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def decoded(data: bytes) -> str:
    """A text file's bytes as text: UTF-8 (a UTF-8 byte order mark dropped), or UTF-16 when the file starts with its
    byte order mark (what Windows PowerShell's `>` writes). Bytes that do not decode become U+FFFD."""
    if data[:2] in UTF16_BOMS:
        return data.decode("utf-16", "replace")
    return data.decode("utf-8-sig" if data[:3] == b"\xef\xbb\xbf" else "utf-8", "replace")


def read_head(path: Path | str, size: int) -> bytes | None:
    """The first `size` bytes of a regular file (to look at a shebang), or None."""
    if _OVERLAY:
        replaced = _OVERLAY.get(os.path.realpath(path))
        if replaced is not None:
            return replaced[:size]
    opened = _open_regular(path)
    if isinstance(opened, ReadProblem):
        return None
    fd = opened[0]
    try:
        return os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def present(path: Path | str) -> bool:
    """Whether a file is there to read: on disk, or given in place of one (an editor's unsaved buffer)."""
    return (bool(_OVERLAY) and os.path.realpath(path) in _OVERLAY) or os.path.exists(path)


@contextmanager
def overlaid(contents: dict[str, bytes]) -> Iterator[None]:
    """Read `contents` (real path -> bytes) instead of those files while the block runs."""
    saved = dict(_OVERLAY)
    _OVERLAY.update(contents)
    try:
        yield
    finally:
        _OVERLAY.clear()
        _OVERLAY.update(saved)


def read_stream(stream: BinaryIO, limit: int = MAX_FILE_BYTES) -> bytes | ReadProblem:
    """At most `limit` bytes of a stream (standard input, an open file), read in chunks."""
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            return too_large(None, limit)


def too_large(size: int | None, limit: int) -> ReadProblem:
    shown = f"{size:,} bytes" if size is not None else f"more than {limit:,} bytes"
    return ReadProblem(f"is too large to be a config ({shown}; grpo-lint reads at most {limit // (1024 * 1024)} MB)")


def inside(path: Path | str, root: Path | str) -> bool:
    """Whether `path`, with every symlink followed, lies in the folder `root`."""
    try:
        real = real_path(path)
        base = _real_root(str(root))
    except (OSError, ValueError):
        return False
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def absolute(path: Path | str) -> str:
    """`os.path.abspath(path)`, with the working directory read once per run (abspath asks the system each time)."""
    path = os.fspath(path)
    if os.path.isabs(path):
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(_CWD or os.getcwd(), path))


def relative_to(path: Path | str, root: Path | str) -> str:
    """`os.path.relpath(path, root)`, the working directory read once per run."""
    full, base = absolute(path), absolute(root).rstrip(os.sep)
    if full.startswith(base + os.sep):
        return full[len(base) + 1 :]  # (below the root, as nearly every file asked about is)
    return os.path.relpath(full, base or os.sep)


_CWD: str | None = None


def real_path(path: Path | str) -> str:
    """`os.path.realpath(path)`, with the real path of the file's folder kept for the run (a repository's thousands of
    files share a few hundred folders, and realpath looks at every folder above a file each time); the file itself
    is followed each time it is a link."""
    full = absolute(path)
    found = _REAL.get(full)
    if found is None:
        folder, name = os.path.split(full)
        real = os.path.join(_real_folder(folder), name)
        found = os.path.realpath(real) if os.path.islink(real) else real
        if _CWD is not None:  # (within a run: a file asked about twice is followed once)
            _REAL[full] = found
    return found


_REAL: dict[str, str] = {}  # this run's real paths, by absolute path


@lru_cache(maxsize=4096)
def _real_folder(folder: str) -> str:
    return os.path.realpath(folder)


def forget_folders() -> None:
    """A new run: folders may have changed since the last one (a long-lived editor session). The working directory is
    read now and kept until `end_run`."""
    global _CWD
    _CWD = os.getcwd()
    _REAL.clear()
    _real_folder.cache_clear()
    _real_root.cache_clear()


def end_run() -> None:
    """The run is over: the working directory is read again each time (a caller may change it)."""
    global _CWD
    _CWD = None
    _REAL.clear()


@lru_cache(maxsize=8)
def _real_root(root: str) -> str:
    return os.path.realpath(root)


def _reason(exc: Exception) -> str:
    return str(exc.strerror) if isinstance(exc, OSError) and exc.strerror else str(exc)
