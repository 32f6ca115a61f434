"""Where a repository states which framework release it runs, read from every place it can say so.

- dependency and lock files in any folder: `requirements*.txt` / `*.in` / `requirements*.lock` (Rye's lock
  files, `pip freeze` output kept as `.lock`, both in pip's format) / `constraints*.txt` /
  `REQUIRED_*.txt` (including `pip freeze` output, whose editable installs are recorded as comments:
  `# Editable install with no version control (ms_swift==3.7.0.dev0)`), `setup.py` (any requirement
  string), `setup.cfg`, `pyproject.toml` (PEP 621, dependency groups, Poetry, `[tool.uv.sources]`),
  conda environment files of any name (a YAML with `dependencies:` and a `pip:` list), `uv.lock` and
  `poetry.lock`, an ms-swift `args.json`;
- install lines in scripts, Dockerfiles, notebooks and text files (`pip install trl==0.19.1`,
  `uv pip install`, `!pip`, `%pip`, `RUN pip install`, `PIP_INSTALL=pip install verl==0.7.1`);
- install lines in the README and docs.

Each statement keeps where it was written (`requirements.txt:4 trl==0.15.2`) and the folder it belongs
to: a monorepo's recipes pin their own releases, and a file is linted against the statement of its
nearest folder (see `choose`). A range allows the releases inside it; a pre-release (`0.7.0.dev0`) lies
between the release below it and the release it leads to; a git commit names no release at all.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

from grpo_lint.patterns import lazy
from grpo_lint.records import Record
from grpo_lint.sources.document import ReadProblem
from grpo_lint.sources.numbers import integer
from grpo_lint.sources.reading import UTF16_BOMS, decoded, read_file
from grpo_lint.versions import around

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

_PROJECTS = {"trl": "trl", "ms-swift": "swift", "verl": "verl", "openrlhf": "openrlhf"}
# Packages whose pin bounds a framework's releases (each TRL release declares `transformers>=X`): a
# repository that pins `transformers==4.49.0` cannot install a TRL that needs 4.50.
_BOUNDING = {"transformers": "trl"}
# The names as they appear in text, for a cheap look before a file is read line by line.
_NEEDLES = (b"trl", b"swift", b"verl", b"openrlhf", b"OpenRLHF")
_BOUND_NEEDLES = (*_NEEDLES, b"transformers")
_REQUIREMENT_FILE = lazy(
    r"(^|/)(requirements?[^/]*\.(txt|in|lock)|[^/]*[-_.]requirements?\.(txt|in|lock)|constraints[^/]*\.txt"
    r"|required_[^/]*\.txt)$",
    re.I,
)
_MAX_PIN_FILE = 512 * 1024
# A lock file lists every package of an environment (a project's uv.lock is often past a megabyte); it is only
# searched for its packages' entries, in one pass.
_MAX_LOCK_FILE = 32 * 1024 * 1024
_MAX_DEPTH = 8  # folders below the root that are searched for statements
# `name[extras] specifiers ; markers` (PEP 508 without URLs): packaging.specifiers judges the versions.
# (packaging.requirements would do the same at 25 ms of import on every pre-commit run.)
_REQUIREMENT = lazy(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;@]*?)\s*(?:;.*)?$")
# PEP 508 direct references (`trl[vllm] @ git+https://...@REF`) and pip's `git+URL@REF#egg=trl`.
_DIRECT = lazy(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*@\s*(\S+)")
_EGG = lazy(r"^(?:-e\s+|--editable\s+)?(\w+\+\S+?)#(?:.*&)?egg=([A-Za-z0-9._-]+)")
_TAG = lazy(r"^v?(\d+(?:\.\d+)+(?:(?:a|b|rc|\.post|\.dev)\d+)?)$")
_COMMIT = lazy(r"^[0-9a-f]{7,40}$")
_EXACT = lazy(r"===?([0-9][0-9A-Za-z.!+_-]*)")
# `pip install ...`, `pip3 install`, `python -m pip install`, `uv pip install`, `uv add`, after `!`/`%`/RUN.
_INSTALL = lazy(r"(?:\bpip3?|\bpython3?\s+-m\s+pip|\buv\s+pip)\s+install\s+(.*)|\buv\s+add\s+(.*)")
_PIP_VALUE_OPTIONS = frozenset({
    "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-c", "--constraint", "-r", "--requirement",
    "-t", "--target", "--prefix", "--root", "--python-version", "--platform", "--implementation", "--abi",
    "--trusted-host", "--src", "--upgrade-strategy", "--progress-bar", "--cache-dir", "--python", "-p",
    "--config-settings", "-C", "--global-option", "--install-option", "--log",
})  # fmt: skip
_ASSIGNMENT = lazy(r"^[A-Za-z_]\w*=(?!=)")  # `VAR=value` in front of a command: no requirement
_FREEZE_COMMENT = lazy(r"^#\s*Editable install[^(]*\(\s*([A-Za-z0-9._-]+==[^\s)]+)\s*\)")
_LOCK_ENTRY = lazy(r'^name\s*=\s*"([A-Za-z0-9._-]+)"\s*\nversion\s*=\s*"([^"]+)"', re.M)

# How much a statement says, best first: a dependency or lock file, an install line in a script, a
# Dockerfile or a notebook, an install line in the docs.
DEPENDENCY, INSTALL, DOCS = 0, 1, 2
# An install line that comes after the line installing the project itself (`pip install -e ".[dev]"` then
# `pip install git+https://github.com/huggingface/trl.git` in one recipe): what it installs replaces the release
# the project's own dependency files pin.
REPLACES = -1


class Pin(Record):
    framework: str
    version: Version | None  # the release it selects: the pinned one, or the newest known it allows
    provenance: str  # `requirements.txt:4 trl==0.15.2`
    exact: bool  # names one version (`==`, a conda `=`, a lock entry, a git tag or commit)
    folder: str = ""  # the folder the statement belongs to, relative to the root ("" = the root)
    kind: int = DEPENDENCY
    allows: tuple[Version, ...] = ()  # the known releases it admits, oldest first (a range, a pre-release)
    commit: bool = False  # a git commit: no release grpo-lint can tell
    git: bool = False  # installs a git checkout (a branch or a commit), whose code may lie between releases
    fork: bool = False  # another project's copy of the framework (a git submodule of a fork): its own keys
    requirement: str = ""  # a bounding package's statement (`framework` is its name): its specifier, `==4.49.0`

    @property
    def shown(self) -> bool:
        """Whether the statement names the release that runs (an exact pin of a release, a tag)."""
        return self.exact and not self.commit and len(self.allows) == 1


class Statements:
    """A repository's statements of a release, read as a file needs them: its own (a notebook's install
    cell, a script's header), those of its folder and the folders above, and only when none of those says
    anything every other folder's (a single file linted in a large repository reads a few files, not all).
    `choose` decides for one file."""

    def __init__(self, root: Path, files: list[str]) -> None:
        self.root = root
        self.files = files
        self._folders: dict[str, list[str]] | None = None  # folder -> its files
        self._listed: frozenset[str] | None = None  # the files, for a folder listed from the disk
        self._read: dict[str, list[Pin]] = {}  # folder or own-scope file -> its statements
        self._shared: list[Pin] | None = None

    def _index(self) -> dict[str, list[str]]:
        """The files of each folder (no deeper than _MAX_DEPTH), by name only: what can state a release is decided
        per folder, when a file's chain asks for that folder."""
        if self._folders is None:
            self._folders = {}
            for name in self.files:
                folder, _, _ = name.rpartition("/")
                if folder.count("/") < _MAX_DEPTH:
                    self._folders.setdefault(folder, []).append(name)
        return self._folders

    def _in_folder(self, folder: str) -> list[str]:
        """The repository's files directly in a folder: listed from the folder itself while the whole index is not
        built (a file's chain of folders costs what those folders hold, not what the repository holds)."""
        if self._folders is not None:
            return self._folders.get(folder, [])
        if folder.count("/") >= _MAX_DEPTH:
            return []
        if self._listed is None:
            self._listed = frozenset(self.files)
        try:
            entries = sorted(os.listdir(self.root / folder))
        except (OSError, ValueError):
            return []
        prefix = f"{folder}/" if folder else ""
        return [prefix + entry for entry in entries if prefix + entry in self._listed]

    def folder(self, folder: str) -> list[Pin]:
        """The statements of the files directly in a folder ("" = the root), for that folder and below."""
        if folder not in self._read:
            found: list[Pin] = []
            for name in self._in_folder(folder):
                reader = _reader(name)
                if reader is not None and reader not in _OWN_READERS:
                    found.extend(_statements(self.root, name, reader))
            self._read[folder] = found
        return self._read[folder]

    def own(self, relative: str) -> list[Pin]:
        """A notebook's install cells, a Python script's header: statements for that file alone."""
        reader = _reader(relative) if relative else None
        if reader not in _OWN_READERS:
            return []
        if relative not in self._read:
            self._read[relative] = _statements(self.root, relative, reader)
        return self._read[relative]

    @property
    def shared(self) -> list[Pin]:
        """The statements of every folder (not the files' own)."""
        if self._shared is None:
            self._shared = [pin for folder in sorted(self._index()) for pin in self.folder(folder)]
        return self._shared

    @property
    def pins(self) -> list[Pin]:
        """Every statement, the files' own included (for --show; reads every file that may hold one)."""
        owned = [name for name in self.files if name.count("/") <= _MAX_DEPTH and _reader(name) in _OWN_READERS]
        return self.shared + [pin for name in owned for pin in self.own(name)]

    def uses(self, framework: str) -> Pin | None:
        """A statement that the repository depends on the framework at all (any, even unpinned)."""
        return next((p for p in self.shared if p.framework == framework), None)

    def choose(self, framework: str, relative: str = "") -> tuple[Pin | None, str]:
        """The statement for a file (`relative` to the root): its own, else the best of its nearest folder
        that states one, else of the whole repository when every folder agrees. Also why, when several
        disagree. A statement that allows several releases is narrowed by the pins of packages that bound
        them (`transformers==4.49.0` rules out the TRL releases that need a newer one). Only a statement of the
        framework is narrowed: where nothing states it, it is installed apart from those pins (`pip install trl`
        upgrades transformers to what it needs), so they say nothing of its release."""
        pin, note = self._stated(framework, relative)
        package = next((name for name, bounded in _BOUNDING.items() if bounded == framework), None)
        if package is None or pin is None or pin.exact or pin.fork or pin.commit or pin.kind == REPLACES:
            return pin, note  # (installed after the project, it brings what it needs: the project's bound is gone)
        bound = self._nearest(package, relative)
        return (_bounded(framework, pin, bound) if bound is not None else pin), note

    def _chain(self, name: str, relative: str) -> Iterator[list[Pin]]:
        """The statements of `name` that may speak for a file, nearest first: its own, then each folder's from the
        file's up to the root (a list for each place that states any)."""
        own = [p for p in self.own(relative) if p.framework == name]
        if own:
            yield own
        folder = relative.rpartition("/")[0]
        while True:
            here = [p for p in self.folder(folder) if p.framework == name]
            if here:
                yield here
            if not folder:
                return
            folder = folder.rpartition("/")[0]

    def stated(self, name: str, relative: str) -> Pin | None:
        """The statement of a package (a framework, or one that bounds it: transformers) that speaks for a file, as
        `choose` finds a framework's (its own, its nearest folder's, else the repository's where all agree), not
        narrowed."""
        return self._stated(name, relative)[0]

    def nearest(self, name: str, relative: str) -> Pin | None:
        """The best statement of a package that the file's own folders make (its own, else its nearest folder's), not
        the repository's elsewhere: read from those folders alone."""
        return self._nearest(name, relative)

    def _nearest(self, name: str, relative: str) -> Pin | None:
        """The best statement of a package for a file: its own, else its nearest folder's."""
        here = next(self._chain(name, relative), None)
        return _best(here) if here else None

    def _stated(self, framework: str, relative: str) -> tuple[Pin | None, str]:
        own = [p for p in self.own(relative) if p.framework == framework]
        if own:
            return _best(own), _disagreement(own)
        bare_only: list[Pin] = []
        for here in self._chain(framework, relative):
            if not all(_bare(p) for p in here):
                return _best(here), _disagreement(here)
            # `pip install trl -U` in one example's folder allows every release: a pin above it still speaks
            bare_only = bare_only or here
        if bare_only:
            return _best(bare_only), ""
        mine = [p for p in self.shared if p.framework == framework]
        if not mine:
            return None, ""
        # Statements only in other folders (a monorepo's recipes): they speak for this file only if they agree.
        versions = {p.version for p in mine if p.version is not None and p.exact}
        if len(versions) > 1:
            shown = ", ".join(f"{p.folder or '.'}/ {p.version}" for p in sorted(mine, key=_rank)[:4])
            return None, f"the repository pins several releases in other folders ({shown}), none for this file"
        return _best(mine), _disagreement(mine)


