"""verl's config keys by release: dotted paths of `ppo_trainer` / `ppo_megatron_trainer` with defaults.

Recorded by tools/verl_keys.py from each release's flattened reference config (0.4.0-0.9.1).
Interpolated defaults (`${oc.select:actor_rollout_ref.model.use_remove_padding,false}`) are
resolved against the run's own values by `resolve`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from packaging.version import Version

from grpo_lint.data import load
from grpo_lint.frameworks.fields import Choices, FieldSpec, FieldTable, Versioned
from grpo_lint.patterns import lazy

_KINDS = {
    "int": "int",
    "float": "float",
    "bool": "bool",
    "str": "str?",
    "list": "list?",
    "dict": "dict?",
    "null": "any",
    "interp": "any",
    "mandatory": "str",
}

_ESTIMATORS_04 = (
    "gae", "grpo", "reinforce_plus_plus", "reinforce_plus_plus_baseline", "remax", "rloo", "opo", "grpo_passk",
)  # fmt: skip
_ESTIMATORS_05 = (*_ESTIMATORS_04, "gpg")
_ESTIMATORS_06 = (*_ESTIMATORS_05, "rloo_vectorized", "grpo_vectorized")
_ESTIMATORS_071 = (*_ESTIMATORS_06, "optimal_token_baseline", "tir_optimal_token_baseline", "gdpo")
# Accepted values where verl checks them (reference verl-openrlhf-launchers.md section 1.2, V5 and V16).
_CHOICES: dict[str, tuple[Choices, ...]] = {
    # 0.7.0+: RolloutConfig rejects only "sync"; another mode gets a DeprecationWarning and runs async (V16).
    "actor_rollout_ref.rollout.mode": (
        Choices(
            "0.7.0",
            None,
            ("async",),
            warned=(
                (..., 'is not a rollout mode of verl >= 0.7.0, which warns ("Unknown rollout mode") and runs async'),
            ),
            rejected=("sync",),
        ),
        Choices(None, "0.7.0", ("sync", "async")),
    ),
    # Checked at start-up: 0.4-0.5 in RayPPOTrainer's config check (AssertionError "Invalid loss_agg_mode"),
    # 0.6+ in ActorConfig.__post_init__ (ValueError); "token-sum" accepted from 0.9.0 (checked in the wheels).
    "actor_rollout_ref.actor.loss_agg_mode": (
        Choices(None, "0.9.0", ("token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm")),
        Choices(
            "0.9.0",
            None,
            ("token-mean", "token-sum", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm"),
        ),
    ),
    # main_ppo's TaskRunner picks the actor's legacy workers by it before 0.8.0: "fsdp"/"fsdp2" or "megatron", anything
    # else `raise NotImplementedError` (checked in 0.4.0, 0.5.0, 0.6.1, 0.7.0 and 0.7.1; 0.7.x does not read it when
    # trainer.use_legacy_worker_impl is "disable": grpo_lint.checks.config_keys.invalid_choice). From 0.8.0 the model
    # engine workers run every backend (veomni, torchtitan too): not judged.
    "actor_rollout_ref.actor.strategy": (Choices(None, "0.8.0", ("fsdp", "fsdp2", "megatron"), entry_only=True),),
    # The advantage estimators a release registers (its AdvantageEstimator enum: 0.4.0 in ray_trainer.py, then
    # core_algos.py; checked in 0.4.0-0.7.0 and the 0.7.1, 0.8.0, 0.9.1 wheels). Another name stops the run: 0.4.x
    # `raise NotImplementedError` when the trainer is built, 0.5.0+ "Unknown advantage estimator simply: X" at the
    # first step. A name the repository registers itself (`@register_adv_est("x")`) is its own: not judged (lint.py).
    # The rollout engines a release builds (checked at every tag 0.4.0-0.9.0): 0.4-0.5 in the FSDP workers' own
    # `if rollout_name == ...` chain (`raise NotImplementedError(f"Rollout name: {name} is not supported")`), 0.6.0 on
    # in the rollout registry (verl/workers/rollout/base.py, `AssertionError: Rollout hf with mode async not found`),
    # which has no HF rollout; 0.7.1 added TensorRT-LLM. Both stop the workers when they build the model.
    "actor_rollout_ref.rollout.name": (
        Choices(None, "0.5.0", ("hf", "vllm", "sglang", "sglang_async"), entry_only=True),
        Choices("0.5.0", "0.6.0", ("hf", "vllm", "sglang"), entry_only=True),
        Choices("0.6.0", "0.7.1", ("vllm", "sglang"), entry_only=True),
        Choices("0.7.1", None, ("vllm", "sglang", "trtllm"), entry_only=True),
    ),
    "algorithm.adv_estimator": (
        Choices(None, "0.5.0", _ESTIMATORS_04, entry_only=True),
        Choices("0.5.0", "0.6.0", _ESTIMATORS_05, entry_only=True),
        Choices("0.6.0", "0.7.1", _ESTIMATORS_06, entry_only=True),
        Choices("0.7.1", None, _ESTIMATORS_071, entry_only=True),
    ),
}
# Ranges of the values the batch checks divide by.
_POSITIVE = (
    "data.train_batch_size", "actor_rollout_ref.rollout.n", "actor_rollout_ref.actor.ppo_mini_batch_size",
    "trainer.n_gpus_per_node", "trainer.nnodes", "actor_rollout_ref.rollout.tensor_model_parallel_size",
    "actor_rollout_ref.rollout.data_parallel_size", "actor_rollout_ref.rollout.pipeline_model_parallel_size",
    "actor_rollout_ref.actor.ulysses_sequence_parallel_size", "actor_rollout_ref.actor.ppo_epochs",
    "actor_rollout_ref.actor.megatron.tensor_model_parallel_size",
    "actor_rollout_ref.actor.megatron.pipeline_model_parallel_size",
    "actor_rollout_ref.actor.megatron.context_parallel_size",
)  # fmt: skip
# Integer keys that count something (a fraction there breaks verl); other integer defaults such as
# val_kwargs.temperature 0 take any number.
_COUNT = lazy(r"^n$|^n_|size|steps|epochs|nnodes|seed|num|len|length|freq|_k$|rank|workers|tokens|limit")
# Counts whose default is null: a whole number when set.
_OPTIONAL_COUNTS = (
    "actor_rollout_ref.actor.ppo_micro_batch_size", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
    "actor_rollout_ref.rollout.log_prob_micro_batch_size",
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
    "actor_rollout_ref.ref.log_prob_micro_batch_size", "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu",
    "data.gen_batch_size", "data.seed",
)  # fmt: skip


# The group options the reference trainer configs select in their `defaults` lists (`data@data: legacy_data`), by
# release, read from ppo_trainer.yaml / ppo_megatron_trainer.yaml of the tags 0.5.0-0.7.0 and the 0.7.1, 0.8.0 and
# 0.9.1 wheels (0.4.x has no defaults list): (group, package, option for fsdp, option for megatron, since, until).
# `${model_engine}_actor` (0.7.1+) is `dp_actor` for fsdp and `megatron_actor` for megatron.
_SELECTS: tuple[tuple[str, str, str, str, str, str | None], ...] = (
    ("actor", "actor_rollout_ref.actor", "dp_actor", "megatron_actor", "0.5.0", None),
    ("data", "data", "legacy_data", "legacy_data", "0.5.0", None),
    ("ref", "actor_rollout_ref.ref", "dp_ref", "megatron_ref", "0.5.0", None),
    ("rollout", "actor_rollout_ref.rollout", "rollout", "rollout", "0.5.0", None),
    ("critic", "critic", "dp_critic", "megatron_critic", "0.5.0", None),
    ("reward_model", "reward_model", "dp_reward_model", "megatron_reward_model", "0.5.0", "0.7.0"),
    ("reward_model", "reward_model", "dp_reward_loop", "megatron_reward_loop", "0.7.0", "0.7.1"),
    ("model", "actor_rollout_ref.model", "hf_model", "hf_model", "0.6.0", None),
    ("algorithm", "algorithm.rollout_correction", "rollout_correction", "rollout_correction", "0.6.1", None),
    ("reward", "reward", "reward", "reward", "0.7.1", None),
    ("model", "critic.model", "hf_model", "hf_model", "0.8.0", None),
    ("distillation", "distillation", "distillation", "distillation", "0.8.0", None),
)  # fmt: skip


def reference_selects(flavour: str, version: Version) -> tuple[tuple[str, str, str], ...]:
    """(group, package, option) of each group option the release's reference trainer config selects."""
    return tuple(
        (group, package, fsdp if flavour == "fsdp" else megatron)
        for group, package, fsdp, megatron, since, until in _SELECTS
        if Version(since) <= version and (until is None or version < Version(until))
    )


