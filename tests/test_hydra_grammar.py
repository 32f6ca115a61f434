"""Hydra override grammar: grpo-lint's recogniser against hydra-core's own parser (a test dependency).

Every override word of the verl snapshot's launch scripts (as the bash reader expands them), a list of
tricky hand-written ones and generated strings must be accepted or rejected by both alike.
"""

from __future__ import annotations

import tarfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_lint.sources.hydra_grammar import override_error
from grpo_lint.sources.shell import parse

from .conftest import ROOT
from .test_launch_scripts import script

overrides_parser = pytest.importorskip("hydra.core.override_parser.overrides_parser")
VERL = ROOT.parent / "shared" / "corpus" / "repos" / "volcengine+verl.tar.gz"
_PARSER = overrides_parser.OverridesParser.create()


def hydra_accepts(word: str) -> bool:
    try:
        _PARSER.parse_overrides([word])
    except Exception:  # OverrideParseException, or an error from a function Hydra evaluates
        return False
    return True


def _snapshot_overrides() -> list[str]:
    if not VERL.is_file():
        return []
    words: set[str] = set()
    with tarfile.open(VERL) as tar:
        for member in tar:
            if not (member.isfile() and member.name.endswith(".sh")):
                continue
            handle = tar.extractfile(member)
            if handle is None:
                continue
            for command in parse(handle.read().decode("utf-8", "replace"), member.name).commands:
                texts = [w.text for w in command.words]
                start = next((i for i, t in enumerate(texts) if "main_ppo" in t), None)
                if start is None:
                    continue
                flag_value = False
                for word in command.words[start + 1 :]:
                    if flag_value or word.text.startswith("-"):
                        flag_value = word.text in ("--config-path", "--config-name", "-cp", "-cn")
                        continue
                    if word.known:
                        words.add(word.text)
    return sorted(words)


TRICKY = [
    "a=1", "a.b=qwen3_4b_grpo_8npu}", "a=<path_to_config>", "=5", "a=", "~a", "~a=1", "+a=1", "++a.b=[1,2]",
    "a=[1,2", "a={x:1}", "a={x:1", "a=choice(1,2)", "a='x y'", "a=x y", "a=1,2", "a=${oc.env:X,8}", "a/b=c",
    "a@b=c", " ", 'a="x"y', "a='[\"console\",\"wandb\"]'", 'a=["console","wandb"]', "a b=1", "a=x\\y", "a=#x",
    "a=!x", "a=^x", "a=&x", "a=~x", "a.0.b=1", "$a=1", "a=(1)", "a=f(x=1)", "a= 1", "a=1 ", "a=[]", "a={}",
    "a=nan", "a=1e-6", "a=.5", "a=5.", "a='", 'a=">"', "a=int(3)", "a=str(x)", "a={a: [1, {b: c}]}",
    "a=[[[[1]]]]", "a=x:y", "a=${a.b}x${c}", "a=1_000", "a=http://host:8000/v1", "a=path/to/*.parquet",
    "a=\\,", "a=\\(x\\)", "a=x=y", "a=[a=1]", "a={a=1}", "hydra/launcher=basic", "a.b-c.d=1", "a..b=1",
]  # fmt: skip


@pytest.mark.parametrize("word", TRICKY)
def test_hand_written_overrides(word: str):
    assert (override_error(word) is None) == hydra_accepts(word), override_error(word)


def test_every_override_of_the_verl_snapshot():
    words = _snapshot_overrides()
    if not words:
        pytest.skip("../shared/corpus is not present")
    assert len(words) > 500
    disagree = [w for w in words if (override_error(w) is None) != hydra_accepts(w)]
    assert disagree == []


_ALPHABET = "ab1._-+=~@/:,[]{}()'\" $\\<>#}x0e"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_ALPHABET, min_size=1, max_size=14))
def test_generated_overrides(word: str):
    assert (override_error(word) is None) == hydra_accepts(word), (word, override_error(word))


def test_grpo001_names_the_stray_character_in_a_verl_script():
    text = (
        "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=4 \\\n"
        "  actor_rollout_ref.model.path='<path_to_model>' trainer.experiment_name=run}\n"
    )
    found = [d for d in script(text, "--target verl==0.7.1").diagnostics if d.code == "GRPO001"]
    assert [(d.span.line, d.span.column) for d in found] == [(2, 3), (2, 77)]
    assert all("OverrideParseException" in d.message for d in found)
    valid = text.replace("'<path_to_model>'", "/models/x").replace("run}", "run")
    assert [d for d in script(valid, "--target verl==0.7.1").diagnostics if d.code == "GRPO001"] == []


def test_an_override_with_an_unknown_value_still_needs_a_known_key():
    text = "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo trainer.stats_pth=$(date)\n"
    found = script(text, "--target verl==0.7.1").diagnostics
    assert any(d.code == "GRPO002" and d.key == "trainer.stats_pth" for d in found), found
    known = text.replace("trainer.stats_pth", "trainer.default_local_dir")
    assert not any(d.code == "GRPO002" for d in script(known, "--target verl==0.7.1").diagnostics)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aZ_09./-", min_size=1, max_size=12))
def test_values_of_plain_characters_are_what_hydra_accepts(value: str):
    """override_error takes a value of letters, digits and `_ . / -` without parsing it: Hydra agrees."""
    word = f"trainer.x={value}"
    assert (override_error(word) is None) == hydra_accepts(word), value
