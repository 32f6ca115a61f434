"""Formatters only format: they turn a Report into text; the exit code is decided elsewhere."""

from __future__ import annotations

from grpo_lint.results import Report

FORMATS = ("text", "concise", "json", "sarif", "github")


def render(report: Report, fmt: str, color: bool = False, quiet: bool = False, verbose: bool = False) -> str:
    if fmt == "json":
        from grpo_lint.formatters.json_format import render_json

        return render_json(report)
    if fmt == "sarif":
        from grpo_lint.formatters.sarif import render_sarif

        return render_sarif(report)
    if fmt == "github":
        from grpo_lint.formatters.github import render_github

        return render_github(report)
    if fmt == "concise":
        from grpo_lint.formatters.text import render_concise

        return render_concise(report, quiet, verbose)
    from grpo_lint.formatters.text import render_text

    return render_text(report, color, quiet, verbose)


def jsonable(value: object) -> object:
    """`value` with what strict JSON cannot hold made text: NaN and infinities (`temperature: .nan`)
    become "nan"/"inf", and any other object (a date, a TooLarge number) its str()."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return str(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value if type(value) in (bool, int, float, str) or value is None else str(value)
    return str(value)


def printable(text: str) -> str:
    """Text that encodes as UTF-8: a lone surrogate (from a file name that is not UTF-8, or a JSON
    `\\udc80` escape) is written as the escape `\\udc80` instead of stopping the output."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