@cache
def verl_table(flavour: str) -> FieldTable:
    """Every key verl's `ppo_trainer` (flavour "fsdp") or `ppo_megatron_trainer` ("megatron") ever had."""
    raw = load("verl_keys")[flavour]
    specs: dict[str, FieldSpec] = {}
    for path, (kind, default, since, removed) in raw.items():
        if _is_history(default):
            default = Versioned(tuple((c[0], c[1]) for c in default))
        specs[path] = _spec(path, kind, default, since, removed)
    return FieldTable("verl", specs)


_FORK_TABLES: dict[int, tuple[Mapping[str, Any], FieldTable]] = {}


def fork_table(schema: Mapping[str, Any]) -> FieldTable:
    """The keys of a copy of verl inside the repository, from its own flattened reference config.

    The copy's accepted values are its own, so no choices are enforced; built once per schema."""
    cached = _FORK_TABLES.get(id(schema))
    if cached is None or cached[0] is not schema:
        specs = {path: _spec(path, _kind_of(default), default)._replace(choices=()) for path, default in schema.items()}
        cached = _FORK_TABLES[id(schema)] = (schema, FieldTable("verl", specs))
    return cached[1]


def _kind_of(default: Any) -> str:
    """What tools/verl_keys.py records as a key's kind, from its default value."""
    if isinstance(default, str) and default.startswith("${"):
        return "interp"
    if default is None:
        return "null"
    for kind, types in (("bool", bool), ("int", int), ("float", float), ("str", str), ("list", list), ("dict", dict)):
        if isinstance(default, types):
            return kind
    return "any"


