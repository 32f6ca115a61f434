"""GRPO002-GRPO007: keys and values the target version does not accept as written."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from packaging.version import Version

from grpo_lint.checks import REGISTRY, Rule, report, rule
from grpo_lint.checks.fixes import drop_prefix, rename, set_value
from grpo_lint.checks.messages import assignment, config_of, fw, shown, shown_override
from grpo_lint.diagnostics import Diagnostic, Fix, Severity
from grpo_lint.frameworks.fields import FieldSpec
from grpo_lint.options import Options
from grpo_lint.patterns import lazy
from grpo_lint.plan import KeyFinding, RunPlan
from grpo_lint.premises import ASSUMED_READER
from grpo_lint.sources.document import Entry


@rule("GRPO002", "unknown-key", Severity.ERROR, "Unknown key (error when it looks like a typo).")
def unknown_key(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    for finding in plan.key_findings:
        if finding.status == "ambiguous":
            yield _ambiguous_flag(plan, finding)
        if finding.status == "added":
            yield _verl_added(plan, finding)
        if finding.status == "deferred":
            entry = finding.entry
            yield report(
                plan,
                "GRPO507",
                f"`{entry.key}: {entry.value}` is resolved by {fw(plan)} when it runs (an OmegaConf resolver, or a "
                "reference to one); the checks that need its value stand down.",
                entry.value_span,
                fix="write the number, or reference another key of this config (`${trainer.nnodes}`)",
                severity=Severity.INFO,
                key=entry.key,
            )
        if finding.status != "unknown" or plan.document.record:
            continue
        key = finding.entry.key
        if plan.framework == "verl":
            yield _verl_unknown(plan, finding)
        elif plan.framework == "openrlhf":
            yield _openrlhf_unknown(plan, finding)
        elif finding.suggestion and _dropped_by_script_parser(plan, finding):
            # a script's own TrlParser before 0.19 drops a config key no class has: not used, no error
            found = _trl_unknown(plan, finding)
            yield found._replace(
                fix=f"rename `{key}` to `{_written_key(finding.entry.key, finding.suggestion)}`",
                fixes=_typo_fix(plan, finding),
            )
        elif finding.suggestion:
            yield report(
                plan,
                "GRPO002",
                f"unknown key `{key}` for {fw(plan)}; did you mean `{finding.suggestion}`? "
                "As written the setting is not applied.",
                finding.entry,
                fix=f"rename `{key}` to `{_written_key(finding.entry.key, finding.suggestion)}`",
                fixes=_typo_fix(plan, finding),
            )
        elif plan.framework == "swift":
            yield report(
                plan,
                "GRPO002",
                f"`{key}` is not an argument of {fw(plan)}: swift stops with "
                f"`ValueError: remaining_argv: ['--{key.lstrip('-')}', ...]`.",
                finding.entry,
                fix=f"delete `{key}`, or check the argument name in the ms-swift docs",
            )
        else:
            yield _trl_unknown(plan, finding)


def _dropped_by_script_parser(plan: RunPlan, finding: KeyFinding) -> bool:
    """A config file read by a script's own TrlParser before 0.19, which drops keys no class has."""
    from grpo_lint.frameworks.trl.frontend import SCRIPT_REJECTS
    from grpo_lint.launch.commands import TRL_CLI, TRL_SCRIPT

    parser = plan.document.parser or ""
    from_file = plan.document.format != "cli" or finding.entry.key_span.path is not None
    return (
        plan.framework == "trl"
        and from_file
        and plan.document.entry not in (TRL_CLI, TRL_SCRIPT)
        and "TrlParser" in parser
        and not parser.startswith(ASSUMED_READER)
        and plan.target.version < SCRIPT_REJECTS[0]
    )


def _trl_unknown(plan: RunPlan, finding: KeyFinding) -> Diagnostic:
    """TRL: what becomes of a key no argument class has depends on the program that reads the config
    (TRL 0.14-1.16 sources: trl/scripts/utils.py TrlParser, trl/scripts/grpo.py, trl/cli)."""
    key, entry = finding.entry.key, plan.document.entry
    rejecting, forwarding, name = _trl_release_facts(plan)
    accelerate_keys, cli_forwards, trl_cli, trl_script = _trl_names()
    from_file = plan.document.format != "cli" or finding.entry.key_span.path is not None
    script_rejects = from_file and rejecting
    if plan.document.called:
        return _not_a_grpo_config_field(plan, finding, name)
    what = f"`{key}` is not an argument of {name} (GRPOConfig, TrainingArguments, ModelConfig or the grpo script)"
    if key in accelerate_keys:
        what += f" but of `accelerate launch`, which `trl grpo` passes such keys to only from {cli_forwards}"
    fix = f"delete `{key}`, or declare it with `--extra-keys {key}` if your script reads it"
    if entry in (trl_cli, trl_script) and script_rejects:
        return report(
            plan,
            "GRPO002",
            f"{what}. The grpo script of {name} stops on a config key it does not know: "
            f"\"ValueError: Unknown arguments from config file: ['--{key}', ...]\".",
            finding.entry,
            fix=f"delete `{key}`",
        )
    if entry == trl_cli and from_file and forwarding:
        return report(
            plan,
            "GRPO002",
            f"{what}. `trl grpo` passes the keys it does not know to `accelerate launch`, which stops: "
            f'"error: unrecognized arguments: --{key}".',
            finding.entry,
            fix=f"delete `{key}`",
        )
    if entry in (trl_cli, trl_script):
        how = "`trl grpo`" if entry == trl_cli else "TRL's grpo script"
        return report(
            plan,
            "GRPO002",
            f"{what}. {how} ignores it silently in this version, so the setting has no effect.",
            finding.entry,
            fix=f"delete `{key}`",
            severity=Severity.WARNING,
        )
    parser = plan.document.parser
    if entry not in (trl_cli, trl_script) and parser:
        return _script_parser_unknown(plan, finding, parser, from_file)
    fates = ["A custom script may define it"]
    if script_rejects:
        fates.append(f"TRL's own grpo script stops on it in {plan.target.framework_name} 0.19-0.21")
    if forwarding:
        fates.append("`trl grpo` passes it to `accelerate launch`, which stops")
    return report(
        plan,
        "GRPO002",
        f"{what}. " + "; ".join(fates) + ".",
        finding.entry,
        fix=fix,
        severity=Severity.WARNING,
    )


