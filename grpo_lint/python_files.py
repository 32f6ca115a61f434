"""Lint Python training code: GRPOConfig(...) calls like config files, and the seeding rules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_lint.diagnostics import Diagnostic
from grpo_lint.sources.document import Document, ReadProblem

if TYPE_CHECKING:
    from grpo_lint.engine import FileResult
    from grpo_lint.options import Options


def lint_python_text(text: str, display: str, explicit: bool, options: Options) -> FileResult | ReadProblem:
    from grpo_lint.checks.code import check_code
    from grpo_lint.engine import FileResult, lint_document, selected
    from grpo_lint.sources.python_code import read

    code = read(text, display)
    if isinstance(code, ReadProblem):
        return code
    diagnostics: list[Diagnostic] = []
    plans = []
    for call in code.configs:
        document = Document(display, text, "python", call.entries)
        linted = lint_document(document, options._replace(framework="trl"))
        diagnostics.extend(linted.diagnostics)
        plans.extend(linted.plans)
    diagnostics.extend(d for d in check_code(code) if selected(d.code, options))
    if not code.configs and not diagnostics:
        return FileResult(display, "skipped", text=text, note="no GRPOConfig call and no seeding problem")
    return FileResult(display, "linted", diagnostics, text, "Python training code", plans, "python")
