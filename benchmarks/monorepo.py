"""A synthetic monorepo for `bench.py --monorepo`: 10,000 files in 2,000 folders, a few of them GRPO runs.

Each folder holds what real repositories hold many of: a YAML config of some other tool, a shell script, a
requirements file, a Python module and a README. Ten folders are GRPO projects (a TRL config and its launch
script); one of them, `two/`, is what a commit touches. The repository is a git work tree, as pre-commit sees it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

FOLDERS = 2_000
GRPO_FOLDERS = 10
CHANGED = ("two/changed.yaml", "files.sh")

_OTHER_YAML = "model:\n  name: resnet{n}\n  depth: {depth}\ntrain:\n  epochs: 10\n  lr: 0.01\n  batch: 64\n"
_SCRIPT = "#!/bin/bash\nset -e\npython tool.py --input data/{n}.csv --output out/{n}.csv\n"
_REQUIREMENTS = "numpy==1.26.4\npandas>=2.0\nrequests\n"
_MODULE = "import json\n\n\ndef run(path):\n    with open(path) as f:\n        return json.load(f)[{n}]\n"
_README = "# tool {n}\n\nRun `bash run.sh`.\n"
GRPO_YAML = (
    "model_name_or_path: Qwen/Qwen2.5-0.5B-Instruct\n"
    "per_device_train_batch_size: 4\ngradient_accumulation_steps: 2\nnum_generations: 8\n"
    "max_completion_length: 256\ntemperature: 0.9\nlearning_rate: 1.0e-6\nseed: {n}\n"
)
LAUNCH = "accelerate launch --num_processes 4 -m trl.scripts.grpo --config two/changed.yaml\n"


def build(root: Path) -> Path:
    """The monorepo under `root` (a fresh folder), committed."""
    root.mkdir(parents=True, exist_ok=True)
    for n in range(FOLDERS):
        folder = root / "services" / f"group{n // 50:02d}" / f"svc{n:04d}"
        folder.mkdir(parents=True)
        grpo = n % (FOLDERS // GRPO_FOLDERS) == 0
        (folder / "config.yaml").write_text(GRPO_YAML.format(n=n) if grpo else _OTHER_YAML.format(n=n, depth=n % 7))
        (folder / "run.sh").write_text(
            f"accelerate launch --num_processes 2 -m trl.scripts.grpo --config {folder.relative_to(root)}/config.yaml\n"
            if grpo
            else _SCRIPT.format(n=n)
        )
        (folder / "requirements.txt").write_text(_REQUIREMENTS + ("trl==0.19.1\n" if grpo else ""))
        (folder / "tool.py").write_text(_MODULE.format(n=n))
        (folder / "README.md").write_text(_README.format(n=n))
    return commit_changed(root)


def small(root: Path) -> Path:
    """The same two files in a repository of their own (with the same pin)."""
    root.mkdir(parents=True, exist_ok=True)
    return commit_changed(root)


def commit_changed(root: Path) -> Path:
    """The two files a commit touches (a GRPO config and the script that launches it) and the root's pin, written
    and committed with whatever else the folder holds."""
    (root / "two").mkdir(parents=True, exist_ok=True)
    (root / CHANGED[0]).write_text(GRPO_YAML.format(n=1))
    (root / CHANGED[1]).write_text(LAUNCH)
    (root / "requirements.txt").write_text("trl==0.19.1\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-qm", "repository")
    return root


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(["git", *args], cwd=root, check=True, env=env)


# One interpreter that walks the tree, reads every shell and Python file and parses every YAML and JSON file with
# PyYAML's C loader (the loader grpo-lint uses): the least any linter of these files can cost.
C_FLOOR = """
import json, os, sys, yaml
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
for top, dirs, files in os.walk("."):
    dirs[:] = [d for d in dirs if not d.startswith(".")]
    for name in files:
        path = os.path.join(top, name)
        if name.endswith((".yaml", ".yml")):
            with open(path, "rb") as f:
                try:
                    list(yaml.load_all(f.read(), Loader=Loader))
                except yaml.YAMLError:
                    pass
        elif name.endswith(".json"):
            with open(path, "rb") as f:
                try:
                    json.loads(f.read())
                except ValueError:
                    pass
        elif name.endswith((".sh", ".py")):
            with open(path, "rb") as f:
                f.read()
"""
