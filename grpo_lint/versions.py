"""Target framework versions: parse `--target`, read the installed version, fall back to the newest known."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from packaging.version import InvalidVersion, Version

if TYPE_CHECKING:
    from grpo_lint.workspace.pins import Pin

# The distribution names on PyPI, and the newest release the reference covers.
DISTRIBUTIONS = {"trl": "trl", "swift": "ms-swift", "verl": "verl", "openrlhf": "openrlhf"}
NEWEST_KNOWN = {
    "trl": Version("1.16.0"), "swift": Version("4.6.0"), "verl": Version("0.9.1"), "openrlhf": Version("0.11.2"),
}  # fmt: skip
# The first release that has GRPO at all (TRL, ms-swift), or the first whose arguments grpo-lint records.
FIRST_GRPO = {
    "trl": Version("0.14.0"), "swift": Version("3.1.1"), "verl": Version("0.4.0"), "openrlhf": Version("0.8.0"),
}  # fmt: skip
ALIASES = {
    "trl": "trl", "swift": "swift", "ms-swift": "swift", "ms_swift": "swift", "verl": "verl", "openrlhf": "openrlhf",
}  # fmt: skip
DISPLAY = {"trl": "TRL", "swift": "ms-swift", "verl": "verl", "openrlhf": "OpenRLHF"}


class Fork(NamedTuple):
    """A framework package the repository ships itself (a vendored or forked copy)."""

    framework: str
    package: str  # its folder, relative to the repository root: "verl", "third_party/verl"
    version: Version | None  # what its version file says; None when it has none
    schemas: Mapping[str, Mapping[str, Any]]  # its keys with their defaults, by flavour (verl: fsdp/megatron)
    mapped: bool  # False: grpo-lint cannot read its schema, so its keys are not checked

    def keys(self) -> frozenset[str]:
        return frozenset(key for schema in self.schemas.values() for key in schema)


class TargetError(ValueError):
    """A --target value that cannot be used."""


class Target(NamedTuple):
    framework: str
    version: Version
    source: str  # where the version came from: "--target", "installed", "setup.py: trl==0.18.0", ...
    fork: Fork | None = None  # a copy of the framework inside the repository, linted against its own schema
    trl: Version | None = None  # ms-swift: the TRL version installed under it, where known and where it matters
    # Why `version` only stands in for a release grpo-lint cannot tell (a git-commit pin, a copy older than
    # the oldest known release); "" when it is the release the run uses.
    uncertain: str = ""

    def __str__(self) -> str:
        return f"{DISPLAY[self.framework]} {self.version}"

    @property
    def framework_name(self) -> str:
        return DISPLAY[self.framework]


_MAX_TARGET = 200  # characters of a FRAMEWORK==VERSION text; real ones are under 40


def parse_target(text: str) -> Target:
    """Parse `trl==0.19.1` / `swift==3.5.0` (also `ms-swift==...`) / `verl==0.7.0` / `openrlhf==0.10.1`."""
    if len(text) > _MAX_TARGET:
        raise TargetError(f"--target {text[:40]!r}...: {len(text):,} characters is too long for FRAMEWORK==VERSION")
    name, sep, version_text = text.partition("==")
    framework = ALIASES.get(name.strip().lower())
    if not sep or framework is None:
        raise TargetError(
            f"--target {text!r}: expected FRAMEWORK==VERSION with FRAMEWORK one of trl, swift, verl, "
            "openrlhf (e.g. --target trl==0.19.1)"
        )
    try:
        version = Version(version_text.strip())
    except (InvalidVersion, ValueError):  # ValueError: a release number past Python's int() limit
        raise TargetError(f"--target {text!r}: {version_text!r} is not a version") from None
    if version.release > NEWEST_KNOWN[framework].release:
        raise TargetError(
            f"--target {text!r}: the newest {DISPLAY[framework]} release grpo-lint knows is "
            f"{NEWEST_KNOWN[framework]}; upgrade grpo-lint, or target {framework}=={NEWEST_KNOWN[framework]}"
        )
    if version < FIRST_GRPO[framework]:
        if framework in ("trl", "swift"):
            raise TargetError(f"--target {text!r}: {DISPLAY[framework]} has no GRPO before {FIRST_GRPO[framework]}")
        raise TargetError(
            f"--target {text!r}: grpo-lint knows the arguments of {DISPLAY[framework]} from {FIRST_GRPO[framework]} on"
        )
    return Target(framework, version, "--target")


@cache
def installed_version(framework: str) -> Version | None:
    """The version installed in this environment, read from metadata (the package is never imported).

    The `NAME-VERSION.dist-info` folders on sys.path are scanned first: that finds what importlib.metadata
    would, in the same order, without importing it (15 ms of start-up, most of a pre-commit run). Legacy
    `.egg-info` installs and zipped path entries fall back to importlib.metadata itself.
    """
    wanted = DISTRIBUTIONS[framework].replace("-", "_").lower()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except NotADirectoryError:
            return _metadata_version(framework)
        except OSError:
            continue
        for name in names:
            stem, dot, suffix = name.rpartition(".")
            if suffix not in ("dist-info", "egg-info") or not dot:
                continue
            dist, _, version = stem.partition("-")
            if dist.replace("-", "_").replace(".", "_").lower() != wanted:
                continue
            if suffix == "egg-info" or not version:
                return _metadata_version(framework)
            try:
                return Version(version)
            except (InvalidVersion, ValueError):  # ValueError: a number past int()'s digit limit
                return None
    return None


def _metadata_version(framework: str) -> Version | None:
    from importlib import metadata

    try:
        return Version(metadata.version(DISTRIBUTIONS[framework]))
    except (metadata.PackageNotFoundError, InvalidVersion):
        return None


def resolve_target(
    framework: str,
    explicit: Mapping[str, Target],
    file_version: str | None = None,
    repository: Repository | None = None,
) -> Target:
    """Which version to lint for, first found wins: --target (or the settings file), the version the
    file itself records (an ms-swift args.json), a copy of the framework inside the repository, the
    installed package, the repository's pin, the newest known release. Versions between releases
    are linted as the release below them."""
    if framework in explicit:
        return explicit[framework]
    if file_version:
        try:
            version = Version(file_version)
        except (InvalidVersion, ValueError):  # ValueError: a number past int()'s digit limit
            version = None
        if version is not None and version >= FIRST_GRPO[framework]:
            return _known(framework, version, "recorded in the file")
    fork = repository.fork(framework) if repository is not None else None
    if fork is not None:
        where = f"the copy of {DISPLAY[framework]} in {fork.package}/"
        if fork.version is not None:
            return _known(framework, fork.version, where)._replace(fork=fork)  # its version, mapped to a release
        why = f"{where} states no version"
        return Target(framework, NEWEST_KNOWN[framework], f"{where}, version unknown", fork, uncertain=why)
    version = installed_version(framework)
    if version is not None and version >= FIRST_GRPO[framework]:
        return _known(framework, version, "installed")
    pin = repository.pin(framework) if repository is not None else None
    if pin is not None and pin.version is None:
        # A git commit: its release cannot be told offline. The checks run against the newest known
        # release, and what depends on the release is not an error (see UNCERTAIN_SEVERITY).
        where = f"{pin.provenance}, release unknown; linted as the newest known"
        why = f"{pin.provenance} names no release grpo-lint can tell"
        return Target(framework, NEWEST_KNOWN[framework], where, uncertain=why)
    if pin is not None and pin.version is not None and pin.version >= FIRST_GRPO[framework]:
        return _known(framework, pin.version, pin.provenance)
    return Target(framework, NEWEST_KNOWN[framework], "newest known")


class Repository(Protocol):
    """What target resolution needs from the workspace (see grpo_lint.workspace)."""

    def fork(self, framework: str) -> Fork | None: ...

    def pin(self, framework: str) -> Pin | None: ...


def _known(framework: str, version: Version, source: str) -> Target:
    """A target at a release grpo-lint knows; other versions map to the release below them. A version
    older than every known release is linted as the oldest, which is not the release it runs."""
    release = release_below(framework, version)
    if release > version:
        return Target(
            framework,
            release,
            f"{source}: {version}, older than any release grpo-lint knows; linted as {release}",
            uncertain=f"{source} is {DISPLAY[framework]} {version}, older than any release grpo-lint knows ({release})",
        )
    if release != version:
        source = f"{source}: {version}, linted as the release below it"
    return Target(framework, release, source)


def releases(framework: str) -> tuple[Version, ...]:
    """The framework's releases on PyPI, oldest first."""
    return _releases()[framework]


@cache
def _releases() -> dict[str, tuple[Version, ...]]:
    from grpo_lint.data import load

    raw = load("releases")
    return {name: tuple(Version(v) for v in raw[name]) for name in DISTRIBUTIONS}


def release_below(framework: str, version: Version) -> Version:
    """`version` itself when it is a release; else the newest release before it (the oldest if none)."""
    known = releases(framework)
    if version in known:
        return version
    below = [v for v in known if v <= version]
    return max(below) if below else known[0]


def in_range(version: Version, since: str | None = None, until: str | None = None) -> bool:
    """since <= version < until, with either bound optional."""
    if since is not None and version < _v(since):
        return False
    return not (until is not None and version >= _v(until))


@cache
def _v(text: str) -> Version:
    return Version(text)
