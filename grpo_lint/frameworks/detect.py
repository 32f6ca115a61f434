"""Which framework a config belongs to, judged by its keys; None for files that are no GRPO config."""

from __future__ import annotations

import re
from functools import cache

from grpo_lint.diagnostics import Span
from grpo_lint.limits import MAX_NESTING, MAX_YAML_NODES
from grpo_lint.patterns import lazy
from grpo_lint.records import Record
from grpo_lint.sources.document import Document, Entry

# Keys that only make sense in a GRPO run (either framework).
GRPO_KEYS = frozenset({
    "num_generations", "num_generations_eval", "generation_batch_size", "steps_per_generation",
    "reward_funcs", "reward_weights", "use_vllm", "vllm_mode", "num_iterations", "epsilon_high",
    "scale_rewards", "loss_type", "importance_sampling_level", "vllm_server_host",
    "mask_truncated_completions", "top_entropy_quantile", "generation_kwargs",
})  # fmt: skip
# Arguments of ms-swift's Megatron trainer (`megatron rlhf`, also its Ray YAML), never of `swift rlhf`.
MEGATRON_KEYS = frozenset({"micro_batch_size", "global_batch_size", "train_iters", "use_ray"})
# Files of other tools that carry none of GRPO's keys.
ACCELERATE_KEYS = frozenset({"distributed_type", "compute_environment"})


class Detection(Record):
    framework: str | None
    reason: str


@cache
def _only_keys() -> tuple[frozenset[str], frozenset[str]]:
    from grpo_lint.frameworks.swift.fields import swift_names
    from grpo_lint.frameworks.trl.fields import trl_table

    trl = frozenset(trl_table().specs) | {"env"}
    swift = swift_names()
    return trl - swift, swift - trl


# Top-level sections of verl's Hydra config (ppo_trainer.yaml).
VERL_SECTIONS = frozenset({"actor_rollout_ref", "algorithm", "trainer", "data", "critic", "reward_model"})


def _squashed(key: str) -> str:
    return key.lower().replace("-", "_").replace("_", "").rstrip("s")


@cache
def _squashed_grpo_keys() -> dict[str, str]:
    return {_squashed(k): k for k in GRPO_KEYS}


def _near_grpo_key(keys: set[str]) -> str | None:
    """A key that misspells a GRPO key, in a file that otherwise holds training arguments (at least two
    keys TRL or ms-swift know), so that an unrelated YAML is never taken for a GRPO config."""
    import difflib

    from grpo_lint.frameworks.trl.fields import trl_table

    swift_only = _only_keys()[1]

    known = keys & (frozenset(trl_table().specs) | swift_only)
    if len(known) < 2:
        return None
    squashed = _squashed_grpo_keys()
    for key in sorted(keys - known):
        if _squashed(key) in squashed or difflib.get_close_matches(key.lower(), GRPO_KEYS, n=1, cutoff=0.88):
            return key
    return None


# GRPO keys other TRL trainers share (DPOConfig/SFTConfig/KTOConfig have loss_type; OnlineDPO, GKD and
# RLOO generate with vLLM too): alone they do not make a file a GRPO config.
_SHARED_KEYS = frozenset({"loss_type", "use_vllm", "generation_kwargs", "vllm_mode", "vllm_server_host"})
# The losses of TRL's other trainers (DPOConfig, SFTConfig, KTOConfig, CPOConfig; 0.x to 1.16), none a GRPO loss.
_OTHER_LOSSES = frozenset({
    "sigmoid", "hinge", "ipo", "exo_pair", "nca_pair", "robust", "bco_pair", "sppo_hard", "aot", "aot_pair",
    "aot_unpaired", "apo_zero", "apo_down", "discopop", "sft", "sigmoid_norm", "nll", "dft", "kto",
    "apo_zero_unpaired", "simpo", "alphapo",
})  # fmt: skip


def _other_trainers_loss(document: Document, evidence: set[str]) -> str | None:
    """Why a file whose only GRPO evidence is shared keys belongs to another trainer: its `loss_type`
    names another TRL trainer's loss (`sigmoid` is DPO's, `nll` SFT's), which no GRPO release has."""
    entry = document.entries.get("loss_type")
    if entry is None or not evidence <= _SHARED_KEYS:
        return None
    values = entry.value if isinstance(entry.value, list) else [entry.value]  # DPO combines several
    if not values or not all(isinstance(v, str) and v in _OTHER_LOSSES for v in values):
        return None
    return f"loss_type: {entry.value} is no GRPO loss (another TRL trainer's config)"


def _another_programs(keys: set[str]) -> str | None:
    """Why a file whose only GRPO evidence is keys other programs use too (`generation_kwargs` in an
    lm-evaluation-harness task, `use_vllm` in a serving config) is not a training config: most of its
    keys are arguments of neither TRL nor ms-swift."""
    evidence = keys & GRPO_KEYS
    if not evidence or not evidence <= _SHARED_KEYS:
        return None
    from grpo_lint.frameworks.trl.fields import trl_table

    known = keys & (frozenset(trl_table().specs) | _only_keys()[1])
    if len(known) * 2 > len(keys):
        return None
    shared = ", ".join(sorted(evidence))
    return f"only {shared} of GRPO's keys, among keys of another program ({len(keys) - len(known)} of {len(keys)})"


@cache
def _training_keys() -> frozenset[str]:
    """Keys of TRL's or ms-swift's arguments (two of them make a near miss of a GRPO key count, see _near_grpo_key)."""
    from grpo_lint.frameworks.trl.fields import trl_table

    return frozenset(trl_table().specs) | _only_keys()[1]


