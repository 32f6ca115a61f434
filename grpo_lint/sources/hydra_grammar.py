"""Whether Hydra can parse a command-line override, following Hydra 1.3's override grammar.

verl hands every word after `python3 -m verl.trainer.main_ppo` to Hydra, which stops the run with
`OverrideParseException` when a word does not fit the grammar: a stray `}`, a placeholder such as
`<path_to_model>`, an unbalanced bracket. This recogniser follows the token rules and the productions
of hydra-core 1.3 (`hydra/grammar/OverrideLexer.g4`, `OverrideParser.g4`); tests/test_hydra_grammar.py
checks it against hydra-core's own parser on every override of the verl snapshot.

The lexer takes the longest match at each position, the first rule winning a tie, as ANTLR does.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from grpo_lint.patterns import lazy
from grpo_lint.records import Record

_INT_UNSIGNED = r"(?:0|[1-9](?:_?[0-9])*)"
_POINT_FLOAT = rf"(?:{_INT_UNSIGNED}\.|{_INT_UNSIGNED}?\.[0-9](?:_?[0-9])*)"
_EXPONENT_FLOAT = rf"(?:(?:{_POINT_FLOAT}|{_INT_UNSIGNED})[eE][+-]?[0-9](?:_?[0-9])*)"
_KEY_SPECIAL = r"[a-zA-Z_$][a-zA-Z0-9_\-$]*"

# Value-mode tokens, in the order of the grammar (the first one wins a tie of equal length).
_VALUE_TOKENS = [
    (name, re.compile(pattern))
    for name, pattern in (
        ("POPEN", r"[ \t]*\([ \t]*"),
        ("COMMA", r"[ \t]*,[ \t]*"),
        ("PCLOSE", r"[ \t]*\)"),
        ("BRACKET_OPEN", r"\[[ \t]*"),
        ("BRACKET_CLOSE", r"[ \t]*\]"),
        ("BRACE_OPEN", r"\{[ \t]*"),
        ("BRACE_CLOSE", r"[ \t]*\}"),
        ("COLON", r"[ \t]*:[ \t]*"),
        ("EQUAL", r"[ \t]*=[ \t]*"),
        ("FLOAT", rf"[+-]?(?:{_EXPONENT_FLOAT}|{_POINT_FLOAT}|[Ii][Nn][Ff]|[Nn][Aa][Nn])"),
        ("INT", rf"[+-]?{_INT_UNSIGNED}"),
        ("BOOL", r"[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]"),
        ("NULL", r"[Nn][Uu][Ll][Ll]"),
        ("UNQUOTED_CHAR", r"[/\-\\+.$%*@?|]"),
        ("ID", r"[a-zA-Z_][a-zA-Z0-9_\-]*"),
        ("ESC", r"(?:\\\\|\\\(|\\\)|\\\[|\\\]|\\\{|\\\}|\\:|\\=|\\,|\\ |\\\t)+"),
        ("WS", r"[ \t]+"),
        ("QUOTED_VALUE", r"\"(?:(?:\\\\)*|.*?[^\\](?:\\\\)*)\"|'(?:(?:\\\\)*|.*?[^\\](?:\\\\)*)'"),
        ("INTERPOLATION", r"\$\{[^}]+\}"),
    )
]
_PRIMITIVE = frozenset({"ID", "NULL", "INT", "FLOAT", "BOOL", "INTERPOLATION", "UNQUOTED_CHAR", "COLON", "ESC", "WS"})
_DICT_KEY = frozenset({"ID", "NULL", "INT", "FLOAT", "BOOL", "UNQUOTED_CHAR", "ESC", "WS"})
_SEGMENT = rf"(?:{_KEY_SPECIAL}|{_INT_UNSIGNED})"
_PACKAGE = rf"(?:{_KEY_SPECIAL}|{_SEGMENT}(?:\.{_SEGMENT})+)?"  # a name, a dotted path, or nothing
_PLAIN_VALUE = lazy(r"[A-Za-z0-9_./\-]+")
_KEY = lazy(rf"^(?:~|\+\+?)?(?:{_PACKAGE}|[a-zA-Z_][a-zA-Z0-9_\-]*(?:/[a-zA-Z_][a-zA-Z0-9_\-]*)+)(?:@{_PACKAGE})?$")
# The functions Hydra 1.3 evaluates while parsing; any other name is an "Error parsing override".
FUNCTIONS = frozenset({"bool", "choice", "float", "glob", "int", "interval", "range", "shuffle", "sort", "str", "tag"})
_MAX_DEPTH = 64  # nesting of [ { ( in one value; deeper is refused rather than recursed into
# Said of a value deeper than _MAX_DEPTH: a bound of grpo-lint, not a parse error (Hydra 1.3 parses
# a few hundred levels before its own RecursionError).
TOO_DEEP = f"the value nests deeper than {_MAX_DEPTH} levels, which grpo-lint does not check"


class Token(Record):
    kind: str
    text: str
    start: int  # offset in the value


class GrammarError(Exception):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def _tokens(value: str) -> list[Token]:
    tokens: list[Token] = []
    position = 0
    while position < len(value):
        best: tuple[int, str] | None = None
        for name, pattern in _VALUE_TOKENS:
            match = pattern.match(value, position)
            if match and match.end() > position and (best is None or match.end() > best[0]):
                best = (match.end(), name)
        if best is None:
            raise GrammarError(f"Hydra does not accept {value[position]!r} here", position)
        tokens.append(Token(best[1], value[position : best[0]], position))
        position = best[0]
    return tokens


class _Parser:
    def __init__(self, tokens: list[Token], length: int) -> None:
        self.tokens = tokens
        self.i = 0
        self.length = length
        self.depth = 0

    def peek(self, offset: int = 0) -> str | None:
        index = self.i + offset
        return self.tokens[index].kind if index < len(self.tokens) else None

    def fail(self, expected: str) -> GrammarError:
        if self.i < len(self.tokens):
            token = self.tokens[self.i]
            return GrammarError(f"Hydra does not expect {token.text.strip()!r} here ({expected})", token.start)
        return GrammarError(f"the value ends too early ({expected})", self.length)

    def expect(self, kind: str, expected: str) -> None:
        if self.peek() != kind:
            raise self.fail(expected)
        self.i += 1

    def value(self) -> None:
        self.element()
        while self.peek() == "COMMA":
            self.i += 1
            self.element()
        if self.i < len(self.tokens):
            raise self.fail("a value ends here")

    def element(self) -> None:
        kind = self.peek()
        if kind == "ID" and self.peek(1) == "POPEN":
            self.function()
        elif kind == "BRACKET_OPEN":
            self.sequence(1, self.element, "BRACKET_CLOSE", "`]` or `,`")
        elif kind == "BRACE_OPEN":
            self.sequence(1, self.pair, "BRACE_CLOSE", "`}` or `,`")
        elif kind == "QUOTED_VALUE":
            self.i += 1
        elif kind in _PRIMITIVE:
            while self.peek() in _PRIMITIVE:
                self.i += 1
        else:
            raise self.fail("a value")

    def function(self) -> None:
        name = self.tokens[self.i]
        if name.text not in FUNCTIONS:
            raise GrammarError(f"Hydra has no function {name.text}()", name.start)
        self.sequence(2, self.argument, "PCLOSE", "`)` or `,`")  # after ID POPEN

    def sequence(self, opening: int, item: Callable[[], None], close: str, expected: str) -> None:
        """`[a, b]`, `{k: v, ...}`, `f(x, y=1)`: items separated by commas, possibly none, one level deeper."""
        self.i += opening
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise GrammarError(TOO_DEEP, self.tokens[self.i - 1].start)
        if self.peek() != close:
            item()
            while self.peek() == "COMMA":
                self.i += 1
                item()
        self.expect(close, expected)
        self.depth -= 1

    def argument(self) -> None:
        if self.peek() == "ID" and self.peek(1) == "EQUAL":
            self.i += 2
        self.element()

    def pair(self) -> None:
        if self.peek() not in _DICT_KEY:
            raise self.fail("a key")
        while self.peek() in _DICT_KEY:
            self.i += 1
        self.expect("COLON", "`:` after a key")
        self.element()


def override_error(word: str) -> tuple[str, int] | None:
    """Why Hydra cannot parse `word` as an override, with the offset in the word; None if it can."""
    key, equals, value = word.partition("=")
    if not equals:
        if word.startswith("~") and _KEY.match(word):
            return None
        return ("an override needs `key=value` (or `~key` to delete one)", 0)
    if not _KEY.match(key):
        return (f"{key!r} is not a key Hydra accepts", 0)
    start = len(key) + 1
    value = value.lstrip(" \t")
    start += len(word) - start - len(value)
    if not value or _PLAIN_VALUE.fullmatch(value):
        return None  # letters, digits and `_ . / -` in any order: always a primitive (most overrides)
    try:
        tokens = _tokens(value)
        _Parser(tokens, len(value)).value()
    except GrammarError as error:
        return (error.message, start + error.offset)
    return None
