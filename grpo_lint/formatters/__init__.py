"""Formatters only format: they turn a Report into text; the exit code is decided elsewhere."""

from __future__ import annotations

from grpo_lint.engine import Report

FORMATS = ("text", "json")


def render(report: Report, fmt: str, color: bool = False) -> str:
    if fmt == "json":
        from grpo_lint.formatters.json_format import render_json

        return render_json(report)
    from grpo_lint.formatters.text import render_text

    return render_text(report, color)
