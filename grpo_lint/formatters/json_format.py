"""Machine output: {"diagnostics": [...], "summary": {...}}, positions 1-based."""

from __future__ import annotations

import json

from grpo_lint.diagnostics import Severity
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
                "line": span.line if span else None,
                "column": span.column if span else None,
                "end_line": span.end_line if span else None,
                "end_column": span.end_column if span else None,
                "key": d.key,
                "fix": d.fix,
            }
        )
    summary = {
        "files_checked": sum(1 for f in report.files if f.status != "skipped"),
        "files_skipped": sum(1 for f in report.files if f.status == "skipped"),
        "errors": report.count(Severity.ERROR),
        "warnings": report.count(Severity.WARNING),
        "infos": report.count(Severity.INFO),
        "files": [{"path": f.path, "status": f.status, "note": f.note} for f in report.files],
        "targets": [
            {"framework": t.framework, "version": str(t.version), "source": t.source} for t in report.targets()
        ],
    }
    return json.dumps(jsonable({"diagnostics": diagnostics, "summary": summary}), indent=2, allow_nan=False) + "\n"
