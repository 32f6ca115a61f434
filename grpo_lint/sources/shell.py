"""Bash launch scripts as commands of words with positions, variables resolved where they are known.

This is not a shell: it reads what a launch script says, statically, the way bash would split it.
It understands `\\` continuations, quotes (also `$'...'`), comments, `VAR=value cmd` prefixes,
`export`/`declare`/`local`, arrays (`A=(...)`, `A+=(...)`, `"${A[@]}"`), `;`/`&&`/`||`/`|`/`&`,
redirections, here-documents, `case` patterns, function definitions, `[[ ... ]]`, `bash -c '...'`,
`$VAR` / `${VAR}` / `${VAR:-default}` (defaults nest and may be quoted), `${#VAR}` and `$(( ))`
arithmetic (64-bit, as bash). What cannot be known (`$(...)`, positional arguments, variables from the
caller's environment, values assigned inside `if`/`case`/loops) is kept as written and marked unknown,
so a rule can say so instead of guessing. tests/test_shell_differential.py checks the commands and
words against tree-sitter-bash.

Every loop is bounded: expansions nest at most `_MAX_NESTING` deep, a variable's value is at most
`_MAX_VALUE` characters, arithmetic wraps at 64 bits like bash.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from grpo_lint.diagnostics import Span
from grpo_lint.patterns import lazy
from grpo_lint.records import Record

_NAME = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = lazy(r"^([A-Za-z_][A-Za-z0-9_]*)(\+?)=(.*)$", re.S)
_ELEMENT = lazy(r"^([A-Za-z_][A-Za-z0-9_]*)\[[^\n]*?\]\+?=", re.S)  # NAME[key]=value: one element of an array
_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "{", "time", "nohup", "exec"})
_ENDS = frozenset({"fi", "done", "esac", "}"})
_HEADERS = frozenset({"for", "select", "function"})  # `for x in ...`: a loop header, not a command
_TESTS = frozenset({"[[", "["})
_WORD_END = " \t\r\n;&|()<>"
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_SEP = "\x00"  # between the elements of "${ARRAY[@]}": always a field break, even inside quotes
_NOTHING = "\x01"  # "${ARRAY[@]}" of an empty array: no word at all, unless other text joins it
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
# Programs that run another command written after their own options: `nohup swift rlhf ...`, `uv run accelerate
# launch ...`, `srun [opts] python ...`, `timeout 3600 python ...`, `exec bash run.sh`, `srun --nodes=2 bash -c '...'`.
WRAPPERS = frozenset({
    "nohup", "time", "env", "uv", "poetry", "pixi", "conda", "srun", "mpirun", "mpiexec", "exec", "timeout", "stdbuf",
    "nice", "ionice", "taskset", "numactl", "unbuffer", "xvfb-run", "chronic", "setsid", "command",
})  # fmt: skip
# Bounds (hostile input must not make the reader slow or deep):
_MAX_NESTING = 24  # ${A:-${B:-...}} / bash -c inside bash -c / $(( (((...))) )) levels
_MAX_VALUE = 65_536  # characters of one variable's value; longer values are treated as unknown
_MAX_ARRAY = 4_096  # elements of one array
_MAX_EXPANDED = 4_000_000  # characters all expansions of one script may produce; beyond, values are unknown
_MAX_CALLED = 1_000_000  # characters of function bodies one script's calls may read again; beyond, calls are not
_CALL_COST = 1_000  # what a call costs of it beyond its body's length (at most 1,000 calls are read)


class Word(Record):
    text: str  # after quote removal and the expansions that are known
    span: Span
    unknown: tuple[str, ...] = ()  # what could not be expanded: variable names, "$(...)", "$1", ...
    array: tuple[Word, ...] | None = None  # `NAME=(a b c)`: the elements

    @property
    def known(self) -> bool:
        return not self.unknown


class Command(Record):
    words: tuple[Word, ...]
    env: dict[str, Word]  # exported variables of the script plus this command's VAR=value prefixes
    prefixes: tuple[tuple[str, Word], ...]  # the VAR=value words written before the command
    line: int
    background: bool = False  # ended by `&`: the script goes on while it runs
    inner: bool = False  # read from the string of `bash -c '...'`
    # The arms of if/case statements it sits in: (statement id, arm) from the outside in.
    branch: tuple[tuple[int, int], ...] = ()
    called_at: int = 0  # in a function's body: the line of the script's call that runs it (its `$1`... that call's)

    def exclusive_with(self, other: Command) -> bool:
        """Whether the two commands are in different arms of one if/case statement: never both run."""
        arms = dict(self.branch)
        return any(arms.get(block, arm) != arm for block, arm in other.branch)


class CutOff(Record):
    """A comment that ended a continued command: the words after it no longer belong to it (GRPO501)."""

    comment: Span
    command_line: int  # line of the cut command (Command.line)
    lost: tuple[Word, ...]


class WrittenFile(Record):
    """A file the script writes from a here-document (`cat > configs/a.yaml << 'EOF'`, `tee x.yaml <<EOF`)."""

    path: Word  # the file, as the command names it
    text: str  # the here-document's lines
    line: int  # the line of the script its first line is on
    command_line: int  # the line of the command that writes it
    # Whether bash expands `$VAR` and `$(...)` in it (an unquoted delimiter) and the text has any: then its content
    # is not known before the run.
    expanded: bool = False


class Script(Record):
    path: str
    text: str
    commands: list[Command]
    cutoffs: list[CutOff]
    ending_comments: tuple[Span, ...] = ()  # every comment that ended a command with words on its line(s)
    lines: tuple[str, ...] = ()
    # A quote that nothing closes: bash stops reading the script there ("unexpected EOF while looking for
    # matching `''"), so the command it opens never runs. (line, column) of the opening quote and the quote.
    unclosed: tuple[int, int, str] | None = None
    # `<placeholder>` words: bash takes each for a redirection from a file of that name (see _Lexer.run).
    placeholders: tuple[Span, ...] = ()
    written_files: tuple[WrittenFile, ...] = ()  # files written from here-documents, in script order
    # Python programs given to `python` (or `python -`) as a here-document: (text, first line, expanded by bash,
    # tabs stripped by `<<-`: its columns are then not the script's).
    embedded_python: tuple[tuple[str, int, bool, bool], ...] = ()
    # Under `set -u` (turned on at `nounset`), a variable read before any value where the script gives it a default
    # only later (`X=${X:-v}` below): bash stops at the read ("X: unbound variable") unless the caller exports X.
    # (name, line, column of the read, line of the default). Not said for a script that defines functions.
    unbound: tuple[tuple[str, int, int, int], ...] = ()
    nounset: int = 0

    def written_before(self, path: str, line: int) -> WrittenFile | None:
        """The last here-document the script writes `path` from before `line` (the command that reads it)."""
        wanted = path.removeprefix("./")
        found = None
        for written in self.written_files:
            if written.command_line < line and written.path.known and written.path.text.removeprefix("./") == wanted:
                found = written
        return found

    def written(self, span: Span) -> str:
        """The text of a span as the script writes it (quotes and `$VAR` included)."""
        if not 0 < span.line <= span.end_line <= len(self.lines):
            return ""
        if span.line == span.end_line:
            return self.lines[span.line - 1][span.column - 1 : span.end_column - 1]
        first = self.lines[span.line - 1][span.column - 1 :]
        middle = self.lines[span.line : span.end_line - 1]
        return "\n".join([first, *middle, self.lines[span.end_line - 1][: span.end_column - 1]])


def _split_fields(pieces: list[tuple[str, bool]]) -> list[str]:
    """The words bash makes of one word: the values of unquoted expansions are split at blanks
    (`$OVERRIDES` holding `a=1 b=2` passes two arguments), quoted text never is, and the elements of
    `"${A[@]}"` are separate words."""
    if any(_NOTHING in text for text, _ in pieces):
        pieces = [(text.replace(_NOTHING, ""), split) for text, split in pieces if text != _NOTHING]
        if not pieces:
            return []
    if not any(_SEP in text or (split and (" " in text or "\t" in text or "\n" in text)) for text, split in pieces):
        joined = "".join(text for text, _ in pieces)
        return [joined] if joined or not all(split for _, split in pieces) else []
    fields: list[str] = []
    current: list[str] = []
    pending = False  # whether `current` holds a field (an empty quoted part still counts)
    for text, split in pieces:
        chunks = re.split(r"([ \t\n]+|\x00)", text) if split else re.split(r"(\x00)", text)
        for chunk in chunks:
            if chunk == _SEP or (split and chunk and chunk.strip(" \t\n") == ""):
                if pending or current:
                    fields.append("".join(current))
                current, pending = [], False
            elif chunk:
                current.append(chunk)
                pending = True
            elif not split:
                pending = True  # "" is an empty word
    if pending or current:
        fields.append("".join(current))
    return fields


def _wrap64(value: int) -> int:
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


_ARITH_TOKEN = lazy(
    r"\s*(?:(0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+)|([A-Za-z_][A-Za-z0-9_]*)"
    r"|(\*\*|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%()<>!~&|^?:]))"
)


class _Arithmetic:
    """`$(( ))` as bash evaluates it: integers that wrap at 64 bits; None when it cannot be known."""

    _BINARY = (
        ("||",),
        ("&&",),
        ("|",),
        ("^",),
        ("&",),
        ("==", "!="),
        ("<", ">", "<=", ">="),
        ("<<", ">>"),
        ("+", "-"),
        ("*", "/", "%"),
    )

    def __init__(self, tokens: list[tuple[str, str]], names: dict[str, int | None]) -> None:
        self.tokens = tokens
        self.names = names
        self.i = 0
        self.depth = 0

    @classmethod
    def evaluate(cls, expression: str, names: dict[str, int | None]) -> int | None:
        tokens: list[tuple[str, str]] = []
        position = 0
        expression = expression.rstrip()
        while position < len(expression):
            match = _ARITH_TOKEN.match(expression, position)
            if match is None or match.end() == position:
                return None
            number, name, operator = match.groups()
            tokens.append(("n", number) if number else ("v", name) if name else ("o", operator))
            position = match.end()
        parser = cls(tokens, names)
        try:
            value = parser.ternary()
        except (ArithmeticError, ValueError, IndexError):
            return None
        return value if parser.i == len(tokens) else None

    def take(self, *operators: str) -> str | None:
        if self.i < len(self.tokens) and self.tokens[self.i][0] == "o" and self.tokens[self.i][1] in operators:
            self.i += 1
            return self.tokens[self.i - 1][1]
        return None

    def ternary(self) -> int:
        condition = self.binary(0)
        if self.take("?"):
            yes = self.ternary()
            if not self.take(":"):
                raise ValueError("?: without :")
            no = self.ternary()
            return yes if condition else no
        return condition

    def binary(self, level: int) -> int:
        if level == len(self._BINARY):
            return self.power()
        left = self.binary(level + 1)
        while (operator := self.take(*self._BINARY[level])) is not None:
            right = self.binary(level + 1)
            left = _wrap64(self.apply(operator, left, right))
        return left

    @staticmethod
    def apply(operator: str, left: int, right: int) -> int:
        if operator in ("/", "%"):
            if right == 0:
                raise ZeroDivisionError
            quotient = abs(left) // abs(right) * (1 if (left < 0) == (right < 0) else -1)  # truncates, as C
            return quotient if operator == "/" else left - quotient * right
        if operator in ("<<", ">>"):
            right &= 63
            return left << right if operator == "<<" else left >> right
        table = {
            "+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
            "<": lambda: int(left < right), ">": lambda: int(left > right), "<=": lambda: int(left <= right),
            ">=": lambda: int(left >= right), "==": lambda: int(left == right), "!=": lambda: int(left != right),
            "&": lambda: left & right, "|": lambda: left | right, "^": lambda: left ^ right,
            "&&": lambda: int(bool(left) and bool(right)), "||": lambda: int(bool(left) or bool(right)),
        }  # fmt: skip
        return table[operator]()

    def power(self) -> int:
        base = self.unary()
        if self.take("**"):
            exponent = self.power()
            if exponent < 0:
                raise ValueError("exponent less than 0")
            return _wrap64(pow(base, exponent, 1 << 64))
        return base

    def unary(self) -> int:
        operator = self.take("-", "+", "!", "~")
        if operator is not None:
            self.depth += 1
            if self.depth > _MAX_NESTING * 8:
                raise ValueError("too deep")
            value = self.unary()
            self.depth -= 1
            return _wrap64({"-": -value, "+": value, "!": int(not value), "~": ~value}[operator])
        return self.atom()

    def atom(self) -> int:
        if self.take("("):
            self.depth += 1
            if self.depth > _MAX_NESTING:
                raise ValueError("too deep")
            value = self.ternary()
            self.depth -= 1
            if not self.take(")"):
                raise ValueError("unbalanced")
            return value
        kind, text = self.tokens[self.i]
        self.i += 1
        if kind == "n":
            return _wrap64(_integer(text))
        if kind == "v":
            value = self.names.get(text)
            if value is None:
                raise ValueError(f"{text} is not known")
            return value
        raise ValueError(f"unexpected {text}")


def _integer(text: str) -> int:
    if "#" in text:
        base_text, _, digits = text.partition("#")
        base = int(base_text)
        if not 2 <= base <= 36:
            raise ValueError("base")
        return int(digits, base)
    if text.lower().startswith("0x"):
        return int(text, 16)
    if len(text) > 1 and text.startswith("0"):
        return int(text, 8)
    if len(text) > 19:
        raise ValueError("out of range")
    return int(text)


def _split_around(text: str, placeholders: list[str], split: bool) -> list[tuple[str, bool]]:
    """An unquoted value as pieces for word splitting, where the written text of what is not known
    (`$(date +%Y%m%d)` inside `NOW=...`) is never split: bash splits the command's output, which is
    not known, not the command line that stands in for it."""
    marks = sorted({p for p in placeholders if p and any(c.isspace() for c in p) and p in text}, key=len, reverse=True)
    if not split or not marks:
        return [(text, split)]
    pieces: list[tuple[str, bool]] = []
    pattern = re.compile("|".join(re.escape(m) for m in marks))
    last = 0
    for found in pattern.finditer(text):
        if found.start() > last:
            pieces.append((text[last : found.start()], True))
        pieces.append((found.group(), False))
        last = found.end()
    if last < len(text):
        pieces.append((text[last:], True))
    return pieces


def _unique(names: list[str]) -> tuple[str, ...]:
    """What a word depends on, each once: `A=$A$A` repeated would otherwise double the list each time."""
    return tuple(dict.fromkeys(names))


# A word of plain characters only, and what may follow it for it to be a whole word: not `(` (`A=(x)`
# is an array), nor `<` or `>` (`10>(cmd)` goes on with a process substitution).
_SIMPLE_WORD = lazy(r"[^ \t\r\n;&|()<>'\"$`\\]+")
# `<path_to_model>` standing alone as a word: a placeholder a user is meant to replace.
_PLACEHOLDER = lazy(r"(<[A-Za-z_][\w./:-]*>)(?=[ \t\r\n;\\]|$)")
_SIMPLE_FOLLOW = frozenset(" \t\r\n;&|)")
_REDIRECTS = ("<", ">")
# A record built from all its fields in order, without its constructor's checks (the lexer's hottest line).
_record = tuple.__new__
# Words that open or close a test or a `case` statement (add_word's business).
_TEST_OR_CASE = frozenset({"[[", "]]", "in"})
# The characters at which the lexer does something else than read a word (a digit before `<` or `>` too).
_NOT_A_WORD = frozenset(" \t\r\n\\#;&|()<>")
_BRACED_STOP = lazy(r"""[\\'"$}]""")  # what braced_text() looks at inside `${...}`
_SINGLE_QUOTED_STOP = lazy(r"'")
_DOUBLE_QUOTED_STOP = lazy(r'["\\]')
_PLAIN_ENDS: dict[str, re.Pattern[str]] = {}  # compiled on first use, one per set of stop characters
_BLANKS = lazy(r"[ \t\r]+")
_QUOTED_END = lazy(r'["\\$`]')  # what ends a run of plain characters inside double quotes


@cache
def _balanced_stop(opening: str, closing: str) -> re.Pattern[str]:
    """What skip_balanced() looks at: an escape, the brackets, and quotes inside `$(...)`."""
    quotes = "'\"" if opening == "(" else ""
    return re.compile("[" + re.escape("\\" + opening + closing + quotes) + "]")


def _plain_end(stop: str) -> re.Pattern[str]:
    """What ends a run of plain characters of an unquoted word: a `stop` character, a quote, an expansion
    or a redirection (one search instead of a Python loop per character: the reader's hot spot)."""
    pattern = _PLAIN_ENDS.get(stop)
    if pattern is None:
        pattern = _PLAIN_ENDS[stop] = re.compile("[" + re.escape(stop + "\\'\"$`<>") + "]")
    return pattern


_ARGS = "\x00args"  # the positional arguments, kept as an array no script can name
_ELEMENT_TAG = lazy(r"[A-Za-z_]\w*\[\d+\]")  # `EXTRA[1]`: an array element added on some paths only
_FUNCTION_DEFINED = r"\(\)\s*\{|^\s*function\s"  # `name() {`, `function name`
_FUNCTIONS = lazy(_FUNCTION_DEFINED, re.M)
# Commands that change the positional arguments, or functions with their own: `$1` is then not the caller's word.
_REPOSITIONS = lazy(r"^\s*(?:shift\b|set\s+--|getopts\b)|" + _FUNCTION_DEFINED, re.M)


class _Function(Record):
    """A function the script defines: the text of its body and where it starts in the file."""

    body: str
    origin: tuple[int, int]


class _Lexer:
    def __init__(
        self,
        text: str,
        variables: dict[str, Word] | None = None,
        arrays: dict[str, list[Word]] | None = None,
        origin: tuple[int, int] = (1, 1),
        level: int = 0,
        budget: list[int] | None = None,
        functions: dict[str, _Function] | None = None,
    ) -> None:
        self.text = text
        self.i = 0
        self.line = 1
        self.col = 1
        self.origin = origin  # where this text starts in the file (a `bash -c` string, a `${...}` default)
        self.level = level
        self.string = level > 0  # reading a string of the script (`bash -c '...'`), not its own lines
        # what expansions and function calls may still read: shared with nested readers
        self.budget = budget if budget is not None else [_MAX_EXPANDED, _MAX_CALLED]
        self.carry = False  # a comment-only line between a cut command and its lost words
        self.variables: dict[str, Word] = variables if variables is not None else {}
        self.arrays: dict[str, list[Word]] = arrays if arrays is not None else {}
        self.element_tags: dict[str, str] = {}  # `EXTRA[1]`: the text of an element added on some paths only
        # `set -u`: the line it was turned on (0: off). Under it, a variable read that nothing has set stops bash.
        self.nounset = 0
        self.unset_reads: dict[str, tuple[int, int]] = {}  # a variable read under `set -u` before any value: where
        self.defaulted: dict[str, int] = {}  # a variable given a default (`X=${X:-v}`): the first line that does
        self.tracks = level == 0  # the script's own text (or a default's word in it), not a `$(...)` run apart
        self.depth = 0  # nesting of if/case/loops: values assigned inside are not known statically
        self.arms: list[list] = []  # open if/case statements: [id, arm, "if" | "case"]
        self.blocks = 0
        self.exported: set[str] = set()
        self.commands: list[Command] = []
        self.cutoffs: list[CutOff] = []
        self.ending_comments: list[Span] = []
        self.unclosed: tuple[int, int, str] | None = None
        self.placeholders: list[Span] = []
        self.words: list[Word] = []
        self.heredocs: list[tuple[str, bool, bool, list[Word], list[Word]]] = []
        self.skip_next = False  # the next word is a redirection target
        self.skip_out = False  # ... of an output redirection (`> file`): kept as one of the command's targets
        self.out_targets: list[Word] = []  # the current command's output redirection targets
        self.written_files: list[WrittenFile] = []
        self.embedded_python: list[tuple[str, int, bool, bool]] = []
        self.continued = False  # a `\` continuation came after the last word of the current command
        self.comment_in_command: Span | None = None
        self.pending_cutoff: tuple[Span, int] | None = None
        self.cases = 0  # open `case` statements
        self.expect_pattern = False  # the next thing is a `case` pattern (`a|b)`) or `esac`
        self.in_test = False  # inside `[[ ... ]]`, where && || ( ) < > are the test's own operators
        # Functions the script has defined so far (shared with the readers of their calls), the name a definition
        # just gave (its `{` opens the body), the open `{ ... }` groups, the functions called and where the
        # commands of each definition are, as read where it is written (with arguments not known).
        self.functions: dict[str, _Function] = functions if functions is not None else {}
        self.defining: str | None = None
        self.groups: list[tuple[str | None, int, tuple[int, int], int]] = []
        self.called: set[str] = set()
        self.definitions: list[tuple[str, int, int]] = []
        self._line_starts: list[int] | None = None

    # Positions and characters -------------------------------------------------------------------
    def pos(self) -> tuple[int, int]:
        line, column = self.origin
        return (line + self.line - 1, self.col + (column - 1 if self.line == 1 else 0))

    def span_from(self, start: tuple[int, int]) -> Span:
        return Span(start[0], start[1], *self.pos())

    def peek(self, offset: int = 0) -> str:
        index = self.i + offset
        return self.text[index] if index < len(self.text) else ""

    def at(self, chars: str, offset: int = 0) -> bool:
        """Whether the character at `offset` is one of `chars` (never at the end of the text)."""
        char = self.peek(offset)
        return char != "" and char in chars

    def advance(self, count: int = 1) -> str:
        taken = self.text[self.i : self.i + count]
        newlines = taken.count("\n")
        if newlines:
            self.line += newlines
            self.col = len(taken) - taken.rfind("\n")
        else:
            self.col += len(taken)
        self.i += len(taken)
        return taken

    # Words and commands ---------------------------------------------------------------------
    def run(self) -> None:
        text = self.text
        size = len(text)
        while self.i < size:
            char = text[self.i]
            if (
                char not in _NOT_A_WORD
                and not self.expect_pattern
                and not (char.isdigit() and text[self.i + 1 : self.i + 2] in _REDIRECTS)
            ):
                self.word()  # most of a script: what the branches below would come to, without asking each
            elif self.expect_pattern and char not in " \t\r\n#;":
                self.case_pattern()
            elif char == "\\" and self.peek(1) == "\n":
                self.i += 2
                self.line += 1
                self.col = 1
                self.continued = bool(self.words)
            elif char == "\\" and self.i + 1 == size:
                self.advance()  # a `\` on the last line with no newline after it: bash drops it, the command ends
            elif char == "\n":
                self.advance()
                self.end_command()
                self.read_heredocs()
            elif char in " \t\r":
                blank = _BLANKS.match(text, self.i)
                end = blank.end() if blank is not None else self.i + 1
                self.col += end - self.i  # a run of blanks in one step (no newline among them)
                self.i = end
            elif char == "#":
                self.comment()
            elif self.in_test and char in "&|()<>":
                self.advance(2 if self.peek(1) == char and char in "&|" else 1)
            elif char == ";":
                terminator = self.advance(2 if self.peek(1) in ";&" else 1)
                if terminator == ";;" and self.peek() == "&":
                    terminator += self.advance()
                self.end_command()
                if terminator != ";" and self.cases:
                    self.expect_pattern = True
            elif char == "&" and self.peek(1) == ">":
                self.redirection()
            elif char in "&|":
                single_amp = char == "&" and self.peek(1) != "&"
                self.advance(2 if self.peek(1) == char or (char == "|" and self.peek(1) == "&") else 1)
                self.end_command(background=single_amp)
            elif char == "(":
                self.open_paren()
            elif char == ")":
                self.advance()
                self.end_command()
            elif char == "<" and (placeholder := _PLACEHOLDER.match(self.text, self.i)) is not None:
                # `--val_dataset <path_to_val_dataset>`: a placeholder left in the script. bash reads it as a
                # redirection from a file of that name and does not run the command when the file is missing; the
                # command is read as meant (the placeholder as its value) and the placeholder is noted.
                start = self.pos()
                self.advance(placeholder.end(1) - self.i)
                span = self.span_from(start)
                if self.level == 0:
                    self.placeholders.append(span)
                self.add_word(Word(placeholder.group(1), span, ()))
            elif char in "<>" or (char.isdigit() and self.at("<>", 1)):
                self.redirection()
            else:
                self.word()
        self.end_command()

    def open_paren(self) -> None:
        rest = self.text[self.i + 1 : self.i + 64].lstrip(" \t")
        if len(self.words) == 1 and rest.startswith(")"):  # `name() {`: a function definition
            self.defining = self.words[0].text
            self.advance(self.text.index(")", self.i) - self.i + 1)
            self.words = []
            return
        if self.peek(1) == "(" and (
            all(w.text in _KEYWORDS for w in self.words) or self.words[-1].text == "for"
        ):  # (( i++ )), while (( i < n )), for ((...))
            self.skip_balanced("(", ")")
            return
        self.advance()
        self.end_command()

    def case_pattern(self) -> None:
        """A `case` item's pattern up to its `)`, or the `esac` that ends the statement."""
        if self.text.startswith("esac", self.i) and not _NAME.match(self.text, self.i + 4):
            self.advance(4)
            self.cases -= 1
            self.depth = max(self.depth - 1, 0)
            self.expect_pattern = False
            self._end_case()
            return
        if self.arms and self.arms[-1][2] == "case":
            self.arms[-1][1] += 1  # the next item of the case statement
        if self.peek() == "(":
            self.advance()
        while self.i < len(self.text) and self.peek() not in ")\n":
            char = self.peek()
            if char == "\\":
                self.advance(2)
            elif char in "'\"":
                self.skip_quoted(char)
            else:
                self.advance()
        self.advance()
        self.expect_pattern = False

    def skip_quoted(self, quote: str) -> None:
        self.advance()
        stop = _SINGLE_QUOTED_STOP if quote == "'" else _DOUBLE_QUOTED_STOP
        while self.i < len(self.text) and self.peek() != quote:
            if quote == '"' and self.peek() == "\\":
                self.advance(2)
                continue
            found = stop.search(self.text, self.i + 1)  # to the closing quote or an escape, in one step
            self.advance((found.start() if found is not None else len(self.text)) - self.i)
        self.advance()

    def skip_balanced(self, opening: str, closing: str) -> None:
        """From an opening bracket to its match, past quotes and escapes (for `$(...)`, `((...))`)."""
        depth = 0
        while self.i < len(self.text):
            char = self.peek()
            if char == "\\":
                self.advance(2)
                continue
            if char in "'\"" and opening == "(":
                self.skip_quoted(char)
                continue
            if char != opening and char != closing:  # plain characters up to the next one that matters
                found = _balanced_stop(opening, closing).search(self.text, self.i + 1)
                self.advance((found.start() if found is not None else len(self.text)) - self.i)
                continue
            self.advance()
            if char == opening:
                depth += 1
            elif char == closing:
                depth -= 1
                if depth == 0:
                    return

    def comment(self) -> None:
        start = self.pos()
        end = self.text.find("\n", self.i)
        self.advance((len(self.text) if end < 0 else end) - self.i)
        span = self.span_from(start)
        if self.words:
            self.comment_in_command = span
        elif self.pending_cutoff is not None:
            self.carry = True

    def redirection(self) -> None:
        while self.peek().isdigit():
            self.advance()
        if self.peek() == "<" and self.peek(1) == "<" and self.peek(2) != "<":
            self.advance(2)
            strip = self.peek() == "-"
            if strip:
                self.advance()
            while self.at(" \t"):
                self.advance()
            start = self.i
            delimiter = self.scan_text(_WORD_END)
            quoted = any(char in self.text[start : self.i] for char in "'\"\\")  # bash then expands nothing
            if delimiter:
                # (the lists are the current command's: the command ends before its here-documents are read)
                self.heredocs.append((delimiter, strip, quoted, self.out_targets, self.words))
            return
        if self.peek() in "<>" and self.peek(1) == "(":  # <(cmd): a process substitution is a word
            self.word()
            return
        start = self.i
        while self.at("<>&|"):
            self.advance()
        operator = self.text[start : self.i]
        self.skip_next = True
        self.skip_out = ">" in operator and "<" not in operator and not operator.endswith(">&")

    def read_heredocs(self) -> None:
        while self.heredocs:
            delimiter, strip, quoted, targets, words = self.heredocs.pop(0)
            first = self.pos()[0]
            body: list[str] = []
            moved = False  # `<<-` took tabs off a line
            while self.i < len(self.text):
                end = self.text.find("\n", self.i)
                end = len(self.text) if end < 0 else end
                line = self.text[self.i : end]
                self.advance(end - self.i + (1 if end < len(self.text) else 0))
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
                kept = line.lstrip("\t") if strip else line
                moved = moved or len(kept) != len(line)
                body.append(kept)
            self._written(targets, words, "\n".join(body) + "\n" if body else "", first, quoted, moved)

    def _written(
        self, targets: list[Word], words: list[Word], text: str, first: int, quoted: bool, moved: bool
    ) -> None:
        """`cat > FILE << EOF` (or `cat << EOF > FILE`, `tee FILE << EOF`): FILE holds the here-document."""
        if not words or self.level:
            return
        program = words[0].text.rpartition("/")[2]
        expanded = not quoted and ("$" in text or "`" in text)
        if _PYTHON.match(program) and all(w.text == "-" or w.text.startswith("-u") for w in words[1:]):
            self.embedded_python.append((text, first, expanded, moved))  # `python3 - << 'EOF'`: the text is the program
            return
        if program == "tee":
            targets = [*targets, *(w for w in words[1:] if not w.text.startswith("-"))]
        elif program != "cat" or len(words) > 1:
            return  # another program reads the here-document: what it writes is its own output
        for target in targets:
            self.written_files.append(WrittenFile(target, text, first, words[0].span.line, expanded))

    def scan_text(self, stop: str) -> str:
        """A word's text with quotes removed and nothing expanded (a here-document delimiter)."""
        parts: list[str] = []
        while self.i < len(self.text) and self.peek() not in stop:
            char = self.advance()
            if char in "'\"":
                end = self.text.find(char, self.i)
                end = len(self.text) if end < 0 else end
                parts.append(self.advance(end - self.i))
                self.advance()
            elif char == "\\":
                parts.append(self.advance())
            else:
                parts.append(char)
        return "".join(parts)

    def scan(self, stop: str, unknown: list[str]) -> list[tuple[str, bool]]:
        """One word's pieces up to an unquoted character of `stop`: (text, split by bash?) each."""
        pieces: list[tuple[str, bool]] = []
        while self.i < len(self.text):
            char = self.peek()
            if char in "<>" and self.peek(1) == "(":  # <(cmd) / >(cmd): a file name nobody knows
                start = self.i
                self.advance()
                self.skip_balanced("(", ")")
                written = self.text[start : self.i]
                unknown.append(written)
                pieces.append((written, False))
                continue
            if char in stop:
                break
            if char == "\\":
                if self.peek(1) == "\n":
                    if self.peek(2) in stop:  # `word\` at a line end: the word ends here
                        break
                    self.advance(2)
                    continue
                self.advance()
                pieces.append((self.advance(), False))
            elif char == "'":
                self._opens("'")
                self.advance()
                end = self.text.find("'", self.i)
                end = len(self.text) if end < 0 else end
                pieces.append((self.advance(end - self.i), False))
                self.advance()
            elif char == '"':
                self._opens('"')
                self.advance()
                pieces.extend(self.double_quoted(unknown))
            elif char == "$" and self.peek(1) == "'":
                self.advance()
                pieces.append((self.ansi_c(), False))
            elif char == "$" and self.peek(1) == '"':
                self.advance()
            elif char in "$`":
                pieces.extend(self.expansion(unknown, quoted=False))
            else:
                found = _plain_end(stop).search(self.text, self.i + 1)
                end = found.start() if found is not None else len(self.text)
                pieces.append((self.advance(end - self.i), True))
        return pieces

    def _opens(self, quote: str) -> None:
        """Note a quote of the script itself (not of a nested `bash -c` text) that no later quote closes."""
        if self.level == 0 and self.unclosed is None and _unclosed_from(self.text, self.i, quote):
            self.unclosed = (self.line, self.col, quote)

    def double_quoted(self, unknown: list[str]) -> list[tuple[str, bool]]:
        pieces: list[tuple[str, bool]] = []
        while self.i < len(self.text) and self.peek() != '"':
            if self.peek() == "\\" and self.at('"\\$`\n', 1):
                self.advance()
                escaped = self.advance()
                pieces.append(("" if escaped == "\n" else escaped, False))
            elif self.at("$`"):
                pieces.extend(self.expansion(unknown, quoted=True))
            else:
                found = _QUOTED_END.search(self.text, self.i + 1)
                end = found.start() if found is not None else len(self.text)
                pieces.append((self.advance(end - self.i), False))
        self.advance()
        return pieces or [("", False)]

    def ansi_c(self) -> str:
        """$'...' with its backslash escapes."""
        self.advance()  # '
        out: list[str] = []
        escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "e": "\x1b"}
        while self.i < len(self.text) and self.peek() != "'":
            char = self.advance()
            if char == "\\" and self.i < len(self.text):
                escaped = self.advance()
                out.append(escapes.get(escaped, "\\" + escaped))
            else:
                out.append(char)
        self.advance()
        return "".join(out)

    def word(self) -> None:
        text, i = self.text, self.i
        simple = _SIMPLE_WORD.match(text, i)
        if simple is not None:
            # Most words are plain text (`--lr`, `1e-6`, `train.py`): one match gives the word as scan()
            # would, without its per-piece bookkeeping. `NAME=(` is an array and `NAME=~` a home folder: they go
            # the long way.
            end = simple.end()
            written = simple.group()
            if (end == len(text) or text[end] in _SIMPLE_FOLLOW) and (
                "=~" not in written or not self._home_assignment()
            ):
                line, column = self.origin  # (pos(), inline)
                line += self.line - 1
                column = self.col + (column - 1 if self.line == 1 else 0)
                self.i = end
                self.col += end - i
                word = _record(Word, (written, _record(Span, (line, column, line, column + end - i, None)), (), None))
                if self.skip_next:
                    self._redirected(word)
                    return
                if written in _TEST_OR_CASE:
                    self.add_word(word)
                else:  # what add_word does for any other word
                    self.words.append(word)
                    self.continued = False
                return
        start = self.pos()
        home = self._home_assignment()
        unknown: list[str] = []
        assignment = _NAME.match(self.text, self.i)
        if assignment and self.text.startswith(("=(", "+=("), assignment.end()) and not self.in_test:
            self.array_assignment(assignment.group(0), start)
            return
        before = self.i
        pieces = self.scan(_WORD_END, unknown)
        if self.i == before:  # a character no rule above takes: step over it
            self.advance()
            return
        span = self.span_from(start)
        if self.skip_next:
            target = "".join(text for text, _ in pieces).replace(_SEP, " ").replace(_NOTHING, "")
            self._redirected(Word(target, span, _unique(unknown)))
            return
        if assignment and self.text.startswith(("=", "+="), assignment.end()) and self.assignment_position():
            # bash does not split the value of an assignment (`A=$B`, `export A=$B`)
            text = "".join(text for text, _ in pieces).replace(_SEP, " ").replace(_NOTHING, "")
            if home:  # `DATA=~/data`: bash puts the home folder there, which is not known before the run
                unknown.append("~")
            self.add_word(Word(text, span, _unique(unknown)))
            return
        fields = _split_fields(pieces)
        if not fields and unknown:  # a value set only on some paths may be empty or not: keep it
            fields = [""]
        if len(fields) == 1:
            self.add_word(Word(fields[0], span, _unique(unknown)))
            return
        tags = self.element_tags
        for field in fields:
            # a name written in the field stays with it; a value known only on some paths taints all, but an array
            # element added on some paths only is its own word's (`EXTRA[1]`)
            mine = _unique([
                u for u in _unique(unknown)
                if (tags[u] == field if u in tags else u in field or not any(u in f for f in fields))
            ])  # fmt: skip
            self.add_word(Word(field, span, mine))

    def _redirected(self, word: Word) -> None:
        """A redirection's target (not a word of the command); an output file is kept as one of its targets."""
        self.skip_next = False
        if self.skip_out:
            self.out_targets.append(word)
            self.skip_out = False

    def _home_assignment(self) -> bool:
        """Whether the word here is `NAME=~...` (or `+=~`): bash expands an unquoted `~` after an assignment's `=`."""
        assignment = _NAME.match(self.text, self.i)
        return bool(assignment) and self.text.startswith(("=~", "+=~"), assignment.end())  # type: ignore[union-attr]

    def assignment_position(self) -> bool:
        """Whether a NAME=value word here is an assignment: before the command name, or an argument
        of a declaration builtin."""
        words = [w.text for w in self.words if w.text not in _KEYWORDS]
        if all(_ASSIGNMENT.match(w) for w in words):
            return True
        return words[0] in ("export", "declare", "typeset", "readonly", "local")

    def array_assignment(self, name: str, start: tuple[int, int]) -> None:
        """`NAME=(a b "c d")` / `NAME+=(...)`: the elements as words (comments and newlines allowed)."""
        append = self.text.startswith("+=", self.i + len(name))
        self.advance(len(name) + (3 if append else 2))
        elements: list[Word] = []
        while self.i < len(self.text) and self.peek() != ")":
            char = self.peek()
            if char in " \t\r\n":
                self.advance()
            elif char == "\\" and self.peek(1) == "\n":
                self.advance(2)
            elif char == "#":
                end = self.text.find("\n", self.i)
                self.advance((len(self.text) if end < 0 else end) - self.i)
            else:
                element_start = self.pos()
                unknown: list[str] = []
                before = self.i
                pieces = self.scan(" \t\r\n)", unknown)
                if self.i == before:
                    self.advance()
                    continue
                span = self.span_from(element_start)
                for field in _split_fields(pieces):
                    if len(elements) < _MAX_ARRAY:
                        elements.append(Word(field, span, _unique(unknown)))
        self.advance()
        span = self.span_from(start)
        self.add_word(Word(f"{name}{'+' if append else ''}=", span, (), tuple(elements)))

    # Expansions --------------------------------------------------------------------------------
    def expansion(self, unknown: list[str], quoted: bool) -> list[tuple[str, bool]]:
        """`$...` or a backquote at the cursor as pieces (text, split by bash?); "\\x00" separates
        the elements of an array."""
        split = not quoted
        start = self.i
        if self.peek() == "`":
            self.advance()
            while self.i < len(self.text) and self.peek() != "`":
                self.advance(2 if self.peek() == "\\" else 1)
            self.advance()
            unknown.append(self.text[start : self.i])
            return [(self.text[start : self.i], False)]
        self.advance()  # $
        char = self.peek()
        if char == "(":
            arithmetic = self.peek(1) == "("
            self.skip_balanced("(", ")")
            written = self.text[start : self.i]
            value = self.arithmetic(written) if arithmetic else None
            if value is None:
                unknown.append(written)
                return [(written, False)]
            return [(value, split)]
        if char == "{":
            inner = self.braced_text()
            return self.braced(inner, unknown, quoted)
        match = _NAME.match(self.text, self.i)
        if match:
            self.advance(match.end() - self.i)
            return self.looked_up(match.group(0), unknown, split)
        if char and (char.isdigit() or char in "@*#?$!-"):
            self.advance()
            if _ARGS in self.arrays and (char in "@*#" or char in "123456789"):
                return [(self.positional(char, unknown, quoted), split)]
            unknown.append("$" + char)
            return [("$" + char, False)]
        return [("$", False)]

    def positional(self, char: str, unknown: list[str], quoted: bool) -> str:
        """`$@`, `$*`, `$#`, `$1`..`$9` of a script whose arguments are known (one a caller runs with words)."""
        args = self.arrays[_ARGS]
        if char == "#":
            return str(len(args))
        if char in "@*":
            return self.element(_ARGS, char, "", "$" + char, unknown, quoted)
        index = int(char) - 1
        if index >= len(args):
            return _NOTHING if quoted else ""
        unknown.extend(args[index].unknown)
        return args[index].text

    def braced_text(self) -> str:
        """The text between `${` and its `}`, past nested `${...}`, `$(...)` and quotes."""
        self.advance()  # {
        begin = self.i
        depth = 1
        while self.i < len(self.text):
            char = self.peek()
            if char == "\\":
                self.advance(2)
            elif char in "'\"":
                self.skip_quoted(char)
            elif char == "$" and self.peek(1) == "(":
                self.advance()
                self.skip_balanced("(", ")")
            elif char == "$" and self.peek(1) == "{":
                self.advance(2)
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    inner = self.text[begin : self.i]
                    self.advance()
                    return inner
                self.advance()
            else:  # plain characters up to the next one that matters, in one step
                found = _BRACED_STOP.search(self.text, self.i + 1)
                self.advance((found.start() if found is not None else len(self.text)) - self.i)
        return self.text[begin : self.i]

    def braced(self, inner: str, unknown: list[str], quoted: bool) -> list[tuple[str, bool]]:
        split = not quoted
        written = "${" + inner + "}"
        opaque = [(written, False)]
        if inner.startswith("#"):  # ${#NAME}: length; ${#NAME[@]}: number of elements
            match = re.fullmatch(r"#([A-Za-z_]\w*)(\[[@*]\])?", inner)
            if match and match.group(2) and match.group(1) in self.arrays:
                return [(str(len(self.arrays[match.group(1)])), split)]
            if match and not match.group(2):
                value = self.variables.get(match.group(1))
                if value is not None and value.known:
                    return [(str(len(value.text)), split)]
            unknown.append(written)
            return opaque
        match = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?", inner)
        if match is None:  # ${!NAME}, ${@:2}, ${1}: not known statically
            unknown.append(written)
            return opaque
        name, subscript = match.group(1), match.group(2)
        rest = inner[match.end() :]
        if subscript is not None:
            before = len(unknown)
            # (an element's unknown part, `$(realpath "$D/..")/a.py`, is not split where its written text has blanks)
            return _split_around(
                self.element(name, subscript[1:-1], rest, written, unknown, quoted), unknown[before:], split
            )
        operator = re.match(r":?[-=+?]", rest)
        if rest and operator is None:  # ${A#x}, ${A/x/y}, ${A:0:2}, ${A^^}: pattern operations
            unknown.append(written)
            return opaque
        if operator is None:
            return self.looked_up(name, unknown, split)
        op, argument = operator.group(0), rest[operator.end() :]
        known = self.variables.get(name)
        if known is None and self.arrays.get(name):
            known = self.arrays[name][0]
        empty = known is not None and known.known and known.text == ""
        use_word = known is None or (empty and op.startswith(":"))
        if op.endswith("+"):  # ${A:+word}: the word when A is set (and not empty)
            if known is not None and not known.known:
                unknown.extend(known.unknown)
                return opaque
            return [] if use_word else self.fragment(argument, unknown, quoted)
        if op.endswith("?") or not use_word:
            return self.looked_up(name, unknown, split)
        # ${VAR:-default}: the default applies unless VAR is set (from the caller's environment it
        # may be; launch scripts use this form for their defaults, so the default is taken).
        if self.tracks:
            self.defaulted.setdefault(name, self.pos()[0])
        pieces = self.fragment(argument, unknown, quoted)
        tilde = argument.startswith("~") and (argument == "~" or argument[1] in "/:")
        if tilde:  # `${DATA:-~/data}`: bash puts the home folder there, which is not known before the run
            unknown.append("~")
        if op.endswith("="):
            value = Word("".join(text for text, _ in pieces).replace(_NOTHING, ""), Span.point(*self.pos()))
            value = value._replace(unknown=("~",)) if tilde else value
            self.variables[name] = self.conditional(name, value)
        return pieces

    def element(self, name: str, index: str, rest: str, written: str, unknown: list[str], quoted: bool) -> str:
        """${A[@]}, ${A[*]}, ${A[2]}: elements of an array set in the script."""
        elements = self.arrays.get(name)
        if elements is None or rest:
            if elements is None and name in self.variables and index in ("0", "@", "*") and not rest:
                return self.lookup(name, unknown)
            unknown.append(written)
            return written
        separate = index == "@" or (index == "*" and not quoted)  # each element its own word
        for position, element in enumerate(elements):
            if separate and name in element.unknown:
                # An element added on some paths only (`EXTRA+=(...)` inside an `if`): that word may be missing,
                # the others are there whatever path ran. It is tagged `EXTRA[1]`, a tag only its own word takes.
                tag = f"{name}[{position}]"
                self.element_tags[tag] = element.text
                unknown.extend(tag if u == name else u for u in element.unknown)
            else:
                unknown.extend(element.unknown)
                for tag in element.unknown:  # (an element a caller's array added on some paths: still its own word's)
                    if separate and tag.endswith("]") and _ELEMENT_TAG.fullmatch(tag):
                        self.element_tags[tag] = element.text
            self.budget[0] -= len(element.text) + 1
        if self.budget[0] < 0:
            unknown.append(written)
            return written
        if index in ("@", "*"):
            if not elements and index == "@" and quoted:
                return _NOTHING
            separator = " " if index == "*" and quoted else _SEP
            return separator.join(e.text for e in elements)
        if re.fullmatch(r"-?\d{1,6}", index) and -len(elements) <= int(index) < len(elements):
            return elements[int(index)].text
        unknown.append(written)
        return written

    def fragment(self, text: str, unknown: list[str], quoted: bool) -> list[tuple[str, bool]]:
        """The word of `${A:-word}` as pieces: its quotes removed and its own expansions done."""
        if self.level >= _MAX_NESTING:
            unknown.append("${...}")
            return [(text, False)]
        inner = _Lexer(text, self.variables, self.arrays, self.pos(), self.level + 1, self.budget)
        inner.depth = self.depth
        # (the word is read where it stands: its reads and defaults are the script's own)
        inner.nounset, inner.unset_reads, inner.defaulted = self.nounset, self.unset_reads, self.defaulted
        inner.tracks = self.tracks
        pieces = inner.scan("", unknown)
        return [(piece, split and not quoted) for piece, split in pieces]

    def looked_up(self, name: str, unknown: list[str], split: bool) -> list[tuple[str, bool]]:
        """`lookup` as pieces for word splitting (see _split_around)."""
        before = len(unknown)
        return _split_around(self.lookup(name, unknown), unknown[before:], split)

    def lookup(self, name: str, unknown: list[str]) -> str:
        word = self.variables.get(name)
        if word is None and self.arrays.get(name):
            word = self.arrays[name][0]
        if word is None and self.nounset and self.tracks and not self.depth and name not in self.arrays:
            self.unset_reads.setdefault(name, self.pos())
        if word is not None:
            self.budget[0] -= len(word.text)
        if word is None or self.budget[0] < 0:
            unknown.append(name)
            return "$" + name
        unknown.extend(word.unknown)
        return word.text

    def arithmetic(self, written: str) -> str | None:
        """$((...)) with integers and known variables only, evaluated as bash does (64-bit)."""
        if not (written.startswith("$((") and written.endswith("))")) or self.level >= _MAX_NESTING:
            return None
        missing: list[str] = []
        expanded = "".join(text for text, _ in self.fragment(written[3:-2], missing, quoted=True)).replace(_NOTHING, "")
        if missing:
            return None
        names: dict[str, int | None] = {}
        for name in set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", expanded)):
            word = self.variables.get(name)
            text = word.text.strip() if word is not None and word.known else ""
            names[name] = _wrap64(int(text)) if re.fullmatch(r"-?\d{1,19}", text) else None
        value = _Arithmetic.evaluate(expanded, names)
        return None if value is None else str(value)

    def conditional(self, name: str, value: Word) -> Word:
        """A value assigned inside `if`/`case`/a loop holds only on some paths: not known statically."""
        if len(value.text) > _MAX_VALUE:
            value = value._replace(text=value.text[:_MAX_VALUE], unknown=(*value.unknown, name))
        if self.depth == 0:
            return value
        return value._replace(unknown=(*value.unknown, name) if name not in value.unknown else value.unknown)

    def add_word(self, word: Word) -> None:
        self.words.append(word)
        self.continued = False
        if word.text == "]]" and self.in_test:
            self.in_test = False
        elif word.text == "[[" and all(w.text in _KEYWORDS for w in self.words[:-1]):
            self.in_test = True
        elif len(self.words) == 3 and self.words[0].text == "case" and word.text == "in":
            self.words = []
            self.cases += 1
            self.depth += 1
            self.expect_pattern = True
            self.blocks += 1
            self.arms.append([self.blocks, 0, "case"])

    def _set_options(self, words: list[Word]) -> None:
        """`set -u`, `set -euo pipefail`, `set -o nounset` (and `+u`, `+o nounset`, which turn it off)."""
        texts = [w.text for w in words[1:]]
        for index, text in enumerate(texts):
            option = texts[index + 1] if index + 1 < len(texts) else ""
            if re.fullmatch(r"-[a-zA-Z]*u[a-zA-Z]*", text) or (text == "-o" and option == "nounset"):
                self.nounset = self.nounset or words[0].span.line
            elif re.fullmatch(r"\+[a-zA-Z]*u[a-zA-Z]*", text) or (text == "+o" and option == "nounset"):
                self.nounset = 0

    def _end_case(self) -> None:
        if self.arms and self.arms[-1][2] == "case":
            self.arms.pop()

    def assign(self, name: str, value: Word) -> None:
        """NAME=value, NAME+=value, NAME=(...) and NAME+=(...) for the rest of the script."""
        append = value.text.endswith("+=") if value.array is not None else False
        if value.array is not None:
            elements = [self.conditional(name, e) for e in value.array]
            if append:
                elements = (self.arrays.get(name) or []) + elements
            self.arrays[name] = elements[:_MAX_ARRAY]
            self.variables.pop(name, None)
            return
        self.arrays.pop(name, None)
        self.variables[name] = self.conditional(name, value)

    def end_command(self, background: bool = False) -> None:
        words, self.words = self.words, []
        if words and words[0].text == "set" and self.level == 0 and self.depth == 0:
            self._set_options(words)
        self.out_targets = []  # (the ended command's list stays with its here-documents)
        self.in_test = False
        self.continued = False
        cut = self.pending_cutoff
        self.pending_cutoff = None
        if not words and cut is not None and self.carry:  # only a comment on this line: still cut
            self.pending_cutoff, self.carry = cut, False
            return
        self.carry = False
        if self.comment_in_command is not None:
            # `# ...` inside a command ends it at that line; words on the next line are a new command.
            self.pending_cutoff = (self.comment_in_command, -1)
            self.comment_in_command = None
        elif cut is not None and words and cut[1] > 0 and _continues(words[0].text):
            self.cutoffs.append(CutOff(cut[0], cut[1], tuple(words)))
            return
        while words and words[0].text in _KEYWORDS:
            if words[0].text == "{":
                self.open_group(words[0])
            if words[0].text in ("if", "while", "until"):
                self.depth += 1
            if words[0].text == "if":
                self.blocks += 1
                self.arms.append([self.blocks, 0, "if"])
            elif words[0].text in ("elif", "else") and self.arms and self.arms[-1][2] == "if":
                self.arms[-1][1] += 1
            words = words[1:]
        if words and words[0].text in _HEADERS:
            if words[0].text != "function":
                self.depth += 1
            elif len(words) > 1:  # `function name {` (or `function name() {`)
                self.defining = words[1].text.removesuffix("()")
                if words[-1].text == "{":
                    self.open_group(words[-1])
            return
        if words and words[0].text in ("fi", "done"):
            self.depth = max(self.depth - 1, 0)
        if words and words[0].text == "fi" and self.arms and self.arms[-1][2] == "if":
            self.arms.pop()
        if words and words[0].text == "esac" and self.cases:
            self.cases -= 1
            self.depth = max(self.depth - 1, 0)
            self.expect_pattern = False
            self._end_case()
        if words and words[0].text == "}":
            self.close_group(words[0])
        if not words or words[0].text in _ENDS or words[0].text in _TESTS:
            return
        prefixes: list[tuple[str, Word]] = []
        while words:
            element = _ELEMENT.match(words[0].text)
            if element is not None:  # one element set: what the array holds is no longer known
                self.variables.pop(element.group(1), None)
                self.arrays.pop(element.group(1), None)
                words = words[1:]
                continue
            match = _ASSIGNMENT.match(words[0].text)
            if not match:
                break
            value = words[0]._replace(text=match.group(3))
            if value.array is not None:
                value = value._replace(text="+=" if match.group(2) else "=")
            elif match.group(2) and match.group(1) in self.variables:
                previous = self.variables[match.group(1)]
                value = value._replace(text=previous.text + value.text, unknown=previous.unknown + value.unknown)
            prefixes.append((match.group(1), value))
            words = words[1:]
        if not words:  # VAR=value on its own: a shell variable for the rest of the script
            for name, value in prefixes:
                self.assign(name, value)
            return
        if words[0].text in ("export", "declare", "typeset", "readonly", "local"):
            self.declare(words[1:], exported=words[0].text == "export" or any(w.text == "-x" for w in words))
            return
        if words[0].text in ("shift", "set") and _ARGS in self.arrays:
            self.repositioned(words)
        if words[0].text == "unset":
            for word in words[1:]:
                self.variables.pop(word.text, None)
                self.arrays.pop(word.text, None)
                self.exported.discard(word.text)
            return
        if words[0].text == "env":
            words = words[1:]
            while words and _ASSIGNMENT.match(words[0].text):
                match = _ASSIGNMENT.match(words[0].text)
                assert match is not None
                prefixes.append((match.group(1), words[0]._replace(text=match.group(3))))
                words = words[1:]
        env = {name: self.variables[name] for name in self.exported if name in self.variables}
        env.update(prefixes)
        if words:
            branch = tuple((block, arm) for block, arm, _ in self.arms)
            command = Command(tuple(words), env, tuple(prefixes), words[0].span.line, background, self.string, branch)
            self.commands.append(command)
            if self.pending_cutoff is not None:
                self.pending_cutoff = (self.pending_cutoff[0], command.line)
                self.ending_comments.append(self.pending_cutoff[0])
            self.shell_string(command)
            if words[0].text in self.functions:
                self.call(words[0], words[1:])

    def repositioned(self, words: list[Word]) -> None:
        """`shift [n]` (and `set -- ...`) in a reader whose positional arguments are known (a function's call): what
        `$1`, `$@` are after it. Inside an if or a loop, or `set --`, they are no longer known."""
        args = self.arrays[_ARGS]
        if words[0].text == "set":
            if any(w.text == "--" for w in words[1:]):
                del self.arrays[_ARGS]
            return
        count = words[1].text if len(words) > 1 else "1"
        if self.depth or not count.isdigit() or (len(words) > 1 and words[1].unknown):
            del self.arrays[_ARGS]
        else:
            self.arrays[_ARGS] = args[int(count) :]

    # Functions ----------------------------------------------------------------------------------
    def offset(self, line: int, column: int) -> int:
        """Where a position of the file lies in this reader's text."""
        if self._line_starts is None:
            self._line_starts = [0, *(m.end() for m in re.finditer("\n", self.text))]
        row = line - self.origin[0]
        if not 0 <= row < len(self._line_starts):
            return len(self.text)
        return min(self._line_starts[row] + column - (self.origin[1] if row == 0 else 1), len(self.text))

    def open_group(self, brace: Word) -> None:
        """A `{` that opens a group of commands: a function's body when a definition names one just before."""
        end = (brace.span.end_line, brace.span.end_column)
        self.groups.append((self.defining, self.offset(*end), end, len(self.commands)))
        self.defining = None

    def close_group(self, brace: Word) -> None:
        if not self.groups:
            return
        name, start, origin, first = self.groups.pop()
        if name is None or not _NAME.fullmatch(name):
            return
        body = self.text[start : self.offset(brace.span.line, brace.span.column)]
        self.functions[name] = _Function(body, origin)
        self.definitions.append((name, first, len(self.commands)))

    def call(self, called: Word, arguments: list[Word]) -> None:
        """A call of a function the script defined: its body read again with the call's words as `$1`, `$@`...,
        and the variables as they are where it is called."""
        name = called.text
        body, origin = self.functions[name]
        self.budget[1] -= len(body) + _CALL_COST
        if self.level >= _MAX_NESTING or self.budget[1] < 0:
            return  # (not read again: the body as written stands for it)
        self.called.add(name)
        arrays = {**self.arrays, _ARGS: arguments[:_MAX_ARRAY]}
        inner = _Lexer(body, dict(self.variables), arrays, origin, self.level + 1, self.budget, self.functions)
        inner.exported, inner.string = set(self.exported), self.string
        inner.depth, inner.blocks, inner.arms = self.depth, self.blocks, [list(arm) for arm in self.arms]
        inner.run()
        self.blocks = inner.blocks
        self.commands.extend(c._replace(called_at=called.span.line) for c in inner.commands)
        self.called.update(inner.called)

    def shell_string(self, command: Command) -> None:
        """`bash -c '...'`: the commands of the string, as if written in the script; also where a command hands the
        rest of its words to another program (`ray job submit --address=... -- bash -c '...'`)."""
        words = command.words
        program = words[0].text.rsplit("/", 1)[-1]
        visible: dict[str, Word] | None = None  # (the exported variables, unless eval sees them all)
        if program == "tmux":
            string = _tmux_command(words)
        elif program == "eval":
            # `eval "$CMD"`, `eval ${COMMAND}`: its words joined by spaces, read as commands of this shell (which sees
            # every variable, exported or not)
            if len(words) < 2:
                return
            first, last = words[1], words[-1]
            span = Span(first.span.line, first.span.column, last.span.end_line, last.span.end_column)
            string = Word(" ".join(w.text for w in words[1:]), span, tuple(n for w in words[1:] for n in w.unknown))
            visible = dict(self.variables)
        else:
            if program in WRAPPERS:  # `srun [options] bash -c '...'`, `nohup bash -c '...'`
                words = run_by_wrapper(words, lambda word: word.text.rsplit("/", 1)[-1] in _SHELLS)
            elif program not in _SHELLS:
                rest = next((i for i, w in enumerate(words) if w.text == "--"), None)
                if rest is None:
                    return
                words = words[rest + 1 :]
            if not words or words[0].text.rsplit("/", 1)[-1] not in _SHELLS or len(words) < 3:
                return
            flag = next((i for i, w in enumerate(words[1:], 1) if re.fullmatch(r"-[a-z]*c[a-z]*", w.text)), None)
            string = words[flag + 1] if flag is not None and flag + 1 < len(words) else None
        if string is None or self.level >= _MAX_NESTING:
            return
        # (A string with parts not known before launch, `"cd $REPO && $CMD"`, is read too: bash expands it, then reads
        # it as commands; what stays unknown is written there as `$NAME`, which the reading below finds unknown again.)
        origin = (string.span.line, string.span.column + 1)
        if visible is None:
            visible = {name: self.variables[name] for name in self.exported if name in self.variables}
        inner = _Lexer(string.text, visible, {}, origin, self.level + 1, self.budget)
        inner.exported = set(self.exported)
        inner.run()
        if (
            program == "eval"
            or string.span.end_line - string.span.line != string.text.count("\n")
            or (self.level == 0 and self._expanded(string))
        ):
            # `\` continuations inside the quotes, which bash removes: where a word of the string stands in the file
            # is not known from its text, so each is placed at the whole string
            spanned = string.span
            self.commands.extend(
                c._replace(inner=True, words=tuple(w._replace(span=spanned) for w in c.words), line=spanned.line)
                for c in inner.commands
            )
            return
        self.commands.extend(c._replace(inner=True) for c in inner.commands)
        self.cutoffs.extend(inner.cutoffs)

    def _expanded(self, word: Word) -> bool:
        """Whether a word's text came (in part) from an expansion (`"$LAUNCHER $CMD"`): then where each of its
        characters stands in the file is not known from the text."""
        span = word.span
        written = self.text[self.offset(span.line, span.column) : self.offset(span.end_line, span.end_column)]
        return "$" in written or "`" in written

    def declare(self, words: tuple[Word, ...] | list[Word], exported: bool) -> None:
        for word in words:
            if word.text.startswith("-"):
                continue
            match = _ASSIGNMENT.match(word.text)
            name = match.group(1) if match else word.text
            if match:
                value = word._replace(text=match.group(3))
                if value.array is not None:
                    value = value._replace(text="+=" if match.group(2) else "=")
                self.assign(name, value)
            if exported:
                self.exported.add(name)


