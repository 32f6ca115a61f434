"""The run cache (grpo_lint.run_cache): the same command over an unchanged repository prints what it printed, and any
change to what the run looked at (a file's text, a file added or removed, a path that appears) lints again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from grpo_lint import engine
from grpo_lint.cli import main

from .conftest import ROOT

OLD = 1_600_000_000  # a time long past: files older than the cache's racy window (run_cache.RACY_NS)

LAUNCH = "swift rlhf --rlhf_type grpo --num_generations 1 --per_device_train_batch_size 4\n"
CONFIG = "rlhf_type: grpo\nnum_generations: 8\nper_device_train_batch_size: 4\n"


def age(root: Path) -> None:
    """Every file and folder of the tree dated long ago, as in a repository nobody has just edited."""
    for folder, _, files in os.walk(root):
        for name in files:
            os.utime(os.path.join(folder, name), (OLD, OLD))
        os.utime(folder, (OLD, OLD))


def repository(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    age(root)
    return root


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("GRPO_LINT_CACHE_DIR", str(folder))
    monkeypatch.delenv("GRPO_LINT_NO_CACHE", raising=False)
    return folder


def run(root: Path, monkeypatch, *args: str) -> tuple[int, str]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["--isolated", "--target", "swift==4.6.0", *args, "."])
    return result.exit_code, result.output


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*/run-*.pickle"))


def linted_again(monkeypatch) -> list[int]:
    """Count the lints of a workspace from here on (a replayed run makes none)."""
    calls: list[int] = []
    real = engine.lint_workspace

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "lint_workspace", counted)
    return calls


def test_an_unchanged_repository_is_answered_from_the_cache(tmp_path, monkeypatch, cache):
    root = repository(tmp_path / "repo", {"train/run.sh": LAUNCH, "configs/grpo.yaml": CONFIG, "README.md": "x\n"})
    first = run(root, monkeypatch)
    assert first[0] == 1 and "GRPO101" in first[1]
    assert len(entries(cache)) == 1
    calls = linted_again(monkeypatch)
    assert run(root, monkeypatch) == first and calls == []
    # Another command (another format, another selection) is another entry.
    shown = run(root, monkeypatch, "--format", "json")
    assert shown[1].startswith("{") and calls == [1]
    assert run(root, monkeypatch, "--select", "GRPO2") == (0, run(root, monkeypatch, "--select", "GRPO2")[1])


@pytest.mark.parametrize(
    "change",
    ["edit the script", "same size, another time", "add a file", "remove a file", "a folder appears"],
)
def test_any_change_to_what_the_run_looked_at_lints_again(tmp_path, monkeypatch, cache, change):
    root = repository(tmp_path / "repo", {"train/run.sh": LAUNCH, "configs/grpo.yaml": CONFIG, "README.md": "x\n"})
    first = run(root, monkeypatch)
    script = root / "train/run.sh"
    if change == "edit the script":
        script.write_text(LAUNCH.replace("--num_generations 1", "--num_generations 4"))
    elif change == "same size, another time":
        script.write_text(LAUNCH.replace("--num_generations 1", "--num_generations 4"))
        os.utime(script, (OLD + 60, OLD + 60))  # (the folder keeps its old time: only the file tells)
    elif change == "add a file":
        (root / "configs/other.yaml").write_text(CONFIG.replace("num_generations: 8", "num_generations: 1"))
    elif change == "remove a file":
        script.unlink()
    else:
        (root / "more").mkdir()
        (root / "more/run.sh").write_text(LAUNCH)
    if change != "same size, another time":
        age(root)  # (old times again: only the change itself can tell)
    calls = linted_again(monkeypatch)
    again = run(root, monkeypatch)
    assert calls == [1] and again != first


def test_a_file_a_launch_names_outside_the_listing_is_looked_at_again(tmp_path, monkeypatch, cache):
    """A config the script names that is not there: the run asked the system about the path, so a file that
    appears there later (the listing of the repository unchanged) is a change."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    launch = f"swift rlhf {outside}/grpo.yaml --num_generations 4\n"
    root = repository(tmp_path / "repo", {"run.sh": launch, "README.md": "x\n"})
    first = run(root, monkeypatch)
    (outside / "grpo.yaml").write_text(CONFIG)
    os.utime(outside / "grpo.yaml", (OLD, OLD))
    calls = linted_again(monkeypatch)
    assert run(root, monkeypatch) != first and calls == [1]


