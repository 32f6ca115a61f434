"""The composite GitHub Action: its shape, and its lint step run for real with bash."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import ROOT, clean_env

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())


def test_action_is_a_composite_with_documented_inputs():
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"paths", "args", "diff-base", "sarif", "python-version", "version"}
    for name, spec in ACTION["inputs"].items():
        assert spec["description"] and "default" in spec, name
    steps = ACTION["runs"]["steps"]
    upload = next(s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif"))
    assert upload["with"]["sarif_file"] == "grpo-lint.sarif"
    for step in steps:
        if "run" in step:
            assert step["shell"] == "bash"
            # Inputs reach scripts through env, never pasted into the script text (injection).
            assert "${{" not in step["run"], step.get("name")


def test_actions_are_pinned_by_commit():
    """A tag can be moved to other code; a commit cannot. Each pin says which release it is."""
    text = (ROOT / "action.yml").read_text()
    pins = re.findall(r"uses: ([\w./-]+)@(\S+)(?: # (v[\d.]+))?", text)
    assert len(pins) == 2
    for action, ref, release in pins:
        assert re.fullmatch(r"[0-9a-f]{40}", ref) and release, action
    readme = (ROOT / "README.md").read_text()
    assert "actions/checkout@11d5960a326750d5838078e36cf38b85af677262 # v4.4.0" in readme


def _lint_step() -> dict:
    return next(s for s in ACTION["runs"]["steps"] if s.get("id") == "lint")


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(("sarif", "config", "status"), [("true", "bad", "1"), ("false", "good", "0")])
def test_lint_step_runs(tmp_path, sarif, config, status):
    bad = "num_processes: 4\nper_device_train_batch_size: 6\nnum_generations: 16\n"
    good = "num_processes: 4\nper_device_train_batch_size: 8\nnum_generations: 8\n"
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "run.yaml").write_text(bad if config == "bad" else good)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "grpo-lint"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m grpo_lint "$@"\n')
    shim.chmod(0o755)
    output = tmp_path / "github_output"
    env = clean_env(
        PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        GITHUB_OUTPUT=str(output),
        PATHS="configs",
        ARGS="--target trl==1.16.0",
        DIFF_BASE="",
        SARIF=sarif,
    )
    done = subprocess.run(
        ["bash", "-e", "-c", _lint_step()["run"]], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr  # the step records the status; a later step fails the job
    assert output.read_text().strip() == f"exit-code={status}"
    if config == "bad":
        assert re.search(r"^::error file=configs/run.yaml,line=3", done.stdout, re.M)
    sarif_file = Path(tmp_path, "grpo-lint.sarif")
    assert sarif_file.exists() == (sarif == "true")
    if sarif == "true":
        assert json.loads(sarif_file.read_text())["runs"][0]["results"][0]["ruleId"] == "GRPO102"