def _bounded(framework: str, pin: Pin | None, bound: Pin) -> Pin | None:
    """A statement that allows several releases (or none at all: every release), without the releases the
    bounding package's pin rules out. Unchanged when it rules out none, or all (pip could not install the
    pair: not grpo-lint's to decide)."""
    from grpo_lint.versions import DISPLAY, releases, requires

    allowed = pin.allows if pin is not None else releases(framework)
    minimums = requires(framework, bound.framework)
    candidates = _candidates(bound.requirement, minimums)
    if candidates is None:
        return pin
    kept = tuple(v for v in allowed if any(c >= minimums(v) for c in candidates))
    if not kept or len(kept) == len(allowed):
        return pin
    first_out = next(v for v in allowed if v not in kept)
    why = (
        f"bounded by {bound.provenance}: {DISPLAY[framework]} {first_out} and later need "
        f"{bound.framework}>={minimums(first_out)}"
    )
    stated = pin.provenance if pin is not None else f"{DISPLAY[framework]} (no release stated)"
    base = pin if pin is not None else Pin(framework, None, "", False, folder=bound.folder, kind=bound.kind)
    return base._replace(version=kept[-1], provenance=f"{stated}, {why}", allows=kept, exact=False)


def _candidates(requirement: str, minimums) -> list[Version] | None:  # type: ignore[no-untyped-def]
    """Versions of the bounding package its specifier admits, enough to tell which minimums it meets:
    the minimums themselves, the versions the specifier names, and one past every release."""
    return _admitted(requirement, {*minimums.values, Version("9999")})


