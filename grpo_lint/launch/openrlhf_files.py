"""The Python files an OpenRLHF launch makes the trainer load, and what it takes from each (GRPO508).

`--agent_func_path F.py` (v0.8.0 on; `--train.agent_func_path` from v0.11.0) is imported by each vLLM engine:
v0.8.x takes its `step` function (`self.agent_step = agent_module.step` when the first agent starts), v0.9.0
its `AgentExecutor` class (`assert hasattr(agent_module, "AgentExecutor"), "Agent module must contain
AgentExecutor class"`, when the first prompt is generated), and v0.9.1 on asserts the same when each engine
starts (trainer/ray/vllm_engine.py `_load_agent_executor`). `--remote_rm_url F.py` (`--reward.remote_url` from
v0.11.0), a path that ends in `.py`, is imported for its `reward_func` in every release from v0.5.9 to v0.11.0.
A file that is not there stops the run when it is imported (FileNotFoundError).

The file is found as the shell passes it: a path written out, from any folder the run may start in, or a path
through a folder not shown (`$(realpath "$(dirname "$0")/../..")/examples/agent.py`) whose tail is a file of the
repository. Only a path written out is called missing: one through a folder not shown may lie outside the
checkout. What a file defines is read from its module's own statements (`def`, `class`, assignments and imports,
also inside `if` and `try`); a module with `from x import *`, a module `__getattr__` or a write to `globals()`
may define anything, and is not judged.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import Version

from grpo_lint.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from grpo_lint.launch.commands import Places
    from grpo_lint.sources.document import Entry
    from grpo_lint.sources.shell import Word
    from grpo_lint.versions import Target

_AGENT_KEYS = ("agent_func_path", "train.agent_func_path")
_REWARD_KEYS = ("remote_rm_url", "reward.remote_url")
_EXECUTOR_FROM = Version("0.9.0")  # the release whose agent file must hold an AgentExecutor class (v0.8.x: step)


def loaded_file_problems(
    entries: dict[str, Entry], unresolved: dict[str, Word], places: Places, target: Target
) -> list[Diagnostic]:
    """GRPO508 for an agent or reward file of an OpenRLHF launch that is missing or lacks what OpenRLHF takes."""
    found: list[Diagnostic] = []
    for keys, agent in ((_AGENT_KEYS, True), (_REWARD_KEYS, False)):
        key = next((k for k in keys if k in entries), None)
        if key is None:
            continue
        entry = entries[key]
        word = unresolved.get(key)
        written = word.text if word is not None else entry.value
        if not isinstance(written, str) or not written.endswith(".py") or "," in written:
            continue  # (a reward server's URL, or several)
        file = _located(written, word is not None, places)
        if file is None:
            if word is None and _visibly_missing(written, places):
                found.append(_missing(entry, written, agent))
            continue
        problem = _lacking(entry, written, file, agent, places, target)
        if problem is not None:
            found.append(problem)
    return found


def _located(written: str, unknown: bool, places: Places) -> Path | None:
    """The repository file the path names, or None when it is not found (or lies outside the repository)."""
    from grpo_lint.launch.commands import find_file, written_tail

    if not unknown:
        file = find_file(written, places)
        return file if isinstance(file, Path) else None
    tail = written_tail(written, (places.root,), places.root, folder=False, least=2)
    return tail[0] if tail is not None else None


def _visibly_missing(written: str, places: Places) -> bool:
    from grpo_lint.launch.runs import visibly_missing

    return not os.path.isabs(written) and "$" not in written and visibly_missing(written, places)


def _lacking(entry: Entry, written: str, file: Path, agent: bool, places: Places, target: Target) -> Diagnostic | None:
    """GRPO508 when the file defines no name that OpenRLHF takes from it. An agent file with `step` but no
    `AgentExecutor` (or the other way round) is judged only where the repository states the release."""
    modules = places.modules
    relative = modules.relative(file) if modules is not None else None
    code = modules.code(relative) if modules is not None and relative is not None else None
    if code is None or relative is None:
        return None  # not a module of the repository's, or not valid Python (which Python reports itself)
    names = defined_names(code.text)
    if names is None:
        return None
    shown = written if "$" not in written else f"{relative} (as `{written}`)"
    if not agent:
        if "reward_func" in names:
            return None
        message = (
            f"`{entry.key}` names {shown}, which defines no `reward_func`: OpenRLHF imports the file and takes its "
            "`reward_func` before the first reward is computed, and stops with `AttributeError: module 'reward_func' "
            "has no attribute 'reward_func'`."
        )
        fix = f"define `reward_func(queries, prompts, labels)` in {relative}, or name the file that does"
        return Diagnostic("GRPO508", Severity.ERROR, message, "", entry.value_span, key=entry.key, fix=fix)
    if "AgentExecutor" in names and "step" in names:
        return None
    executor = (
        "an `AgentExecutor` class (a subclass of `openrlhf.utils.agent.AgentExecutorBase`), which OpenRLHF 0.9.0 on "
        "take from the file (0.9.1 on assert it when the vLLM engines start: `AssertionError: Agent module must "
        "contain AgentExecutor class`)"
    )
    step = (
        "a `step` function, which OpenRLHF 0.8.x take when the first agent starts (`AttributeError: module 'step' "
        "has no attribute 'step'`)"
    )
    if "AgentExecutor" not in names and "step" not in names:
        wanted = "AgentExecutor"
        message = f"`{entry.key}` names {shown}, which defines neither {executor} nor {step}: no release runs it."
    else:
        if target.unknown or target.uncertain or target.foreign:
            return None  # (either may be what the release that runs takes)
        wanted = _agent_name(target.version)
        if wanted in names:
            return None
        has = "`step` is what 0.8.x take" if wanted == "AgentExecutor" else "`AgentExecutor` is what 0.9.0 on take"
        message = (
            f"`{entry.key}` names {shown}, which defines no {executor if wanted == 'AgentExecutor' else step}; the run "
            f"has OpenRLHF {target.version}, and the file's {has}."
        )
    fix = f"name the agent file that defines `{wanted}`, or define it in {relative}"
    return Diagnostic("GRPO508", Severity.ERROR, message, "", entry.value_span, key=entry.key, fix=fix)


def _agent_name(version: Version) -> str:
    return "AgentExecutor" if version >= _EXECUTOR_FROM else "step"


def _missing(entry: Entry, written: str, agent: bool) -> Diagnostic:
    what = "its `AgentExecutor`" if agent else "its `reward_func`"
    return Diagnostic(
        "GRPO508",
        Severity.ERROR,
        f"`{entry.key}` names {written}, which is in no folder the run may start in (the script's own up to the "
        f"repository root): OpenRLHF imports the file for {what} and stops with FileNotFoundError before training.",
        "",
        entry.value_span,
        key=entry.key,
        fix="name the file as it is in the repository (a path from where the script is run), or restore it",
    )


def defined_names(text: str) -> frozenset[str] | None:
    """The names a module's own statements define (`def`, `class`, assignments, imports; inside `if`, `try`, `with`
    too), or None when it may define others (`from x import *`, a module `__getattr__`, `globals()`, `exec`)."""
    from grpo_lint.sources.python_syntax import parse

    if "import *" in text or "globals()" in text or "exec(" in text:
        return None
    try:
        tree = parse(text, filename="<agent>")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names: set[str] = set()
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
            for field in ("body", "orelse", "finalbody"):
                todo.extend(getattr(node, field, ()))
            for handler in getattr(node, "handlers", ()):
                todo.extend(handler.body)
    if "__getattr__" in names:
        return None
    return frozenset(names)
