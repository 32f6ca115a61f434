"""A whole repository linted on several processes: the same report as one process, whatever a copy does."""

from __future__ import annotations

import json
import os
import pickle
import time

import pytest

from grpo_lint import engine, forked
from grpo_lint.engine import lint_paths
from grpo_lint.options import Options

from .conftest import run_cli

pytestmark = pytest.mark.skipif(forked.processes(2) < 2, reason="forking is not used on this platform")


def test_every_item_is_done_once_and_in_its_place():
    made = forked.share_out(list(range(200)), lambda item: item * item, 2, chunk=3)
    assert made == {item: item * item for item in range(200)}


def test_one_process_or_a_single_item_forks_nothing(monkeypatch):
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked"))
    assert forked.share_out(list(range(50)), str, 1) == {}
    assert forked.share_out([7], str, 2) == {}


def wait_for(path, size: int = 1, timeout: float = 20.0) -> None:
    """Until the file holds `size` bytes (a forked copy's marks of what it did), or the timeout passes."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and (not path.exists() or path.stat().st_size < size):
        time.sleep(0.005)


def mark(path) -> None:
    with path.open("ab") as out:
        out.write(b".")


def test_the_copies_take_work_while_this_process_works(tmp_path):
    """Items are drawn from a queue: a copy takes chunks while this process is busy with a slow one."""
    parent, marks, started = os.getpid(), tmp_path / "marks", tmp_path / "started"
    first: list[int] = []  # the item this process takes first (which one depends on who reaches the queue first)

    def work(item: int) -> int:
        if os.getpid() != parent:
            wait_for(started)  # (until this process holds a chunk of its own, whoever reached the queue first)
            mark(marks)
        elif not first:
            first.append(item)
            mark(started)
            wait_for(marks, 30)  # this process's first chunk is slow: the copy takes the others meanwhile
        return os.getpid()

    made = forked.share_out(list(range(40)), work, 2, chunk=1)
    assert sorted(made) == list(range(40))
    assert first and made[first[0]] == parent
    assert sum(pid != parent for pid in made.values()) >= 30


def test_what_a_dead_copy_took_is_left_to_the_caller(tmp_path):
    parent, marks = os.getpid(), tmp_path / "marks"

    def work(item: int) -> int:
        if os.getpid() != parent:
            mark(marks)
            os._exit(3)  # killed on the first item it takes
        wait_for(marks)  # (this process leaves the copy time to take one)
        return -item

    made = forked.share_out(list(range(30)), work, 2, chunk=1)
    assert made and len(made) < 30
    assert all(made[item] == -item for item in made)


def test_an_answer_that_does_not_pickle_is_left_to_the_caller(tmp_path):
    parent, marks, started = os.getpid(), tmp_path / "marks", tmp_path / "started"

    def work(item: int) -> object:
        if os.getpid() != parent:
            mark(marks)
            wait_for(started)  # (the copy leaves this process time to take one: it could take them all)
            return lambda: item  # a lambda does not pickle
        mark(started)
        wait_for(marks)  # (this process leaves the copy time to take one)
        return item

    made = forked.share_out(list(range(30)), work, 2, chunk=1)
    assert made and len(made) < 30
    assert all(made[item] == item for item in made)


_SCRIPT = """#!/bin/bash
accelerate launch --num_processes {processes} -m trl.scripts.grpo --config configs/run_{n}.yaml \\
    --temperature {temperature}
"""

_CONFIG = """model_name_or_path: Qwen/Qwen2.5-0.5B
dataset_name: trl-lib/tldr
output_dir: out
per_device_train_batch_size: {batch}
gradient_accumulation_steps: 1
num_generations: {generations}
"""

_ALONE = """model_name_or_path: Qwen/Qwen2.5-0.5B
num_processes: 2
per_device_train_batch_size: 3
num_generations: {generations}
top_k: {top_k}
"""


def _repository(root, count: int) -> None:
    (root / "configs").mkdir()
    (root / "alone").mkdir()
    (root / "train.py").write_text("from trl import GRPOConfig\n")  # the repository uses TRL, at no stated release
    for n in range(count):
        processes, temperature = (2, 0.0) if n % 3 == 0 else (4, 0.9)
        (root / f"run_{n:02}.sh").write_text(_SCRIPT.format(n=n, processes=processes, temperature=temperature))
        batch, generations = (3, 4) if n % 2 else (4, 8)
        (root / "configs" / f"run_{n}.yaml").write_text(_CONFIG.format(batch=batch, generations=generations))
        (root / "alone" / f"grpo_{n:02}.yaml").write_text(_ALONE.format(generations=3 + n % 2, top_k=1 + n % 5))


def _codes(report: engine.Report) -> list[list[tuple[str, str, int | None]]]:
    return [[(d.code, d.path, d.span.line if d.span else None) for d in f.diagnostics] for f in report.files]


def test_a_repository_linted_on_two_processes_is_reported_as_on_one(tmp_path, monkeypatch):
    _repository(tmp_path, 30)
    monkeypatch.chdir(tmp_path)
    shared: list[int] = []
    real = forked.share_out

    def counted(items, work, count, portable=None, chunk=8):
        made = real(items, work, count, portable, chunk)
        shared.append(sum(1 for result in made.values() if not any(p.document.text for p in result.plans)))
        return made

    monkeypatch.setattr(forked, "share_out", counted)
    several = lint_paths(["."], Options(jobs=2))
    one = lint_paths(["."], Options(jobs=1))
    assert len(shared) == 2 and all(shared)  # the scripts, then the configs not launched: each shared with a copy
    assert _codes(several) == _codes(one)
    assert [f.status for f in several.files] == [f.status for f in one.files]
    assert several.targets() == one.targets()
    codes = {d.code for f in one.files for d in f.diagnostics}
    assert {"GRPO102", "GRPO201", "GRPO202"} <= codes  # groups that do not divide, temperature 0, top_k 1


def test_too_few_files_are_linted_in_this_process(tmp_path, monkeypatch):
    _repository(tmp_path, 5)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked for five scripts"))
    report = lint_paths(["."], Options(jobs=2))
    assert any(d.code == "GRPO201" for f in report.files for d in f.diagnostics)


def test_a_copy_sends_back_an_outline_of_each_run(tmp_path, monkeypatch):
    """What the rest of the run reads of a plan (its release, the keys it writes) survives; the parse does not."""
    _repository(tmp_path, 1)
    monkeypatch.chdir(tmp_path)
    report = lint_paths(["run_00.sh"], Options(jobs=1))
    (result,) = report.files
    plan = result.plans[0]
    sent = pickle.loads(pickle.dumps(engine._portable(result)))
    outline = sent.plans[0]
    assert outline.target == plan.target
    assert outline.document.written() == plan.document.written() and "num_generations" in outline.document.written()
    assert outline.document.entries == {} and outline.document.text == "" and outline.specs == {}
    assert len(pickle.dumps(sent)) < len(pickle.dumps(plan)) / 4


def test_the_command_line_reports_the_same_with_one_process_or_two(tmp_path):
    _repository(tmp_path, 30)
    several = run_cli("--isolated", "--format", "json", "--jobs", "2", ".", cwd=tmp_path)
    one = run_cli("--isolated", "--format", "json", "--jobs", "1", ".", cwd=tmp_path)
    assert several.returncode == one.returncode == 1, several.stderr
    assert json.loads(several.stdout) == json.loads(one.stdout)
    shown = run_cli("--isolated", "--show", "--jobs", "2", ".", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count("num_generations") >= 60  # every run described in full (--show lints in one process)