def _admitted(requirement: str, probes: set[Version], neighbours: bool = False) -> list[Version] | None:
    """Which of `probes` and of the versions the specifier names it admits (with `neighbours`, also the releases just
    below and just past each version named: `<5.1` admits 5.0, `>5.0.0` admits 5.0.1); None when it is not a
    specifier."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        specifier = SpecifierSet(requirement)
    except InvalidSpecifier:
        return None
    probes = set(probes)
    for spec in specifier:
        try:
            named = Version(spec.version.removesuffix(".*"))
        except (InvalidVersion, ValueError):
            return None
        probes.add(named)
        if neighbours and named.release:
            *head, last = named.release
            probes.update(Version(".".join(map(str, (*head, n)))) for n in (max(last - 1, 0), last + 1))
    return [v for v in probes if specifier.contains(v, prereleases=True)]


def admits_only_from(requirement: str, first: Version) -> bool:
    """Whether a requirement's specifier (`==5.6.0`, `>=5.1`) admits some version and none before `first`."""
    admitted = _admitted(requirement, {first, Version("0"), Version("9999")}, neighbours=True)
    return bool(admitted) and min(admitted) >= first


def _rank(pin: Pin) -> tuple[int, int, int, int, str]:
    return (0 if pin.kind == REPLACES else 1, 0 if pin.exact else 1, pin.kind, pin.folder.count("/"), pin.provenance)


