"""Mechanical fixes the rules propose: rename a key, rewrite a value.

Each builder returns a tuple of `Fix` (empty when the change cannot be written as one edit of the
text the user wrote); `grpo_lint.edits.resolve` places it on the file's text afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from grpo_lint.diagnostics import Edit, Fix
from grpo_lint.patterns import lazy
from grpo_lint.sources.document import Entry

if TYPE_CHECKING:
    from grpo_lint.plan import RunPlan

# A value that reads the same, unquoted, in YAML, JSON strings, Hydra overrides, shell words and
# Python strings: nothing that needs quoting or escaping anywhere.
_PLAIN = lazy(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_NUMBER = lazy(r"-?\d+(\.\d+)?")
_PREFIXES = "-+~"


def rename(entry: Entry, new_key: str, applicability: str = "safe") -> tuple[Fix, ...]:
    """Rename the key of `entry` to `new_key`. Where both have the same parent (`a.b.x` -> `a.b.y`)
    only the last part changes, which works for nested YAML keys as for dotted overrides; a key that
    moves to another parent is renamed only where the text holds the whole dotted name."""
    old, new = entry.key.lstrip(_PREFIXES), new_key.lstrip(_PREFIXES)
    if not old or not new or old == new or not _PLAIN.fullmatch(new):
        return ()
    old_parent, _, old_leaf = old.rpartition(".")
    new_parent, _, new_leaf = new.rpartition(".")
    edit = Edit(entry.key_span, old_leaf, new_leaf) if old_parent == new_parent else Edit(entry.key_span, old, new)
    return (Fix(f"rename `{old}` to `{new}`", (edit,), applicability),)


def drop_prefix(entry: Entry, prefix: str) -> tuple[Fix, ...]:
    """`+key=value` -> `key=value` (a Hydra override of a key the config already has)."""
    written = entry.key
    if not written.startswith(prefix) or written.startswith(prefix * 2):
        return ()
    bare = written[len(prefix) :]
    return (Fix(f"write `{bare}=` instead of `{written}=`", (Edit(entry.key_span, written, bare),)),)


def literal(value: object) -> str | None:
    """How a value is written unquoted, or None when it cannot be written the same way everywhere."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)  # `1e-05`, `inf` and `nan` are not written alike everywhere
        return text if _NUMBER.fullmatch(text) else None
    if isinstance(value, str) and (_PLAIN.fullmatch(value) or _NUMBER.fullmatch(value)):
        return value  # flags and overrides keep their text: `--per_device_train_batch_size=3` holds "3"
    return None


def set_value(entry: Entry, new: object, applicability: str, title: str | None = None) -> tuple[Fix, ...]:
    """Rewrite the value of `entry` (as it is written: a quoted string keeps its quotes)."""
    old_text, new_text = literal(entry.value), literal(new)
    if old_text is None or new_text is None or old_text == new_text:
        return ()
    key = entry.key.lstrip(_PREFIXES)
    title = title or f"set `{key}` to {new_text}"
    return (Fix(title, (Edit(entry.value_span, old_text, new_text),), applicability),)


def set_setting(plan: RunPlan, name: str, values: Iterable[int], near: int | None = None) -> tuple[Fix, ...]:
    """Unsafe fixes that set the neutral setting `name` to each of `values` in turn, the one nearest
    `near` first, where the file writes it; nothing when it is a default (a fix never adds a key)."""
    if near is not None:
        values = sorted(values, key=lambda v: (abs(v - near), v))
    setting = plan.get(name)
    # The entry that set it (the setting keeps the key as shown, `--x` for a flag the entries hold as `x`).
    entry = next((e for e in plan.document.entries.values() if setting.span and e.key_span == setting.span), None)
    if entry is None:
        return ()
    return tuple(fix for value in values for fix in set_value(entry, value, "unsafe"))
