"""Read YAML and JSON configs with positions, using PyYAML's composer (the C one where present)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from grpo_lint.diagnostics import Span
from grpo_lint.patterns import lazy
from grpo_lint.sources.document import WANDB_MARKERS, Document, Entry, ReadProblem
from grpo_lint.sources.numbers import integer
from grpo_lint.sources.yaml_guards import GuardedLoader, guarded_root

_MERGE_TAG = "tag:yaml.org,2002:merge"


def read_bytes(path: Path) -> bytes | ReadProblem:
    from grpo_lint.sources.reading import read_file

    return read_file(path)


def decode(data: bytes) -> str | ReadProblem:
    """Decode UTF-8 text; a NUL byte or invalid UTF-8 means a binary file."""
    nul = data.find(b"\x00", 0, 8192)
    if nul >= 0:
        return ReadProblem("is a binary file (NUL byte), not a config", _offset_span(data, nul))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return ReadProblem(
            f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            _offset_span(data, exc.start),
        )


def _offset_span(data: bytes, offset: int) -> Span:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return Span.point(line, column)


def parse(text: str, path: str, fmt: str) -> Document | ReadProblem | None:
    """Parse text. None means an empty document (nothing to lint)."""
    loader = GuardedLoader(text)
    try:
        root = guarded_root(loader, text)
        if root is None or isinstance(root, ReadProblem):
            return root
        if not isinstance(root, yaml.MappingNode):
            kind = "a list" if isinstance(root, yaml.SequenceNode) else "a single value"
            return ReadProblem(
                f"top level is {kind}; a GRPO config is a mapping of `key: value`",
                _span(root, text.splitlines()),
                text,
            )
        document = Document(path=path, text=text, format=fmt, entries={})
        tagged: list[yaml.MarkedYAMLError] = []
        entries = _mapping_entries(loader, root, 0, document.duplicates, text.splitlines(), tagged, fmt == "json")
        for key, entry in entries:
            document.entries[key] = entry
        if tagged:
            # A value with a tag of another program (mkdocs' `!!python/name:`, `!ENV`) or a tag that does not
            # fit its value (`!!int abc`): the loaders the frameworks use stop on it too. Whether the rest reads
            # as a GRPO config decides whether a walk reports it (a named file always is).
            from grpo_lint.frameworks.detect import detect

            return _yaml_problem(tagged[0], text)._replace(grpo=detect(document).framework is not None)
        if _is_wandb_record(document.entries):
            _unwrap_wandb(document)
        return document
    except yaml.MarkedYAMLError as exc:
        if fmt == "json":
            fallback = _parse_json(text, path)
            if fallback is not None:
                return fallback
        return _yaml_problem(exc, text)
    except yaml.YAMLError as exc:
        return ReadProblem(f"is not valid {fmt.upper()}: {exc}", None, text)
    except RecursionError:
        return ReadProblem("nests too deeply to be a config", None, text)
    finally:
        loader.dispose()


def _mapping_entries(
    loader: Any,
    node: yaml.MappingNode,
    depth: int,
    duplicates: list[tuple[Entry, Entry]],
    lines: list[str],
    tagged: list[yaml.MarkedYAMLError],
    json: bool = False,
) -> list[tuple[str, Entry]]:
    """The entries of a mapping; a value whose tag no safe loader knows is read as None and its error
    kept in `tagged`. `json`: the text is JSON, whose numbers YAML 1.1 does not all read as numbers."""
    if any(key.tag == _MERGE_TAG for key, _ in node.value):
        loader.flatten_mapping(node)
    seen: dict[str, Entry] = {}
    result: list[tuple[str, Entry]] = []
    for key_node, value_node in node.value:
        raw_key = loader.construct_object(key_node, deep=True)
        key = raw_key if isinstance(raw_key, str) else str(raw_key)
        try:
            value = loader.construct_object(value_node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            tagged.append(exc)
            value = None  # the key still tells whether this is a GRPO config
        if json:
            value = _json_numbers(value_node, value)
        entry = Entry(key, value, _span(key_node, lines), _span(value_node, lines))
        if isinstance(value_node, yaml.MappingNode) and depth < 16:
            entry.children = dict(_mapping_entries(loader, value_node, depth + 1, [], lines, tagged, json))
        elif isinstance(value_node, yaml.SequenceNode):
            entry.item_spans = [_span(item, lines) for item in value_node.value]
        if key in seen:
            duplicates.append((seen[key], entry))
        seen[key] = entry
        result.append((key, entry))
    return result


# A JSON number YAML 1.1 reads as text: an exponent without a dot or without a sign (`1e-06`, `1.5e6`).
_JSON_NUMBER = lazy(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?[eE][-+]?[0-9]+")


def _json_numbers(node: yaml.Node, value: Any, depth: int = 0) -> Any:
    """`value` with each unquoted JSON number that YAML read as text made the number JSON reads (`"lr": 1e-06` is
    0.000001 to json.load, and so to the program that reads the file)."""
    if isinstance(node, yaml.ScalarNode):
        plain = not node.style and isinstance(value, str) and _JSON_NUMBER.fullmatch(value) is not None
        return float(value) if plain else value
    if depth > 64:
        return value
    if isinstance(node, yaml.SequenceNode) and isinstance(value, list) and len(value) == len(node.value):
        return [_json_numbers(item, part, depth + 1) for item, part in zip(node.value, value, strict=True)]
    if isinstance(node, yaml.MappingNode) and isinstance(value, dict):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value in value:
                value[key_node.value] = _json_numbers(value_node, value[key_node.value], depth + 1)
    return value


_WANDB_FIELDS = frozenset({"desc", "value"})


def _wrapped(entry: Entry) -> bool:
    return isinstance(entry.value, dict) and "value" in entry.children and set(entry.children) <= _WANDB_FIELDS


def _is_wandb_record(entries: dict[str, Entry]) -> bool:
    """A W&B run's config.yaml: `wandb_version`/`_wandb` at the top and every value as `{desc, value}`."""
    if not any(marker in entries for marker in WANDB_MARKERS):
        return False
    others = [entry for key, entry in entries.items() if key not in WANDB_MARKERS]
    return bool(others) and sum(map(_wrapped, others)) * 2 > len(others)


