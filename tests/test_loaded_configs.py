"""A launched script that loads a config file of its own and builds its `GRPOConfig(...)` from it.

`python train.py --config configs/a.yaml`, where train.py does `cfg = yaml.safe_load(open(args.config))` and
`GRPOConfig(num_generations=cfg["training"]["num_generations"], ...)`: the run's values are the YAML's, and a
verdict points at the YAML line that set them. Each test writes a small repository and lints it from its root.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from grpo_lint import versions
from grpo_lint.cli import main

from .test_repository import lint, write


@pytest.fixture(autouse=True)
def uninstalled(monkeypatch):
    monkeypatch.setattr(versions, "installed_version", lambda framework: None)


TRAIN = """\
import argparse

import yaml
from trl import GRPOConfig, GRPOTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/base.yaml")
    parser.add_argument("--num-generations", type=int, default=None)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    tcfg = cfg["training"]
    config = GRPOConfig(
        output_dir="out",
        per_device_train_batch_size=tcfg["per_device_train_batch_size"],
        gradient_accumulation_steps=tcfg.get("gradient_accumulation_steps", 1),
        num_generations=args.num_generations if args.num_generations is not None else tcfg["num_generations"],
        temperature=float(tcfg.get("temperature", 0.9)),
        seed=args.seed,
    )
    GRPOTrainer(model="m", args=config, reward_funcs=[]).train()


if __name__ == "__main__":
    main()
"""
CONFIG = """\
model: Qwen/Qwen2.5-0.5B
training:
  per_device_train_batch_size: 1
  gradient_accumulation_steps: 4
  num_generations: {n}
"""


def errors(report: dict) -> list[str]:
    return sorted(d["code"] for d in report["diagnostics"] if d["severity"] != "info")


def shown(root, monkeypatch, path: str) -> str:
    """What `grpo-lint --show PATH` prints."""
    monkeypatch.chdir(root)
    return CliRunner().invoke(main, ["--isolated", "--show", path]).output


def _repository(tmp_path, launch: str, n: int = 8, more: dict[str, str] | None = None):
    return write(
        tmp_path,
        {
            "README.md": "x\n",
            "requirements.txt": "trl==0.20.0\n",
            "train.py": TRAIN,
            "configs/base.yaml": CONFIG.format(n=4),
            "configs/big.yaml": CONFIG.format(n=n),
            "run.sh": launch,
            **(more or {}),
        },
    )


def test_the_config_a_launch_names_feeds_the_scripts_grpo_config(tmp_path, monkeypatch):
    root = _repository(tmp_path, "python train.py --config configs/big.yaml\n", n=8)
    _, report = lint(root, monkeypatch, ".")
    (error,) = [d for d in report["diagnostics"] if d["severity"] == "error"]
    # 1 x 1 process x 4 steps = 4 completions per round, groups of 8: TRL 0.20.0 stops at start-up
    # reported at the YAML line that set the group size
    assert (error["code"], error["path"], error["line"]) == ("GRPO102", "configs/big.yaml", 5)
    assert "num_generations 8" in error["message"] and "generation batch 4" in error["message"]
    # groups of 4 fit
    root = _repository(tmp_path, "python train.py --config configs/big.yaml\n", n=4)
    _, report = lint(root, monkeypatch, ".")
    assert [d for d in report["diagnostics"] if d["severity"] != "info"] == []


def test_the_scripts_default_config_is_read_when_the_launch_names_none(tmp_path, monkeypatch):
    root = _repository(tmp_path, "python train.py --seed 3\n", more={"configs/base.yaml": CONFIG.format(n=8)})
    _, report = lint(root, monkeypatch, ".")
    assert "GRPO102" in errors(report)
    write(root, {"configs/base.yaml": CONFIG.format(n=2)})
    _, report = lint(root, monkeypatch, ".")
    assert errors(report) == []


def test_a_flag_that_overrides_the_files_value_wins_when_given(tmp_path, monkeypatch):
    # The file says 4 (fits); `--num-generations 8` wins over it (`args.n if args.n is not None else tcfg[...]`)
    root = _repository(tmp_path, "python train.py --config configs/big.yaml --num-generations 8\n", n=4)
    _, report = lint(root, monkeypatch, ".")
    assert "GRPO102" in errors(report)
    write(root, {"run.sh": "python train.py --config configs/big.yaml --num-generations 2\n"})
    _, report = lint(root, monkeypatch, ".")
    assert errors(report) == []


def test_a_config_known_only_at_launch_is_judged_by_no_default(tmp_path, monkeypatch):
    # `--config $CFG`: which file runs is not known; TRL's default num_generations (8) must not be blamed
    root = _repository(tmp_path, 'python train.py --config "$CFG"\n', n=8)
    _, report = lint(root, monkeypatch, ".")
    assert [d["code"] for d in report["diagnostics"] if d["severity"] != "info"] == []
    assert "num_generations        not known before launch" in shown(root, monkeypatch, "run.sh")


def test_a_key_the_file_lacks_takes_the_scripts_get_default(tmp_path, monkeypatch):
    # temperature=float(tcfg.get("temperature", 0.9)): the file has none, the run samples at 0.9
    root = _repository(tmp_path, "python train.py --config configs/big.yaml\n", n=4)
    described = shown(root, monkeypatch, "run.sh")
    assert "temperature          0.9" in described
    assert "num_generations        4  [num_generations, configs/big.yaml:5]" in described
    write(root, {"configs/big.yaml": CONFIG.format(n=4) + "  temperature: 0.0\n"})
    _, report = lint(root, monkeypatch, ".")
    (zero,) = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert (zero["code"], zero["path"], zero["line"]) == ("GRPO201", "configs/big.yaml", 6)


def test_omegaconf_reads_keys_as_attributes(tmp_path, monkeypatch):
    train = (
        "import argparse\nfrom omegaconf import OmegaConf\nfrom trl import GRPOConfig, GRPOTrainer\n\n"
        "parser = argparse.ArgumentParser()\nparser.add_argument('--config', default='c.yaml')\n"
        "args = parser.parse_args()\ncfg = OmegaConf.load(args.config)\n"
        "config = GRPOConfig(output_dir='o', per_device_train_batch_size=cfg.train.bs, num_generations=cfg.train.n)\n"
        "GRPOTrainer(model='m', args=config, reward_funcs=[]).train()\n"
    )
    root = write(
        tmp_path,
        {
            "README.md": "x\n",
            "requirements.txt": "trl==0.20.0\n",
            "train.py": train,
            "c.yaml": "train:\n  bs: 3\n  n: 4\n",
            "run.sh": "python train.py\n",
        },
    )
    _, report = lint(root, monkeypatch, ".")
    assert "GRPO102" in errors(report)  # 3 completions per round, groups of 4
    write(root, {"c.yaml": "train:\n  bs: 4\n  n: 4\n"})
    _, report = lint(root, monkeypatch, ".")
    assert errors(report) == []


def test_a_config_the_launch_script_writes_from_a_here_document_is_the_one_loaded(tmp_path, monkeypatch):
    written = "cat > configs/g8.yaml << 'EOF'\n" + CONFIG.format(n=8) + "EOF\n"
    launch = "python train.py --config configs/g8.yaml\n"
    root = _repository(tmp_path, written + launch, n=4)
    _, report = lint(root, monkeypatch, ".")
    (error,) = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert (error["code"], error["path"], error["line"]) == ("GRPO102", "./run.sh", 6)  # the script's own line
    write(root, {"run.sh": written.replace("num_generations: 8", "num_generations: 2") + launch})
    _, report = lint(root, monkeypatch, ".")
    assert errors(report) == []


HELPER = """\
import argparse