def run_by_wrapper(words: tuple[Word, ...], starts: Callable[[Word], bool]) -> tuple[Word, ...]:
    """The words of the command a wrapper runs (`srun --nodes=2 bash -c ...`, `env A=1 bash run.sh`, `timeout 2h
    ./run.sh`): from the first word `starts` accepts after the wrapper's own words; () when there is none. The words
    as they are when the first is no wrapper."""
    if not words or words[0].text.rsplit("/", 1)[-1] not in WRAPPERS:
        return words
    first = next((i for i, word in enumerate(words[1:], 1) if starts(word)), None)
    return words[first:] if first is not None else ()


# A line that writes, copies, moves, links or fetches a file (before the command that runs it).
_MAKES = lazy(r">|<<|\b(?:cp|mv|ln|wget|curl|touch|tee|rsync|scp|git|unzip|tar|python3?\s+-c|sed\s+-i)\b")


def made_here(text: str, name: str, command: Command) -> bool:
    """Whether the script itself may make a file a command of it uses: a line naming the file writes or fetches
    (`cat > x.yaml`, `wget .../x.py`). The command's own lines do not count (`python x.py > log` writes the log)."""
    words = command.words
    own = range(words[0].span.line, words[-1].span.end_line + 1) if words else range(0)
    return any(
        name in line and _MAKES.search(line) for number, line in enumerate(text.splitlines(), 1) if number not in own
    )