def _not_a_grpo_config_field(plan: RunPlan, finding: KeyFinding, name: str) -> Diagnostic:
    """A keyword of a `GRPOConfig(...)` call that is no field of GRPOConfig or TrainingArguments: the dataclass's
    `__init__` takes no other keyword, whatever parser the script has (TRL 0.14-1.16)."""
    from grpo_lint.frameworks.trl.fields import trl_table

    key = finding.entry.key
    elsewhere = key in trl_table().specs  # (one of TrlParser's other classes: ModelConfig, the grpo script's)
    where = " (it is an argument of TrlParser's ModelConfig, the grpo script or `trl grpo`, not of the config)"
    hint = f"; did you mean `{finding.suggestion}`?" if finding.suggestion else "."
    if finding.suggestion:
        fix = f"`{finding.suggestion}`"
    elif elsewhere:
        fix = f"delete `{key}` here and give it to what reads it: {_reader_of(key)}"
    else:
        fix = f"delete `{key}`"
    return report(
        plan,
        "GRPO002",
        f"`{key}` is not a field of {name}'s GRPOConfig or TrainingArguments{where if elsewhere else ''}{hint} "
        f'`GRPOConfig(...)` stops at once: "TypeError: GRPOConfig.__init__() got an unexpected keyword argument '
        f"'{key}'\".",
        finding.entry,
        fix=fix,
        fixes=_typo_fix(plan, finding) if finding.suggestion else (),
    )


def _reader_of(key: str) -> str:
    """Where a script that builds GRPOConfig itself passes one of TrlParser's other arguments."""
    if key == "use_peft" or key.startswith(("lora_", "use_rslora", "use_dora")):
        return "a `peft.LoraConfig(...)` given as `GRPOTrainer(peft_config=...)`"
    if key.startswith(("dataset_", "datasets")) or key in ("streaming", "test_split_size"):
        return "the dataset the script loads and gives as `GRPOTrainer(train_dataset=...)`"
    if key in ("reward_funcs", "reward_model_name_or_path"):
        return "`GRPOTrainer(reward_funcs=...)`"
    if key.startswith(("model_", "load_in_", "bnb_4bit_", "use_bnb_")) or key in (
        "dtype",
        "torch_dtype",
        "attn_implementation",
    ):
        return "the model the script loads (`from_pretrained(...)`) and gives as `GRPOTrainer(model=...)`"
    from grpo_lint.frameworks.trl.fields import ACCELERATE_KEYS

    if key in ACCELERATE_KEYS:
        return "the launcher (`accelerate launch --num_processes N ...`)"
    return "the script's own code (TrlParser hands it to the grpo script, not to GRPOConfig)"


def _trl_release_facts(plan: RunPlan) -> tuple[bool, bool, str]:
    """Whether TRL's grpo script stops on an unknown config key at the plan's release, whether `trl grpo` passes such
    keys to `accelerate launch`, and the release's name: read once per release (a file may hold thousands of keys)."""
    from grpo_lint.frameworks.trl.frontend import CLI_FORWARDS, SCRIPT_REJECTS

    version = plan.target.version
    if _TRL_FACTS[0] is not version or _TRL_FACTS[1] is not plan.target:
        facts = (SCRIPT_REJECTS[0] <= version < SCRIPT_REJECTS[1], version >= CLI_FORWARDS, fw(plan))
        _TRL_FACTS[:] = [version, plan.target, facts]
    return _TRL_FACTS[2]


_TRL_FACTS: list = [None, None, None]  # [the release, its target, what _trl_release_facts says of it]


@cache
def _trl_names() -> tuple[frozenset[str], object, str, str]:
    """What `_trl_unknown` reads of TRL's tables, imported on its first call (it runs once per unknown key)."""
    from grpo_lint.frameworks.trl.fields import ACCELERATE_KEYS
    from grpo_lint.frameworks.trl.frontend import CLI_FORWARDS
    from grpo_lint.launch.commands import TRL_CLI, TRL_SCRIPT

    return ACCELERATE_KEYS, CLI_FORWARDS, TRL_CLI, TRL_SCRIPT


