"""GRPO201-GRPO205: silent sameness. Members of a group must be sampled differently."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from packaging.version import Version

from grpo_lint.checks import report, rule
from grpo_lint.checks.messages import assignment, fw, name_of, shown
from grpo_lint.diagnostics import Diagnostic, Severity, Span
from grpo_lint.options import Options
from grpo_lint.plan import RunPlan

_SAMENESS = (
    "every completion in a group is the same, rewards within the group are equal, every "
    "advantage is 0 and loss and KL sit at 0 without an error"
)


def _sampling_values(plan: RunPlan, name: str) -> Iterator[tuple[Any, str, Span | None]]:
    """The top-level value and any generation_kwargs override, with key label and position."""
    setting = plan.get(name)
    entry = plan.entry(setting.key) if setting.key else None
    if setting.value is not None:
        yield (entry.value if entry else setting.value), setting.label(name), setting.span
    kwargs = plan.entry("generation_kwargs")
    if kwargs is not None and isinstance(kwargs.value, dict) and name in kwargs.value:
        child = kwargs.children.get(name)
        yield (
            kwargs.value[name],
            f"generation_kwargs.{name}",
            child.key_span if child else kwargs.key_span,
        )


def _not_relative(plan: RunPlan) -> str | None:
    """The estimator, as the message names it, of a verl or OpenRLHF run whose advantages do not compare
    the samples of a prompt (verl's gae or reinforce_plus_plus, OpenRLHF's gae or reinforce): identical
    samples then explore nothing, but the advantages are not 0 and training goes on. None for a
    group-relative run (every TRL and ms-swift GRPO run)."""
    run = plan.native
    if plan.framework == "verl" and run is not None and not run.group_estimator:
        setting = plan.get("algorithm.adv_estimator")
        return f"{setting.label('algorithm.adv_estimator')} {setting.value}"
    if plan.framework == "openrlhf" and run is not None:
        from grpo_lint.frameworks.openrlhf.frontend import RELATIVE_ESTIMATORS

        if run.estimator not in RELATIVE_ESTIMATORS:
            setting = plan.get("estimator")
            return f"{setting.label('advantage_estimator')} {run.estimator}"
    return None


def _sameness(plan: RunPlan) -> tuple[str, Severity | None]:
    """What greedy sampling does to this run, and the severity when it is not the rule's default."""
    estimator = _not_relative(plan)
    if estimator is None:
        return _SAMENESS, None
    return (
        f"every sample of a prompt is the same and the rollouts explore nothing ({estimator} does not compare "
        "a prompt's samples, so the run still trains, but only on greedy completions)",
        Severity.WARNING,
    )


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return None


