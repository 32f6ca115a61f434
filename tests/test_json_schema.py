"""`grpo-lint schema`: JSON Schemas generated from the linter's own tables, checked with jsonschema."""

from __future__ import annotations

import json

import pytest
import yaml

from grpo_lint.project_config import _SETTINGS

from .conftest import ROOT, run_cli

jsonschema = pytest.importorskip("jsonschema")


def schema(*args: str) -> dict:
    done = run_cli("schema", *args)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    jsonschema.Draft202012Validator.check_schema(document)
    return document


@pytest.mark.parametrize(
    ("framework", "target", "files"),
    [
        ("trl", "trl==1.16.0", ["examples/trl/grpo_qwen_8gpu.yaml", "examples/trl/broken_groups.yaml"]),
        ("swift", "swift==4.6.0", ["examples/swift/grpo_colocate_4gpu.yaml"]),
        ("swift", "swift==4.0.0", ["examples/swift/server_mode_broken.yaml"]),  # train_type: removed in 4.1
        ("verl", "verl==0.9.1", ["examples/verl/grpo_gsm8k.yaml"]),
    ],
)
def test_every_example_config_validates_against_its_schema(framework, target, files):
    validator = jsonschema.Draft202012Validator(schema("--framework", framework, "--target", target))
    for name in files:
        config = yaml.safe_load((ROOT / name).read_text())
        errors = [e.message for e in validator.iter_errors(config)]
        assert errors == [], f"{name}: {errors}"


def test_a_removed_key_fails_as_grpo004_does():
    validator = jsonschema.Draft202012Validator(schema("--target", "swift==4.6.0"))
    config = yaml.safe_load((ROOT / "examples/swift/server_mode_broken.yaml").read_text())
    assert ["'train_type' was unexpected" in e.message for e in validator.iter_errors(config)] == [True]


def test_a_typo_fails_where_the_framework_rejects_unknown_keys():
    swift = jsonschema.Draft202012Validator(schema("--framework", "swift"))
    assert list(swift.iter_errors({"rlhf_type": "grpo", "num_generation": 8}))  # ms-swift stops on it
    trl = jsonschema.Draft202012Validator(schema("--target", "trl==1.16.0"))
    assert list(trl.iter_errors({"num_generation": 8}))  # `trl grpo` 0.29+ hands it to accelerate, which stops
    assert list(trl.iter_errors({"loss_type": "gspo"}))  # not a loss type of 1.16.0
    assert not list(trl.iter_errors({"num_generations": 8, "loss_type": "dapo", "top_k": None}))
    old = jsonschema.Draft202012Validator(schema("--target", "trl==0.24.0"))
    assert not list(old.iter_errors({"my_own_flag": 1}))  # the grpo script drops it silently there


def test_the_settings_schema_matches_the_settings_reader():
    document = schema("--settings")
    assert set(document["properties"]) == set(_SETTINGS)
    validator = jsonschema.Draft202012Validator(document)
    good = {"target": "trl==0.19.1", "select": ["GRPO1"], "thresholds": {"min-top-p": 0.8}, "fail-on": "warning"}
    assert not list(validator.iter_errors(good))
    assert list(validator.iter_errors({"world-size": 0})) and list(validator.iter_errors({"selct": ["GRPO1"]}))


def test_usage():
    assert run_cli("schema").returncode == 2
    assert run_cli("schema", "--framework", "swift", "--target", "trl==1.16.0").returncode == 2


def test_reward_functions_a_plugin_may_register_are_suggested_not_required():
    document = schema("--target", "swift==4.6.0")
    rewards = document["properties"]["reward_funcs"]
    assert "accuracy" in rewards["items"]["examples"] and "enum" not in rewards["items"]
    validator = jsonschema.Draft202012Validator(document)
    assert not list(validator.iter_errors({"rlhf_type": "grpo", "reward_funcs": ["accuracy", "my_plugin_reward"]}))
    assert list(validator.iter_errors({"rlhf_type": "grpo", "reward_funcs": [3]}))  # names are text
