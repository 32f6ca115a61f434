"""The command line's parse cache (grpo_lint.sources.parse_cache): what a Python file or a script was read as is
loaded by a later run, never stale, never from a folder another user could write to, and never an error."""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import pytest

from grpo_lint import forked
from grpo_lint.sources import parse_cache, python_code, shell
from tests.conftest import ROOT, clean_env, run_cli

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the cache is kept on POSIX systems only")

TRAINER = """\
import torch
from accelerate import Accelerator

accelerator = Accelerator()
torch.manual_seed(42)
""" + "\n".join(f"X{i} = {i}" for i in range(200))  # (long enough to be worth keeping)

# A TRL script whose group of one GRPO101 reports: what the command line is run on.
RUN = 'from trl import GRPOConfig\n\nconfig = GRPOConfig(output_dir="o", num_generations=1)\n' + TRAINER

SCRIPT = "#!/bin/bash\n" + "".join(f"export V{i}={i}\n" for i in range(300)) + "python train.py --seed 1\n"


@pytest.fixture
def cache(tmp_path: Path):
    """A cache in a folder of this test, for the repository `tmp_path / "repo"`; closed afterwards."""
    folder = tmp_path / "cache"
    (tmp_path / "repo").mkdir()

    def start() -> None:
        parse_cache.use(str(folder))
        parse_cache.bind(tmp_path / "repo")

    start()
    yield start, folder
    parse_cache.use(None)


def _packs(folder: Path) -> list[Path]:
    return sorted(folder.glob("python-*/*.pack"))


def _refuse(*args: object, **kwargs: object) -> None:
    raise AssertionError("read again, not loaded from the cache")


def test_a_later_run_loads_what_an_earlier_one_read(cache, monkeypatch):
    start, folder = cache
    first = parse_cache.read(TRAINER, "train.py")
    assert isinstance(first, python_code.PythonFile) and first.seeds
    parse_cache.save()
    assert len(_packs(folder)) == 1
    start()  # a new run
    monkeypatch.setattr(python_code, "read", _refuse)
    again = parse_cache.read(TRAINER, "train.py")
    assert again == first  # the text too, which the entry does not hold
    assert again.text == TRAINER


def test_without_a_cache_every_run_reads_the_file(tmp_path, monkeypatch):
    parse_cache.use(None)
    calls = []
    reader = python_code.read
    monkeypatch.setattr(python_code, "read", lambda text, path: calls.append(path) or reader(text, path))
    parse_cache.read(TRAINER, "train.py")
    parse_cache.read(TRAINER, "train.py")
    assert calls == ["train.py", "train.py"]


def test_a_changed_file_is_read_again_and_its_old_entry_goes(cache, monkeypatch):
    start, _folder = cache
    parse_cache.read(TRAINER, "train.py")
    parse_cache.save()
    start()
    changed = TRAINER.replace("manual_seed(42)", "manual_seed(7)")
    code = parse_cache.read(changed, "train.py")
    assert code.seeds[0].argument == "7"  # not the entry of the old text
    parse_cache.save()
    start()
    monkeypatch.setattr(python_code, "read", _refuse)
    assert parse_cache.read(changed, "train.py").seeds[0].argument == "7"
    # (one entry per file: the old text's was dropped when the new one was kept)
    assert len(parse_cache._open().loaded) == 1


def test_the_same_text_at_another_path_is_another_entry(cache):
    start, _folder = cache
    parse_cache.read(TRAINER, "train.py")
    parse_cache.save()
    start()
    as_test = parse_cache.read(TRAINER, "tests/test_train.py")
    assert as_test.is_test and as_test.path == "tests/test_train.py"


def test_a_script_read_alone_is_kept_and_one_read_with_a_callers_variables_is_not(cache, monkeypatch):
    start, _folder = cache
    first = parse_cache.script(SCRIPT, "run.sh")
    parse_cache.save()
    start()
    monkeypatch.setattr(shell, "parse", _refuse)
    again = parse_cache.script(SCRIPT, "run.sh")
    assert again.commands == first.commands and again.lines == first.lines and again.text == SCRIPT
    with pytest.raises(AssertionError, match="read again"):
        parse_cache.script(SCRIPT, "run.sh", arguments=[])  # (run by another script, with its words)


def test_a_repository_has_its_own_pack(tmp_path, cache):
    _start, folder = cache
    parse_cache.read(TRAINER, "train.py")
    parse_cache.save()
    (tmp_path / "other").mkdir()
    parse_cache.use(str(folder))
    parse_cache.bind(tmp_path / "other")
    assert parse_cache.cached(TRAINER, "train.py") is None
    parse_cache.read(TRAINER, "train.py")
    parse_cache.save()
    assert len({p.name.split(".")[0] for p in _packs(folder)}) == 2


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777])
def test_a_folder_others_may_write_to_is_not_used(tmp_path, mode, monkeypatch):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(mode)
    parse_cache.use(str(folder))
    parse_cache.bind(tmp_path)
    try:
        assert not parse_cache.active()
        assert isinstance(parse_cache.read(TRAINER, "train.py"), python_code.PythonFile)
        parse_cache.save()
        assert list(folder.iterdir()) == []
    finally:
        parse_cache.use(None)


def test_a_linked_folder_is_not_used(tmp_path):
    (tmp_path / "real").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    parse_cache.use(str(tmp_path / "link"))
    try:
        assert not parse_cache.active()
    finally:
        parse_cache.use(None)


