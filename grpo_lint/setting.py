"""A resolved value of a run with where it comes from (grpo_lint.plan builds runs of them; a launch's Document
carries the launcher's world size as one)."""

from __future__ import annotations

from typing import Any

from grpo_lint.diagnostics import Span
from grpo_lint.records import Record


class Setting(Record):
    """A resolved value: what it is, which key set it (None = the version's default) and where."""

    value: Any
    key: str | None = None
    span: Span | None = None
    origin: str = "default"  # "file", "default", "--world-size", or a description

    @property
    def explicit(self) -> bool:
        return self.key is not None

    def label(self, name: str) -> str:
        """How a message names it: the user's key, or the neutral name marked as a default."""
        return self.key if self.key else f"{name} (default)"
