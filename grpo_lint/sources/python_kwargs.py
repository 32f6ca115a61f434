"""Keyword arguments a script collects in a dict before the call: `kw = dict(num_generations=8, ...)` (or a dict
literal with string keys), `kw["beta"] = 0.04`, then `GRPOConfig(**kw)`.

The dict's items are the call's keywords, each at its place in the dict. A dict changed in ways not read here
(`kw.update(...)`, `kw.pop(...)`, `del kw[k]`, `kw |= ...`, given to another function) may hold anything: the
call then spreads an unknown mapping, and what it does not write is not known.
"""

from __future__ import annotations

import ast

# A collected dict: (key, the value written, the node whose place the key has); None: changed in a way not read.
Items = list[tuple[str, ast.expr | None, ast.AST]] | None


def collected(value: ast.expr) -> Items:
    """The items of `dict(a=1, ...)` or `{"a": 1, ...}` (string keys, no `**`), or None for anything else."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        if value.args or any(k.arg is None for k in value.keywords):
            return None
        return [(k.arg, k.value, k) for k in value.keywords if k.arg is not None]
    if isinstance(value, ast.Dict):
        items: list[tuple[str, ast.expr | None, ast.AST]] = []
        for key, item in zip(value.keys, value.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None  # `**other` or a computed key
            items.append((key.value, item, key))
        return items
    return None


_MUTATORS = frozenset({"update", "pop", "popitem", "setdefault", "clear"})


def changed_by_call(node: ast.Call, names: dict[str, Items]) -> list[str]:
    """The collected dicts a call may change: `kw.update(...)`, `helper(kw)`; `GRPOConfig(**kw)` reads only."""
    touched: list[str] = []
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in _MUTATORS:
        touched.append(func.value.id)
    for argument in (*node.args, *(k.value for k in node.keywords if k.arg is not None)):
        if isinstance(argument, ast.Name) and argument.id in names:
            touched.append(argument.id)
    return [name for name in touched if name in names]
