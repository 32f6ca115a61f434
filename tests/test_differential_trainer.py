"""grpo-lint against one real GRPOTrainer step of TRL 1.16.0: the values GRPOConfig accepts but training
rejects (or silently spoils) at the first generation.

The model is a 2-layer Qwen2 built from a config and the tokenizer a word-level one built in memory, both
saved to a temporary folder: nothing is downloaded. Each case trains one step on CPU (about 0.3 s).
"""

from __future__ import annotations

import warnings

import pytest

from .conftest import agrees_with_a_step

trl = pytest.importorskip("trl", reason="the differential test needs TRL (extra 'differential')")
pytestmark = pytest.mark.differential

TRL_VERSION = "1.16.0"
BASE = {"per_device_train_batch_size": 4, "num_generations": 4, "max_completion_length": 4}

# (extra GRPOConfig values, what the step does, what grpo-lint must say)
#   "raises": the step stops; grpo-lint must report an error.
#   "trains": the step runs normally; grpo-lint must report no error.
#   "same": the step runs but every group is identical (frac_reward_zero_std 1); grpo-lint must report an error.
#   "silent": the step runs with a value that silently changes training; grpo-lint must report an error.
CASES = [
    ({}, "trains"),
    ({"top_k": -1}, "raises"),
    ({"top_k": None}, "trains"),
    ({"top_k": 0}, "trains"),
    ({"top_p": 1.5}, "trains"),
    ({"top_p": 0.9, "top_k": 20}, "trains"),
    ({"temperature": 0.0}, "raises"),
    ({"temperature": 0.7}, "trains"),
    ({"min_p": 1.5}, "raises"),
    ({"repetition_penalty": 0.0}, "raises"),
    ({"top_k": 1}, "same"),
    ({"beta": -0.1}, "silent"),
    ({"epsilon": -0.2}, "silent"),
]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory):
    from .tiny_model import save_tiny_model

    folder = tmp_path_factory.mktemp("tiny-qwen2")
    return folder, save_tiny_model(folder)


def train_one_step(folder, tokenizer, extra: dict) -> tuple[str, dict]:
    """("raised", {}) or ("trained", the logged metrics of the step)."""
    from datasets import Dataset
    from transformers import TrainerCallback

    logged: dict = {}

    class Keep(TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):
            logged.update(logs or {})

    def length_reward(completions, **kwargs):
        return [float(len(c)) for c in completions]

    prompts = Dataset.from_dict({"prompt": ["w1 w2 w3", "w4 w5", "w6 w7 w8", "w9"] * 2})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = trl.GRPOConfig(
            output_dir=str(folder / "out"), use_cpu=True, bf16=False, report_to="none", max_steps=1,
            logging_steps=1, save_strategy="no", disable_tqdm=True, seed=0, **BASE, **extra,
        )  # fmt: skip
        try:
            trainer = trl.GRPOTrainer(
                model=str(folder),
                reward_funcs=length_reward,
                args=args,
                train_dataset=prompts,
                processing_class=tokenizer,
                callbacks=[Keep()],
            )
            trainer.train()
        except (ValueError, RuntimeError, ZeroDivisionError):
            return "raised", {}
    return "trained", logged


def test_trl_version_is_the_one_compared():
    assert trl.__version__ == TRL_VERSION


@pytest.mark.parametrize(("extra", "kind"), CASES, ids=[str(c[0]) for c in CASES])
def test_grpo_lint_agrees_with_one_training_step(tiny_model, extra, kind):
    folder, tokenizer = tiny_model
    outcome, logged = train_one_step(folder, tokenizer, extra)
    if kind == "same":  # the silent sameness grpo-lint exists for, seen in TRL's own metrics
        assert outcome == "trained" and float(logged["frac_reward_zero_std"]) == 1.0
    agrees_with_a_step(BASE, extra, kind, outcome == "raised", f"trl=={TRL_VERSION}", outcome)
