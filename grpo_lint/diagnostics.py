"""What a lint run reports: diagnostics with a position, a severity and a fix."""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class Severity(IntEnum):
    """Ordered so that a larger value is more serious."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.upper()]


class Span(NamedTuple):
    """A 1-based, inclusive-start / exclusive-end range in a file."""

    line: int
    column: int
    end_line: int
    end_column: int
    path: str | None = None  # another file than the one being linted (a config named by a launch script)

    @classmethod
    def point(cls, line: int, column: int) -> Span:
        return cls(line, column, line, column + 1)


class Diagnostic(NamedTuple):
    code: str
    severity: Severity
    message: str
    path: str
    span: Span | None = None
    key: str | None = None
    fix: str | None = None

    def sort_key(self) -> tuple[str, int, int, str]:
        span = self.span
        return (self.path, span.line if span else 0, span.column if span else 0, self.code)
