"""What a Python module declares, gathered in one pass over its syntax tree (never imported or run).

The facts the repository model needs about a module: what it imports (and under which names), the
classes it defines (bases as written, annotated fields with literal defaults), the argument parsers it
builds (`TrlParser((ScriptArguments, GRPOConfig, ModelConfig))`, `HfArgumentParser(...)`), the trainers it
constructs (`GRPOTrainer(...)`), the `argparse` flags it defines, and the Hydra application it is
(`@hydra.main(config_path=..., config_name=...)`). grpo_lint.workspace.modules resolves names across the
repository's modules with them.
"""

from __future__ import annotations

import ast
from typing import Any

from grpo_lint.records import Record

NOT_LITERAL = "(not a literal)"  # an argparse default that is an expression: its value is not known

PARSERS = frozenset({"HfArgumentParser", "TrlParser"})


class Field(Record):
    name: str
    annotation: str
    default: Any  # a literal default, else None
    required: bool = False  # no default at all (a bare annotation, or `field(...)` without default/default_factory)


class ClassFacts(Record):
    name: str
    bases: tuple[str, ...]  # dotted names as written: `trl.GRPOConfig`, `GRPOConfig`
    fields: tuple[Field, ...]
    line: int
    # The attributes its own `__post_init__` assigns (`self.num_generations = 2`) with the line of the method: the
    # values the dataclass's checks see are not the ones written in the config.
    post_init_writes: tuple[str, ...] = ()
    post_init_line: int = 0


class Imported(Record):
    module: str  # `trl`, `open_r1.trainer`, `` (for `from . import x`)
    name: str | None  # the imported name (`GRPOConfig`); None for `import module`
    level: int  # relative-import dots


class ParserCall(Record):
    callee: str  # TrlParser, HfArgumentParser
    classes: tuple[str, ...]  # the argument classes as written (dotted)
    line: int
    text: str  # the call as written, shortened


class HydraApp(Record):
    config_path: str | None
    config_name: str | None
    line: int


class PythonIndex(Record):
    imports: dict[str, Imported]  # local name -> what it is
    classes: dict[str, ClassFacts]
    parsers: tuple[ParserCall, ...]
    trainers: tuple[tuple[str, int], ...]  # constructed trainer classes (dotted, as written) and lines
    flags: dict[str, Any]  # argparse flags defined (canonical name -> literal default)
    hydra: HydraApp | None
    star_imports: tuple[Imported, ...]  # `from x import *`
    # How the parsers are asked for their result: `parse_args_and_config`, `parse_args_into_dataclasses`,
    # `parse_yaml_file`, ... with their literal keyword arguments (`return_remaining_strings=True`).
    parse_calls: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()

    def imports_module(self, package: str) -> bool:
        """Whether the module imports `package` or a module below it."""
        everything = (*self.imports.values(), *self.star_imports)
        return any(i.level == 0 and (i.module == package or i.module.startswith(package + ".")) for i in everything)


def dotted(node: ast.expr) -> str:
    """`a.b.c` for a Name/Attribute chain (subscripts looked through: `Sampler[int]`), else ''."""
    parts: list[str] = []
    while True:
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Name):
            parts.append(node.id)
            return ".".join(reversed(parts))
        elif isinstance(node, ast.Call):
            node = node.func  # `a().b`: the chain through the call
            parts.clear()
        else:
            return ""


def literal(value: ast.expr | None) -> Any:
    if value is None:
        return None
    try:
        return ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def required(value: ast.expr | None) -> bool:
    """Whether a dataclass field has no default: a bare annotation, or `field(...)` with no default or factory
    (HfArgumentParser then makes its flag required)."""
    if value is None:
        return True
    if isinstance(value, ast.Call) and dotted(value.func).rpartition(".")[2] == "field":
        return not any(k.arg in ("default", "default_factory") for k in value.keywords)
    return False


def default_of(value: ast.expr | None) -> Any:
    """A dataclass field's literal default (`x: int = 3`, `field(default=3)`), else None."""
    if value is None:
        return None
    if isinstance(value, ast.Call) and dotted(value.func).rpartition(".")[2] == "field":
        for keyword in value.keywords:
            if keyword.arg == "default":
                return literal(keyword.value)
        return None
    return literal(value)


def post_init_writes(node: ast.ClassDef) -> tuple[tuple[str, ...], int]:
    """The attributes a class's `__post_init__` assigns on `self` (anywhere in its body), and the method's line."""
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__post_init__":
            written: list[str] = []
            for inner in ast.walk(item):
                targets: list[ast.expr] = []
                if isinstance(inner, ast.Assign):
                    targets = inner.targets
                elif isinstance(inner, (ast.AugAssign, ast.AnnAssign)):
                    targets = [inner.target]
                for target in targets:
                    for leaf in ast.walk(target):
                        if (
                            isinstance(leaf, ast.Attribute)
                            and isinstance(leaf.value, ast.Name)
                            and leaf.value.id == "self"
                            and leaf.attr not in written
                        ):
                            written.append(leaf.attr)
            return tuple(written), item.lineno
    return (), 0
