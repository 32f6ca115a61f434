"""The flags of OpenRLHF's `openrlhf.cli.train_ppo_ray` by release (0.8.0-0.11.2).

Recorded by tools/openrlhf_flags.py. Up to 0.10.1 the flags are flat (`--n_samples_per_prompt`);
from 0.10.2 they are dotted (`--rollout.n_samples_per_prompt`) and the flat names are gone
(reference verl-openrlhf-launchers.md section 2.1).
"""

from __future__ import annotations

from functools import cache

from grpo_lint.data import load
from grpo_lint.frameworks.fields import Choices, FieldSpec, FieldTable

DOTTED_SINCE = "0.10.2"
_KINDS = {"int": "int?", "float": "float?", "str": "str?", "switch": "bool"}
_POSITIVE = frozenset({
    "n_samples_per_prompt", "rollout.n_samples_per_prompt", "rollout_batch_size", "rollout.batch_size",
    "micro_rollout_batch_size", "rollout.micro_batch_size", "train_batch_size", "train.batch_size",
    "micro_train_batch_size", "train.micro_batch_size", "actor_num_nodes", "actor.num_nodes",
    "actor_num_gpus_per_node", "actor.num_gpus_per_node", "ref_num_nodes", "ref.num_nodes",
    "ref_num_gpus_per_node", "ref.num_gpus_per_node", "reward_num_nodes", "reward.num_nodes",
    "reward_num_gpus_per_node", "reward.num_gpus_per_node", "vllm_tensor_parallel_size",
    "vllm.tensor_parallel_size", "ring_attn_size", "ds.ring_attn_size", "ds_tensor_parallel_size",
    "ds.tensor_parallel_size",
})  # fmt: skip


@cache
def openrlhf_table() -> FieldTable:
    raw = load("openrlhf_flags")["flags"]
    specs: dict[str, FieldSpec] = {}
    for flag, (kind, default, since, removed, choices, replacement) in raw.items():
        name = flag[2:]
        field_kind = "list" if kind.startswith("list") else _KINDS.get(kind, "any")
        extra: dict = {}
        if name in _POSITIVE:
            extra["ge"] = 1
        if choices:
            extra["choices"] = (Choices(since, removed, tuple(choices)),)
        specs[name] = FieldSpec(
            name,
            field_kind,
            default,
            since=since,
            removed=removed,
            replacement=replacement[2:] if replacement else None,
            **extra,
        )
    return FieldTable("openrlhf", specs)
