"""What Python files and scripts were read as, kept between runs: the command line's cache (`--no-cache`,
`--cache-dir`).

Reading Python (`ast.parse` and the one visit of grpo_lint.sources.python_code) is most of a whole
repository's lint: the 21 corpus repositories side by side read 8 MB of Python in 1.3 s of CPU, where loading
what those files were read as takes 0.03 s. What a file is read as depends on its text, its path (a test
file is read differently) and grpo-lint's own reader, nothing else: an entry's key is a hash of the first two,
and its folder is named after the third, so an entry is never stale; a changed file simply misses.

Where: `$GRPO_LINT_CACHE_DIR`, else `$XDG_CACHE_HOME/grpo-lint`, else `~/.cache/grpo-lint`: never inside the
repository linted, whose files grpo-lint does not write (and a repository could otherwise ship entries of its
own). Entries are pickles, which run code when loaded, so a folder another user could write to is not used:
the folder and the one it lies in must be real folders of this user (or root) that nobody else may write to.
A folder grpo-lint makes is this user's alone (mode 700).

One file per repository holds its entries (a pack, named after the repository's root): making a file costs
about 0.8 ms on this project's machine, as much as reading 5 KB of Python, so a first run that kept one file per
entry was 0.4 s slower on the corpus; one pack costs 2 ms. A run loads the repository's packs once, and writes
one when it read something new: the entries it made, and the others it loaded except those of a file it read
with another text (so a pack holds about one entry per file of the repository). It is written under a
temporary name and renamed into place, so a run never sees half a pack; the packs it merged are then removed. A
forked copy of the run writes a pack of its own entries when it finishes, which the next run merges. A pack
that is not a regular file or is too large is not read, and an entry that does not load is read again.
Nothing is ever an error: a folder that cannot be made or written (a read-only home) only means no cache.

The first run of another build of grpo-lint removes the folders of the others (folders named as builds, files
named as packs: nothing else).

Only the command line uses it: the Python API and the editor's server run inside other programs and write
nothing.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
from typing import TYPE_CHECKING, TypeVar

from grpo_lint.sources.reading import read_file

if TYPE_CHECKING:
    from grpo_lint.sources.document import ReadProblem
    from grpo_lint.sources.python_code import PythonFile
    from grpo_lint.sources.shell import Script, Word

T = TypeVar("T")

# A script shorter than this is read faster than its entry is loaded (scripts read at about 4.5 KB per
# millisecond; a script's entry loads at about 0.15 ms, since its words are many small records).
MIN_SCRIPT_CHARS = 2048
MAX_PACK_BYTES = 256 * 1024 * 1024  # a larger pack is neither read nor merged (the repository's own are far smaller)
_MAGIC = b"grpo-lint pack 1\n"
_HEAD = 32 + 16 + 4  # an entry: its key, its slot (the file it is of), the length of its pickle
_BUILD = r"python-[0-9a-f]{16}\Z"
_PACK = r"[0-9a-f]{16}\.[0-9]+\.pack(\.tmp)?\Z"
_RUN_ENTRY = r"run-[0-9a-f]{32}\.pickle(\.[0-9]+\.tmp)?\Z"  # (grpo_lint.run_cache's)
# The modules whose code decides what a file is read as: a change to any of them is another build.
_READERS = (
    "records.py",
    "diagnostics.py",
    "patterns.py",
    "limits.py",
    "setting.py",
    "sources/document.py",
    "sources/numbers.py",
    "sources/python_code.py",
    "sources/python_index.py",
    "sources/python_kwargs.py",
    "sources/python_launches.py",
    "sources/python_loads.py",
    "sources/python_needles.py",
    "sources/python_syntax.py",
    "sources/shell.py",
)


class _Cache:
    """The packs of one repository in one build's folder, and what this process added."""

    def __init__(self, folder: str, tag: str) -> None:
        self.folder, self.tag = folder, tag
        self.loaded: dict[bytes, tuple[bytes, memoryview]] = {}  # key -> (slot, pickle)
        self.packs: list[str] = []  # the packs loaded (merged into the one this process writes)
        self.made: dict[bytes, tuple[bytes, bytes, int]] = {}  # key -> (slot, pickle, the process that read it)
        self.asked: dict[bytes, set[bytes]] = {}  # slot -> keys: the texts each file was asked for with
        for name in sorted(os.listdir(folder)):
            if name.startswith(tag + ".") and name.endswith(".pack") and re.match(_PACK, name):
                data = read_file(os.path.join(folder, name), MAX_PACK_BYTES, links=False)
                if isinstance(data, bytes) and data.startswith(_MAGIC):
                    self.packs.append(name)
                    self._index(memoryview(data))

    def _index(self, data: memoryview) -> None:
        at, end = len(_MAGIC), len(data)
        while at + _HEAD <= end:
            key, slot = bytes(data[at : at + 32]), bytes(data[at + 32 : at + 48])
            length = int.from_bytes(data[at + 48 : at + _HEAD], "little")
            at += _HEAD
            if at + length > end:
                return  # a pack cut short (a full disk): what came before stands
            self.loaded[key] = (slot, data[at : at + length])
            at += length

    def get(self, key: bytes, slot: bytes, kind: type[T]) -> T | None:
        import pickle

        self.asked.setdefault(slot, set()).add(key)
        found = self.loaded.get(key)
        if found is None:
            return None
        try:
            value = pickle.loads(found[1])
        except Exception:  # a damaged entry: the file is read again
            return None
        return value if isinstance(value, kind) else None

    def put(self, key: bytes, slot: bytes, value: object) -> None:
        import pickle

        with contextlib.suppress(Exception):  # something a reader made does not pickle: simply not kept
            self.made[key] = (slot, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), os.getpid())

    def save(self, merge: bool) -> None:
        """Write this process's pack: what it made, and with `merge` (the run's own process) what it loaded that still
        stands, replacing the packs it loaded. Nothing is written when there is nothing new to keep."""
        me = os.getpid()  # (a forked copy holds what the run's process made before it forked: not its own)
        kept: dict[bytes, tuple[bytes, bytes | memoryview]] = {
            key: (slot, data) for key, (slot, data, maker) in self.made.items() if maker == me
        }
        stale = False
        if merge:
            for key, (slot, data) in self.loaded.items():
                if key in self.asked.get(slot, (key,)):
                    kept.setdefault(key, (slot, data))
                else:
                    stale = True  # a file read with another text: its old entry goes
        if not kept and not (merge and (stale or len(self.packs) > 1)):
            return
        name = os.path.join(self.folder, f"{self.tag}.{os.getpid()}.pack")
        temporary = name + ".tmp"
        parts: list[bytes | memoryview] = [_MAGIC]
        for key, (slot, data) in kept.items():
            parts += (key, slot, len(data).to_bytes(4, "little"), data)
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(descriptor, "wb") as stream:
                stream.writelines(parts)
            os.replace(temporary, name)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            return
        if merge:
            for old in self.packs:
                if os.path.join(self.folder, old) != name:
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(self.folder, old))
        self.made.clear()


