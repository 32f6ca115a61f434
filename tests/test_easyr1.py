"""EasyR1's launches (grpo_lint.launch.easyr1): `python3 -m verl.trainer.main config=X key=value` of a repository's own
copy, its config built from the copy's dataclasses. The copy below is written here, shaped as EasyR1 0.3's; where
omegaconf is installed (the `differential` extra), the key and type verdicts are checked against its real merge."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from .test_repository import codes, lint, notes, write

MAIN = """\
from omegaconf import OmegaConf

from .config import PPOConfig


def main():
    cli_args = OmegaConf.from_cli()
    default_config = OmegaConf.structured(PPOConfig())
    if hasattr(cli_args, "config"):
        default_config = OmegaConf.merge(default_config, OmegaConf.load(cli_args.pop("config")))
    return OmegaConf.to_object(OmegaConf.merge(default_config, cli_args))
"""
TRAINER_CONFIG = """\
from dataclasses import dataclass, field
from typing import Optional

from ..workers.config import WorkerConfig


@dataclass
class DataConfig:
    train_files: str = ""
    rollout_batch_size: int = 512
    max_prompt_length: int = 512
    seed: int = 1


@dataclass
class AlgorithmConfig:
    adv_estimator: str = "grpo"
    kl_coef: float = 1e-3
    disable_kl: bool = False


@dataclass
class TrainerConfig:
    nnodes: int = 1
    n_gpus_per_node: int = 8
    max_steps: Optional[int] = None


@dataclass
class PPOConfig:
    data: DataConfig = field(default_factory=DataConfig)
    worker: WorkerConfig = field(default_factory=WorkerConfig)
    algorithm: AlgorithmConfig = field(default_factory=AlgorithmConfig)
    trainer: TrainerConfig = field(default_factory=TrainerConfig)
"""
WORKER_CONFIG = """\
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ActorConfig:
    global_batch_size: int = 256
    micro_batch_size_per_device_for_update: int = 4
    micro_batch_size_per_device_for_experience: int = 16
    ulysses_size: int = 1


@dataclass
class RolloutConfig:
    n: int = 1
    temperature: float = 1.0
    top_k: int = -1
    val_override_config: dict[str, Any] = field(default_factory=dict)


@dataclass
class WorkerConfig:
    actor: ActorConfig = field(default_factory=ActorConfig)
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
"""
RAY_TRAINER = """\
def check(config):
    if config.data.rollout_batch_size % config.worker.actor.global_batch_size != 0:
        raise ValueError("Rollout batch size must be divisible by actor global batch size.")
    if config.worker.rollout.n == 1:
        raise ValueError("GRPO and RLOO algorithm need `config.worker.rollout.n > 1`.")
"""
WORKERS = """\
def check(config):
    raise ValueError(f"{role} global batch size * ulysses size must be larger than num gpus.")
    raise ValueError(f"{role} global batch size per device must be divisible by the micro batch size.")
"""
YAML = """\
data:
  train_files: hiyouga/math12k@train
  rollout_batch_size: 512
algorithm:
  adv_estimator: grpo
worker:
  actor:
    global_batch_size: 128
  rollout:
    n: 5
    val_override_config:
      temperature: 0.6
trainer:
  n_gpus_per_node: 8
