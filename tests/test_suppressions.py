"""Inline `# grpo-lint: ignore[...]` comments: what they cover, and GRPO008 for those that do nothing."""

from __future__ import annotations

import pytest

from grpo_lint.suppressions import parse

from .conftest import lint, run_cli

BASE = "num_generations: 8\nper_device_train_batch_size: 8\n"


def found(text: str, args: str = "--target trl==1.16.0 --world-size 8") -> list[tuple[str, int]]:
    return sorted((d.code, d.span.line) for d in lint(BASE + text, args))


def test_unsuppressed_baseline():
    assert found("temperature: 0.2\n") == [("GRPO205", 3)]


@pytest.mark.parametrize(
    "text",
    [
        "temperature: 0.2  # grpo-lint: ignore[GRPO205]\n",
        "temperature: 0.2  # grpo-lint: ignore[GRPO205] short smoke test, on purpose\n",
        "temperature: 0.2  #grpo-lint:ignore[grpo205]\n",
        "# grpo-lint: ignore[GRPO205] reason\ntemperature: 0.2\n",
        "# grpo-lint: ignore[GRPO205]\n# a second comment line\ntemperature: 0.2\n",
        "# grpo-lint: file-ignore[GRPO205]\ntemperature: 0.2\n",
    ],
)
def test_suppression_forms(text):
    assert found(text) == []


def test_a_suppression_covers_only_its_line():
    text = "# grpo-lint: ignore[GRPO205]\nseed: 1\ntemperature: 0.2\n"
    assert found(text) == [("GRPO008", 3), ("GRPO205", 5)]


def test_only_the_named_code_is_suppressed():
    assert found("temperature: 0.0  # grpo-lint: ignore[GRPO205]\n") == [("GRPO008", 3), ("GRPO201", 3)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("temperature: 1.0  # grpo-lint: ignore[GRPO205]\n", "suppression of GRPO205 is unused"),
        ("temperature: 0.2  # grpo-lint: ignore[GRPO205, GRPO999]\n", "GRPO999, which is not a grpo-lint rule"),
        ("temperature: 0.2  # grpo-lint: ignore\n", "ignore needs the codes"),
        ("temperature: 0.2  # grpo-lint: disable[GRPO205]\n", "unknown directive 'disable'"),
        ("# grpo-lint: file-ignore[GRPO201]\n", "nothing in this file reports GRPO201"),
    ],
)
def test_useless_suppressions_are_reported(text, message):
    diagnostics = [d for d in lint(BASE + text) if d.code == "GRPO008"]
    assert len(diagnostics) == 1
    assert message in diagnostics[0].message
    assert diagnostics[0].span.line == 3


def test_rules_not_selected_are_not_called_unused():
    text = "temperature: 1.0  # grpo-lint: ignore[GRPO205]\n"
    options = "--target trl==1.16.0 --world-size 8"
    assert [d.code for d in lint(BASE + text, options)] == ["GRPO008"]
    from grpo_lint.engine import lint_text

    from .conftest import options_from

    narrowed = options_from(options)._replace(ignore=frozenset({"GRPO205"}))
    assert lint_text(BASE + text, "x.yaml", narrowed).diagnostics == []
    unused_off = options_from(options)._replace(ignore=frozenset({"GRPO008"}))
    assert lint_text(BASE + text, "x.yaml", unused_off).diagnostics == []


def test_hash_inside_a_value_is_not_a_comment():
    assert parse("run_name: 'a#grpo-lint: ignore[GRPO205]'\n") == []


def test_json_files_have_no_comments(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"num_generations": 1, "note": "# grpo-lint: ignore[GRPO101]"}')
    result = run_cli(str(path), "--target", "trl==1.16.0", "--world-size", "8")
    assert "GRPO101" in result.stdout and result.returncode == 1


def test_suppressed_error_changes_the_exit_code(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(BASE + "temperature: 0.0  # grpo-lint: ignore[GRPO201] deterministic eval run\n")
    result = run_cli(str(path), "--target", "trl==1.16.0", "--world-size", "8")
    assert result.returncode == 0, result.stdout
