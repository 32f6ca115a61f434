"""Jupyter notebooks (`.ipynb`) as sources: the code cells as one Python text, positions as cells.

Colab and Kaggle notebooks are where many GRPO runs start (Unsloth publishes over a hundred). A
notebook is read like a `.py` file: its code cells are joined into one text, line for line, so that
the Python reader and the rules see ordinary code; shell and magic lines (`!pip install ...`,
`%pip ...`) become comments there (they are not Python), and a cell that is not Python at all
(`%%bash`, `%%writefile`) becomes blank lines. `Cells.locate` turns a line of that text back into
(cell, line in the cell), which is how diagnostics are shown (`train.ipynb:cell 3:5:1`, as ruff
shows notebook positions). Cells are numbered from 1 over every cell of the notebook, markdown
cells included, as a reader counts them scrolling down.
"""

from __future__ import annotations

import json
from bisect import bisect_right

from grpo_lint.patterns import lazy
from grpo_lint.records import Record


class Cell(Record):
    number: int  # 1-based, over every cell of the notebook
    source: str  # as written
    first_line: int  # the line of the joined Python text where this cell starts (1-based)
    python: bool  # False for a cell magic (`%%bash`, `%%writefile`) that is not Python
    raw_line: int = 0  # the line of the .ipynb file that holds the cell's first source line (0: not known)


class Cells:
    """Where each code cell lies in the joined Python text."""

    __slots__ = ("cells", "shell", "shells", "starts", "working_dirs")

    def __init__(
        self,
        cells: list[Cell],
        shell: str = "",
        shells: frozenset[int] = frozenset(),
        working_dirs: frozenset[int] = frozenset(),
    ) -> None:
        self.cells = cells
        self.starts = [cell.first_line for cell in cells]
        # The shell the notebook runs (`!python train.py \`, a `%%bash` cell) at the lines of the joined text, the
        # rest blank: read as a launch script ("" when there is none).
        self.shell = shell
        # The lines where a shell of its own starts: IPython runs each `!` line in a new shell (a `cd` there does not
        # reach the next line) and a `%%bash` cell in one. A `%cd DIR` line (in `working_dirs`, read as `cd DIR`)
        # moves the notebook itself: every later shell starts there.
        self.shells = shells
        self.working_dirs = working_dirs

    def locate(self, line: int) -> tuple[int, int]:
        """(cell number, line in the cell) of a line of the joined text."""
        cell = self.cell_at(line)
        return (cell.number, line - cell.first_line + 1) if cell is not None else (1, line)

    def cell_at(self, line: int) -> Cell | None:
        if not self.cells:
            return None
        return self.cells[max(bisect_right(self.starts, line) - 1, 0)]


class NotebookError(ValueError):
    """The file is not a notebook grpo-lint can read (not JSON, no `cells` list)."""


def load(text: str) -> list[tuple[int, str, str]]:
    """(cell number, cell type, source) of every cell, in order (source lines joined)."""
    from grpo_lint.sources.numbers import integer

    try:
        data = json.loads(text, parse_int=integer)
    except (ValueError, RecursionError) as exc:
        raise NotebookError(f"not a notebook: the JSON does not parse ({exc})") from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("not a notebook: no `cells` list")
    found = []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(part for part in source if isinstance(part, str))
        if isinstance(source, str):
            found.append((number, str(cell.get("cell_type", "")), source))
    return found


def code_cells(text: str) -> list[Cell]:
    """The code cells of a notebook's JSON text (none when it is not a notebook)."""
    try:
        return python_text(text)[1].cells
    except NotebookError:
        return []


def _raw_lines(text: str, count: int) -> list[int]:
    """The line of the .ipynb text where each cell's source starts, as nbformat writes it (one JSON string a
    line, after `"source": [`); [] when the file is laid out otherwise."""
    found = []
    line, position = 1, 0
    while True:
        at = text.find('"source":', position)
        if at < 0:
            break
        line += text.count("\n", position, at)
        rest = text[at + 9 : at + 40].lstrip(" ")
        found.append(line + 1 if rest.startswith("[") and not rest.startswith("[]") else line)
        position = at + 9
    return found if len(found) == count else []


