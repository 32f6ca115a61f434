"""`lazy` patterns: compiled on first use, then the compiled pattern's own methods."""

from __future__ import annotations

import re

from grpo_lint.patterns import lazy


def test_a_lazy_pattern_compiles_on_first_use_and_then_answers_as_the_compiled_one(monkeypatch):
    compiled: list[str] = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda pattern, flags=0: compiled.append(pattern) or real(pattern, flags))
    word = lazy(r"(\w+)-(\d)", re.IGNORECASE)
    assert compiled == []  # nothing at definition
    assert word.match("Lr-3").groups() == ("Lr", "3")
    assert word.search("x ab-1").start() == 2 and word.findall("a-1 b-2") == [("a", "1"), ("b", "2")]
    assert word.sub(r"\2", "a-1") == "1" and word.split("x a-1 y") == ["x ", "a", "1", " y"]
    assert word.fullmatch("a-1") and not word.fullmatch("a-1 ")
    assert [m.group(0) for m in word.finditer("a-1b-2")] == ["a-1", "b-2"]
    assert word.pattern == r"(\w+)-(\d)" and word.flags & re.IGNORECASE and word.groups == 2
    assert compiled == [r"(\w+)-(\d)"]  # once, whatever was used after
