"""Arguments a repository defines for itself, read with `ast` only (nothing is imported or run).

- dataclasses that extend TRL's or transformers' argument classes (`GRPOConfig`, `ScriptArguments`,
  `ModelConfig`, `TrainingArguments`, ...), directly or through the repository's own classes in other
  modules, and the classes named in `HfArgumentParser((...))` / `TrlParser((...))`;
- `argparse` `add_argument("--flag", ...)` calls of a script that a launch runs.

The exact key set of one launched script comes from grpo_lint.workspace.modules (`Modules.program`);
the union here is what any script of the repository may accept, for configs no launch names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grpo_lint.limits import MAX_PYTHON_BYTES
from grpo_lint.patterns import lazy
from grpo_lint.records import Record
from grpo_lint.sources.document import ReadProblem
from grpo_lint.sources.python_code import index
from grpo_lint.sources.python_index import Field
from grpo_lint.sources.reading import read_file
from grpo_lint.workspace.modules import ClassRef, Modules

__all__ = ["Field", "RepoArguments", "argparse_arguments", "class_fields", "read_arguments", "script_arguments"]

# Read only when the bytes show a class with such a base or a parser call: most files never are. (Two searches: one
# that begins with a word is a fast scan for it, an alternation at the front is tried at every position.)
_ARGUMENT_CLASS = lazy(rb"class\s+\w+\s*\([^)]*(?:Config|Arguments)")
_PARSER_CALL = lazy(rb"(?:HfArgumentParser|TrlParser)\s*\(")
_ARGUMENT_BASES = frozenset({
    "GRPOConfig", "ScriptArguments", "GRPOScriptArguments", "ModelConfig", "TrainingArguments",
    "Seq2SeqTrainingArguments", "SFTConfig",
})  # fmt: skip


class Defined(Record):
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


def read_arguments(modules: Modules, skip: tuple[str, ...] = ()) -> RepoArguments:
    """Every field of every argument class of the repository (classes keyed by their module, so that two
    scripts' `GRPOScriptArguments` are both read)."""
    fields: dict[str, Defined] = {}
    for name in modules.files:
        if name.startswith(skip):
            continue
        data = modules.bytes_of(name)  # (read once for every question of the run)
        if data is None or not _relevant(data):
            continue
        facts = modules.index(name)
        if facts is None:
            continue
        wanted = {c for c in facts.classes if _argument_class(modules, ClassRef(name, "", c))}
        for call in facts.parsers:
            for written in call.classes:
                ref = modules.resolve(name, written)
                if ref is not None and ref.file is not None:
                    _add(modules, ref, fields)
        for class_name in sorted(wanted):
            _add(modules, ClassRef(name, "", class_name), fields)
    return RepoArguments(fields)


def _relevant(data: bytes) -> bool:
    if _ARGUMENT_CLASS.search(data) is not None:
        return True
    return (b"HfArgumentParser" in data or b"TrlParser" in data) and _PARSER_CALL.search(data) is not None


def _argument_class(modules: Modules, ref: ClassRef) -> bool:
    return modules.extends(ref, "trl", _ARGUMENT_BASES) or modules.extends(ref, "transformers", _ARGUMENT_BASES)


def _add(modules: Modules, ref: ClassRef, fields: dict[str, Defined], depth: int = 0) -> None:
    """The fields of a repository class and of its repository bases."""
    facts = modules.index(ref.file) if ref.file else None
    if facts is None or ref.name not in facts.classes or depth > 12:
        return
    for field in facts.classes[ref.name].fields:
        fields.setdefault(field.name, Defined(field, f"{ref.file}: {ref.name}"))
    for base in facts.classes[ref.name].bases:
        found = modules.resolve(ref.file, base)  # type: ignore[arg-type]
        if found is not None and found.file is not None:
            _add(modules, found, fields, depth + 1)


def class_fields(node: Any) -> list[Field]:
    """Annotated attributes of a class body (dataclass fields), with literal defaults."""
    import ast

    from grpo_lint.sources.python_index import default_of

    found = []
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            annotation = ast.unparse(item.annotation)
            if "ClassVar" in annotation:
                continue
            found.append(Field(item.target.id, annotation, default_of(item.value)))
    return found


def argparse_arguments(text: str) -> dict[str, Any]:
    """`add_argument("--name", default=X)` calls: canonical name (dashes as underscores) -> default."""
    if "add_argument" not in text:
        return {}
    facts = index(text)
    return dict(facts.flags) if facts is not None else {}


def script_arguments(path: Path) -> dict[str, Any] | None:
    """The argparse flags a script defines, or None when it defines none (or cannot be read)."""
    data = read_file(path, MAX_PYTHON_BYTES)
    if isinstance(data, ReadProblem):
        return None
    return argparse_arguments(data.decode("utf-8", "replace")) or None
