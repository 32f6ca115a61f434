"""grpo-lint against one real GRPOTrainer step of an older TRL, in its own interpreter.

TRL 0.19.1 needs the transformers of its time, which cannot share a virtualenv with TRL 1.16.0, so this
test runs a probe script in another Python: set GRPO_LINT_OLD_TRL_PYTHON to an interpreter that has
`torch==2.13.0 trl==0.19.1 transformers==4.53.2 accelerate datasets` installed, and run
`pytest -m old_trl`. The probe builds the tiny model of tests/tiny_model.py, as test_differential_trainer.py does, and
prints each case's outcome as JSON; grpo-lint then judges the same values with --target trl==0.19.1.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from .conftest import agrees_with_a_step, run_probe

PYTHON = os.environ.get("GRPO_LINT_OLD_TRL_PYTHON", "")
pytestmark = [
    pytest.mark.old_trl,
    pytest.mark.skipif(not PYTHON, reason="set GRPO_LINT_OLD_TRL_PYTHON to a Python with TRL 0.19.1"),
]
BASE = {"per_device_train_batch_size": 4, "num_generations": 4, "max_completion_length": 4}
# (values, expected): "raises" / "trains" as in test_differential_trainer.py; "silent" trains but spoils.
CASES = [
    ({}, "trains"),
    ({"top_k": -1}, "raises"),
    ({"top_k": None}, "trains"),
    ({"top_p": 1.5}, "trains"),
    ({"temperature": 0.0}, "raises"),
    ({"min_p": 1.5}, "raises"),
    ({"repetition_penalty": 0.0}, "raises"),
    ({"num_generations": 3}, "raises"),  # 4 per device x 1 process: not whole groups of 3
    ({"top_k": 1}, "silent"),
    ({"beta": -0.1}, "silent"),
]

PROBE = (Path(__file__).parent / "tiny_model.py").read_text() + textwrap.dedent(
    """
    import json, sys, tempfile, warnings
    warnings.simplefilter("ignore")
    from datasets import Dataset
    import trl

    folder = tempfile.mkdtemp()
    tokenizer = save_tiny_model(folder)
    prompts = Dataset.from_dict({"prompt": ["w1 w2 w3", "w4 w5", "w6 w7 w8", "w9"] * 2})

    def length_reward(completions, **kwargs):
        return [float(len(c)) for c in completions]

    out = {"version": trl.__version__, "outcomes": []}
    for extra in json.loads(sys.argv[1]):
        try:
            args = trl.GRPOConfig(output_dir=folder + "/out", use_cpu=True, bf16=False, report_to="none",
                                  max_steps=1, logging_steps=1, save_strategy="no", disable_tqdm=True, seed=0,
                                  **extra)
            trainer = trl.GRPOTrainer(model=folder, reward_funcs=length_reward, args=args,
                                      train_dataset=prompts, processing_class=tokenizer)
            trainer.train()
            out["outcomes"].append("trained")
        except (ValueError, RuntimeError, ZeroDivisionError) as exc:
            out["outcomes"].append("raised: " + str(exc).splitlines()[0][:120])
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def outcomes() -> list[str]:
    result = run_probe(PYTHON, PROBE, [{**BASE, **extra} for extra, _ in CASES], timeout=900)
    assert result["version"] == "0.19.1"
    return result["outcomes"]


@pytest.mark.parametrize("index", range(len(CASES)), ids=[str(c[0]) for c in CASES])
def test_grpo_lint_agrees_with_trl_0_19_1(outcomes, index):
    extra, kind = CASES[index]
    outcome = outcomes[index]
    agrees_with_a_step(BASE, extra, kind, outcome.startswith("raised"), "trl==0.19.1", outcome)
