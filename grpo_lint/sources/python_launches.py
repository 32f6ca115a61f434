"""Command lines a Python program builds and starts: `subprocess.run([sys.executable, "-m", "verl.trainer.main_ppo",
"algorithm.adv_estimator=grpo", f"trainer.project_name={NAME}", ...])`.

Each element of the list becomes a word of a launch script at the element's own line and column of the Python
file, so that the launch rules read the command as they read a shell script's and report at the element: a string
literal is that word, `sys.executable` is `python`, an f-string keeps its literal parts with each `{...}` a value not
known before launch (`trainer.project_name=${V}`: the key is still checked), and any other expression is a word not
known before launch. A list the code changes after building it (`cmd.append(...)`, `cmd += [...]`, `*extra`) may
carry more words: the command then ends in one that is not known (no rule says a key is unset). A command string
(`os.system("python -m ...")`, `subprocess.run("...", shell=True)`) is read as the script it is.
"""

from __future__ import annotations

import ast
import re

from grpo_lint.records import Record

# The functions that start a program from a list or a string of its words.
PROCESS_CALLS = frozenset({"run", "call", "check_call", "check_output", "Popen", "system"})
_PROCESS_MODULES = frozenset({"subprocess", "os"})
_NOT_NAME = re.compile(r"\W+")


def unknown(expr: ast.expr) -> str:
    """A word, or a part of one, whose value the program computes, named after the code that computes it (`{N_GPUS}`
    is `${N_GPUS}`, `{args.gpus}` is `${args_gpus}`), so that a note about it names what the reader wrote."""
    try:
        written = ast.unparse(expr)
    except (ValueError, RecursionError):
        written = "value"
    name = _NOT_NAME.sub("_", written).strip("_")[:40] or "value"
    return "${" + ("_" + name if name[0].isdigit() else name) + "}"


class Word(Record):
    text: str  # shell text: quoted where it is literal, `${V}` where it is not known
    line: int
    column: int  # 1-based


class LaunchCall(Record):
    """One program start: its words in order; `more` when the list may hold words not shown; `shell` for a command
    string (its one word is bash's text, read as written)."""

    words: tuple[Word, ...]
    more: bool = False
    shell: bool = False


def process_call(name: str, last: str, imported: dict[str, object]) -> bool:
    """Whether a call starts a program: `subprocess.run(...)`, `os.system(...)`, or `run(...)` imported from
    subprocess."""
    if last not in PROCESS_CALLS:
        return False
    module = name.rpartition(".")[0]
    if module:
        return module in _PROCESS_MODULES
    source = imported.get(last)
    return getattr(source, "module", None) == "subprocess"


def words_of(value: ast.expr) -> LaunchCall | None:
    """The words of a list or a command string, or None when the value is neither."""
    if isinstance(value, ast.List | ast.Tuple):
        words: list[Word] = []
        more = False
        for element in value.elts:
            if isinstance(element, ast.Starred):
                more = True
                continue
            text = _element(element)
            # A word bash reads unquoted stands where the string's text starts (after `"`, or `f"`), so that a key's
            # column is the file's; a quoted one where the string's quote is.
            prefix = 1 if isinstance(element, ast.JoinedStr) else 0  # (the `f`)
            inside = isinstance(element, ast.Constant | ast.JoinedStr) and text[:1] not in ("'", '"')
            words.append(Word(text, element.lineno, element.col_offset + 1 + prefix + inside))
        return LaunchCall(tuple(words), more) if words else None
    if isinstance(value, ast.Constant) and isinstance(value.value, str) and "\n" not in value.value:
        return LaunchCall((Word(value.value, value.lineno, value.col_offset + 2),), shell=True)
    if isinstance(value, ast.JoinedStr) and value.lineno == getattr(value, "end_lineno", value.lineno):
        text = "".join(
            part.value
            if isinstance(part, ast.Constant) and isinstance(part.value, str)
            else unknown(part.value if isinstance(part, ast.FormattedValue) else part)
            for part in value.values
        )
        return LaunchCall((Word(text, value.lineno, value.col_offset + 3),), shell=True)
    return None


def _element(element: ast.expr) -> str:
    if isinstance(element, ast.Constant) and isinstance(element.value, str):
        return _quoted(element.value)
    if isinstance(element, ast.Attribute) and element.attr == "executable" and isinstance(element.value, ast.Name):
        return "python" if element.value.id == "sys" else '"' + unknown(element) + '"'
    if isinstance(element, ast.JoinedStr):
        literal = [p.value for p in element.values if isinstance(p, ast.Constant) and isinstance(p.value, str)]
        plain = all(_plain(text) for text in literal if text)  # (then bash reads it unquoted, as written)
        parts = []
        for part in element.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value if plain else _in_double_quotes(part.value))
            else:
                parts.append(unknown(part.value if isinstance(part, ast.FormattedValue) else part))
        return "".join(parts) if plain else '"' + "".join(parts) + '"'
    if isinstance(element, ast.Constant) and type(element.value) in (int, float):
        return str(element.value)
    return '"' + unknown(element) + '"'


def _in_double_quotes(text: str) -> str:
    """Literal text inside bash's double quotes: what bash would expand there escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")


def _plain(text: str) -> bool:
    """Whether bash reads the text as one word as it is written (no quoting needed)."""
    return bool(text) and all(c.isalnum() or c in "-_./=:,+@%[]" for c in text)


def _quoted(text: str) -> str:
    """A literal word as bash reads it back: single-quoted unless it is plain."""
    return text if _plain(text) else "'" + text.replace("'", "'\\''") + "'"


def script_text(call: LaunchCall, line_count: int) -> str:
    """The command as a script of the Python file's length: each word at its line and column (after the word
    before it, when an earlier word is longer than its place), the lines between continued with `\\`; a list that
    may hold more words ends in one not known before launch."""
    lines = [""] * max(line_count, max(w.line for w in call.words))
    words = list(call.words)
    if call.more:
        last = words[-1]
        words.append(Word('"${MORE_WORDS}"', last.line, last.column + len(last.text) + 1))
    if call.shell:
        single = words[0]  # a command string: bash reads it as written
        lines[single.line - 1] = " " * (single.column - 1) + single.text
        return "\n".join(lines) + "\n"
    for word in words:
        row = lines[word.line - 1]
        lines[word.line - 1] = row + " " * max(word.column - 1 - len(row), 1 if row else 0) + word.text
    first, end = words[0].line, words[-1].line
    for number in range(first, end):
        lines[number - 1] += " \\"
    return "\n".join(lines) + "\n"
