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


def render_text(report: Report, color: bool = False, quiet: bool = False, verbose: bool = False) -> str:
    """Diagnostics with snippets and a summary line; `quiet` keeps only the diagnostics, `verbose` adds what
    was not checked and why."""
    out: list[str] = []
    for result in report.files:
        lines = {result.path: result.text.splitlines() if result.text else []}
        for path, text in result.sources.items():
            lines[path] = text.splitlines()
        for diagnostic in result.diagnostics:
            out.extend(_render_one(diagnostic, lines.get(diagnostic.path, []), color, _mark(diagnostic, report)))
    if verbose:
        out.extend(not_checked(report))
    if not quiet:
        out.append(_summary(report, color))
    return "\n".join(out) + "\n" if out else ""


def not_checked(report: Report) -> list[str]:
    """What a run did not judge, and why: each skipped file, and rules whose premises were not shown."""
    lines = []
    for result in report.files:
        if result.status == "skipped":
            lines.append(f"{result.path}: skipped: {result.note}")
        lines.extend(f"{result.path}: {why}" for why in result.unchecked)
    return ["Not checked:", *(f"  {line}" for line in lines)] if lines else []


def assumptions(report: Report) -> str:
    """The premises a run assumed, named once: each release that no file showed."""
    named = [
        f"{t.framework_name if t.unknown else t} ({t.uncertain}; "
        + (
            "rules whose verdict depends on the release did not report"
            if t.unknown
            else "a verdict that depends on the release is an error or a warning only where the oldest release "
            "that fits gives it too (otherwise an error becomes a warning and a warning is not given)"
        )
        + ")"
        for t in {(t.framework, t.version, t.uncertain): t for t in report.targets() if t.uncertain}.values()
    ]
    return ("\nAssumed: " + "; ".join(named) + ". Pin the release, or pass --target, to judge it.") if named else ""


def render_concise(report: Report, quiet: bool = False, verbose: bool = False) -> str:
    """One line per diagnostic (`path:line:col: severity[code] message`), then the summary line."""
    out = [
        f"{d.location()}: {d.severity.label}[{d.code}] {_mark(d, report)}{d.message}"
        for result in report.files
        for d in result.diagnostics
    ]
    if verbose:
        out.extend(not_checked(report))
    if not quiet:
        out.append(_summary(report, False))
    return "\n".join(out) + "\n" if out else ""


_EXCERPT = 160  # characters of a source line shown around the span; longer lines are cut at both ends


def _excerpt(source: str, start: int, end: int) -> tuple[str, int, int]:
    """A window of a long line around [start, end), with `...` where it was cut, and the shifted span."""
    if len(source) <= _EXCERPT:
        return source, start, end
    left = max(min(start - 40, len(source) - _EXCERPT), 0)
    window = source[left : left + _EXCERPT]
    prefix = "..." if left > 0 else ""
    suffix = "..." if left + _EXCERPT < len(source) else ""
    shift = len(prefix) - left
    return prefix + window + suffix, start + shift, min(end + shift, len(prefix) + len(window))


def _mark(d: Diagnostic, report: Report) -> str:
    """`[*] ` before the message of a diagnostic that --fix fixes (as ruff marks them)."""
    return "[*] " if d.fixes and d.fixable(report.unsafe_fixes) else ""


def _render_one(d: Diagnostic, lines: list[str], color: bool, mark: str = "") -> list[str]:
    if color:
        head = (
            _style(f"{d.location()}:", color, bold=True)
            + " "
            + _style(f"{d.severity.label}[{d.code}]", color, fg=_COLORS[d.severity], bold=True)
            + f" {mark}{d.message}"
        )
    else:
        head = f"{d.location()}: {d.severity.label}[{d.code}] {mark}{d.message}"
    block = [head]
    span = d.span
    if span and 1 <= span.line <= len(lines):
        source = lines[span.line - 1]
        if "\t" in source:
            source = source.expandtabs(1)
        shown = str(d.shown_line())
        start = max(span.column - 1, 0)
        end = span.end_column - 1 if span.end_line == span.line else len(source)
        source, start, end = _excerpt(source, start, end)
        caret = "^" * max(min(end, len(source)) - start, 1)
        gutter = " " * len(shown)
        if color:
            block.append(_style(f"  {shown} | ", color, fg="blue") + source)
            block.append(
                _style(f"  {gutter} | ", color, fg="blue") + " " * start + _style(caret, color, fg=_COLORS[d.severity])
            )
        else:
            block.append(f"  {shown} | {source}")
            block.append(f"  {gutter} | {' ' * start}{caret}")
    if d.fix:
        block.append("  " + _style("fix:", color, fg="green", bold=True) + f" {d.fix}" if color else f"  fix: {d.fix}")
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
    fixed = _fixed_line(report)
    if not found:
        return fixed + _style("All checks passed", color, fg="green", bold=True) + f" ({files})." + assumptions(report)
    return fixed + f"Found {', '.join(found)} ({files})." + _fixable_line(report) + assumptions(report)


def _fixed_line(report: Report) -> str:
    if not report.fixed:
        return ""
    files = len({edit.span.path for _, fix in report.fixed for edit in fix.edits})
    count = len(report.fixed)
    return f"Fixed {count} diagnostic{'s' if count != 1 else ''} in {files} file{'s' if files != 1 else ''}.\n"


def _fixable_line(report: Report) -> str:
    safe, unsafe = report.fixable()
    parts = []
    if safe:
        parts.append(f"[*] {safe} fixable with --fix")
    if unsafe:
        parts.append(f"{unsafe} more with --fix --unsafe-fixes (they change what the run does)")
    return ("\n" + "; ".join(parts) + ".") if parts else ""
