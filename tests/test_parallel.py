"""Python files parsed on several processes: the same results as one process, and a safe fallback."""

from __future__ import annotations

import json
import os
import pickle
import sys

import pytest

from grpo_lint import forked
from grpo_lint.engine import lint_paths
from grpo_lint.options import Options
from grpo_lint.sources import parallel
from grpo_lint.sources.python_code import read

from .conftest import run_cli

pytestmark = pytest.mark.skipif(forked.processes(2) < 2, reason="forking is not used on this platform")

_TRAIN = """
import os
import torch
import torch.distributed as dist
from trl import GRPOConfig


def helper_{n}(x):
    return [x * i for i in range({n})]


def main(model, prompts):
    dist.init_process_group("nccl")
    torch.manual_seed(1234)
    config = GRPOConfig(output_dir="out", num_generations={generations}, per_device_train_batch_size=6)
    completions = model.generate(prompts, do_sample=True)
    loss = completions.sum()
    loss.backward()
"""


def _files(count: int) -> list[tuple[str, str]]:
    padding = "\n".join(f"VALUE_{i} = {i}  # {'x' * 60}" for i in range(400))  # some 30 KB each
    return [(f"pkg/train_{n}.py", _TRAIN.format(n=n, generations=3 + n % 2) + padding) for n in range(count)]


def _same(ours: object, theirs: object) -> bool:
    """Equal, field by field (an Entry compares by identity): the same pickle."""
    return pickle.dumps(ours) == pickle.dumps(theirs)


def test_the_processes_read_what_one_process_reads():
    files = _files(6)
    assert sum(len(text) for _, text in files) >= parallel.MIN_BYTES
    found = parallel.read_many(files, 2)
    assert set(found) == {path for path, _ in files}
    for path, text in files:
        assert _same(found[path], read(text, path))


def test_little_python_stays_in_one_process(monkeypatch):
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked for a few kilobytes"))
    assert parallel.read_many([("a.py", "import os\n"), ("b.py", "seed = 1\n")], 2) == {}


def test_a_failing_process_leaves_its_files_to_the_caller(monkeypatch, tmp_path):
    """A file whose reading fails, or a process that dies, leaves those files out; the rest arrive."""
    from .test_forked import mark, wait_for

    files = _files(4)
    real = parallel._read
    parent, marks = os.getpid(), tmp_path / "marks"
    broken = files[-1][0]  # the smallest: dealt last

    def failing(path, text):
        if os.getpid() != parent:
            mark(marks)
            os._exit(3)  # the copy dies on the first file it takes
        wait_for(marks)  # (this process leaves the copy time to take one)
        return None if path == broken else real(path, text)

    monkeypatch.setattr(parallel, "_read", failing)
    found = parallel.read_many(files, 2)
    assert broken not in found and found  # this process's files arrived, without the one that failed
    assert len(found) < len(files) - 1  # and without the file the dead copy took
    assert all(_same(found[path], read(text, path)) for path, text in files if path in found)


def test_how_many_processes():
    assert forked.processes(1) == 1
    assert 1 <= forked.processes(0) <= forked.MAX_PROCESSES
    assert forked.processes(1000) == forked.MAX_PROCESSES


def test_the_python_api_never_forks(tmp_path, monkeypatch):
    """Inside a trainer (threads, a GPU context) the library parses in its own process."""
    for path, text in _files(4):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("the API forked"))
    report = lint_paths(["."], Options())
    assert any(d.code == "GRPO301" for f in report.files for d in f.diagnostics)


def test_the_command_line_reports_the_same_with_one_process_or_several(tmp_path):
    for path, text in _files(6):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    (tmp_path / "pkg" / "notes.py").write_text("def f():\n    return 1\n")  # not parsed at all
    several = run_cli("--isolated", "--format", "json", ".", cwd=tmp_path)
    one = run_cli("--isolated", "--format", "json", "--jobs", "1", ".", cwd=tmp_path)
    assert several.returncode == one.returncode == 0, several.stderr  # warnings only
    assert json.loads(several.stdout) == json.loads(one.stdout)
    found = json.loads(several.stdout)
    assert [d["code"] for d in found["diagnostics"]].count("GRPO301") == 6  # a constant seed in each script
    assert any(f["path"].endswith("notes.py") and f["status"] == "skipped" for f in found["summary"]["files"])
    assert run_cli("--jobs", "0", ".", cwd=tmp_path).returncode == 2  # not a number of processes


@pytest.mark.skipif(sys.platform != "linux", reason="Linux only")
def test_processes_respect_the_cpus_this_process_may_use():
    assert forked.processes(0) == min(len(os.sched_getaffinity(0)), forked.MAX_PROCESSES)


def test_a_notebook_is_decoded_once_and_parsed_with_the_python_files(tmp_path, monkeypatch):
    from grpo_lint.sources import notebook

    for path, text in _files(4):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    source = "from trl import GRPOConfig\nGRPOConfig(output_dir='o', num_generations=1)\n"
    (tmp_path / "grpo.ipynb").write_text(json.dumps({"cells": [{**cell, "source": source}], "nbformat": 4}))
    monkeypatch.chdir(tmp_path)
    decoded: list[int] = []
    real = notebook.decode
    monkeypatch.setattr(notebook, "decode", lambda text: decoded.append(1) or real(text))
    monkeypatch.setattr(notebook, "_DECODED", {})
    several = lint_paths(["."], Options(jobs=2))
    assert len(decoded) == 1  # decoded ahead; its install cells and its lint use that text
    one = lint_paths(["."], Options(jobs=1))
    codes = [[(d.code, d.span.line, d.cell) for d in f.diagnostics] for f in several.files]
    assert codes == [[(d.code, d.span.line, d.cell) for d in f.diagnostics] for f in one.files]
    (result,) = [f for f in several.files if f.path.endswith("grpo.ipynb")]
    assert [d.code for d in result.diagnostics] == ["GRPO101"]
