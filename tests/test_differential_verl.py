"""grpo-lint against verl 0.9.1's own `validate_config`, in verl's own interpreter.

Importing verl pulls in ray, tensordict and the rest of its stack, which the test environment does not
carry; set GRPO_LINT_VERL_PYTHON to a Python with `verl==0.9.1` installed (with its dependencies) and run
`pytest -m verl_validate`. The probe composes verl's `ppo_trainer` config with Hydra for each generated
set of overrides, runs `verl.utils.config.validate_config` as `main_ppo` does, and prints each outcome;
grpo-lint lints the same command line with --target verl==0.9.1.
"""

from __future__ import annotations

import os
import random
import textwrap

import pytest

from .conftest import lint, run_probe

PYTHON = os.environ.get("GRPO_LINT_VERL_PYTHON", "")
pytestmark = [
    pytest.mark.verl_validate,
    pytest.mark.skipif(not PYTHON, reason="set GRPO_LINT_VERL_PYTHON to a Python with verl 0.9.1"),
]
# The rules that mirror validate_config (and the dataclass checks it triggers). GRPO110 (the per-GPU mini
# batch) is verl's check in the actor workers, which are built after validate_config: not compared here.
CODES = {"GRPO003", "GRPO006", "GRPO108", "GRPO109", "GRPO111"}
BASE = {
    "algorithm.adv_estimator": "grpo",
    "actor_rollout_ref.rollout.name": "vllm",
    "trainer.nnodes": "1",
}

PROBE = textwrap.dedent(
    """
    import json, os, sys, warnings
    warnings.simplefilter("ignore")
    from hydra import compose, initialize_config_dir
    import verl
    from verl.utils.config import validate_config

    config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
    out = {"version": verl.__version__, "outcomes": []}
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        for overrides in json.loads(sys.argv[1]):
            try:
                config = compose(config_name="ppo_trainer", overrides=overrides)
                use_ref = bool(config.algorithm.get("use_kl_in_reward", False)) or bool(
                    config.actor_rollout_ref.actor.use_kl_loss
                )
                validate_config(config, use_reference_policy=use_ref, use_critic=False)
                out["outcomes"].append("passed")
            except Exception as exc:
                out["outcomes"].append("raised: " + type(exc).__name__ + ": " + str(exc).splitlines()[0][:160])
    print(json.dumps(out))
    """
)


def cases(count: int = 300, seed: int = 0) -> list[dict[str, str]]:
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        case = dict(BASE)
        case["data.train_batch_size"] = str(rng.choice([8, 16, 24, 32, 48, 64, 100, 128, 256]))
        case["actor_rollout_ref.rollout.n"] = str(rng.choice([1, 2, 3, 4, 5, 8, 16]))
        case["trainer.n_gpus_per_node"] = str(rng.choice([1, 2, 3, 4, 6, 8]))
        case["actor_rollout_ref.actor.ppo_mini_batch_size"] = str(rng.choice([4, 8, 16, 32, 64, 128, 512]))
        if rng.random() < 0.85:
            case["actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu"] = str(rng.choice([1, 2, 4, 8, 16, 32]))
        if rng.random() < 0.1:
            case["actor_rollout_ref.actor.ppo_micro_batch_size"] = str(rng.choice([4, 8, 16, 24]))
        if rng.random() < 0.85:
            case["actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu"] = str(rng.choice([4, 16, 32]))
        if rng.random() < 0.15:
            case["actor_rollout_ref.actor.use_dynamic_bsz"] = "true"
        if rng.random() < 0.2:
            case["actor_rollout_ref.actor.use_kl_loss"] = "true"
            if rng.random() < 0.7:
                case["actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu"] = "16"
        if rng.random() < 0.1:
            case["actor_rollout_ref.actor.loss_agg_mode"] = rng.choice(["token-mean", "token-sum", "sample-mean"])
        found.append(case)
    return found


@pytest.fixture(scope="module")
def outcomes() -> list[str]:
    result = run_probe(PYTHON, PROBE, [[f"{k}={v}" for k, v in case.items()] for case in cases()], timeout=1800)
    assert result["version"] == "0.9.1"
    return result["outcomes"]


def test_grpo_lint_errors_exactly_where_validate_config_raises(outcomes):
    disagreements = []
    for case, outcome in zip(cases(), outcomes, strict=True):
        script = "python3 -m verl.trainer.main_ppo " + " ".join(f"{k}={v}" for k, v in case.items()) + "\n"
        errors = {d.code for d in lint(script, "--target verl==0.9.1", "run.sh") if d.severity.label == "error"} & CODES
        if outcome.startswith("raised") != bool(errors):
            disagreements.append((case, outcome, sorted(errors)))
    agree = len(outcomes) - len(disagreements)
    print(f"\nverl 0.9.1 validate_config vs grpo-lint: {agree}/{len(outcomes)} agree")
    assert sum(o.startswith("raised") for o in outcomes) > 30 and outcomes.count("passed") > 30
    assert disagreements == [], disagreements[:5]