def _best(pins: list[Pin]) -> Pin:
    return min(pins, key=_rank)


def _disagreement(pins: list[Pin]) -> str:
    """Which statement was used and why, when statements of the same place name other releases."""
    best = _best(pins)
    others = sorted({p.provenance for p in pins if p.exact and p.version != best.version and p is not best})
    if not others or not best.exact:
        return ""
    why = {
        REPLACES: "installed after the project itself, so it replaces the project's own pin",
        DEPENDENCY: "a dependency file",
        INSTALL: "an install line",
        DOCS: "the docs",
    }[best.kind]
    return f"{best.provenance} is used ({why}); also stated: {'; '.join(others[:3])}"


def find_pins(root: Path, files: list[str]) -> Statements:
    """The repository's statements of a framework release, read on demand."""
    return Statements(root, files)


def _statements(root: Path, name: str, reader) -> list[Pin]:  # type: ignore[no-untyped-def]
    """The statements one file makes. A notebook's install cell (a script's own header) speaks for that
    file alone; other statements for their folder."""
    data = read_file(root / name, _MAX_LOCK_FILE if reader is _lock else _MAX_PIN_FILE, within=root)
    if not isinstance(data, ReadProblem) and data[:2] in UTF16_BOMS:  # `pip freeze > requirements.txt` in PowerShell
        data = decoded(data).encode()
    needles = _NEEDLES if reader is _docs or reader is _install_lines else _BOUND_NEEDLES
    if isinstance(data, ReadProblem) or not any(needle in data for needle in needles):
        return []
    if reader is _conda and b"dependencies" not in data:
        return []  # a YAML that is no environment file
    text = decoded(data)
    folder = name if reader in _OWN_READERS else name.rpartition("/")[0]
    found: list[Pin] = []
    try:
        for line, written, kind in reader(text):
            pin = _pin(written, f"{name}:{line}" if line else name, kind)
            if pin is not None:
                found.append(pin._replace(folder=folder))
    except (ValueError, SyntaxError, RecursionError, TypeError, AttributeError, MemoryError):
        pass
    return _without_bare_mentions(found)


def _bare(pin: Pin) -> bool:
    """A statement that names the framework with no release (`pip install trl -U`, a bare `trl`)."""
    from grpo_lint.versions import releases

    return (
        pin.framework in _FRAMEWORKS
        and not pin.exact
        and not pin.commit
        and not pin.fork
        and pin.allows == releases(pin.framework)
    )


def _without_bare_mentions(found: list[Pin]) -> list[Pin]:
    """A file that states a release of a framework and also names it bare (open-r1's setup.py keeps
    `"trl==0.16.0"` in `_deps` and lists `deps["trl"]` in install_requires) states that release: the bare
    name is the same requirement, not a second statement allowing every release."""
    stated = {pin.framework for pin in found if not _bare(pin)}
    return [pin for pin in found if pin.framework not in stated or not _bare(pin)]


Lines = list[tuple[int | str, str, int]]  # (line number, "cell 3:2" or 0, requirement text, kind)


def _reader(name: str):  # type: ignore[no-untyped-def]
    base = name.rpartition("/")[2].lower()
    if _REQUIREMENT_FILE.search(name):
        return _requirements
    if base == ".gitmodules":
        return _gitmodules
    readers = {
        "setup.py": _setup_py,
        "setup.cfg": _setup_cfg,
        "pyproject.toml": _pyproject,
        "args.json": _args_json,
        "uv.lock": _lock,
        "poetry.lock": _lock,
    }
    if base in readers:
        return readers[base]
    if base.endswith((".yml", ".yaml")):
        return _conda  # of any name: read when it has a `dependencies` list
    if base.endswith(".ipynb"):
        return _notebook
    if base.endswith(".py"):
        return _python_script
    if base.startswith("dockerfile") or base.endswith((".dockerfile", ".sh", ".bash", ".txt")) or base == "makefile":
        return _install_lines
    if base.endswith((".md", ".rst")):
        return _docs
    return None


def _pin(text: str, where: str, kind: int) -> Pin | None:
    if text.startswith(_SUBMODULE):
        framework, path, url, fork = text.removeprefix(_SUBMODULE).split("\t")
        what = f"a git submodule of a fork ({url})" if fork == "1" else f"a git submodule ({url})"
        return Pin(framework, None, f"{where} {path}: {what}", True, kind=kind, commit=True, fork=fork == "1")
    text = text.strip().strip("\"'")
    if not text or text.startswith("#"):
        return None
    text = text.split(" #", 1)[0].strip()
    if "+" in text and (pin := _git_pin(text, where, kind)) is not None:
        return pin
    if text.startswith("-"):
        return None
    match = _REQUIREMENT.match(text)
    if match is None:
        return None
    specifier_text = match.group(2).replace(" ", "").strip("()")
    if (package := match.group(1).lower()) in _BOUNDING:
        if not specifier_text:
            return None
        return Pin(package, None, f"{where} {text}", bool(_EXACT.fullmatch(specifier_text)), kind=kind,
                   requirement=specifier_text)  # fmt: skip
    framework = _framework(match.group(1))
    if framework is None:
        return None
    exact = _EXACT.fullmatch(specifier_text)
    if exact is not None:  # `==X`, the usual pin: no specifier machinery (25 ms of import) needed
        try:
            version = Version(exact.group(1))
        except (InvalidVersion, ValueError):  # ValueError: a number past int()'s digit limit
            return None
        return Pin(framework, version, f"{where} {text}", True, kind=kind, allows=around(framework, version))
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        specifier = SpecifierSet(specifier_text)
    except InvalidSpecifier:
        return None
    return _selected(framework, specifier, f"{where} {text}", kind)


