"""A launch followed into the code that runs it: the repository's own entry point, its config tree, its trainer.

Each test writes a small repository (a fork's `main_ppo.py` with `@hydra.main` and a config tree with a
`defaults` list, a recipe that builds on verl's `ppo_trainer` through `hydra.searchpath`, a tool gateway named by
`--config`, an OpenRLHF run without a reference model) and lints it from its root as a user would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grpo_lint import versions

from .test_repository import codes, lint, notes, write


@pytest.fixture(autouse=True)
def uninstalled(monkeypatch):
    monkeypatch.setattr(versions, "installed_version", lambda framework: None)


MAIN = """\
import hydra
from verl.trainer.ppo.ray_trainer import RayPPOTrainer


@hydra.main(config_path="config", config_name="ppo_trainer", version_base=None)
def main(config):
    RayPPOTrainer(config=config).fit()
"""
CONFIG = """\
defaults:
  - actor@actor_rollout_ref.actor: dp_actor
  - _self_
actor_rollout_ref:
  rollout:
    n: 1
    name: vllm
    temperature: 1.0
    log_prob_micro_batch_size_per_gpu: 4
  ref:
    log_prob_micro_batch_size_per_gpu: 4
  agent:
    max_turns: 2
algorithm:
  adv_estimator: grpo
data:
  train_batch_size: 64
trainer:
  n_gpus_per_node: 8
  nnodes: 1
  val_before_train: true
custom_reward_function:
  path: null
"""
ACTOR = """\
defaults:
  - _self_
strategy: fsdp
ppo_mini_batch_size: 16
ppo_micro_batch_size_per_gpu: 2
use_kl_loss: false
policy_loss:
  clip_cov_ratio: 0.0002
"""


def fork(root: Path, script: str) -> Path:
    return write(
        root,
        {
            "README.md": "a fork\n",
            "my_rl/__init__.py": "",
            "my_rl/trainer/__init__.py": "",
            "my_rl/trainer/main_ppo.py": MAIN,
            "my_rl/trainer/config/ppo_trainer.yaml": CONFIG,
            "my_rl/trainer/config/actor/dp_actor.yaml": ACTOR,
            "scripts/train.sh": script,
        },
    )


def test_a_forks_own_entry_point_composes_its_own_tree(tmp_path, monkeypatch):
    good = (
        "python3 -m my_rl.trainer.main_ppo actor_rollout_ref.rollout.n=8 actor_rollout_ref.agent.max_turns=4 \\\n"
        "    actor_rollout_ref.actor.policy_loss.clip_cov_ratio=0.001 data.train_batch_size=64\n"
    )
    _, report = lint(fork(tmp_path, good), monkeypatch)
    assert codes(report, "train.sh") == []
    assert notes(report)["scripts/train.sh"] in ("", None) or "skipped" not in notes(report)["scripts/train.sh"]


def test_an_override_the_composed_tree_lacks_stops_hydra(tmp_path, monkeypatch):
    bad = (
        "python3 -m my_rl.trainer.main_ppo actor_rollout_ref.rollout.n=8 \\\n"
        "    actor_rollout_ref.actor.clip_cov_ratio=0.001 \\\n"
        "    +trainer.val_before_train=false\n"
    )
    code, report = lint(fork(tmp_path, bad), monkeypatch)
    assert code == 1
    found = {(d["code"], d["line"]) for d in report["diagnostics"] if d["path"].endswith("train.sh")}
    assert found == {("GRPO002", 2), ("GRPO009", 3)}
    message = next(d["message"] for d in report["diagnostics"] if d["code"] == "GRPO002")
    assert "my_rl/trainer/main_ppo.py composes" in message
    assert "actor_rollout_ref.actor.policy_loss.clip_cov_ratio" in message  # the key under its sub-node


def test_after_a_cd_through_an_unknown_folder_its_written_tail_picks_the_project_that_runs(tmp_path, monkeypatch):
    """Two projects of the checkout ship the same module; the script `cd`s to one through a variable (`$ROOT/proj/`):
    `python -m` runs the module of the folder it is in, with that project's config tree."""
    files = {"README.md": "two projects\n"}
    for project, config in (("one", CONFIG), ("two/proj", CONFIG.replace("agent:", "my_fork_key: 1\n  agent:"))):
        files |= {
            f"{project}/my_rl/__init__.py": "",
            f"{project}/my_rl/trainer/__init__.py": "",
            f"{project}/my_rl/trainer/main_ppo.py": MAIN,
            f"{project}/my_rl/trainer/config/ppo_trainer.yaml": config,
            f"{project}/my_rl/trainer/config/actor/dp_actor.yaml": ACTOR,
        }
    run = "python3 -m my_rl.trainer.main_ppo actor_rollout_ref.my_fork_key=2 actor_rollout_ref.rollout.n=8\n"
    files["two/scripts/train.sh"] = "ROOT=\ncd $ROOT/proj/\n" + run
    _, report = lint(write(tmp_path, files), monkeypatch)
    assert codes(report, "train.sh") == []  # two/proj's tree has the key
    write(tmp_path, {"two/scripts/train.sh": "cd $ROOT/elsewhere/\n" + run})  # a tail the checkout does not hold
    _, report = lint(tmp_path, monkeypatch)
    assert codes(report, "train.sh") == ["GRPO002"]  # the module nearest the root (one/), as before


SHIPPED_TRL = {
    "trl/pyproject.toml": '[project]\nname = "trl"\n',
    "trl/trl/__init__.py": (
        '__version__ = "0.19.0"\nfrom .trainer.grpo_config import GRPOConfig\n'
        "from .trainer.grpo_trainer import GRPOTrainer\nfrom .scripts.utils import TrlParser\n"
    ),
    "trl/trl/trainer/grpo_config.py": (
        "from dataclasses import dataclass, field\n\n@dataclass\nclass GRPOConfig:\n"
        "    num_generations: int = field(default=8)\n    per_device_train_batch_size: int = 8\n\n"
        "    def __post_init__(self):\n        if self.num_generations < 2:\n"
        "            raise ValueError('GRPO requires at least 2 generations per prompt')\n"
    ),
    "trl/trl/trainer/grpo_trainer.py": "class GRPOTrainer:\n    pass\n",
    "trl/trl/scripts/utils.py": "class TrlParser:\n    pass\n",
    # the repository's own addition to its copy: a config class that lets a group of one through to evaluate
    "trl/trl/trainer/eval_config.py": (
        "from dataclasses import dataclass\n\nfrom .grpo_config import GRPOConfig\n\n@dataclass\n"
        "class EvalGRPOConfig(GRPOConfig):\n    mode: str = 'train'\n\n    def __post_init__(self):\n"
        "        wanted = self.num_generations\n        if self.mode == 'test':\n            self.num_generations = 2\n"
        "        super().__post_init__()\n        self.num_generations = wanted\n"
    ),
    "trl/trl/scripts/grpo_eval.py": (
        "from dataclasses import dataclass\n\nfrom trl import GRPOTrainer, TrlParser\n"
        "from trl.trainer.eval_config import EvalGRPOConfig\n\n@dataclass\nclass EvalArgs:\n"
        "    dataset_name: str = 'x'\n\ndef make_parser():\n    dataclass_types = (EvalArgs, EvalGRPOConfig)\n"
        "    return TrlParser(dataclass_types)\n\nif __name__ == '__main__':\n"
        "    args, training_args = make_parser().parse_args_and_config()\n"
        "    GRPOTrainer(model=args.dataset_name, args=training_args).train()\n"
    ),
}


@pytest.mark.parametrize("command", ["python -m trl.cli.main grpo_eval", "trl grpo_eval"])
def test_a_subcommand_of_the_repository_s_trl_copy_runs_its_script_with_its_config_class(
    tmp_path, monkeypatch, command
):
    """`trl NAME` runs `trl/scripts/NAME.py` of the TRL it belongs to: here the repository's copy, whose script's
    config class rewrites num_generations in `__post_init__` (a group of one evaluates): not judged as written."""
    files = {
        **SHIPPED_TRL,
        "trl/configs/eval.yaml": "mode: test\nnum_generations: 1\nper_device_train_batch_size: 4\n",
        "run_eval.sh": f"cd ~/work/project/trl\n{command} --config configs/eval.yaml\n",
    }
    _, report = lint(write(tmp_path, files), monkeypatch)
    assert codes(report) == []
    assert notes(report)["trl/configs/eval.yaml"] == "checked as part of ./run_eval.sh"
    # the copy's script parses it: a key none of its classes has is reported on the config
    write(tmp_path, {"trl/configs/eval.yaml": "mode: test\nper_device_train_batch_size: 4\nnum_generatons: 3\n"})
    _, report = lint(tmp_path, monkeypatch)
    assert codes(report, "eval.yaml") == ["GRPO002"]


def test_the_entry_feeds_verls_trainer_so_the_group_rules_apply(tmp_path, monkeypatch):
    _, report = lint(fork(tmp_path, "python3 -m my_rl.trainer.main_ppo data.train_batch_size=64\n"), monkeypatch)
    assert "GRPO101" in codes(report, "train.sh")  # rollout.n 1 in the tree, with grpo
    _, report = lint(fork(tmp_path, "python3 -m my_rl.trainer.main_ppo actor_rollout_ref.rollout.n=4\n"), monkeypatch)
    assert "GRPO101" not in codes(report, "train.sh")


def test_a_config_name_the_entry_does_not_have_stops_hydra(tmp_path, monkeypatch):
    _, report = lint(fork(tmp_path, "python3 -m my_rl.trainer.main_ppo --config-name ppo_trainer_v2\n"), monkeypatch)
    stops = [d for d in report["diagnostics"] if d["code"] == "GRPO001" and d["severity"] == "error"]
    assert len(stops) == 1 and "Cannot find primary config 'ppo_trainer_v2'" in stops[0]["message"]
    assert "(its `@hydra.main` at line 5)" in stops[0]["message"]  # the decorator's line, not the `def` after it
    _, report = lint(fork(tmp_path, "python3 -m my_rl.trainer.main_ppo --config-name ppo_trainer\n"), monkeypatch)
    assert "GRPO001" not in codes(report, "train.sh")


def test_a_group_override_chooses_another_option(tmp_path, monkeypatch):
    root = fork(tmp_path, "python3 -m my_rl.trainer.main_ppo actor@actor_rollout_ref.actor=mg_actor a.b=1\n")
    write(root, {"my_rl/trainer/config/actor/mg_actor.yaml": "strategy: megatron\nppo_mini_batch_size: 16\n"})
    _, report = lint(root, monkeypatch)
    assert [(d["code"], d["key"]) for d in report["diagnostics"] if d["code"] == "GRPO002"] == [("GRPO002", "a.b")]
    write(root, {"scripts/train.sh": "python3 -m my_rl.trainer.main_ppo actor@actor_rollout_ref.actor=gone\n"})
    _, report = lint(root, monkeypatch)
    assert any("Could not find 'actor/gone'" in d["message"] for d in report["diagnostics"])


# What verl 0.5.0 needs besides the defaults to start a GRPO run of 32 prompts x 4 responses on 8 GPUs.
COMPLETE = (
    "data.train_batch_size=32 actor_rollout_ref.rollout.n=4 actor_rollout_ref.actor.ppo_mini_batch_size=16 "
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 "
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 "
    "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2"
)
RECIPE = """\
hydra:
  searchpath:
    - file://verl/trainer/config
defaults:
  - ppo_trainer
  - _self_
data:
  gen_batch_size: 32
"""


