"""Inline suppressions in `#` comments (YAML and shell launch scripts).

    temperature: 0.1  # grpo-lint: ignore[GRPO205] short warm-up run
    # grpo-lint: ignore[GRPO201, GRPO205] reason
    temperature: 0.0
    # grpo-lint: file-ignore[GRPO002]          (anywhere: the whole file)

A trailing comment covers its own line; a comment on a line of its own covers the next line that
is not a comment. A suppression that suppresses nothing, names no code or an unknown code is itself
reported (GRPO008), as ruff's RUF100 and hadolint's DL1001 do.
"""

from __future__ import annotations

from collections.abc import Callable

from grpo_lint.diagnostics import Diagnostic, Severity, Span
from grpo_lint.patterns import lazy
from grpo_lint.records import Record

_COMMENT = lazy(r"(?:^|(?<=\s))#\s*grpo-lint\s*:\s*(?P<kind>[a-z-]+)(?:\[(?P<codes>[^\]]*)\])?(?P<reason>.*)$")
KINDS = ("ignore", "file-ignore")
UNUSED = "GRPO008"


class Suppression(Record):
    span: Span  # the comment
    kind: str  # "ignore" or "file-ignore"
    codes: tuple[str, ...]
    reason: str
    covers: int | None  # the line it covers; None for the whole file
    problem: str | None = None  # why it is malformed


def parse(text: str) -> list[Suppression]:
    if "grpo-lint" not in text:
        return []
    lines = text.splitlines()
    found: list[Suppression] = []
    for index, line in enumerate(lines):
        if "grpo-lint" not in line:
            continue
        match = _COMMENT.search(line)
        if match is None:
            continue
        number = index + 1
        span = Span(number, match.start() + 1, number, len(line) + 1)
        kind = match.group("kind")
        codes = tuple(c.strip().upper() for c in (match.group("codes") or "").split(",") if c.strip())
        own_line = not line[: match.start()].strip()
        problem = None
        if kind not in KINDS:
            problem = f"unknown directive {kind!r} (use ignore[CODE] or file-ignore[CODE])"
        elif not codes:
            problem = f"{kind} needs the codes it suppresses, e.g. # grpo-lint: {kind}[GRPO205]"
        covers: int | None = None
        if kind == "ignore":
            covers = _next_content_line(lines, index) if own_line else number
        found.append(Suppression(span, kind, codes, match.group("reason").strip(), covers, problem))
    return found


def _next_content_line(lines: list[str], index: int) -> int:
    for later in range(index + 1, len(lines)):
        stripped = lines[later].strip()
        if stripped and not stripped.startswith("#"):
            return later + 1
    return index + 1


def apply(
    diagnostics: list[Diagnostic],
    suppressions: list[Suppression],
    path: str,
    enabled: Callable[[str], bool],
    known: Callable[[str], bool],
) -> list[Diagnostic]:
    """Drop the suppressed diagnostics; add GRPO008 for suppressions that are wrong or unused."""
    if not suppressions:
        return diagnostics
    used: set[tuple[int, str]] = set()
    kept = []
    for diagnostic in diagnostics:
        lines = _lines(diagnostic.span)
        hit = None
        for number, suppression in enumerate(suppressions):
            if suppression.problem or diagnostic.code not in suppression.codes:
                continue
            if suppression.covers is None or suppression.covers in lines:
                hit = (number, diagnostic.code)
                break
        if hit is None:
            kept.append(diagnostic)
        else:
            used.add(hit)
    if enabled(UNUSED):
        kept.extend(_problems(suppressions, used, path, enabled, known))
    return kept


def _problems(
    suppressions: list[Suppression],
    used: set[tuple[int, str]],
    path: str,
    enabled: Callable[[str], bool],
    known: Callable[[str], bool],
) -> list[Diagnostic]:
    problems = []
    for number, suppression in enumerate(suppressions):
        if suppression.problem:
            problems.append(_report(path, suppression, f"malformed suppression: {suppression.problem}"))
            continue
        for code in suppression.codes:
            if not known(code):
                message = f"suppression names {code}, which is not a grpo-lint rule"
            elif (number, code) in used or not enabled(code):
                continue  # a rule that is not selected in this run cannot be judged unused
            else:
                where = "in this file" if suppression.covers is None else f"on line {suppression.covers}"
                message = f"suppression of {code} is unused: nothing {where} reports {code}."
            problems.append(_report(path, suppression, message))
    return problems


def _report(path: str, suppression: Suppression, message: str) -> Diagnostic:
    return Diagnostic(
        UNUSED,
        Severity.WARNING,
        message,
        path,
        suppression.span,
        fix="remove the suppression, or correct its codes",
    )


def _lines(span: Span | None) -> range:
    if span is None:
        return range(1, 2)
    return range(span.line, max(span.end_line, span.line) + 1)
