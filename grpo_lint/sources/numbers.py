"""Numbers as written, bounded: a number with more digits than any config needs is kept as text.

Python refuses to convert a decimal string of more than 4,300 digits, and float arithmetic
overflows past 308; a batch size of 10**40 would also make every "which sizes would work" search
pointless. Readers call `integer` instead of `int`, and the value check reports a `TooLarge` value
as out of range (GRPO003) instead of doing arithmetic with it.
"""

from __future__ import annotations

from typing import Any

from grpo_lint.limits import MAX_DIGITS

_LIMIT = 10**MAX_DIGITS


class TooLarge(str):
    """The text of an integer with more than MAX_DIGITS digits."""

    __slots__ = ()

    @property
    def digits(self) -> int:
        """Digits as written, in the literal's own base (`0x` and `_` not counted)."""
        body = self.strip().lstrip("+-")
        if body[:2].lower() in ("0x", "0o", "0b"):
            body = body[2:]
        return sum(c.isalnum() for c in body)


def integer(text: str, base: int = 10) -> int | TooLarge:
    """`int(text, base)` for a number of at most MAX_DIGITS digits, else the text as TooLarge.
    Raises ValueError, as int does, when the text is not a number."""
    digits = sum(c.isalnum() for c in text)
    if digits > MAX_DIGITS + 2:  # room for a 0x / 0o prefix
        if not text.strip().lstrip("+-").replace("_", "").isalnum():
            raise ValueError(f"invalid literal for int(): {text[:20]!r}")
        return TooLarge(text)
    value = int(text, base)
    return TooLarge(text) if abs(value) >= _LIMIT else value


def out_of_range(value: Any) -> bool:
    """A value too large to be a number of a config: TooLarge text, or an int past the bound."""
    if isinstance(value, TooLarge):
        return True
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _LIMIT


def bounded(value: Any, written: str | None = None) -> Any:
    """`value` (a literal read from code: an int, or lists, tuples and dicts of them) with every integer
    past the bound kept as TooLarge text: `written` when the value is that integer as written, else its
    hexadecimal form, which Python prints at any size (a decimal one past 4,300 digits raises)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) < _LIMIT:
            return value
        return TooLarge(written if written is not None else f"{value:#x}")
    if isinstance(value, list | tuple):
        items = [bounded(item) for item in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {bounded(k): bounded(v) for k, v in value.items()}
    return value
