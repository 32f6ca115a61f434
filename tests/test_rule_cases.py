"""Version-dependent behaviour of the rules, as data (tests/fixtures/rule_cases.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from grpo_lint.engine import lint_text

from .conftest import options_from

CASES = yaml.safe_load((Path(__file__).parent / "fixtures" / "rule_cases.yaml").read_text())


def expected(entry: str) -> tuple[str, str | None]:
    code, _, severity = entry.partition(":")
    return code, severity or None


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_rule_case(case):
    options = options_from(case["args"])
    options = options._replace(extra_keys=frozenset(case.get("extra_keys", ())))
    text = case.get("text") or yaml.safe_dump(case["config"], sort_keys=False)
    diagnostics = lint_text(text, "case.yaml", options).diagnostics
    want = [expected(e) for e in case["expect"]]
    assert sorted(d.code for d in diagnostics) == sorted(code for code, _ in want), [d.message for d in diagnostics]
    for code, severity in want:
        (match,) = [d for d in diagnostics if d.code == code]
        assert match.severity.label == (severity or "error")
    if "message_contains" in case:
        assert any(case["message_contains"] in d.message for d in diagnostics)
    if "fix_contains" in case:
        assert any(d.fix and case["fix_contains"] in d.fix for d in diagnostics)
