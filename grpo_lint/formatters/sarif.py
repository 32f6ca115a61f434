"""SARIF 2.1.0 for GitHub code scanning: every rule in tool.driver.rules, every result located."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from grpo_lint import __version__
from grpo_lint.diagnostics import Diagnostic, Fix, Severity
from grpo_lint.formatters import jsonable
from grpo_lint.results import Report

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_LIMIT = 1024  # GitHub's bound on shortDescription and fullDescription


def render_sarif(report: Report) -> str:
    from grpo_lint.checks import all_rules

    rules = all_rules()
    index = {code: i for i, code in enumerate(rules)}
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "grpo-lint",
                        "semanticVersion": __version__,
                        "rules": [_rule(r.code, r.name, r.summary, r.severity) for r in rules.values()],
                    }
                },
                "results": [_result(d, index) for d in report.diagnostics],
                "columnKind": "unicodeCodePoints",
                # Relative URIs resolve against the directory grpo-lint ran in (the repository root in CI).
                "originalUriBaseIds": {"%SRCROOT%": {"uri": _directory_uri(os.getcwd())}},
                "invocations": [
                    {
                        "executionSuccessful": not any(d.code == "GRPO000" for d in report.diagnostics),
                        "exitCode": report.exit_code(),
                    }
                ],
                "properties": {
                    "targets": [
                        {
                            "framework": t.framework,
                            "version": str(t.version),
                            "source": t.source,
                            "release_known": not t.uncertain,
                            "basis": t.basis,
                            "assumed": t.uncertain,
                        }
                        for t in report.targets()
                    ]
                },
            }
        ],
    }
    return json.dumps(jsonable(log), indent=2, allow_nan=False) + "\n"


def _rule(code: str, name: str, summary: str, severity: Severity) -> dict[str, Any]:
    from grpo_lint.rule_pages import page, plain, section

    what = plain(section(code, "What it does")) or summary
    why = plain(section(code, "Why is this bad?"))
    markdown = page(code) or summary
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": _clip(summary)},
        "fullDescription": {"text": _clip(what)},
        "help": {"text": f"{what}\n\n{why}".strip(), "markdown": markdown},
        "defaultConfiguration": {"level": LEVELS[severity]},
        "properties": {"tags": ["grpo"], "precision": "high", "problem.severity": _problem_severity(severity)},
    }


def _result(d: Diagnostic, index: dict[str, int]) -> dict[str, Any]:
    span = d.span
    if span and d.cell is not None:  # a notebook: lines of its JSON (columns there are not the code's)
        first, last = d.raw_lines()
        region: dict[str, Any] = {"startLine": first, "endLine": last}
    elif span:
        region = {
            "startLine": span.line,
            "startColumn": span.column,
            "endLine": span.end_line,
            "endColumn": span.end_column,
        }
    else:
        region = {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 1}
    text = d.message + (f"\nfix: {d.fix}" if d.fix else "")
    result: dict[str, Any] = {
        "ruleId": d.code,
        "level": LEVELS[d.severity],
        "message": {"text": text},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact(d.path), "region": region}}],
        # Stable across edits that move lines: rule, file and key. GitHub's own line hash is added
        # by github/codeql-action/upload-sarif.
        "partialFingerprints": {"grpoLint/v1": _fingerprint(d)},
    }
    if d.code in index:
        result["ruleIndex"] = index[d.code]
    if d.fixes:
        result["fixes"] = [_fix(f) for f in d.fixes]
    if d.premises:
        from grpo_lint.formatters.json_format import premises

        result["properties"] = {"premises": premises(d)}
    if d.cell is not None:
        result.setdefault("properties", {})["cell"] = d.cell[0]
        result["properties"]["lineInCell"] = d.shown_line()
    return result


def _fix(fix: Fix) -> dict[str, Any]:
    """A SARIF fix: the replacements of each file, and whether it changes what the run does."""
    files: dict[str, list[dict[str, Any]]] = {}
    for edit in fix.edits:
        span = edit.span
        files.setdefault(span.path or "", []).append(
            {
                "deletedRegion": {
                    "startLine": span.line,
                    "startColumn": span.column,
                    "endLine": span.end_line,
                    "endColumn": span.end_column,
                },
                "insertedContent": {"text": edit.new},
            }
        )
    return {
        "description": {"text": fix.title},
        "artifactChanges": [
            {"artifactLocation": _artifact(path), "replacements": replacements} for path, replacements in files.items()
        ],
        "properties": {"applicability": fix.applicability},
    }


def _artifact(path: str) -> dict[str, str]:
    uri = _uri(path)
    return {"uri": uri} if uri.startswith("file://") else {"uri": uri, "uriBaseId": "%SRCROOT%"}


def _directory_uri(path: str) -> str:
    from urllib.parse import quote

    return "file://" + quote(os.fsencode(os.path.abspath(path)).replace(os.sep.encode(), b"/")) + "/"


def _uri(path: str) -> str:
    """Repository-relative POSIX paths, as code scanning recommends; file URIs outside the cwd. The
    file name's own bytes are percent-encoded, so a name that is not UTF-8 still gives a valid URI."""
    from urllib.parse import quote

    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, os.getcwd())
    if relative.startswith(".."):
        return "file://" + quote(os.fsencode(absolute).replace(os.sep.encode(), b"/"))
    return quote(os.fsencode(relative.replace(os.sep, "/")))


def _fingerprint(d: Diagnostic) -> str:
    anchor = d.key or (f"{d.span.line}" if d.span else "")
    return hashlib.sha256(f"{d.code}\0{d.path}\0{anchor}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _problem_severity(severity: Severity) -> str:
    return {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "recommendation"}[severity]


def _clip(text: str) -> str:
    return text if len(text) <= _LIMIT else text[: _LIMIT - 1] + "…"
