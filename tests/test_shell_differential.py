"""The bash reader against a real bash parser (tree-sitter-bash, a test dependency only).

For every shell script of the fixtures, the examples and the real repositories of ../shared/corpus
(when present), both must agree on the commands (line, and each word as written), and on the
comments that end a command. Scripts tree-sitter itself cannot parse are left out and counted.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tarfile
from collections import Counter
from collections.abc import Iterator

import pytest

from grpo_lint.sources.shell import parse

from .conftest import ROOT

tree_sitter = pytest.importorskip("tree_sitter")
tree_sitter_bash = pytest.importorskip("tree_sitter_bash")

CORPUS = ROOT.parent / "shared" / "corpus" / "repos"
_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch")
# Inside these, bash runs nothing while reading the script (or another shell does, later).
_OPAQUE = frozenset({
    "command_substitution", "process_substitution", "heredoc_body", "arithmetic_expansion", "expansion",
    "string", "raw_string", "ansi_c_string", "translated_string",
})  # fmt: skip
_WRAPPERS = frozenset({"nohup", "exec", "time", "!"})
_STATEMENTS = frozenset({"command", "redirected_statement", "pipeline", "list"})


def _parser():
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


# Where tree-sitter-bash (0.25) reads differently from bash itself, checked by hand:
_TREE_SITTER_MISREADS = (
    # `grep ^rc|awk ...`: tree-sitter joins the following lines into one command (OpenRLHF and its forks)
    "/examples/scripts/nvidia_docker_install.sh",
    # `... | xargs -r kill -9` then `nohup python proxy.py &> proxy.log &`: tree-sitter makes the next
    # lines arguments of kill
    "/gkd/megatron/teacher/start_server.sh",
    # `> $LOG_BASE/server/$NAME-node$RANK.log 2>&1 &`: tree-sitter keeps part of the redirect's file name as an
    # argument of the command (R1-Searcher)
    "/OpenRLHF-RAG/dpsk1_5b-1node-grpo.sh",
    # `done < <(...) # comment` inside nested loops: tree-sitter counts the comment as ending a command
    "/scripts/train_vlm_multi.sh",
    # `B= \\  ` (an escaped blank, then a blank: no continuation) and next `NPROC_PER_NODE=8 \\` + `swift rlhf`:
    # tree-sitter takes the assignment for the command's first word (bash runs `swift` with it in its environment)
    "/CMAB/GRPO/VRT/run_GRPO_VRT_fullset.sh",
    "/CMAB/GRPO/VRT/run_GRPO_VRT_unsolved.sh",
)
# Words tree-sitter-bash leaves out although bash passes them: a lone `-` (`python - <<EOF`) and an
# escaped blank (`\\ `, one argument holding a space).
_DROPPED_BY_TREE_SITTER = frozenset({"-", "\\ "})


def _lone_expansion(word: str) -> bool:
    """`$NAME` / `${NAME:+...}` unquoted and alone: bash drops the word when the value is empty, which
    depends on values (grpo-lint computes them, tree-sitter does not), so neither side counts it."""
    if re.fullmatch(r"\$[A-Za-z_][A-Za-z0-9_]*|\"\$\{[A-Za-z_][A-Za-z0-9_]*\[@\]\}\"", word):
        return True  # "${A[@]}" too: no word at all for an empty array
    if not word.startswith("${"):
        return False
    depth = 0
    for i, char in enumerate(word[1:], 1):
        depth += char == "{"
        depth -= char == "}"
        if depth == 0:
            return i == len(word) - 1
    return False


def _normalise(words: list[str]) -> tuple[str, ...]:
    """Both readers say `nohup python x` / `env A=1 python x` run python x."""
    words = [w for w in words if w not in _DROPPED_BY_TREE_SITTER and not _lone_expansion(w)]
    while words and words[0] in _WRAPPERS:
        words = words[1:]
    if words and words[0] == "env":
        words = words[1:]
        while words and "=" in words[0] and not words[0].startswith("-"):
            words = words[1:]
    return tuple(words)


def _glue(source: bytes, words) -> list[str]:
    """Arguments with nothing between them are one word for bash (tree-sitter splits
    `$A.$B` after `.$`)."""
    texts: list[str] = []
    previous_end = None
    for word in words:
        text = word.text.decode("utf-8", "replace")
        if previous_end is not None and word.start_byte == previous_end:
            texts[-1] += text
        else:
            texts.append(text)
        previous_end = word.end_byte
    return texts


def _glued_to_assignment(node) -> bool:
    """tree-sitter reads `A=$X/$Y/z` as an assignment followed by a command `Y/z` that starts where
    the assignment ends; bash starts no command without a blank or a separator."""
    name = node.child_by_field_name("name")
    return name is not None and any(
        child.type == "variable_assignment" and child.end_byte == name.start_byte for child in node.children
    )


def _not_an_assignment(node) -> bool:
    """tree-sitter reads `--port=8000` on a line of its own as an assignment; bash assigns only to a
    name, so it runs the word as a command."""
    if node.type != "variable_assignment" or node.parent is None or node.parent.type != "program":
        return False
    name = node.child_by_field_name("name")
    return name is not None and re.fullmatch(rb"[A-Za-z_][A-Za-z0-9_]*(\[.*\])?", name.text, re.S) is None


def _has_error(node) -> bool:
    return node.has_error


def _redirected_words(node) -> list[list]:
    """tree-sitter reads every word after a redirection as one more destination; bash reads only the
    first as the file and the rest as arguments again, and a comment there ends the command (the words
    after it are a command of their own). Returns the extra arguments, then each command after a comment."""
    groups: list[list] = [[]]
    for redirect in node.children_by_field_name("redirect"):
        if redirect.type != "file_redirect":
            continue
        first = True
        for child in redirect.children:
            if child.type == "comment":  # a file name never follows a comment (`> \  # ...`: the file is " ")
                groups.append([child])
                first = False
            elif redirect.field_name_for_child(redirect.children.index(child)) == "destination":
                if first:
                    first = False
                else:
                    groups[-1].append(child)
    return groups


def _bash_rejects(source: bytes) -> bool:
    """Whether bash itself reports a syntax error (`bash -n` reads without running anything)."""
    bash = shutil.which("bash")
    if bash is None:
        return False
    done = subprocess.run([bash, "-n"], input=source, capture_output=True, timeout=30, check=False)
    return done.returncode != 0


def _join_glued_continuations(source: bytes) -> bytes:
    """A `\\` at a line's end right after a word, with the next line going on with no blank (`x=[a,\\` then
    `b]`): bash joins the pieces into one word (`x=[a,b]`, checked with bash), tree-sitter-bash ends the
    command there. The pieces are joined for tree-sitter, and the lines they took added after the joined
    line, so that every later command keeps its line number."""
    lines = source.split(b"\n")
    out: list[bytes] = []
    index = 0
    while index < len(lines):
        line, taken = lines[index], 0
        while (
            line.endswith(b"\\")
            and not line.endswith(b"\\\\")
            and len(line) > 1
            and not line[-2:-1].isspace()
            and index + taken + 1 < len(lines)
            and lines[index + taken + 1][:1] not in (b"", b" ", b"\t")
        ):
            taken += 1
            line = line[:-1] + lines[index + taken]
        out.append(line)
        out.extend([b""] * taken)
        index += taken + 1
    return b"\n".join(out)


# `<path_to_x>` standing alone: a placeholder, which grpo-lint reads as the word it stands for (and reports,
# GRPO508) where bash and tree-sitter see a redirection. Both sides are given `_path_to_x_` to compare the rest.
_PLACEHOLDER = re.compile(rb"(?<=[ \t])<([A-Za-z_][\w./:-]*)>(?=[ \t\r\n;\\]|$)", re.M)


def _placeholder_word(text: str) -> str:
    """A word as the tree-sitter side sees it once its placeholders are replaced (a whole word, or inside one)."""
    if re.fullmatch(r"<[A-Za-z_][\w./:-]*>", text):
        return f"_{text[1:-1]}_"
    return _PLACEHOLDER.sub(rb"_\1_", text.encode()).decode()


def tree_sitter_view(source: bytes) -> tuple[Counter, set[int]] | None:
    source = _PLACEHOLDER.sub(rb"_\1_", _join_glued_continuations(source))
    tree = _parser().parse(source)
    if _has_error(tree.root_node):
        return None
    commands: Counter = Counter()
    ending: set[int] = set()

    def add(words) -> None:
        texts = _normalise(_glue(source, words))
        if texts and texts[0] not in ("[", "[[", "test"):
            commands[(words[0].start_point.row + 1, texts)] += 1

    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in _OPAQUE:
            continue
        if node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            groups = _redirected_words(node)
            if body is not None and body.type == "command" and (groups[0] or len(groups) > 1):
                name = body.child_by_field_name("name")
                if name is not None:
                    add([name, *body.children_by_field_name("argument"), *groups[0]])
                for comment, *words in groups[1:]:
                    ending.add(comment.start_point.row + 1)
                    if words:
                        add(words)
                stack.extend(c for c in node.children if c != body)
                continue
        if _not_an_assignment(node):
            add([node])
        if node.type == "command" and not _glued_to_assignment(node):
            name = node.child_by_field_name("name")
            if name is not None:
                add([name, *node.children_by_field_name("argument")])
        if node.type == "comment":
            previous = node.prev_sibling
            if previous is not None and (previous.type in _STATEMENTS or _not_an_assignment(previous)):
                between = source[previous.end_byte : node.start_byte]
                if previous.end_point.row == node.start_point.row or between.strip(b" \t") == b"\\\n":
                    ending.add(node.start_point.row + 1)
        stack.extend(node.children)
    return commands, ending


def grpo_lint_view(text: str) -> tuple[Counter, set[int]]:
    script = parse(text, "script.sh")
    commands: Counter = Counter()
    # (a function's body is read once per call, with the call's arguments: as written, it is one command)
    once = {(c.line, tuple(w.span for w in c.words)): c for c in script.commands if not c.inner}
    groups = [(c.line, c.words) for c in once.values()]
    groups += [(cut.lost[0].span.line, cut.lost) for cut in script.cutoffs]
    for line, words in groups:
        spans = list(dict.fromkeys(w.span for w in words))  # a word split in several keeps one span
        texts = _normalise([_placeholder_word(script.written(s)) for s in spans])
        if texts and texts[0] != "test":  # tree-sitter's tests are not commands (see tree_sitter_view)
            commands[(line, texts)] += 1
    return commands, {span.line for span in script.ending_comments}


def _scripts() -> Iterator[tuple[str, bytes]]:
    for base in (ROOT / "tests" / "fixtures", ROOT / "examples"):
        for path in sorted(base.rglob("*")):
            if path.suffix in _SUFFIXES and path.is_file():
                yield str(path.relative_to(ROOT)), path.read_bytes()
    if CORPUS.is_dir():
        for archive in sorted(CORPUS.glob("*.tar.gz")):
            with tarfile.open(archive) as tar:
                for member in tar:
                    if member.isfile() and member.name.endswith(_SUFFIXES) and member.size < 1_000_000:
                        handle = tar.extractfile(member)
                        if handle is not None:
                            yield f"{archive.name}:{member.name}", handle.read()


def compare(source: bytes) -> list[str] | None:
    """What the two readers disagree on, or None when tree-sitter cannot parse the script."""
    expected = tree_sitter_view(source)
    if expected is None:
        return None
    text = source.decode("utf-8", "replace").replace("\r\n", "\n")
    commands, ending = grpo_lint_view(text)
    problems = [f"only tree-sitter: {c}" for c in expected[0] - commands]
    problems += [f"only grpo-lint: {c}" for c in commands - expected[0]]
    problems += [f"comment ending a command, line {n}: only tree-sitter" for n in expected[1] - ending]
    problems += [f"comment ending a command, line {n}: only grpo-lint" for n in ending - expected[1]]
    return problems


def test_bash_reader_agrees_with_tree_sitter_bash():
    scripts = list(_scripts())
    assert len(scripts) >= (600 if CORPUS.is_dir() else 8)  # the corpus snapshots, when ../shared is present
    compared, disagreements = 0, {}
    for name, source in scripts:
        if name.partition(":")[2].endswith(_TREE_SITTER_MISREADS):
            continue
        problems = compare(source)
        if problems is None:
            continue
        if problems and _bash_rejects(source):  # not a script bash runs: nothing to agree on
            continue
        compared += 1
        if problems:
            disagreements[name] = problems[:6]
    assert compared >= 0.9 * len(scripts), f"tree-sitter parsed only {compared} of {len(scripts)} scripts"
    assert not disagreements, "\n".join(f"{name}: {p}" for name, p in list(disagreements.items())[:20])


@pytest.mark.parametrize(
    "text",
    [
        'MODEL=${MODEL:-"${HOME}/models/x"}\npython3 -m verl.trainer.main_ppo a.b=$MODEL \\\n  c.d=1\n',
        'ARGS=(a=1 "b c")\nrun "${ARGS[@]}" ${ARGS[*]}\n',
        "case $x in\n  a|b) echo a ;;\n  *) echo b ;;\nesac\nf() { echo in; }\n[[ -z $x && -n $y ]] && run\n",
        "cmd \\\n  --a 1 \\\n  # --b 2 \\\n  --c 3\nbash -c 'echo hi'\n",
        "cat <<-EOF\n\tswift rlhf\n\tEOF\nfor ((i=0; i<3; i++)); do echo $i; done\necho $((1 << 3)) &> log\n",
        "i=0\nwhile (($i < 3)); do\n  if ((i > 0)); then echo $i; fi\n  i=$((i + 1))\ndone\n",
        'declare -A T\nT["$k"]=$v\nT[x]+=1\necho "${T[x]}"\n',
        "run --a 1 > out.log --b 2\n",
    ],
)
def test_small_scripts_agree(text: str):
    assert compare(text.encode()) == []


def test_arithmetic_commands_and_array_elements_run_nothing():
    script = parse("while (($i < 3)); do\n  (( i++ ))\ndone\nT[$k]=$v\nT=1 python t.py\n", "t.sh")
    assert [[w.text for w in c.words] for c in script.commands] == [["python", "t.py"]]


def test_an_empty_array_passes_no_word():
    script = parse('E=(\n  # a=1\n)\nA=(a=1 "b c")\nrun "${E[@]}" x "${A[@]}" "y${E[@]}" "${E[*]}"\n', "t.sh")
    assert [w.text for w in script.commands[0].words] == ["run", "x", "a=1", "b c", "y", ""]


def test_words_after_a_redirection_are_arguments():
    script = parse("python t.py --a 1 > out.log --num_generations 4\n", "t.sh")
    assert [w.text for w in script.commands[0].words] == ["python", "t.py", "--a", "1", "--num_generations", "4"]
