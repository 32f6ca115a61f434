"""The command line read without click gives exactly what click gives, or leaves the line to click."""

from __future__ import annotations

import random
import subprocess
import sys

import click
import pytest

from grpo_lint.cli import click_command
from grpo_lint.cli_flags import FLAGS, plain_flags

from .conftest import run_cli


@pytest.fixture
def places(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text("num_generations: 8\n")
    (tmp_path / "run.sh").write_text("echo\n")
    (tmp_path / "configs").mkdir()
    return tmp_path


def _click(args: list[str]) -> dict | None:
    try:
        with click_command().make_context("grpo-lint", list(args)) as ctx:
            return dict(ctx.params)
    except (click.ClickException, click.exceptions.Exit):
        return None


VALUES = {
    "text": ["trl==0.19.1", "GRPO1,GRPO2", "", "x y", "-", "-v", "--quiet"],
    "int": ["8", "1", "0", "-1", "x", " 8 ", "100000000000"],
    "choice": [],  # the flag's own choices, plus refused ones
    "file": ["a.yaml", "configs", "missing.toml", "-", "-o"],
}


def _tokens(rng: random.Random) -> list[str]:
    """A random command line from the flags' own names, values click accepts and values it refuses,
    unknown and combined flags, `--`, help and version."""
    line: list[str] = []
    for _ in range(rng.randint(0, 6)):
        roll = rng.random()
        if roll < 0.25:
            line.append(rng.choice(["a.yaml", "run.sh", "configs", "missing.yaml", "-", "x=1"]))
            continue
        if roll < 0.32:
            line.append(rng.choice(["--", "-h", "--help", "--version", "-qv", "--bogus", "--forma", "-x", "--quiet=1"]))
            continue
        flag = rng.choice(FLAGS)
        name = rng.choice(flag.names)
        if flag.kind == "flag":
            line.append(name)
            continue
        pool = [*flag.choices, "yaml", "TEXT"] if flag.kind == "choice" else VALUES[flag.kind]
        value = rng.choice(pool)
        if name.startswith("--") and rng.random() < 0.3:
            line.append(f"{name}={value}")
        elif rng.random() < 0.05:
            line.append(name)  # the value is missing
        else:
            line += [name, value]
    return line


def test_a_plain_line_gives_what_click_gives_and_any_other_is_left_to_click(places):
    rng = random.Random(20261125)
    read_plainly = 0
    for _ in range(4000):
        args = _tokens(rng)
        plain = plain_flags(args)
        if plain is None:
            continue
        read_plainly += 1
        clicked = _click(args)
        assert clicked is not None, f"click refuses {args} but it was read as plain"
        assert plain == clicked, args
    assert read_plainly > 800  # the comparison covered many lines, not only the ones left to click


@pytest.mark.parametrize(
    "args",
    [
        ["--force-exclude", "--only-configs", "a.yaml", "run.sh"],  # the pre-commit hook's line
        ["--isolated", "--format", "json", "."],
        ["--target=trl==0.19.1", "--select", "GRPO1", "--select", "GRPO2", "-q", "a.yaml"],
        ["--world-size", "8", "--", "--odd-name.yaml"],
    ],
)
def test_common_lines_are_read_without_click(places, args):
    plain = plain_flags(args)
    assert plain is not None and plain == _click(args)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["--format", "yaml", "a.yaml"],  # a value click refuses
        ["--config", "configs", "a.yaml"],  # a folder where a file is wanted
        ["--world-size", "0", "a.yaml"],
        ["-qv", "a.yaml"],  # combined short flags
        ["--fix", "a.yaml"],  # writes files: click reads it
        ["-o", "out.txt", "a.yaml"],
        ["--select", "-q", "a.yaml"],  # a value that looks like a flag
    ],
)
def test_lines_with_any_doubt_are_left_to_click(places, args):
    assert plain_flags(args) is None


def test_the_hook_line_does_not_import_click(places):
    code = (
        "import sys; sys.argv = ['grpo-lint', '--force-exclude', '--only-configs', 'a.yaml']\n"
        "from grpo_lint.cli import entry\n"
        "try:\n    entry()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "print(code, 'click' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=places, check=False)
    assert done.stderr.strip().splitlines()[-1] == "0 False", done.stderr
    usage = subprocess.run(
        [sys.executable, "-c", code.replace("'a.yaml'", "'--help'")], capture_output=True, text=True, cwd=places
    )
    assert "Usage:" in usage.stdout and usage.stderr.strip().endswith("0 True")


def test_a_usage_error_found_after_a_plain_read_prints_as_click_prints_it(places):
    result = run_cli("--select", "E501", "a.yaml", cwd=places)
    assert result.returncode == 2
    assert result.stderr.startswith("Usage: ")
    assert "Error: Invalid value for --select: 'E501' is not a known rule code" in result.stderr
    assert "Traceback" not in result.stderr
