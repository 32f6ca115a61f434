"""--statistics: how often each rule fired, most frequent first (text or JSON)."""

from __future__ import annotations

import json
from collections import Counter

from grpo_lint.formatters import jsonable
from grpo_lint.results import Report


def render_statistics(report: Report, fmt: str) -> str:
    from grpo_lint.checks import all_rules

    rules = all_rules()
    counts = Counter(d.code for d in report.diagnostics)
    severities = {d.code: d.severity.label for d in report.diagnostics}
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if fmt == "json":
        payload = [
            {"code": code, "name": rules[code].name if code in rules else "", "severity": severities[code], "count": n}
            for code, n in rows
        ]
        return json.dumps(jsonable(payload), indent=2, allow_nan=False) + "\n"
    if not rows:
        return "No problems found.\n"
    width = len(str(rows[0][1]))
    lines = [
        f"{str(n).rjust(width)}  {code}  {severities[code]:<7}  {rules[code].name if code in rules else ''}"
        for code, n in rows
    ]
    return "\n".join(lines) + "\n"
