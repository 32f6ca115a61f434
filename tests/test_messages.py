"""Every message is whole sentences: each ends with its stop, and no sentence runs into the next.

Messages are rendered from every rule page's failing example, from the launches of a repository written here that
reach the key-finding templates of a script's own parser (with and without a suggestion), and from the examples/
folder; each message is then checked for a sentence that starts without the previous one having ended.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grpo_lint import versions

from .conftest import ROOT
from .conftest import lint as lint_text_with
from .test_repository import lint, write
from .test_rule_pages import PAGES, examples

# A capitalised word that starts a sentence of a template, directly after a word (no stop between them).
_RUN_ON = re.compile(r"[a-z0-9_`'\)\]] (How|The|It|This|As|An?|Hydra|Pin|Delete|Use|Without|With|Only|Each|Every) ")
_ENDS = (".", "?", "!", ")", '"', "'", "`", "]")


def _whole(message: str) -> list[str]:
    problems = [
        f"runs on at {m.start()}: ...{message[max(m.start() - 30, 0) : m.end() + 10]}..."
        for m in _RUN_ON.finditer(message)
    ]
    if not message.rstrip().endswith(_ENDS):
        problems.append(f"does not end with a stop: ...{message[-40:]}")
    return problems


@pytest.fixture(autouse=True)
def uninstalled(monkeypatch):
    monkeypatch.setattr(versions, "installed_version", lambda framework: None)


def test_the_rule_pages_failing_examples_say_whole_sentences():
    found = {}
    for page in PAGES:
        options, blocks = examples(page)
        if options in ("repository", "internal"):
            continue
        body, name = blocks["fail"]
        for diagnostic in lint_text_with(body, options, name):
            problems = _whole(diagnostic.message)
            if problems:
                found[f"{page.stem}/{diagnostic.code}"] = problems
    assert found == {}


SCRIPT = """\
from dataclasses import dataclass

from transformers import HfArgumentParser
from trl import GRPOConfig, GRPOTrainer


@dataclass
class Args:
    dataset_path: str = ""


def main():
    args, config = HfArgumentParser((Args, GRPOConfig)).parse_yaml_file("recipe.yaml")
    GRPOTrainer(model="m", args=config).train()
"""


def test_the_messages_of_a_scripts_own_parser_are_whole_sentences(tmp_path, monkeypatch):
    root = write(
        tmp_path,
        {
            "requirements.txt": "trl==0.25.1\n",
            "train.py": SCRIPT,
            "recipe.yaml": "num_generations: 4\nper_device_train_batch_size: 4\nnum_processes: 4\nnum_generation: 2\n",
            "run.sh": "accelerate launch --num_processes 4 train.py --config recipe.yaml --dataset_pathh x\n",
        },
    )
    _, report = lint(root, monkeypatch)
    messages = [d["message"] for d in report["diagnostics"]]
    assert messages, "the repository reaches no message"
    assert {m: _whole(m) for m in messages if _whole(m)} == {}


def test_the_check_itself_finds_a_run_on_sentence():
    assert _whole("`x` is not a field of any argument class How the script reads it is its own.")
    assert _whole("`x` is not a field of any argument class. How the script reads it is its own.") == []


@pytest.mark.parametrize("folder", sorted(p for p in (ROOT / "examples").iterdir() if p.is_dir()))
def test_the_examples_messages_are_whole_sentences(folder: Path, monkeypatch):
    _, report = lint(folder, monkeypatch)
    assert {d["message"]: _whole(d["message"]) for d in report["diagnostics"] if _whole(d["message"])} == {}


def test_a_long_quote_is_shortened_and_the_text_between_two_quotes_is_not_taken_for_one():
    from grpo_lint.limits import CLIP
    from grpo_lint.lint import _clip_text

    between = " is a key of the config " + "x" * (3 * CLIP) + ", but nothing names "
    text = f"`a.b`{between}`b`: set for nothing."
    assert _clip_text(text) == text
    long_key = "k" * (3 * CLIP)
    shortened = _clip_text(f"`{long_key}` is unknown{between}.")
    assert f"({3 * CLIP:,} characters)" in shortened and long_key not in shortened
