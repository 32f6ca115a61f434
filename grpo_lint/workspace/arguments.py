"""Arguments a repository defines for itself, read with `ast` only (nothing is imported or run).

- dataclasses that extend TRL's argument classes (`GRPOConfig`, `ScriptArguments`, `ModelConfig`,
  `TrainingArguments`, ...), and the classes named in `HfArgumentParser((...))` / `TrlParser((...))`;
- `argparse` `add_argument("--flag", ...)` calls of a script that a launch runs.

Their fields are keys the run accepts, so they are never reported as unknown.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any, NamedTuple

from grpo_lint.sources.document import ReadProblem
from grpo_lint.sources.reading import read_file

# Argument classes of TRL / transformers that a repository's own dataclass may extend.
BASES = frozenset({
    "GRPOConfig", "ScriptArguments", "GRPOScriptArguments", "ModelConfig", "TrainingArguments",
    "Seq2SeqTrainingArguments", "TrlParser", "SFTConfig",
})  # fmt: skip
_PARSERS = frozenset({"HfArgumentParser", "TrlParser"})
# Read with ast only when the bytes show a class with a base or a parser call: most files never are.
_RELEVANT = re.compile(
    rb"class\s+\w+\s*\([^)]*(?:GRPOConfig|Arguments|ModelConfig|SFTConfig)|(?:HfArgumentParser|TrlParser)\s*\("
)
_MAX_SOURCE = 2 * 1024 * 1024


class Field(NamedTuple):
    name: str
    annotation: str
    default: Any  # a literal default, else None


class Defined(NamedTuple):
    """A field the repository defines, and where."""

    field: Field
    origin: str  # `src/open_r1/configs.py: GRPOConfig`


class RepoArguments:
    """Fields of the repository's own argument classes, by name."""

    def __init__(self, fields: dict[str, Defined] | None = None) -> None:
        self.fields = fields or {}

    def names(self) -> frozenset[str]:
        return frozenset(self.fields)

    def origins(self) -> list[str]:
        return sorted({d.origin for d in self.fields.values()})


def read_arguments(root: Path, files: list[str], skip: tuple[str, ...] = ()) -> RepoArguments:
    classes: dict[str, tuple[ast.ClassDef, str]] = {}
    parsed_by: set[str] = set()
    for name in files:
        if not name.endswith(".py") or name.startswith(skip):
            continue
        tree = _parse_if_relevant(root / name, root)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, (node, name))
            elif isinstance(node, ast.Call) and _callee(node.func) in _PARSERS and node.args:
                first = node.args[0]
                items = first.elts if isinstance(first, ast.Tuple | ast.List) else [first]
                parsed_by.update(n for item in items if (n := _callee(item)))
    wanted = {n for n, (node, _) in classes.items() if _extends(node, classes, set())} | (parsed_by & set(classes))
    fields: dict[str, Defined] = {}
    for class_name in sorted(wanted):
        node, file_name = classes[class_name]
        for field in class_fields(node):
            fields.setdefault(field.name, Defined(field, f"{file_name}: {class_name}"))
    return RepoArguments(fields)


def _parse_if_relevant(path: Path, root: Path) -> ast.Module | None:
    data = read_file(path, _MAX_SOURCE, within=root)
    if isinstance(data, ReadProblem):
        return None
    if _RELEVANT.search(data) is None:
        return None
    try:
        return ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _callee(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _extends(node: ast.ClassDef, classes: dict[str, tuple[ast.ClassDef, str]], seen: set[str]) -> bool:
    """Whether the class extends one of TRL's argument classes, directly or through the repository's own."""
    for base in node.bases:
        name = _callee(base)
        if name is None:
            continue
        if name in BASES:
            return True
        if name in classes and name not in seen and name != node.name:
            seen.add(name)
            if _extends(classes[name][0], classes, seen):
                return True
    return False


def class_fields(node: ast.ClassDef) -> list[Field]:
    """Annotated attributes of a class body (dataclass fields), with literal defaults."""
    fields = []
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            if "ClassVar" in ast.unparse(item.annotation):
                continue
            fields.append(Field(item.target.id, ast.unparse(item.annotation), _default(item.value)))
    return fields


def _default(value: ast.expr | None) -> Any:
    if value is None:
        return None
    if isinstance(value, ast.Call) and _callee(value.func) == "field":
        for keyword in value.keywords:
            if keyword.arg == "default":
                return _literal(keyword.value)
        return None
    return _literal(value)


def _literal(value: ast.expr) -> Any:
    try:
        return ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def argparse_arguments(text: str) -> dict[str, Any]:
    """`add_argument("--name", default=X)` calls: canonical name (dashes as underscores) -> default."""
    if "add_argument" not in text:
        return {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, Any] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _callee(node.func) == "add_argument"):
            continue
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        long = [f for f in flags if f.startswith("--")] or [f for f in flags if f.startswith("-")]
        default = next((_literal(k.value) for k in node.keywords if k.arg == "default"), None)
        for flag in long:
            found[flag.lstrip("-").replace("-", "_")] = default
    return found


def script_arguments(path: Path) -> dict[str, Any] | None:
    """The argparse flags a script defines, or None when it defines none (or cannot be read)."""
    data = read_file(path, _MAX_SOURCE)
    if isinstance(data, ReadProblem):
        return None
    return argparse_arguments(data.decode("utf-8", "replace")) or None
