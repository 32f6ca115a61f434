"""TRL's arguments by version: GRPOConfig, TrainingArguments, ModelConfig, script and launch keys.

Field life cycles come from TRL's tagged releases (tools/field_history.py), kinds and defaults from
the 1.16.0 release, default changes and accepted values from ../shared/reference/trl.md §2.
"""

from __future__ import annotations

from functools import cache

from grpo_lint.data import load
from grpo_lint.frameworks.fields import Choices, FieldSpec, FieldTable, Versioned, table_from_kinds

# Keys of `accelerate launch` that `trl grpo` forwards from the YAML (0.29+).
ACCELERATE_KEYS = (
    "accelerate_config", "config_file", "num_processes", "num_machines", "machine_rank",
    "main_process_ip", "main_process_port", "mixed_precision", "multi_gpu", "use_deepspeed",
    "use_fsdp", "gpu_ids", "same_network", "rdzv_backend", "dynamo_backend", "num_cpu_threads_per_process",
    "deepspeed_config_file", "zero_stage", "offload_optimizer_device", "offload_param_device",
    "gradient_clipping", "fsdp_version", "main_training_function", "debug_launch", "tpu",
)  # fmt: skip

# The arguments `GRPOTrainer.__init__` has taken in any release, 0.14.0 (the first with GRPO) to 1.16.0: read with
# `ast` from trl/trainer/grpo_trainer.py at every tag 0.14.0-1.9.0 and from the installed 1.16.0's signature. No release
# takes `**kwargs`, so any other keyword (`tokenizer=`, renamed `processing_class` before GRPO existed; `ref_model=`,
# which GRPOTrainer builds itself) stops the script with a TypeError.
GRPO_TRAINER_ARGUMENTS = frozenset({
    "model", "reward_funcs", "args", "train_dataset", "eval_dataset", "processing_class", "reward_processing_classes",
    "callbacks", "optimizers", "peft_config", "tools", "rollout_func", "environment_factory", "quantization_config",
})  # fmt: skip

LOSS_TYPES = (
    Choices("0.17.0", "0.22.0", ("grpo", "bnpo", "dr_grpo")),
    Choices("0.22.0", "0.26.0", ("grpo", "bnpo", "dr_grpo", "dapo")),
    Choices("0.26.0", "0.28.0", ("grpo", "bnpo", "dr_grpo", "dapo", "cispo", "sapo")),
    Choices("0.28.0", "1.0.0", ("grpo", "bnpo", "dr_grpo", "dapo", "cispo", "sapo", "luspo")),
    Choices("1.0.0", None, ("grpo", "bnpo", "dr_grpo", "dapo", "cispo", "sapo", "luspo", "vespo")),
)

