"""Premises: what a report takes as given, whether the repository shows it, and what follows from that.

A diagnostic is a conclusion from premises: *this file is read by framework X* through *this parser*,
*at this release*, *with this many processes*. Each premise is **shown** (with the place that shows it:
`requirements.txt:4 trl==0.15.2`, `train.sh:12 accelerate launch --num_processes 7`, `grpo.py:38
TrlParser((ScriptArgs, GRPOConfig))`) or **assumed** (the newest release, a role guessed from the keys),
and a release can be **unknown** altogether (a framework copy older than any release grpo-lint knows).

Rules do not keep lists of exceptions for these cases; `decide` applies one policy to every rule:

- a rule whose verdict depends on the release (every rule outside RELEASE_INDEPENDENT) reports nothing
  against an unknown release, and at most a warning that names the assumption against an assumed one;
- a closed-world key rule (an unknown key, a key removed or not yet added) reports nothing where the set
  of keys the parser accepts is not shown: a repository's own script may define any key.

What is not checked, and why, is kept for `--show` and `--verbose`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from packaging.version import Version

from grpo_lint.diagnostics import Diagnostic, Severity, first_of
from grpo_lint.records import Record
from grpo_lint.setting import Setting

if TYPE_CHECKING:
    from grpo_lint.plan import RunPlan
    from grpo_lint.versions import Target

# Rules whose verdict does not depend on the framework release: a typo of a key no release has, greedy
# or collapsed sampling, a file that cannot be read, a command cut short, an accelerate config that
# contradicts itself, and grpo-lint's own failures.
RELEASE_INDEPENDENT = frozenset(
    {"GRPO000", "GRPO001", "GRPO002", "GRPO201", "GRPO202", "GRPO501", "GRPO506", "GRPO508"}
)
# Rules whose verdict holds in every release of one framework: verl's FSDP workers assert that the rollout's
# parallel size divides the actor-rollout GPUs in every release (fsdp_workers.py `_build_rollout`, 0.2 to 0.9).
RELEASE_INDEPENDENT_IN = frozenset({("GRPO402", "verl")})
# Rules with a warning written for a release not known (a copy older than any known release): what every known
# release does and what an older copy may do instead, both named (GRPO109: a mini batch larger than the step; GRPO016:
# KL controller settings that both 0.2-0.3's and 0.4.0's trainers leave unread).
FOR_ANY_RELEASE = frozenset({"GRPO109", "GRPO016"})
# Rules that judge keys against the key set (and defaults) of the parser that reads the file: an unknown
# key, a key removed or not yet added, a `+key` Hydra append for a key the config has, a mandatory value
# left unset. They need that key set to be shown; a framework copy inside the repository shows its own.
KEY_RULES = frozenset({"GRPO002", "GRPO004", "GRPO009", "GRPO010"})
# A copy of the framework shows more than its keys: its config's defaults give the value types (GRPO003)
# and the group size a run gets when it sets none (GRPO101).
SHOWN_BY_COPY = KEY_RULES | {"GRPO003", "GRPO101"}
# What TRL's GRPOConfig and GRPOTrainer check or do with a config: the batch rules, the vLLM and reward
# settings they read, their known bugs. A trainer of the repository's own reads the config its own way;
# the group size and the sampling settings (GRPO101, GRPO2xx) still mean what they say there.
TRAINER_RULES = frozenset({
    "GRPO102", "GRPO103", "GRPO104", "GRPO105", "GRPO106", "GRPO107", "GRPO114", "GRPO304", "GRPO401",
    "GRPO402", "GRPO403", "GRPO404", "GRPO405", "GRPO406",
})  # fmt: skip
# The batch checks TRL makes in GRPOConfig.__post_init__ from 0.18.0 (in GRPOTrainer.__init__ before): whatever trainer
# a script builds, TRL's GRPOConfig among its classes makes them (reference trl.md 1.2).
CONFIG_CHECKS_SINCE = (frozenset({"GRPO102", "GRPO103", "GRPO104", "GRPO105"}), Version("0.18.0"))
# Known bugs of released versions (grpo_lint.checks.known_bugs): a copy of the framework inside the repository is
# not that release, whatever its version file says (a `3.5.0.dev0` copy predates 3.5.0 and may not have its bug).
KNOWN_BUG_RULES = frozenset({"GRPO114", "GRPO304"})


# Rules whose harm is a lost learning signal (a group of one the framework accepts, groups made identical by
# sampling or seeding): a run that learns nothing (a learning rate of 0, as a GRPOTrainer made to evaluate has)
# loses none. An error where the framework stops the run stays.
NO_SIGNAL_RULES = frozenset({
    "GRPO101", "GRPO201", "GRPO202", "GRPO203", "GRPO204", "GRPO205", "GRPO206", "GRPO207", "GRPO301", "GRPO302",
    "GRPO303", "GRPO304", "GRPO305",
})  # fmt: skip
_LEARNING_RATES = ("learning_rate", "actor_rollout_ref.actor.optim.lr", "actor_learning_rate")


def _learns_nothing(plan: RunPlan) -> str:
    """The learning-rate key the run sets to 0 (it learns nothing), else ""."""
    for key in _LEARNING_RATES:
        entry = plan.document.entries.get(key)
        if entry is not None and type(entry.value) in (int, float) and entry.value == 0:
            return key
    return ""


# A parser premise that is assumed rather than shown starts with this (grpo_lint.lint._assumed_reader).
ASSUMED_READER = "assumed: "


class Premise(Record):
    kind: str  # "release", "parser", "world size", "role"
    basis: str  # "shown", "assumed" or "unknown"
    text: str  # where it is shown, or what is assumed and why

    def __str__(self) -> str:
        return f"{self.kind}: {self.text} ({self.basis})"


def release_premise(target: Target) -> Premise:
    text = f"{target} ({target.source})"
    if target.uncertain:
        text += f"; {target.uncertain}"
    return Premise("release", target.basis, text)


def of_plan(plan: RunPlan) -> tuple[Premise, ...]:
    """The premises of every diagnostic of a run: its release, its parser, its world size."""
    premises = [release_premise(plan.target)]
    parser = plan.document.parser
    if parser is None:
        premises.append(Premise("parser", "unknown", "the program that reads this file is not known"))
    elif parser.startswith(ASSUMED_READER):
        premises.append(Premise("parser", "assumed", parser.removeprefix(ASSUMED_READER)))
    elif parser:
        premises.append(Premise("parser", "shown", parser))
    if plan.document.trainer:
        premises.append(Premise("trainer", "shown", plan.document.trainer))
    composed_from = getattr(plan.document.hydra, "composed_from", "")
    if composed_from:
        premises.append(Premise("config tree", "shown", composed_from))
    world = plan.world_size
    if world.origin == "--world-size":
        premises.append(Premise("world size", "shown", f"{world.value} (--world-size)"))
    elif plan.world_known and world.span is not None:
        premises.append(Premise("world size", "shown", f"{world.value} ({world.origin})"))
    elif not plan.world_known:
        premises.append(Premise("world size", "assumed", "unknown: a multiple of " + str(world.value)))
    return tuple(premises)


def decide(
    diagnostics: list[Diagnostic], plan: RunPlan, oldest: list[Diagnostic] | None = None
) -> tuple[list[Diagnostic], list[str]]:
    """The diagnostics the premises support, each carrying them; and what was not checked, and why.

    `oldest`: the diagnostics of the same run at the oldest release an assumed release stands for. An
    error found there too holds whichever of those releases runs, so it stays an error."""
    target = plan.target
    both = {(d.code, d.key, d.span) for d in oldest or () if d.severity >= Severity.WARNING}
    premises = of_plan(plan)
    kept: list[Diagnostic] = []
    skipped: dict[str, str] = {}
    parser = plan.document.parser
    parser_known = parser is not None
    written = set(plan.document.entries)
    alone = plan.document.format in ("yaml", "json")  # a config file linted on its own, not through a launch
    hydra = plan.document.hydra
    composed = getattr(hydra, "schema", None) is not None  # the entry point's own tree lists its keys
    copy_shows_keys = (target.fork is not None and target.fork.mapped) or composed  # its own config files do
    own_trainer = plan.document.trainer
    # A setting whose value is not known before launch (`ppo_mini_batch_size=$MINI`, a base config not shown, a file
    # whose reader is not shown) has its default in the plan only so that the rules can run: a verdict that names
    # that default is not given.
    blamed = tuple(Setting(None).label(name) for name in plan.document.unknown)
    evaluates = _learns_nothing(plan)
    for diagnostic in diagnostics:
        code = diagnostic.code
        if evaluates and code in NO_SIGNAL_RULES and not (code == "GRPO101" and diagnostic.severity is Severity.ERROR):
            skipped[code] = f"the run learns nothing ({evaluates} 0: it evaluates), so no learning signal is lost"
            continue
        if blamed and any(label in diagnostic.message for label in blamed):
            skipped.setdefault(
                code,
                "the program that reads the file is not shown, so its defaults are not known"
                if not parser_known and alone
                else "a value it needs is not known before launch (its default is never blamed)",
            )
            continue
        if code in KNOWN_BUG_RULES and target.fork is not None:
            skipped[code] = (
                f"the repository runs its own copy of {target.framework_name} in {target.fork.package}/, and whether "
                "the copy has this release's bug is not read from its code"
            )
            continue
        if own_trainer and code in TRAINER_RULES and not _still_checked(code, plan):
            skipped[code] = f"the run is trained by the repository's own {own_trainer}, which reads it its own way"
            continue
        if not parser_known and alone and diagnostic.key not in written and diagnostic.severity > Severity.INFO:
            # a file no launch names, read by a program that is not shown: only what it writes is known
            skipped.setdefault(code, "the program that reads the file is not shown, so its defaults are not known")
            continue
        if code in KEY_RULES:
            if not parser_known:
                skipped[code] = (
                    "the keys the file may hold are not known (the program that reads it is not shown: a "
                    "script of the repository's own may define any key)"
                )
                continue
            elif (parser or "").startswith(ASSUMED_READER) and diagnostic.severity is Severity.ERROR:
                diagnostic = _reader_assumed(diagnostic, parser or "")
            elif target.foreign and not copy_shows_keys:
                skipped[code] = f"the keys are the fork's own ({target.uncertain})"
                continue
            elif code == "GRPO002" or copy_shows_keys or not target.uncertain:
                pass  # a key no release has, or keys shown by the release or the copy itself
            elif target.unknown:
                skipped[code] = f"the keys depend on the release, and {target.uncertain}"
                continue
            elif diagnostic.severity is Severity.ERROR:
                diagnostic = assumed(diagnostic, target, (code, diagnostic.key, diagnostic.span) in both)
            elif oldest is not None and (code, diagnostic.key, diagnostic.span) not in both:
                skipped[code] = _only_at_some(target)
                continue
        elif (code, plan.framework) in RELEASE_INDEPENDENT_IN:
            pass
        elif target.unknown and target.fork is not None and code in target.fork.shows:
            pass  # the copy's own code shows the verdict (workspace.forks: GRPO111's floored micro batch, GRPO015)
        elif (
            code not in RELEASE_INDEPENDENT
            and target.unknown
            and not (copy_shows_keys and code in SHOWN_BY_COPY)
            and not (code in FOR_ANY_RELEASE and diagnostic.severity is Severity.WARNING)
        ):
            skipped[code] = f"the verdict depends on the release, and {target.uncertain}"
            continue
        elif code not in RELEASE_INDEPENDENT and target.uncertain and diagnostic.severity is Severity.ERROR:
            diagnostic = assumed(diagnostic, target, (code, diagnostic.key, diagnostic.span) in both)
        elif (
            code not in RELEASE_INDEPENDENT
            and target.uncertain
            and oldest is not None
            and diagnostic.severity is Severity.WARNING
            and (code, diagnostic.key, diagnostic.span) not in both
        ):
            skipped[code] = _only_at_some(target)
            continue
        kept.append(diagnostic._replace(premises=premises))
    return kept, [f"{code}: not checked: {why}" for code, why in sorted(skipped.items())]


def _only_at_some(target: Target) -> str:
    """Why a release-dependent warning is not given: it holds at the assumed release, not at the oldest."""
    return (
        f"the verdict holds for {target}, which is assumed ({target.uncertain}), but not for "
        f"{target.framework_name} {target.allows[0]}, which fits too"
    )


def assumed(diagnostic: Diagnostic, target: Target, everywhere: bool = False) -> Diagnostic:
    """An error whose verdict depends on a release that is only assumed: a warning that says so; or, when
    the oldest and the newest of the releases it stands for both give it, still an error that says so."""
    if everywhere and len(target.allows) == 1:
        return diagnostic._replace(
            message=diagnostic.message + f" (The release is assumed ({target.uncertain}); {target} is the only "
            f"{target.framework_name} release that fits the keys this config writes.)"
        )
    if everywhere:
        span = f"{target.allows[0]} to {target.allows[-1]}"
        return diagnostic._replace(
            message=diagnostic.message + f" (The release is assumed ({target.uncertain}); this holds for both ends "
            f"of the {target.framework_name} releases that fit this config, {span}.)"
        )
    why = (
        f" (A warning, not an error: {target.uncertain}; this verdict holds for {target}, which is assumed. "
        f"Pin {target.framework_name} in the repository, or lint with --target {target.framework}==X, to judge "
        "it for the release that runs.)"
    )
    return diagnostic._replace(severity=Severity.WARNING, message=diagnostic.message + why)


def _reader_assumed(diagnostic: Diagnostic, parser: str) -> Diagnostic:
    """A key error for a config whose reader is only assumed: a warning that says which."""
    return diagnostic._replace(
        severity=Severity.WARNING,
        message=diagnostic.message + f" (A warning, not an error: no launch names this file; it is assumed that "
        f"{parser.removeprefix(ASSUMED_READER)}.)",
    )


def release_ties(plan: RunPlan) -> list[Diagnostic]:
    """GRPO013: nothing states the release, and a key the config writes exists only up to (or only from) some
    release: the release grpo-lint assumed is chosen by that key, and a fresh install may not be it. Says which
    releases the key works with and the pin that keeps the run as written."""
    from grpo_lint.versions import DISPLAY, DISTRIBUTIONS, releases

    target = plan.target
    if not target.uncertain or target.fork is not None:
        return []  # a copy decides the release
    # `trl` with no release, or a range every release is in: a fresh install is the newest, as with no statement
    statement = target.stated
    if statement and target.admits != releases(target.framework):
        return []  # a statement of the repository that rules releases out (a range, a bound) decides
    if not statement and not target.source.startswith("assumed"):
        return []  # a statement of one release grpo-lint cannot tell (a git commit) decides
    document = plan.document
    hydra = document.hydra
    if document.parser or (hydra is not None and (hydra.entry is not None or hydra.schema is not None)):
        return []  # the repository's own reader (a script's parser, an entry point's tree) decides its keys
    if document.entry and document.entry not in ("trl grpo", "trl.scripts.grpo", "unsloth"):
        return []
    if plan.framework == "verl" and document.format != "hydra":
        return []  # a Hydra YAML read alone: which tree (and so which keys) composes it is not shown
    if not target.allows or not target.admits or target.allows == target.admits:
        return []
    name, package = DISPLAY[target.framework], DISTRIBUTIONS[target.framework]
    newest, oldest = target.admits[-1], target.admits[0]
    until: list[tuple[Version, Any]] = []  # keys that exist only up to a release the newest install is past
    since: list[tuple[Version, Any]] = []  # keys that exist only from a release after the oldest install
    written = {**(plan.document.unknown_entries or {}), **plan.document.entries}  # (a value not known yet: its key)
    for key, entry in written.items():
        spec = plan.specs.get(key)
        if spec is None:
            continue
        if spec.removed is not None and Version(spec.removed) <= newest:
            until.append((Version(spec.removed), entry))
        elif spec.since is not None and Version(spec.since) > oldest:
            since.append((Version(spec.since), entry))
    found: list[Diagnostic] = []
    if until:
        bound = min(version for version, _ in until)
        install = f"a fresh install ({name} {newest}) rejects or ignores"
        found.append(_tie(plan, until, f"up to the release before {bound}", install, f"{package}<{bound}", statement))
    if since:
        bound = max(version for version, _ in since)
        install = f"an install older than {bound} lacks"
        found.append(_tie(plan, since, f"from {bound}", install, f"{package}>={bound}", statement))
    return found


def _tie(
    plan: RunPlan, group: list[tuple[Version, Any]], works: str, install: str, pin: str, statement: str
) -> Diagnostic:
    """One GRPO013 for the keys that tie the run to one side of a release (`works`: which releases have them;
    `statement`: the repository's statement that allows every release, "" when there is none)."""
    from grpo_lint.versions import DISPLAY

    name = DISPLAY[plan.target.framework]
    silent = (
        f"{statement} allows every {name} release"
        if statement
        else f"nothing in the repository states which {name} release it runs"
    )
    entries = sorted((entry for _, entry in group), key=lambda entry: entry.key_span.line)
    many = len(entries) > 1
    keys = first_of([f"`{e.key}`" for e in entries], 3)
    return Diagnostic(
        "GRPO013",
        Severity.INFO,
        f"{keys} {'exist' if many else 'exists'} in {name} only {works}, and {silent}: {install} "
        f"{'them' if many else 'it'}, so the run depends on which release is installed.",
        plan.path,
        entries[0].key_span,
        key=entries[0].key,
        fix=f"pin `{pin}` in the repository's requirements",
    )


def _still_checked(code: str, plan: RunPlan) -> bool:
    """Whether a check of TRL's trainer or config still holds for a run trained by the repository's own trainer: its
    file makes the check word for word (a copy of TRL's trainer), or TRL's GRPOConfig makes it (0.18.0 on)."""
    program = plan.document.program
    if program is None:
        return False
    if code in program.trainer_checks:
        return True
    codes, since = CONFIG_CHECKS_SINCE
    return code in codes and program.trl_config and plan.framework == "trl" and plan.target.version >= since
