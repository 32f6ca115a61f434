"""What a lint run reports: diagnostics with a position, a severity and a fix."""

from __future__ import annotations

from enum import IntEnum

from grpo_lint.records import Record


class Severity(IntEnum):
    """Ordered so that a larger value is more serious."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return _LABELS[self._value_]  # (`name` is a descriptor the enum computes: this is read once per diagnostic)

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.upper()]


_LABELS = {1: "info", 2: "warning", 3: "error"}


class Span(Record):
    """A 1-based, inclusive-start / exclusive-end range in a file."""

    line: int
    column: int
    end_line: int
    end_column: int
    path: str | None = None  # another file than the one being linted (a config named by a launch script)

    @classmethod
    def point(cls, line: int, column: int) -> Span:
        return cls(line, column, line, column + 1)


class Edit(Record):
    """Replace `old` by `new` in a file.

    As a rule proposes it, `span` is the key or value the fix is about, and `old` the text at the end
    of it to replace (a key's last part, a whole value), quotes and a flag's dashes aside. `resolve`
    narrows the span to exactly `old` once the file's text is at hand; a fix whose text does not read
    as expected is dropped, never applied.
    """

    span: Span
    old: str
    new: str


class Fix(Record):
    """A mechanical fix: edits applied together. "safe" fixes keep what the run means (a renamed key,
    `2` -> `2.0`); "unsafe" ones change it (another batch size) and are applied only on request."""

    title: str
    edits: tuple[Edit, ...]
    applicability: str = "safe"  # "safe" or "unsafe"


class Diagnostic(Record):
    code: str
    severity: Severity
    message: str
    path: str
    span: Span | None = None
    key: str | None = None
    fix: str | None = None
    # Mechanical fixes, best first: `--fix` applies the first one that leaves no new diagnostic.
    fixes: tuple[Fix, ...] = ()
    # What the verdict takes as given (grpo_lint.premises.Premise): release, parser, world size.
    premises: tuple = ()
    # In a notebook: (cell number, the line of the joined code where the cell starts, the line of the .ipynb
    # file that holds the cell's first source line or 0). The span counts lines of the joined code.
    cell: tuple[int, int, int] | None = None

    def shown_line(self) -> int:
        """The line as a reader finds it: in its cell for a notebook, in the file otherwise."""
        line = self.span.line if self.span else 1
        return line - self.cell[1] + 1 if self.cell else line

    def raw_lines(self) -> tuple[int, int]:
        """First and last line in the file as stored: for a notebook, lines of its JSON (one source line a
        JSON line, as nbformat writes them; the cell's first line when that layout is not known)."""
        span = self.span
        if self.cell is None:
            return (span.line, span.end_line) if span else (1, 1)
        base = self.cell[2]
        if not base:
            return 1, 1
        first = base + self.shown_line() - 1
        return first, first + ((span.end_line - span.line) if span else 0)

    def location(self) -> str:
        """`path:line:col`, or `path:cell N:line:col` in a notebook (as ruff shows notebook positions)."""
        column = self.span.column if self.span else 1
        where = f"cell {self.cell[0]}:" if self.cell else ""
        return f"{self.path}:{where}{self.shown_line()}:{column}"

    def applicable(self, unsafe: bool = False) -> list[Fix]:
        """The fixes `--fix` may apply, best first (unsafe ones only with --unsafe-fixes)."""
        return [f for f in self.fixes if unsafe or f.applicability == "safe"]

    def fixable(self, unsafe: bool = False) -> bool:
        return bool(self.applicable(unsafe))

    def sort_key(self) -> tuple[str, int, int, str]:
        span = self.span
        return (self.path, span.line if span else 0, span.column if span else 0, self.code)


def first_of(names: list[str], limit: int) -> str:
    """How a message lists names: the first `limit`, then how many more (`a, b, c and 4 more`)."""
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")
