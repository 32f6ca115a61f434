"""grpo-lint against Hydra's own composition of verl's config, over every main_ppo command of the verl snapshot.

Each `python3 -m verl.trainer.main_ppo ...` command of the snapshot (../shared/corpus/repos) is composed
by hydra-core 1.3 with the snapshot's own `verl/trainer/config` (Hydra's parser, its struct-mode key
checks, `+`/`++` semantics), and grpo-lint lints the same script from the snapshot's root as a user
would. Hydra fails a command exactly when grpo-lint reports an error (GRPO001 unparseable override,
GRPO002 unknown key, GRPO009 append to an existing key) on it.

Values that are not known before launch (`key=$VAR`) are composed as a placeholder: composition checks
keys, not values. `"$@"` adds nothing (the script run without arguments). Commands whose words are not
known at all (`$ARGS` holding several overrides) or that name their own config are left out.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import warnings
from bisect import bisect_right
from pathlib import Path

import pytest

from grpo_lint.launch.commands import Places, recognise
from grpo_lint.sources.shell import parse

from .conftest import ROOT, clean_env

hydra = pytest.importorskip("hydra", reason="the composition oracle needs hydra-core (extra 'test')")
pytestmark = pytest.mark.differential
VERL = ROOT.parent / "shared" / "corpus" / "repos" / "volcengine+verl.tar.gz"
CONFIGS = ("ppo_trainer", "ppo_megatron_trainer")


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not VERL.is_file():
        pytest.skip("../shared/corpus/repos/volcengine+verl.tar.gz is not present")
    folder = tmp_path_factory.mktemp("verl")
    with tarfile.open(VERL) as tar:
        tar.extractall(folder, filter="data")
    return folder / "volcengine+verl"


def commands(root: Path) -> list[tuple[str, int, str, list[str]]]:
    """(script, first line, config name, overrides) of every composable main_ppo command."""
    found = []
    for path in sorted(root.rglob("*.sh")):
        text = path.read_text(errors="replace")
        if "main_ppo" not in text:
            continue
        for command in parse(text, str(path)).commands:
            launch = recognise(command, Places(path.parent, root))
            if launch is None or launch.framework != "verl" or launch.entry is not None:
                continue
            overrides = _overrides(list(launch.args))
            if overrides is not None and overrides[0] in CONFIGS:
                found.append((str(path.relative_to(root)), command.line, *overrides))
    return found


def _overrides(words: list) -> tuple[str, list[str]] | None:
    name, texts, index = "ppo_trainer", [], 0
    while index < len(words):
        word = words[index]
        index += 1
        text = word.text
        if text.startswith(("--config-name", "--config-path", "-cn", "-cp")):
            value = text.partition("=")[2] if "=" in text else (words[index].text if index < len(words) else "")
            index += 0 if "=" in text else 1
            if text.startswith(("--config-name", "-cn")):
                name = value.removesuffix(".yaml")
            else:
                return None  # a config of the user's own: not the snapshot's
            continue
        if text.startswith("-"):
            return None  # a flag of Hydra's own (--multirun, ...)
        if text.startswith("hydra."):
            continue  # Hydra's run settings: not part of the composed job config
        if not word.known and (text in ("$@", "$*") or text.startswith(("${@", "${*"))):
            continue
        if not word.known:
            key, equals, _ = text.partition("=")
            if not equals or "$" in key or "`" in key:
                return None  # a word holding several overrides, or a key not known
            text = f"{key}=__unknown__"
        texts.append(text)
    return name, texts


def hydra_fails(config_dir: Path, cases: list) -> set[tuple[str, int]]:
    from hydra import compose, initialize_config_dir

    failed = set()
    with warnings.catch_warnings(), initialize_config_dir(config_dir=str(config_dir), version_base=None):
        warnings.simplefilter("ignore")
        for path, line, name, overrides in cases:
            try:
                compose(config_name=name, overrides=overrides)
            except Exception:  # ConfigCompositionException, OverrideParseException, ...
                failed.add((path, line))
    return failed


def lint_errors(root: Path, cases: list) -> set[tuple[str, int]]:
    """The commands on which grpo-lint reports a key or grammar error, linted from the snapshot's root."""
    scripts = sorted({path for path, *_ in cases})
    done = subprocess.run(
        [sys.executable, "-m", "grpo_lint", "--format", "json", "--select", "GRPO001,GRPO002,GRPO009", *scripts],
        capture_output=True,
        text=True,
        cwd=root,
        env=clean_env(),
        timeout=300,
    )
    starts: dict[str, list[int]] = {}
    for path, line, *_ in cases:
        starts.setdefault(path, []).append(line)
    for lines in starts.values():
        lines.sort()
    flagged = set()
    for diagnostic in json.loads(done.stdout)["diagnostics"]:
        lines = starts.get(diagnostic["path"], [])
        at = bisect_right(lines, diagnostic["line"]) - 1
        if diagnostic["severity"] == "error" and at >= 0:
            flagged.add((diagnostic["path"], lines[at]))
    return flagged


def test_hydra_composition_fails_exactly_where_grpo_lint_reports_an_error(snapshot):
    cases = commands(snapshot)
    assert len(cases) >= 80  # every example script that composes the snapshot's own config
    failed = hydra_fails(snapshot / "verl" / "trainer" / "config", cases)
    flagged = lint_errors(snapshot, cases)
    agree = len(cases) - len(failed ^ flagged)
    print(f"\nHydra composition vs grpo-lint: {agree}/{len(cases)} commands agree ({len(failed)} fail in Hydra)")
    assert failed, "the sample has no failing command: the comparison would prove nothing"
    assert failed - flagged == set(), "Hydra fails these, grpo-lint says nothing"
    assert flagged - failed == set(), "grpo-lint errors on these, Hydra composes them"
