from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from grpo_lint.engine import lint_text
from grpo_lint.options import Options
from grpo_lint.versions import parse_target

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def pytest_configure(config: pytest.Config) -> None:
    """The command line's parse cache (grpo_lint.sources.parse_cache) is kept in a folder of this test run, not in
    the user's ~/.cache: every command-line run of the suite, in this process or another, uses it."""
    import tempfile

    os.environ["GRPO_LINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="grpo-lint-cache-")
    os.environ.pop("GRPO_LINT_NO_CACHE", None)


@pytest.fixture(autouse=True)
def _not_the_ci_environment(monkeypatch):
    """Every test runs as on a developer's machine: the variables a CI sets that change grpo-lint's output
    (GITHUB_ACTIONS picks the GitHub format, FORCE_COLOR colours) are not passed on. A test that wants them
    sets them itself."""
    for name in ("GITHUB_ACTIONS", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)


def options_from(args: str) -> Options:
    """Options from a command-line fragment: --target X --world-size N --framework F."""
    targets = {}
    settings: dict = {}
    words = shlex.split(args)
    for flag, value in zip(words[::2], words[1::2], strict=True):
        if flag == "--target":
            target = parse_target(value)
            targets[target.framework] = target
        elif flag == "--world-size":
            settings["world_size"] = int(value)
        elif flag == "--framework":
            settings["framework"] = value
        else:
            raise ValueError(flag)
    return Options(targets=targets, **settings)


def lint(text: str, args: str = "--target trl==1.16.0 --world-size 8", name: str = "config.yaml"):
    return lint_text(text, name, options_from(args)).diagnostics


def codes(text: str, args: str = "--target trl==1.16.0 --world-size 8") -> list[str]:
    return sorted(d.code for d in lint(text, args))


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without what changes the output format (GITHUB_ACTIONS) or colour."""
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS", "FORCE_COLOR")}
    return {**env, "NO_COLOR": "1", **extra}


def run_cli(
    *args: str, stdin: str | bytes | None = None, env: dict | None = None, cwd: Path | str | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grpo_lint", *args],
        capture_output=True,
        text=not isinstance(stdin, bytes),
        input=stdin,
        cwd=cwd or ROOT,
        env=env if env is not None else clean_env(),
        timeout=60,
    )


@pytest.fixture
def shared() -> Path:
    if not (SHARED / "corpus").is_dir():
        pytest.skip("../shared is not present")
    return SHARED


def run_probe(python: str, probe: str, payload: object, timeout: int) -> dict:
    """Run `probe` (a script that prints one JSON line last) in another interpreter with `payload` as its
    argument: the oracles whose framework cannot share this virtualenv."""
    import json

    done = subprocess.run(
        [python, "-c", probe, json.dumps(payload)], capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz-budget",
        type=float,
        default=0.0,
        help="seconds for the long hostile-input run (tests marked fuzz; skipped when 0)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--fuzz-budget") > 0:
        return
    skip = pytest.mark.skip(reason="the long fuzz run: pytest -m fuzz --fuzz-budget=600")
    for item in items:
        if "fuzz" in item.keywords:
            item.add_marker(skip)


def agrees_with_a_step(base: dict, extra: dict, kind: str, raised: bool, target: str, what: str) -> None:
    """The verdict of a differential trainer test: grpo-lint's errors on the config `base | extra` (a TRL YAML, one
    process) against what one training step of the real trainer did. `kind`: "raises" (it must stop, and an error
    must be reported), "trains" (no error) or "silent"/"same" (it trains but spoils training: an error)."""
    text = "".join(f"{k}: {'null' if v is None else v}\n" for k, v in {**base, **extra}.items())
    errors = {d.code for d in lint(text, f"--target {target} --world-size 1") if d.severity.label == "error"}
    if kind == "raises":
        assert raised, f"{extra}: {target} trained"
        assert errors, f"{extra}: {target} stops ({what}), grpo-lint says nothing"
    elif kind == "trains":
        assert not raised, f"{extra}: {target} stopped: {what}"
        assert not errors, f"{extra}: {target} trains, grpo-lint says {errors}"
    else:
        assert not raised, f"{extra}: {target} stopped: {what}"
        assert errors, f"{extra}: the step silently misbehaves, grpo-lint says nothing"