def _unwrap_wandb(document: Document) -> None:
    """Read each `key: {desc: ..., value: v}` of a W&B record as `key: v`, positioned at `v`."""
    document.record = "W&B run config"
    unwrapped: dict[str, Entry] = {}
    for key, entry in document.entries.items():
        if key in WANDB_MARKERS:
            continue
        if _wrapped(entry):
            inner = entry.children["value"]
            entry = Entry(key, inner.value, entry.key_span, inner.value_span)
            entry.children, entry.item_spans = inner.children, inner.item_spans
        unwrapped[key] = entry
    document.entries = unwrapped


def _span(node: yaml.Node, lines: list[str] | None = None) -> Span:
    start, end = node.start_mark, node.end_mark
    if end.line > start.line and end.column == 0:
        # A block value ends at the start of the next line: end it at the end of its last line.
        length = len(lines[end.line - 1]) if lines and end.line <= len(lines) else 0
        return Span(start.line + 1, start.column + 1, end.line, length + 1)
    return Span(start.line + 1, start.column + 1, end.line + 1, max(end.column + 1, start.column + 2))


def _yaml_problem(exc: yaml.MarkedYAMLError, text: str) -> ReadProblem:
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or "syntax error"
    if exc.context and exc.context not in problem:
        problem = f"{problem} ({exc.context})"
    span = Span.point(mark.line + 1, mark.column + 1) if mark is not None else None
    if isinstance(exc, yaml.constructor.ConstructorError):
        return ReadProblem(f"a value cannot be read: {problem}", span, text)
    return ReadProblem(f"syntax error: {problem}", span, text)


def _parse_json(text: str, path: str) -> Document | ReadProblem | None:
    """JSON that PyYAML rejects (tabs, some escapes): parse it with json and locate keys by text."""
    import json  # only for JSON PyYAML rejects: not on the start of a YAML lint

    try:
        value = json.loads(text, parse_int=integer)
    except json.JSONDecodeError as exc:
        return ReadProblem(f"syntax error: {exc.msg}", Span.point(exc.lineno, exc.colno), text)
    except (ValueError, RecursionError):
        return None  # the YAML reader's own error is the better message
    if not isinstance(value, dict):
        return ReadProblem("top level is not an object; a GRPO config is a mapping", None, text)
    document = Document(path=path, text=text, format="json", entries={})
    for key, item in value.items():
        span = _find_json_key(text, key)
        document.entries[str(key)] = Entry(str(key), item, span, span)
    return document


def _find_json_key(text: str, key: str) -> Span:
    import json

    match = re.search(re.escape(json.dumps(key)) + r"\s*:", text)
    if match is None:
        return Span.point(1, 1)
    start = match.start()
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    return Span(line, column, line, column + len(json.dumps(key)))


def read_decoded(path: Path) -> str | ReadProblem:
    """A file's text (UTF-8), or why it has none: the one way a config, script or Python file is read."""
    data = read_bytes(path)
    return data if isinstance(data, ReadProblem) else decode(data)


def read(path: Path, display: str) -> Document | ReadProblem | None:
    text = read_decoded(path)
    if isinstance(text, ReadProblem):
        return text
    fmt = "json" if path.suffix.lower() == ".json" else "yaml"
    return parse(text, display, fmt)


def read_text(text: str, display: str) -> Document | ReadProblem | None:
    fmt = "json" if display.lower().endswith(".json") else "yaml"
    return parse(text, display, fmt)
