"""Target framework versions: parse `--target`, read the installed version, fall back to the newest known."""

from __future__ import annotations

import os
import sys
from functools import cache
from typing import NamedTuple

from packaging.version import InvalidVersion, Version

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


class TargetError(ValueError):
    """A --target value that cannot be used."""


class Target(NamedTuple):
    framework: str
    version: Version
    source: str  # "--target", "installed", "args.json", "newest known"

    def __str__(self) -> str:
        return f"{DISPLAY[self.framework]} {self.version}"

    @property
    def framework_name(self) -> str:
        return DISPLAY[self.framework]


def parse_target(text: str) -> Target:
    """Parse `trl==0.19.1` / `swift==3.5.0` (also `ms-swift==...`) / `verl==0.7.0` / `openrlhf==0.10.1`."""
    name, sep, version_text = text.partition("==")
    framework = ALIASES.get(name.strip().lower())
    if not sep or framework is None:
        raise TargetError(
            f"--target {text!r}: expected FRAMEWORK==VERSION with FRAMEWORK one of trl, swift, verl, "
            "openrlhf (e.g. --target trl==0.19.1)"
        )
    try:
        version = Version(version_text.strip())
    except InvalidVersion:
        raise TargetError(f"--target {text!r}: {version_text!r} is not a version") from None
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
            except InvalidVersion:
                return None
    return None


def _metadata_version(framework: str) -> Version | None:
    from importlib import metadata

    try:
        return Version(metadata.version(DISTRIBUTIONS[framework]))
    except (metadata.PackageNotFoundError, InvalidVersion):
        return None


def resolve_target(framework: str, explicit: dict[str, Target], file_version: str | None = None) -> Target:
    """--target beats the version a file records (args.json) beats the installed one beats the newest."""
    if framework in explicit:
        return explicit[framework]
    if file_version:
        try:
            version = Version(file_version)
        except InvalidVersion:
            version = None
        if version is not None and version >= FIRST_GRPO[framework]:
            return Target(framework, version, "recorded in the file")
    version = installed_version(framework)
    if version is not None and version >= FIRST_GRPO[framework]:
        return Target(framework, version, "installed")
    return Target(framework, NEWEST_KNOWN[framework], "newest known")


def in_range(version: Version, since: str | None = None, until: str | None = None) -> bool:
    """since <= version < until, with either bound optional."""
    if since is not None and version < _v(since):
        return False
    return not (until is not None and version >= _v(until))


@cache
def _v(text: str) -> Version:
    return Version(text)
