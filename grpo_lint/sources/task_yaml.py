"""Shell scripts kept in a YAML file: the `setup` and `run` commands of a SkyPilot task.

A SkyPilot task (`sky launch task.yaml`) is a YAML mapping whose `run:` (and `setup:`) value is a bash
script that every node runs, usually as a literal block (`run: |`). verl ships its multi-node examples
this way (`examples/skypilot/verl-grpo.yaml`). The script is read as a launch script at the lines it has
in the YAML file; each line keeps its place, and a column of the script is the file's column less the
block's indentation (`offsets`).
"""

from __future__ import annotations

import re

from grpo_lint.patterns import lazy
from grpo_lint.records import Record
from grpo_lint.sources.document import Document

# Keys of a SkyPilot task beside `run` (sky/utils/schemas.py, the task schema): one of them, with a `run` that is
# a string, makes the file a task.
_TASK_KEYS = frozenset({
    "resources", "num_nodes", "setup", "workdir", "file_mounts", "envs", "secrets", "service", "name",
})  # fmt: skip
_SCRIPT_KEYS = ("setup", "run")
# The cheap look at the text before it is parsed: a top-level `run:` and a top-level key of a task.
_LOOKS = lazy(r"^run:", re.M)
_TASK_LINE = lazy(r"^(?:resources|num_nodes|setup|workdir|file_mounts|envs):", re.M)


class TaskScript(Record):
    """The commands of a task file as a script: its text (the file's line count, lines outside the commands
    blank) and, for each line of the commands, the columns the file indents it by."""

    text: str
    offsets: dict[int, int]


def may_be_task(text: str) -> bool:
    return _LOOKS.search(text) is not None and _TASK_LINE.search(text) is not None


def task_script(document: Document) -> TaskScript | None:
    """The `setup` and `run` commands of a SkyPilot task, or None when the file is no task (or its commands are
    not a literal block or a plain line: a folded `>` block joins lines bash would keep apart)."""
    entries = document.entries
    run = entries.get("run")
    if run is None or not isinstance(run.value, str) or not (_TASK_KEYS & entries.keys()):
        return None
    lines = document.text.splitlines()
    out = [""] * len(lines)
    offsets: dict[int, int] = {}
    for key in _SCRIPT_KEYS:
        entry = entries.get(key)
        if entry is None or not isinstance(entry.value, str):
            continue
        span = entry.value_span
        if not 1 <= span.line <= len(lines):
            continue
        first = lines[span.line - 1][span.column - 1 :]
        if first.startswith("|"):
            body = range(span.line + 1, min(span.end_line, len(lines)) + 1)
            written = [lines[n - 1] for n in body if lines[n - 1].strip()]
            if not written:
                continue
            indent = len(written[0]) - len(written[0].lstrip(" "))
            for number in body:
                line = lines[number - 1]
                if line[:indent].strip() == "" and len(line) > indent:
                    out[number - 1] = line[indent:]
                    offsets[number] = indent
        elif span.line == span.end_line and first and first[0] not in "'\">&*!":
            out[span.line - 1] = first
            offsets[span.line] = span.column - 1
    if not offsets:
        return None
    return TaskScript("\n".join(out) + "\n", offsets)
