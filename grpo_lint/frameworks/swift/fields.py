"""ms-swift's RLHF arguments by version.

Names, kinds and defaults come from the 4.6.0 release (tools/dump_fields.py); life cycles, default
changes, accepted values and renames from ../shared/reference/ms-swift.md §2 and §5.8.
"""

from __future__ import annotations

from functools import cache

from grpo_lint.data import load
from grpo_lint.frameworks.fields import Choices, FieldSpec, FieldTable, Versioned, table_from_kinds

_LOSS = ("grpo", "bnpo", "dr_grpo")
REWARDS = ("accuracy", "format", "cosine", "repetition", "react_format", "toolbench", "math", "soft_overlong")
_LOSS_311 = (*_LOSS, "dapo", "cispo", "sapo")

_OVERRIDES: dict[str, dict] = {
    "num_generations": {"since": "3.1.1"},
    "num_generations_eval": {"since": "3.12.0", "ge": 1},
    "per_device_train_batch_size": {"ge": 1},
    "per_device_eval_batch_size": {"ge": 1},
    "gradient_accumulation_steps": {"ge": 1},
    "generation_batch_size": {"since": "3.5.0", "ge": 1},
    "steps_per_generation": {"since": "3.5.0", "ge": 1},
    "temperature": {"default": 0.9},
    # ms-swift itself never checks top_p (no check in swift/ at v3.5.3, v3.10.2, v4.2.0): above 1 only vLLM rejects
    # it (frontend._vllm_problems); transformers' generate then applies no top-p filter.
    "top_p": {
        "default": Versioned((("3.1.1", None), ("3.2.0", 0.9), ("4.1.0", 1.0))),
        "ge": 0,
    },
    "top_k": {"default": Versioned((("3.1.1", None), ("3.2.0", 50), ("4.1.0", -1))), "ge": -1},
    "min_p": {"since": "4.5.0", "ge": 0, "le": 1},
    "repetition_penalty": {"gt": 0},
    "vllm_mode": {
        "since": "3.5.0",
        "choices": (Choices("3.5.0", None, ("server", "colocate")),),
    },
    "vllm_server_base_url": {"since": "3.5.0"},
    "vllm_server_timeout": {"since": "3.4.0"},
    "async_generate": {"since": "3.2.0"},
    "num_iterations": {"since": "3.2.0", "ge": 1},
    "epsilon": {"since": "3.2.0", "ge": 0},
    "epsilon_high": {"since": "3.3.0", "ge": 0},
    "delta": {"since": "3.5.0"},
    "beta": {"ge": 0},
    "loss_type": {
        "choices": (
            Choices("3.4.0", "3.11.0", _LOSS),
            Choices("3.11.0", "4.1.0", _LOSS_311),
            Choices("4.1.0", "4.3.0", (*_LOSS_311, "real")),
            Choices("4.3.0", None, (*_LOSS_311, "real", "fipo")),
        )
    },
    "scale_rewards": {
        "kind": "bool|str?",
        "choices": (
            Choices("3.3.0", "3.10.0", (True, False)),
            Choices("3.10.0", "4.0.0", ("group", "batch", "none")),
            Choices("4.0.0", None, ("group", "batch", "none", "gdpo")),
        ),
    },
    "advantage_estimator": {
        "since": "3.10.0",
        "choices": (Choices("3.10.0", None, ("grpo", "rloo", "reinforce_plus_plus")),),
    },
    "kl_in_reward": {"since": "3.10.0"},
    # The reward functions ms-swift has built in (`orms` in swift/plugin/orm.py, swift/rewards/orm.py from 4.0; read
    # at every tag from v3.0.3 to v4.5.2): another name stops GRPOTrainer after the model has loaded, unless a plugin
    # registers it (grpo_lint.lint._rewards_registered: the names the repository's Python may register).
    "reward_funcs": {
        "choices": (
            Choices("3.1.1", "3.3.0", REWARDS[:7], extensible=True),
            Choices("3.3.0", None, REWARDS, extensible=True),
        )
    },
    "importance_sampling_level": {
        "since": "3.7.0",
        "choices": (
            Choices("3.7.0", "3.8.0", ("token", "sequence")),
            Choices("3.8.0", None, ("token", "sequence", "sequence_token")),
        ),
    },
    "truncation_strategy": {
        "choices": (
            Choices("3.3.0", "3.7.0", ("left",)),
            Choices("3.7.0", None, ("left", "delete")),
        )
    },
    "split_dataset_ratio": {
        "default": Versioned((("3.1.1", 0.01), ("3.6.0", 0.0))),
        "ge": 0,
        "le": 1,
    },
    "sleep_level": {"since": "3.3.0", "ge": 0, "le": 2},
    "vllm_gpu_memory_utilization": {"gt": 0, "le": 1},
    "vllm_tensor_parallel_size": {"since": "3.5.0", "ge": 1},
    "vllm_data_parallel_size": {"ge": 1},
    "top_entropy_quantile": {"since": "3.7.0", "ge": 0, "le": 1},
    "sync_ref_model": {"since": "3.5.0"},
    "tuner_type": {"since": "4.0.0"},
    "teacher_model": {"since": "4.4.0"},
    "teacher_model_server": {"since": "4.4.0"},
    "seed": {"ge": 0},
    "learning_rate": {"ge": 0},
}