def _framework(project: str) -> str | None:
    return _PROJECTS.get(project.lower().replace(".", "-").replace("_", "-"))


def _selected(framework: str, specifier: SpecifierSet | None, provenance: str, kind: int) -> Pin | None:
    """What a specifier says: `==X` one version (a pre-release: the releases around it), a range the
    known releases inside it (the newest selected), nothing at all (`trl`) every known release."""
    from grpo_lint.versions import releases

    known = releases(framework)
    if specifier is None:  # no specifier: every known release
        return Pin(framework, known[-1], provenance, False, kind=kind, allows=known)
    for spec in specifier:
        if spec.operator in ("==", "===") and "*" not in spec.version:
            try:
                version = Version(spec.version)
            except (InvalidVersion, ValueError):  # ValueError: a number past int()'s digit limit
                return None
            return Pin(framework, version, provenance, True, kind=kind, allows=around(framework, version))
    inside = tuple(v for v in known if specifier.contains(v, prereleases=True))
    if not inside:
        return None
    return Pin(framework, inside[-1], provenance, False, kind=kind, allows=inside)


def _git_pin(text: str, where: str, kind: int) -> Pin | None:
    """`trl @ git+https://github.com/huggingface/trl.git@REF` or `-e git+...@REF#egg=trl`: a tag names
    its release; a commit names none grpo-lint can tell offline; a branch (or none) follows the
    newest release."""
    if direct := _DIRECT.match(text):
        project, url = direct.group(1), direct.group(2)
    elif egg := _EGG.match(text):
        project, url = egg.group(2), egg.group(1)
    elif text.startswith("git+"):  # `pip install git+https://github.com/huggingface/trl.git`: the repository's name
        url = text
        project = url.split("#", 1)[0].rpartition("@")[0] if "@" in url.split("://", 1)[-1] else url.split("#", 1)[0]
        project = project.rstrip("/").rpartition("/")[2].removesuffix(".git")
    else:
        return None
    framework = _framework(project)
    if framework is None or not url.startswith("git+"):
        return None
    path = url.split("#", 1)[0].split("://", 1)[-1]
    ref = path.rpartition("@")[2] if "@" in path.partition("/")[2] else ""
    owner = _owner(path.rpartition("@")[0] if ref else path)
    if owner is not None and not _upstream(framework, owner):
        # another owner's repository: a fork whose keys, flags and choices are its own
        return Pin(framework, None, f"{where} {project} from a fork ({url[len('git+') :]})", True, kind=kind,
                   commit=True, fork=True)  # fmt: skip
    if tag := _TAG.match(ref):
        try:
            version = Version(tag.group(1))
        except (InvalidVersion, ValueError):
            return None
        return Pin(framework, version, f"{where} {text}", True, kind=kind, allows=around(framework, version))
    if _COMMIT.match(ref):
        return Pin(
            framework, None, f"{where} {project} at git commit {ref[:12]}", True, kind=kind, commit=True, git=True
        )
    branch = _selected(framework, None, f"{where} {project} from git ({ref or 'default branch'})", kind)
    return branch._replace(git=True) if branch is not None else None


def pick(framework: str, specifier: SpecifierSet) -> tuple[Version | None, bool]:
    """The version a specifier selects: the pinned one for `==X`, else the newest known inside."""
    pin = _selected(framework, specifier, "", DEPENDENCY) if str(specifier) else None
    return (pin.version, pin.exact) if pin is not None else (None, False)


# --- readers: each gives (line, requirement text, kind) ------------------------------------------


def _requirements(text: str) -> Lines:
    lines: Lines = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if frozen := _FREEZE_COMMENT.match(stripped):
            lines.append((number, frozen.group(1), DEPENDENCY))
        elif _INSTALL.search(stripped):
            lines.extend((number, item, DEPENDENCY) for item in _install_arguments(stripped))
        else:
            lines.append((number, stripped, DEPENDENCY))
    return lines


def _install_arguments(line: str) -> list[str]:
    """The requirements a `pip install ...` line names (options and their values left out)."""
    match = _INSTALL.search(line)
    if match is None:
        return []
    rest = match.group(1) if match.group(1) is not None else match.group(2)
    # the command ends at a shell separator, a comment, a trailing backslash, or the backtick that
    # closes a Markdown code span (`pip install -e .` inside a sentence; no requirement has one)
    rest = re.split(r"\s(?:&&|\|\||;|\||#)|[;&|]\s|\s\\$|`", " " + rest)[0]
    words = [w.strip("\"'") for w in rest.split()]
    found: list[str] = []
    skip = False
    for index, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word in _PIP_VALUE_OPTIONS:
            skip = True
            continue
        if word in ("-e", "--editable") and index + 1 < len(words):
            found.append(f"-e {words[index + 1]}")
            skip = True
            continue
        if word.startswith("-") or _ASSIGNMENT.match(word):
            continue
        found.append(word)
    return found


