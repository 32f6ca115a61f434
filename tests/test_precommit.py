"""The pre-commit hook for real: `pre-commit try-repo` on this checkout, in a scratch repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import ROOT, clean_env

PRE_COMMIT = shutil.which("pre-commit") or shutil.which("pre-commit", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(
    PRE_COMMIT is None or shutil.which("git") is None or not (ROOT / ".git").exists(),
    reason="needs pre-commit, git and a git checkout of grpo-lint",
)

BAD = "num_processes: 4\nper_device_train_batch_size: 6\nnum_generations: 16\n"
GOOD = "num_processes: 4\nper_device_train_batch_size: 8\nnum_generations: 8\n"


def test_hook_definition():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "grpo-lint" and hook["language"] == "python"
    assert hook["require_serial"] is True
    assert hook["entry"].split()[0] == "grpo-lint" and "--only-configs" in hook["entry"]


def test_try_repo_fails_on_a_bad_config_and_passes_on_good_ones(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    env = clean_env(
        PRE_COMMIT_HOME=str(tmp_path / "cache"), PATH=f"{Path(PRE_COMMIT).parent}{os.pathsep}{os.environ['PATH']}"
    )
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    files = {
        "bad.yaml": BAD,
        "good.yaml": GOOD,
        "k8s.yaml": "- kind: Deployment\n- kind: Service\n",  # any YAML of a repository
        "chart.yaml": "a: {{ .Values.x }}\n",  # a template that is not even valid YAML
        "package.json": '{"name": "x", "version": "1.0.0"}',
        "build.sh": "#!/bin/bash\nset -e\nmake -j8 all\n",
        "setup_tools.py": "def add(a, b):\n    return a + b\n",
        "requirements.txt": "trl==1.16.0\n",  # a TRL project: without it no YAML here is a TRL config
    }
    for name, text in files.items():
        (repo / name).write_text(text)
    subprocess.run(["git", "add", "."], cwd=repo, check=True)

    def try_repo(*names: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [PRE_COMMIT, "try-repo", str(ROOT), "grpo-lint", "--files", *names],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    failing = try_repo("bad.yaml", "good.yaml")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "bad.yaml:3:1: error[GRPO102]" in failing.stdout
    passing = try_repo("good.yaml", "k8s.yaml", "chart.yaml", "package.json", "build.sh", "setup_tools.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "GRPO0" not in passing.stdout  # no noise about files that are not GRPO configs
