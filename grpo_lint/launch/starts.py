"""How the repository starts one of its Python files, and on how many processes.

The seeding rules (GRPO301-305) judge code that runs on several processes, and a file that builds an `Accelerator()`
or imports DDP looks like such code. Whether it is depends on the launch: `python -m pkg.train` runs one process,
`accelerate launch --num_processes 4 pkg/train.py` four. Only when the file's seeding would be reported is the
repository asked how it starts the file: the launch scripts and the Python programs that name the file (a byte
search first, then their commands read as a launch is), each command that runs it with the process count its
launcher decides. Looked up lazily, so the cost of a file stays its own unless it has such a finding.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from grpo_lint.diagnostics import first_of
from grpo_lint.workspace.files import SHELL_SUFFIXES

if TYPE_CHECKING:
    from grpo_lint.workspace import Workspace

# The code starts processes of its own (or joins a group it is handed): how many run is not the launch's to say.
_SPAWNS = re.compile(rb"\b(spawn|init_process_group|ray\.remote|Process\(|ProcessPoolExecutor|deepspeed\.launch)\b")


def one_process(relative: str, code: bytes, workspace: Workspace) -> str | None:
    """Where the repository starts this file, when every command that names it runs it as one process (`run.sh:27
    python -m pkg.train`); None when none does, when one runs it on several or on a count not known, or when the
    code starts processes of its own."""
    if _SPAWNS.search(code):
        return None
    target = os.path.normpath(relative)
    stem = Path(relative).stem.encode()
    if len(stem) < 3:
        return None
    starts: list[str] = []
    for other in workspace.files:
        shell = other.endswith(SHELL_SUFFIXES)
        if not shell and not other.endswith(".py"):
            continue
        data = _read(workspace, other)
        if data is None or stem not in data or (not shell and b"subprocess" not in data and b"os.system" not in data):
            continue
        for text in _scripts(workspace, other, data, shell):
            for where, processes in _commands_running(text, other, target, workspace):
                if processes != 1:
                    return None
                starts.append(where)
    return first_of(starts, 3) if starts else None


def _read(workspace: Workspace, relative: str) -> bytes | None:
    from grpo_lint.sources.reading import read_file

    if relative.endswith(".py"):
        return workspace.modules.bytes_of(relative)
    found = read_file(workspace.root / relative, limit=1024 * 1024, within=workspace.root)
    return found if isinstance(found, bytes) else None


def _scripts(workspace: Workspace, relative: str, data: bytes, shell: bool) -> list[str]:
    """The launch script's text, or the command lines a Python program starts, each as a script."""
    if shell:
        return [data.decode("utf-8", "replace")]
    from grpo_lint.sources.python_launches import script_text

    code = workspace.modules.code(relative)
    if code is None:
        return []
    lines = code.text.count("\n") + 1
    return [script_text(call, lines) for call in code.launches]


def _commands_running(text: str, relative: str, target: str, workspace: Workspace) -> list[tuple[str, int | None]]:
    """Each command of a script that runs the file `target`: where, and its process count (None when not known).
    A command that names the file by a word yet cannot be followed to it counts as a start of unknown count."""
    from grpo_lint.launch.commands import Places, started_file
    from grpo_lint.sources import parse_cache

    stem = Path(target).stem
    script = parse_cache.script(text, relative)
    places = Places(workspace.root / Path(relative).parent, workspace.root, workspace.modules)
    found: list[tuple[str, int | None]] = []
    for command in script.commands:
        if not any(stem in word.text for word in command.words):
            continue
        started = started_file(command, places)
        if started is None:
            continue  # (`echo "python -m pkg.train"`, a log's name: no start)
        where = f"{relative}:{command.line}"
        ran, world = started
        if ran is None:
            found.append((where, None))  # the file it runs is not found: may be this one
            continue
        if os.path.normpath(workspace.relative(ran)) != target:
            continue  # another file (`train_sft.py` beside `train.py`), the name being only in an argument
        value = world.value if world is not None else None
        found.append((where, value if isinstance(value, int) and not isinstance(value, bool) else None))
    return found