def _install_lines(text: str) -> Lines:
    """The requirements of each install command, at the line that names each; a command continued over several
    lines (`pip install \\` then one requirement per line) is read whole."""
    found: Lines = []
    project_installed = False  # a line before installed the project itself (`-e .`, `.[dev]`)
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        first = index
        index = _continued_to(lines, first)
        block = lines[first : index + 1]
        index += 1
        line = block[0]
        if "git" in line and "clone" in line and not line.lstrip().startswith("#"):
            cloned = _cloned_tag(_joined(block) if len(block) > 1 else line)
            if cloned is not None:  # `git clone --branch v4.4.3 https://github.com/modelscope/ms-swift.git DIR`
                found.append((first + 1, cloned, INSTALL))
        if "install" not in line or line.lstrip().startswith("#"):
            continue
        # (`pip install -e . && \\` then `pip install git+...`: each command of a continued block in turn)
        commands = [line] if len(block) == 1 else _COMMANDS.split(_joined(block))
        for command in commands:
            items = _install_arguments(command)
            kind = REPLACES if project_installed else INSTALL
            for item in items:
                offset = next((k for k, part in enumerate(block) if item in part), 0)
                found.append((first + 1 + offset, item, kind))
            project_installed = project_installed or any(_installs_the_project(item) for item in items)
    return found


def _cloned_tag(command: str) -> str | None:
    """`git clone --branch TAG URL [DIR]` (or `-b TAG`, `--branch=TAG`) of a framework's repository, as the git
    reference it checks out (`git+URL@TAG`: read as `pip install git+URL@TAG` is); None for any other command."""
    words = [w.strip("\"'") for w in _COMMANDS.split(command)[0].split()]
    if "clone" not in words or words.index("clone") == 0 or words[words.index("clone") - 1] != "git":
        return None
    rest = words[words.index("clone") + 1 :]
    tag = url = ""
    index = 0
    while index < len(rest) and not url:
        word = rest[index]
        if word in ("--branch", "-b") and index + 1 < len(rest):
            tag, index = rest[index + 1], index + 2
            continue
        if word.startswith("--branch="):
            tag = word.partition("=")[2]
        elif word in _CLONE_VALUE_OPTIONS:
            index += 1
        elif not word.startswith("-"):
            url = word
        index += 1
    if not tag or not url.startswith(("https://", "http://", "git@")) or "$" in url + tag:
        return None
    if url.startswith("git@"):
        url = "https://" + url.removeprefix("git@").replace(":", "/", 1)
    return f"git+{url}@{tag}" if _framework(url.rstrip("/").rpartition("/")[2].removesuffix(".git")) else None


_CLONE_VALUE_OPTIONS = frozenset({"--depth", "-o", "--origin", "-c", "--config", "--reference", "-j", "--jobs"})

_COMMANDS = lazy(r"&&|\|\||;")
_MAX_CONTINUED = 200  # lines one command may run over (`pip install \` then one requirement per line)


def _continued_to(lines: list[str], first: int) -> int:
    """The index of the last line of the command that starts at `first`, over every line that ends in `\\`."""
    last = first
    while lines[last].rstrip().endswith("\\") and last + 1 < len(lines) and last - first < _MAX_CONTINUED:
        last += 1
    return last


def _joined(block: list[str]) -> str:
    """A command continued over lines, as one line."""
    return " ".join(part.rstrip().removesuffix("\\") for part in block)


def _installs_the_project(item: str) -> bool:
    """`.`, `-e .`, `.[dev]`, `-e ".[dev,vllm]"`: the project of the folder, with its own dependency pins."""
    target = item.removeprefix("-e ").strip().strip("\"'")
    return target == "." or (target.startswith((".[", "./")) and not target.endswith((".txt", ".whl")))


# A release recommended in prose: "We recommend installing [`ms-swift==3.7.0`](...)", "requires `trl==0.16.0`".
_PROSE = lazy(r"\b(?:install|recommend|require|use|tested|need)\w*\b[^`\n]{0,80}`([A-Za-z0-9_.-]+==[0-9][\w.]*)`", re.I)


def _docs(text: str) -> Lines:
    lines = [(number, item, DOCS) for number, item, _ in _install_lines(text)]
    seen = {number for number, _, _ in lines}
    for number, line in enumerate(text.splitlines(), 1):
        if number in seen or "==" not in line:
            continue
        lines.extend((number, match.group(1), DOCS) for match in _PROSE.finditer(line) if _framework_of(match.group(1)))
    return lines


def _framework_of(requirement: str) -> bool:
    return _framework(requirement.partition("==")[0]) is not None


