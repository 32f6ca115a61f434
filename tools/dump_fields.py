"""Regenerate the field lists under grpo_lint/data/ from an installed framework.

Run it in a throw-away virtualenv that has the framework installed, never in the
linter's own environment:

    python tools/dump_fields.py transformers > grpo_lint/data/training_arguments.json
    python tools/dump_fields.py swift > grpo_lint/data/swift_arguments.json

Only names, value kinds and defaults are recorded: facts about the framework's
interface, no code of it.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from typing import Any

_SCALARS = {int: "int", float: "float", bool: "bool", str: "str"}


def kind_of(annotation: Any) -> str:
    """Map a dataclass annotation onto the linter's small kind vocabulary."""
    if isinstance(annotation, str):
        text = annotation.replace(" ", "")
        optional = "None" in text or "Optional" in text
        for name in ("int", "float", "bool", "str"):
            if text.startswith(name) or text.startswith(f"Optional[{name}"):
                return name + ("?" if optional else "")
        if "List" in text or "list" in text:
            return "list" + ("?" if optional else "")
        if "Dict" in text or "dict" in text:
            return "dict" + ("?" if optional else "")
        return "any"
    origin = typing.get_origin(annotation)
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    if origin is typing.Literal:
        return "str"
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) != len(typing.get_args(annotation))
        kinds = sorted({kind_of(a).rstrip("?") for a in args})
        base = kinds[0] if len(kinds) == 1 else "|".join(kinds)
        if base not in {"int", "float", "bool", "str", "list", "dict", "any"} and "any" in kinds:
            base = "any"
        return base + ("?" if optional else "")
    if origin in (list, tuple) or annotation in (list, tuple):
        return "list"
    if origin is dict or annotation is dict:
        return "dict"
    return "any"


def default_of(field: dataclasses.Field) -> Any:
    if field.default is not dataclasses.MISSING:
        value = field.default
    elif field.default_factory is not dataclasses.MISSING:
        value = field.default_factory()
    else:
        return None
    try:
        json.dumps(value)
    except TypeError:
        return repr(value)
    return value


def dump(classes: list[type]) -> dict[str, list[Any]]:
    fields: dict[str, list[Any]] = {}
    for cls in classes:
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            if field.name.startswith("_") or not field.init:
                continue
            fields[field.name] = [kind_of(hints.get(field.name, field.type)), default_of(field)]
    return dict(sorted(fields.items()))


def main() -> None:
    which = sys.argv[1]
    if which == "transformers":
        from transformers import TrainingArguments

        classes: list[type] = [TrainingArguments]
    elif which == "trl":
        from trl import GRPOConfig, ModelConfig
        from trl.scripts.grpo import GRPOScriptArguments

        classes = [GRPOScriptArguments, GRPOConfig, ModelConfig]
    elif which == "swift":
        from swift.arguments import RLHFArguments

        classes = [RLHFArguments]
    else:
        raise SystemExit(f"unknown framework {which!r}")
    json.dump(dump(classes), sys.stdout, indent=0, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
