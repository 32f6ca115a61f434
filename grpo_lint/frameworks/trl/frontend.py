"""TRL front end: TrlParser YAML/JSON configs onto a RunPlan, for one TRL version."""

from __future__ import annotations

from packaging.version import Version

from grpo_lint.frameworks.base import (
    CANONICAL,
    as_int,
    classify_keys,
    expand_abbreviations,
    resolve_settings,
    rules_at,
    schema_for,
    vllm_top_p,
)
from grpo_lint.frameworks.schema import ValueProblem
from grpo_lint.frameworks.trl.fields import ACCELERATE_KEYS, trl_table
from grpo_lint.groups import Geometry, GroupRules
from grpo_lint.options import Options
from grpo_lint.plan import KeyFinding, RunPlan, Setting
from grpo_lint.sources.document import Document
from grpo_lint.versions import Target

_LATE = "after the model loads"
# Which batch must hold whole groups, by release (reference trl.md §1.0 and §1.2).
GROUP_RULES = (
    ("0.14.0", "0.15.0", GroupRules("none", "none")),
    ("0.15.0", "0.17.0", GroupRules("global", "misleading", eval="num_generations", where=_LATE)),
    ("0.17.0", "0.18.0", GroupRules("effective", "explicit", eval="num_generations", where=_LATE)),
    ("0.18.0", "0.19.1", GroupRules("generation", "explicit", "rejected", "per_device", "num_generations")),
    ("0.19.1", "0.20.0", GroupRules("generation", "explicit", "rejected", "global", "num_generations")),
    ("0.20.0", "0.22.0", GroupRules("generation", "explicit", "rejected", "global", "none")),
    ("0.22.0", "0.26.1", GroupRules("generation", "explicit", "rejected", "global", "num_generations")),
    ("0.26.1", None, GroupRules("generation", "explicit", "rejected", "global", "num_generations_eval")),
)  # fmt: skip

# `trl grpo` passes the YAML's accelerate keys (num_processes, accelerate_config, ...) and any other key it
# does not know to `accelerate launch` from 0.29.0 (trl/cli/commands/training.py); 0.18-0.28 (trl/cli.py)
# dropped them for grpo and launched with accelerate's defaults.
CLI_FORWARDS = Version("0.29.0")
# TRL's grpo script stops on a config key no dataclass has (TrlParser's fail_with_unknown_args) in
# 0.19.0-0.21.x; 0.22-0.29 ask for the remaining strings and 1.0 passes fail_with_unknown_args=False.
SCRIPT_REJECTS = (Version("0.19.0"), Version("0.22.0"))

# Fields Unsloth's generated UnslothGRPOConfig adds to TRL's (unsloth/models/rl.py, RLTrainer_replacement:
# vllm_sampling_params and unsloth_num_chunks since 2025.2; the logit chunk multiplier, GRPO mini batch and
# max_seq_length later): known keys of a GRPOConfig(...) in a file that imports unsloth.
UNSLOTH_FIELDS = (
    "vllm_sampling_params", "unsloth_num_chunks", "unsloth_logit_chunk_multiplier", "unsloth_grpo_mini_batch",
    "max_seq_length",
)  # fmt: skip

# Profiles shipped with `trl grpo --accelerate_config NAME` (0.18+): their process counts.
ACCELERATE_PROFILES = {
    "multi_gpu": 8, "zero1": 8, "zero2": 8, "zero3": 8, "fsdp1": 8, "fsdp2": 8, "single_gpu": 1,
}  # fmt: skip


def build(document: Document, target: Target, options: Options) -> RunPlan:
    from grpo_lint.launch.commands import UNSLOTH

    table = trl_table()
    version = target.version
    ambiguous = _abbreviations(document, table.at(version), options)
    values = {k: e.value for k, e in document.entries.items()}
    coerced, problems = schema_for(table, version).validate(values)
    problems = [_with_reason(p) for p in problems] + _generation_problems(coerced)
    settings = resolve_settings(document, table, version, coerced, CANONICAL)
    forwarded = ACCELERATE_KEYS if version >= CLI_FORWARDS else ()
    if document.entry == UNSLOTH:
        forwarded = (*forwarded, *UNSLOTH_FIELDS)
    findings = [
        # Before 0.29 an accelerate key in the YAML is no argument of anything that reads it: unknown.
        f._replace(status="unknown", spec=None) if f.status == "not_yet" and f.entry.key in ACCELERATE_KEYS else f
        for f in classify_keys(document, table, version, forwarded, options.extra_keys)
    ]
    findings = [f._replace(status="ambiguous") if f.entry.key.lstrip("-") in ambiguous else f for f in findings]
    if document.called and document.entry != UNSLOTH:  # `GRPOConfig(...)` takes its own and TrainingArguments' fields
        from grpo_lint.frameworks.trl.fields import grpo_config_fields

        own, found = grpo_config_fields(), {f.entry.key for f in findings}
        findings += [
            KeyFinding(entry, "unknown", None)
            for key, entry in [*document.entries.items(), *document.unknown_entries.items()]
            if key not in own and key not in found and key in table.specs and key not in options.extra_keys
        ]
    world = _world_size(document, coerced, options, version >= CLI_FORWARDS)
    rules = rules_at(GROUP_RULES, version)
    if document.trainer and document.trainer_batch:  # the repository's own trainer keeps TRL 0.15-0.17's check
        rules = rules_at(GROUP_RULES, Version("0.15.0" if document.trainer_batch == "global" else "0.17.0"))
    eval_strategy = settings.get("eval_strategy", Setting("no")).value
    geometry = Geometry(
        world_size=as_int(world.value, 1),
        per_device=as_int(settings["per_device_train_batch_size"].value, 8),
        grad_accum=as_int(settings["gradient_accumulation_steps"].value, 1),
        num_generations=as_int(settings["num_generations"].value, 8),
        steps_per_generation=_optional_int(settings.get("steps_per_generation")),
        generation_batch_size=_optional_int(settings.get("generation_batch_size")),
        eval_per_device=as_int(settings["per_device_eval_batch_size"].value, 8),
        num_generations_eval=_optional_int(settings.get("num_generations_eval")),
        eval_enabled=eval_strategy not in (None, "no", "NO"),
    )
    return RunPlan(
        path=document.path,
        document=document,
        target=target,
        flavor="config",
        settings=settings,
        world_size=world,
        group_rules=rules,
        geometry=geometry,
        problems=problems,
        key_findings=findings,
        specs=table.at(version),
    )


