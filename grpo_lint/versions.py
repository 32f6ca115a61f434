"""Target framework versions: parse `--target`, read the installed version, fall back to the newest known."""

from __future__ import annotations

import os
import sys
from collections.abc import Container, Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from packaging.version import InvalidVersion, Version

from grpo_lint.records import Record
from grpo_lint.release_range import parsed_version

if TYPE_CHECKING:
    from typing import Any as Pin  # grpo_lint.workspace.pins.Pin (not imported: pins reads versions)

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
_VERSION_TEXT: dict[int, tuple[Version, str]] = {}


class Fork(Record):
    """A framework package the repository ships itself (a vendored or forked copy)."""

    framework: str
    package: str  # its folder, relative to the repository root: "verl", "third_party/verl"
    version: Version | None  # what its version file says; None when it has none
    schemas: Mapping[str, Mapping[str, Any]]  # its keys with their defaults, by flavour (verl: fsdp/megatron)
    mapped: bool  # False: grpo-lint cannot read its schema, so its keys are not checked
    # verl: the config keys its trainer repeats each prompt by (`actor_rollout_ref.rollout.n` upstream;
    # `rollout.n_agent` or `agent_grpo.n` in some forks): what the groups are made of. () when not read.
    group_keys: tuple[str, ...] = ()
    # The folder holds the package's files but not its `__init__.py`: imported under the framework's name, an installed
    # package of that name comes first, so the files overlay a copy the repository does not ship.
    overlay: bool = False
    # Rules whose verdict the copy's own code shows, whatever its release (premises.decide lets them speak where the
    # release is not known; workspace.forks reads the code):
    # - GRPO111: its FSDP workers floor-divide the global `actor.ppo_micro_batch_size` by the GPU count and its actor
    #   then takes `ppo_mini_batch_size % ppo_micro_batch_size` unguarded (the verl 0.1 code TinyZero ships): a micro
    #   batch below the GPU count becomes 0 there, a ZeroDivisionError at the first update;
    # - GRPO015: its trainer builds a critic for the gae estimator only;
    # - GRPO016: its trainer applies the KL penalty in the reward under a condition it shows (`kl_gate`);
    # - GRPO412: its actor subtracts the KL loss (`reversed_kl`).
    shows: frozenset[str] = frozenset()
    # verl: what its trainer applies the KL penalty in the reward (which alone reads `algorithm.kl_ctrl`) under:
    # grpo_lint.workspace.forks.KL_IN_REWARD, KL_WITHOUT_LOSS or KL_ALWAYS; "" when not read.
    kl_gate: str = ""
    # verl: where its actor subtracts the KL loss from the policy loss (`verl/workers/actor/dp_actor.py:267`), the sign
    # verl #179 fixed; "" when it adds it (GRPO412).
    reversed_kl: str = ""

    def keys(self) -> frozenset[str]:
        return frozenset(key for schema in self.schemas.values() for key in schema)


class TargetError(ValueError):
    """A --target value that cannot be used."""


