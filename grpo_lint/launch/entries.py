"""The entry point a launch runs, read from the repository's own file: a Hydra application and its config tree.

Step 2 and 3 of the path from a launch to the rules (README, "Architecture"): `python3 -m pkg.main_ppo` or
`python3 main_ppo.py` resolves to a file of the repository (grpo_lint.launch.commands), and that file says
how it reads its settings. A function decorated with `@hydra.main(config_path=..., config_name=...)`
composes the tree under `config_path` (relative to the file) with the command line's overrides; the
trainer it constructs says whose training loop the settings feed (verl's `RayPPOTrainer`, or a class of
the repository that extends it).

Composition itself is grpo_lint.sources.hydra_compose; this module only finds the pieces, with `ast`
facts the repository's module index already holds (never importing the file).
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grpo_lint.records import Record

_VERL_TRAINERS = frozenset({"RayPPOTrainer"})


class HydraEntry(Record):
    """A Hydra application of the repository: where its config tree is and what it trains."""

    file: str  # the entry file, relative to the repository root
    line: int  # the line of `@hydra.main`
    config_path: str | None  # as written in the decorator (relative to the file's folder)
    config_name: str | None
    verl: bool  # it runs verl's trainer (constructs RayPPOTrainer, or its config is a ppo trainer's)
    # "verl's RayPPOTrainer" when the entry constructs verl's own trainer (its batch arithmetic applies); "" when
    # not shown or when the class is the repository's own (a subclass may give the batch keys its own meaning).
    trainer: str
    # What the entry file asserts about the config before training, unconditionally (an `assert` in a function
    # body, not under an `if`; an `if key == a: ... elif key == b: ... else: raise` chain on one key):
    # (dotted key, operator, literal, line, the assertion as written).
    asserts: tuple[tuple[str, str, Any, int, str], ...] = ()

    def config_dir(self, root: Path, override: str | None = None) -> Path | None:
        """The primary config folder (`--config-path` replaces the decorator's, also relative to the file)."""
        written = override if override is not None else self.config_path
        if written is None or written.startswith("pkg://"):
            return None
        if os.path.isabs(written):
            return Path(written)
        return (root / self.file).parent / written


def hydra_entry(modules: Any, script: Path) -> HydraEntry | None:
    """The Hydra application `script` is, or None (not in the repository, not a Hydra app). Read once per run: a
    repository's hundreds of launches of one entry point ask for it each time."""
    relative = modules.relative(script)
    if relative is None:
        return None
    cache = modules.hydra_entries
    if relative not in cache:
        cache[relative] = _hydra_entry(modules, relative) if modules.mentions_in(relative, b"hydra") else None
    return cache[relative]


def _hydra_entry(modules: Any, relative: str) -> HydraEntry | None:
    index = modules.index(relative)
    if index is None or index.hydra is None:
        return None
    app = index.hydra
    trainer = _verl_trainer(modules, relative, index)
    # A verl trainer's entry: it builds verl's trainer, or its config is a trainer's (generation and SFT
    # entries of verl are Hydra apps too, with no `actor_rollout_ref` section and no ppo_trainer base).
    verl = bool(trainer) or _config_mentions(modules.root, relative, app)
    asserts = _config_asserts(modules.code(relative)) if verl else ()
    return HydraEntry(relative, app.line, app.config_path, app.config_name, verl, trainer, asserts)


_OPERATORS = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=", "In": "in", "NotIn": "not in"}


def _config_asserts(code: Any) -> tuple[tuple[str, str, Any, int, str], ...]:
    """`assert config.a.b == 1` statements of a function body (not nested in if/for/while/try/with) whose left side
    is a key of the config the function is given (a parameter named config or cfg) and whose right side a literal."""
    if code is None:
        return ()
    import ast

    from grpo_lint.sources.python_index import dotted, literal

    try:
        tree = ast.parse(code.text)
    except (SyntaxError, ValueError, RecursionError):
        return ()
    found: list[tuple[str, str, Any, int, str]] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        names = {a.arg for a in (*function.args.args, *function.args.kwonlyargs)} & {"config", "cfg"}
        aliases: dict[str, str] = {}  # `manager = config.reward_model.get("reward_manager", "x")`: name -> key
        for statement in function.body:
            alias = _alias(statement, names)
            if alias is not None:
                aliases[alias[0]] = alias[1]
                continue
            chain = _raising_chain(statement, names, aliases)
            if chain is not None:
                path, allowed, written = chain
                found.append((path, "in", allowed, statement.lineno, written))
                continue
            test = statement.test if isinstance(statement, ast.Assert) else None
            if not isinstance(test, ast.Compare) or len(test.ops) != 1:
                continue
            comparison = _OPERATORS.get(type(test.ops[0]).__name__)
            left = dotted(test.left)
            head, _, path = left.partition(".")
            right = test.comparators[0]
            value = literal(right)
            if comparison is None or head not in names or not path or (value is None and not _is_none(right)):
                continue
            found.append((path, comparison, value, statement.lineno, ast.get_source_segment(code.text, test) or left))
    return tuple(found)


def _alias(statement: Any, names: set[str]) -> tuple[str, str] | None:
    """`x = config.a.b` or `x = config.a.get("b", default)`: (x, "a.b")."""
    import ast

    from grpo_lint.sources.python_index import dotted

    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    target, value = statement.targets[0], statement.value
    if not isinstance(target, ast.Name):
        return None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get":
        base = dotted(value.func.value)
        key = value.args[0].value if value.args and isinstance(value.args[0], ast.Constant) else None
        head, _, path = base.partition(".")
        if head in names and isinstance(key, str):
            return target.id, f"{path}.{key}" if path else key
        return None
    head, _, path = dotted(value).partition(".")
    return (target.id, path) if head in names and path else None


def _raising_chain(statement: Any, names: set[str], aliases: dict[str, str]) -> tuple[str, tuple, str] | None:
    """`if x == "a": ... elif x == "b": ... else: raise ...` on one config key: (key, the values that pass, text)."""
    import ast

    from grpo_lint.sources.python_index import dotted, literal

    if not isinstance(statement, ast.If):
        return None
    path, allowed, node = None, [], statement
    while isinstance(node, ast.If):
        test = node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
            return None
        left = dotted(test.left)
        key = aliases.get(left)
        if key is None:
            head, _, rest = left.partition(".")
            key = rest if head in names and rest else None
        value = literal(test.comparators[0])
        if key is None or (path is not None and key != path) or value is None:
            return None
        path = key
        allowed.append(value)
        orelse = node.orelse
        if len(orelse) == 1 and isinstance(orelse[0], ast.If):
            node = orelse[0]
            continue
        if len(orelse) == 1 and isinstance(orelse[0], ast.Raise):
            return path, tuple(allowed), f"{path} in {tuple(allowed)!r} (else: raise)"
        return None
    return None


def _is_none(node: Any) -> bool:
    import ast

    return isinstance(node, ast.Constant) and node.value is None


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "in": lambda value, expected: value in expected,
    "not in": lambda value, expected: value not in expected,
}


