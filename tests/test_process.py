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


def test_a_started_program_runs_while_the_caller_works_and_is_collected_later(how, tmp_path):
    marker = tmp_path / "ran"
    running = process.start(["sh", "-c", f"touch {marker}; echo done"], os.environ, 10)
    deadline = time.monotonic() + 10
    while how == "posix_spawn" and not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # started at once: it runs before anything collects it
    assert marker.exists() == (how == "posix_spawn")  # subprocess (Windows) runs it when collected
    assert running.finish().stdout == b"done\n"
    assert running.finish().stdout == b"done\n"  # collected once, kept


def test_an_abandoned_program_is_killed_and_reaped(tmp_path):
    if not hasattr(os, "posix_spawnp"):
        pytest.skip("no posix_spawnp here")
    pid_file = tmp_path / "pid"
    running = process.start(["sh", "-c", f"echo $$ > {pid_file}; exec sleep 30"], os.environ, 10)
    deadline = time.monotonic() + 10
    while not pid_file.exists() or not pid_file.read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    running.abandon()
    with pytest.raises(ProcessLookupError):  # killed and reaped: no zombie left behind
        os.kill(int(pid_file.read_text()), 0)


def _repository(root, names: list[str]) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x: 1\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", names[0]], check=True)  # one tracked, the rest untracked


def test_git_listing_drops_hidden_and_tool_folders_but_not_hidden_files(tmp_path):
    from grpo_lint.workspace.files import git_files

    kept = ["a.yaml", ".pre-commit-config.yaml", "x/venvy/a.yaml", "x/.env.yaml", "wandb.yaml", "b/c/d.sh"]
    dropped = [".github/workflows/ci.yml", "x/.hidden/a.yaml", "x/node_modules/p.json", "wandb/run/config.yaml",
               "y/venv/lib/site.py", "z/__pycache__/m.py", ".venv/a/b.py"]  # fmt: skip
    _repository(tmp_path, kept + dropped)
    assert git_files(tmp_path) == sorted(kept)


def test_git_listing_started_ahead_is_the_listing_collected(tmp_path):
    from grpo_lint.workspace import files

    _repository(tmp_path, ["a.yaml", "b/run.sh", ".github/x.yml"])
    alone = files.git_files(tmp_path)
    files.list_ahead(tmp_path)
    assert str(tmp_path) in files._PENDING
    (tmp_path / "c.yaml").write_text("x: 1\n")  # written after the listing started: whether it is seen is git's race
    ahead = files.git_files(tmp_path)
    assert str(tmp_path) not in files._PENDING  # collected
    assert ahead is not None and set(alone) <= set(ahead) <= {*alone, "c.yaml"}
    assert alone == ["a.yaml", "b/run.sh"]


def test_a_listing_started_ahead_and_never_collected_is_stopped(tmp_path):
    from grpo_lint.workspace import files

    _repository(tmp_path, ["a.yaml"])
    files.list_ahead(tmp_path)
    pending = files._PENDING[str(tmp_path)]
    files._abandon_all()
    assert not files._PENDING
    with pytest.raises(GitError):  # abandoned: nothing to collect
        pending.output()


def test_the_console_script_starts_the_listing_first_and_the_run_takes_it(tmp_path, monkeypatch):
    """`grpo-lint a.yaml` in a work tree: git's listing starts before grpo-lint loads (grpo_lint.early), and the
    listing the run asks for later is that process, not a second one."""
    from grpo_lint import early
    from grpo_lint.workspace import files

    _repository(tmp_path, ["a.yaml", "sub/b.sh"])
    monkeypatch.chdir(tmp_path / "sub")
    early.start_listing(["--isolated", "b.sh", "../a.yaml"])
    assert list(early._STARTED) == [str(tmp_path)]  # the work tree above both paths
    pid = early._STARTED[str(tmp_path)][1][0]
    pending = files._start_listing(tmp_path)
    assert not early._STARTED and pending._running is not None and pending._running._spawned[0] == pid
    assert sorted(filter(None, pending.output().split(b"\0"))) == [b"a.yaml", b"sub/b.sh"]


@pytest.mark.parametrize(
    "args",
    [
        ["-"],  # standard input
        ["--changed-since", "HEAD", "a.yaml"],
        ["--list-rules"],
        ["schema"],
        ["--no-such-flag", "a.yaml"],  # a line click reads: nothing guessed
        [],
    ],
)
def test_nothing_is_listed_first_for_other_command_lines(tmp_path, monkeypatch, args):
    from grpo_lint import early

    _repository(tmp_path, ["a.yaml"])
    monkeypatch.chdir(tmp_path)
    early.start_listing(args)
    assert early._STARTED == {}


def test_a_listing_started_first_that_the_run_does_not_take_is_stopped(tmp_path, monkeypatch):
    from grpo_lint import early

    _repository(tmp_path, ["a.yaml"])
    monkeypatch.chdir(tmp_path)
    early.start_listing(["a.yaml"])
    (_command, (pid, out_read, _err, _deadline)) = early._STARTED[str(tmp_path)]
    early.stop_listings()
    assert early._STARTED == {}
    with pytest.raises(ChildProcessError):  # killed and reaped
        os.waitpid(pid, os.WNOHANG)
    with pytest.raises(OSError):  # its pipe is closed
        os.fstat(out_read)
    outside = tmp_path.parent / f"{tmp_path.name}-plain"
    outside.mkdir()
    (outside / "a.yaml").write_text("x: 1\n")
    monkeypatch.chdir(outside)
    early.start_listing(["a.yaml"])  # no work tree above it
    assert early._STARTED == {}
