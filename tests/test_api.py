"""The Python API: grpo_lint.check on the objects users build, and what it costs to import."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

import grpo_lint


def test_a_mapping_is_linted_and_errors_raise():
    report = grpo_lint.check({"num_generations": 3, "per_device_train_batch_size": 4}, world_size=2)
    assert [d.code for d in report.errors] == ["GRPO102"] and not report
    with pytest.raises(grpo_lint.ConfigError) as raised:
        report.raise_for_errors()
    assert "error[GRPO102]" in str(raised.value) and raised.value.report is report
    clean = grpo_lint.check({"num_generations": 4, "per_device_train_batch_size": 4}, world_size=2)
    assert clean and clean.raise_for_errors() is clean and "TRL" in clean.against


def test_the_target_and_framework_can_be_given():
    report = grpo_lint.check({"num_generations": 1}, target="trl==0.14.0", world_size=1)
    assert [(d.code, d.severity.label) for d in report] == [("GRPO101", "warning")]  # 0.14 accepts it
    swift = grpo_lint.check({"num_generations": 3, "per_device_train_batch_size": 2}, framework="swift", world_size=1)
    # without ms-swift installed and no target the release is an assumption; every release that fits rejects it
    (error,) = swift.errors
    assert error.code == "GRPO102" and "this holds for both ends of the ms-swift releases" in error.message
    pinned = grpo_lint.check(
        {"num_generations": 3, "per_device_train_batch_size": 2}, target="swift==4.6.0", world_size=1
    )
    assert "GRPO102" in {d.code for d in pinned.errors}
    with pytest.raises(ValueError, match="framework must be one of"):
        grpo_lint.check({}, framework="deepspeed")
    with pytest.raises(TypeError, match="takes a mapping"):
        grpo_lint.check(42)


def test_an_openrlhf_namespace_with_nested_groups():
    groups = argparse.Namespace(
        rollout=argparse.Namespace(n_samples_per_prompt=1), algo=argparse.Namespace(advantage=argparse.Namespace())
    )
    vars(groups.algo.advantage)["estimator"] = "group_norm"
    assert "GRPO101" in {d.code for d in grpo_lint.check(groups)}


def test_a_trl_grpo_config_object():
    trl = pytest.importorskip("trl", reason="needs TRL (extra 'differential')")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        args = trl.GRPOConfig(
            output_dir="/tmp/grpo-lint-api", use_cpu=True, bf16=False, report_to="none",
            per_device_train_batch_size=8, num_generations=8, top_k=-1,
        )  # fmt: skip
    report = grpo_lint.check(args)
    # GRPOConfig derived generation_batch_size and steps_per_generation itself: not "both set" (GRPO104).
    assert [d.code for d in report.errors] == ["GRPO003"] and "top_k" in report.errors[0].message
    assert "top_k: -1" in report.source and "GRPOConfig" in report.name


def test_a_verl_dict_config():
    omegaconf = pytest.importorskip("omegaconf", reason="needs omegaconf (hydra-core, extra 'test')")
    config = omegaconf.OmegaConf.create(
        {"algorithm": {"adv_estimator": "grpo"}, "actor_rollout_ref": {"rollout": {"n": 4, "temperature": 0}}}
    )
    assert "GRPO201" in {d.code for d in grpo_lint.check(config)}


def test_importing_the_package_costs_nothing_until_check_is_used():
    code = "import sys, grpo_lint; print(sorted(m for m in ('yaml', 'pydantic', 'click') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert set(grpo_lint.__all__) == {"ConfigError", "Report", "__version__", "check"}
