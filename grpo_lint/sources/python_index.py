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
from typing import Any, NamedTuple

from grpo_lint.sources.python_syntax import parse

PARSERS = frozenset({"HfArgumentParser", "TrlParser"})
_PARSE_METHODS = frozenset({
    "parse_args_and_config", "parse_args_into_dataclasses", "parse_yaml_file", "parse_json_file", "parse_dict",
})  # fmt: skip


class Field(NamedTuple):
    name: str
    annotation: str
    default: Any  # a literal default, else None


class ClassFacts(NamedTuple):
    name: str
    bases: tuple[str, ...]  # dotted names as written: `trl.GRPOConfig`, `GRPOConfig`
    fields: tuple[Field, ...]
    line: int


class Imported(NamedTuple):
    module: str  # `trl`, `open_r1.trainer`, `` (for `from . import x`)
    name: str | None  # the imported name (`GRPOConfig`); None for `import module`
    level: int  # relative-import dots


class ParserCall(NamedTuple):
    callee: str  # TrlParser, HfArgumentParser
    classes: tuple[str, ...]  # the argument classes as written (dotted)
    line: int
    text: str  # the call as written, shortened


class HydraApp(NamedTuple):
    config_path: str | None
    config_name: str | None
    line: int


class PythonIndex(NamedTuple):
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


def index(text: str, path: str = "<unknown>") -> PythonIndex | None:
    """The facts of one module, or None when it does not parse."""
    try:
        tree = parse(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    visitor = _Visitor(text)
    try:
        visitor.visit(tree)
    except RecursionError:
        return None
    return PythonIndex(
        visitor.imports,
        visitor.classes,
        tuple(visitor.parsers),
        tuple(visitor.trainers),
        visitor.flags,
        visitor.hydra,
        tuple(visitor.stars),
        tuple(visitor.parse_calls),
    )


class _Visitor(ast.NodeVisitor):
    def __init__(self, text: str) -> None:
        self.text = text
        self.imports: dict[str, Imported] = {}
        self.stars: list[Imported] = []
        self.classes: dict[str, ClassFacts] = {}
        self.parsers: list[ParserCall] = []
        self.trainers: list[tuple[str, int]] = []
        self.flags: dict[str, Any] = {}
        self.hydra: HydraApp | None = None
        self._seen: set[str] = set()
        self.parse_calls: list[tuple[str, tuple[tuple[str, Any], ...]]] = []

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.imports[alias.asname] = Imported(alias.name, None, 0)
            else:
                top = alias.name.split(".")[0]
                self.imports.setdefault(top, Imported(top, None, 0))
                if "." in alias.name:
                    self.imports[alias.name] = Imported(alias.name, None, 0)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        for alias in node.names:
            if alias.name == "*":
                self.stars.append(Imported(module, None, node.level))
            else:
                self.imports[alias.asname or alias.name] = Imported(module, alias.name, node.level)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        fields = []
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                annotation = ast.unparse(item.annotation)
                if "ClassVar" in annotation:
                    continue
                fields.append(Field(item.target.id, annotation, _default(item.value)))
        bases = tuple(name for base in node.bases if (name := dotted(base)))
        self.classes.setdefault(node.name, ClassFacts(node.name, bases, tuple(fields), node.lineno))
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        # Trainer classes the module uses: constructed directly, or chosen first (`cls = MyTrainer`)
        if node.id.endswith("Trainer") and isinstance(node.ctx, ast.Load) and node.id not in self._seen:
            self._seen.add(node.id)
            self.trainers.append((node.id, node.lineno))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.endswith("Trainer") and isinstance(node.ctx, ast.Load):
            name = dotted(node)
            if name and name not in self._seen:
                self._seen.add(name)
                self.trainers.append((name, node.lineno))
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and dotted(decorator.func).split(".")[-1] == "main":
                name = dotted(decorator.func)
                if name in ("hydra.main", "main") and any(
                    k.arg in ("config_path", "config_name") for k in decorator.keywords
                ):
                    values = {k.arg: literal(k.value) for k in decorator.keywords}
                    path, config = values.get("config_path"), values.get("config_name")
                    self.hydra = HydraApp(
                        path if isinstance(path, str) else None,
                        config if isinstance(config, str) else None,
                        node.lineno,
                    )
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        name = dotted(node.func)
        last = name.rpartition(".")[2]
        if last in PARSERS and node.args:
            first = node.args[0]
            items = first.elts if isinstance(first, ast.Tuple | ast.List) else [first]
            classes = tuple(dotted(item) for item in items)
            written = ast.get_source_segment(self.text, node) or f"{last}(...)"
            written = " ".join(written.split())
            self.parsers.append(ParserCall(last, classes, node.lineno, written[:160]))
        elif last in _PARSE_METHODS:
            keywords = tuple((k.arg, literal(k.value)) for k in node.keywords if k.arg)
            self.parse_calls.append((last, keywords))
        elif last == "add_argument":
            flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            long = [f for f in flags if f.startswith("--")] or [f for f in flags if f.startswith("-")]
            default = next((literal(k.value) for k in node.keywords if k.arg == "default"), None)
            for flag in long:
                self.flags[flag.lstrip("-").replace("-", "_")] = default
        self.generic_visit(node)


def _default(value: ast.expr | None) -> Any:
    if value is None:
        return None
    if isinstance(value, ast.Call) and dotted(value.func).rpartition(".")[2] == "field":
        for keyword in value.keywords:
            if keyword.arg == "default":
                return literal(keyword.value)
        return None
    return literal(value)