def test_a_recipe_builds_on_ppo_trainer_of_the_release_when_verl_is_not_in_the_repository(tmp_path, monkeypatch):
    root = write(
        tmp_path,
        {
            "requirements.txt": "verl==0.5.0\n",
            "recipe/mine/main_mine.py": MAIN.replace('config_name="ppo_trainer"', 'config_name="mine_trainer"'),
            "recipe/mine/config/mine_trainer.yaml": RECIPE,
            "recipe/mine/run.sh": f"python3 -m recipe.mine.main_mine data.gen_batch_size=64 {COMPLETE}\n",
        },
    )
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []
    assert notes(report)["recipe/mine/run.sh"] != "skipped"
    write(root, {"recipe/mine/run.sh": f"python3 -m recipe.mine.main_mine data.not_a_key=1 {COMPLETE}\n"})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO002"]


def test_a_generation_entry_of_verl_is_not_a_grpo_launch(tmp_path, monkeypatch):
    root = write(
        tmp_path,
        {
            "README.md": "x\n",
            "gen/main_generation.py": (
                "import hydra\nfrom verl import DataProto\n\n"
                '@hydra.main(config_path="config", config_name="generation", version_base=None)\n'
                "def main(config):\n    pass\n"
            ),
            "gen/config/generation.yaml": "data:\n  path: x\nrollout:\n  n: 1\n",
            "gen/run.sh": "python3 -m gen.main_generation data.path=~/data/test.parquet\n",
        },
    )
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []


def test_a_tool_gateway_named_by_config_is_not_a_launch(tmp_path, monkeypatch):
    root = write(
        tmp_path,
        {
            "README.md": "x\n",
            "run_tools.sh": "python -m mcp_tools.gateway --config configs/servers.json --port 8000\n",
            "train.sh": "python -m trl_scripts.grpo --config configs/missing.yaml --num_generations 8\n",
        },
    )
    _, report = lint(root, monkeypatch)
    assert codes(report, "run_tools.sh") == []
    assert "run_tools.sh" in notes(report) and "skipped" not in str(report["diagnostics"])
    assert codes(report, "train.sh") == ["GRPO001"]  # a GRPO flag shows a run: its missing config is said


OPENRLHF = (
    "ray job submit -- python3 -m openrlhf.cli.train_ppo_ray --ref_num_nodes 0 --ref_num_gpus_per_node 0 \\\n"
    "    --actor_num_nodes 1 --actor_num_gpus_per_node 8 --advantage_estimator group_norm \\\n"
    "    --n_samples_per_prompt 8 --rollout_batch_size 32 --train_batch_size 256 --micro_train_batch_size 4 \\\n"
    "    --micro_rollout_batch_size 8 --reward_pretrain none --init_kl_coef {coef}\n"
)


def test_a_reference_model_openrlhf_never_builds_takes_no_gpus(tmp_path, monkeypatch):
    root = write(tmp_path, {"requirements.txt": "openrlhf==0.8.5\n", "run.sh": OPENRLHF.format(coef="0")})
    _, report = lint(root, monkeypatch)
    assert "GRPO003" not in codes(report, "run.sh")
    write(root, {"run.sh": OPENRLHF.format(coef="0.01")})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh").count("GRPO003") == 2


N4 = "actor_rollout_ref.rollout.n=4"


def test_an_unpacked_repository_is_read_whole(tmp_path, monkeypatch):
    """Without .git, a project's folder (a README or a requirements file) is walked to any depth: a copy five
    folders down is the copy that runs."""
    deep = "a/b/c/d/src/verl"
    root = write(
        tmp_path,
        {
            "README.md": "x\n",
            f"{deep}/verl/__init__.py": "",
            f"{deep}/verl/version/version": "0.2.0\n",
            f"{deep}/verl/trainer/main_ppo.py": MAIN,
            f"{deep}/verl/trainer/config/ppo_trainer.yaml": CONFIG.replace("agent:", "my_fork_key: 1\n  agent:"),
            f"{deep}/verl/trainer/config/actor/dp_actor.yaml": ACTOR,
            f"{deep}/run.sh": f"python3 -m verl.trainer.main_ppo actor_rollout_ref.my_fork_key=2 {N4}\n",
        },
    )
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []
    write(
        root,
        {f"{deep}/run.sh": f"python3 -m verl.trainer.main_ppo actor_rollout_ref.not_in_fork=2 {N4}\n"},
    )
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO002"]


SWIFT_WRAPPER = 'from swift.llm import rlhf_main\n\nif __name__ == "__main__":\n    rlhf_main()\n'
SWIFT_RUN = (
    "deepspeed --num_gpus 6 scripts/rlhf_ds.py --rlhf_type grpo --model Qwen/Qwen2.5-7B --num_generations 4 \\\n"
    "    --per_device_train_batch_size {batch} --gradient_accumulation_steps 1 --use_vllm true \\\n"
    "    --vllm_mode colocate \\\n"
    "    --vllm_tensor_parallel_size 2 --split_dataset_ratio 0\n"
)


def test_a_thin_wrapper_of_rlhf_main_is_an_ms_swift_run(tmp_path, monkeypatch):
    root = write(
        tmp_path,
        {
            "requirements.txt": "ms-swift==3.5.3\n",
            "scripts/rlhf_ds.py": SWIFT_WRAPPER,
            "run.sh": SWIFT_RUN.format(batch=1),
        },
    )
    _, report = lint(root, monkeypatch)
    assert "GRPO102" in codes(report, "run.sh")  # 1 per device x 6 processes: 6 is not a whole number of groups of 4
    write(root, {"run.sh": SWIFT_RUN.format(batch=2)})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []


def test_a_known_bug_of_a_release_is_not_reported_on_a_copy_of_the_framework(tmp_path, monkeypatch):
    files = {
        "requirements.txt": "ms-swift==3.5.1\n",
        "scripts/rlhf_ds.py": SWIFT_WRAPPER,
        "run.sh": SWIFT_RUN.format(batch=2),
    }
    _, report = lint(write(tmp_path / "pinned", files), monkeypatch)
    assert "GRPO304" in codes(report, "run.sh")  # the 3.5.1 release: one seed per tensor-parallel group
    copy = {
        **files,
        "requirements.txt": "",
        "swift/__init__.py": "",
        "swift/version.py": "__version__ = '3.5.0.dev0'\n",
        "swift/cli/rlhf.py": "from swift.llm import rlhf_main\n",
    }
    _, report = lint(write(tmp_path / "copy", copy), monkeypatch, "--verbose", ".")
    assert "GRPO304" not in codes(report, "run.sh")


def test_resume_from_checkpoint_true_is_a_value_trl_accepts(tmp_path, monkeypatch):
    config = "num_generations: 4\nper_device_train_batch_size: 4\nresume_from_checkpoint: {value}\n"
    root = write(tmp_path, {"requirements.txt": "trl==0.25.1\n", "recipe.yaml": config.format(value="true")})
    _, report = lint(root, monkeypatch, "--world-size", "1", "recipe.yaml")
    assert codes(report) == []
    write(root, {"recipe.yaml": config.format(value="[a, b]")})
    _, report = lint(root, monkeypatch, "--world-size", "1", "recipe.yaml")
    assert codes(report) == ["GRPO003"]


def test_another_projects_code_shipped_in_the_repository_is_not_judged_as_the_repositorys(tmp_path, monkeypatch):
    seeded = "import torch\nfrom torch.utils.data import DistributedSampler\n\ntorch.manual_seed(42)\n" * 1
    sampler = "def loader(ds):\n    return DistributedSampler(ds, seed=0)\n"
    root = write(
        tmp_path,
        {
            "README.md": "x\n",
            "transformers-4.54.0/setup.py": "from setuptools import setup\nsetup(name='transformers')\n",
            "transformers-4.54.0/src/transformers/__init__.py": "",
            "transformers-4.54.0/examples/run_generation.py": seeded + sampler,
            "train/grpo_train.py": seeded + sampler + "from trl import GRPOTrainer\n",
        },
    )
    _, report = lint(root, monkeypatch)
    assert codes(report, "run_generation.py") == []
    assert "GRPO301" in codes(report, "grpo_train.py")
    assert "another project's code" in notes(report)["transformers-4.54.0/examples/run_generation.py"]


SEEDED_GRPO = """\
import torch
from accelerate import Accelerator
from trl import GRPOTrainer
from my_trainers import {name}

accelerator = Accelerator()
torch.manual_seed(1234)
trainer = {name}(model=model, args=args, reward_funcs=[reward])
trainer.train()
"""
MY_TRAINERS = """\
from trl import GRPOTrainer
from transformers import TrainerCallback


class MyGRPOTrainer(GRPOTrainer):
    def _generate(self, inputs):
        return super()._generate(inputs)


class MyLoopTrainer:
    def train(self):
        self.model.generate(self.prompts, do_sample=True)
"""


def test_a_subclass_of_grpotrainer_reseeds_every_process_as_grpotrainer_does(tmp_path, monkeypatch):
    files = {"requirements.txt": "trl==0.19.0\n", "my_trainers.py": MY_TRAINERS}
    root = write(tmp_path, {**files, "train_grpo.py": SEEDED_GRPO.format(name="MyLoopTrainer")})
    _, report = lint(root, monkeypatch)
    assert "GRPO301" in codes(report, "train_grpo.py")
    write(root, {"train_grpo.py": SEEDED_GRPO.format(name="MyGRPOTrainer")})
    _, report = lint(root, monkeypatch)
    assert "GRPO301" not in codes(report, "train_grpo.py")


SFT = """\
import torch
import torch.distributed as dist
from my_sft import OmniTrainer

dist.init_process_group("nccl")
torch.manual_seed(42)
{build}
"""


def test_transformers_trainer_reseeds_an_sft_script_on_every_rank(tmp_path, monkeypatch):
    sft_trainer = "from transformers import Trainer\n\nclass OmniTrainer(Trainer):\n    pass\n"
    loop = "for batch in loader:\n    model(batch).loss.backward()"
    root = write(tmp_path, {"README.md": "x\n", "my_sft.py": sft_trainer, "train_sft.py": SFT.format(build=loop)})
    _, report = lint(root, monkeypatch)
    assert "GRPO301" in codes(report, "train_sft.py")  # a hand-written loop keeps the one seed
    write(root, {"train_sft.py": SFT.format(build="OmniTrainer(model=model, args=args).train()")})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train_sft.py") == []


def test_a_module_its_package_does_not_hold_never_starts(tmp_path, monkeypatch):
    root = write(
        tmp_path,
        {
            "README.md": "x\n",
            "recipe/dapo/main_dapo.py": MAIN,
            "recipe/dapo/config/ppo_trainer.yaml": CONFIG,
            "recipe/dapo/config/actor/dp_actor.yaml": ACTOR,
            "run.sh": f"python3 -m recipe.one_step_off_policy.main_ppo {N4}\n",
        },
    )
    _, report = lint(root, monkeypatch)
    assert [(d["code"], d["line"]) for d in report["diagnostics"] if d["path"].endswith("run.sh")] == [("GRPO508", 1)]
    write(root, {"run.sh": f"python3 -m recipe.dapo.main_dapo {N4}\n"})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []


def test_a_training_entry_of_verl_the_copy_does_not_hold_never_starts(tmp_path, monkeypatch):
    """`python -m verl.trainer.main_grpo actor_rollout_ref...` where the repository's copy of verl holds no such module
    (deleted, or never there): Python stops with "No module named", whatever the entry's name. An evaluation entry
    (`verl.trainer.eval_x`) is no GRPO run and is not judged."""
    root = write(tmp_path, {
        "README.md": "x\n", "verl/__init__.py": "", "verl/trainer/__init__.py": "", "verl/trainer/main_ppo.py": MAIN,
        "verl/trainer/config/ppo_trainer.yaml": CONFIG, "verl/trainer/config/actor/dp_actor.yaml": ACTOR,
        "run.sh": f"python3 -m verl.trainer.main_grpo {N4}\n",
    })  # fmt: skip
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO508"]
    write(root, {"verl/trainer/main_grpo.py": MAIN})
    _, report = lint(root, monkeypatch)
    assert "GRPO508" not in codes(report, "run.sh")
    write(root, {"run.sh": f"python3 -m verl.trainer.eval_chess {N4}\n"})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []
    # after a `cd` to another checkout (`${REPO_ROOT}/luffy/verl`), the package that runs is that checkout's
    write(root, {"run.sh": f'cd "${{REPO_ROOT}}/luffy/verl"\npython3 -m verl.mix_src.main_mix_ppo {N4}\n'})
    _, report = lint(root, monkeypatch)
    assert "GRPO508" not in codes(report, "run.sh")