def test_a_folder_that_cannot_be_made_means_no_cache(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    parse_cache.use(str(tmp_path / "file" / "cache"))
    try:
        assert not parse_cache.active()
        assert isinstance(parse_cache.read(TRAINER, "train.py"), python_code.PythonFile)
        parse_cache.save()
    finally:
        parse_cache.use(None)


def test_a_damaged_pack_is_read_past(cache):
    start, folder = cache
    parse_cache.read(TRAINER, "train.py")
    parse_cache.read(TRAINER.replace("42", "43"), "other.py")
    parse_cache.save()
    (pack,) = _packs(folder)
    data = pack.read_bytes()
    # the first entry's pickle damaged, the pack cut short in the second
    head = len(b"grpo-lint pack 1\n") + 52
    pack.write_bytes(data[:head] + b"\x80\x05garbage" + data[head + 9 : len(data) - 10])
    start()
    assert parse_cache.read(TRAINER, "train.py").seeds[0].argument == "42"
    assert parse_cache.read(TRAINER.replace("42", "43"), "other.py").seeds[0].argument == "43"


def test_a_fifo_or_a_link_in_place_of_a_pack_is_not_read(cache, tmp_path):
    start, folder = cache
    parse_cache.read(TRAINER, "train.py")
    parse_cache.save()
    (pack,) = _packs(folder)
    tag = pack.name.split(".")[0]
    os.mkfifo(pack.parent / f"{tag}.1.pack")
    (tmp_path / "elsewhere").write_bytes(pack.read_bytes())
    (pack.parent / f"{tag}.2.pack").symlink_to(tmp_path / "elsewhere")
    pack.unlink()
    start()
    assert parse_cache.cached(TRAINER, "train.py") is None  # (and no hang on the FIFO)


def test_another_builds_folder_is_removed_and_nothing_else(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    old = folder / "python-0123456789abcdef"
    old.mkdir(mode=0o700)
    (old / "0123456789abcdef.1.pack").write_bytes(b"grpo-lint pack 1\n")
    mine = folder / "notes.txt"
    mine.write_text("kept")
    parse_cache.use(str(folder))
    parse_cache.bind(tmp_path)
    try:
        assert parse_cache.active()
    finally:
        parse_cache.use(None)
    assert not old.exists() and mine.read_text() == "kept"
    assert [p.name for p in folder.glob("python-*")] != ["python-0123456789abcdef"]


@pytest.mark.skipif(forked.processes(2) < 2, reason="forks only on Linux")
def test_what_a_forked_copy_reads_is_kept(cache, monkeypatch):
    start, _folder = cache
    texts = {item: TRAINER.replace("42", str(item)) for item in range(6)}
    assert parse_cache.active()
    made = forked.share_out(
        list(texts), lambda item: parse_cache.read(texts[item], f"m{item}.py").seeds[0].argument, 2, chunk=1
    )
    assert made == {item: str(item) for item in texts}
    parse_cache.save()
    start()
    monkeypatch.setattr(python_code, "read", _refuse)
    assert [parse_cache.read(texts[item], f"m{item}.py").seeds[0].argument for item in texts] == [
        str(item) for item in texts
    ]


def test_the_readers_named_are_every_module_a_file_is_read_with():
    """A build is named after the modules that decide what a file is read as: every grpo_lint module that
    python_code or shell import, directly or not, is among them (else an edited reader would load stale entries)."""
    package = ROOT / "grpo_lint"
    seen: set[str] = set()
    todo = ["sources/python_code.py", "sources/shell.py"]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        for node in ast.walk(ast.parse((package / module).read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("grpo_lint"):
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
                for name in names:
                    path = name.removeprefix("grpo_lint").lstrip(".").replace(".", "/") + ".py"
                    if (package / path).is_file():
                        todo.append(path)
    assert seen <= set(parse_cache._READERS)


def test_the_command_line_keeps_its_cache_outside_the_repository(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(RUN)
    before = sorted(p.name for p in repo.rglob("*"))
    env = clean_env(GRPO_LINT_CACHE_DIR=str(tmp_path / "cache"))
    first = run_cli("--isolated", ".", cwd=repo, env=env)
    again = run_cli("--isolated", ".", cwd=repo, env=env)
    assert "GRPO101" in first.stdout and again.stdout == first.stdout and again.returncode == first.returncode
    assert len(_packs(tmp_path / "cache")) == 1
    assert sorted(p.name for p in repo.rglob("*")) == before


@pytest.mark.parametrize("how", [("--no-cache",), ("--cache-dir", "{}"), ()])
def test_no_cache_writes_nothing_and_cache_dir_chooses_the_folder(tmp_path, how):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(RUN)
    chosen = tmp_path / "chosen"
    env = clean_env(GRPO_LINT_CACHE_DIR=str(tmp_path / "env"))
    if not how:
        env["GRPO_LINT_NO_CACHE"] = "1"
    args = [a.format(chosen) for a in how]
    done = run_cli("--isolated", *args, ".", cwd=repo, env=env)
    assert "GRPO101" in done.stdout
    assert not (tmp_path / "env").exists()
    assert chosen.exists() == (how[:1] == ("--cache-dir",))


def test_the_pre_commit_path_of_a_yaml_file_never_opens_the_cache(tmp_path):
    (tmp_path / "c.yaml").write_text("num_generations: 4\nper_device_train_batch_size: 4\n")
    env = clean_env(GRPO_LINT_CACHE_DIR=str(tmp_path / "cache"))
    run_cli("--isolated", "c.yaml", cwd=tmp_path, env=env)
    assert not (tmp_path / "cache").exists()
    assert "grpo_lint.sources.parse_cache" in sys.modules  # (this process imported it: the check is the folder's)
