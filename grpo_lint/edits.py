"""Text edits of mechanical fixes: narrowing a proposed edit to the exact text, and applying edits.

A rule proposes `Edit(span, old, new)` where `span` is a whole key or value as the reader saw it
(`--num_generation`, `"num_generation"`, `+data.train_batch_size`) and `old` the part of it to
replace. `resolve` finds `old` at the end of that text (before a closing quote) and makes the span
exact; a fix whose text does not read as expected is dropped, so that a fix never edits the wrong
characters. `apply` replaces resolved spans and checks the text again before it writes a character.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from grpo_lint.diagnostics import Diagnostic, Edit, Span

_BOUNDARY = frozenset(".-+~\"' \t=")
_QUOTES = frozenset("\"'")


def resolve(diagnostic: Diagnostic, texts: Mapping[str, str], lines: dict[str, list[str]] | None = None) -> Diagnostic:
    """The diagnostic with every edit of its fixes narrowed to the exact text it replaces and marked
    with the file it belongs to; a fix with an edit that cannot be placed is left out. `lines`: the files'
    lines as split so far, shared by the diagnostics of one file (each file is split once)."""
    kept = []
    if lines is None:
        lines = {}
    for fix in diagnostic.fixes:
        edits = [_resolve_edit(edit, diagnostic.path, texts, lines) for edit in fix.edits]
        if edits and all(e is not None for e in edits):
            kept.append(fix._replace(edits=tuple(e for e in edits if e is not None)))
    return diagnostic._replace(fixes=tuple(kept))


def _resolve_edit(edit: Edit, path: str, texts: Mapping[str, str], split: dict[str, list[str]]) -> Edit | None:
    span = edit.span
    file = span.path or path
    text = texts.get(file)
    if text is None or span.line != span.end_line or not edit.old or edit.old == edit.new:
        return None
    lines = split.get(file)
    if lines is None:
        lines = split[file] = text.splitlines()
    if not 1 <= span.line <= len(lines):
        return None
    written = lines[span.line - 1][span.column - 1 : span.end_column - 1]
    end = len(written) - 1 if written[-1:] in _QUOTES and len(written) > 1 else len(written)
    start = end - len(edit.old)
    if start < 0 or written[start:end] != edit.old:
        return None
    if start > 0 and written[start - 1] not in _BOUNDARY:
        return None
    column = span.column + start
    return Edit(Span(span.line, column, span.line, column + len(edit.old), file), edit.old, edit.new)


def line_starts(text: str) -> list[int]:
    """The offset of each line's first character, lines numbered as `str.splitlines` numbers them."""
    starts, offset = [], 0
    for line in text.splitlines(keepends=True):
        starts.append(offset)
        offset += len(line)
    return starts


def apply(text: str, edits: Iterable[Edit]) -> tuple[str, list[Edit]]:
    """`text` with the edits applied, and the edits that were. An edit is skipped when the text at its
    span is not `old` or when it overlaps an edit already taken."""
    from bisect import bisect_left, insort

    starts = line_starts(text)
    placed: list[tuple[int, int, Edit]] = []  # kept sorted by position: an overlap is with a neighbour
    for edit in edits:
        line, column = edit.span.line, edit.span.column
        if not 1 <= line <= len(starts):
            continue
        begin = starts[line - 1] + column - 1
        end = begin + len(edit.old)
        if text[begin:end] != edit.old:
            continue
        at = bisect_left(placed, (begin,), key=lambda item: item[:1])
        before = placed[at - 1] if at else None
        after = placed[at] if at < len(placed) else None
        if (before is not None and before[1] > begin) or (after is not None and after[0] < end):
            continue
        insort(placed, (begin, end, edit), key=lambda item: item[:2])
    pieces, offset = [], 0
    for begin, end, edit in placed:
        pieces += [text[offset:begin], edit.new]
        offset = end
    pieces.append(text[offset:])
    return "".join(pieces), [edit for _, _, edit in placed]