def _spec(path: str, kind: str, default: Any, since: str | None = None, removed: str | None = None) -> FieldSpec:
    extra: dict[str, Any] = {}
    field_kind = _KINDS.get(kind, "any")
    if field_kind == "str?" and path.startswith("data."):
        field_kind = "list|str?"  # `data` is a plain mapping: verl reads a file list as well as one file
    if field_kind == "int" and not _COUNT.search(path.rpartition(".")[2]):
        field_kind = "float"  # Hydra keeps whatever number is given; only counts must be whole
    if path in _POSITIVE:
        extra["ge"] = 1
    elif path in _OPTIONAL_COUNTS:
        field_kind = "int?"
    if path in _CHOICES:
        extra["choices"] = _CHOICES[path]
    return FieldSpec(path, field_kind, default, since=since, removed=removed, **extra)


def _is_history(default: Any) -> bool:
    """tools/verl_keys.py writes a changed default as [[release, value], ...]."""
    return (
        isinstance(default, list)
        and bool(default)
        and all(isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and c[0][:1].isdigit() for c in default)
    )


_INTERPOLATION = lazy(r"^\$\{(?:oc\.select:)?([^,}]+)(?:,([^}]*))?\}$")


def resolve(path: str, value: Any, lookup: Callable[[str], Any], depth: int = 0) -> Any:
    """An interpolated default (`${a.b}`, `${oc.select:a.b,default}`, `${.sibling}`) as its value."""
    if not isinstance(value, str) or not value.startswith("${") or depth > 8:
        return value
    match = _INTERPOLATION.match(value)
    if match is None:
        return None
    target, fallback = match.group(1).strip(), match.group(2)
    if target.startswith("."):
        dots = len(target) - len(target.lstrip("."))
        parent = path.split(".")[:-dots]
        target = ".".join([*parent, target.lstrip(".")])
    found = lookup(target)
    if found is None and fallback is not None:
        from grpo_lint.sources.hydra_overrides import parse_value

        return parse_value(fallback)
    return resolve(target, found, lookup, depth + 1)