def assertion_holds(comparison: str, value: Any, expected: Any) -> bool | None:
    """Whether `value <comparison> expected` holds; None when the values cannot be compared."""
    try:
        return bool(_COMPARE[comparison](value, expected))
    except (TypeError, KeyError):
        return None


def _config_mentions(root: Path, relative: str, app: Any) -> bool:
    """Whether the primary config the decorator names is a verl trainer's (an `actor_rollout_ref` section)."""
    if app.config_path is None or app.config_name is None or os.path.isabs(app.config_path):
        return False
    name = app.config_name if app.config_name.endswith(".yaml") else app.config_name + ".yaml"
    path = (root / relative).parent / app.config_path / name
    from grpo_lint.sources.document import ReadProblem
    from grpo_lint.sources.reading import read_file

    data = read_file(path, 1024 * 1024, within=root)
    if isinstance(data, ReadProblem):
        return False
    return b"actor_rollout_ref" in data or b"ppo_trainer" in data or b"ppo_megatron_trainer" in data


def _verl_trainer(modules: Any, relative: str, index: Any) -> str:
    """ "verl's RayPPOTrainer" when the entry constructs verl's own trainer class; "" otherwise. A subclass (an
    agent loop, the fully async trainer) may give the batch keys its own meaning (the fully async trainer runs
    with data.train_batch_size=0), so only verl's own class brings verl's batch arithmetic."""
    for name, _line in index.trainers:
        ref = modules.resolve(relative, name)
        if ref is None or ref.name not in _VERL_TRAINERS:
            continue
        if (ref.module.split(".")[0] == "verl") if ref.file is None else _in_verl(ref.file):
            return "verl's RayPPOTrainer"
    return ""


def _in_verl(file: str) -> bool:
    """Whether a repository file belongs to a verl copy's trainer package (`verl/trainer/ppo/ray_trainer.py`)."""
    return "/verl/trainer/" in f"/{file}"
