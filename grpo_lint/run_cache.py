"""The output of a whole run, kept between runs: the same command over an unchanged repository prints what it
printed before without linting again (the command line's cache, beside grpo_lint.sources.parse_cache).

What a run prints depends on grpo-lint's build, the command line, the working directory, where the output goes
(a file, a terminal, colour), the frameworks installed, the files the run is given (the repository's file list)
and the files it looked at. The last are recorded while the run works: each file it opens to read, each path it
asks the system about (`os.stat`, `os.lstat`: a file that is not there counts as well), each folder it lists,
with what the system answered then (the kind, size, modification and change times, and inode; a folder only asked
about counts by its kind). Forked copies of the run send what they looked at back with their results
(grpo_lint.forked).

A later run with the same command builds the file list, and where the list and every recorded answer are the
same, it prints the output kept and exits with the status kept. One changed, added or removed file (a config, a
script, a requirements file, a folder's content) means a run that lints everything again, as without the cache:
the cache never decides what a file means, only whether anything the answer was made from changed. Files of
Python itself and of grpo-lint are not recorded (the build names them), nor is the cache's own folder. A run that
looked at a file modified in the 2 seconds before it started keeps no entry: a second change within the system's
timestamp step, of the same size, could not be told apart.

Entries are pickles in the parse cache's folder for this build (the same safety: a folder of this user's that
nobody else may write to), one per command, written under a temporary name and renamed; a link, a damaged or an
oversized entry is ignored. Only the command line keeps it, for commands that lint a folder: files named one by
one (as pre-commit names them) are linted without listing the repository, and runs that write files (`--fix`) or
read standard input keep nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
import sys
from typing import Any

_MAGIC = "grpo-lint run 1"
MAX_ENTRY_BYTES = 64 * 1024 * 1024

# (file kind, size, modification time, change time (ns), inode); None: not there. The change time is the system's
# own: a file given back an old modification time (`touch -d`) still tells.
Signature = tuple[int, int, int, int, int] | None

_real_stat = os.stat
_real_lstat = os.lstat
_recording = False
# What the system said of each path the run looked at: asked about (following links, or not), listed.
_stats: dict[str, Signature] = {}
_lstats: dict[str, Signature] = {}
_lists: dict[str, Signature] = {}
_asked: set[Any] = set()  # the paths asked about as they were written (a run asks about most several times)
_asked_lstat: set[Any] = set()
_skip: tuple[str, ...] = ()
_cwd = ""
_hooked = False
_started = 0  # when recording started (time.time_ns)
# A file changed this close to the run (or after it began) may change again within the system's timestamp step
# with the same size: its time would not tell (git calls such entries "racily clean"). A run that looked at one
# keeps no entry; the next run does.
RACY_NS = 2_000_000_000


class Replayed:
    """A run answered from the cache: the output it printed and its exit status."""

    __slots__ = ("code", "output")

    def __init__(self, output: str, code: int) -> None:
        self.output = output
        self.code = code


def _signature(facts: os.stat_result, listed: bool = False) -> Signature:
    """What the system said of a path. A folder asked about (not listed) counts by its kind alone: what it holds
    is not the question, and a folder like /tmp changes all the time."""
    kind = stat.S_IFMT(facts.st_mode)
    if kind == stat.S_IFDIR and not listed:
        return (kind, 0, 0, 0, facts.st_ino)
    return (kind, facts.st_size, facts.st_mtime_ns, facts.st_ctime_ns, facts.st_ino)


def _where(path: Any) -> str | None:
    """The absolute path a recorded call names, or None for a descriptor, a path of Python or grpo-lint itself,
    or one of the cache."""
    if type(path) is not str:
        if isinstance(path, int):
            return None
        try:
            path = os.fsdecode(path)
        except (TypeError, ValueError):
            return None
    full = path if path[:1] == "/" else f"{_cwd}/{path}"
    return None if full.startswith(_skip) else full


def _note(seen: dict[str, Signature], path: Any, facts: os.stat_result | None, listed: bool = False) -> None:
    full = _where(path)
    if full is not None and full not in seen:
        seen[full] = _signature(facts, listed) if facts is not None else None


def _stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
    if not _recording or args or kwargs.get("dir_fd") is not None:
        return _real_stat(path, *args, **kwargs)
    following = kwargs.get("follow_symlinks", True) is not False
    try:
        facts = _real_stat(path, **kwargs)
    except OSError:
        _note(_stats if following else _lstats, path, None)
        raise
    if isinstance(path, int):
        return facts  # (a descriptor: the file was opened, and recorded, by its path)
    asked = _asked if following else _asked_lstat
    key = path if type(path) is str else os.fspath(path)  # (pathlib's stat passes the Path)
    if key not in asked:  # (most calls: a path asked about before, as written)
        asked.add(key)
        _note(_stats if following else _lstats, key, facts)
    return facts


def _lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
    if not _recording or args or kwargs:
        return _real_lstat(path, *args, **kwargs)
    try:
        facts = _real_lstat(path)
    except OSError:
        _note(_lstats, path, None)
        raise
    if path not in _asked_lstat:
        _asked_lstat.add(path)
        _note(_lstats, path, facts)
    return facts


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """Files opened to read and folders listed, as Python's audit events name them."""
    if not _recording:
        return
    if event == "open":
        path = args[0]
        if path in _asked or type(path) is int:
            return  # (a file is mostly asked about before it is opened)
        mode, flags = args[1], args[2]
        if mode is not None and any(c in mode for c in "wax+"):
            return
        if mode is None and flags & (os.O_WRONLY | os.O_RDWR):
            return
        seen, listed = _stats, False
    elif event == "os.scandir" or event == "os.listdir":
        path = args[0] if args[0] is not None else "."
        if path in _lists:
            return
        seen, listed = _lists, True
    else:
        return
    full = _where(path)
    if full is None or full in seen:
        return
    try:
        seen[full] = _signature(_real_stat(full), listed)
    except (OSError, ValueError):
        seen[full] = None


