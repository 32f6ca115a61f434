"""Machine output: {"diagnostics": [...], "summary": {...}}, positions 1-based."""

from __future__ import annotations

import json

from grpo_lint.diagnostics import Diagnostic, Severity
from grpo_lint.formatters import jsonable
from grpo_lint.results import Report


def render_json(report: Report) -> str:
    diagnostics = []
    for d in report.diagnostics:
        span = d.span
        diagnostics.append(
            {
                "code": d.code,
                "severity": d.severity.label,
                "message": d.message,
                "path": d.path,
                "cell": d.cell[0] if d.cell else None,
                "line": d.shown_line() if span else None,
                "column": span.column if span else None,
                "end_line": span.end_line - span.line + d.shown_line() if span else None,
                "end_column": span.end_column if span else None,
                "key": d.key,
                "fix": _fix(d, report.unsafe_fixes),
                "premises": premises(d),
            }
        )
    safe, unsafe = report.fixable()
    summary = {
        "fixed": len(report.fixed),
        "fixable": safe,
        "fixable_unsafe": unsafe,
        "files_checked": sum(1 for f in report.files if f.status != "skipped"),
        "files_skipped": sum(1 for f in report.files if f.status == "skipped"),
        "errors": report.count(Severity.ERROR),
        "warnings": report.count(Severity.WARNING),
        "infos": report.count(Severity.INFO),
        "files": [
            {"path": f.path, "status": f.status, "note": f.note, "not_checked": f.unchecked} for f in report.files
        ],
        "targets": [
            {
                "framework": t.framework,
                "version": str(t.version),
                "source": t.source,
                "release_known": not t.uncertain,
                "basis": t.basis,
                "assumed": t.uncertain,
                "note": t.note,
            }
            for t in report.targets()
        ],
    }
    return json.dumps(jsonable({"diagnostics": diagnostics, "summary": summary}), indent=2, allow_nan=False) + "\n"


def premises(d: Diagnostic) -> list[dict[str, str]]:
    """What the verdict takes as given: each premise, whether shown or assumed, and where."""
    return [{"kind": p.kind, "basis": p.basis, "text": p.text} for p in d.premises]


def _fix(d: Diagnostic, unsafe: bool) -> dict[str, object] | None:
    """What to do: the text of the fix, and the edits of the first mechanical fix, if any.
    `applicability` is "safe" (applied by --fix), "unsafe" (by --fix --unsafe-fixes) or "display-only"."""
    if not d.fix and not d.fixes:
        return None
    first = d.fixes[0] if d.fixes else None
    return {
        "message": d.fix or (first.title if first else None),
        "applicability": first.applicability if first else "display-only",
        "applied_by_fix": d.fixable(unsafe),
        "edits": [
            {
                "path": e.span.path or d.path,
                "line": e.span.line,
                "column": e.span.column,
                "end_line": e.span.end_line,
                "end_column": e.span.end_column,
                "content": e.new,
            }
            for e in (first.edits if first else ())
        ],
    }