# The commands of a script cut where a `\\` continuation was meant: command line -> its cuts, each (the line of the
# cut, "empty" or "space", the words the author continued the command with below it). See blank_line_continuations.
Joined = dict[int, tuple[tuple[int, str, tuple[Word, ...]], ...]]


def blank_line_continuations(script: Script) -> Joined:
    """Commands cut short where the author meant a `\\` continuation (GRPO501): an empty line after the last `\\`
    (bash continues the command into the empty line, which ends it), or a space after the `\\` that ends a line (it
    escapes the space, not the line break). The flags or overrides of the lines below then run as commands of their
    own. For each such command (its line): each cut, as (its line: the empty line, or the line whose `\\` is followed
    by a space; "empty" or "space"; the words the author continued the command with below it), over every further cut
    of either kind."""
    lines = script.lines
    starting = {command.line: command for command in script.commands if command.words}
    found: Joined = {}
    # (the words a comment cut off count as the command's: a cut below them cuts the run again)
    after_comment = {cut.command_line: cut.lost for cut in script.cutoffs}
    for command in script.commands:
        if not command.words or command.inner or command.called_at:
            continue
        first = command.words[0].text
        if first.startswith("--") or looks_like_override(first):
            continue  # (the words of a cut: each is followed from the command it belongs to, once)
        last = max(word.span.end_line for word in (*command.words, *after_comment.get(command.line, ())))
        cuts: list[tuple[int, str, tuple[Word, ...]]] = []
        while 0 < last <= len(lines):
            text = lines[last - 1]
            if last < len(lines) and text.rstrip().endswith("\\") and not lines[last].strip():
                cut, kind, start = last + 1, "empty", last + 2
            elif _SPACE_AFTER_CONTINUATION.search(text):
                cut, kind, start = last, "space", last + 1
            else:
                break
            stray = starting.get(start)
            if stray is None or not (stray.words[0].text.startswith("--") or looks_like_override(stray.words[0].text)):
                break
            cuts.append((cut, kind, stray.words))
            last = max(word.span.end_line for word in stray.words)
        if cuts:
            found[command.line] = tuple(cuts)
    return found