import yaml
from trl import GRPOConfig, GRPOTrainer


def load_config(config_path):
    with open(config_path, "r") as f:
        return yaml.safe_load(f)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config", nargs="?", default="configs/base.yaml")
    parser.add_argument("--max_steps", type=int, default=None)
    args = parser.parse_args()
    config = load_config(args.config)
    training = config["training"]
    num_generations = training.get("num_generations", 4)
    config = GRPOConfig(
        output_dir="out",
        per_device_train_batch_size=training.get("per_device_train_batch_size", 1),
        gradient_accumulation_steps=training.get("gradient_accumulation_steps", 1),
        num_generations=num_generations,
    )
    GRPOTrainer(model="m", args=config, reward_funcs=[]).train()


if __name__ == "__main__":
    main()
"""


def test_a_config_loaded_by_a_helper_of_the_script_from_its_positional_argument(tmp_path, monkeypatch):
    """`python train.py configs/big.yaml` to a script whose positional `config` is loaded by a function of its own
    (`def load_config(path): with open(path) as f: return yaml.safe_load(f)`): the run's values are that file's."""
    root = _repository(tmp_path, "python train.py configs/big.yaml\n", n=8, more={"train.py": HELPER})
    _, report = lint(root, monkeypatch, ".")
    # 1 x 1 process x 4 steps = 4 completions per round, groups of 8: TRL 0.20.0 stops at start-up
    assert [(d["code"], d["path"], d["line"]) for d in report["diagnostics"] if d["severity"] == "error"] == [
        ("GRPO102", "configs/big.yaml", 5)
    ]
    root = _repository(tmp_path, "python train.py configs/big.yaml\n", n=4, more={"train.py": HELPER})
    assert errors(lint(root, monkeypatch, ".")[1]) == []
    # no positional word: argparse's default, configs/base.yaml
    base = {"train.py": HELPER, "configs/base.yaml": CONFIG.format(n=8)}
    root = _repository(tmp_path, "python train.py --max_steps 5\n", n=4, more=base)
    assert [(d["code"], d["path"]) for d in lint(root, monkeypatch, ".")[1]["diagnostics"]] == [
        ("GRPO102", "configs/base.yaml")
    ]
    # a positional word after a flag may be the flag's value: not taken, nothing judged from the file
    root = _repository(tmp_path, "python train.py --max_steps 5 configs/big.yaml\n", n=8, more={"train.py": HELPER})
    assert errors(lint(root, monkeypatch, ".")[1]) == []
    # a helper that returns something else than the loaded file is not followed
    other = HELPER.replace("        return yaml.safe_load(f)\n", "        return {'training': {}}\n")
    root = _repository(tmp_path, "python train.py configs/big.yaml\n", n=8, more={"train.py": other})
    assert errors(lint(root, monkeypatch, ".")[1]) == []
    # nor one that loads a file of its own rather than the one it is given
    fixed = HELPER.replace('open(config_path, "r")', 'open("configs/base.yaml")')
    root = _repository(tmp_path, "python train.py configs/big.yaml\n", n=8, more={"train.py": fixed})
    assert errors(lint(root, monkeypatch, ".")[1]) == []
