"""What a lint run gives: one FileResult per file, gathered in a Report."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_lint.diagnostics import Diagnostic, Fix, Severity

if TYPE_CHECKING:
    from grpo_lint.plan import RunPlan
    from grpo_lint.versions import Target
    from grpo_lint.workspace import Workspace


class FileResult:
    """What linting one file gave. (Plain classes, not dataclasses, keep start-up short.)"""

    __slots__ = ("diagnostics", "format", "note", "path", "plans", "sources", "status", "text", "unchecked")

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
        self.unchecked: list[str] = []  # rules that did not judge it, and why (grpo_lint.premises)

    def __repr__(self) -> str:
        return f"FileResult({self.path!r}, {self.status!r}, {len(self.diagnostics)} diagnostics)"


class Report:
    __slots__ = ("files", "fixed", "unsafe_fixes", "workspace")

    def __init__(self, files: list[FileResult], workspace: Workspace | None = None) -> None:
        self.files = files
        self.workspace = workspace  # the repository the files belong to (read lazily, for --show)
        self.fixed: list[tuple[Diagnostic, Fix]] = []  # what --fix fixed, and how (the diagnostics are those left)
        self.unsafe_fixes = False  # whether fixes that change the run count as applicable (--unsafe-fixes)

    def fixable(self) -> tuple[int, int]:
        """How many diagnostics --fix would fix, and how many more with --unsafe-fixes."""
        safe = unsafe = 0
        for diagnostic in self.diagnostics:
            if diagnostic.fixes:
                if diagnostic.fixable(self.unsafe_fixes):
                    safe += 1
                elif diagnostic.fixable(True):
                    unsafe += 1
        return safe, unsafe

    @property
    def facts(self) -> list[str]:
        """What the workspace found, each with where it came from (for --show)."""
        return self.workspace.facts() if self.workspace is not None else []

    def targets(self) -> list[Target]:
        """The framework versions the files were linted against, each once, in order of first use."""
        seen: dict[tuple[str, str, str], Target] = {}
        for result in self.files:
            for plan in result.plans:
                target = plan.target
                seen.setdefault((target.framework, str(target.version), target.source), target)
        return list(seen.values())

    def against(self) -> str:
        """'against TRL 0.18.0 (setup.py: trl==0.18.0)' for the summary line; '' when nothing was linted."""
        targets = self.targets()
        if not targets:
            return ""
        return "against " + ", ".join(
            f"{t.framework_name}, release unknown ({t.source})" if t.unknown else f"{t} ({t.source})" for t in targets
        )

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for f in self.files for d in f.diagnostics]

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity is severity)

    def exit_code(self, fail_on: Severity = Severity.ERROR) -> int:
        """0 clean, 1 findings at or above `fail_on`, 2 when grpo-lint itself failed on a file (GRPO000)."""
        diagnostics = self.diagnostics
        if any(d.code == "GRPO000" for d in diagnostics):
            return 2
        return 1 if any(d.severity >= fail_on for d in diagnostics) else 0
