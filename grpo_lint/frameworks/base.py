"""What every front end shares: key checks, value validation, settings with their origins."""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import cache
from typing import Any

from packaging.version import Version

from grpo_lint.frameworks.fields import FieldSpec, FieldTable
from grpo_lint.frameworks.schema import Schema, ValueProblem
from grpo_lint.groups import GroupRules
from grpo_lint.plan import KeyFinding, Setting
from grpo_lint.release_range import in_range
from grpo_lint.sources.document import Document, Entry


@cache
def schema_for(table: FieldTable, version: Version) -> Schema:
    return Schema(table, version)


def rules_at(table: tuple[tuple[str, str | None, GroupRules], ...], version: Version) -> GroupRules:
    for since, until, rules in table:
        if in_range(version, since, until):
            return rules
    return table[-1][2]


def classify_keys(
    document: Document,
    table: FieldTable,
    version: Version,
    allowed: tuple[str, ...] = (),
    extra_keys: frozenset[str] = frozenset(),
) -> list[KeyFinding]:
    """Keys that the target version does not know, or no longer / not yet knows."""
    from grpo_lint.limits import MAX_SUGGESTED_KEYS

    specs = table.at(version)
    findings: list[KeyFinding] = []
    suggested = 0
    for key, entry in [*document.entries.items(), *document.unknown_entries.items()]:
        if key in specs:
            spec = specs[key]
            if spec.unused is not None and version >= Version(spec.unused):
                findings.append(KeyFinding(entry, "unused", None, spec))
            continue
        if key in allowed or key in extra_keys:
            continue
        found = lifecycle_finding(entry, table.get(key), version)
        if found is None:
            suggested += 1
            # "Did you mean" costs a fuzzy match per key: bounded for a file of thousands of keys.
            suggestion = table.suggest(key, version, allowed) if suggested <= MAX_SUGGESTED_KEYS else None
            found = KeyFinding(entry, "unknown", suggestion)
        findings.append(found)
    return findings


def lifecycle_finding(entry: Entry, spec: FieldSpec | None, version: Version) -> KeyFinding | None:
    """A key the framework had in other releases: removed before `version`, or added after it."""
    if spec is not None and spec.removed is not None and version >= Version(spec.removed):
        return KeyFinding(entry, "removed", spec.replacement, spec)
    if spec is not None and spec.since is not None and version < Version(spec.since):
        return KeyFinding(entry, "not_yet", None, spec)
    return None


def resolve_settings(
    document: Document,
    table: FieldTable,
    version: Version,
    coerced: dict[str, Any],
    names: tuple[str, ...],
) -> dict[str, Setting]:
    """Every named setting: the user's valid value with its key and span, else the default."""
    specs = table.at(version)
    settings: dict[str, Setting] = {}
    for name in names:
        entry = document.entries.get(name)
        if entry is not None and name in coerced:
            settings[name] = Setting(coerced[name], entry.key, entry.key_span, "file")
        elif name in specs:
            settings[name] = Setting(specs[name].default_at(version))
    return settings


# The canonical settings rules read. TRL and ms-swift share these names; other front ends map
# their own keys onto them.
CANONICAL = (
    "num_generations", "num_generations_eval", "per_device_train_batch_size",
    "per_device_eval_batch_size", "gradient_accumulation_steps", "steps_per_generation",
    "generation_batch_size", "eval_strategy", "auto_find_batch_size", "temperature", "top_p",
    "top_k", "min_p", "repetition_penalty", "generation_kwargs", "use_vllm", "vllm_mode",
    "vllm_tensor_parallel_size", "vllm_server_host", "vllm_server_port", "vllm_server_base_url",
    "async_generate", "vllm_max_model_length", "vllm_max_model_len", "max_completion_length",
    "max_prompt_length", "max_length", "reward_funcs", "reward_weights", "reward_model",
    "reward_model_name_or_path", "beta", "sync_ref_model", "epsilon", "epsilon_high",
    "vllm_importance_sampling_clip_min", "vllm_importance_sampling_clip_max",
    "vllm_importance_sampling_correction", "vllm_importance_sampling_mode", "seed",
    "teacher_model", "teacher_model_server", "split_dataset_ratio", "val_dataset", "loss_type",
    "scale_rewards", "importance_sampling_level", "use_transformers_continuous_batching",
    "sleep_level", "multi_turn_scheduler", "vllm_gpu_memory_utilization", "do_sample", "num_iterations",
    "sequence_parallel_size", "use_gym_env", "gym_env",
)  # fmt: skip


def as_int(value: Any, fallback: int) -> int:
    """An int for arithmetic; invalid values were reported already, so fall back quietly."""
    if isinstance(value, bool) or value is None:
        return fallback
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return fallback


def _position(entry: Entry) -> tuple[int, int]:
    return entry.key_span.line, entry.key_span.column


def expand_abbreviations(
    document: Document, specs: Collection[str], flag: Callable[[Entry], bool] = lambda entry: True
) -> frozenset[str]:
    """argparse (allow_abbrev) takes a unique prefix of a flag for the flag itself. Returns the flags
    that are a prefix of several: argparse stops with "ambiguous option". `flag`: which entries argparse
    reads from the command line (a config file's keys are set as defaults: no prefix of them is taken)."""
    renamed: dict[str, Entry] = {}
    ambiguous: set[str] = set()
    ordered: list[str] | None = None
    for name, entry in document.entries.items():
        if name in specs or not flag(entry):
            renamed[name] = entry
            continue
        if ordered is None:
            from bisect import bisect_left  # (only for a flag written short: not on the path of most runs)

            ordered = sorted(specs)  # the keys a prefix starts are one run of the sorted keys: found by bisection
        first = bisect_left(ordered, name)
        longer = [known for known in ordered[first : first + 2] if known.startswith(name)]  # two tell one from several
        if len(longer) != 1:
            if longer:
                ambiguous.add(name)
            renamed[name] = entry
            continue
        full = document.entries.get(longer[0])
        if full is not None and _position(full) > _position(entry):
            continue  # the flag is written in full later on, and argparse keeps the last value
        renamed[longer[0]] = entry
    document.entries = renamed
    return frozenset(ambiguous)


def vllm_top_p(coerced: dict) -> list[ValueProblem]:
    """top_p above 1 under vLLM: its SamplingParams rejects it at the first generation (0 < top_p <= 1). Without
    vLLM transformers' generate applies no top-p filter above 1 (a TRL 1.16.0 GRPOTrainer step with top_p=1.5 runs,
    transformers 5.23.0), and neither TRL nor ms-swift checks the value itself."""
    top_p = coerced.get("top_p")
    if isinstance(top_p, int | float) and not isinstance(top_p, bool) and top_p > 1 and coerced.get("use_vllm"):
        return [
            ValueProblem(
                "top_p",
                "generation",
                "is rejected by vLLM at the first generation (SamplingParams: top_p must be in (0, 1]); without vLLM "
                "it would mean no top-p filter",
                fix="top_p: 1.0",
            )
        ]
    return []