_requested: str | None = None  # the folder asked for (`use`): nothing is made or read until a file is
_root = "."  # the repository linted: its packs are named after it
_cache: _Cache | None = None
_opened = False
_owner = 0  # the process that opened the cache (a forked copy writes a pack of its own)


def default_folder() -> str | None:
    """The folder the command line keeps its cache in (see the module's page), or None where none is known."""
    given = os.environ.get("GRPO_LINT_CACHE_DIR")
    if given:
        return given
    base = os.environ.get("XDG_CACHE_HOME")
    if not base or not os.path.isabs(base):
        home = os.path.expanduser("~")
        if home == "~" or not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "grpo-lint")


def use(folder: str | None) -> None:
    """Keep what files are read as in `folder` for the rest of this process (None: keep nothing). Nothing is made or
    read until a file is: a run that reads none (a YAML file in a pre-commit hook) costs nothing more."""
    global _requested, _cache, _opened
    _requested, _cache, _opened = folder, None, False


def bind(root: object) -> None:
    """The repository the run lints (its packs are its own): set before its files are read."""
    global _root
    _root = str(root)


def active() -> bool:
    """Whether a cache is in use (its folder made, checked and loaded now if it was not yet)."""
    return _open() is not None


def save() -> None:
    """Write what this process read that was not kept yet (the run's process also merges the packs it loaded)."""
    if _cache is not None:
        _cache.save(merge=os.getpid() == _owner)


def read(text: str, path: str) -> PythonFile | ReadProblem:
    """`python_code.read(text, path)`, loaded from the cache when an earlier run read the same file, and kept there
    when it is read now."""
    from grpo_lint.sources import python_code

    cache = _open()
    if cache is None:
        return python_code.read(text, path)
    key, slot = _key(b"python", path, text)
    found = cache.get(key, slot, python_code.PythonFile)
    if found is not None:
        return found._replace(text=text)
    code = python_code.read(text, path)
    if isinstance(code, python_code.PythonFile):
        cache.put(key, slot, code._replace(text=""))
    return code


def cached(text: str, path: str) -> PythonFile | None:
    """What an earlier run read this Python file as, when the cache holds it."""
    from grpo_lint.sources.python_code import PythonFile

    cache = _open()
    if cache is None:
        return None
    found = cache.get(*_key(b"python", path, text), PythonFile)
    return None if found is None else found._replace(text=text)


