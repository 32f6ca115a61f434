"""grpo-lint against the real TRL 1.16.0 GRPOConfig: it reports an error exactly where TRL raises.

TRL is installed only for the tests (`pip install torch==2.13.0 -e '.[test,differential]'`).
GRPOConfig reads the world size from TrainingArguments.world_size, which is patched here to the
process count under test, as `accelerate launch --num_processes W` would set it.
"""

from __future__ import annotations

import random
import warnings
from unittest import mock

import pytest

from .conftest import lint

trl = pytest.importorskip("trl", reason="the differential test needs TRL (extra 'differential')")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.differential

TRL_VERSION = "1.16.0"

# Which rule owns each of TRL's config-time errors.
MESSAGE_TO_CODE = (
    ("at least 2 generations", "GRPO101"),
    ("can not be both configured", "GRPO104"),
    ("divisible by the global batch size", "GRPO105"),
    ("global eval batch size", "GRPO103"),
    ("must be divisible by num_generations", "GRPO102"),
    ("auto_find_batch_size is not supported", "GRPO107"),
    ("must be less than vllm_importance_sampling_clip_max", "GRPO405"),
)


def geometries(count: int = 1500, seed: int = 0) -> list[tuple[int, dict]]:
    rng = random.Random(seed)
    cases: list[tuple[int, dict]] = []
    for _ in range(count):
        world = rng.choice([1, 2, 3, 4, 6, 7, 8, 16])
        kw: dict = {
            "per_device_train_batch_size": rng.choice([1, 2, 3, 4, 8, 16]),
            "num_generations": rng.choice([0, 1, 2, 3, 4, 6, 7, 8, 12, 16]),
        }
        shape = rng.choice(["default", "ga", "spg", "gbs", "both"])
        if shape in ("ga", "spg", "both"):
            kw["gradient_accumulation_steps"] = rng.choice([1, 2, 3, 4, 8])
        if shape in ("spg", "both"):
            kw["steps_per_generation"] = rng.choice([1, 2, 4])
        if shape in ("gbs", "both"):
            kw["generation_batch_size"] = rng.choice([8, 12, 16, 24, 32, 48, 64, 96, 128])
        if rng.random() < 0.35:
            kw["eval_strategy"] = "steps"
            kw["per_device_eval_batch_size"] = rng.choice([1, 2, 4, 8, 16])
            if rng.random() < 0.4:
                kw["num_generations_eval"] = rng.choice([0, 1, 2, 4, 8])
        if rng.random() < 0.05:
            kw["auto_find_batch_size"] = True
        cases.append((world, kw))
    # Hand-picked edges: the defaults, groups spanning processes, one process.
    cases += [(1, {}), (7, {"num_generations": 7, "per_device_train_batch_size": 1}),
              (1, {"num_generations": 8, "per_device_train_batch_size": 4})]  # fmt: skip
    return cases


def trl_error(world: int, kw: dict) -> str | None:
    """TRL's code for the config, or None when GRPOConfig accepts it."""
    from transformers import TrainingArguments

    with (
        mock.patch.object(TrainingArguments, "world_size", new_callable=mock.PropertyMock, return_value=world),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        try:
            trl.GRPOConfig(output_dir="/tmp/grpo-lint-differential", bf16=False, use_cpu=True, report_to="none", **kw)
        except ZeroDivisionError:
            return "GRPO101"  # num_generations=0 reaches `gbs % 0` first
        except ValueError as exc:
            for fragment, code in MESSAGE_TO_CODE:
                if fragment in str(exc):
                    return code
            raise AssertionError(f"unmapped TRL error: {exc}") from exc
    return None


def as_yaml(kw: dict) -> str:
    return (
        "".join(f"{k}: {str(v).lower() if isinstance(v, bool) else v}\n" for k, v in kw.items())
        or "num_generations: 8\n"
    )


def test_trl_version_is_the_one_compared():
    assert trl.__version__ == TRL_VERSION


def test_the_sample_covers_both_outcomes_and_every_batch_rule():
    outcomes = [trl_error(world, kw) for world, kw in geometries()]
    assert outcomes.count(None) > 200
    assert {"GRPO101", "GRPO102", "GRPO103", "GRPO104", "GRPO105", "GRPO107"} <= set(outcomes)


@pytest.mark.parametrize("world,kw", geometries(), ids=lambda v: str(v))
def test_grpo_lint_errors_exactly_where_trl_raises(world, kw):
    expected = trl_error(world, kw)
    errors = {
        d.code
        for d in lint(as_yaml(kw), f"--target trl=={TRL_VERSION} --world-size {world}")
        if d.severity.label == "error"
    }
    if expected is None:
        assert errors == set(), f"TRL accepts this, grpo-lint says {errors}"
    else:
        assert expected in errors, f"TRL raises {expected}, grpo-lint says {errors or 'nothing'}"


# Every argument TrlParser reads besides GRPOConfig's and TrainingArguments': ModelConfig's, the grpo script's and the
# dataset mixture's, with a value of their kind, and keys no argument class has.
_NOT_CONSTRUCTOR = {"use_peft": True, "lora_r": 16, "model_name_or_path": "m", "dataset_name": "d", "env": {}}
_CONSTRUCTOR = {"beta": 0.0, "learning_rate": 1e-6, "max_completion_length": 64, "seed": 3}


@pytest.mark.parametrize("key", [*_NOT_CONSTRUCTOR, "max_new_tokens", *_CONSTRUCTOR])
def test_a_grpo_config_call_takes_only_the_constructors_keywords(key, tmp_path):
    """`GRPOConfig(use_peft=True)` in Python: the dataclass raises TypeError, whatever TrlParser would accept in a
    YAML; grpo-lint's GRPO002 error is exactly where TRL raises."""
    value = {**_NOT_CONSTRUCTOR, **_CONSTRUCTOR}.get(key, 128)
    kw = {"output_dir": str(tmp_path), "report_to": "none", "bf16": False, "use_cpu": True}
    kw |= {"num_generations": 4, "per_device_train_batch_size": 4}
    try:
        trl.GRPOConfig(**kw, **{key: value})
        raised = False
    except TypeError as exc:
        raised = "unexpected keyword argument" in str(exc)
    call = "from trl import GRPOConfig\n"
    call += f"cfg = GRPOConfig(num_generations=4, per_device_train_batch_size=4, {key}={value!r})\n"
    found = [d for d in lint(call, "--target trl==1.16.0 --world-size 1", "train.py") if d.code == "GRPO002"]
    assert bool(found) == raised, (key, [d.message for d in found])
    assert all(d.severity.name == "ERROR" for d in found)
