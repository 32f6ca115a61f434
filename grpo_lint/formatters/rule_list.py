"""--list-rules: every rule with its code, name, default severity and summary (text or JSON)."""

from __future__ import annotations

import json


def render_rule_list(fmt: str) -> str:
    from grpo_lint.checks import all_rules

    rules = list(all_rules().values())
    if fmt == "json":
        payload = [{"code": r.code, "name": r.name, "severity": r.severity.label, "summary": r.summary} for r in rules]
        return json.dumps(payload, indent=2) + "\n"
    name_width = max(len(r.name) for r in rules)
    return "\n".join(f"{r.code}  {r.name:<{name_width}}  {r.severity.label:<7}  {r.summary}" for r in rules) + "\n"
