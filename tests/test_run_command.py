"""`grpo-lint run -- COMMAND`: lint the command as it is about to run, then run it unless it has errors."""

from __future__ import annotations

import sys

from grpo_lint.run_command import script_for

from .conftest import clean_env, run_cli

MARK = "open('ran', 'w').write('yes')\n"


def test_a_command_with_errors_is_not_run(tmp_path):
    (tmp_path / "train.py").write_text(MARK)
    command = [sys.executable, "train.py", "--num_generations", "3", "--per_device_train_batch_size", "4"]
    stopped = run_cli("run", "--", *command, cwd=tmp_path)
    assert stopped.returncode == 1 and "error[GRPO102]" in stopped.stderr and "not running" in stopped.stderr
    assert not (tmp_path / "ran").exists()
    forced = run_cli("run", "--force", "--", *command, cwd=tmp_path)
    assert forced.returncode == 0 and (tmp_path / "ran").read_text() == "yes"


def test_a_clean_command_runs_unchanged(tmp_path):
    (tmp_path / "train.py").write_text(MARK)
    command = [sys.executable, "train.py", "--num_generations", "4", "--per_device_train_batch_size", "4"]
    done = run_cli("run", "--", *command, cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "ran").read_text() == "yes" and "GRPO" not in done.stderr
    missing = run_cli("run", "--", "no-such-program-grpo-lint", cwd=tmp_path)
    assert missing.returncode == 127 and "cannot run" in missing.stderr


def test_the_launch_environment_is_part_of_the_command(tmp_path):
    script = script_for(["accelerate", "launch", "train.py"], {"CUDA_VISIBLE_DEVICES": "0,1,2", "HOME": "/root"})
    assert script == "export CUDA_VISIBLE_DEVICES=0,1,2\naccelerate launch train.py\n"
    # accelerate without --num_processes uses every visible GPU: 3 processes, so groups of 4 break.
    (tmp_path / "train.py").write_text("print('a training script of the user')\n")
    env = clean_env(CUDA_VISIBLE_DEVICES="0,1,2")
    command = ["accelerate", "launch", "train.py", "--num_generations", "4", "--per_device_train_batch_size", "1"]
    done = run_cli("run", "--", *command, env=env, cwd=tmp_path)
    assert done.returncode == 1 and "3 processes" in done.stderr


def test_a_folder_named_run_is_still_linted(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "c.yaml").write_text("num_generations: 1\n")
    assert "GRPO101" in run_cli("run", "--target", "trl==1.16.0", cwd=tmp_path).stdout