class Target(Record):
    framework: str
    version: Version
    source: str  # where the version came from: "--target", "installed", "setup.py: trl==0.18.0", ...
    fork: Fork | None = None  # a copy of the framework inside the repository, linted against its own schema
    trl: Version | None = None  # ms-swift: the TRL version installed under it, where known and where it matters
    # Why `version` is only assumed (nothing states the release, a range, a pre-release, a git commit) or
    # not known at all (a copy older than any known release, or without a version); "" when it is shown.
    uncertain: str = ""
    unknown: bool = False  # no known release stands for it: release-dependent rules do not report
    note: str = ""  # which statement was used when several disagree, or the installed release differs
    allows: tuple[Version, ...] = ()  # an assumed release: the releases it stands for, oldest first
    admits: tuple[Version, ...] = ()  # an assumed release: every release its statement allows, keys aside
    # Installed from another owner's git repository (a fork of unknown content): it may add keys, flags and
    # choices, so no upstream release decides what it accepts.
    foreign: bool = False
    stated: str = ""  # an assumed release: the repository's statement it was assumed within ("" = none)
    git: bool = False  # that statement installs a git checkout (a branch, a commit): code that may lie between releases
    # TRL pinned to a release before 0.14.0, the first with GRPO: `from trl import GRPOTrainer` fails under it.
    before_grpo: bool = False

    def __str__(self) -> str:
        # Every message names the release, and packaging builds a version's text anew each time: kept per object
        # (not per value: 1.0 and 1.0.0 are equal versions written differently).
        version = self.version
        kept = _VERSION_TEXT.get(id(version))
        if kept is None or kept[0] is not version:
            if len(_VERSION_TEXT) > 4096:  # (a long-lived editor server makes new ones)
                _VERSION_TEXT.clear()
            kept = _VERSION_TEXT[id(version)] = (version, str(version))
        return f"{DISPLAY[self.framework]} {kept[1]}"

    @property
    def basis(self) -> str:
        """ "shown" (the repository or the user names the release), "assumed" or "unknown"."""
        return "unknown" if self.unknown else ("assumed" if self.uncertain else "shown")

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
    path: str = "",
    keys: Iterable[str] = (),
    called: bool = False,
) -> Target:
    """Which release to lint for, and whether the repository shows it or grpo-lint assumes it.

    First found wins: --target (or the settings file); the version the file itself records (an ms-swift
    args.json); a copy of the framework inside the repository; what the repository states for the file's
    folder (a pin, a lock, an install line: see grpo_lint.workspace.pins); the release installed beside
    grpo-lint. A statement that allows several releases (a range, a pre-release, a git commit, a bare
    `trl`) or no statement at all leaves the release assumed: grpo-lint takes the newest release the
    statement allows in which every key the config writes exists (a config that writes
    `max_prompt_length` was not written for a TRL that removed it), and says so. A copy older than any
    known release, or one without a version, runs a release grpo-lint does not know at all."""
    if framework in explicit:
        return explicit[framework]
    if file_version:
        try:
            version = Version(file_version)
        except (InvalidVersion, ValueError):  # ValueError: a number past int()'s digit limit
            version = None
        if version is not None and version >= FIRST_GRPO[framework]:
            return _known(framework, version, "recorded in the file", keys)
    fork = repository.fork(framework, path) if repository is not None else None
    if fork is not None:
        where = f"the copy of {DISPLAY[framework]} in {fork.package}/"
        if fork.overlay and not fork.mapped:
            where = f"the copy of {DISPLAY[framework]} that {fork.package}/ overlays"
            why = f"{where} is not in the repository (GRPO011)"
            return Target(framework, NEWEST_KNOWN[framework], where, fork, uncertain=why, unknown=True)
        if not fork.mapped:
            why = f"{where} has a configuration schema grpo-lint cannot read (GRPO011)"
            version = fork.version or NEWEST_KNOWN[framework]
            return Target(framework, release_below(framework, version), where, fork, uncertain=why, unknown=True)
        if fork.version is None:
            why = f"{where} states no version"
            return Target(
                framework, NEWEST_KNOWN[framework], f"{where}, version unknown", fork, uncertain=why, unknown=True
            )
        return _known(framework, fork.version, where, keys)._replace(fork=fork)
    pin, note = repository.statement(framework, path) if repository is not None else (None, "")
    installed = installed_version(framework)
    own: Container[str] = frozenset() if called else _OwnKeys(repository, framework)
    if pin is not None:
        if pin.fork:
            why = f"{pin.provenance} has keys and checks of its own, and its files are not in the checkout"
            return Target(
                framework, NEWEST_KNOWN[framework], pin.provenance, uncertain=why, unknown=True, note=note, foreign=True
            )
        if pin.commit:
            why = f"{pin.provenance} names no release grpo-lint can tell"
            target = _assumed(framework, releases(framework), keys, pin.provenance, why, own)
            # one release, not known: no statement of every release
            return target._replace(note=note, stated="", git=True)
        if pin.version is not None and pin.version < FIRST_GRPO[framework] and pin.exact:
            # (`verl==0.3.0.post1` in a Modal image: a release before any grpo-lint knows, so no release's facts)
            first = FIRST_GRPO[framework]
            why = f"{pin.provenance} is older than any {DISPLAY[framework]} release grpo-lint knows ({first})"
            before = framework == "trl"  # (TRL's 0.14.0 is its first release with GRPO at all)
            return Target(framework, first, pin.provenance, uncertain=why, unknown=True, note=note, before_grpo=before)
        if pin.version is not None and pin.version >= FIRST_GRPO[framework]:
            target = _known(framework, pin.version, pin.provenance, keys, pin.allows, pin.exact, own)._replace(
                git=pin.git
            )
            if installed is not None and installed != pin.version and target.basis == "shown":
                extra = f"the installed {DISPLAY[framework]} {installed} differs; the repository's statement is used"
                note = f"{note}; {extra}" if note else extra
            return target._replace(note=note)
    if installed is not None and installed >= FIRST_GRPO[framework]:
        return _known(framework, installed, "installed", keys)._replace(note=note)
    why = note or f"nothing in the repository states which {DISPLAY[framework]} release it runs"
    return _assumed(framework, releases(framework), keys, "", why, own)


class _OwnKeys:
    """The keys the repository's own argument classes define, read only when an assumption needs them
    (reading them parses the repository's Python files)."""

    def __init__(self, repository: Repository | None, framework: str) -> None:
        self.repository, self.framework = repository, framework

    def __contains__(self, key: object) -> bool:
        if self.repository is None:
            return False
        return key in self.repository.known_keys(self.framework)


