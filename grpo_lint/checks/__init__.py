"""The rules: small functions of a RunPlan, registered with a code, a name and a default severity."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from grpo_lint.diagnostics import Diagnostic, Fix, Severity, Span
from grpo_lint.options import Options
from grpo_lint.plan import RunPlan, Setting
from grpo_lint.records import Record
from grpo_lint.sources.document import Entry

Check = Callable[[RunPlan, Options], Iterable[Diagnostic]]


class Rule(Record):
    code: str
    name: str
    severity: Severity
    summary: str
    check: Check | None  # None for GRPO001, which the reader raises


REGISTRY: dict[str, Rule] = {}


def rule(code: str, name: str, severity: Severity, summary: str) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        REGISTRY[code] = Rule(code, name, severity, summary, check)
        return check

    return register


def register_engine_rules() -> None:
    """Rules the reader and the engine raise themselves, not a check of the plan."""
    REGISTRY["GRPO000"] = Rule(
        "GRPO000",
        "internal-error",
        Severity.ERROR,
        "grpo-lint itself failed on this file (a bug to report); the other files are still linted.",
        None,
    )
    REGISTRY["GRPO001"] = Rule(
        "GRPO001",
        "unreadable-config",
        Severity.ERROR,
        "The file cannot be read as a config: syntax error, not a mapping, binary or unreadable.",
        None,
    )
    REGISTRY["GRPO008"] = Rule(
        "GRPO008",
        "unused-suppression",
        Severity.WARNING,
        "An inline `# grpo-lint: ignore[...]` that suppresses nothing, or names no or an unknown code.",
        None,
    )
    REGISTRY["GRPO011"] = Rule(
        "GRPO011",
        "unmapped-framework-copy",
        Severity.INFO,
        "The repository ships a copy of a framework whose configuration schema grpo-lint cannot read.",
        None,
    )


# Where a rule reports with another severity than its default, and when: shown by --list-rules and
# the rule pages. tests/test_rule_pages.py checks that every rule reporting another severity is here.
SEVERITY_VARIES = {
    "GRPO001": (
        "warning for a file an accelerate config names that the repository does not hold, and for a `--config` a "
        "script's own parser takes"
    ),
    "GRPO002": "warning where the key is ignored or a script may define it; info for keys a verl config adds",
    "GRPO004": "warning for a key the release accepts but no longer uses",
    "GRPO006": "warning for a value that runs but not as meant, and for TRL's vllm_mode without vLLM",
    "GRPO101": "warning where the framework accepts a group of one and trains on zero advantages",
    "GRPO102": "warning under Unsloth, which replaces the batch instead of stopping; and in ms-swift 3.5.0-3.5.1 "
    "unless the TRL under it is known to check (0.18+)",
    "GRPO103": "warning in ms-swift 3.5.0-3.5.1 unless the TRL under it is known to check (0.18+)",
    "GRPO105": "warning in TRL 0.18, which accepts it through a bug",
    "GRPO106": "warning when no process count up to 64 makes the config valid",
    "GRPO107": "warning before TRL 1.9 and where the framework does not reject it",
    "GRPO109": "warning for a ragged last mini batch, or with use_dynamic_bsz (verl does not check)",
    "GRPO110": "warning where Megatron or verl floor-divides the mini batch instead of stopping",
    "GRPO113": "warning for a generate batch that has no effect in the target version",
    "GRPO201": "warning for a verl or OpenRLHF estimator that does not compare a prompt's samples (gae, "
    "reinforce), except verl's temperature 0, which its trainer divides by",
    "GRPO202": "warning for a verl or OpenRLHF estimator that does not compare a prompt's samples (gae, reinforce)",
    "GRPO203": "error only with colocated vLLM (one engine for all requests); warning in server mode and in code",
    "GRPO401": "warning where the framework silently switches mode instead of stopping",
    "GRPO404": "warning where the framework accepts it (TRL before 0.28) and the setting does nothing",
    "GRPO405": "warning for an upper bound below the lower one, which the framework accepts",
    "GRPO505": "warning when the Ray cluster a script starts is too small, since other machines may join",
}


def file_start(plan: RunPlan) -> Span:
    """Where a verdict about a setting nobody wrote points: the launch's command, else the file's first line."""
    start = plan.document.start
    return start if start is not None else Span.point(1, 1)


def report(
    plan: RunPlan,
    code: str,
    message: str,
    at: Setting | Entry | Span | None = None,
    fix: str | None = None,
    severity: Severity | None = None,
    key: str | None = None,
    fixes: tuple[Fix, ...] = (),
) -> Diagnostic:
    span: Span | None
    if isinstance(at, Setting):
        span, key = at.span, key or at.key
    elif isinstance(at, Entry):
        span, key = at.key_span, key or at.key
    else:
        span = at
    severity = severity if severity is not None else REGISTRY[code].severity
    return Diagnostic(code, severity, message, plan.path, span, key, fix, fixes, (), None)  # (every field, in order)


def all_rules() -> dict[str, Rule]:
    """Import every rule module once, so that the registry is complete."""
    if "GRPO000" not in REGISTRY:  # registered last, below: every module is in
        from grpo_lint.checks import (  # noqa: F401
            code,
            config_keys,
            consistency,
            groups,
            known_bugs,
            launch,
            openrlhf_batches,
            sampling,
            verl_batches,
        )

        register_engine_rules()
    return dict(sorted(REGISTRY.items()))


# The rule modules a plan of each framework needs: the batch rules of verl and OpenRLHF judge only their
# own framework's plans (each starts from `plan.native`), and code.py (GRPO3xx) and launch.py (GRPO5xx)
# are reported by the Python and script readers, never from a plan. Importing only these keeps a TRL
# lint's start from loading the others.
_PLAN_MODULES = ("config_keys", "consistency", "groups", "known_bugs", "sampling")
_FRAMEWORK_MODULES = {"verl": "verl_batches", "openrlhf": "openrlhf_batches"}


def run_all(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    import importlib

    for name in (*_PLAN_MODULES, _FRAMEWORK_MODULES.get(plan.framework or "", "")):
        if name:
            importlib.import_module(f"grpo_lint.checks.{name}")
    for _, registered in sorted(REGISTRY.items()):
        if registered.check is not None:
            yield from registered.check(plan, options)
