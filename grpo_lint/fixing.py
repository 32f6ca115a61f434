"""`--fix`: apply mechanical fixes, each kept only when linting again shows it did no harm.

A round takes the first applicable fix of every fixable diagnostic, applies them to the texts in
memory and lints the whole run again with the fixed texts read in place of the files
(`reading.overlaid`). The round is kept when the diagnostics it fixed are gone and the fixes did
no harm; otherwise each fix, and each alternative of it, is tried alone. No harm means:

- a safe fix (a renamed key, `2` -> `2.0`) adds no key or reading problem (GRPO0xx): renaming a
  misspelt `num_generation` may reveal a real GRPO102 that the typo hid, which is then reported;
- an unsafe fix (another batch size) makes no rule fire more often in any file: it is chosen so
  that the group rules hold together, never traded for another error.

Nothing is written until the last round; `--diff` writes nothing at all.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from collections.abc import Callable

from grpo_lint.diagnostics import Diagnostic, Fix
from grpo_lint.edits import apply
from grpo_lint.records import Record
from grpo_lint.results import Report
from grpo_lint.sources.document import ReadProblem
from grpo_lint.sources.reading import is_regular, overlaid, read_file

MAX_ROUNDS = 10
_BOM = "\ufeff"


class Fixed(Record):
    report: Report  # the diagnostics that remain after the fixes
    fixes: list[tuple[Diagnostic, Fix]]  # what was fixed, in order
    originals: dict[str, str]  # path -> text before (without a byte-order mark)
    texts: dict[str, str]  # path -> text after (only files that changed)
    marked: frozenset[str]  # the files that start with a byte-order mark

    def diff(self) -> str:
        """A unified diff of every changed file, as `git apply` reads it."""
        chunks = []
        for path, text in self.texts.items():
            name = path.removeprefix("./")
            chunks.extend(
                difflib.unified_diff(
                    self.originals[path].splitlines(keepends=True),
                    text.splitlines(keepends=True),
                    f"a/{name}",
                    f"b/{name}",
                )
            )
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in chunks)

    def write(self) -> list[str]:
        """Write the fixed files; the paths that could not be written."""
        failed = []
        for path, text in self.texts.items():
            if not is_regular(path):
                failed.append(path)
                continue
            try:
                with open(path, "wb") as handle:  # the same file (inode, mode), not a replacement
                    handle.write(_encode(text, path in self.marked))
            except OSError:
                failed.append(path)
        return failed


def fix(lint: Callable[[], Report], unsafe: bool) -> Fixed:
    """Lint with `lint`, apply the fixes it finds round by round, and return the remaining report."""
    texts: dict[str, str] = {}
    originals: dict[str, str] = {}
    marked: set[str] = set()
    done: list[tuple[Diagnostic, Fix]] = []
    state = _State(texts, originals, marked, lint)
    report = lint()
    for _ in range(MAX_ROUNDS):
        todo = [(d, d.applicable(unsafe)) for d in report.diagnostics if d.fixable(unsafe)]
        if not todo:
            break
        # Every diagnostic's first fix at once (one more lint when they all do what they say), else one by one.
        step = _attempt([(d, fixes[0]) for d, fixes in todo], report, state)
        if step is None:
            step = _one_by_one(todo, report, state)
        if step is None:
            break
        report, applied = step
        done.extend(applied)
    changed = {path: text for path, text in texts.items() if text != originals[path]}
    return Fixed(report, done, originals, changed, frozenset(marked))


class _State(Record):
    texts: dict[str, str]  # the fixed texts so far (updated in place when a step is kept)
    originals: dict[str, str]
    marked: set[str]
    lint: Callable[[], Report]


Step = tuple[Report, list[tuple[Diagnostic, Fix]]]


def _one_by_one(todo: list[tuple[Diagnostic, list[Fix]]], report: Report, state: _State) -> Step | None:
    """Each fix alone, and its alternatives in order, keeping those that do no harm."""
    applied: list[tuple[Diagnostic, Fix]] = []
    for diagnostic, fixes in todo:
        for candidate in fixes:
            step = _attempt([(diagnostic, candidate)], report, state)
            if step is not None:
                report, kept = step
                applied.extend(kept)
                break
    return (report, applied) if applied else None


def _attempt(chosen: list[tuple[Diagnostic, Fix]], report: Report, state: _State) -> Step | None:
    """Apply `chosen` to a copy of the texts and lint again; keep the texts when no harm was done."""
    trial = dict(state.texts)
    kept: list[tuple[Diagnostic, Fix]] = []
    for diagnostic, candidate in chosen:
        files = {edit.span.path or diagnostic.path for edit in candidate.edits}
        if any(_load(path, trial, state) is None for path in files):
            continue
        staged = dict(trial)
        for path in files:
            mine = [e for e in candidate.edits if (e.span.path or diagnostic.path) == path]
            staged[path], placed = apply(staged[path], mine)
            if len(placed) != len(mine):
                break
        else:
            trial = staged
            kept.append((diagnostic, candidate))
    if not kept:
        return None
    contents = {os.path.realpath(path): _encode(text, path in state.marked) for path, text in trial.items()}
    with overlaid(contents):
        after = state.lint()
    if not _no_harm(report, after, kept):
        return None
    state.texts.update(trial)
    return after, kept


def _no_harm(before: Report, after: Report, kept: list[tuple[Diagnostic, Fix]]) -> bool:
    old = Counter((d.path, d.code) for d in before.diagnostics)
    new = Counter((d.path, d.code) for d in after.diagnostics)
    fixed = Counter((d.path, d.code) for d, _ in kept)
    if any(new[key] > old[key] - count for key, count in fixed.items()):
        return False  # a fixed diagnostic is still there: the fix did not do what it says
    unsafe = any(f.applicability != "safe" for _, f in kept)
    grown = [key for key, count in new.items() if count > old[key]]
    return not any(unsafe or code < "GRPO1" for _, code in grown)


def _load(path: str, texts: dict[str, str], state: _State) -> str | None:
    """The current text of `path` (fixed so far, else from disk), remembering the original."""
    if path in texts:
        return texts[path]
    data = read_file(path)
    if isinstance(data, ReadProblem):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.startswith(_BOM):
        state.marked.add(path)
        text = text[1:]
    state.originals.setdefault(path, text)
    texts[path] = text
    return text


def _encode(text: str, marked: bool) -> bytes:
    """The fixed text as bytes, with the byte-order mark the file had."""
    return ((_BOM if marked else "") + text).encode("utf-8")
