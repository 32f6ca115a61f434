"""Parse Python as the repository runs it, whatever interpreter grpo-lint itself runs on.

Python 3.12 (PEP 701) lets an f-string hold the quote that delimits it (`f"{row["name"]}"`); Python
3.11's parser rejects that. A file that fails to parse here is parsed again with every f-string
replaced by a plain string of the same shape (the same prefix width, quotes, length and line breaks),
so every position after it is unchanged and nothing grpo-lint reads is lost: no rule reads the inside
of an f-string.
"""

from __future__ import annotations

import ast

_PREFIX = frozenset("rRbBuUfF")


def parse(text: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, retried with f-strings blanked when the first attempt fails; the first error is
    raised when the retry fails too (or nothing was blanked)."""
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError as first:
        blanked = blank_fstrings(text)
        if blanked == text:
            raise
        try:
            return ast.parse(blanked, filename=filename)
        except SyntaxError:
            raise first from None


def blank_fstrings(text: str) -> str:
    """`text` with each f-string's body replaced by spaces (line breaks kept)."""
    out: list[str] = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        if char == "#":
            end = text.find("\n", index)
            end = size if end < 0 else end
            out.append(text[index:end])
            index = end
            continue
        if char in "'\"" or (char in _PREFIX and _string_start(text, index) is not None):
            start = _string_start(text, index)
            if start is None:  # a quote: a string with no prefix
                start = index
            prefix = text[index:start]
            end = _string_end(text, start, "f" in prefix.lower())
            literal = text[index:end]
            if "f" in prefix.lower():
                quote = _quote(text, start)
                body = literal[len(prefix) + len(quote) : len(literal) - len(quote)]
                blank = "".join("\n" if c == "\n" else " " for c in body)
                out.append(" " * len(prefix) + quote + blank + quote)
            else:
                out.append(literal)
            index = end
            continue
        if char.isidentifier() or char.isdigit():
            end = index + 1
            while end < size and (text[end].isalnum() or text[end] == "_"):
                end += 1
            out.append(text[index:end])
            index = end
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _string_start(text: str, index: int) -> int | None:
    """Where the quote of a string literal with a prefix at `index` is (`rb"`, `f'`), else None."""
    if index > 0 and (text[index - 1].isalnum() or text[index - 1] == "_"):
        return None  # inside a name: `elif"` is no prefix
    end = index
    while end < len(text) and end - index < 2 and text[end] in _PREFIX:
        end += 1
    return end if end < len(text) and text[end] in "'\"" else None


def _quote(text: str, start: int) -> str:
    triple = text[start : start + 3]
    return triple if triple in ('"""', "'''") else text[start]


def _string_end(text: str, start: int, formatted: bool) -> int:
    """The index just past the string whose opening quote is at `start`."""
    quote = _quote(text, start)
    index, size = start + len(quote), len(text)
    while index < size:
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if text.startswith(quote, index):
            return index + len(quote)
        if char == "\n" and len(quote) == 1:
            return index  # an unterminated string: stop at the line's end
        if formatted and char == "{":
            if text.startswith("{{", index):
                index += 2
                continue
            index = _expression_end(text, index + 1)
            continue
        index += 1
    return size


def _expression_end(text: str, index: int) -> int:
    """The index just past the `}` that closes a replacement field opened before `index`; strings inside
    (any quotes, nested f-strings) and brackets are skipped."""
    depth, size = 0, len(text)
    while index < size:
        char = text[index]
        if char in "'\"" or (char in _PREFIX and _string_start(text, index) is not None):
            start = _string_start(text, index)
            start = index if start is None else start
            index = _string_end(text, start, "f" in text[index:start].lower())
            continue
        if char in "([{":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "}":
            if depth == 0:
                return index + 1
            depth -= 1
        index += 1
    return size
