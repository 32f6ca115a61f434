"""--list-rules: every rule with its code, name, default severity and summary (text or JSON)."""

from __future__ import annotations

import json


def render_rule_list(fmt: str) -> str:
    from grpo_lint.checks import SEVERITY_VARIES, all_rules

    rules = list(all_rules().values())
    if fmt == "json":
        payload = [
            {
                "code": r.code,
                "name": r.name,
                "severity": r.severity.label,
                "severity_varies": SEVERITY_VARIES.get(r.code),
                "summary": r.summary,
            }
            for r in rules
        ]
        return json.dumps(payload, indent=2) + "\n"
    name_width = max(len(r.name) for r in rules)
    lines = []
    for r in rules:
        marked = r.severity.label + ("*" if r.code in SEVERITY_VARIES else "")
        lines.append(f"{r.code}  {r.name:<{name_width}}  {marked:<8}  {r.summary}")
        if r.code in SEVERITY_VARIES:
            lines.append(f"{'':<{len(r.code) + name_width + 14}}* {SEVERITY_VARIES[r.code]}")
    return "\n".join(lines) + "\n"
