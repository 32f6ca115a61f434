"""Lint files: read, detect the framework, build the RunPlan, run the rules, filter."""

from __future__ import annotations

from grpo_lint.diagnostics import Diagnostic, Severity, Span
from grpo_lint.discovery import Candidate, discover
from grpo_lint.options import Options
from grpo_lint.sources.document import Document, ReadProblem
from grpo_lint.versions import resolve_target


class FileResult:
    """What linting one file gave. (Plain classes, not dataclasses, keep start-up short.)"""

    __slots__ = ("diagnostics", "note", "path", "status", "text")

    def __init__(
        self,
        path: str,
        status: str,  # "linted", "skipped", "unreadable"
        diagnostics: list[Diagnostic] | None = None,
        text: str = "",
        note: str = "",  # why it was skipped, which framework/version it was linted for
    ) -> None:
        self.path = path
        self.status = status
        self.diagnostics = diagnostics if diagnostics is not None else []
        self.text = text
        self.note = note

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
    return Report([lint_candidate(c, options) for c in discover(paths)])


def lint_candidate(candidate: Candidate, options: Options) -> FileResult:
    from grpo_lint.sources import yaml_reader

    if not candidate.path.exists():
        return _unreadable(candidate.display, ReadProblem("no such file or directory"), options)
    parsed = yaml_reader.read(candidate.path, candidate.display)
    return _lint_parsed(parsed, candidate.display, candidate.explicit, options)


def lint_text(text: str, display: str, options: Options) -> FileResult:
    from grpo_lint.sources import yaml_reader

    return _lint_parsed(yaml_reader.read_text(text, display), display, True, options)


def _lint_parsed(parsed: Document | ReadProblem | None, display: str, explicit: bool, options: Options) -> FileResult:
    if parsed is None:
        return FileResult(display, "skipped", note="empty")
    if isinstance(parsed, ReadProblem):
        not_mapping = parsed.message.startswith("top level is")
        if not_mapping and not explicit and options.framework is None:
            return FileResult(display, "skipped", note="not a mapping")
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
    diagnostics = sorted(
        (d for d in run_all(plan, options) if selected(d.code, options)),
        key=Diagnostic.sort_key,
    )
    return FileResult(document.path, "linted", diagnostics, document.text, note=str(target))