def _notebook(text: str) -> Lines:
    """Install cells of a notebook (`!pip install`, `%pip install`, `!uv pip install`), by cell."""
    from grpo_lint.sources.notebook import code_cells

    lines: Lines = []
    for cell in code_cells(text):
        source = cell.source.splitlines()
        for offset, line in enumerate(source, 1):
            if "install" in line and line.lstrip().startswith(("!", "%")):
                # (`%pip install --upgrade \` then one requirement per line: the command is read whole)
                whole = _joined(source[offset - 1 : _continued_to(source, offset - 1) + 1])
                lines.extend((f"cell {cell.number}:{offset}", item, INSTALL) for item in _install_arguments(whole))
    return lines


_SCRIPT_BLOCK = lazy(r"^# /// script\s*$\n((?:^#(?: .*)?$\n)+?)^# ///\s*$", re.M)
# An install step a converted notebook keeps as a comment: `# !pip install x`, `# %pip install x`,
# `# get_ipython().system('pip install x')` (jupyter nbconvert --to script).
_IPYTHON_INSTALL = lazy(r"^\s*#\s*(?:[!%]|get_ipython\(\)\.(?:system|run_line_magic|run_cell_magic)\()")


# A container image a Python file declares with Modal (`modal.Image.debian_slim().pip_install("trl==0.19.1")`, also
# `uv_pip_install`): the packages its functions run with. Each string argument is a requirement.
_IMAGE_INSTALL = lazy(r"\.(?:uv_)?pip_install\(([^()]*)\)")
_STRING = lazy(r"\"([^\"\n]+)\"|'([^'\n]+)'")


def _python_script(text: str) -> Lines:
    """A Python file's own statements, for that file alone: its PEP 723 header (`# /// script` with
    `dependencies = [...]`, what `uv run` and marimo install), the packages of a Modal image it builds
    (`.pip_install(...)`), and the install cells of the notebook it was converted from, kept as comments."""
    lines: Lines = []
    block = _SCRIPT_BLOCK.search(text)
    if block is not None:
        import tomllib

        start = text.count("\n", 0, block.start(1)) + 1
        body = "\n".join(line[2:] if line.startswith("# ") else "" for line in block.group(1).splitlines())
        dependencies = tomllib.loads(body).get("dependencies", [])
        written = block.group(1).splitlines()
        for item in dependencies if isinstance(dependencies, list) else []:
            if isinstance(item, str):
                number = next((start + i for i, w in enumerate(written) if item in w), start)
                lines.append((number, item, DEPENDENCY))
    if "pip_install(" in text:  # a Modal image the file builds its run in: `.pip_install("verl==0.3.0.post1", ...)`
        for call in _IMAGE_INSTALL.finditer(text):
            for item in _STRING.finditer(call.group(1)):
                number = text.count("\n", 0, call.start(1) + item.start()) + 1
                lines.append((number, item.group(1) or item.group(2), INSTALL))
    if "install" in text:
        for number, line in enumerate(text.splitlines(), 1):
            if "install" in line and _IPYTHON_INSTALL.match(line):
                # a cell magic holds its whole cell in one string, lines joined by a written `\n`
                for command in line.split("#", 1)[1].split("\\n"):
                    lines.extend((number, item, INSTALL) for item in _install_arguments(command.strip(" '\")")))
    return lines


def _setup_py(text: str) -> Lines:
    """Every string constant that reads as a requirement (open-r1 keeps them in a `_deps` list)."""
    import ast  # only where a setup.py is read

    return [
        (node.lineno, node.value, DEPENDENCY)
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200
    ]


def _setup_cfg(text: str) -> Lines:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    lines: Lines = []
    for section in parser.sections():
        if section == "options" or section.startswith("options.extras_require"):
            for key, value in parser.items(section):
                if key in ("install_requires",) or section.startswith("options.extras_require"):
                    lines.extend((0, item, DEPENDENCY) for item in value.splitlines())
    return lines


def _pyproject(text: str) -> Lines:
    import tomllib

    data = tomllib.loads(text)
    project = data.get("project", {})
    items = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        items.extend(extra)
    for group in data.get("dependency-groups", {}).values():
        items.extend(item for item in group if isinstance(item, str))
    tool = data.get("tool", {})
    poetry = tool.get("poetry", {})
    for table in (
        poetry.get("dependencies", {}),
        *[g.get("dependencies", {}) for g in poetry.get("group", {}).values()],
    ):
        for package, spec in table.items():
            version = spec.get("version") if isinstance(spec, dict) else spec
            if isinstance(version, str):
                items.append(f"{package}{_poetry_specifier(version)}")
            elif isinstance(spec, dict) and "git" in spec:
                items.append(_git_source(package, spec))
    # uv replaces a dependency's source: a git source is a fork (its tag names a release, else none)
    for package, source in tool.get("uv", {}).get("sources", {}).items():
        if isinstance(source, dict) and "git" in source:
            items.append(_git_source(package, source))
    return [(0, item, DEPENDENCY) for item in items if isinstance(item, str)]


def _git_source(package: str, source: dict) -> str:
    ref = source.get("tag") or source.get("rev") or source.get("branch") or ""
    return f"{package} @ git+{source['git']}" + (f"@{ref}" if ref else "")