@rule(
    "GRPO201",
    "greedy-temperature",
    Severity.ERROR,
    "temperature <= 0: greedy decoding, identical groups.",
)
def greedy_temperature(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    for value, label, span in _sampling_values(plan, "temperature"):
        number = _number(value)
        if number is None or number > 0:
            continue
        sameness, severity = _sameness(plan)
        message = f"{label} {shown(value)} makes sampling greedy: {sameness}."
        if plan.framework == "trl" and plan.target.version >= Version("1.15.0") and number == 0:
            message += f" {fw(plan)} also divides the logits by it (ZeroDivisionError at the first step)."
        elif number == 0 and severity is None:
            message += " The trainer also divides the logits by it (inf/NaN log-probabilities)."
        elif number == 0 and plan.framework == "verl":
            message = (
                f"{label} {shown(value)} makes sampling greedy, and the trainer divides the logits by it "
                "(inf/NaN log-probabilities)."
            )
            severity = None
        default = plan.specs["temperature"].default_at(plan.target.version)
        yield report(
            plan,
            "GRPO201",
            message,
            span,
            fix=f"{assignment(plan, label, default)} (the default)",
            key=label,
            severity=severity,
        )


@rule(
    "GRPO202",
    "collapsed-sampling",
    Severity.ERROR,
    "Sampling collapsed to one token: top_k 1, top_p 0, do_sample false.",
)
def collapsed_sampling(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    checks = (
        (
            "top_k",
            lambda x: x == 1,
            "keeps only the most likely token",
            "0 (off)" if plan.framework == "trl" else "-1 (off)",
        ),
        ("top_p", lambda x: x == 0, "keeps only the most likely token", "1.0 (off)"),
        (
            "min_p",
            lambda x: x >= 1,
            "drops every token less likely than the most likely one",
            "0.0 (off)",
        ),
    )
    sameness, severity = _sameness(plan)
    for name, collapsed, what, off in checks:
        for value, label, span in _sampling_values(plan, name):
            number = _number(value)
            if number is not None and collapsed(number):
                yield report(
                    plan,
                    "GRPO202",
                    f"{label} {shown(value)} {what}: sampling is greedy, so {sameness}.",
                    span,
                    fix=assignment(plan, label, off),
                    key=label,
                    severity=severity,
                )
    for value, label, span in _sampling_values(plan, "do_sample"):
        if value is False or str(value).lower() == "false":
            yield report(
                plan,
                "GRPO202",
                f"{label} false turns sampling off (greedy decoding), so {sameness}.",
                span,
                fix=f"delete `{label}`",
                key=label,
                severity=severity,
            )


@rule("GRPO203", "fixed-sampling-seed", Severity.ERROR, "A fixed per-request sampling seed.")
def fixed_sampling_seed(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    kwargs = plan.entry("generation_kwargs")
    if kwargs is None or not isinstance(kwargs.value, dict) or "seed" not in kwargs.value:
        return
    child = kwargs.children.get("seed")
    colocate = bool(plan.value("use_vllm")) and plan.value("vllm_mode") == "colocate"
    if colocate:
        message = (
            f"generation_kwargs.seed {shown(kwargs.value['seed'])} gives every request the same seed. "
            "Colocated vLLM generates each copy of a prompt as its own request, so the copies in a "
            f"group sample identically: {_SAMENESS}."
        )
    else:
        message = (
            f"generation_kwargs.seed {shown(kwargs.value['seed'])} fixes the sampling seed of every "
            "request. Copies of a prompt sent as separate requests (colocated vLLM) then sample "
            "identically, and every step replays the same random stream."
        )
    yield report(
        plan,
        "GRPO203",
        message,
        child.key_span if child else kwargs.key_span,
        fix="delete `seed` from generation_kwargs (the trainer seeds each process with seed + rank)",
        severity=None if colocate else Severity.WARNING,
        key="generation_kwargs.seed",
    )


_OVERRIDDEN = (
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "repetition_penalty",
    "max_tokens",
    "max_new_tokens",
    "n",
)


@rule(
    "GRPO204",
    "generation-kwargs-override",
    Severity.WARNING,
    "generation_kwargs overrides a top-level sampling key.",
)
def generation_kwargs_override(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    kwargs = plan.entry("generation_kwargs")
    if kwargs is None or not isinstance(kwargs.value, dict):
        return
    for name in _OVERRIDDEN:
        if name not in kwargs.value or not _overrides(plan, name, kwargs.value[name]):
            continue
        child = kwargs.children.get(name)
        span = child.key_span if child else kwargs.key_span
        if name == "n":
            why = "n decides how many completions a request returns; the trainer already asks for one group"
            fix = "delete `n` from generation_kwargs and set num_generations instead"
        elif name == "temperature":
            why = (
                "TRL samples with it but recomputes training log-probs with the top-level "
                f"`temperature` ({shown(plan.value('temperature'))}), so the importance ratios are off"
            )
            fix = f"move it to the top level: `temperature: {shown(kwargs.value[name])}`"
        elif name in ("max_tokens", "max_new_tokens"):
            why = (
                f"the trainer sizes completion masks with max_completion_length "
                f"({shown(plan.value('max_completion_length'))})"
            )
            fix = "delete it from generation_kwargs and set max_completion_length"
        else:
            why = f"the top-level `{name}` ({shown(plan.value(name))}) is silently ignored for generation"
            fix = f"move it to the top level: `{name}: {shown(kwargs.value[name])}`"
        yield report(
            plan,
            "GRPO204",
            f"generation_kwargs.{name} overrides the top-level setting: {why}.",
            span,
            fix=fix,
            key=f"generation_kwargs.{name}",
        )


def _overrides(plan: RunPlan, name: str, value: object) -> bool:
    """Whether generation_kwargs' `name` differs from what the run sets at the top level: the value TRL computes with
    (temperature, against the log-probs; the completion length, against the masks), or a top-level key the run writes
    itself (the others). The same value, or a key the run leaves unwritten, overrides nothing."""
    if name == "n":
        return True
    if name in ("temperature", "max_tokens", "max_new_tokens"):
        top = plan.value("temperature" if name == "temperature" else "max_completion_length")
        return _number(value) is None or _number(top) is None or _number(value) != _number(top)
    written = plan.entry(name)
    return written is not None and written.value != value


@rule(
    "GRPO205",
    "low-diversity-sampling",
    Severity.WARNING,
    "Sampling so narrow that groups often collapse.",
)
def low_diversity_sampling(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    t = options.thresholds
    limits = (
        ("temperature", lambda x: 0 < x < t.min_temperature, f"below {t.min_temperature:g}"),
        ("top_p", lambda x: 0 < x < t.min_top_p, f"below {t.min_top_p:g}"),
        ("top_k", lambda x: 1 < x < t.min_top_k, f"below {t.min_top_k}"),
    )
    for name, narrow, words in limits:
        for value, label, span in _sampling_values(plan, name):
            number = _number(value)
            if number is None or not narrow(number):
                continue
            yield report(
                plan,
                "GRPO205",
                f"{label} {shown(value)} is {words}: completions of a prompt will often be "
                "identical, and such groups have zero reward spread and give no learning signal "
                "(watch frac_reward_zero_std).",
                span,
                fix=f"raise {name_of(plan, name) if '.' not in label else label} "
                f"(e.g. temperature 0.7-1.0, top_p >= 0.9)",
                key=label,
            )