# Notebooks decoded in this run, by (hash, length) of their JSON text: the run parses a repository's Python ahead, reads
# a notebook's install cells for its release and lints its code, and decodes its JSON (outputs and all) once.
_DECODED: dict[tuple[int, int], tuple[str, Cells]] = {}
_MAX_DECODED = 512


def python_text(text: str) -> tuple[str, Cells]:
    """The code cells joined into one Python text, and where each cell starts in it (decoded once per text)."""
    key = (hash(text), len(text))
    found = _DECODED.get(key)
    if found is None:
        found = decode(text)
        if len(_DECODED) < _MAX_DECODED:
            _DECODED[key] = found
    return found


def decode(text: str) -> tuple[str, Cells]:
    """python_text, decoded from the JSON."""
    lines: list[str] = []
    shell: list[str] = []  # the shell lines at their places in the joined text, the others blank
    shells: set[int] = set()  # lines where a shell of its own starts (see Cells)
    working_dirs: set[int] = set()  # `%cd DIR` lines
    cells: list[Cell] = []
    loaded = load(text)
    raw = _raw_lines(text, len(loaded))
    for number, kind, source in loaded:
        if kind != "code":
            continue
        own = source.splitlines() or [""]
        first = own[0].lstrip()
        python = not first.startswith("%%") or first.startswith(("%%time", "%%capture"))
        cells.append(Cell(number, source, len(lines) + 1, python, raw[number - 1] if raw else 0))
        bash = _SHELL_CELL.match(first) is not None  # `%%bash`: the cell's other lines are one shell script
        continued = False  # the line before is a shell or magic line ending in `\`: this one belongs to it
        in_shell = False  # ... and that line is a shell line (`!`): IPython joins the two for the shell
        for index, line in enumerate(own):
            stripped = line.lstrip()
            if not python:
                lines.append("")
                shell.append(line if bash and index else "")
                if bash and index == 1:
                    shells.add(len(shell))
            elif continued:
                lines.append(f"#{line}")
                shell.append(_ipython_values(line) if in_shell else "")
                continued = line.endswith("\\")
            elif stripped.startswith(("!", "%")):
                continued = line.endswith("\\")
                in_shell = stripped.startswith("!") and not stripped.startswith("!!")
                moves = _MAGIC_CD.match(stripped) is not None  # `%cd DIR`: the notebook's own folder changes
                # shell and magic lines are no Python: kept as comments (columns stay put); an indented
                # one may be all a block holds (`if ...:\n    !pip install x`), so it is a statement there
                indent = line[: len(line) - len(stripped)]
                lines.append(f"{indent}pass  #{stripped[1:]}" if indent else f"#{stripped[1:]}")
                shell.append(_ipython_values(f"{indent} {stripped[1:]}") if in_shell or moves else "")
                if in_shell:
                    shells.add(len(shell))
                elif moves:
                    working_dirs.add(len(shell))
            else:
                lines.append(line)
                shell.append("")
    script = "\n".join(shell) + "\n" if any(shell) else ""
    return "\n".join(lines) + "\n", Cells(cells, script, frozenset(shells), frozenset(working_dirs))


# A cell magic that runs the cell in a POSIX shell.
_SHELL_CELL = lazy(r"%%(?:bash|sh|script\s+(?:ba)?sh)\s*$")
# IPython's `%cd DIR` line magic (not `%cd` alone, which goes home, nor `%cd -b` bookmarks): read as `cd DIR`.
_MAGIC_CD = lazy(r"%cd\s+(?!-)\S")
# `{expr}` in a `!` line: IPython puts the value of a Python expression there before the shell reads the line.
_PYTHON_VALUE = lazy(r"(?<!\$)\{[^{}\n]*\}")


def _ipython_values(line: str) -> str:
    """A `!` line as the shell reads it where IPython's values are not known: each `{expr}` becomes a variable no
    script sets (`$____`, as long, so columns stay put); `$name` is already one the shell does not know."""
    return _PYTHON_VALUE.sub(lambda match: "$" + "_" * (len(match.group(0)) - 1), line)