def test_a_reward_file_the_repository_does_not_hold_stops_verl(tmp_path, monkeypatch):
    run = 'PROJECT_DIR="$(pwd)"\npython3 -m my_rl.trainer.main_ppo {N4} custom_reward_function.path={path}\n'
    root = fork(tmp_path, run.format(N4=N4, path="recipe/math/reward.py"))
    write(root, {"recipe/other/reward.py": "def compute_score(): ...\n"})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == ["GRPO508"]
    write(root, {"scripts/train.sh": run.format(N4=N4, path="$PROJECT_DIR/recipe/other/reward.py")})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []
    # verl-recipe is checked out as verl's `recipe/`: `recipe/other/reward.py` is its `other/reward.py`
    write(root, {"scripts/train.sh": run.format(N4=N4, path="recipe/recipe/other/reward.py")})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []
    # a folder the repository does not hold at all (a submodule not checked out) is not judged
    write(root, {"scripts/train.sh": run.format(N4=N4, path="third_party/rewards/math.py")})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []
    # a submodule's folder, left empty by a clone without --recursive (verl's own `recipe` is verl-recipe): not shown
    (root / "third_party" / "rewards").mkdir(parents=True)
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == ["GRPO508"]  # an empty folder of the repository's own: the file is missing
    write(root, {".gitmodules": '[submodule "rewards"]\n\tpath = third_party/rewards\n\turl = https://x/y.git\n'})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []


def test_a_config_folder_under_pwd_that_does_not_exist_stops_hydra(tmp_path, monkeypatch):
    run = 'CONFIG_PATH="$(pwd)/{folder}"\npython3 -m my_rl.trainer.main_ppo --config-path="$CONFIG_PATH" {N4}\n'
    root = fork(tmp_path, run.format(folder="examples/multiturn/config", N4=N4))
    _, report = lint(root, monkeypatch)
    stops = [d for d in report["diagnostics"] if d["code"] == "GRPO001"]
    assert len(stops) == 1 and "Primary config directory not found" in stops[0]["message"]
    write(root, {"scripts/train.sh": run.format(folder="my_rl/trainer/config", N4=N4)})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []
    # a folder the script clones (or copies, fetches) before the run is made at run time: not known here
    cloned = "git clone https://github.com/org/other.git\n" + run.format(folder="other/examples/config", N4=N4)
    write(root, {"scripts/train.sh": cloned})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []
    write(root, {"scripts/train.sh": cloned.replace("other.git", "elsewhere.git")})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == ["GRPO001"]


PIPELINE = """\
from dataclasses import dataclass

from trl import GRPOConfig, GRPOTrainer, ModelConfig, TrlParser


@dataclass
class ScriptArguments:
    dataset_id_or_path: str = ""


def main():
    parser = TrlParser((ModelConfig, ScriptArguments, GRPOConfig))
    model_args, script_args, training_args = parser.parse_args_and_config()
    GRPOTrainer(model=model_args.model_name_or_path, args=training_args).train()
"""


def test_a_thin_entry_script_is_read_through_the_module_it_calls(tmp_path, monkeypatch):
    recipe = "num_generations: 4\nper_device_train_batch_size: {batch}\n{key}: 100\n"
    root = write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "x"\ndependencies = ["trl==0.15.0"]\n',
            "main.py": "from train.pipeline import main\n\nif __name__ == '__main__':\n    main()\n",
            "train/__init__.py": "",
            "train/pipeline.py": PIPELINE,
            "recipe.yaml": recipe.format(key="eval_steps", batch=4),
            "start.sh": "poetry run accelerate launch --num_processes 3 main.py --config recipe.yaml\n",
        },
    )
    _, report = lint(root, monkeypatch)
    assert codes(report) == []
    assert notes(report)["recipe.yaml"].endswith("checked as part of ./start.sh".removeprefix("./"))
    write(root, {"recipe.yaml": recipe.format(key="eval_steps", batch=3)})
    _, report = lint(root, monkeypatch)  # 3 per device x 3 processes: 9 completions are no whole groups of 4
    assert [d["severity"] for d in report["diagnostics"] if d["code"].startswith("GRPO10")] == ["error"]
    write(root, {"recipe.yaml": recipe.format(key="eval_step", batch=4)})
    _, report = lint(root, monkeypatch)
    (typo,) = [d for d in report["diagnostics"] if d["code"] == "GRPO002"]
    assert typo["severity"] == "warning" and "TrlParser before 0.19 drops" in typo["message"]


def test_a_script_run_from_beside_the_caller_is_read_with_its_variables(tmp_path, monkeypatch):
    run = "N=${N:-4}\npython3 -m my_rl.trainer.main_ppo actor_rollout_ref.rollout.n=$N data.train_batch_size=64\n"
    root = fork(tmp_path, run)
    write(root, {"scripts/variant.sh": 'N=1 bash "$(dirname "$0")/train.sh" "$@"\n'})
    _, report = lint(root, monkeypatch)
    # rollout.n 1 with grpo: reported in the called script, naming the caller
    assert any(d["code"] == "GRPO101" and "variant.sh" in d["message"] for d in report["diagnostics"])
    write(root, {"scripts/variant.sh": 'N=8 bash "$(dirname "$0")/train.sh" "$@"\n'})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") + codes(report, "variant.sh") == []
    assert notes(report)["scripts/variant.sh"] != "no GRPO launch command"


def test_a_launch_script_kept_inside_a_copys_package_folder_is_linted(tmp_path, monkeypatch):
    """A project that renamed its verl copy (`rubric_rm/verl/`) keeps its runs in `rubric_rm/verl/scripts/`."""
    copy = "proj/verl"
    root = write(
        tmp_path,
        {
            "README.md": "x\n",
            "proj/__init__.py": "",
            f"{copy}/__init__.py": "",
            f"{copy}/trainer/main_ppo.py": MAIN,
            f"{copy}/trainer/config/ppo_trainer.yaml": CONFIG,
            f"{copy}/trainer/config/actor/dp_actor.yaml": ACTOR,
            f"{copy}/scripts/train.sh": f"python3 -m proj.verl.trainer.main_ppo trainer.critic_warmup = 0 {N4}\n",
        },
    )
    _, report = lint(root, monkeypatch)
    assert "GRPO001" in codes(report, "train.sh")  # `key = 0` is no override Hydra can parse
    write(root, {f"{copy}/scripts/train.sh": f"python3 -m proj.verl.trainer.main_ppo {N4}\n"})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []
    assert "skipped" not in str(notes(report).get(f"{copy}/scripts/train.sh", ""))


SUBCLASS_MAIN = MAIN.replace(
    "from verl.trainer.ppo.ray_trainer import RayPPOTrainer", "from my_rl.trainer.agent import AgentTrainer"
).replace("RayPPOTrainer(config=config)", "AgentTrainer(config=config)")


def test_verls_workers_check_the_rollout_split_whatever_trainer_drives_them(tmp_path, monkeypatch):
    run = f"python3 -m my_rl.trainer.main_ppo trainer.n_gpus_per_node={{gpus}} {N4}\n"
    root = fork(tmp_path, run.format(gpus=1))
    write(
        root,
        {
            "my_rl/trainer/main_ppo.py": SUBCLASS_MAIN,
            "my_rl/trainer/agent.py": "from verl.trainer.ppo.ray_trainer import RayPPOTrainer\n\n\n"
            "class AgentTrainer(RayPPOTrainer):\n    pass\n",
            "my_rl/trainer/config/rollout_tp.yaml": "",
        },
    )
    config = (root / "my_rl/trainer/config/ppo_trainer.yaml").read_text()
    write(
        root,
        {
            "my_rl/trainer/config/ppo_trainer.yaml": config.replace(
                "    n: 1\n", "    n: 1\n    tensor_model_parallel_size: 2\n"
            )
        },
    )
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == ["GRPO402"]  # 1 GPU cannot hold a rollout engine of 2
    write(root, {"scripts/train.sh": run.format(gpus=4)})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []


def test_a_placeholder_left_in_a_launch_stops_it_and_the_command_is_read_as_meant(tmp_path, monkeypatch):
    run = (
        "NPROC_PER_NODE=2 swift rlhf --rlhf_type grpo --model Qwen/Qwen2.5-7B --dataset {data} \\\n"
        "    --num_generations 4 --per_device_train_batch_size 2 --split_dataset_ratio 0\n"
    )
    root = write(tmp_path, {"requirements.txt": "ms-swift==3.5.3\n", "run.sh": run.format(data="<path_to_data>")})
    _, report = lint(root, monkeypatch)
    assert [(d["code"], d["line"], d["column"]) for d in report["diagnostics"]] == [("GRPO508", 1, 80)]
    write(root, {"run.sh": run.format(data="data/train.jsonl")})
    _, report = lint(root, monkeypatch)
    assert codes(report) == []


ASSERTING_MAIN = MAIN.replace(
    "def main(config):\n",
    "def main(config):\n    assert config.actor_rollout_ref.rollout.n == 1, 'groups come from env.rollout.n here'\n"
    "    if config.trainer.nnodes > 1:\n        assert config.data.train_batch_size == 7\n",
)


def test_an_assertion_of_the_entry_point_about_the_config_is_checked_against_the_run(tmp_path, monkeypatch):
    root = fork(tmp_path, "python3 -m my_rl.trainer.main_ppo actor_rollout_ref.rollout.n=5\n")
    write(root, {"my_rl/trainer/main_ppo.py": ASSERTING_MAIN})
    _, report = lint(root, monkeypatch)
    (stop,) = [d for d in report["diagnostics"] if d["path"].endswith("train.sh")]
    assert stop["code"] == "GRPO508" and "main_ppo.py:7 asserts" in stop["message"]
    # the tree's own value passes; an assertion under an `if` is not judged (data.train_batch_size is 64)
    write(root, {"scripts/train.sh": "python3 -m my_rl.trainer.main_ppo trainer.nnodes=2\n"})
    _, report = lint(root, monkeypatch)
    assert "GRPO508" not in codes(report, "train.sh")


def test_a_setting_the_script_replaces_after_parsing_is_not_used(tmp_path, monkeypatch):
    recipe = "num_generations: 4\nper_device_train_batch_size: 4\nmax_grad_norm: {value}\n"
    pipeline = PIPELINE.replace(
        "    GRPOTrainer(",
        "    training_args.max_grad_norm = 1.0\n    if model_args:\n        training_args.seed = 3\n    GRPOTrainer(",
    )
    root = write(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "x"\ndependencies = ["trl==0.15.0"]\n',
            "main.py": "from train.pipeline import main\n\nif __name__ == '__main__':\n    main()\n",
            "train/__init__.py": "",
            "train/pipeline.py": pipeline,
            "recipe.yaml": recipe.format(value=2.0) + "seed: 7\n",
            "start.sh": "accelerate launch --num_processes 4 main.py --config recipe.yaml\n",
        },
    )
    _, report = lint(root, monkeypatch)
    assert [(d["code"], d["line"]) for d in report["diagnostics"]] == [("GRPO012", 3)]  # seed: under an `if`
    write(root, {"recipe.yaml": recipe.format(value=1.0)})
    _, report = lint(root, monkeypatch)
    assert codes(report) == []