# Removed or renamed arguments (reference §2 and §5.8). removed = first release that rejects it.
_REMOVED = (
    FieldSpec("train_type", "str", since="3.1.1", removed="4.1.0", replacement="tuner_type"),
    FieldSpec("tensor_parallel_size", "int", removed="3.10.0", replacement="vllm_tensor_parallel_size"),
    FieldSpec("gpu_memory_utilization", "float", removed="3.10.0", replacement="vllm_gpu_memory_utilization"),
    FieldSpec("data_parallel_size", "int", removed="3.10.0", replacement="vllm_data_parallel_size"),
    FieldSpec("limit_mm_per_prompt", "any", removed="3.10.0", replacement="vllm_limit_mm_per_prompt"),
    FieldSpec("use_async_engine", "bool", removed="3.10.0", replacement="vllm_use_async_engine"),
    FieldSpec("gc_collect_after_offload", "bool", since="3.3.0", removed="3.10.0"),
    FieldSpec(
        "multi_turn_func", "str?", since="3.3.0", removed="3.10.0", replacement="multi_turn_scheduler",
        note="multi_turn_scheduler names a scheduler class (`multi_turns` in swift/plugin/multi_turn.py, 3.9.0), "
        "not the old function",
    ),
    FieldSpec("num_infer_workers", "int", since="3.2.0", removed="3.6.0", replacement="vllm_mode"),
    # CompatArguments of 3.x (swift/llm/argument/base_args/base_args.py, 3.1-3.12): gone with the 4.0 rewrite
    FieldSpec("ckpt_dir", "str?", removed="4.0.0", note="use `--model` (a full checkpoint) or `--adapters` (LoRA)"),
    FieldSpec("lora_modules", "list", removed="4.0.0", replacement="adapters"),
    FieldSpec("vllm_device", "any", removed="3.6.0", replacement="vllm_mode"),
    FieldSpec("use_lmdeploy", "bool", removed="3.5.0", note="use `use_vllm: true` or the PT engine"),
    FieldSpec("lmdeploy_device", "any", removed="3.5.0"),
    FieldSpec(
        "max_prompt_length", "int", removed="3.1.1",
        note="ms-swift never had it: `max_length` limits the prompt in GRPO",
    ),
)  # fmt: skip

# Keys that are not arguments but that swift's config files and args.json may contain.
CONFIG_FILE_KEYS = ("ENV",)
ARGS_JSON_KEYS = (
    "rank", "local_rank", "global_world_size", "local_world_size", "swift_version", "model_info",
    "model_meta", "training_args", "vllm_client", "model_dir", "model_suffix", "is_multimodal",
    "ckpt_dir", "output_dir", "logging_dir", "hub", "evaluation_strategy", "torch_dtype",
)  # fmt: skip


@cache
def swift_names() -> frozenset[str]:
    """The argument names `swift_table()` holds, read without building a spec for each: telling a TRL
    config from an ms-swift one needs only the names, and a TRL lint then never builds ms-swift's table."""
    trainer = load("training_arguments")
    history = (name for name in load("swift_history") if name not in trainer)
    return frozenset(load("swift_arguments")).union(CONFIG_FILE_KEYS, (spec.name for spec in _REMOVED), history)


@cache
def swift_table() -> FieldTable:
    specs = table_from_kinds(load("swift_arguments"))
    specs["ENV"] = FieldSpec("ENV", "dict", since="4.1.0")
    for name, changes in _OVERRIDES.items():
        if name in specs:
            specs[name] = specs[name]._replace(**changes)
    for removed in _REMOVED:
        specs[removed.name] = removed
    # When each argument of `swift rlhf` came and went, read from every release's sources by
    # tools/swift_history.py; the checked entries above stand where they say more.
    trainer = load("training_arguments")  # transformers' fields stay whatever ms-swift redeclares
    for name, (since, removed) in load("swift_history").items():
        spec = specs.get(name)
        if name in trainer:
            continue
        if spec is None:
            specs[name] = FieldSpec(name, "any", since=since, removed=removed)
        elif spec.since is None and spec.removed is None:
            specs[name] = spec._replace(since=since, removed=removed)
    return FieldTable("swift", specs)
