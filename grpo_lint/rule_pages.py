"""The rule pages (rules/GRPOxxx.md): shipped in the wheel as grpo_lint/rule_docs, read for
--explain and for the rule descriptions in SARIF output."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent
# An installed wheel carries the pages as package data; a source checkout has them in rules/.
_DIRECTORIES = (_HERE / "rule_docs", _HERE.parent / "rules")


@cache
def page(code: str) -> str | None:
    for directory in _DIRECTORIES:
        path = directory / f"{code}.md"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return None


def section(code: str, heading: str) -> str:
    """The text under `## heading` of a rule's page, without runnable-example markers."""
    text = page(code) or ""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not match:
        return ""
    body = re.sub(r"<!--.*?-->\n?", "", match.group(1))
    return body.strip()


def plain(markdown: str) -> str:
    """Markdown prose as one plain paragraph (for SARIF's text fields)."""
    text = re.sub(r"`([^`]*)`", r"\1", markdown)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\*\*([^*]*)\*\*", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()