CHAIN_MAIN = MAIN.replace(
    "def main(config):\n",
    "def main(config):\n    manager = config.reward_model.get('reward_manager', 'episode')\n"
    "    if manager == 'episode':\n        pass\n    elif manager == 'naive':\n        pass\n"
    "    else:\n        raise NotImplementedError\n",
)


def test_an_if_chain_that_raises_for_other_values_of_a_key_is_checked_against_the_run(tmp_path, monkeypatch):
    run = "python3 -m my_rl.trainer.main_ppo +reward_model.reward_manager={manager} {N4}\n"
    root = fork(tmp_path, run.format(manager="dapo", N4=N4))
    write(root, {"my_rl/trainer/main_ppo.py": CHAIN_MAIN})
    _, report = lint(root, monkeypatch)
    (stop,) = [d for d in report["diagnostics"] if d["path"].endswith("train.sh")]
    assert stop["code"] == "GRPO508" and "only as 'episode', 'naive'" in stop["message"]
    write(root, {"scripts/train.sh": run.format(manager="naive", N4=N4)})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []


def test_ms_swift_top_p_above_one_fails_only_under_vllm(tmp_path, monkeypatch):
    config = "rlhf_type: grpo\nnum_generations: 4\nper_device_train_batch_size: 4\ntop_p: 1.5\n{vllm}"
    root = write(
        tmp_path, {"requirements.txt": "ms-swift==3.10.2\n", "grpo.yaml": config.format(vllm="use_vllm: true\n")}
    )
    _, report = lint(root, monkeypatch, "--world-size", "1", "grpo.yaml")
    assert [(d["code"], d["line"]) for d in report["diagnostics"]] == [("GRPO003", 4)]
    write(root, {"grpo.yaml": config.format(vllm="")})  # transformers' generate: no top-p filter above 1, no error
    _, report = lint(root, monkeypatch, "--world-size", "1", "grpo.yaml")
    assert codes(report) == []


def test_a_key_that_ties_a_config_to_releases_is_said_when_nothing_pins_the_framework(tmp_path, monkeypatch):
    config = "num_generations: 4\nper_device_train_batch_size: 4\nuse_vllm: true\nvllm_device: cuda:7\n"
    root = write(tmp_path, {"README.md": "x\n", "grpo.yaml": config})
    _, report = lint(root, monkeypatch, "--world-size", "4", "grpo.yaml")
    (tie,) = [d for d in report["diagnostics"] if d["code"] == "GRPO013"]
    assert tie["severity"] == "info" and tie["line"] == 4 and "trl<" in tie["fix"]["message"]
    write(root, {"requirements.txt": "trl==0.16.0\n"})  # a pin decides the release: nothing to say
    _, report = lint(root, monkeypatch, "--world-size", "4", "grpo.yaml")
    assert "GRPO013" not in codes(report)


def test_a_bare_install_in_one_example_does_not_outweigh_the_repositorys_pin(tmp_path, monkeypatch):
    config = "num_generations: 4\nper_device_train_batch_size: 4\nuse_vllm: true\nvllm_device: cuda:7\n"
    root = write(
        tmp_path,
        {
            "requirements.txt": "trl==0.16.0\n",
            "examples/demo/setup.sh": "pip install trl -U\n",
            "examples/demo/grpo.yaml": config,
        },
    )
    _, report = lint(root, monkeypatch, "--show", "examples/demo/grpo.yaml")
    assert '"target_source": "requirements.txt:1 trl==0.16.0"' in json_dumps(report)
    write(root, {"requirements.txt": "numpy\n"})  # nothing else states a release: the bare install is what there is
    _, report = lint(root, monkeypatch, "--show", "examples/demo/grpo.yaml")
    assert '"target_source": "examples/demo/setup.sh:1 trl' in json_dumps(report)


def json_dumps(report: dict) -> str:
    import json

    return json.dumps(report)


TRAIN = (
    "from trl import GRPOConfig, GRPOTrainer, TrlParser\n"
    "(config,) = TrlParser((GRPOConfig,)).parse_args_and_config()\nGRPOTrainer(model='m', args=config).train()\n"
)


def test_a_launch_of_a_script_the_repository_does_not_hold_never_starts(tmp_path, monkeypatch, uninstalled):
    run = "accelerate launch --num_processes 2 {script} --num_generations 4 --per_device_train_batch_size 4\n"
    files = {"README.md": "x\n", "train_grpo.py": TRAIN, "scripts/run.sh": run.format(script="grpo_old.py")}
    root = write(tmp_path, files)
    _, report = lint(root, monkeypatch)
    (stop,) = [d for d in report["diagnostics"] if d["code"] == "GRPO508"]
    assert stop["path"].endswith("scripts/run.sh") and stop["line"] == 1 and "can't open file" in stop["message"]
    # The command's own redirection writes its log, not the script: still missing.
    write(root, {"scripts/run.sh": run.format(script="grpo_old.py").replace("\n", " > train.log 2>&1\n")})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO508"]
    # A script named without a GRPO flag is a GRPO launch when its name says so: `python grpo_v1.py --beta 0.4`.
    write(root, {"scripts/run.sh": "python grpo_v1.py --beta 0.4\n"})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO508"]
    # The script is in the repository (in any folder: a README may say `cd` there first): it starts.
    write(root, {"scripts/run.sh": run.format(script="train_grpo.py")})
    _, report = lint(root, monkeypatch)
    assert "GRPO508" not in codes(report)
    write(root, {"scripts/run.sh": run.format(script="src/train_grpo.py"), "proj/src/train_grpo.py": TRAIN})
    _, report = lint(root, monkeypatch)
    assert "GRPO508" not in codes(report)
    # In a submodule's folder (`.gitmodules`): git lists none of its files, so a script there is not shown missing.
    write(root, {"scripts/run.sh": run.format(script="rl/grpo_main.py")})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO508"]
    write(root, {".gitmodules": '[submodule "rl"]\n  path = rl\n  url = https://x/rl.git\n'})
    _, report = lint(root, monkeypatch)
    assert "GRPO508" not in codes(report)
    (root / ".gitmodules").unlink()
    # An example or a documentation snippet may name the reader's own script.
    write(root, {"examples/run.sh": run.format(script="grpo_old.py"), "scripts/run.sh": "echo\n"})
    _, report = lint(root, monkeypatch)
    assert "GRPO508" not in codes(report)
    # Outside a project (no git work tree, no README or setup file) the walk is shallow: what is there is not shown.
    (root / "README.md").unlink()
    write(root, {"scripts/run.sh": run.format(script="grpo_old.py")})
    _, report = lint(root, monkeypatch)
    assert "GRPO508" not in codes(report)


@pytest.mark.parametrize(
    "before",
    [
        "cd $WORK/checkout\n",  # a folder not written out: where the command runs is not shown
        "git clone https://example.com/x.git && cd x\n",  # a folder the repository does not hold
        "wget https://example.com/grpo_old.py\n",  # the script fetches the file itself
        "cat > grpo_old.py << 'EOF'\nprint()\nEOF\n",  # or writes it
    ],
)
def test_a_script_that_may_be_made_or_found_elsewhere_is_not_called_missing(tmp_path, monkeypatch, uninstalled, before):
    run = before + "accelerate launch --num_processes 2 grpo_old.py --num_generations 4\n"
    root = write(tmp_path, {"README.md": "x\n", "train_grpo.py": TRAIN, "run.sh": run})
    _, report = lint(root, monkeypatch)
    assert "GRPO508" not in codes(report)


def test_a_config_file_the_script_writes_before_the_run_is_not_called_missing(tmp_path, monkeypatch, uninstalled):
    run = "swift rlhf --config configs/grpo.yaml\n"
    root = write(tmp_path, {"requirements.txt": "ms-swift==3.10.2\n", "run.sh": run})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO001"]
    written = "rlhf_type: grpo\nnum_generations: 2\nper_device_train_batch_size: 2\n"
    write(root, {"run.sh": f"mkdir -p configs\ncat > configs/grpo.yaml << 'EOF'\n{written}EOF\n" + run})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []
    # what it writes is the run's config: with ms-swift's defaults (1 per device, groups of 8) it breaks
    write(root, {"run.sh": "mkdir -p configs\ncat > configs/grpo.yaml << 'EOF'\nrlhf_type: grpo\nEOF\n" + run})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO102"]