def test_a_file_changed_moments_ago_keeps_no_entry(tmp_path, monkeypatch, cache):
    """A file written within the system's timestamp step could change again with the same size and time: the run
    keeps no entry (the next one, with the file older, does)."""
    root = repository(tmp_path / "repo", {"run.sh": LAUNCH, "README.md": "x\n"})
    (root / "run.sh").write_text(LAUNCH)  # now
    run(root, monkeypatch)
    assert entries(cache) == []
    age(root)
    run(root, monkeypatch)
    assert len(entries(cache)) == 1


def test_no_cache_and_files_named_one_by_one_keep_no_entry(tmp_path, monkeypatch, cache):
    root = repository(tmp_path / "repo", {"run.sh": LAUNCH, "README.md": "x\n"})
    run(root, monkeypatch, "--no-cache")
    assert entries(cache) == []
    monkeypatch.chdir(root)
    CliRunner().invoke(main, ["--isolated", "run.sh"])  # (a pre-commit call: no listing of the repository)
    assert entries(cache) == []


def test_a_damaged_or_linked_entry_is_not_used(tmp_path, monkeypatch, cache):
    root = repository(tmp_path / "repo", {"run.sh": LAUNCH, "README.md": "x\n"})
    first = run(root, monkeypatch)
    (entry,) = entries(cache)
    entry.write_bytes(b"not a pickle")
    calls = linted_again(monkeypatch)
    assert run(root, monkeypatch) == first and calls == [1]
    (entry,) = entries(cache)
    planted = tmp_path / "planted"
    planted.write_bytes(entry.read_bytes())
    entry.unlink()
    entry.symlink_to(planted)
    assert run(root, monkeypatch) == first and calls == [1, 1]


def test_the_command_line_replays_output_and_exit_status(tmp_path):
    """As a user runs it: two runs of `grpo-lint .`, the second from the cache, print the same and exit alike."""
    root = repository(tmp_path / "repo", {"run.sh": LAUNCH, "README.md": "x\n"})
    env = {**os.environ, "GRPO_LINT_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    env.pop("GRPO_LINT_NO_CACHE", None)
    command = [sys.executable, "-m", "grpo_lint", "--isolated", "--target", "swift==4.6.0", "."]
    first = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    second = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert first.returncode == second.returncode == 1
    assert first.stdout == second.stdout and "GRPO101" in first.stdout
    assert len(list((tmp_path / "cache").glob("*/run-*.pickle"))) == 1


def test_recording_takes_every_form_of_path_the_system_is_asked_about(tmp_path):
    """While a run records, `os.stat` answers as always for a descriptor, a Path and a missing file (a descriptor is
    not recorded: its file was opened by its path), and what was asked is kept with the answer."""
    from grpo_lint import run_cache

    present, missing = tmp_path / "a.yaml", tmp_path / "gone.yaml"
    present.write_text("x: 1\n")
    run_cache.start(str(tmp_path / "cache"))
    try:
        with open(present) as handle:
            assert os.stat(handle.fileno()).st_size == 5
        assert os.stat(present).st_size == 5
        with pytest.raises(FileNotFoundError):
            os.stat(missing)
    finally:
        run_cache.stop()
    stats, _, _ = run_cache._copy_seen()
    assert stats[str(present)] is not None and stats[str(missing)] is None
    assert os.stat is run_cache._real_stat  # (stopped: the system's own again)
