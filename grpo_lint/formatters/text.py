"""Human output: `path:line:col: severity[CODE] message`, the source line with a caret, a fix."""

from __future__ import annotations

from grpo_lint.diagnostics import Diagnostic, Severity
from grpo_lint.results import Report

_COLORS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "blue"}


def _style(text: str, color: bool, **kw: object) -> str:
    if not color:
        return text
    import click

    return click.style(text, **kw)  # type: ignore[arg-type]


def render_text(report: Report, color: bool = False, quiet: bool = False) -> str:
    """Diagnostics with snippets and a summary line; `quiet` keeps only the diagnostics."""
    out: list[str] = []
    for result in report.files:
        lines = {result.path: result.text.splitlines() if result.text else []}
        for path, text in result.sources.items():
            lines[path] = text.splitlines()
        for diagnostic in result.diagnostics:
            out.extend(_render_one(diagnostic, lines.get(diagnostic.path, []), color))
    if not quiet:
        out.append(_summary(report, color))
    return "\n".join(out) + "\n" if out else ""


def _render_one(d: Diagnostic, lines: list[str], color: bool) -> list[str]:
    line = d.span.line if d.span else 1
    column = d.span.column if d.span else 1
    head = (
        _style(f"{d.path}:{line}:{column}:", color, bold=True)
        + " "
        + _style(f"{d.severity.label}[{d.code}]", color, fg=_COLORS[d.severity], bold=True)
        + f" {d.message}"
    )
    block = [head]
    if d.span and 1 <= d.span.line <= len(lines):
        source = lines[d.span.line - 1].expandtabs(1)
        width = len(str(d.span.line))
        start = max(d.span.column - 1, 0)
        end = d.span.end_column - 1 if d.span.end_line == d.span.line else len(source)
        caret = "^" * max(min(end, len(source)) - start, 1)
        gutter = " " * width
        block.append(_style(f"  {d.span.line} | ", color, fg="blue") + source)
        block.append(
            _style(f"  {gutter} | ", color, fg="blue") + " " * start + _style(caret, color, fg=_COLORS[d.severity])
        )
    if d.fix:
        block.append("  " + _style("fix:", color, fg="green", bold=True) + f" {d.fix}")
    return block


def _summary(report: Report, color: bool) -> str:
    linted = sum(1 for f in report.files if f.status != "skipped")
    skipped = len(report.files) - linted
    files = f"{linted} file{'s' if linted != 1 else ''} checked" + (
        f", {skipped} skipped (not a GRPO config)" if skipped else ""
    )
    counts = [
        (report.count(Severity.ERROR), "error"),
        (report.count(Severity.WARNING), "warning"),
        (report.count(Severity.INFO), "info"),
    ]
    found = [f"{n} {word}{'s' if n != 1 and word != 'info' else ''}" for n, word in counts if n]
    against = report.against()
    files += f"; {against}" if against else ""
    if not found:
        return _style("All checks passed", color, fg="green", bold=True) + f" ({files})."
    return f"Found {', '.join(found)} ({files})."