def _script_parser_unknown(plan: RunPlan, finding: KeyFinding, parser: str, from_file: bool) -> Diagnostic:
    """A key no class of a script's own parser has, the parser shown (every class resolved): what the
    parser does with it (transformers' HfArgumentParser, TRL's TrlParser; reference trl.md TrlParser)."""
    from grpo_lint.frameworks.trl.frontend import SCRIPT_REJECTS

    key = finding.entry.key.lstrip("-")
    what = f"`{key}` is not a field of any argument class that {parser} reads"
    if parser.startswith(ASSUMED_READER):  # "assumed: one of the repository's GRPO training scripts (...) reads it"
        what = f"`{key}` is not a field of any argument class of the script assumed to read this file"
    suggestion = f"; did you mean `{finding.suggestion}`?" if finding.suggestion else "."
    if not from_file:
        return report(
            plan,
            "GRPO002",
            f'{what}{suggestion} The parser stops at start-up: "ValueError: Some specified arguments are not used '
            f"by the HfArgumentParser: ['--{key}', ...]\".",
            finding.entry,
            fix=f"delete `--{key}`, or add the field to one of the script's argument classes",
        )
    if "TrlParser" in parser and plan.target.version >= SCRIPT_REJECTS[0]:
        return report(
            plan,
            "GRPO002",
            f"{what}{suggestion} {plan.target.framework_name} {plan.target.version}'s TrlParser stops on a config key "
            f"no class has: \"ValueError: Unknown arguments from config file: ['--{key}', ...]\".",
            finding.entry,
            fix=f"delete `{key}`, or add the field to one of the script's argument classes",
        )
    if "TrlParser" in parser:
        return report(
            plan,
            "GRPO002",
            f"{what}{suggestion} TrlParser before 0.19 drops config keys no class has without a word, so the setting "
            "is not used.",
            finding.entry,
            fix=f"delete `{key}`, or add the field to one of the script's argument classes",
            severity=Severity.WARNING,
        )
    return report(
        plan,
        "GRPO002",
        f"{what}{suggestion} How the script reads its config file is its own: the setting may not be used.",
        finding.entry,
        fix=f"delete `{key}`, or add the field to one of the script's argument classes",
        severity=Severity.WARNING,
    )


def _openrlhf_generations(plan: RunPlan) -> Iterator[Diagnostic]:
    """One diagnostic for a command written in the other flag generation, one per other flag."""
    from grpo_lint.frameworks.openrlhf.fields import DOTTED_SINCE

    findings = [f for f in plan.key_findings if f.spec is not None and f.status in ("removed", "not_yet")]
    renamed = [
        f
        for f in findings
        if (f.status == "removed" and f.spec.removed == DOTTED_SINCE)
        or (f.status == "not_yet" and f.spec.since == DOTTED_SINCE)
    ]
    if len(renamed) >= 2:
        first = renamed[0]
        flat = first.status == "removed"
        examples = [f for f in renamed if (f.spec.replacement if flat else True)][:3]
        pairs = ", ".join(f"{f.entry.key} -> {_other_name(f)}" for f in examples)
        message = (
            f"this command uses the {'flat' if flat else 'dotted'} flags of OpenRLHF "
            f"{'<= 0.10.1' if flat else '>= ' + DOTTED_SINCE} ({len(renamed)} of them), but the target is {fw(plan)}, "
            f'whose flags are {"dotted" if flat else "flat"}. argparse stops: "error: unrecognized arguments: '
            f'{first.entry.key} ..."; the checks below read the values as written.'
        )
        fix = (
            f"rename the flags ({pairs}), or lint for the version you run: "
            f"--target openrlhf=={'0.10.1' if flat else DOTTED_SINCE}"
        )
        yield report(plan, "GRPO004", message, first.entry, fix=fix, fixes=_rename_all(renamed))
        findings = [f for f in findings if f not in renamed]
    for finding in findings:
        yield _openrlhf_generation(plan, finding)


def _rename_all(findings: list[KeyFinding]) -> tuple[Fix, ...]:
    """One fix that writes every flag of the list in the other flag generation (the same flag under its
    0.10.2 name, or the reverse); none when a flag has no counterpart."""
    edits = []
    for finding in findings:
        other = _other_name(finding)
        renamed = rename(finding.entry, other) if other != "?" else ()
        if not renamed:
            return ()
        edits.extend(renamed[0].edits)
    if not edits:
        return ()
    title = "rename " + ", ".join(f"{f.entry.key} to {_other_name(f)}" for f in findings)
    return (Fix(title, tuple(edits)),)


def _other_name(finding: KeyFinding) -> str:
    from grpo_lint.frameworks.openrlhf.fields import openrlhf_table

    assert finding.spec is not None
    if finding.status == "removed":
        return f"--{finding.spec.replacement}" if finding.spec.replacement else "?"
    name = finding.entry.key.lstrip("-")
    flat = [k for k, s in openrlhf_table().specs.items() if s.replacement == name]
    return f"--{flat[0]}" if flat else "?"


