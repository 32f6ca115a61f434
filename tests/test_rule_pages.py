"""Every rule has a page under rules/, and every page's examples behave as the page says."""

from __future__ import annotations

import re

import pytest

from grpo_lint.checks import all_rules

from .conftest import ROOT, lint

PAGES = sorted((ROOT / "rules").glob("GRPO*.md"))
_BLOCK = re.compile(r"```(\w+) (fail|pass)\n(.*?)```", re.S)
_NAMES = {"yaml": "config.yaml", "bash": "launch.sh", "python": "train_grpo.py"}
_OPTIONS = re.compile(r"<!-- grpo-lint-example: (.*?) -->")


def examples(page):
    text = page.read_text()
    options = _OPTIONS.search(text)
    blocks = {kind: (body, _NAMES[language]) for language, kind, body in _BLOCK.findall(text)}
    return options.group(1) if options else "", blocks


def test_every_rule_has_a_page_and_every_page_a_rule():
    assert {p.stem for p in PAGES} == set(all_rules())


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_failing_example_raises_exactly_its_rule(page):
    options, blocks = examples(page)
    if options == "repository":
        pytest.skip("a repository-level rule: tests/test_repository.py builds its example")
    if options == "internal":
        pytest.skip("grpo-lint's own failure: tests/test_hostile_inputs.py provokes it")
    body, name = blocks["fail"]
    found = {d.code for d in lint(body, options, name)}
    assert found == {page.stem}


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_fixed_example_is_clean(page):
    options, blocks = examples(page)
    if options in ("repository", "internal"):
        pytest.skip("no config example: see the page")
    body, name = blocks["pass"]
    assert [(d.code, d.message) for d in lint(body, options, name)] == []


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_page_has_the_sections_users_expect(page):
    text = page.read_text()
    for heading in ("## What it does", "## Why is this bad?", "## Example", "Use instead:"):
        assert heading in text
    assert all_rules()[page.stem].name in text.splitlines()[0]


_SAFETY = re.compile(r"## Fix safety\n\nThis fix is \*\*(safe|unsafe)\*\*")


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_fix_safety_section_matches_the_fix(page, tmp_path):
    """A page says whether its rule has a fix and of which kind; its failing example proves it, and
    applying the fix to that example makes the rule stop firing without adding any diagnostic."""
    options, blocks = examples(page)
    if options in ("repository", "internal"):
        pytest.skip("no config example: see the page")
    stated = _SAFETY.search(page.read_text())
    body, name = blocks["fail"]
    found = [f.applicability for d in lint(body, options, name) if d.code == page.stem for f in d.fixes[:1]]
    if not found:
        assert stated is None or page.stem == "GRPO004", "the page promises a fix its example does not show"
        return
    assert stated is not None and found == [stated.group(1)]
    from grpo_lint.engine import lint_paths
    from grpo_lint.fixing import fix

    from .conftest import options_from

    (tmp_path / name).write_text(body)
    fixed = fix(lambda: lint_paths([str(tmp_path / name)], options_from(options)), unsafe=True)
    assert fixed.fixes and [d.code for d in fixed.report.diagnostics] == []


def _reported_severities() -> dict[str, set[str]]:
    """Every (code, severity) the rule modules can report other than through the default: `report(...,
    severity=...)` calls and `Diagnostic("GRPOnnn", Severity.X, ...)` built directly."""
    import ast

    found: dict[str, set[str]] = {}
    for path in [*(ROOT / "grpo_lint" / "checks").glob("*.py"), ROOT / "grpo_lint" / "lint.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            code = next(
                (a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value)[:4] == "GRPO"), None
            )
            if code is None:
                continue
            severity = next((k.value for k in node.keywords if k.arg == "severity"), None)
            if node.func.id == "Diagnostic" and len(node.args) > 1:
                severity = node.args[1]
            if severity is not None:
                names = {n.attr for n in ast.walk(severity) if isinstance(n, ast.Attribute)}
                found.setdefault(code, set()).update(n.lower() for n in names if n.isupper())
    return found


def test_every_severity_other_than_the_default_is_documented():
    from grpo_lint.checks import SEVERITY_VARIES
    from grpo_lint.formatters.rule_list import render_rule_list

    rules = all_rules()
    varying = {code for code, labels in _reported_severities().items() if labels - {rules[code].severity.label}}
    assert varying <= set(SEVERITY_VARIES)  # (GRPO103 varies through _trl_verdict: tests/test_rule_cases.py)
    listed = render_rule_list("text")
    for code, note in SEVERITY_VARIES.items():
        assert f"{rules[code].severity.label}*" in listed and f"* {note}" in listed
        assert note in (ROOT / "rules" / f"{code}.md").read_text().splitlines()[2]


def test_readme_rule_table_matches_the_rules():
    from grpo_lint.checks import SEVERITY_VARIES

    rows = re.findall(
        r"^\| \[(GRPO\d+)\]\(rules/GRPO\d+\.md\) \| ([\w-]+) \| (\w+)(\\\*)? \| (\w*) \|",
        (ROOT / "README.md").read_text(),
        re.M,
    )
    rules = all_rules()
    assert [r[0] for r in rows] == list(rules)
    for code, name, severity, star, fix in rows:
        assert (name, severity, bool(star)) == (rules[code].name, rules[code].severity.label, code in SEVERITY_VARIES)
        stated = _SAFETY.search((ROOT / "rules" / f"{code}.md").read_text())
        assert fix == (stated.group(1) if stated else ""), code
