"""Lint files: read, detect the framework, build the RunPlan, run the rules, then filter.

Filtering happens once, here, for every file: --select/--ignore, per-file ignores, inline
suppressions (with GRPO008 for unused ones) and per-rule severity overrides.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from grpo_lint.diagnostics import Diagnostic, Severity, Span
from grpo_lint.discovery import Candidate, discover, matches
from grpo_lint.options import Options
from grpo_lint.sources.document import Document, ReadProblem
from grpo_lint.versions import resolve_target

if TYPE_CHECKING:
    from grpo_lint.plan import RunPlan

# A file found by walking a directory (or passed by a pre-commit hook) that cannot be parsed is
# reported only when its text looks like a GRPO config; any other broken YAML is not ours to judge.
_LOOKS_LIKE_GRPO = re.compile(r"grpo|num_generations|rlhf_type", re.IGNORECASE)


class FileResult:
    """What linting one file gave. (Plain classes, not dataclasses, keep start-up short.)"""

    __slots__ = ("diagnostics", "format", "note", "path", "plan", "status", "text")

    def __init__(
        self,
        path: str,
        status: str,  # "linted", "skipped", "unreadable"
        diagnostics: list[Diagnostic] | None = None,
        text: str = "",
        note: str = "",  # why it was skipped, which framework/version it was linted for
        plan: RunPlan | None = None,
        format: str = "",  # "yaml", "json" or "" when unknown
    ) -> None:
        self.path = path
        self.status = status
        self.diagnostics = diagnostics if diagnostics is not None else []
        self.text = text
        self.note = note
        self.plan = plan
        self.format = format

    def __repr__(self) -> str:
        return f"FileResult({self.path!r}, {self.status!r}, {len(self.diagnostics)} diagnostics)"


class Report:
    __slots__ = ("files",)

    def __init__(self, files: list[FileResult]) -> None:
        self.files = files

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for f in self.files for d in f.diagnostics]

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity is severity)

    def exit_code(self, fail_on: Severity = Severity.ERROR) -> int:
        return 1 if any(d.severity >= fail_on for d in self.diagnostics) else 0


def selected(code: str, options: Options) -> bool:
    """--select / --ignore by code or code prefix (GRPO1 = every GRPO1xx)."""
    if options.select and not any(code.startswith(s) for s in options.select):
        return False
    return not any(code.startswith(i) for i in options.ignore)


def lint_paths(paths: list[str], options: Options) -> Report:
    return Report([lint_candidate(c, options) for c in discover(paths, options)])


def lint_candidate(candidate: Candidate, options: Options) -> FileResult:
    from grpo_lint.sources import yaml_reader

    if not candidate.path.exists():
        return _finish(_unreadable(candidate.display, ReadProblem("no such file or directory"), options), options)
    parsed = yaml_reader.read(candidate.path, candidate.display)
    return _finish(_lint_parsed(parsed, candidate.display, candidate.explicit, options), options)


def lint_text(text: str, display: str, options: Options) -> FileResult:
    """Lint text that comes with a name but not from a walk (stdin, tests, rule pages)."""
    from grpo_lint.sources import yaml_reader

    return _finish(_lint_parsed(yaml_reader.read_text(text, display), display, True, options), options)


def lint_bytes(data: bytes, display: str, options: Options) -> FileResult:
    """Lint raw bytes, e.g. standard input: binary data and bad UTF-8 are GRPO001 as for files."""
    from grpo_lint.sources import yaml_reader

    text = yaml_reader.decode(data)
    if isinstance(text, ReadProblem):
        return _finish(_unreadable(display, text, options), options)
    return lint_text(text, display, options)


def _lint_parsed(parsed: Document | ReadProblem | None, display: str, explicit: bool, options: Options) -> FileResult:
    judge_anyway = options.framework is not None or (explicit and not options.only_configs)
    if parsed is None:
        return FileResult(display, "skipped", note="empty")
    if isinstance(parsed, ReadProblem):
        not_mapping = parsed.message.startswith("top level is")
        if not judge_anyway and (not_mapping or not _LOOKS_LIKE_GRPO.search(parsed.text)):
            reason = "not a mapping" if not_mapping else "unreadable, and nothing in it looks like a GRPO config"
            return FileResult(display, "skipped", note=reason)
        return _unreadable(display, parsed, options)
    return lint_document(parsed, options)


def _unreadable(display: str, problem: ReadProblem, options: Options) -> FileResult:
    diagnostics = []
    if selected("GRPO001", options):
        diagnostics.append(
            Diagnostic(
                "GRPO001",
                Severity.ERROR,
                f"cannot be read as a config: {problem.message}",
                display,
                problem.span or Span.point(1, 1),
                fix=None,
            )
        )
    return FileResult(display, "unreadable", diagnostics, problem.text)


def lint_document(document: Document, options: Options) -> FileResult:
    from grpo_lint.checks import run_all
    from grpo_lint.frameworks.detect import detect

    framework = options.framework
    if framework is None:
        detection = detect(document)
        if detection.framework is None:
            return FileResult(document.path, "skipped", text=document.text, note=detection.reason)
        framework = detection.framework
    recorded = document.entries.get("swift_version") if framework == "swift" else None
    target = resolve_target(framework, options.targets, str(recorded.value) if recorded is not None else None)
    if framework == "trl":
        from grpo_lint.frameworks.trl.frontend import build
    else:
        from grpo_lint.frameworks.swift.frontend import build
    plan = build(document, target, options)
    diagnostics = [d for d in run_all(plan, options) if selected(d.code, options)]
    return FileResult(document.path, "linted", diagnostics, document.text, str(target), plan, document.format)


def _finish(result: FileResult, options: Options) -> FileResult:
    """Per-file ignores, inline suppressions, severity overrides; then sort."""
    diagnostics = result.diagnostics
    if options.per_file_ignores and diagnostics:
        ignored = {
            code for patterns, codes in options.per_file_ignores if matches(result.path, patterns) for code in codes
        }
        diagnostics = [d for d in diagnostics if not any(d.code.startswith(c) for c in ignored)]
    if result.text and result.format != "json" and "grpo-lint" in result.text:
        from grpo_lint import suppressions
        from grpo_lint.checks import all_rules

        found = suppressions.parse(result.text)
        known = all_rules()
        diagnostics = suppressions.apply(
            diagnostics, found, result.path, lambda code: selected(code, options), known.__contains__
        )
    if options.severity:
        diagnostics = [
            d._replace(severity=options.severity[d.code]) if d.code in options.severity else d for d in diagnostics
        ]
    result.diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
    return result