# A line ending in an odd number of backslashes, then blanks: the last `\\` escapes the blank, not the line break.
_SPACE_AFTER_CONTINUATION = lazy(r"(?<!\\)(?:\\\\)*\\[ \t]+$")


def looks_like_override(word: str) -> bool:
    """A Hydra override of a dotted key (`trainer.nnodes=2`, `+a.b=1`): no command is named like it."""
    key, equals, _ = word.partition("=")
    return bool(equals) and re.fullmatch(r"[+~]{0,2}[A-Za-z_][\w\-]*(?:[./][\w\-]+)+", key) is not None


# tmux's options that take a value before the shell command of `new-session` / `new-window`.
_TMUX_VALUES = frozenset({"-s", "-n", "-c", "-t", "-x", "-y", "-e", "-F", "-f"})


def _tmux_command(words: tuple[Word, ...]) -> Word | None:
    """The shell command `tmux new-session -d -s NAME "command"` (or `new-window`) starts: its one word after the
    options, which tmux hands to the shell. None for any other tmux command, or a command in several words."""
    if len(words) < 3 or words[1].text not in ("new-session", "new", "new-window", "neww"):
        return None
    index = 2
    while index < len(words) and words[index].text.startswith("-"):
        index += 2 if words[index].text in _TMUX_VALUES else 1
    return words[index] if index == len(words) - 1 else None