def _openrlhf_generation(plan: RunPlan, finding: KeyFinding) -> Diagnostic:
    """A flat flag for OpenRLHF >= 0.10.2, or a dotted one before it (the flag names changed)."""
    from grpo_lint.frameworks.openrlhf.fields import DOTTED_SINCE, openrlhf_table

    assert finding.spec is not None
    flag, name, spec = finding.entry.key, finding.entry.key.lstrip("-"), finding.spec
    fixes: tuple[Fix, ...] = ()
    if finding.status == "removed" and spec.removed == DOTTED_SINCE:
        message = (
            f"`{flag}` is a flag of OpenRLHF up to 0.10.1; {DOTTED_SINCE} renamed the flags to dotted names "
            f'(target {fw(plan)}). argparse stops: "error: unrecognized arguments: {flag}".'
        )
        fix = f"`--{spec.replacement}`" if spec.replacement else "the dotted name from `train_ppo_ray --help`"
        fixes = _rename_all([finding])
    elif finding.status == "removed":
        message = f"`{flag}` was removed in OpenRLHF {spec.removed} (target {fw(plan)}); argparse stops on it."
        fix = f"`--{_replacement_value(spec.replacement)}`" if spec.replacement else f"delete `{flag}`"
        if spec.replacement:
            message += f" It is now `--{spec.replacement}`."
    else:
        flat = [k for k, s in openrlhf_table().specs.items() if s.replacement == name]
        message = (
            f"`{flag}` is a dotted flag of OpenRLHF >= {spec.since}; {fw(plan)} has flat names, and argparse "
            f'stops: "error: unrecognized arguments: {flag}".'
        )
        fix = f"`--{flat[0]}`" if flat else f"upgrade to OpenRLHF >= {spec.since}"
        fixes = _rename_all([finding])
    return report(plan, "GRPO004", message, finding.entry, fix=fix, fixes=fixes)


def _replacement_value(name: str) -> str:
    """The new flag as written for an old switch: a switch that became a choice (is_correction_enable ->
    is_correction_level) is turned on by the first choice other than the default ("off")."""
    from grpo_lint.frameworks.openrlhf.fields import openrlhf_table

    spec = openrlhf_table().specs.get(name)
    if spec is None or not spec.choices or spec.kind == "bool":
        return name
    on = [c for c in spec.choices[-1].values if c != spec.default]
    return f"{name} {on[0]}" if on else name


def _verl_unknown(plan: RunPlan, finding: KeyFinding) -> Diagnostic:
    """verl: an override of a key the config lacks stops Hydra; a near miss in a config file is ignored."""
    key, suggestion = finding.entry.key, finding.suggestion
    path = key.lstrip("+~")
    hint = f"; did you mean `{suggestion}`?" if suggestion else "."
    if plan.document.format == "hydra" and finding.entry.key_span.path is None:
        value = finding.entry.value
        return report(
            plan,
            "GRPO002",
            f"`{path}` is not a key of {config_of(plan)}{hint} Hydra stops before training: "
            f"\"Could not override '{path}'. To append to your config use +{path}=...\"",
            finding.entry,
            fix=f"`{suggestion}={shown_override(value)}`"
            if suggestion
            else f"`+{path}={shown_override(value)}` if your own code reads it, else delete it",
            fixes=_typo_fix(plan, finding),
        )
    return report(
        plan,
        "GRPO002",
        f"`{path}` is not a key of {config_of(plan)}; did you mean `{suggestion}`? Hydra merges a new key "
        f"from a config file without a word, so `{suggestion}` keeps its default.",
        finding.entry,
        fix=f"rename it to `{suggestion}`",
        severity=Severity.WARNING,
        fixes=_typo_fix(plan, finding),
    )


def _verl_added(plan: RunPlan, finding: KeyFinding) -> Diagnostic:
    """Keys a config file adds to verl's: Hydra merges them; the project's own code may read them."""
    many = (finding.suggestion or "").count("`") > 2 or " more" in (finding.suggestion or "")
    return report(
        plan,
        "GRPO002",
        f"{finding.suggestion} {'are' if many else 'is'} not in {config_of(plan)}; Hydra merges "
        f"{'them' if many else 'it'} from this file. Read by your own code (a recipe's trainer)? If not, check "
        f"the name{'s' if many else ''} against verl's reference config.",
        finding.entry,
        fix="declare them with `--extra-keys` (or `extra-keys` in the settings) if your code reads them",
        severity=Severity.INFO,
    )


def _openrlhf_unknown(plan: RunPlan, finding: KeyFinding) -> Diagnostic:
    flag = finding.entry.key
    hint = f" Did you mean `--{finding.suggestion}`?" if finding.suggestion else ""
    fork = plan.target.fork
    # (the flags of the repository's own copy are what its launches are checked against, not a release's)
    parser = (
        f"the train_ppo_ray of the {plan.target.framework_name} copy in {fork.package}/"
        if fork is not None and fork.mapped
        else f"{fw(plan)} train_ppo_ray"
    )
    return report(
        plan,
        "GRPO002",
        f"`{flag}` is not a flag of {parser}.{hint} argparse stops at start-up: "
        f'"error: unrecognized arguments: {flag}"',
        finding.entry,
        fix=f"`--{finding.suggestion}`" if finding.suggestion else f"delete `{flag}`",
        fixes=_typo_fix(plan, finding),
    )