def _poetry_specifier(text: str) -> str:
    """Poetry's `^0.18` / `~0.18.1` / `0.18.0` as a PEP 440 specifier."""
    text = text.strip()
    if text == "*":
        return ""
    if text.startswith(("^", "~")) and not text.startswith("~="):
        base = Version(text.lstrip("^~"))
        release = [*base.release, 0, 0]
        if text.startswith("^"):
            first = next((i for i, part in enumerate(release[:3]) if part), 2)
            upper = release[: first + 1]
            upper[first] += 1
        else:
            upper = release[:2] if len(base.release) >= 2 else release[:1]
            upper[-1] += 1
        return f">={base},<{'.'.join(map(str, upper))}"
    if text[:1].isdigit():
        return f"=={text}"
    return text


def _conda(text: str) -> Lines:
    """A conda environment file of any name: its `dependencies` and their `pip:` list."""
    from grpo_lint.sources.yaml_guards import load_plain

    data = load_plain(text)
    lines: Lines = []
    stack = list(data.get("dependencies", []) or []) if isinstance(data, dict) else []
    while stack:
        item = stack.pop(0)
        if isinstance(item, dict):
            stack.extend(item.get("pip", []) or [])
        elif isinstance(item, str):
            # conda's `trl=0.18.0` pins with one `=`; pip lines use PEP 440
            lines.append((0, re.sub(r"^([A-Za-z0-9_.\-\[\]]+)=(?!=)([^=]+)$", r"\1==\2", item.strip()), DEPENDENCY))
    return lines


# The framework's own repositories: a submodule of one of them is the framework at a commit; of another
# owner's, a fork with keys and checks of its own.
_UPSTREAM = {"trl": "huggingface/trl", "swift": "modelscope/ms-swift", "verl": ("volcengine/verl", "verl-project/verl"),
             "openrlhf": "openrlhf/openrlhf"}  # fmt: skip


def _owner(location: str) -> str | None:
    """`owner/name` of a git URL's path (`github.com/owner/name.git`, `git@github.com:owner/name`), lowercased."""
    parts = re.sub(r"\.git$", "", location.rstrip("/")).replace(":", "/").split("/")
    return "/".join(parts[-2:]).lower() if len(parts) >= 3 else None


def _upstream(framework: str, owner: str) -> bool:
    upstream = _UPSTREAM[framework]
    return owner in ((upstream,) if isinstance(upstream, str) else upstream)


def submodules(text: str) -> list[tuple[str, str]]:
    """(path, url) of each `[submodule "x"]` of a `.gitmodules` text; none when it does not read as one."""
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    return [(parser.get(s, "path", fallback=""), parser.get(s, "url", fallback="")) for s in parser.sections()]


def _gitmodules(text: str) -> Lines:
    """`[submodule "verl"] path = verl url = https://github.com/owner/verl.git`: the framework from git, at the
    commit the superproject records."""
    lines: Lines = []
    for path, url in submodules(text):
        repository = re.sub(r"\.git$", "", url.rstrip("/")).rpartition(":")[2].split("/")[-2:]
        name = (repository[-1] if repository else path.rpartition("/")[2]).lower()
        framework = _framework(name) or _framework(path.rpartition("/")[2])
        if framework is None:
            continue
        owner = _owner(url)
        fork = owner is None or not _upstream(framework, owner)
        lines.append((0, f"{_SUBMODULE}{framework}\t{path}\t{url}\t{int(fork)}", DEPENDENCY))
    return lines


_SUBMODULE = "\x00submodule:"


def _lock(text: str) -> Lines:
    """`uv.lock` / `poetry.lock`: the version each package was locked to. A uv lock that resolves a package once per
    range of Python versions (`resolution-markers = ["python_full_version < '3.10'"]` for one entry, the newer Pythons
    for another) locks it for the newest Pythons in the entry not bounded to older ones: the others are the
    resolution for an interpreter a GRPO run no longer uses (TRL 0.25 and later need Python 3.10)."""
    found: dict[str, list[tuple[int, str, bool]]] = {}
    for match in _LOCK_ENTRY.finditer(text):
        if _framework(match.group(1)) is None:
            continue
        line = text.count("\n", 0, match.start()) + 1
        markers = _LOCK_MARKERS.match(text, match.end())
        old_only = markers is not None and all(
            _OLD_PYTHON.search(marker) for marker in markers.group(1).split(",") if marker.strip()
        )
        found.setdefault(match.group(1), []).append((line, f"{match.group(1)}=={match.group(2)}", old_only))
    lines: Lines = []
    for entries in found.values():
        newer = [entry for entry in entries if not entry[2]]
        lines.extend((line, statement, DEPENDENCY) for line, statement, _ in (newer or entries))
    return sorted(lines)


# An entry's `resolution-markers = [...]` right after its name, version and source lines, and a marker that bounds
# the Python version from above (`python_full_version < '3.10'`, with or without a platform condition).
_LOCK_MARKERS = lazy(r"(?:\n(?!\[)[^\n]*){0,3}?\nresolution-markers\s*=\s*\[([^\]]*)\]")
_OLD_PYTHON = lazy(r"python_(?:full_)?version\s*<=?\s*'")


def _args_json(text: str) -> Lines:
    data = json.loads(text, parse_int=integer)
    version = data.get("swift_version") if isinstance(data, dict) else None
    return [(0, f"ms-swift=={version}", DEPENDENCY)] if isinstance(version, str) else []


# Readers whose statements speak for their own file alone.
_OWN_READERS = (_notebook, _python_script)
_FRAMEWORKS = frozenset(_PROJECTS.values())