def _continues(first: str) -> bool:
    """Whether a line after a comment reads as the rest of the command it cut: a flag or an override."""
    return (first.startswith("-") and first != "-") or looks_like_override(first)


def parse(
    text: str, path: str, environment: dict[str, Word] | None = None, arguments: list[Word] | None = None
) -> Script:
    """The commands of a script. `environment`: the variables it starts with, exported (a script run by
    another with `bash x.sh` gets the caller's exported variables); `arguments`: its positional arguments
    (`bash x.sh a=1 b=2`), used where the script neither shifts nor resets them nor defines functions (whose
    `$@` are their own)."""
    arrays = {_ARGS: arguments[:_MAX_ARRAY]} if arguments is not None and not _REPOSITIONS.search(text) else None
    lexer = _Lexer(text.replace(_SEP, "").replace(_NOTHING, ""), dict(environment) if environment else None, arrays)
    lexer.exported.update(environment or ())
    lexer.run()
    lines = tuple(text.split("\n"))
    return Script(
        path,
        text,
        _as_run(lexer),
        lexer.cutoffs,
        tuple(lexer.ending_comments),
        lines,
        lexer.unclosed,
        tuple(lexer.placeholders),
        tuple(lexer.written_files),
        tuple(lexer.embedded_python),
        _unbound(lexer, text),
        lexer.nounset,
    )