def _ambiguous_flag(plan: RunPlan, finding: KeyFinding) -> Diagnostic:
    flag = finding.entry.key
    name = flag.lstrip("-")
    matches = sorted(k for k in plan.specs if k.startswith(name) and ("." in k) == ("." in name))[:4]
    listed = ", ".join(f"--{m}" for m in matches)
    return report(
        plan,
        "GRPO002",
        f"`{flag}` abbreviates several flags of {fw(plan)} ({listed}); argparse stops at start-up: "
        f'"error: ambiguous option: {flag} could match {listed}".',
        finding.entry,
        fix=f"`--{finding.suggestion}`" if finding.suggestion else "write the whole flag name",
        fixes=_typo_fix(plan, finding) if finding.suggestion else (),
    )


# GRPO013 is decided with the premises (grpo_lint.premises.release_ties), after the rules: registered here.
REGISTRY["GRPO013"] = Rule(
    "GRPO013",
    "release-tied-key",
    Severity.INFO,
    "A key that exists only up to or only from some release, with nothing pinning the release.",
    None,
)


@rule(
    "GRPO009",
    "hydra-append-existing",
    Severity.ERROR,
    "A Hydra `+key=value` override for a key the config already has.",
)
def hydra_append_existing(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    for finding in plan.key_findings:
        if finding.status != "append_existing":
            continue
        path = finding.entry.key.lstrip("+")
        value = shown_override(finding.entry.value)
        yield report(
            plan,
            "GRPO009",
            f"`+{path}` adds a key, but {config_of(plan)} already has `{path}`. Hydra stops before training: "
            f"\"Could not append to config. An item is already at '{path}'.\"",
            finding.entry,
            fix=f"`{path}={value}` (override it), or `++{path}={value}` (add or override)",
            fixes=drop_prefix(finding.entry, "+"),
        )


# The keys that set the group size: a value below 2 is no group (GRPO101), whatever the default.
_GROUP_SIZE_KEYS = frozenset({
    "num_generations", "actor_rollout_ref.rollout.n", "n_samples_per_prompt", "rollout.n_samples_per_prompt",
})  # fmt: skip


@rule("GRPO003", "invalid-value", Severity.ERROR, "Wrong type or value out of range.")
def invalid_value(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    for problem in plan.problems:
        entry = plan.entry(problem.key)
        if entry is None:
            continue
        spec = plan.specs.get(problem.key.replace("-", "_"))
        default = spec.default_at(plan.target.version) if spec else None
        if problem.fix is not None:
            fix: str | None = problem.fix
        elif problem.kind == "swift_null":
            fix = f"delete `{entry.key}` to keep the default"
        elif problem.key in _GROUP_SIZE_KEYS and not (isinstance(default, int) and default >= 2):
            # The default group size (1 in verl and OpenRLHF) is itself no group: GRPO101.
            fix = f"{assignment(plan, entry.key, 8)}, or another group size of at least 2"
        elif default is not None:
            fix = f"{assignment(plan, entry.key, shown(default))} (the default)"
        else:
            fix = None
        message = f"`{entry.key}: {shown(entry.value)}` {problem.message}."
        several = plan.document.format == "cli" and isinstance(entry.value, list) and len(entry.item_spans) > 1
        if several and (spec is None or spec.base_kind != "list"):
            message, fix = _split_words(entry)
        yield report(plan, "GRPO003", message, entry.value_span, fix=fix, key=entry.key)
    yield from _flags_without_value(plan)


# What argparse (HfArgumentParser's fields, OpenRLHF's flags) makes of a field of these kinds written with no value:
# nargs=None or "+" needs one. A bool field takes none (`nargs="?"`, `store_true`).
_TAKES_A_VALUE = {"str": "expected one argument", "int": "expected one argument", "float": "expected one argument",
                  "list": "expected at least one argument"}  # fmt: skip


def _flags_without_value(plan: RunPlan) -> Iterator[Diagnostic]:
    """`--dataset_name --bf16`, or `--dataset_name $EMPTY` whose empty unquoted variable vanished: the flag has no
    value, and the parser stops at start-up."""
    from grpo_lint.launch.runs import Bare

    if plan.document.format != "cli" or plan.framework not in ("trl", "swift", "openrlhf"):
        return
    for name, entry in plan.document.entries.items():
        if not isinstance(entry.value, Bare) or entry.key_span.path is not None or not entry.key.startswith("--"):
            continue
        spec = plan.specs.get(name)
        needs = _TAKES_A_VALUE.get(spec.base_kind) if spec is not None else None
        if spec is None:  # (a field of the script's own argument classes)
            needs = dict(plan.document.program.takes_value).get(name) if plan.document.program else None
        if needs is None or name in plan.document.unknown or not _nothing_after(plan.document, entry):
            continue
        yield report(
            plan,
            "GRPO003",
            f"`{entry.key}` takes a value, but none follows it (the next word is another flag, or the command ends): "
            f'the parser stops at start-up: "error: argument {entry.key}: {needs}". An unquoted variable that is '
            "empty (`--flag $EMPTY`) vanishes like this.",
            entry.key_span,
            fix=f'give `{entry.key}` its value (quote a variable: "$VAR"), or delete the flag',
            key=entry.key,
        )


_EXPANSION = lazy(r"\$(?:\{(\w+)(?::?-)?\}|(\w+))")


def _nothing_after(document: Any, entry: Entry) -> bool:
    """Whether what the script writes after the flag, up to the next flag, is nothing, or only variables the script
    itself sets to nothing (`X=""` above: the environment cannot change it); not a `${X:-}` the caller may export,
    nor `$1`."""
    line = document.line(entry.key_span.end_line)
    after = line[entry.key_span.end_column - 1 :]
    gap = after.split(" -", 1)[0].rstrip().removesuffix("\\").strip()
    if not gap:
        return True
    names = [a or b for a, b in _EXPANSION.findall(gap)]
    if not names or _EXPANSION.sub("", gap).strip(" \"'"):
        return False
    text = document.text
    return all(
        not name.isdigit()
        and re.search(rf"^[ \t]*(?:export[ \t]+|local[ \t]+)?{name}=(?:\"\"|''|)[ \t]*(?:#.*)?$", text, re.M)
        for name in names
    )


def _split_words(entry: Entry) -> tuple[str, str]:
    """A one-value flag followed by several words: mostly an unquoted variable whose value holds a space
    (`--save_path $DIR/$NAME` with NAME="ckpt name"), which bash splits."""
    words = [str(word) for word in entry.value]
    shown_words = " ".join(f"`{word}`" for word in words[:4]) + (" ..." if len(words) > 4 else "")
    return (
        f"`{entry.key}` takes one value, but the command passes {len(words)} words after it ({shown_words}): "
        f"the first is the value and `{words[1]}` a stray argument, which argparse-based trainers reject "
        f'("unrecognized arguments: {words[1]}"). An unquoted variable whose value holds a space splits '
        "like this.",
        'quote the expansion ("$VAR"), or remove the space from the value',
    )


@rule("GRPO004", "key-not-in-version", Severity.ERROR, "Key removed, renamed or not yet added.")
def key_not_in_version(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    if plan.framework == "openrlhf":
        yield from _openrlhf_generations(plan)
        return
    for finding in plan.key_findings:
        spec, key = finding.spec, finding.entry.key
        if spec is None or finding.status not in ("removed", "not_yet", "unused"):
            continue
        fixes: tuple[Fix, ...] = ()
        if finding.status == "unused":
            name = plan.target.framework_name
            yield report(
                plan,
                "GRPO004",
                f"`{key}` is accepted by {fw(plan)} with a deprecation warning but no longer used (since {name} "
                f"{spec.unused}; removed in {spec.removed}): the value has no effect."
                + (f" {spec.note[0].upper()}{spec.note[1:]}." if spec.note else ""),
                finding.entry,
                fix=f"delete `{key}`",
                severity=Severity.WARNING,
            )
            continue
        severity, fate = _fate(plan, finding)
        if finding.status == "removed":
            name = plan.target.framework_name
            message = f"`{key}` was removed in {name} {spec.removed}"
            replacement = spec.replacement or finding.suggestion
            later = _successor_since(plan, replacement)
            if later is not None:  # the new name arrives after the target: nothing takes the value at this release
                fix = f"delete `{key}`, or upgrade to {name} >= {later} and set `{replacement}`"
                message += f"; its successor `{replacement}` only arrives in {name} {later}"
            elif replacement:
                if _renamed_only(plan, spec):
                    fixes = rename(finding.entry, spec.replacement or "")
                fix = f"rename `{key}` to `{replacement}`"
                message += f"; it is now `{replacement}`"
            else:
                fix = f"delete `{key}`" + (f": {spec.note}" if spec.note else "")
            message += f" (target {fw(plan)}). {fate}"
        else:
            message = (
                f"`{key}` does not exist in {fw(plan)}: it was added in "
                f"{plan.target.framework_name} {spec.since}. {fate}"
            )
            fix = f"upgrade to {plan.target.framework_name} >= {spec.since}, or delete `{key}`"
        yield report(plan, "GRPO004", message, finding.entry, fix=fix, fixes=fixes, severity=severity)


def _fate(plan: RunPlan, finding: KeyFinding) -> tuple[Severity | None, str]:
    """What the program that reads it does with a key its release lacks: for TRL, what it does with any key no
    argument class has (GRPO002's verdict for the same key: a script's own TrlParser before 0.19 drops it, `trl
    grpo` and the grpo script stop on it from 0.19); for the other frameworks their parser stops on it."""
    if plan.framework == "swift":
        return (
            None,
            "swift stops on an argument it does not know: "
            f"`ValueError: remaining_argv: ['--{finding.entry.key.lstrip('-')}', ...]`.",
        )
    _, _, trl_cli, trl_script = _trl_names()
    shown = plan.document.entry in (trl_cli, trl_script) or bool(plan.document.parser)
    if plan.framework != "trl" or plan.document.called or not shown:
        return None, "As written the setting is rejected or ignored."  # (which program reads it is not shown)
    parser = plan.document.parser or ("`trl grpo`" if plan.document.entry == trl_cli else "TRL's grpo script")
    if parser.startswith(ASSUMED_READER):
        parser = "The script assumed to read this file"
    if _trl_unknown(plan, finding).severity is Severity.WARNING:
        return Severity.WARNING, f"{parser} drops a key it does not know without a word, so the value is not used."
    return None, f"{parser} stops on a key it does not know."


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
            fixes=set_value(entry, float(entry.value), "safe", f"write `{key}` as the float {float(entry.value)}"),
        )


_TRUTHY = {"true", "yes", "y", "t", "1", "false", "no", "n", "f", "0"}
_TRUE_WORDS = frozenset({"true", "yes", "y", "t", "1", "on"})


@rule("GRPO006", "invalid-choice", Severity.ERROR, "Value not among the target version's choices.")
def invalid_choice(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    version = plan.target.version
    for key, entry in plan.document.entries.items():
        spec = plan.specs.get(key.replace("-", "_"))
        if spec is None or not spec.choices or entry.value is None:
            continue
        found = spec.choice_at(version)
        if found is None or (found.entry_only and not _entry_reads(plan, key)):
            continue
        choices = found.values
        values = entry.value if isinstance(entry.value, list) else [entry.value]
        registered = plan.document.registered
        for value in values:
            if _accepted(value, choices):
                continue
            if spec.name == "reward_funcs" and plan.framework == "swift":
                if isinstance(value, str) and registered is not None and value not in registered:
                    yield _unregistered_reward(plan, key, value, choices, entry)
                continue
            listed = ", ".join(shown(c) for c in choices)
            why = found.warning(value)
            if why is not None:
                message = f"`{key}: {shown(value)}` {why}."
                fix = f"`{key}: {shown(choices[0])}`" if len(choices) == 1 else f"one of {listed}"
                yield report(plan, "GRPO006", message, entry.value_span, fix=fix, severity=Severity.WARNING, key=key)
                continue
            if plan.document.format == "python" and isinstance(value, str) and set(choices) <= {True, False}:
                if value.lower() not in _TRUE_WORDS:  # (`"true"` runs as meant)
                    yield _truthy_string(plan, key, value, entry)
                continue
            severity = None
            if spec.name == "vllm_mode" and plan.framework == "trl" and not plan.value("use_vllm"):
                severity = Severity.WARNING  # TRL only checks the mode when vLLM is used
            message = f"`{key}: {shown(value)}` is not accepted by {fw(plan)}; choose one of {listed}."
            fix = None
            fixes: tuple[Fix, ...] = ()
            if spec.name == "scale_rewards" and isinstance(value, str) and value.lower() in _TRUTHY:
                message += (
                    " A quoted or command-line 'true'/'false' stays a string and is rejected at "
                    "the first step; a YAML boolean is mapped to 'group'/'none'."
                )
                meant = "group" if value.lower() in ("true", "yes", "1") else "none"
                fix = f"`{key}: {meant}`"
                fixes = set_value(entry, meant, "safe", f"write `{key}` as `{meant}`, the value {value!r} meant")
            yield report(plan, "GRPO006", message, entry.value_span, fix=fix, severity=severity, key=key, fixes=fixes)


def _unregistered_reward(plan: RunPlan, key: str, value: Any, choices: tuple[Any, ...], entry: Entry) -> Diagnostic:
    """An ms-swift reward function that is neither built in nor registered by a plugin the run loads (the repository
    names it nowhere): GRPOTrainer stops in `_prepare_rewards`, after the model has loaded."""
    module = "swift.rewards" if plan.target.version >= Version("4.0.0") else "swift.plugin"
    loaded = plan.document.entries.get("external_plugins")
    plugins = "the plugins this run loads do not" if loaded is not None else "this run loads no plugin"
    message = (
        f"`{key}: {shown(value)}` is no reward function {fw(plan)} has built in ({', '.join(map(str, choices))}), and "
        f"no Python file of the repository registers it (`orms['{value}'] = ...` in a plugin given with "
        f"--external_plugins; {plugins}): GRPOTrainer stops after the model has loaded with "
        f'"ValueError: reward_function {value} is not implemented in {module}".'
    )
    fix = f"register `{value}` in a plugin given with --external_plugins, or use a built-in reward function"
    return report(plan, "GRPO006", message, entry.value_span, fix=fix, key=key)


def _truthy_string(plan: RunPlan, key: str, value: str, entry: Entry) -> Diagnostic:
    """A string for a boolean setting in a Python call (`GRPOConfig(scale_rewards="none")` where the release takes
    true or false): a dataclass checks no types, so the run starts, and the string counts as true when it is not
    empty. (A config file or a flag goes through the argument parser, which rejects it.)"""
    meant = value.lower() not in ("", "false", "no", "n", "f", "0", "none", "off")
    counts = "true" if value else "false"
    message = (
        f"`{assignment(plan, key, repr(value))}` is a string where {fw(plan)} takes true or false. The call is not "
        f"checked (a dataclass keeps what it is given), and the run reads the string as {counts}"
        + ("" if meant == (counts == "true") else f", the opposite of what {shown(value)} says")
        + "."
    )
    fix = f"`{key}={meant}`"
    return report(plan, "GRPO006", message, entry.value_span, fix=fix, severity=Severity.WARNING, key=key)


def _entry_reads(plan: RunPlan, key: str) -> bool:
    """Whether the framework's own entry checks `key`'s value for this run (Choices.entry_only): a launch of verl's own
    training loop (not a recipe's or the repository's trainer, which may register values of its own, and not a file
    no launch names). verl 0.7.x's new engine workers (`trainer.use_legacy_worker_impl=disable`) do not read
    `actor.strategy` there."""
    if plan.native is None or plan.document.parser is None:
        return False
    if key != "actor_rollout_ref.actor.strategy":
        return True
    legacy = plan.document.entries.get("trainer.use_legacy_worker_impl")
    return not (legacy is not None and str(legacy.value) == "disable" and plan.target.version >= Version("0.7.0"))


def _successor_since(plan: RunPlan, replacement: str | None) -> str | None:
    """The release a removed key's successor arrives in, when that is after the target (TRL removed
    `vllm_max_model_len` in 0.18.0 and added `vllm_max_model_length` in 0.26.0): renaming would not help there."""
    if not replacement or replacement in plan.specs or plan.framework not in ("trl", "swift"):
        return None
    if plan.framework == "trl":
        from grpo_lint.frameworks.trl.fields import trl_table as table
    else:
        from grpo_lint.frameworks.swift.fields import swift_table as table
    new = table().get(replacement)
    if new is None or new.since is None or plan.target.version >= Version(new.since):
        return None
    return new.since


def _renamed_only(plan: RunPlan, spec: FieldSpec) -> bool:
    """The key took a new name and nothing else: same kind of value, no note about a changed meaning,
    and the new name not written already."""
    new = plan.specs.get(spec.replacement or "")
    return (
        new is not None
        and new.kind.rstrip("?") == spec.kind.rstrip("?")
        and spec.note is None
        and not _written(plan, new.name)
    )


def _typo_fix(plan: RunPlan, finding: KeyFinding) -> tuple[Fix, ...]:
    """Rename a misspelt key when the suggestion is the only close candidate and not set already."""
    from grpo_lint.frameworks.fields import sole_match

    suggestion = finding.suggestion
    if not suggestion or _written(plan, suggestion):
        return ()
    leaf = finding.entry.key.lstrip("-+~").rpartition(".")[2]
    if sole_match(leaf, _leaves(plan.specs, suggestion.rpartition(".")[0])) != suggestion.rpartition(".")[2]:
        return ()
    spec = plan.specs.get(suggestion)
    flag = finding.entry.key.startswith("-")
    if spec is not None and not _fits(finding.entry.value, spec.base_kind, spec.nullable, flag):
        return ()  # `dataset_configs: [train]` is no `dataset_config` (a string) renamed: the value must change too
    return rename(finding.entry, suggestion)


def _fits(value: object, base: str, optional: bool, flag: bool = False) -> bool:
    """Whether a value as written is of a field's kind (its base kind: "str", "list", "int", ...; `optional`: null
    allowed). A flag's word is text that argparse converts: it fits any single value."""
    if flag and isinstance(value, str):
        return True
    if value is None:
        return optional or base == "any"
    checks: dict[str, tuple[type, ...]] = {
        "str": (str,), "list": (list, tuple), "dict": (dict,), "int": (int,), "float": (int, float), "bool": (bool,),
    }  # fmt: skip
    accepted = checks.get(base)
    if accepted is None:
        return True
    return isinstance(value, accepted) and not (base in ("int", "float") and isinstance(value, bool))


def _leaves(specs: Mapping[str, object], parent: str) -> list[str]:
    """The last parts of the keys of one section (`parent`: a dotted path, "" for the top), grouped once for the
    table last asked about (a file of thousands of misspelt keys asks about one table)."""
    if _LEAVES[0] is not specs:
        grouped: dict[str, list[str]] = {}
        for key in specs:
            section, _, leaf = key.rpartition(".")
            grouped.setdefault(section, []).append(leaf)
        _LEAVES[:] = [specs, grouped]
    return _LEAVES[1].get(parent, [])


_LEAVES: list = [None, {}]  # [the table, its leaves by section]


def _written(plan: RunPlan, name: str) -> bool:
    """Whether the config already sets `name` (a renaming fix would then write it twice)."""
    return name in plan.document.entries or f"--{name}" in plan.document.entries


def _written_key(written: str, name: str) -> str:
    """`name` spelt as the user spells keys here: `--name` where the key is a flag."""
    return f"--{name}" if written.startswith("--") and not name.startswith("-") else name


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


# GRPO014 is decided where a launch's overrides meet the composed tree of a framework copy
# (grpo_lint.launch.runs._unread_keys): registered here.
REGISTRY["GRPO014"] = Rule(
    "GRPO014",
    "unread-key",
    Severity.WARNING,
    "A key of a framework copy's config that no code of the repository reads: set, never used.",
    None,
)
