"""GRPOLintCallback inside a real GRPOTrainer (TRL 1.16.0, a 2-layer Qwen2 built from a config, on CPU)."""

from __future__ import annotations

import logging
import warnings

import pytest

trl = pytest.importorskip("trl", reason="needs TRL (extra 'differential')")
pytestmark = pytest.mark.differential

from grpo_lint import ConfigError  # noqa: E402
from grpo_lint.integrations.trl import GroupCollapse, GRPOLintCallback  # noqa: E402

from .test_differential_trainer import tiny_model  # noqa: E402, F401  (the fixture)


def trainer(folder, tokenizer, reward, callback, **extra):
    from datasets import Dataset

    prompts = Dataset.from_dict({"prompt": ["w1 w2 w3", "w4 w5", "w6 w7 w8", "w9"] * 4})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = trl.GRPOConfig(
            output_dir=str(folder / "out"), use_cpu=True, bf16=False, report_to="none", max_steps=4,
            logging_steps=1, save_strategy="no", disable_tqdm=True, seed=0, per_device_train_batch_size=4,
            num_generations=4, max_completion_length=4, **extra,
        )  # fmt: skip
        built = trl.GRPOTrainer(
            model=str(folder), reward_funcs=reward, args=args, train_dataset=prompts, processing_class=tokenizer
        )
    built.add_callback(callback)
    return built


def varied(completions, **kwargs):
    return [float(len(c)) for c in completions]


def constant(completions, **kwargs):
    return [1.0 for _ in completions]


def test_an_error_stops_training_before_the_first_generation(tiny_model):  # noqa: F811
    folder, tokenizer = tiny_model
    guard = GRPOLintCallback()
    run = trainer(folder, tokenizer, varied, guard, top_k=-1)
    with pytest.raises(ConfigError, match="GRPO003"):
        run.train()
    assert run.state.global_step == 0 and guard.report is not None


def test_collapsed_groups_stop_the_run_with_the_static_causes(tiny_model, caplog):  # noqa: F811
    # A constant reward: no static rule can know it, every group's reward std is 0 at run time.
    folder, tokenizer = tiny_model
    guard = GRPOLintCallback(patience=2)
    run = trainer(folder, tokenizer, constant, guard)
    with caplog.at_level(logging.ERROR, logger="grpo_lint"):
        run.train()
    assert guard.collapsed and run.state.global_step == 2  # stopped after two collapsed steps, not four
    assert "identical rewards for 2 logging steps" in caplog.text and "greedy sampling" in caplog.text
    raising = GRPOLintCallback(patience=1, raise_on_collapse=True)
    with pytest.raises(GroupCollapse):
        trainer(folder, tokenizer, constant, raising).train()


def test_a_clean_run_is_not_stopped(tiny_model):  # noqa: F811
    folder, tokenizer = tiny_model
    guard = GRPOLintCallback(patience=1)
    run = trainer(folder, tokenizer, varied, guard, temperature=1.0)
    run.train()
    assert not guard.collapsed and run.state.global_step == 4
    assert guard.report is not None and not guard.report.errors
