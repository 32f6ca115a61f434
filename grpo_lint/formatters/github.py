"""GitHub Actions workflow commands: one `::error file=...,line=...::message` annotation each.

Escaping follows @actions/core: `%`, CR and LF in the message; additionally `:` and `,` in
property values. Nothing else is printed with a leading `::`, so config text cannot inject commands.
"""

from __future__ import annotations

from grpo_lint.diagnostics import Diagnostic, Severity
from grpo_lint.results import Report

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report) -> str:
    from grpo_lint.checks import all_rules

    names = {code: rule.name for code, rule in all_rules().items()}
    lines = [_annotation(d, names.get(d.code, "")) for d in report.diagnostics]
    errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
    checked = sum(1 for f in report.files if f.status != "skipped")
    against = report.against()
    summary = f"grpo-lint: {errors} error(s), {warnings} warning(s) in {checked} file(s) checked"
    lines.append(f"{summary} {against}" if against else summary)
    return "\n".join(lines) + "\n"


def _annotation(d: Diagnostic, name: str) -> str:
    span = d.span
    properties = [("file", d.path)]
    if span and d.cell is not None:  # a notebook: the lines of its JSON, where GitHub shows the file
        first, last = d.raw_lines()
        properties += [("line", str(first)), ("endLine", str(last))]
    elif span:
        properties += [
            ("line", str(span.line)),
            ("endLine", str(span.end_line)),
            ("col", str(span.column)),
            ("endColumn", str(span.end_column)),
        ]
    properties.append(("title", f"grpo-lint {d.code} ({name})" if name else f"grpo-lint {d.code}"))
    message = d.message + (f"\nfix: {d.fix}" if d.fix else "")
    spelled = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{COMMANDS[d.severity]} {spelled}::{escape_data(message)}"
