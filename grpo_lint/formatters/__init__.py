"""Formatters only format: they turn a Report into text; the exit code is decided elsewhere."""

from __future__ import annotations

from grpo_lint.results import Report

FORMATS = ("text", "json", "sarif", "github")


def render(report: Report, fmt: str, color: bool = False, quiet: bool = False) -> str:
    if fmt == "json":
        from grpo_lint.formatters.json_format import render_json

        return render_json(report)
    if fmt == "sarif":
        from grpo_lint.formatters.sarif import render_sarif

        return render_sarif(report)
    if fmt == "github":
        from grpo_lint.formatters.github import render_github

        return render_github(report)
    from grpo_lint.formatters.text import render_text

    return render_text(report, color, quiet)
