"""GRPO002-GRPO007: keys and values the target version does not accept as written."""

from __future__ import annotations

from collections.abc import Iterator

from grpo_lint.checks import report, rule
from grpo_lint.checks.messages import fw, shown
from grpo_lint.diagnostics import Diagnostic, Severity
from grpo_lint.options import Options
from grpo_lint.plan import RunPlan


@rule("GRPO002", "unknown-key", Severity.ERROR, "Unknown key (error when it looks like a typo).")
def unknown_key(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    for finding in plan.key_findings:
        if finding.status != "unknown":
            continue
        key = finding.entry.key
        if finding.suggestion:
            yield report(
                plan,
                "GRPO002",
                f"unknown key `{key}` for {fw(plan)}; did you mean `{finding.suggestion}`? "
                "As written the setting is not applied.",
                finding.entry,
                fix=f"rename `{key}` to `{finding.suggestion}`",
            )
        elif plan.framework == "swift":
            yield report(
                plan,
                "GRPO002",
                f"`{key}` is not an argument of {fw(plan)}: swift stops with "
                f"`ValueError: remaining_argv: ['--{key}', ...]`.",
                finding.entry,
                fix=f"delete `{key}`, or check the argument name in the ms-swift docs",
            )
        else:
            yield report(
                plan,
                "GRPO002",
                f"`{key}` is not an argument of {fw(plan)} (GRPOConfig, TrainingArguments, "
                "ModelConfig or the grpo script). A custom script may define it; `trl grpo` "
                "(TRL >= 0.29) passes unknown keys to `accelerate launch`, which stops.",
                finding.entry,
                fix=f"delete `{key}`, or declare it with `--extra-keys {key}` if your script reads it",
                severity=Severity.WARNING,
            )


@rule("GRPO003", "invalid-value", Severity.ERROR, "Wrong type or value out of range.")
def invalid_value(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    for problem in plan.problems:
        entry = plan.entry(problem.key)
        if entry is None:
            continue
        spec = plan.specs.get(problem.key.replace("-", "_"))
        default = spec.default_at(plan.target.version) if spec else None
        fix = (
            f"`{entry.key}: {shown(default)}` (the default)"
            if default is not None and problem.kind != "swift_null"
            else f"delete `{entry.key}` to keep the default"
            if problem.kind == "swift_null"
            else None
        )
        yield report(
            plan,
            "GRPO003",
            f"`{entry.key}: {shown(entry.value)}` {problem.message}.",
            entry.value_span,
            fix=fix,
            key=entry.key,
        )


@rule("GRPO004", "key-not-in-version", Severity.ERROR, "Key removed, renamed or not yet added.")
def key_not_in_version(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    for finding in plan.key_findings:
        spec, key = finding.spec, finding.entry.key
        if spec is None or finding.status == "unknown":
            continue
        if finding.status == "removed":
            message = f"`{key}` was removed in {plan.target.framework_name} {spec.removed}"
            if spec.replacement:
                fix = f"rename `{key}` to `{spec.replacement}`"
                message += f"; it is now `{spec.replacement}`"
            else:
                fix = f"delete `{key}`" + (f": {spec.note}" if spec.note else "")
            message += f" (target {fw(plan)}). As written the setting is rejected or ignored."
        else:
            message = (
                f"`{key}` does not exist in {fw(plan)}: it was added in "
                f"{plan.target.framework_name} {spec.since}. As written it is rejected or ignored."
            )
            fix = f"upgrade to {plan.target.framework_name} >= {spec.since}, or delete `{key}`"
        yield report(plan, "GRPO004", message, finding.entry, fix=fix)


@rule("GRPO005", "int-for-float", Severity.ERROR, "An integer where generation needs a float.")
def int_for_float(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    # TrlParser keeps YAML values as they are; transformers' sampling processors reject ints.
    if plan.framework != "trl" or plan.value("use_vllm"):
        return
    for key, label in (
        ("temperature", "`temperature` (={v})"),
        ("repetition_penalty", "`penalty`"),
    ):
        entry = plan.entry(key)
        if entry is None or type(entry.value) is not int or entry.value in (1,) or entry.value <= 0:
            continue
        quoted = label.format(v=entry.value)
        yield report(
            plan,
            "GRPO005",
            f"`{key}: {entry.value}` is an integer. TRL passes YAML values on unconverted and "
            f"transformers rejects a non-float at the first generation: {quoted} has to be a "
            "strictly positive float.",
            entry.value_span,
            fix=f"`{key}: {float(entry.value)}`",
            key=key,
        )


_TRUTHY = {"true", "yes", "y", "t", "1", "false", "no", "n", "f", "0"}


@rule("GRPO006", "invalid-choice", Severity.ERROR, "Value not among the target version's choices.")
def invalid_choice(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    version = plan.target.version
    for key, entry in plan.document.entries.items():
        spec = plan.specs.get(key.replace("-", "_"))
        if spec is None or not spec.choices or entry.value is None:
            continue
        choices = spec.choices_at(version)
        if choices is None:
            continue
        values = entry.value if isinstance(entry.value, list) else [entry.value]
        for value in values:
            if _accepted(value, choices):
                continue
            if spec.name == "vllm_mode" and plan.framework == "trl" and not plan.value("use_vllm"):
                severity = Severity.WARNING  # TRL only checks the mode when vLLM is used
            else:
                severity = None
            listed = ", ".join(shown(c) for c in choices)
            message = f"`{key}: {shown(value)}` is not accepted by {fw(plan)}; choose one of {listed}."
            fix = None
            if spec.name == "scale_rewards" and isinstance(value, str) and value.lower() in _TRUTHY:
                message += (
                    " A quoted or command-line 'true'/'false' stays a string and is rejected at "
                    "the first step; a YAML boolean is mapped to 'group'/'none'."
                )
                fix = f"`{key}: {'group' if value.lower() in ('true', 'yes', '1') else 'none'}`"
            yield report(plan, "GRPO006", message, entry.value_span, fix=fix, severity=severity, key=key)


def _accepted(value: object, choices: tuple[object, ...]) -> bool:
    if value in choices and type(value) in {type(c) for c in choices}:
        return True
    if set(choices) <= {True, False} and isinstance(value, str):
        return value.strip().lower() in _TRUTHY  # argparse's string-to-bool conversion
    return False


@rule("GRPO007", "duplicate-key", Severity.WARNING, "A key given twice; only the last one counts.")
def duplicate_key(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    for first, again in plan.document.duplicates:
        yield report(
            plan,
            "GRPO007",
            f"`{again.key}` is set twice (lines {first.key_span.line} and {again.key_span.line}); "
            f"only the last value ({shown(again.value)}) is used.",
            again,
            fix=f"keep one `{again.key}`",
        )