"""


def copy(root: Path, run: str, config: str = YAML, checks: bool = True) -> Path:
    return write(root, {
        "verl/__init__.py": "", "verl/trainer/__init__.py": "", "verl/trainer/main.py": MAIN,
        "verl/trainer/config.py": TRAINER_CONFIG, "verl/workers/__init__.py": "",
        "verl/workers/config.py": WORKER_CONFIG, "verl/trainer/ray_trainer.py": RAY_TRAINER if checks else "",
        "verl/workers/fsdp_workers.py": WORKERS if checks else "",
        "examples/config.yaml": config, "examples/run.sh": run,
    })  # fmt: skip


def run_with(*overrides: str) -> str:
    return "python3 -m verl.trainer.main config=examples/config.yaml " + " ".join(overrides) + "\n"


def test_a_clean_easyr1_launch_is_read_and_passes(tmp_path, monkeypatch):
    root = copy(tmp_path, run_with("worker.rollout.n=8", "worker.rollout.val_override_config.n=1"))
    _, report = lint(root, monkeypatch)
    assert codes(report) == []
    assert notes(report)["examples/run.sh"] == "launch script"  # linted, not skipped as "no GRPO launch command"


@pytest.mark.parametrize(
    ("overrides", "config", "expected"),
    [
        (("worker.rollout.nn=8",), YAML, [("GRPO002", "run.sh")]),  # a key RolloutConfig lacks, on the command line
        ((), YAML.replace("  seed_x: 1\n", "") + "data2:\n  x: 1\n", [("GRPO002", "config.yaml")]),  # in the file
        (("data.rollout_batch_size=many",), YAML, [("GRPO003", "run.sh")]),  # not an integer
        (("worker.rollout.n=1",), YAML, [("GRPO101", "run.sh")]),  # the copy's trainer refuses a group of one
        (("worker.rollout.temperature=0",), YAML, [("GRPO201", "run.sh")]),
        (("worker.rollout.top_k=1",), YAML, [("GRPO202", "run.sh")]),
        (("worker.actor.global_batch_size=128", "data.rollout_batch_size=500"), YAML, [("GRPO109", "run.sh")]),
        (("worker.actor.global_batch_size=1", "worker.rollout.n=2", "trainer.n_gpus_per_node=4",
          "data.rollout_batch_size=4"), YAML, [("GRPO110", "run.sh")]),  # 1 x 2 responses over 4 GPUs: none per GPU
    ],
)  # fmt: skip
def test_what_easyr1s_entry_point_stops_on(tmp_path, monkeypatch, overrides, config, expected):
    root = copy(tmp_path, run_with(*overrides), config)
    _, report = lint(root, monkeypatch)
    found = sorted((d["code"], Path(d["path"]).name) for d in report["diagnostics"] if d["severity"] != "info")
    assert found == expected


def test_a_group_of_one_where_the_copy_does_not_check_is_a_warning_and_batches_are_not_judged(tmp_path, monkeypatch):
    root = copy(tmp_path, run_with("worker.rollout.n=1", "worker.actor.global_batch_size=100"), checks=False)
    _, report = lint(root, monkeypatch)
    assert [(d["code"], d["severity"]) for d in report["diagnostics"]] == [("GRPO101", "warning")]


def test_a_config_file_that_is_not_there_stops_the_run_and_another_machines_path_is_looked_up(tmp_path, monkeypatch):
    root = copy(tmp_path, "python3 -m verl.trainer.main config=examples/missing.yaml\n")
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO001"]
    # `/home/me/EasyR1/examples/config.yaml`: the repository's examples/config.yaml, read
    write(root, {"examples/run.sh": "python3 -m verl.trainer.main config=/home/me/EasyR1/examples/config.yaml "
                                    "worker.rollout.n=1\n"})  # fmt: skip
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO101"]


def test_without_easyr1s_entry_point_the_command_is_not_read_as_easyr1(tmp_path, monkeypatch):
    root = copy(tmp_path, run_with("worker.rollout.nn=8"))
    write(root, {"verl/trainer/main.py": "import hydra\n"})  # not a config built from dataclasses
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []
    assert notes(report)["examples/run.sh"] == "no GRPO launch command"


def test_a_forks_own_entry_point_that_builds_the_config_as_easyr1s_is_read_as_easyr1(tmp_path, monkeypatch):
    """`python3 -m oracle.run_online config=... key=value` where the module merges `OmegaConf.from_cli()` over
    `OmegaConf.structured(PPOConfig())` from the copy: its keys are the copy's dataclasses'."""
    own = MAIN.replace("from .config import PPOConfig", "from verl.trainer.config import PPOConfig")
    launch = "python3 -m oracle.run_online config=examples/config.yaml worker.rollout.nn=8\n"
    root = copy(tmp_path, launch)
    write(root, {"oracle/__init__.py": "", "oracle/run_online.py": own})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == ["GRPO002"]
    write(root, {"examples/run.sh": launch.replace("nn=8", "n=8")})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == [] and notes(report)["examples/run.sh"] == "launch script"
    # a module of the repository that builds no such config is not read as EasyR1's
    write(root, {"oracle/run_online.py": "import sys\nprint(sys.argv)\n", "examples/run.sh": launch})
    _, report = lint(root, monkeypatch)
    assert codes(report, "run.sh") == []


omegaconf = pytest.importorskip("omegaconf", reason="the differential check needs omegaconf (the `differential` extra)")


def _merge_error(root: Path, overrides: list[str], config: str) -> str:
    """What OmegaConf's merge of the copy's PPOConfig with the file and the command line raises ("" if nothing)."""
    sys.path.insert(0, str(root))
    try:
        for name in [m for m in sys.modules if m == "verl" or m.startswith("verl.")]:
            del sys.modules[name]
        spec = importlib.util.find_spec("verl.trainer.config")
        assert spec is not None and str(root) in str(spec.origin)
        module = importlib.import_module("verl.trainer.config")
        base = omegaconf.OmegaConf.structured(module.PPOConfig())
        try:
            merged = omegaconf.OmegaConf.merge(base, omegaconf.OmegaConf.create(config))
            omegaconf.OmegaConf.merge(merged, omegaconf.OmegaConf.from_dotlist(overrides))
        except omegaconf.errors.ConfigKeyError:
            return "GRPO002"
        except omegaconf.errors.ValidationError:
            return "GRPO003"
        return ""
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "verl" or m.startswith("verl.")]:
            del sys.modules[name]


@pytest.mark.parametrize(
    ("overrides", "config"),
    [
        (["worker.rollout.n=8"], YAML),
        (["worker.rollout.nn=8"], YAML),
        (["worker.rollout.val_override_config.anything=1"], YAML),
        (["data.rollout_batch_size=many"], YAML),
        (["data.rollout_batch_size=64"], YAML),
        (["algorithm.kl_coef=1e-2"], YAML),
        (["algorithm.disable_kl=yes"], YAML),
        ([], YAML + "extra:\n  key: 1\n"),
        ([], YAML.replace("rollout_batch_size: 512", "rollout_batch_size: 5x")),
    ],
)
def test_easyr1_keys_and_types_agree_with_omegaconf(tmp_path, monkeypatch, overrides, config):
    root = copy(tmp_path, run_with(*overrides), config)
    expected = _merge_error(root, overrides, config)
    _, report = lint(root, monkeypatch)
    found = {d["code"] for d in report["diagnostics"] if d["code"] in ("GRPO002", "GRPO003")}
    assert found == ({expected} if expected else set())


def test_the_fixes_name_the_value_that_works(tmp_path, monkeypatch):
    root = copy(tmp_path, run_with("worker.actor.global_batch_size=100", "data.rollout_batch_size=500",
                                   "worker.actor.micro_batch_size_per_device_for_update=3"))  # fmt: skip
    _, report = lint(root, monkeypatch)
    fixes = {d["code"]: d["fix"]["message"] for d in report["diagnostics"]}
    # 100 x 5 responses over 8 GPUs: 62 each, which 3 does not divide; 2 does
    assert fixes == {"GRPO110": "worker.actor.micro_batch_size_per_device_for_update=2 (a divisor of the 62 "
                                "responses per GPU)"}  # fmt: skip
    write(root, {"examples/run.sh": run_with("data.rollout_batch_size=512", "worker.actor.global_batch_size=100")})
    _, report = lint(root, monkeypatch)
    fixes = {d["code"]: d["fix"]["message"] for d in report["diagnostics"]}
    assert fixes["GRPO109"].startswith("worker.actor.global_batch_size=64 ")  # the largest divisor of 512 up to 100
    write(root, {"examples/run.sh": run_with("data.rollout_batch_size=many")})
    _, report = lint(root, monkeypatch)
    assert [d["fix"]["message"] for d in report["diagnostics"]] == [
        "give `data.rollout_batch_size` an integer (its default is 512)"
    ]