def _abbreviations(document: Document, specs: dict, options: Options) -> frozenset[str]:
    """Command-line flags of a run whose parser is shown (TRL's grpo script and CLI, a script's own TrlParser or
    HfArgumentParser): argparse takes a unique prefix of a flag for the flag (`--num_train_epoch`), over every
    field the parser reads (the framework's classes and the script's own). The flags that abbreviate several."""
    from grpo_lint.launch.commands import TRL_CLI, TRL_SCRIPT
    from grpo_lint.premises import ASSUMED_READER

    parser = document.parser or ""
    if document.format != "cli" or parser.startswith(ASSUMED_READER):
        return frozenset()
    if not parser and document.entry not in (TRL_CLI, TRL_SCRIPT):
        return frozenset()  # a script whose parser is not shown may define any flag
    known = set(specs) | {key.lstrip("-").replace("-", "_") for key in options.extra_keys}
    return expand_abbreviations(document, known, lambda entry: entry.key_span.path is None)


# GRPOConfig checks none of these ranges itself (TRL 0.14-1.16): what happens to a run that has them.
_INVERTED_CLIP = (
    "; GRPOConfig accepts it, but the clip range [1 - epsilon, 1 + epsilon_high] is then inverted, so the "
    "clipped ratio is a constant and the update is silently wrong"
)
_RANGE_REASONS = {
    "beta": "; GRPOConfig accepts it, but a negative KL coefficient rewards moving away from the reference model: "
    "the loss falls as the policy drifts, without an error",
    "epsilon": _INVERTED_CLIP,
    "epsilon_high": _INVERTED_CLIP,
}
_RANGE_KINDS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal"})


def _with_reason(problem: ValueProblem) -> ValueProblem:
    reason = _RANGE_REASONS.get(problem.key)
    if reason is None or problem.kind not in _RANGE_KINDS:
        return problem
    return problem._replace(message=problem.message + reason)


def _generation_problems(coerced: dict) -> list[ValueProblem]:
    """Values GRPOConfig accepts but the first generation rejects."""
    found: list[ValueProblem] = vllm_top_p(coerced)
    top_k = coerced.get("top_k")
    if isinstance(top_k, int) and top_k < 0 and not coerced.get("use_vllm"):
        # transformers' TopKLogitsWarper (every 4.x and 5.x): "`top_k` has to be a strictly positive
        # integer"; vLLM reads -1 as "off", so the value is only wrong without it.
        found.append(
            ValueProblem(
                "top_k",
                "generation",
                "is rejected at the first generation when vLLM is off: transformers' top-k filter raises "
                '"`top_k` has to be a strictly positive integer" (-1 means "off" only to vLLM; 0 turns it off here)',
            )
        )
    return found


def _optional_int(setting: Setting | None) -> int | None:
    if setting is None or setting.value is None:
        return None
    value = as_int(setting.value, 0)
    return value if value > 0 else None


def _world_size(document: Document, coerced: dict, options: Options, forwarded: bool) -> Setting:
    if options.world_size is not None:
        return Setting(options.world_size, None, None, "--world-size")
    if document.launcher is not None:
        return document.launcher
    if not forwarded:  # before 0.29 nothing passes the YAML's accelerate keys on to the launcher
        return Setting(1, None, None, "assumed")
    entry = document.entries.get("num_processes")
    if entry is not None and isinstance(coerced.get("num_processes"), int):
        machines = document.entries.get("num_machines")
        note = "num_processes (total over all machines)" if machines else "num_processes"
        return Setting(coerced["num_processes"], entry.key, entry.key_span, note)
    profile = document.entries.get("accelerate_config")
    if profile is not None and profile.value in ACCELERATE_PROFILES:
        return Setting(
            ACCELERATE_PROFILES[profile.value],
            profile.key,
            profile.value_span,
            f"the `{profile.value}` accelerate profile",
        )
    return Setting(1, None, None, "assumed")
