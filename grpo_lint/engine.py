"""Lint files: read, detect the framework, build the RunPlan, run the rules, then filter.

Filtering happens once, here, for every file: --select/--ignore, per-file ignores, inline
suppressions (with GRPO008 for unused ones) and per-rule severity overrides.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from grpo_lint.diagnostics import Diagnostic, Severity, Span
from grpo_lint.discovery import Candidate, discover, matches
from grpo_lint.options import Options
from grpo_lint.sources.document import Document, ReadProblem
from grpo_lint.versions import resolve_target

if TYPE_CHECKING:
    from grpo_lint.plan import RunPlan, Setting

# A file found by walking a directory (or passed by a pre-commit hook) that cannot be parsed is
# reported only when its text looks like a GRPO config; any other broken YAML is not ours to judge.
_LOOKS_LIKE_GRPO = re.compile(r"grpo|num_generations|rlhf_type", re.IGNORECASE)


class FileResult:
    """What linting one file gave. (Plain classes, not dataclasses, keep start-up short.)"""

    __slots__ = ("diagnostics", "format", "note", "path", "plans", "sources", "status", "text")

    def __init__(
        self,
        path: str,
        status: str,  # "linted", "skipped", "unreadable"
        diagnostics: list[Diagnostic] | None = None,
        text: str = "",
        note: str = "",  # why it was skipped, which framework/version it was linted for
        plans: list[RunPlan] | None = None,
        format: str = "",  # "yaml", "json", "shell" or "" when unknown
    ) -> None:
        self.path = path
        self.status = status
        self.diagnostics = diagnostics if diagnostics is not None else []
        self.text = text
        self.note = note
        self.plans = plans if plans is not None else []
        self.format = format
        self.sources: dict[str, str] = {}  # other files its diagnostics point into: path -> text

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
    """Launch scripts first: a config file they name is checked with their world size and flags,
    so it is not linted a second time on its own. An accelerate config among the files supplies
    the world size of the others (unless --world-size says otherwise)."""
    candidates = list(discover(paths, options))
    kinds = [file_kind(c.path, c.explicit) for c in candidates]
    options = _with_accelerate_world(candidates, kinds, options)
    results: dict[int, FileResult] = {}
    linked: dict[str, str] = {}
    for index, candidate in enumerate(candidates):
        if kinds[index] == "shell":
            results[index] = lint_candidate(candidate, options, "shell")
            for source in results[index].sources:
                linked.setdefault(os.path.realpath(source), candidate.display)
    for index, candidate in enumerate(candidates):
        if index in results:
            continue
        script = linked.get(os.path.realpath(candidate.path))
        if script is not None:
            results[index] = FileResult(candidate.display, "skipped", note=f"checked as part of {script}")
        else:
            results[index] = lint_candidate(candidate, options, kinds[index])
    return Report([results[i] for i in range(len(candidates))])


_KINDS = {".sh": "shell", ".bash": "shell", ".py": "python", ".yaml": "config", ".yml": "config", ".json": "config"}


def kind_of(name: str, head: str | None) -> str:
    """ "shell", "python" or "config", by suffix; without a known suffix, a shell shebang means shell."""
    kind = _KINDS.get(os.path.splitext(name)[1].lower())
    if kind is not None:
        return kind
    from grpo_lint.sources.shell import looks_like_shell

    return "shell" if head is not None and looks_like_shell(head) else "config"


def file_kind(path: Path, explicit: bool) -> str:
    """The kind of a file; only a named file without a known suffix is opened to look at its shebang."""
    if not explicit or path.suffix.lower() in _KINDS:
        return kind_of(path.name, None)
    try:
        with open(path, "rb") as handle:
            head = handle.read(128).decode("utf-8", "replace")
    except OSError:
        head = None
    return kind_of(path.name, head)


def lint_candidate(candidate: Candidate, options: Options, kind: str = "config") -> FileResult:
    from grpo_lint.sources import yaml_reader

    if not candidate.path.exists():
        return _finish(_unreadable(candidate.display, ReadProblem("no such file or directory"), options), options)
    if kind in ("shell", "python"):
        data = yaml_reader.read_bytes(candidate.path)
        text = data if isinstance(data, ReadProblem) else yaml_reader.decode(data)
        if isinstance(text, ReadProblem):
            return _finish(_unreadable(candidate.display, text, options), options)
        if kind == "python":
            return _finish(_lint_python(text, candidate.display, candidate.explicit, options), options)
        return _finish(lint_script_text(text, candidate.display, candidate.explicit, options), options)
    parsed = yaml_reader.read(candidate.path, candidate.display)
    return _finish(_lint_parsed(parsed, candidate.display, candidate.explicit, options), options)


def _lint_python(text: str, display: str, explicit: bool, options: Options) -> FileResult:
    from grpo_lint.python_files import lint_python_text

    result = lint_python_text(text, display, explicit, options)
    if isinstance(result, ReadProblem):
        if explicit and not options.only_configs:
            return _unreadable(display, result, options)
        return FileResult(display, "skipped", note="not valid Python")
    return result


def lint_script_text(text: str, display: str, explicit: bool, options: Options) -> FileResult:
    from grpo_lint.launch_scripts import lint_script

    linted = lint_script(text, display, options)
    if not any(launch.role == "train" for launch in linted.launches) and not linted.diagnostics:
        note = "no GRPO launch command" if not linted.launches else "starts only a rollout server"
        return FileResult(display, "skipped", text=text, note=note, format="shell")
    diagnostics = [d if d.path else d._replace(path=display) for d in linted.diagnostics if selected(d.code, options)]
    result = FileResult(display, "linted", diagnostics, text, "launch script", linted.plans, "shell")
    result.sources = linted.sources
    return result


def _with_accelerate_world(candidates: list[Candidate], kinds: list[str], options: Options) -> Options:
    """One accelerate config named among the files (or --accelerate-config) gives the others their world size."""
    if options.world_size is not None or options.accelerate is not None:
        return options
    from grpo_lint.accelerate_config import is_accelerate_config
    from grpo_lint.sources import yaml_reader

    found = []
    for candidate, kind in zip(candidates, kinds, strict=True):
        if kind != "config" or not candidate.explicit or not candidate.path.is_file():
            continue
        try:
            head = candidate.path.read_bytes()[:65536]
        except OSError:
            continue
        if b"distributed_type" not in head and b"compute_environment" not in head:
            continue  # cheap test first: most files are not accelerate configs
        parsed = yaml_reader.read(candidate.path, candidate.display)
        if isinstance(parsed, Document) and is_accelerate_config(parsed):
            found.append(parsed)
    if len(found) != 1:
        return options
    return options._replace(accelerate=accelerate_world(found[0]))


def accelerate_world(document: Document) -> Setting | None:
    from grpo_lint.accelerate_config import from_document
    from grpo_lint.plan import Setting

    config = from_document(document)
    entry = document.entries.get("num_processes")
    if config.num_processes is None or config.num_processes < 1 or entry is None:
        return None
    span = entry.key_span._replace(path=document.path)
    return Setting(config.num_processes, "num_processes", span, f"num_processes in {document.path}")


def lint_text(text: str, display: str, options: Options, kind: str | None = None) -> FileResult:
    """Lint text that comes with a name but not from a walk (stdin, tests, rule pages).

    `kind` is "shell", "python" or "config"; by default it follows the name (see kind_of).
    """
    from grpo_lint.sources import yaml_reader

    kind = kind or kind_of(display, text)
    if kind == "python":
        return _finish(_lint_python(text, display, True, options), options)
    if kind == "shell":
        return _finish(lint_script_text(text, display, True, options), options)
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
        from grpo_lint.accelerate_config import is_accelerate_config

        if is_accelerate_config(document) and document.format != "cli":
            return _lint_accelerate_config(document, options)
        detection = detect(document)
        if detection.framework is None:
            return FileResult(document.path, "skipped", text=document.text, note=detection.reason)
        framework = detection.framework
    if document.launcher is None and options.accelerate is not None:
        document.launcher = options.accelerate
    recorded = document.entries.get("swift_version") if framework == "swift" else None
    target = resolve_target(framework, options.targets, str(recorded.value) if recorded is not None else None)
    if framework == "trl":
        from grpo_lint.frameworks.trl.frontend import build
    elif framework == "verl":
        from grpo_lint.frameworks.verl.frontend import build, nested_to_paths

        if document.hydra is None:
            nested_to_paths(document)
    elif framework == "openrlhf":
        from grpo_lint.frameworks.openrlhf.frontend import build
    else:
        from grpo_lint.frameworks.swift.frontend import build
    plan = build(document, target, options)
    diagnostics = [
        d._replace(path=d.span.path) if d.span is not None and d.span.path else d
        for d in run_all(plan, options)
        if selected(d.code, options)
    ]
    return FileResult(document.path, "linted", diagnostics, document.text, str(target), [plan], document.format)


def _lint_accelerate_config(document: Document, options: Options) -> FileResult:
    from grpo_lint.checks.launch import check_accelerate_config

    diagnostics = [d for d in check_accelerate_config(document) if selected(d.code, options)]
    if not diagnostics:
        return FileResult(document.path, "skipped", text=document.text, note="an accelerate config (consistent)")
    return FileResult(document.path, "linted", diagnostics, document.text, "accelerate config", None, document.format)


def _finish(result: FileResult, options: Options) -> FileResult:
    """Per-file ignores, inline suppressions, severity overrides; then sort."""
    diagnostics = result.diagnostics
    if options.per_file_ignores and diagnostics:
        ignored = {
            code for patterns, codes in options.per_file_ignores if matches(result.path, patterns) for code in codes
        }
        diagnostics = [d for d in diagnostics if not any(d.code.startswith(c) for c in ignored)]
    texts = {result.path: result.text, **result.sources}
    if any("grpo-lint" in text for text in texts.values()):
        from grpo_lint import suppressions
        from grpo_lint.checks import all_rules

        known = all_rules()
        kept = [d for d in diagnostics if d.path not in texts]
        for path, text in texts.items():
            mine = [d for d in diagnostics if d.path == path]
            is_json = (result.format == "json") if path == result.path else path.lower().endswith(".json")
            if text and not is_json and "grpo-lint" in text:
                mine = suppressions.apply(
                    mine, suppressions.parse(text), path, lambda code: selected(code, options), known.__contains__
                )
            kept.extend(mine)
        diagnostics = kept
    if options.severity:
        diagnostics = [
            d._replace(severity=options.severity[d.code]) if d.code in options.severity else d for d in diagnostics
        ]
    result.diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
    return result