def test_argparse_takes_a_unique_prefix_of_a_trl_scripts_flag(tmp_path, monkeypatch, uninstalled):
    run = "accelerate launch --num_processes 2 train_grpo.py --num_generations 4 --per_device_train_batch_size {flag}\n"
    root = write(
        tmp_path, {"README.md": "x\n", "train_grpo.py": TRAIN, "run.sh": run.format(flag="4 --num_train_epoch 2")}
    )
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == []  # --num_train_epochs, abbreviated: applied
    write(root, {"run.sh": run.format(flag="4 --num 2")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    (found,) = report["diagnostics"]
    assert found["code"] == "GRPO002" and "ambiguous option: --num could match" in found["message"]
    # The prefix stands for the flag in the other rules: `--per_device_train_batch` 3 breaks the groups of 4.
    write(
        root, {"run.sh": run.format(flag="4").replace("--per_device_train_batch_size 4", "--per_device_train_batch 3")}
    )
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == ["GRPO102"]


ARGPARSE_TRAIN = """import argparse
from trl import GRPOConfig, GRPOTrainer
parser = argparse.ArgumentParser()
parser.add_argument("--beta", type=float, default=0.4)
parser.add_argument("--sync_ref_model", action="store_true")
parser.add_argument("--n", type=int, default=4)
parser.add_argument("--bs", type=int, default=4)
parser.add_argument("--gamma", type=float, default=0.9)
args = parser.parse_args()
config = GRPOConfig(
    output_dir="o",
    beta=args.beta,
    sync_ref_model=args.sync_ref_model,
    num_generations=args.n,
    per_device_train_batch_size=args.bs,
    temperature=0.9 if args.gamma > 0.5 else 0.7,
)
GRPOTrainer(model="m", args=config, reward_funcs=[]).train()
"""


def test_a_flag_the_scripts_own_argparse_parser_lacks_stops_the_run(tmp_path, monkeypatch, uninstalled):
    """`python train.py --save_freq 100` where train.py's argparse parser, shown whole in the file, has no such option:
    argparse stops at start-up ("unrecognized arguments"). A unique prefix of an option is that option; a parser
    handed to a helper, or read with parse_known_args, may take any flag."""
    run = "python train.py --n 4 --bs 4 {more}\n"
    root = write(
        tmp_path, {"README.md": "x\n", "train.py": ARGPARSE_TRAIN, "run.sh": run.format(more="--save_freq 100")}
    )
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    (unknown,) = [d for d in report["diagnostics"] if d["code"] == "GRPO002"]
    assert (unknown["line"], unknown["column"], unknown["key"]) == (1, 30, "--save_freq")
    assert "unrecognized arguments: --save_freq" in unknown["message"]
    for accepted in ("--gam 0.5", "--sync_ref_model", "--beta=0.1"):
        write(root, {"run.sh": run.format(more=accepted)})
        _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
        assert "GRPO002" not in codes(report, "run.sh"), accepted
    write(root, {"run.sh": run.format(more="--save_freq 100")})
    for open_parser in (
        ARGPARSE_TRAIN.replace("args = parser.parse_args()", "add_logging_args(parser)\nargs = parser.parse_args()"),
        ARGPARSE_TRAIN.replace("args = parser.parse_args()", "args, _ = parser.parse_known_args()"),
        ARGPARSE_TRAIN.replace("argparse.ArgumentParser()", "argparse.ArgumentParser(parents=[base])"),
    ):
        write(root, {"train.py": open_parser})
        _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
        assert "GRPO002" not in codes(report, "run.sh")


def test_a_scripts_own_argparse_feeds_its_grpo_config_and_its_defaults_are_the_runs(tmp_path, monkeypatch, uninstalled):
    run = "accelerate launch --num_processes 2 train.py --sync_ref_model --gamma 0.5 {more}\n"
    root = write(tmp_path, {"README.md": "x\n", "train.py": ARGPARSE_TRAIN, "run.sh": run.format(more="")})
    # beta is the script's default 0.4 (GRPOConfig's 0.0 never reaches the run): a reference model to synchronise
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == []
    write(root, {"run.sh": run.format(more="--beta 0.0")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == ["GRPO404"]
    # `--n` is the group size (num_generations=args.n): 2 processes x 4 prompts is no whole number of groups of 3
    write(root, {"run.sh": run.format(more="--n 3")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert "GRPO102" in codes(report, "run.sh")
    write(root, {"run.sh": run.format(more="--n 8")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == []
    # A flag whose value is known only at launch (`for n in 3 4; do ... --n $n`) is judged by no default.
    write(root, {"run.sh": "for n in 3 4; do\n" + run.format(more="--n $n") + "done\n"})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert [d["severity"] for d in report["diagnostics"]] == ["info"]


RAY_TRAINER = """\
class RayPPOTrainer:
    def __init__(self, config):
        self.batch = config.data.train_batch_size
        self.mini = config.actor_rollout_ref.actor.ppo_mini_batch_size
        self.every = (config.trainer.save_freq, config.trainer.test_freq)
"""


def copy_with_an_unread_key(prefix: str) -> dict[str, str]:
    """A copy of verl below `prefix` whose config has `algorithm.legacy_weighting`, which none of its code reads."""
    return {
        f"{prefix}verl/__init__.py": "",
        f"{prefix}verl/version/version": "0.4.1\n",
        f"{prefix}verl/trainer/main_ppo.py": MAIN,
        f"{prefix}verl/trainer/ppo/ray_trainer.py": RAY_TRAINER,
        f"{prefix}verl/trainer/config/ppo_trainer.yaml": CONFIG.replace(
            "adv_estimator: grpo", "adv_estimator: grpo\n  legacy_weighting: 0.5"
        ),
        f"{prefix}verl/trainer/config/actor/dp_actor.yaml": ACTOR,
    }


UNREAD_RUN = f"python3 -m verl.trainer.main_ppo algorithm.legacy_weighting=0.7 {N4}\n"


def test_a_framework_installed_from_a_checkout_not_shown_is_what_the_later_runs_import(tmp_path, monkeypatch):
    """`!cd $HOME/verl_repo && pip install -e .` in a notebook (verl's getting-started notebook, kept in a project's
    copy of verl): the run imports that checkout, so what the repository's copy reads says nothing of the key (GRPO014).
    In a repository that is itself verl or a fork named for it, the checkout installed is most likely the repository;
    in a project of another name that holds a copy of verl at its root (Logic-RL), it is another checkout."""
    from .test_repository import _notebook

    run = f"!{UNREAD_RUN}"
    install = "!cd $HOME/verl_repo && pip3 install -e . -U\n"
    root = write(
        tmp_path,
        {"README.md": "x\n", **copy_with_an_unread_key("proj/"), "proj/examples/start.ipynb": _notebook(install, run)},
    )
    _, report = lint(root, monkeypatch)
    assert codes(report, "start.ipynb") == []
    (target,) = [t for t in report["summary"]["targets"] if t["framework"] == "verl"]
    assert "installs verl from $HOME/verl_repo" in target["source"]
    # without the install, the run imports the project's copy: the key is set for nothing
    write(root, {"proj/examples/start.ipynb": _notebook("!cd $HOME/other && ls\n", run)})
    _, report = lint(root, monkeypatch)
    assert codes(report, "start.ipynb") == ["GRPO014"]
    # a fork of verl at the repository's root, installed from the author's checkout of it: still its copy
    files = {"README.md": "x\n", **copy_with_an_unread_key(""), "examples/start.ipynb": _notebook(install, run)}
    _, report = lint(write(tmp_path / "verl-fork", files), monkeypatch)
    assert codes(report, "start.ipynb") == ["GRPO014"]
    # a project of another name with verl's code at its root: `$HOME/verl_repo` is another checkout (upstream verl)
    _, report = lint(write(tmp_path / "Logic-RL", files), monkeypatch)
    assert codes(report, "start.ipynb") == []
    # nor is that checkout's config tree the copy's: a key the copy lacks is not judged by it
    files["examples/start.ipynb"] = _notebook(install, run.replace("main_ppo ", "main_ppo trainer.no_such_key=1 "))
    _, report = lint(write(tmp_path / "Logic-RL", files), monkeypatch)
    assert codes(report, "start.ipynb") == []
    _, report = lint(write(tmp_path / "verl-fork", files), monkeypatch)
    assert "GRPO002" in codes(report, "start.ipynb")


def test_a_key_no_copy_reads_names_every_copy_of_the_repository(tmp_path, monkeypatch):
    """Two projects each with a copy of verl: the run composes its own project's tree, and the key is read by no Python
    file of the repository, so the message names both copies, not the first one alone."""
    files = {"README.md": "x\n", **copy_with_an_unread_key("one/"), **copy_with_an_unread_key("two/")}
    files["two/run.sh"] = UNREAD_RUN
    _, report = lint(write(tmp_path, files), monkeypatch)
    (unread,) = [d for d in report["diagnostics"] if d["path"].endswith("run.sh")]
    assert unread["code"] == "GRPO014" and "its copies of verl in one/verl/, two/verl/ included" in unread["message"]


def verl_0_4_copy(config: str, run: str) -> dict[str, str]:
    """A repository holding a copy of verl 0.4.1 (its trainer, its config tree) and one launch of it."""
    return {
        "README.md": "x\n",
        "verl/__init__.py": "",
        "verl/version/version": "0.4.1\n",
        "verl/trainer/main_ppo.py": MAIN,
        "verl/trainer/ppo/ray_trainer.py": RAY_TRAINER,
        "verl/trainer/config/ppo_trainer.yaml": config,
        "verl/trainer/config/actor/dp_actor.yaml": ACTOR,
        "run.sh": run,
    }


def test_a_key_of_the_copys_config_that_no_code_reads_is_set_for_nothing(tmp_path, monkeypatch):
    files = verl_0_4_copy(
        CONFIG.replace(
            "adv_estimator: grpo",
            "adv_estimator: grpo\n  legacy_weighting: 0.5\n  lora:\n    lora_A_init_method: xavier",
        ),
        # (a LoRA section is handed whole to PEFT's or Megatron-Bridge's LoRA class, whose fields read its keys)
        f"python3 -m verl.trainer.main_ppo algorithm.legacy_weighting=0.7 "
        f"algorithm.lora.lora_A_init_method=kaiming {N4}\n",
    )
    root = write(tmp_path, files)
    _, report = lint(root, monkeypatch)
    (unread,) = [d for d in report["diagnostics"] if d["path"].endswith("run.sh")]
    assert unread["code"] == "GRPO014" and unread["severity"] == "warning" and "`legacy_weighting`" in unread["message"]
    # Read somewhere in the repository's Python (the copy or the project's own code): it acts.
    write(
        root, {"verl/trainer/ppo/core_algos.py": "def weight(config):\n    return config.algorithm.legacy_weighting\n"}
    )
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []
    # A config group's choice (`model_engine=veomni`, whose option file sets `model_engine` at the top, as verl's
    # own does) is read by Hydra when it composes the tree, not by the code: never "set for nothing".
    engine = CONFIG.replace(
        "  - actor@actor_rollout_ref.actor: dp_actor",
        "  - model_engine: dp\n  - actor@actor_rollout_ref.actor: dp_actor",
    )
    write(root, {
        "verl/trainer/config/ppo_trainer.yaml": engine,
        "verl/trainer/config/model_engine/dp.yaml": "# @package _global_\nmodel_engine: dp\n",
        "verl/trainer/config/model_engine/veomni.yaml": "# @package _global_\nmodel_engine: veomni\n",
        "run.sh": f"python3 -m verl.trainer.main_ppo model_engine=veomni {N4}\n",
    })  # fmt: skip
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []
    write(root, {"run.sh": f"python3 -m verl.trainer.main_ppo model_engine=nothing {N4}\n"})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO001"]  # an option the group does not have: Hydra stops
    write(root, {name: files[name] for name in ("run.sh", "verl/trainer/config/ppo_trainer.yaml")})
    # A repository whose Python names none of the keys every verl reads does not hold the code that reads its
    # config (verl installed beside it): nothing is said.
    (root / "verl/trainer/ppo/core_algos.py").unlink()
    (root / "verl/trainer/ppo/ray_trainer.py").unlink()
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []


def test_a_key_added_with_plus_that_no_code_reads_is_set_for_nothing(tmp_path, monkeypatch):
    """`+actor_rollout_ref.rollout.val_temperature=0.7` (Logic-RL's scripts): Hydra adds the key, but no Python file
    of the repository names it, so nothing reads it. A SamplingParams field in the rollout section is read though
    (verl's vLLM rollout hands vLLM every key of its section SamplingParams has), and one the code names acts."""
    files = verl_0_4_copy(
        CONFIG, f"python3 -m verl.trainer.main_ppo +actor_rollout_ref.rollout.val_temperature=0.7 {N4}\n"
    )
    root = write(tmp_path, files)
    _, report = lint(root, monkeypatch)
    (unread,) = [d for d in report["diagnostics"] if d["path"].endswith("run.sh")]
    assert (
        unread["code"] == "GRPO014" and "`+actor_rollout_ref.rollout.val_temperature` adds a key" in unread["message"]
    )
    penalty = f"python3 -m verl.trainer.main_ppo +actor_rollout_ref.rollout.presence_penalty=0.5 {N4}\n"
    write(root, {"run.sh": penalty})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []
    write(root, {"run.sh": files["run.sh"], "verl/workers/rollout.py": "t = config.get('val_temperature', 1.0)\n"})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []


def test_a_wrapper_runs_the_base_script_with_its_words_as_the_bases_arguments(tmp_path, monkeypatch):
    base = (
        "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_batch_size=64 \\\n"
        '    actor_rollout_ref.rollout.n=${GROUP:-4} "$@"\n'
    )
    wrapper = (
        'PROJECT_ROOT="${PROJECT_ROOT:-/workspace/checkout}"\nGROUP=8 bash "${PROJECT_ROOT}/scripts/base.sh" {extra}\n'
    )
    root = write(
        tmp_path,
        {
            "README.md": "x\n",
            "scripts/base.sh": base,
            "scripts/exp.sh": wrapper.replace("{extra}", "data.max_prompt_lenght=512"),
        },
    )
    _, report = lint(root, monkeypatch, "--target", "verl==0.5.0", ".")
    # the checkout's folder is another machine's: the base script is the repository's scripts/base.sh, and the
    # wrapper's words are its "$@"
    (typo,) = [d for d in report["diagnostics"] if d["code"] == "GRPO002"]
    assert typo["path"].endswith("scripts/base.sh") and "scripts/exp.sh runs it" in typo["message"]
    assert "data.max_prompt_length" in typo["message"]
    write(root, {"scripts/exp.sh": wrapper.replace("{extra}", "data.max_prompt_length=512")})
    _, report = lint(root, monkeypatch, "--target", "verl==0.5.0", ".")
    assert "GRPO002" not in codes(report)
    # a base that shifts its arguments: `$@` is not the wrapper's words, and nothing is read into it
    write(
        root,
        {
            "scripts/base.sh": "shift\n" + base,
            "scripts/exp.sh": wrapper.replace("{extra}", "x data.max_prompt_lenght=512"),
        },
    )
    _, report = lint(root, monkeypatch, "--target", "verl==0.5.0", ".")
    assert "GRPO002" not in codes(report)


HYDRA_TRAIN = """\
import hydra
from trl import GRPOConfig, GRPOTrainer


@hydra.main(version_base=None, config_path="conf", config_name="train")
def main(cfg):
    args = GRPOConfig(
        output_dir="out",
        per_device_train_batch_size=cfg.grpo.batch,
        num_generations=cfg.grpo.group,
        temperature=cfg.grpo.temperature,
        beta=cfg.grpo.get("beta", 0.0),
    )
    GRPOTrainer(model=cfg.model, args=args, reward_funcs=[]).train()


if __name__ == "__main__":
    main()
"""
HYDRA_CONF = "model: m\ngrpo:\n  batch: 4\n  group: 4\n  temperature: 0.9\n"


def test_a_hydra_scripts_grpo_config_reads_the_composed_tree_and_the_overrides(tmp_path, monkeypatch):
    run = "accelerate launch --num_processes 2 train.py {overrides}\n"
    files = {
        "README.md": "x\n",
        "train.py": HYDRA_TRAIN,
        "conf/train.yaml": HYDRA_CONF,
        "run.sh": run.format(overrides="grpo.group=8"),
    }
    root = write(tmp_path, files)
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == []
    # the group size comes from the override: 2 x 4 prompts is no whole number of groups of 3
    write(root, {"run.sh": run.format(overrides="grpo.group=3")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == ["GRPO102"]
    # and from the composed tree when no override sets it: temperature 0 makes every group identical
    write(root, {"conf/train.yaml": HYDRA_CONF.replace("0.9", "0.0"), "run.sh": run.format(overrides="")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert "GRPO201" in codes(report)
    # an override of a key the tree lacks stops Hydra (struct mode); `+key` adds it
    write(root, {"conf/train.yaml": HYDRA_CONF, "run.sh": run.format(overrides="grpo.grup=8")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    (typo,) = report["diagnostics"]
    assert typo["code"] == "GRPO002" and "Could not override 'grpo.grup'" in typo["message"]
    assert "did you mean `grpo.group`?" in typo["message"] and typo["fix"]["message"].startswith("`grpo.group=8`")
    write(root, {"run.sh": run.format(overrides="+grpo.grup=8")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report) == []


def test_a_script_named_through_the_checkouts_folder_on_another_machine_is_the_repositorys(tmp_path, monkeypatch):
    run = (
        'REPO_DIR="${REPO_DIR:-/home/someone/checkout}"\ncd "${REPO_DIR}"\n'
        'accelerate launch --num_processes 2 "${REPO_DIR}/train.py" training.grpo.group=3\n'
    )
    files = {"README.md": "x\n", "train.py": HYDRA_TRAIN.replace("cfg.grpo.", "cfg.training.grpo."), "run.sh": run}
    files["conf/train.yaml"] = "model: m\ntraining:\n  grpo:\n    batch: 4\n    group: 4\n    temperature: 0.9\n"
    root = write(tmp_path, files)
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == ["GRPO102"]  # the repository's train.py composes conf/train.yaml: groups of 3
    # a folder the script does not `cd` to, with nothing of it in the repository: not the repository's file
    write(root, {"run.sh": run.replace('cd "${REPO_DIR}"\n', "").replace("${REPO_DIR}/train.py", "/opt/other/main.py")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert "GRPO102" not in codes(report)


def test_only_what_the_parser_returned_is_read_as_the_launchs_flags(tmp_path, monkeypatch):
    # `num_generations=config.group` reads a YAML the script loads, not `--group`: its value is not known
    script = ARGPARSE_TRAIN.replace("num_generations=args.n", "num_generations=config.group").replace(
        "args = parser.parse_args()\n", "args = parser.parse_args()\nconfig = load(args)\n"
    )
    run = "accelerate launch --num_processes 2 train.py --n 3\n"
    root = write(tmp_path, {"README.md": "x\n", "train.py": script, "run.sh": run})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert "GRPO102" not in codes(report)
    # a helper that parses (`args = get_args()`): its attributes are still the flags
    helper = ARGPARSE_TRAIN.replace(
        "args = parser.parse_args()\n", "def get_args():\n    return parser.parse_args()\nargs = get_args()\n"
    )
    write(root, {"train.py": helper})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == ["GRPO102"]


def test_a_script_beside_the_launch_script_is_found_however_the_shell_spells_its_folder(tmp_path, monkeypatch):
    run = (
        'SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
        'if ! accelerate launch --num_processes 2 "$SCRIPT_DIR/train_grpo.py" --num_generations 3 '
        "--per_device_train_batch_size 4; then\n  exit 1\nfi\n"
    )
    root = write(tmp_path, {"README.md": "x\n", "scripts/train_grpo.py": TRAIN, "scripts/run.sh": run})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == ["GRPO102"]  # read by the script's TrlParser: 2 x 4 is no whole group of 3
    write(root, {"scripts/run.sh": run.replace("--num_generations 3", "--num_generations 4")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == []
    # a wrapper that runs it with words of its own, spelling its folder with `cd --` and `dirname --` (the end of
    # options, as verl's own scripts write them): the wrapper's words reach the base script
    base = 'accelerate launch --num_processes 2 scripts/train_grpo.py --per_device_train_batch_size 4 "$@"\n'
    wrap = 'SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)\nexec bash "${SCRIPT_DIR}/run.sh" {}\n'
    write(root, {"scripts/run.sh": base, "scripts/wrap.sh": wrap.replace("{}", "--num_generations 3")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == ["GRPO102", "GRPO507"]  # when wrap.sh runs it (alone, `$@` is not known)
    write(root, {"scripts/wrap.sh": wrap.replace("{}", "--num_generations 4")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.20.0", ".")
    assert codes(report, "run.sh") == ["GRPO507"]


def test_a_module_run_by_a_python_known_only_at_launch_is_followed(tmp_path, monkeypatch):
    """`"$(sol_python)" -m pkg.main_ppo ...`, `"${PYTHON_BIN}" -m ...`: the interpreter is chosen at launch, and what
    follows `-m` is still the repository's entry point, composed and checked as with `python3 -m`."""
    bad = f'"$(pick_python)" -m my_rl.trainer.main_ppo actor_rollout_ref.rollout.typo_key=1 {N4}\n'
    root = fork(tmp_path, bad)
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == ["GRPO002"]
    write(root, {"scripts/train.sh": bad.replace('"$(pick_python)"', '"${PYTHON_BIN}"')})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == ["GRPO002"]
    write(root, {"scripts/train.sh": bad.replace("typo_key=1", "temperature=0.9")})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []
    # A program known only at launch that runs no module (`$RUNNER run.py`) may be anything: not read as Python.
    write(root, {"scripts/train.sh": '"$RUNNER" my_rl/trainer/main_ppo.py actor_rollout_ref.rollout.typo_key=1\n'})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []


RECIPE_ON_VERL = """\
hydra:
  searchpath:
    - pkg://verl.trainer.config
defaults:
  - ppo_trainer
  - _self_
data:
  train_batch_size: 64
actor_rollout_ref:
  actor:
    ppo_mini_batch_size: 16
  rollout:
    n: 4
algorithm:
  adv_estimator: grpo
"""


def test_a_group_option_of_the_repositorys_own_folder_shadows_the_packages_of_the_same_name(tmp_path, monkeypatch):
    """`pkg://verl.trainer.config` gives `ppo_trainer`, whose `data@data: legacy_data` Hydra looks up along the whole
    search path, the primary folder first: a `data/legacy_data.yaml` of the repository's own folder is the run's
    `data` (an extension's extra keys), not verl's file of that name."""
    job = 'python -m verl.trainer.main_ppo --config-path="$PWD/configs" --config-name=grpo data.custom_cls.extra=x\n'
    root = write(tmp_path, {"configs/grpo.yaml": RECIPE_ON_VERL, "scripts/train.sh": job})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert codes(report, "train.sh") == ["GRPO002"]  # verl's data config has no `custom_cls.extra`
    write(root, {"configs/data/legacy_data.yaml": "custom_cls:\n  extra: null\ntrain_batch_size: 64\n"})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert codes(report, "train.sh") == []
    # the same through the repository's own entry point, whose tree takes ppo_trainer from the package
    main = MAIN.replace('config_name="ppo_trainer"', 'config_name="grpo"')
    entry = "python3 -m my_rl.trainer.main_ppo data.custom_cls.extra=x\n"
    own = write(tmp_path / "own", {"my_rl/trainer/main_ppo.py": main, "my_rl/trainer/config/grpo.yaml": RECIPE_ON_VERL})
    write(own, {"scripts/train.sh": entry, "my_rl/__init__.py": "", "my_rl/trainer/__init__.py": ""})
    _, report = lint(own, monkeypatch, "--target", "verl==0.7.1", ".")
    assert "GRPO002" in codes(report, "train.sh")
    write(own, {"my_rl/trainer/config/data/legacy_data.yaml": "custom_cls:\n  extra: null\ntrain_batch_size: 64\n"})
    _, report = lint(own, monkeypatch, "--target", "verl==0.7.1", ".")
    assert "GRPO002" not in codes(report, "train.sh")


def test_a_cluster_batch_file_is_a_launch_script_and_a_config_path_below_pwd_is_the_repositorys(tmp_path, monkeypatch):
    """A Slurm/PBS batch file (`.job`, `.pbs`) is linted as a launch script, through `timeout` in front of the
    command; `--config-path="$PWD/configs"` names the repository's folder, so the recipe's own values (a mini
    batch of 16) are what the run starts from, not verl's defaults (256 > 128 would stop it)."""
    job = (
        "#!/usr/bin/env bash\n#SBATCH --nodes=1\ntimeout 3600 python -m verl.trainer.main_ppo \\\n"
        '    --config-path="$PWD/configs" --config-name=grpo \\\n    data.train_batch_size=128 {extra}\n'
    )
    root = write(tmp_path, {"configs/grpo.yaml": RECIPE_ON_VERL, "scripts/train.job": job.format(extra="")})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert notes(report)["scripts/train.job"] == "launch script"
    assert codes(report, "train.job") == []
    write(root, {"scripts/train.job": job.format(extra="+trainer.resume_mode=auto")})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert codes(report, "train.job") == ["GRPO009"]  # `+` on a key the composed tree has: Hydra stops
    write(root, {"scripts/train.pbs": job.format(extra="+trainer.resume_mode=auto")})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert codes(report, "train.pbs") == ["GRPO009"]


def test_a_base_config_not_known_before_launch_gives_no_verdict_from_verls_defaults(tmp_path, monkeypatch):
    """`--config-path "$CFG_DIR" --config-name grpo`: the base config is not known before launch, so a value the
    command leaves to it (the mini batch) is not verl's default: nothing is blamed on that default."""
    run = (
        "python -m verl.trainer.main_ppo --config-path={path} --config-name=grpo "
        "data.train_batch_size=128 algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=4\n"
    )
    root = write(tmp_path, {"configs/grpo.yaml": RECIPE_ON_VERL, "train.sh": run.format(path='"$CFG_DIR"')})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert "GRPO109" not in codes(report, "train.sh")
    write(root, {"train.sh": run.format(path="configs").replace("grpo data", "missing data")})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert "GRPO109" not in codes(report, "train.sh")  # not in the repository: not verl's defaults either
    write(root, {"train.sh": run.format(path="configs").replace("grpo data", "ppo_trainer data")})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert "GRPO109" in codes(report, "train.sh")  # verl's own config: its default 256 > 128 stops the run
    # The mini batch written as a value known only at launch, or words that may set it: its default is not blamed.
    for unknown in ("actor_rollout_ref.actor.ppo_mini_batch_size=$MINI", '"${EXTRA_ARGS[@]}"'):
        command = run.format(path="configs").replace("grpo data", "ppo_trainer data").rstrip("\n")
        write(root, {"train.sh": f"{command} {unknown}\n"})
        _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
        assert "GRPO109" not in codes(report, "train.sh"), unknown


def test_a_pythonpath_folder_the_repository_does_not_hold_may_hold_the_framework_that_runs(tmp_path, monkeypatch):
    """`export PYTHONPATH=$PWD/external/Search-R1:$PWD` before `python -m verl.trainer.main_ppo`: a folder cloned
    at run time comes first, so the verl that runs may be a fork there, with keys of its own; its keys are not
    judged against a verl release. Once the repository holds the folder (without verl in it), they are."""
    run = (
        'export PYTHONPATH="$PWD/external/Search-R1:$PWD:${PYTHONPATH:-}"\n'
        "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=4 "
        "actor_rollout_ref.rollout.n_agent=5 data.train_batch_size=512\n"
    )
    root = write(tmp_path, {"train.sh": run})
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []
    assert any("external/Search-R1" in u for f in report["summary"]["files"] for u in f["not_checked"])
    write(root, {"external/Search-R1/README.md": "notes\n"})
    _, report = lint(root, monkeypatch)
    assert "GRPO002" in codes(report, "train.sh")  # n_agent is no key of verl's config


def test_a_command_run_inside_a_container_is_the_launch(tmp_path, monkeypatch):
    """`docker run [options] IMAGE command` and `docker exec [options] CONTAINER command` run the command in the
    container: `--entrypoint python3 IMAGE -m verl.trainer.main_ppo ...` is verl's trainer, judged as such (a group
    of one); a container run without a command, or `docker build`, launches nothing."""
    run = (
        'docker run --rm --gpus all --shm-size=16g -e "VLLM_USE_V1=1" -v "$PWD":/workspace --workdir /opt/verl \\\n'
        "    --entrypoint python3 verlai/verl:latest \\\n"
        "    -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n={n} "
        "data.train_batch_size=64 actor_rollout_ref.rollout.temperature={t}\n"
    )
    root = write(tmp_path, {"train.sh": run.format(n=1, t=1.0)})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert "GRPO101" in codes(report, "train.sh")
    write(root, {"train.sh": run.format(n=4, t=0)})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert "GRPO101" not in codes(report, "train.sh") and "GRPO201" in codes(report, "train.sh")
    write(root, {"train.sh": "docker exec -it -w /ws trainer python3 -m verl.trainer.main_ppo "
                             "algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=1\n"})  # fmt: skip
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert "GRPO101" in codes(report, "train.sh")
    write(root, {"train.sh": "docker build -t verl .\ndocker run --rm -it verlai/verl:latest\n"})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert notes(report)["train.sh"] == "no GRPO launch command"


def test_a_verl_trainer_whose_config_is_not_read_says_its_keys_were_not_checked(tmp_path, monkeypatch):
    """One of verl's other trainers (`verl.experimental.one_step_off_policy.main_ppo`) composes a config of its
    own that grpo-lint does not read: an unknown key goes unreported there, and the file's summary says which rules
    were not checked rather than passing it as checked; verl's main_ppo reports the same key."""
    run = "python3 -m {module} algorithm.adv_estimator=grpo actor_rollout_ref.rollout.bogus_probe=1\n"
    root = write(tmp_path, {"train.sh": run.format(module="verl.experimental.one_step_off_policy.main_ppo")})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert codes(report, "train.sh") == []
    (summary,) = report["summary"]["files"]
    assert any("composes a config of its own" in note for note in summary["not_checked"])
    write(root, {"train.sh": run.format(module="verl.trainer.main_ppo")})
    _, report = lint(root, monkeypatch, "--target", "verl==0.7.1", ".")
    assert "GRPO002" in codes(report, "train.sh")
    (summary,) = report["summary"]["files"]
    assert not any("composes a config of its own" in note for note in summary["not_checked"])


def test_a_scripts_grpo_config_keywords_are_evidence_of_the_release_even_where_its_parser_names_them(
    tmp_path, monkeypatch
):
    """The repository bounds TRL to 0.14-0.17 (transformers==4.48.3) and its script passes `loss_type=` to
    GRPOConfig, a keyword TRL has only from 0.17.0: that release is the only one the run fits, so a batch that is
    no whole number of groups there is an error, though the script's own argparse has a `--loss_type` flag too.
    Without the keyword the release stays open (0.14.0 counted prompts, not completions): a warning."""
    train = ARGPARSE_TRAIN.replace(
        'parser.add_argument("--gamma"',
        'parser.add_argument("--loss_type", default="bnpo")\nparser.add_argument("--gamma"',
    ).replace("    beta=args.beta,\n", "    beta=args.beta,\n    loss_type=args.loss_type,\n")
    train = train.replace("    sync_ref_model=args.sync_ref_model,\n", "")  # (a keyword of TRL 0.15.0 on)
    root = write(tmp_path, {
        "requirements.txt": "trl\ntransformers==4.48.3\n",
        "train.py": train,
        "run.sh": "python train.py --loss_type dr_grpo --n 16 --bs 4\n",
    })  # fmt: skip
    _, report = lint(root, monkeypatch, ".")
    (found,) = [d for d in report["diagnostics"] if d["code"] == "GRPO102"]
    assert found["severity"] == "error" and "the only TRL release that fits" in found["message"]
    write(root, {"train.py": train.replace("    loss_type=args.loss_type,\n", "")})
    _, report = lint(root, monkeypatch, ".")
    (found,) = [d for d in report["diagnostics"] if d["code"] == "GRPO102"]
    assert found["severity"] == "warning"


def test_a_script_that_hands_its_command_line_to_verls_main_is_verls_entry(tmp_path, monkeypatch):
    """`from verl.trainer.main_ppo import main` (after patching what it runs) and `main()`: the overrides the launch
    gives the script are verl's, composed on verl's own tree."""
    wrapper = (
        "import verl.trainer.main_ppo as _main_ppo\n\n\ndef run(config):\n    ...\n\n\n_main_ppo.run_ppo = run\n"
        "from verl.trainer.main_ppo import main  # noqa: E402\n\nif __name__ == '__main__':\n    main()\n"
    )
    run = (
        "python scripts/train.py algorithm.adv_estimator=grpo data.train_batch_size=64 "
        "actor_rollout_ref.actor.ppo_mini_batch_size={mini} actor_rollout_ref.rollout.n=4 "
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 "
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 "
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4 trainer.n_gpus_per_node=8 trainer.nnodes=1\n"
    )
    files = {"requirements.txt": "verl==0.4.0\n", "scripts/train.py": wrapper, "run.sh": run.format(mini=128)}
    root = write(tmp_path, files)
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO109"]  # a mini batch of 128 prompts in a step of 64
    write(root, {"run.sh": run.format(mini=32)})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []
    # A script that only imports something of verl's main is no verl launch of its own
    helper = "from verl.trainer.main_ppo import create_rl_dataset\n"
    write(root, {"scripts/train.py": helper, "run.sh": run.format(mini=128)})
    _, report = lint(root, monkeypatch)
    assert "GRPO109" not in codes(report, "run.sh")


def test_an_unknown_flag_of_an_openrlhf_copy_names_the_copys_parser(tmp_path, monkeypatch):
    """A repository that runs its own copy of OpenRLHF (`openrlhf/cli/train_ppo_ray.py`, its own flags): a flag the
    copy's argparse lacks stops the run, and the message names that parser, not a release's."""
    parser = (
        "import argparse\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n"
        + "".join(
            f'    parser.add_argument("--{flag}", type=int, default=1)\n'
            for flag in ("n_samples_per_prompt", "rollout_batch_size", "train_batch_size", "my_fork_flag")
        )
        + '    parser.add_argument("--advantage_estimator", type=str, default="gae")\n'
        + "    return parser.parse_args()\n"
    )
    run = (
        "python3 -m openrlhf.cli.train_ppo_ray --advantage_estimator group_norm --n_samples_per_prompt 8 "
        "--my_fork_flag 2 {extra}\n"
    )
    files = {
        "README.md": "x\n", "openrlhf/__init__.py": "", "openrlhf/cli/__init__.py": "",
        "openrlhf/cli/train_ppo_ray.py": parser, "version.txt": "0.8.5\n", "run.sh": run.format(extra=""),
    }  # fmt: skip
    root = write(tmp_path, files)
    _, report = lint(root, monkeypatch)
    assert "GRPO002" not in codes(report, "run.sh")  # the copy's own flag is known
    write(root, {"run.sh": run.format(extra="--no_such_flag 1")})
    _, report = lint(root, monkeypatch)
    (unknown,) = [d for d in report["diagnostics"] if d["code"] == "GRPO002"]
    assert "not a flag of the train_ppo_ray of the OpenRLHF copy in openrlhf/" in unknown["message"]


def test_a_finding_about_a_line_of_the_launched_script_is_reported_there_once(tmp_path, monkeypatch):
    """A launch of a script whose GRPOConfig(...) call writes a key some releases lack (GRPO013, where the pin allows
    every release): the finding is about the script's line, so it is reported in the script, once, however many
    launch scripts run it (it was reported at that line number of each launch script too)."""
    train = ARGPARSE_TRAIN.replace('    output_dir="o",\n', '    output_dir="o",\n    max_prompt_length=512,\n')
    root = write(tmp_path, {
        "README.md": "x\n", "requirements.txt": "trl>=0.14\n", "train.py": train,
        "run_a.sh": "python train.py --n 4\n", "run_b.sh": "python train.py --n 8 --bs 8\n",
    })  # fmt: skip
    _, report = lint(root, monkeypatch)
    ties = [(d["path"].removeprefix("./"), d["line"]) for d in report["diagnostics"] if d["code"] == "GRPO013"]
    assert ("train.py", 12) in ties and len(ties) == len(set(ties))  # max_prompt_length's line, once
    assert {path for path, _ in ties} == {"train.py"}


# OpenRLHF's agent and reward files -------------------------------------------------------------

OPENRLHF_RUN = """\
#!/bin/bash
SCRIPT_DIR="$(dirname "$0")"
WORK_DIR="$(realpath "$SCRIPT_DIR/..")"
ARGS=(
   --pretrain Qwen/Qwen2.5-1.5B
   {flag} {path}
   --advantage_estimator group_norm
   --rollout_batch_size 16
   --n_samples_per_prompt 4
   --train_batch_size 64
)
python3 -m openrlhf.cli.train_ppo_ray ${{ARGS[@]}}
"""
EXECUTOR = "from openrlhf.utils.agent import AgentExecutorBase\n\n\nclass AgentExecutor(AgentExecutorBase):\n    pass\n"
STEP = "async def step(state, action, label):\n    return {}\n"


def _openrlhf_repo(root: Path, flag: str, path: str, pin: str = "openrlhf==0.9.3") -> Path:
    return write(root, {
        "requirements.txt": f"{pin}\n", "scripts/train.sh": OPENRLHF_RUN.format(flag=flag, path=path),
        "agents/executor.py": EXECUTOR, "agents/demo.py": "def main():\n    print('demo')\n",
        "agents/old.py": STEP, "rewards/math.py": "def reward_func(queries, prompts, labels):\n    return 0\n",
    })  # fmt: skip


@pytest.mark.parametrize(
    ("path", "pin", "expected"),
    [
        ("${WORK_DIR}/agents/demo.py", "openrlhf==0.9.3", ["GRPO508"]),  # defines neither name
        ("${WORK_DIR}/agents/executor.py", "openrlhf==0.9.3", []),
        ("${WORK_DIR}/agents/old.py", "openrlhf==0.9.3", ["GRPO508"]),  # v0.8's agent API under 0.9.3
        ("${WORK_DIR}/agents/old.py", "openrlhf==0.8.5", []),
        ("${WORK_DIR}/agents/executor.py", "openrlhf==0.8.5", ["GRPO508"]),  # 0.8.x takes `step`
        ("${WORK_DIR}/agents/old.py", "openrlhf>=0.8", []),  # which release runs is not stated
        ("agents/missing.py", "openrlhf==0.9.3", ["GRPO508"]),  # written out, and in no folder of the repository
        ("${WORK_DIR}/agents/missing.py", "openrlhf==0.9.3", []),  # through a folder not shown: may be anywhere
    ],
)
def test_an_openrlhf_agent_file_must_define_what_the_release_takes(tmp_path, monkeypatch, path, pin, expected):
    root = _openrlhf_repo(tmp_path, "--agent_func_path", path, pin)
    _, report = lint(root, monkeypatch)
    assert [c for c in codes(report, "train.sh") if c == "GRPO508"] == expected
    if expected:
        (found,) = [d for d in report["diagnostics"] if d["code"] == "GRPO508"]
        assert found["line"] == 12 and "agent_func_path" in found["message"]


def test_an_openrlhf_reward_file_must_define_reward_func(tmp_path, monkeypatch):
    root = _openrlhf_repo(tmp_path, "--remote_rm_url", "${WORK_DIR}/agents/demo.py")
    _, report = lint(root, monkeypatch)
    (found,) = [d for d in report["diagnostics"] if d["code"] == "GRPO508"]
    assert "defines no `reward_func`" in found["message"]
    root = _openrlhf_repo(tmp_path, "--remote_rm_url", "${WORK_DIR}/rewards/math.py")
    _, report = lint(root, monkeypatch)
    assert "GRPO508" not in codes(report, "train.sh")
    root = _openrlhf_repo(tmp_path, "--remote_rm_url", "http://localhost:5000/get_reward")  # a server: not a file
    _, report = lint(root, monkeypatch)
    assert codes(report, "train.sh") == []


def test_a_module_that_may_define_anything_is_not_judged():
    from grpo_lint.launch.openrlhf_files import defined_names

    assert defined_names("from .impl import *\n") is None
    assert defined_names("def __getattr__(name):\n    return 1\n") is None
    assert defined_names("try:\n    from a import AgentExecutor\nexcept ImportError:\n    step = None\n") == {
        "AgentExecutor",
        "step",
    }
    assert defined_names("if True:\n    class AgentExecutor: ...\nX: int = 1\n") == {"AgentExecutor", "X"}


# A copy of verl 0.1's code (TinyZero and its forks) ------------------------------------------------

V01_CONFIG = """\
data:
  train_batch_size: 256
actor_rollout_ref:
  actor:
    strategy: fsdp
    ppo_mini_batch_size: 256
    ppo_micro_batch_size: 64
    use_dynamic_bsz: False
    ulysses_sequence_parallel_size: 1
  rollout:
    name: vllm
    n: 1
    temperature: 1.0
    log_prob_micro_batch_size: 128
    tensor_model_parallel_size: 2
  ref:
    log_prob_micro_batch_size: 128
algorithm:
  adv_estimator: gae
trainer:
  n_gpus_per_node: 8
  nnodes: 1
"""
V01_MAIN = (
    'import hydra\n\n\n@hydra.main(config_path="config", config_name="ppo_trainer", version_base=None)\n'
    "def main(config):\n    print(config)\n"
)
V01_WORKERS = (
    "class ActorRolloutRefWorker:\n    def __init__(self, config):\n        self.config = config\n"
    "        self.config.actor.ppo_micro_batch_size //= (self.device_mesh.shape[0] // self.ulysses_size)\n"
)
V01_GUARD = (
    "        if self.config.actor.ppo_micro_batch_size == 0:\n            self.config.actor.ppo_micro_batch_size = 1\n"
)
V01_ACTOR = (
    "class DataParallelPPOActor:\n    def update_policy(self, data):\n"
    "        assert self.config.ppo_mini_batch_size % self.config.ppo_micro_batch_size == 0\n"
)


@pytest.mark.parametrize(
    ("micro", "gpus", "floors", "stops"),
    [
        (4, 8, True, True),  # 4 // 8 = 0: `mini % 0` at the first update
        (8, 8, True, False),
        (16, 32, True, True),
        (4, 8, False, False),  # a copy whose code does not show the floor: its release is unknown, nothing said
        (4, 8, "guarded", False),  # a fork that puts a floored 0 back to 1 (TinyZero-PRM): the division never sees 0
    ],
)
def test_a_verl_01_copy_floors_the_global_micro_batch_to_zero(tmp_path, monkeypatch, micro, gpus, floors, stops):
    run = (
        "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=4 "
        f"actor_rollout_ref.actor.ppo_micro_batch_size={micro} trainer.n_gpus_per_node={gpus} trainer.nnodes=1\n"
    )
    root = write(tmp_path, {
        "verl/__init__.py": "", "verl/version/version": "0.1\n", "verl/trainer/__init__.py": "",
        "verl/trainer/main_ppo.py": V01_MAIN, "verl/trainer/config/ppo_trainer.yaml": V01_CONFIG,
        "verl/workers/fsdp_workers.py": (V01_WORKERS + V01_GUARD if floors == "guarded" else V01_WORKERS)
        if floors else "class ActorRolloutRefWorker:\n    pass\n",
        "verl/workers/actor/dp_actor.py": V01_ACTOR, "scripts/train.sh": run,
    })  # fmt: skip
    _, report = lint(root, monkeypatch)
    found = [d for d in report["diagnostics"] if d["code"] == "GRPO111"]
    assert [(d["line"], "ZeroDivisionError" in d["message"]) for d in found] == ([(1, True)] if stops else [])


@pytest.mark.parametrize(
    ("cd", "judged"),
    [
        ("", True),  # the installed verl runs
        ("cd ~/TinyZero\n", False),  # `python -m` there imports that checkout's verl first
        ("cd /root/repo\n", True),  # the checkout itself (named as the repository's folder)
        ("cd $WORK\n", True),  # a folder not written out says nothing of what it holds
    ],
)
def test_a_cd_to_another_projects_checkout_runs_its_copy(tmp_path, monkeypatch, cd, judged):
    """`cd ~/TinyZero && python3 -m verl.trainer.main_ppo`: the verl that runs is that checkout's, not shown."""
    root = tmp_path / "repo"
    run = f"{cd}python3 -m verl.trainer.main_ppo +trainer.val_before_train=False actor_rollout_ref.rollout.n=4\n"
    write(root, {"requirements.txt": "verl==0.7.1\n", "scripts/train.sh": run})
    _, report = lint(root, monkeypatch)
    assert ("GRPO009" in codes(report, "train.sh")) == judged


def test_a_copys_trainer_shows_when_it_reads_the_kl_controller(tmp_path, monkeypatch):
    """A verl 0.1 copy (TinyZero's) skips the KL penalty in the reward, and so `algorithm.kl_ctrl`, when the actor's
    KL loss is on; its own trainer shows that condition, whatever its release (GRPO016)."""
    trainer = (
        "class RayPPOTrainer:\n    def fit(self):\n"
        "        if not self.config.actor_rollout_ref.actor.use_kl_loss:\n"
        "            batch, kl_metrics = apply_kl_penalty(batch, kl_ctrl=self.kl_ctrl)\n"
    )
    config = CONFIG.replace("  adv_estimator: grpo", "  adv_estimator: grpo\n  kl_ctrl:\n    kl_coef: 0.001")
    run = (
        "python3 -m verl.trainer.main_ppo {N4} actor_rollout_ref.actor.use_kl_loss={loss} algorithm.kl_ctrl.kl_coef=1\n"
    )
    files = {
        "README.md": "x\n",
        "verl/__init__.py": "",
        "verl/trainer/main_ppo.py": MAIN,
        "verl/trainer/ppo/ray_trainer.py": trainer,
        "verl/trainer/config/ppo_trainer.yaml": config,
        "verl/trainer/config/actor/dp_actor.yaml": ACTOR,
        "run.sh": run.format(N4=N4, loss="true"),
    }
    _, report = lint(write(tmp_path, files), monkeypatch)
    (found,) = [d for d in report["diagnostics"] if d["code"] == "GRPO016"]
    assert "use_kl_loss is true, and its trainer skips the KL penalty in the reward" in found["message"]
    assert "use_kl_in_reward" not in found["fix"]["message"]  # (a key this copy does not have)
    write(tmp_path, {"run.sh": run.format(N4=N4, loss="false")})  # the penalty is applied: the controller is read
    _, report = lint(tmp_path, monkeypatch)
    assert "GRPO016" not in codes(report)
    # A trainer whose only call is commented out (DeepScaleR's copy): the controller is never read, whatever the loss.
    commented = (
        trainer.replace("            batch, kl", "            # batch, kl") + "def apply_kl_penalty(batch):\n    pass\n"
    )
    write(tmp_path, {"verl/trainer/ppo/ray_trainer.py": commented})
    _, report = lint(tmp_path, monkeypatch)
    (found,) = [d for d in report["diagnostics"] if d["code"] == "GRPO016"]
    assert "never applies the KL penalty in the reward" in found["message"]
    # A trainer that applies it whatever the loss (the v0.1 tag): the controller is read either way.
    write(
        tmp_path,
        {
            "run.sh": run.format(N4=N4, loss="true"),
            "verl/trainer/ppo/ray_trainer.py": trainer.replace(
                "        if not self.config.actor_rollout_ref.actor.use_kl_loss:\n    ", ""
            ),
        },
    )
    _, report = lint(tmp_path, monkeypatch)
    assert "GRPO016" not in codes(report)


def test_a_copy_whose_actor_subtracts_the_kl_loss_reverses_the_penalty(tmp_path, monkeypatch):
    """TinyZero's verl (main between #124 and #179, 2025-02-01) subtracts the KL loss: use_kl_loss then rewards moving
    away from the reference (GRPO412); a copy that adds it, or a run without the loss, is fine."""
    actor = (
        "class DataParallelPPOActor:\n    def update_policy(self, data):\n"
        "        if self.config.use_kl_loss:\n"
        "            policy_loss = policy_loss - kl_loss * self.config.kl_loss_coef\n"
    )
    run = "python3 -m verl.trainer.main_ppo {N4} actor_rollout_ref.actor.use_kl_loss={loss}\n"
    files = {
        "README.md": "x\n",
        "verl/__init__.py": "",
        "verl/trainer/main_ppo.py": MAIN,
        "verl/trainer/config/ppo_trainer.yaml": CONFIG,
        "verl/trainer/config/actor/dp_actor.yaml": ACTOR + "kl_loss_coef: 0.001\n",
        "verl/workers/actor/dp_actor.py": actor,
        "run.sh": run.format(N4=N4, loss="true"),
    }
    _, report = lint(write(tmp_path, files), monkeypatch)
    (found,) = [d for d in report["diagnostics"] if d["code"] == "GRPO412"]
    assert "verl/workers/actor/dp_actor.py:4" in found["message"] and found["severity"] == "warning"
    write(tmp_path, {"run.sh": run.format(N4=N4, loss="false")})
    _, report = lint(tmp_path, monkeypatch)
    assert "GRPO412" not in codes(report)
    write(
        tmp_path,
        {"run.sh": run.format(N4=N4, loss="true"), "verl/workers/actor/dp_actor.py": actor.replace(" - ", " + ")},
    )
    _, report = lint(tmp_path, monkeypatch)
    assert "GRPO412" not in codes(report)