def _as_run(lexer: _Lexer) -> list[Command]:
    """The commands as the script runs them: a function that is called runs where it is called (with the call's
    arguments), so the commands of its body as written (their arguments not known) are not runs of their own."""
    dropped = [(first, end) for name, first, end in lexer.definitions if name in lexer.called]
    if not dropped:
        return lexer.commands
    return [c for i, c in enumerate(lexer.commands) if not any(first <= i < end for first, end in dropped)]


def _unbound(lexer: _Lexer, text: str) -> tuple[tuple[str, int, int, int], ...]:
    """The variables read under `set -u` before the line that gives them a default (see Script.unbound)."""
    if not lexer.unset_reads or _FUNCTIONS.search(text):
        return ()  # (a function's body runs when it is called, not where it is written)
    found = []
    for name, (line, column) in lexer.unset_reads.items():
        default = lexer.defaulted.get(name)
        if default is not None and default > line:
            found.append((name, line, column, default))
    return tuple(found)


def _unclosed_from(text: str, at: int, quote: str) -> bool:
    """Whether the quote at `at` runs to the end of the text (a `"` ends at an unescaped `"`)."""
    if quote == "'":
        return text.find("'", at + 1) < 0
    index = at + 1
    while True:
        found = text.find('"', index)
        if found < 0:
            return True
        before = found - 1
        while before > at and text[before] == "\\":
            before -= 1
        if (found - 1 - before) % 2 == 0:  # an even run of backslashes before it: the quote is not escaped
            return False
        index = found + 1


def looks_like_shell(text: str) -> bool:
    """A shebang naming a POSIX shell."""
    first = text.split("\n", 1)[0]
    return first.startswith("#!") and re.search(r"\b(ba|z|da|k)?sh\b", first) is not None
