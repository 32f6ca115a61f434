"""Bash launch scripts as commands of words with positions, variables resolved where they are known.

This is not a shell: it reads what a launch script says, statically. It understands `\\`
continuations, quotes, comments, `VAR=value cmd` prefixes, `export`, `;`/`&&`/`||`/`|`/`&`,
redirections, here-documents, and `$VAR` / `${VAR}` / `${VAR:-default}` for variables set earlier
in the script. What cannot be known (`$(...)`, positional arguments, variables from the caller's
environment) is kept as written and marked unknown, so a rule can say so instead of guessing.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from grpo_lint.diagnostics import Span

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)$", re.S)
_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "{", "time", "nohup", "exec"})
_ENDS = frozenset({"fi", "done", "esac", "}"})


class Word(NamedTuple):
    text: str  # after quote removal and the expansions that are known
    span: Span
    unknown: tuple[str, ...] = ()  # what could not be expanded: variable names, "$(...)", "$1", ...

    @property
    def known(self) -> bool:
        return not self.unknown


class Command(NamedTuple):
    words: tuple[Word, ...]
    env: dict[str, Word]  # exported variables of the script plus this command's VAR=value prefixes
    prefixes: tuple[tuple[str, Word], ...]  # the VAR=value words written before the command
    line: int
    background: bool = False  # ended by `&`: the script goes on while it runs


class CutOff(NamedTuple):
    """A comment that ended a continued command: the words after it no longer belong to it (GRPO501)."""

    comment: Span
    command_line: int  # first line of the command that was cut
    lost: tuple[Word, ...]


class Script(NamedTuple):
    path: str
    text: str
    commands: list[Command]
    cutoffs: list[CutOff]


def _split_fields(parts: list[str], split_at: list[int]) -> list[str]:
    """The words bash makes of one word: the values of unquoted expansions are split at blanks
    (`$OVERRIDES` holding `a=1 b=2` passes two arguments); quoted text never is."""
    if not any(any(c in " \t\n" for c in parts[i]) for i in split_at):
        return ["".join(parts)]
    fields: list[str] = []
    current: list[str] = []
    pending = False  # whether `current` holds a field (an empty quoted part still counts)
    splittable = set(split_at)
    for index, part in enumerate(parts):
        if index not in splittable:
            current.append(part)
            pending = True
            continue
        pieces = re.split(r"[ \t\n]+", part)
        for number, piece in enumerate(pieces):
            if number > 0 and (pending or current):
                fields.append("".join(current))
                current, pending = [], False
            if piece:
                current.append(piece)
                pending = True
    if pending or current:
        fields.append("".join(current))
    return [f for f in fields if f] or [""]


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.line = 1
        self.col = 1
        self.variables: dict[str, Word] = {}
        self.depth = 0  # nesting of if/case/loops: values assigned inside are not known statically
        self.exported: set[str] = set()
        self.commands: list[Command] = []
        self.cutoffs: list[CutOff] = []
        self.words: list[Word] = []
        self.heredocs: list[tuple[str, bool]] = []
        self.skip_next = False  # the next word is a redirection target
        self.comment_in_command: tuple[Span, int] | None = None
        self.pending_cutoff: tuple[Span, int] | None = None

    # Characters ---------------------------------------------------------------------------
    def peek(self, offset: int = 0) -> str:
        index = self.i + offset
        return self.text[index] if index < len(self.text) else ""

    def at(self, chars: str, offset: int = 0) -> bool:
        """Whether the character at `offset` is one of `chars` (never at the end of the text)."""
        char = self.peek(offset)
        return char != "" and char in chars

    def advance(self, count: int = 1) -> str:
        taken = self.text[self.i : self.i + count]
        for char in taken:
            if char == "\n":
                self.line += 1
                self.col = 1
            else:
                self.col += 1
        self.i += count
        return taken

    # Words and commands ---------------------------------------------------------------------
    def run(self) -> None:
        while self.i < len(self.text):
            char = self.peek()
            if char == "\\" and self.peek(1) == "\n":
                self.advance(2)
            elif char == "\n":
                self.advance()
                self.end_command()
                self.read_heredocs()
            elif char in " \t\r":
                self.advance()
            elif char == "#":
                self.comment()
            elif char in ";&|()":
                single_amp = char == "&" and self.peek(1) != "&" and self.peek(1) != ">"
                self.advance(2 if self.peek(1) == char and char in "&|;" else 1)
                self.end_command(background=single_amp)
            elif char in "<>" or (char.isdigit() and self.at("<>", 1)):
                self.redirection()
            else:
                self.word()
        self.end_command()

    def comment(self) -> None:
        start = (self.line, self.col)
        while self.i < len(self.text) and self.peek() != "\n":
            self.advance()
        span = Span(start[0], start[1], self.line, self.col)
        if self.words:
            self.comment_in_command = (span, self.words[0].span.line)

    def redirection(self) -> None:
        if self.peek().isdigit():
            self.advance()
        if self.peek() == "<" and self.peek(1) == "<" and self.peek(2) != "<":
            self.advance(2)
            strip = self.peek() == "-"
            if strip:
                self.advance()
            while self.at(" \t"):
                self.advance()
            delimiter = self.word(record=False)
            if delimiter:
                self.heredocs.append((delimiter, strip))
            return
        while self.at("<>&|"):
            self.advance()
        self.skip_next = True

    def read_heredocs(self) -> None:
        while self.heredocs:
            delimiter, strip = self.heredocs.pop(0)
            while self.i < len(self.text):
                end = self.text.find("\n", self.i)
                end = len(self.text) if end < 0 else end
                line = self.text[self.i : end]
                self.advance(end - self.i + (1 if end < len(self.text) else 0))
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break

    def word(self, record: bool = True) -> str:
        start = (self.line, self.col)
        parts: list[str] = []
        split_at: list[int] = []  # parts that come from unquoted expansions: bash splits them at blanks
        unknown: list[str] = []
        while self.i < len(self.text):
            char = self.peek()
            if char in " \t\r\n;&|()<>":
                break
            if char == "\\":
                if self.peek(1) == "\n":
                    self.advance(2)
                    continue
                self.advance()
                parts.append(self.advance())
            elif char == "'":
                self.advance()
                while self.i < len(self.text) and self.peek() != "'":
                    parts.append(self.advance())
                self.advance()
            elif char == '"':
                self.advance()
                while self.i < len(self.text) and self.peek() != '"':
                    if self.peek() == "\\" and self.at('"\\$`\n', 1):
                        self.advance()
                        escaped = self.advance()
                        parts.append("" if escaped == "\n" else escaped)
                    elif self.at("$`"):
                        parts.append(self.expansion(unknown))
                    else:
                        parts.append(self.advance())
                self.advance()
            elif char in "$`":
                split_at.append(len(parts))
                parts.append(self.expansion(unknown))
            else:
                parts.append(self.advance())
        text = "".join(parts)
        if not record:
            return text
        span = Span(start[0], start[1], self.line, self.col)
        if self.skip_next:
            self.skip_next = False
            return text
        fields = _split_fields(parts, split_at)
        if len(fields) == 1:
            self.add_word(Word(text, span, tuple(unknown)))
        for field in fields if len(fields) > 1 else ():
            # a name written in the field stays with it; a value known only on some paths taints all
            mine = tuple(u for u in unknown if u in field or not any(u in f for f in fields))
            self.add_word(Word(field, span, mine))
        return text

    def expansion(self, unknown: list[str]) -> str:
        start = self.i
        if self.peek() == "`":
            self.advance()
            while self.i < len(self.text) and self.peek() != "`":
                self.advance()
            self.advance()
            unknown.append(self.text[start : self.i])
            return self.text[start : self.i]
        self.advance()  # $
        char = self.peek()
        if char == "(":
            depth = 0
            while self.i < len(self.text):
                current = self.advance()
                depth += {"(": 1, ")": -1}.get(current, 0)
                if depth == 0:
                    break
            written = self.text[start : self.i]
            value = self.arithmetic(written)
            if value is None:
                unknown.append(written)
                return written
            return value
        if char == "{":
            close = self.text.find("}", self.i)
            if close < 0:
                return self.advance()
            inner = self.text[self.i + 1 : close]
            self.advance(close - self.i + 1)
            return self.braced(inner, unknown)
        match = _NAME.match(self.text, self.i)
        if match:
            self.advance(match.end() - self.i)
            return self.lookup(match.group(0), unknown)
        if char and (char.isdigit() or char in "@*#?$!-"):
            self.advance()
            unknown.append("$" + char)
            return "$" + char
        return "$"

    def braced(self, inner: str, unknown: list[str]) -> str:
        match = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=])(.*))?$", inner, re.S)
        if not match:
            unknown.append("${" + inner + "}")
            return "${" + inner + "}"
        name, operator, default = match.groups()
        known = self.variables.get(name)
        empty = known is not None and known.known and known.text == "" and bool(operator) and operator.startswith(":")
        if operator and (known is None or empty):
            # ${VAR:-default}: the default applies unless VAR is set (from the caller's environment
            # it may be; launch scripts use this form for their defaults, so the default is taken).
            return self.expand_text(default or "", unknown)
        return self.lookup(name, unknown)

    def expand_text(self, text: str, unknown: list[str]) -> str:
        def replace(match: re.Match[str]) -> str:
            return self.lookup(match.group(1) or match.group(2), unknown)

        return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)", replace, text)

    def lookup(self, name: str, unknown: list[str]) -> str:
        word = self.variables.get(name)
        if word is None:
            unknown.append(name)
            return "$" + name
        unknown.extend(word.unknown)
        return word.text

    def arithmetic(self, written: str) -> str | None:
        """$((...)) with integers and known variables only."""
        if not (written.startswith("$((") and written.endswith("))")):
            return None
        expression = written[3:-2]
        missing: list[str] = []
        expanded = self.expand_text(expression, missing)
        expanded = re.sub(r"\b([A-Za-z_][A-Za-z0-9_]*)\b", lambda m: self.lookup(m.group(1), missing), expanded)
        if missing or not re.fullmatch(r"[\d\s+\-*/%()]+", expanded):
            return None
        try:
            return str(int(eval(expanded.replace("/", "//"), {"__builtins__": {}}, {})))
        except (SyntaxError, ZeroDivisionError, ValueError):
            return None

    def conditional(self, name: str, value: Word) -> Word:
        """A value assigned inside `if`/`case`/a loop holds only on some paths: not known statically."""
        if self.depth == 0:
            return value
        return value._replace(unknown=(*value.unknown, name) if name not in value.unknown else value.unknown)

    def add_word(self, word: Word) -> None:
        self.words.append(word)

    def end_command(self, background: bool = False) -> None:
        words, self.words = self.words, []
        if self.comment_in_command is not None:
            # `# ...` inside a continued command ends it at that line; flags that follow are cut off.
            self.pending_cutoff, self.comment_in_command = self.comment_in_command, None
        elif self.pending_cutoff is not None and words:
            comment, command_line = self.pending_cutoff
            self.pending_cutoff = None
            if words[0].text.startswith("-"):
                self.cutoffs.append(CutOff(comment, command_line, tuple(words)))
                return
        while words and words[0].text in _KEYWORDS:
            if words[0].text in ("if", "while", "until"):
                self.depth += 1
            words = words[1:]
        if words and words[0].text in ("for", "case"):
            self.depth += 1
        if words and words[0].text in ("fi", "done", "esac"):
            self.depth = max(self.depth - 1, 0)
        if not words or words[0].text in _ENDS:
            return
        prefixes: list[tuple[str, Word]] = []
        while words:
            match = _ASSIGNMENT.match(words[0].text)
            if not match:
                break
            prefixes.append((match.group(1), words[0]._replace(text=match.group(2))))
            words = words[1:]
        if not words:  # VAR=value on its own: a shell variable for the rest of the script
            for name, value in prefixes:
                self.variables[name] = self.conditional(name, value)
            return
        if words[0].text in ("export", "declare", "typeset", "readonly", "local"):
            self.declare(words[1:], exported=words[0].text == "export" or any(w.text == "-x" for w in words))
            return
        if words[0].text == "unset":
            for word in words[1:]:
                self.variables.pop(word.text, None)
                self.exported.discard(word.text)
            return
        if words[0].text == "env":
            words = words[1:]
            while words and _ASSIGNMENT.match(words[0].text):
                match = _ASSIGNMENT.match(words[0].text)
                assert match is not None
                prefixes.append((match.group(1), words[0]._replace(text=match.group(2))))
                words = words[1:]
        env = {name: self.variables[name] for name in self.exported if name in self.variables}
        env.update(prefixes)
        if words:
            self.commands.append(Command(tuple(words), env, tuple(prefixes), words[0].span.line, background))

    def declare(self, words: tuple[Word, ...] | list[Word], exported: bool) -> None:
        for word in words:
            if word.text.startswith("-"):
                continue
            match = _ASSIGNMENT.match(word.text)
            name = match.group(1) if match else word.text
            if match:
                self.variables[name] = self.conditional(name, word._replace(text=match.group(2)))
            if exported:
                self.exported.add(name)


def parse(text: str, path: str) -> Script:
    lexer = _Lexer(text)
    lexer.run()
    return Script(path, text, lexer.commands, lexer.cutoffs)


def looks_like_shell(text: str) -> bool:
    """A shebang naming a POSIX shell."""
    first = text.split("\n", 1)[0]
    return first.startswith("#!") and re.search(r"\b(ba|z|da|k)?sh\b", first) is not None