def _assumed(
    framework: str, allowed: tuple[Version, ...], keys: Iterable[str], stated: str, why: str, own: Container[str]
) -> Target:
    """The newest of the `allowed` releases that best fit the keys of the config (every one exists, when
    a release has them all), as an assumption that names why. Keys the repository's own argument classes
    define (`own`) say nothing of the framework's release."""
    fit = fitting(framework, allowed, [k for k in keys if k.lstrip("-").replace("-", "_") not in own])
    window = fit or allowed or releases(framework)
    version = window[-1]
    shown = f"{stated}: " if stated else ""
    if fit and len(fit) < len(allowed):
        source = f"{shown}assumed {version}, the newest release that fits the keys this config writes"
    else:
        source = f"{shown}assumed {version}, the newest {'allowed' if stated else 'known'}"
    first = FIRST_GRPO[framework]
    allows = tuple(v for v in window if v >= first)
    admits = tuple(v for v in allowed if v >= first)
    return Target(framework, version, source, uncertain=why, allows=allows, admits=admits, stated=stated)


def fitting(framework: str, allowed: tuple[Version, ...], keys: Iterable[str]) -> tuple[Version, ...]:
    """The `allowed` releases that best fit the keys a config writes: those in which the fewest of the keys
    that some release lacks are missing (all of them exist, usually), oldest first."""
    table = _table(framework)
    if table is None or not allowed:
        return allowed
    bounds = []
    for key in keys:
        spec = table.get(key.lstrip("-").replace("-", "_") if framework != "verl" else key.lstrip("+~"))
        if spec is not None and (spec.since is not None or spec.removed is not None):
            bounds.append(
                (
                    parsed_version(spec.since) if spec.since else None,
                    parsed_version(spec.removed) if spec.removed else None,
                )
            )
    if not bounds:
        return allowed
    misfits = [
        sum(1 for since, until in bounds if (since is not None and v < since) or (until is not None and v >= until))
        for v in allowed
    ]
    best = min(misfits)
    return tuple(v for v, misfit in zip(allowed, misfits, strict=True) if misfit == best)


def _table(framework: str) -> Any:
    if framework == "trl":
        from grpo_lint.frameworks.trl.fields import trl_table

        return trl_table()
    if framework == "swift":
        from grpo_lint.frameworks.swift.fields import swift_table

        return swift_table()
    if framework == "openrlhf":
        from grpo_lint.frameworks.openrlhf.fields import openrlhf_table

        return openrlhf_table()
    from grpo_lint.frameworks.verl.fields import verl_table

    return verl_table("fsdp")


class Repository(Protocol):
    """What target resolution needs from the workspace (see grpo_lint.workspace)."""

    def fork(self, framework: str, path: str = "") -> Fork | None: ...

    def statement(self, framework: str, path: str = "") -> tuple[Pin | None, str]: ...

    def known_keys(self, framework: str) -> frozenset[str]: ...


def _known(
    framework: str,
    version: Version,
    source: str,
    keys: Iterable[str] = (),
    allows: tuple[Version, ...] = (),
    exact: bool = True,
    own: Container[str] = frozenset(),
) -> Target:
    """A target at a stated version. A release grpo-lint knows is shown; a version between releases (a
    pre-release of R: the release below it or R) and a range are assumptions within what they allow; a
    version older than every known release is one grpo-lint does not know."""
    known = releases(framework)
    allows = allows or around(framework, version)
    if version < known[0] and (exact or not allows):
        release = known[0]
        why = f"{source} is {DISPLAY[framework]} {version}, older than any release grpo-lint knows ({release})"
        return Target(
            framework,
            release,
            f"{source}: {version}, older than any release grpo-lint knows; its own checks are not modelled",
            uncertain=why,
            unknown=True,
        )
    if exact and version in known:
        return Target(framework, version, source)
    if exact:
        why = f"{source} is {version}, which lies between releases"
        return _assumed(framework, allows, keys, source, why, own)
    why = f"{source} allows several releases"
    return _assumed(framework, allows, keys, source, why, own)


def around(framework: str, version: Version) -> tuple[Version, ...]:
    """The known releases a version may stand for: itself when it is one; for a pre-release or dev
    version of R, the release below it and R (its features are on their way to R); for any other
    version between releases, the release below it."""
    known = releases(framework)
    if version in known:
        return (version,)
    below = release_below(framework, version)
    if version.is_prerelease or version.is_devrelease:
        final = Version(version.base_version)
        if final in known and final != below:
            return (below, final) if below < final else (final,)
    return (below,)


def releases(framework: str) -> tuple[Version, ...]:
    """The framework's releases on PyPI, oldest first."""
    return _releases()[framework]


class Minimums:
    """The minimum version of another package each release of a framework declares (as data)."""

    def __init__(self, rows: list[tuple[Version, Version]]) -> None:
        self.rows = rows
        self.values = frozenset(minimum for _, minimum in rows)

    def __call__(self, release: Version) -> Version:
        found = Version("0")
        for first, minimum in self.rows:
            if release >= first:
                found = minimum
        return found


@cache
def requires(framework: str, package: str) -> Minimums:
    """What each release of `framework` requires of `package` (its declared lower bound)."""
    from grpo_lint.data import load

    rows = load("releases").get("requires", {}).get(framework, {}).get(package, [])
    return Minimums([(Version(first), Version(minimum)) for first, minimum in rows])


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