_STRONG_KEYS = GRPO_KEYS | VERL_SECTIONS | ACCELERATE_KEYS | MEGATRON_KEYS | {"rlhf_type"}
_WORD = lazy(r"[A-Za-z_][A-Za-z0-9_.-]*")
# Text that looks like a GRPO config even where it does not parse (an unreadable file is reported only then).
_GRPO_TEXT = ("grpo", "num_generations", "rlhf_type")
LOOKS_LIKE_GRPO = lazy("|".join(_GRPO_TEXT), re.IGNORECASE)


def may_be_detected(text: str) -> bool:
    """Whether `detect` could find a framework in this text, judged from its words before it is parsed: every key
    of a file is one of its words, so a text with no word of GRPO's keys, verl's sections, accelerate's or
    Megatron's keys or `rlhf_type`, and fewer than two words of TRL's or ms-swift's arguments, is a file `detect`
    skips for "no GRPO key" (a walk of a large repository finds thousands of other tools' configs)."""
    # LOOKS_LIKE_GRPO's test without a case-blind search through a large file: as written first (the usual case,
    # found at the speed of a substring search), then in lower case.
    if any(needle in text for needle in _GRPO_TEXT) or any(needle in text.lower() for needle in _GRPO_TEXT):
        return True
    found = set(_WORD.findall(text))
    if found & _STRONG_KEYS:
        return True
    return len(found & _training_keys()) >= 2


def found_json_skip(text: str) -> str | None:
    """Why a JSON file a walk found is no GRPO config, judged from json's decoder rather than the positioned
    parse (a hundred times slower on a repository's megabytes of results and traces): what `lint_config` would
    conclude for it, or None where only the positioned parse can tell (not JSON to json's decoder, nesting
    the parse refuses, a W&B record, an accelerate config, a framework found). A file of more values than the
    parse composes is judged by its top-level keys too, where the parse would refuse it as unreadable."""
    import json

    from grpo_lint.sources.document import WANDB_MARKERS
    from grpo_lint.sources.yaml_guards import DEEP_LINE

    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    refused = _refused(value) if isinstance(value, dict | list) else None
    # A dataset or a trace of more values than the parse composes (seconds for a few MB, then refused) is judged
    # by its top-level keys as a smaller file is: data whose words name GRPO (logged settings) is no config.
    if value is None or refused == "too deep" or DEEP_LINE.search(text):
        return None
    if not isinstance(value, dict):
        return "not a mapping"
    entries = {str(key): Entry(str(key), item, _NOWHERE, _NOWHERE) for key, item in value.items()}
    if any(marker in entries for marker in WANDB_MARKERS) or entries.keys() & ACCELERATE_KEYS:
        return None
    if not isinstance(value.get("rlhf_type", ""), str):
        # The note quotes this value, and YAML reads a JSON number its own way (`Infinity` and `1e5` are
        # strings to it, 100000.0 and inf to json): the positioned parse tells it as the file spells it.
        return None
    detection = detect(Document("", text, "json", entries))
    if detection.framework is not None:
        return None
    return detection.reason if refused is None else f"{detection.reason}, and more than {MAX_YAML_NODES:,} values"


_NOWHERE = Span.point(1, 1)


def _refused(value: object) -> str | None:
    """Why the parse's guards would refuse this decoded JSON, if they would: lists and objects nested more than
    MAX_NESTING levels ("too deep"), or more than MAX_YAML_NODES values in all, a key and its value being two
    ("too many values")."""
    level = [value]
    nodes = 1
    for _ in range(MAX_NESTING):
        below: list[object] = []
        for container in level:
            items = container.values() if isinstance(container, dict) else container  # type: ignore[attr-defined]
            nodes += 2 * len(items) if isinstance(container, dict) else len(items)
            below.extend(item for item in items if isinstance(item, dict | list))
        if nodes > MAX_YAML_NODES:
            return "too many values"
        if not below:
            return None
        level = below
    return "too deep"


def detect(document: Document) -> Detection:
    keys = set(document.entries)
    nested = {k for k in keys & VERL_SECTIONS if isinstance(document.entries[k].value, dict)}
    if "actor_rollout_ref" in nested or len(nested) >= 3:
        return Detection("verl", "verl config sections (actor_rollout_ref, algorithm, trainer, ...)")
    if keys & ACCELERATE_KEYS and not keys & GRPO_KEYS:
        return Detection(None, "an accelerate config")
    rlhf_type = document.entries.get("rlhf_type")
    if keys & MEGATRON_KEYS and "per_device_train_batch_size" not in keys and (rlhf_type or keys & GRPO_KEYS):
        return Detection(None, "a Megatron config (`megatron rlhf`), whose arguments grpo-lint does not check yet")
    if rlhf_type is not None:
        if str(rlhf_type.value).lower() == "grpo":
            return Detection("swift", "rlhf_type: grpo")
        return Detection(None, f"an ms-swift {rlhf_type.value} config, not GRPO")
    if not keys & GRPO_KEYS:
        near = _near_grpo_key(keys)
        if near is None:
            return Detection(None, "no GRPO key")
        # `num_generation: 4` among training arguments: a misspelt GRPO key is evidence of a GRPO config,
        # and the file then gets GRPO002 with the suggestion instead of being skipped.
        return Detection("trl", f"`{near}`, a near miss of a GRPO key, among training arguments")
    other = _other_trainers_loss(document, keys & GRPO_KEYS) or _another_programs(keys)
    if other is not None:
        return Detection(None, other)
    trl_only, swift_only = _only_keys()
    trl_score, swift_score = len(keys & trl_only), len(keys & swift_only)
    if swift_score > trl_score:
        return Detection("swift", "ms-swift argument names")
    if trl_score:
        return Detection("trl", "TRL argument names")
    return Detection("trl", "GRPO keys without framework-specific ones (taken as TRL)")