def start(cache_folder: str) -> None:
    """Record what the run looks at from now on (see the module's page)."""
    global _recording, _skip, _cwd, _hooked, _started
    import time

    package = os.path.dirname(os.path.abspath(__file__))
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, package, os.path.abspath(cache_folder)}
    _skip = (*(p.rstrip("/") + "/" for p in prefixes), "/proc/", "/dev/", "/sys/")
    _started = time.time_ns()
    _cwd = os.getcwd()
    for seen in (_stats, _lstats, _lists, _asked, _asked_lstat):
        seen.clear()
    os.stat, os.lstat = _stat, _lstat  # type: ignore[assignment]
    if not _hooked:
        sys.addaudithook(_audit)
        _hooked = True
    _recording = True
    from grpo_lint.forked import share_copy_state

    share_copy_state(_mark, _new_seen, _merge_seen)


def stop() -> None:
    global _recording
    _recording = False
    os.stat, os.lstat = _real_stat, _real_lstat  # type: ignore[assignment]


Seen = tuple[dict[str, Signature], dict[str, Signature], dict[str, Signature]]  # (asked about, not following, listed)


_marks = [0, 0, 0]  # how many paths each record held when forked copies were last made


def _mark() -> None:
    _marks[:] = [len(_stats), len(_lstats), len(_lists)]


def _copy_seen() -> Seen:
    return (dict(_stats), dict(_lstats), dict(_lists))


def _new_seen() -> Seen:
    """What a forked copy looked at that it did not hold when it was made (its records keep their order)."""
    return tuple(  # type: ignore[return-value]
        dict(itertools.islice(seen.items(), mark, None))
        for seen, mark in zip((_stats, _lstats, _lists), _marks, strict=True)
    )


def _merge_seen(copied: Any) -> None:
    if isinstance(copied, tuple) and len(copied) == 3:
        for mine, theirs in zip((_stats, _lstats, _lists), copied, strict=True):
            for path, said in theirs.items():
                mine.setdefault(path, said)


def _unchanged(seen: Seen) -> bool:
    for recorded, look, listed in zip(seen, (_real_stat, _real_lstat, _real_stat), (False, False, True), strict=True):
        for path, said in recorded.items():
            try:
                facts = look(path)
            except (OSError, ValueError):
                if said is not None:
                    return False
                continue
            if said != _signature(facts, listed):
                return False
    return True


class RunCache:
    """The entry of one command: looked up once its file list is known, written once its output is."""

    def __init__(self, folder: str, parts: tuple[Any, ...]) -> None:
        self.folder = folder
        self.parts = parts
        self.path = ""

    def lookup(self, workspace: Any) -> Replayed | None:
        """The output kept for this command over this repository's file list (and the files it lints), when nothing
        it was made from has changed."""
        import hashlib
        import pickle

        listing = (str(workspace.root), tuple(workspace.files), tuple(str(c.path) for c in workspace.candidates))
        digest = hashlib.blake2b(repr((self.parts, listing)).encode("utf-8", "surrogatepass"), digest_size=16)
        self.path = os.path.join(self.folder, f"run-{digest.hexdigest()}.pickle")
        global _recording
        was, _recording = _recording, False  # (looking is not part of the run)
        try:
            descriptor = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
            with os.fdopen(descriptor, "rb") as handle:
                facts = os.fstat(handle.fileno())
                if not stat.S_ISREG(facts.st_mode) or facts.st_size > MAX_ENTRY_BYTES:
                    return None
                magic, seen, output, code = pickle.load(handle)
            if magic != _MAGIC or not isinstance(seen, tuple) or not isinstance(output, str) or not _unchanged(seen):
                return None
            return Replayed(output, int(code))
        except Exception:  # no entry, or one that does not load: the run lints
            return None
        finally:
            _recording = was

    def store(self, output: str, code: int) -> None:
        """Keep the run's output with what it looked at (nothing when the lookup never ran, or when a file it looked
        at changed too recently for its time to tell a later change: see RACY_NS)."""
        seen = _copy_seen()
        stop()
        recent = _started - RACY_NS
        if not self.path or any(s is not None and s[2] >= recent for part in seen for s in part.values()):
            return
        import pickle

        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            data = pickle.dumps((_MAGIC, seen, output, code), protocol=pickle.HIGHEST_PROTOCOL)
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
            os.replace(temporary, self.path)
        except (OSError, pickle.PicklingError, RecursionError):
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def build_digest() -> str:
    """grpo-lint's whole build: its version and the size and time of each of its modules and data files (an edited
    checkout is another build; the parse cache's build names only its readers)."""
    import hashlib

    from grpo_lint import __version__

    package = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.blake2b(f"{__version__}\0{sys.version}".encode(), digest_size=16)
    folders = [package]
    while folders:
        folder = folders.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                folders.append(entry.path)
            elif entry.name.endswith((".py", ".json")):
                facts = entry.stat()
                digest.update(f"\0{entry.path}\0{facts.st_size}\0{facts.st_mtime_ns}".encode())
    return digest.hexdigest()


def begin(cache_folder: str | None, parts: tuple[Any, ...]) -> RunCache | None:
    """A run cache for this command (`parts`: what its output depends on besides the files), recording from now;
    None when the command line keeps no cache."""
    from grpo_lint.sources.parse_cache import build_folder

    folder = build_folder(cache_folder)
    if folder is None:
        return None
    start(cache_folder or folder)
    return RunCache(folder, parts)
