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