# Overrides on top of the generated tables: default histories, ranges, accepted values, renames.
_OVERRIDES: dict[str, dict] = {
    "per_device_train_batch_size": {"default": Versioned((("0.14.0", 1), ("0.15.0", 8))), "ge": 1},
    "gradient_accumulation_steps": {"default": Versioned((("0.14.0", 8), ("0.15.0", 1))), "ge": 1},
    "per_device_eval_batch_size": {"ge": 1},
    "generation_batch_size": {"ge": 1},
    "steps_per_generation": {"ge": 1},
    "num_generations_eval": {"ge": 0},
    "num_iterations": {"ge": 1},
    "max_completion_length": {
        "default": Versioned((("0.14.0", 256), ("1.10.0", 512))),
        "ge": 1,
    },
    "temperature": {"default": Versioned((("0.14.0", 0.9), ("0.18.0", 1.0)))},
    # Above 1 only vLLM rejects it (frontend._generation_problems); transformers then applies no top-p filter.
    "top_p": {"ge": 0},
    # Optional[int] up to 0.29, `int = 0` after; TrlParser never type-checks a YAML value, and with null
    # neither transformers (no top-k warper) nor TRL's vLLM path filters: null is accepted everywhere.
    "top_k": {"kind": "int?", "default": Versioned((("0.16.0", 50), ("0.18.0", None), ("0.27.0", 0))), "ge": -1},
    "min_p": {"ge": 0, "le": 1},
    # `Optional[str]` in TrainingArguments, but a YAML `true` reaches it as a bool (TrlParser does not type-check a
    # config file's values), and Trainer.train(resume_from_checkpoint=True) takes the last checkpoint of output_dir.
    "resume_from_checkpoint": {"kind": "bool|str"},
    "repetition_penalty": {"gt": 0},
    "top_entropy_quantile": {"ge": 0, "le": 1},
    "vllm_gpu_memory_utilization": {
        "default": Versioned((("0.14.0", 0.9), ("0.16.0", None), ("0.18.0", 0.3))),
        "gt": 0,
        "le": 1,
    },
    "vllm_tensor_parallel_size": {"ge": 1},
    "vllm_mode": {
        "default": Versioned((("0.18.0", "server"), ("1.0.0", "colocate"))),
        "choices": (Choices("0.18.0", None, ("server", "colocate")),),
    },
    "beta": {"default": Versioned((("0.14.0", 0.04), ("0.19.0", 0.0))), "ge": 0},
    "epsilon": {"ge": 0},
    "epsilon_high": {"ge": 0},
    "ref_model_mixup_alpha": {"ge": 0, "le": 1},
    "ref_model_sync_steps": {"ge": 1},
    "loss_type": {"default": Versioned((("0.17.0", "bnpo"), ("0.22.0", "dapo"))), "choices": LOSS_TYPES},
    "scale_rewards": {
        "kind": "bool|str",
        "default": Versioned((("0.16.0", True), ("0.22.0", "group"))),
        "choices": (
            Choices("0.16.0", "0.22.0", (True, False)),
            Choices("0.22.0", None, ("group", "batch", "none", True, False)),
        ),
    },
    "importance_sampling_level": {
        "choices": (
            Choices(
                "0.20.0",
                None,
                ("token", "sequence"),
                warned=(
                    (
                        "sequence_token",
                        "is GSPO-token, which only the experimental trainer (`from trl.experimental.gspo_token "
                        "import GRPOTrainer`) accepts; TRL's GRPOTrainer stops at the first step: \"Unknown "
                        "importance sampling level: sequence_token\"",
                    ),
                ),
            ),
        )
    },
    "multi_objective_aggregation": {
        "choices": (Choices("0.27.0", None, ("sum_then_normalize", "normalize_then_sum")),)
    },
    "vllm_importance_sampling_mode": {
        "choices": (
            Choices(
                "0.26.0", None, ("token_truncate", "token_mask", "sequence_truncate", "sequence_mask")
            ),
        )
    },
    "dtype": {"choices": (Choices(None, None, ("auto", "bfloat16", "float16", "float32")),)},
    # TrainingArguments: only the bounds something enforces at start-up (transformers 4.52.3 and 5.x): warmup_ratio in
    # `__post_init__` ("warmup_ratio must lie in range [0,1]"), learning_rate and weight_decay in torch's AdamW
    # ("Invalid learning rate"), seed in numpy's `np.random.seed` (0 to 2**32 - 1; Trainer.__init__ calls set_seed).
    # Nothing checks num_train_epochs (max_steps > 0 overrides it), max_steps (any value <= 0 means "use the
    # epochs"), max_grad_norm (<= 0: no clipping) or data_seed (a torch generator's seed, which takes negatives).
    "learning_rate": {"ge": 0},
    "seed": {"ge": 0},
    "warmup_ratio": {"ge": 0, "le": 1},
    "weight_decay": {"ge": 0},
    # Removed or renamed (reference §2.2).
    "vllm_device": {"note": "vLLM runs colocated (`vllm_mode: colocate`) or in `trl vllm-serve` (`vllm_mode: server`)"},
    "vllm_dtype": {"note": "set the dtype on `trl vllm-serve` in server mode"},
    "vllm_max_model_len": {"replacement": "vllm_max_model_length"},
    "vllm_enable_prefix_caching": {"note": "set it on `trl vllm-serve`"},
    "vllm_guided_decoding_regex": {"replacement": "vllm_structured_outputs_regex"},
    # 0.26.0: deprecated (a FutureWarning in GRPOConfig.__post_init__) and no longer read by GRPOTrainer,
    # which stopped truncating prompts (checked in the 0.25.1 and 0.26.0 wheels); removed in 0.28.0.
    "max_prompt_length": {
        "note": "GRPO no longer truncates prompts: filter long prompts out of the dataset",
        "unused": "0.26.0",
    },
    "use_liger_loss": {"replacement": "use_liger_kernel"},
    "wandb_log_unique_prompts": {"replacement": "log_unique_prompts"},
    "torch_dtype": {"replacement": "dtype"},
}  # fmt: skip

_EXTRA = (
    # Written to os.environ by TrlParser before the dataclasses are parsed.
    FieldSpec("env", "dict"),
    # DatasetMixtureConfig (0.22+).
    FieldSpec("datasets", "list", since="0.22.0"),
    FieldSpec("streaming", "bool", False, since="0.22.0"),
    FieldSpec("test_split_size", "float?", since="0.22.0", ge=0),
)


@cache
def grpo_config_fields() -> frozenset[str]:
    """What `GRPOConfig(...)` itself takes, in some release: its own fields (trl/trainer/grpo_config.py, from each
    tagged release by tools/field_history.py) and TrainingArguments'. ModelConfig's (`use_peft`, `lora_r`), the grpo
    script's (`dataset_name`, `reward_funcs`) and the launch keys are TrlParser's, never the constructor's."""
    return frozenset(load("trl_grpo_config")) | frozenset(load("training_arguments"))


@cache
def trl_table() -> FieldTable:
    specs = table_from_kinds(load("training_arguments"))
    for name, (kind, default, since, removed) in load("trl_fields").items():
        specs[name] = FieldSpec(name, kind, default, since=since, removed=removed)
    for spec in _EXTRA:
        specs[spec.name] = spec
    for name in ACCELERATE_KEYS:  # read from the YAML only by `trl grpo` 0.29+ (see frontend.CLI_FORWARDS)
        specs[name] = FieldSpec(name, "int" if name.startswith("num_") else "any", since="0.29.0")
    specs["num_processes"] = specs["num_processes"]._replace(ge=1)
    specs["num_machines"] = specs["num_machines"]._replace(ge=1)
    for name, changes in _OVERRIDES.items():
        if name in specs:
            specs[name] = specs[name]._replace(**changes)
    return FieldTable("trl", specs)
