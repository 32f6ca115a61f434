"""Running a program (git) without subprocess: output, exit codes, a missing program, a timeout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from grpo_lint.workspace import process
from grpo_lint.workspace.git import GitError, git


@pytest.fixture(params=["posix_spawn", "subprocess"])
def how(request, monkeypatch):
    if request.param == "subprocess":
        monkeypatch.delattr(os, "posix_spawnp")  # as on Windows
    elif not hasattr(os, "posix_spawnp"):
        pytest.skip("no posix_spawnp here")
    return request.param


def test_output_and_exit_code_are_those_of_subprocess(how):
    script = "head -c 300000 /dev/zero | tr '\\0' x; echo oops >&2; exit 3"  # more than a pipe holds
    ours = process.run(["sh", "-c", script], os.environ, 10)
    theirs = subprocess.run(["sh", "-c", script], capture_output=True, check=False)
    assert (ours.returncode, ours.stdout, ours.stderr) == (3, theirs.stdout, b"oops\n")
    assert len(ours.stdout) == 300000


def test_the_child_gets_no_input_and_the_given_environment(how):
    done = process.run(["sh", "-c", 'cat; echo "[$GRPO_LINT_PROBE]"'], {**os.environ, "GRPO_LINT_PROBE": "seen"}, 10)
    assert done.stdout == b"[seen]\n" and done.returncode == 0


def test_a_missing_program_is_file_not_found(how):
    with pytest.raises(FileNotFoundError):
        process.run(["grpo-lint-no-such-program"], os.environ, 10)


def test_a_program_that_does_not_finish_is_killed_at_the_timeout(how, tmp_path):
    pid_file = tmp_path / "pid"
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        process.run(["sh", "-c", f"echo $$ > {pid_file}; exec sleep 30"], os.environ, 0.5)
    assert time.monotonic() - started < 10
    with pytest.raises(ProcessLookupError):  # killed and reaped: no such process any more
        os.kill(int(pid_file.read_text()), 0)


def test_a_closed_standard_descriptor_is_handled():
    """In-process use may run with standard input closed: the pipes must still reach the child."""
    code = (
        "import os; os.close(0); from grpo_lint.workspace.process import run; "
        "print(run(['sh', '-c', 'echo hi'], os.environ, 10).stdout)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "b'hi\\n'", done.stderr


def _fake_git(folder, body: str) -> None:
    script = folder / "git"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)


def test_git_errors_name_the_cause(tmp_path, monkeypatch, how):
    sleep = shutil.which("sleep")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GitError, match="not on PATH"):
        git(["ls-files"])
    _fake_git(tmp_path, f"exec {sleep} 30")
    with pytest.raises(GitError, match=r"did not finish within 0\.5 s"):
        git(["ls-files"], timeout=0.5)
    _fake_git(tmp_path, "echo 'fatal: not a git repository' >&2; exit 128")
    with pytest.raises(GitError, match="not a git repository"):
        git(["ls-files"])


def test_git_runs_in_the_folder_given(tmp_path, monkeypatch, how):
    """The folder reaches git as an absolute path, so a folder named like an option stays a folder."""
    folder = tmp_path / "-c"
    folder.mkdir()
    monkeypatch.chdir(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_git(bin_dir, 'pwd; printf "%s\\n" "$@"')
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    printed = git(["ls-files"], cwd="-c").decode().splitlines()
    assert printed[-1] == "ls-files"
    assert str(folder) in printed  # as the value of -C, or as the working directory
