"""What the editor's server lints: an open document's unsaved text, with the repository around it read from disk.

A `Session` keeps the repository's workspace (its file list, release statements, copies, parsed Python) between
edits of a config, and drops it when a file on disk changes or a launch script or Python file is edited (their
text is what the workspace has read). The diagnostics are the command line's for the same content: the same
engine, the buffer read in place of the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from grpo_lint.diagnostics import Diagnostic
from grpo_lint.options import Options
from grpo_lint.workspace.files import SHELL_SUFFIXES

# Documents whose text a workspace caches once read (scripts and Python): editing one drops the workspace.
_CACHED_KINDS = (*SHELL_SUFFIXES, ".py", ".ipynb")
# Documents that take `#` comments, where an inline suppression can be written.
_COMMENTED = (".yaml", ".yml", *SHELL_SUFFIXES, ".py")


class SettingsError(ValueError):
    """Settings the server cannot use (a bad `target`, an unknown rule code)."""


def settings(root: Path, given: Mapping[str, Any] | None) -> Options:
    """The options of a session: `[tool.grpo-lint]` of the project (as the command line finds it from the root),
    with the editor's initialization options laid over it (`target`, `world_size`, `select`, `ignore`)."""
    from grpo_lint import project_config
    from grpo_lint.versions import TargetError, parse_target

    merged: dict[str, Any] = {}
    path = project_config.find(root)
    if path is not None:
        try:
            loaded = project_config.load(path).settings
        except project_config.ConfigError as exc:
            raise SettingsError(str(exc)) from None
        merged = {name: value for name, value in loaded.items() if name in Options._fields}
    given = given or {}
    targets = dict(merged.get("targets", {}))
    written = given.get("target") or []
    for text in [written] if isinstance(written, str) else list(written):
        try:
            target = parse_target(str(text))
        except TargetError as exc:
            raise SettingsError(f"target: {exc}") from None
        targets[target.framework] = target
    merged["targets"] = targets
    if given.get("world_size") is not None:
        try:
            merged["world_size"] = int(given["world_size"])
        except (TypeError, ValueError):
            raise SettingsError(f"world_size: {given['world_size']!r} is not a whole number") from None
    for name in ("select", "ignore"):
        if given.get(name) is not None:
            codes = [given[name]] if isinstance(given[name], str) else list(given[name])
            merged[name] = frozenset(_code(str(code)) for code in codes)
    merged["jobs"] = 1  # one document at a time: no process pool
    return Options(**merged)


def _code(text: str) -> str:
    from grpo_lint.project_config import code_problem

    code = text.strip().upper()
    problem = code_problem(code)
    if problem is not None:
        raise SettingsError(problem)
    return code


class Session:
    """The repository of one editor session, read once and kept while nothing it read changes."""

    def __init__(self, root: Path, options: Options) -> None:
        self.root = root
        self.options = options
        self._workspace: Any = None

    def invalidate(self) -> None:
        """A file on disk changed (a requirement, a launch script, a config another one composes): read again."""
        self._workspace = None

    def lint(self, path: Path, text: str) -> list[Diagnostic]:
        """The diagnostics of the document at `path` whose unsaved text is `text`."""
        from grpo_lint.engine import guarded, lint_workspace
        from grpo_lint.sources.reading import overlaid
        from grpo_lint.workspace import Candidate, build

        display = self.display(path)
        if path.suffix.lower() in _CACHED_KINDS:
            self._workspace = None  # its text is what the workspace read: read the buffer
        with overlaid({os.path.realpath(path): text.encode("utf-8")}):
            if self._workspace is None:
                self._workspace = build([display], self.options)
            workspace = self._workspace
            modules = workspace.__dict__.get("modules")  # (read only if a launch needed it)
            if modules is not None:
                modules.forget_configs()  # the buffer may be part of a composed tree
            workspace.candidates = [Candidate(Path(display), display, explicit=True)]
            report = guarded(display, self.options, lint_workspace, workspace, self.options)
        results = getattr(report, "files", None)
        if results is None:  # the guard's own result: a bug of grpo-lint, reported on the document
            return list(report.diagnostics)
        mine = [result for result in results if result.path == display]
        return [d for result in mine for d in result.diagnostics if _in(d, display)]

    def display(self, path: Path) -> str:
        """The path as the command line shows it, run from the session's root."""
        relative = os.path.relpath(path, self.root)
        return relative if not relative.startswith("..") else str(path)


def _in(diagnostic: Diagnostic, display: str) -> bool:
    """Whether a diagnostic's place is in the document (not in a config a launch script names)."""
    span = diagnostic.span
    return span is None or span.path is None or os.path.realpath(span.path) == os.path.realpath(display)


def explain(code: str) -> str | None:
    """The rule page of a code (what `--explain` prints), or None."""
    from grpo_lint.checks import all_rules
    from grpo_lint.rule_pages import page

    return page(code) if code in all_rules() else None


def suppression(path: Path, text: str, line: int, code: str) -> tuple[int, int, str] | None:
    """Where and what to write to silence `code` on `line` (1-based): (line, column, text) of an insertion, both
    0-based; None where no comment can be written (JSON, notebooks). A line that continues with `\\` gets a
    file-level suppression at the top instead: a comment there would end the command."""
    if path.suffix.lower() not in _COMMENTED:
        return None
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return None
    written = lines[line - 1]
    if written.rstrip().endswith("\\"):
        top = 1 if lines and lines[0].startswith("#!") else 0
        return top, 0, f"# grpo-lint: file-ignore[{code}]\n"
    if "# grpo-lint: ignore[" in written:
        start = written.index("# grpo-lint: ignore[") + len("# grpo-lint: ignore[")
        end = written.index("]", start) if "]" in written[start:] else start
        return line - 1, end, f", {code}"
    return line - 1, len(written), f"  # grpo-lint: ignore[{code}]"
