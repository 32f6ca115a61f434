"""A configuration as written: each value with the key the user typed and its position."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grpo_lint.diagnostics import Span


@dataclass(slots=True)
class Entry:
    """One `key: value` of a config, with spans of the key and of the value."""

    key: str
    value: Any
    key_span: Span
    value_span: Span
    # For a mapping value (generation_kwargs, ENV): its own entries.
    children: dict[str, Entry] = field(default_factory=dict)
    # For a sequence value: the span of each item.
    item_spans: list[Span] = field(default_factory=list)


@dataclass(slots=True)
class Document:
    """A parsed config file."""

    path: str
    text: str
    format: str  # "yaml" or "json"
    entries: dict[str, Entry]
    duplicates: list[tuple[Entry, Entry]] = field(default_factory=list)
    _lines: list[str] | None = None

    def line(self, number: int) -> str:
        """The source line `number` (1-based), or '' when out of range."""
        if self._lines is None:
            self._lines = self.text.splitlines()
        if 1 <= number <= len(self._lines):
            return self._lines[number - 1]
        return ""

    @property
    def values(self) -> dict[str, Any]:
        return {key: entry.value for key, entry in self.entries.items()}


@dataclass(frozen=True, slots=True)
class ReadProblem:
    """Why a file could not be read as a config (reported as GRPO001)."""

    message: str
    span: Span | None = None
    text: str = ""