def keep(text: str, path: str, code: PythonFile) -> None:
    """Keep what a forked copy read a Python file as (grpo_lint.sources.parallel), as `read` would have."""
    cache = _open()
    if cache is not None:
        cache.put(*_key(b"python", path, text), code._replace(text=""))


def script(
    text: str, path: str, environment: dict[str, Word] | None = None, arguments: list[Word] | None = None
) -> Script:
    """`shell.parse(text, path, environment, arguments)`, loaded from the cache when an earlier run read the same
    script alone, and kept there when it is read now. A script read with a caller's variables or words is read
    each time: its reading depends on them."""
    from grpo_lint.sources.shell import Script, parse

    cache = _open() if not environment and arguments is None and len(text) >= MIN_SCRIPT_CHARS else None
    if cache is None:
        return parse(text, path, environment, arguments)
    key, slot = _key(b"shell", path, text)
    found = cache.get(key, slot, Script)
    if found is not None:
        return found._replace(text=text, lines=tuple(text.split("\n")))
    parsed = parse(text, path)
    cache.put(key, slot, parsed._replace(text="", lines=()))
    return parsed


def _key(kind: bytes, path: str, text: str) -> tuple[bytes, bytes]:
    """(the entry's key: what was read, where and how; its slot: the file, whatever its text)."""
    import hashlib

    where = kind + b"\0" + path.encode("utf-8", "surrogatepass")
    slot = hashlib.blake2b(where, digest_size=16).digest()
    key = hashlib.blake2b(where + b"\0" + text.encode("utf-8", "surrogatepass"), digest_size=32).digest()
    return key, slot


def _open() -> _Cache | None:
    global _cache, _opened, _owner
    if _opened:
        return _cache
    _opened, _owner = True, os.getpid()
    build = build_folder(_requested)
    if build is None:
        return None
    import hashlib

    try:
        tag = hashlib.blake2b(os.path.abspath(_root).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
        _cache = _Cache(build, tag)
        from grpo_lint.forked import at_copy_end

        at_copy_end(save)  # a forked copy keeps what it read too
    except (OSError, ValueError):
        _cache = None
    return _cache


def build_folder(folder: str | None) -> str | None:
    """This build's folder of the cache kept in `folder` (made, and checked as packs are), or None for none: where
    grpo_lint.run_cache keeps the output of whole runs."""
    if folder is None or os.name != "posix":
        return None
    try:
        base = os.path.abspath(folder)
        os.makedirs(os.path.dirname(base), mode=0o700, exist_ok=True)
        build = os.path.join(base, "python-" + _build_name())
        made = _make(base) and _make(build)
        if made == "new":
            _forget_other_builds(base, os.path.basename(build))
    except (OSError, ValueError):
        return None
    return build if made else None


def _build_name() -> str:
    """A name for this build of the readers: grpo-lint's version, Python's, and the size and time of each module
    that decides what a file is read as (an edited checkout is another build)."""
    import hashlib
    import pickle

    from grpo_lint import __version__

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    digest = hashlib.blake2b(digest_size=8)
    digest.update(f"{__version__}\0{sys.version}\0{pickle.HIGHEST_PROTOCOL}".encode())
    for module in _READERS:
        try:
            facts = os.stat(os.path.join(package, module))
            digest.update(f"\0{module}\0{facts.st_size}\0{facts.st_mtime_ns}".encode())
        except OSError:
            digest.update(f"\0{module}\0-".encode())
    return digest.hexdigest()


def _make(folder: str) -> str | None:
    """ "new" when this made `folder` (this user's alone), "safe" when it was there and safe to load from, else
    None."""
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        return "safe" if _safe(folder) else None
    except OSError:
        return None
    return "new" if _safe(folder) else None


def _safe(folder: str) -> bool:
    """A real folder (not a link), of this user or root, that no other user may write to."""
    try:
        facts = os.lstat(folder)
    except OSError:
        return False
    return (
        stat.S_ISDIR(facts.st_mode)
        and facts.st_uid in (os.getuid(), 0)
        and not facts.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def _forget_other_builds(folder: str, keep: str) -> None:
    """Remove the packs and run entries of other builds (folders named as builds, files named as packs or entries:
    nothing else)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        old = os.path.join(folder, name)
        if name == keep or not re.match(_BUILD, name) or not _safe(old):
            continue
        try:
            for entry in os.listdir(old):
                if re.match(_PACK, entry) or re.match(_RUN_ENTRY, entry):
                    os.unlink(os.path.join(old, entry))
            os.rmdir(old)
        except OSError:
            continue
