"""Hydra command-line overrides (`key=value`, `+key=value`, `++key=value`, `~key`) and nested Hydra
YAML, both as entries keyed by the dotted path of the config node they set.

verl is configured this way: `python3 -m verl.trainer.main_ppo data.train_batch_size=1024 ...`.
Override values follow Hydra's grammar closely enough for the keys a linter reads: numbers (also
`1e-6`), `true`/`True`, `null`, `[a,b]` lists, `{k: v}` mappings; anything else stays a string.
"""

from __future__ import annotations

import re
from typing import Any

from grpo_lint.diagnostics import Span
from grpo_lint.patterns import lazy
from grpo_lint.records import Record
from grpo_lint.sources.document import Entry
from grpo_lint.sources.numbers import integer
from grpo_lint.sources.shell import Word

_KEY = lazy(r"^(~|\+\+|\+)?([A-Za-z_][\w\-]*(?:[./][\w\-]+)*)(?:@[\w.\-:]+)?$")
_INT = lazy(r"^[+-]?\d+(_\d+)*$")
_FLOAT = lazy(r"^[+-]?((\d+(_\d+)*)?\.\d+|\d+(_\d+)*\.?)([eE][+-]?\d+)?$|^[+-]?(inf|nan)$", re.IGNORECASE)


class Overrides(Record):
    entries: dict[str, Entry]  # by dotted path; Entry.key is the path as written, prefix included
    prefixes: dict[str, str]  # path -> "", "+", "++" or "~"
    unresolved: dict[str, Word]  # path -> the word whose variables are not known
    config_name: str | None  # --config-name / -cn
    config_path: str | None  # --config-path / -cp
    others: list[Word]  # words that are no override: flags such as --multirun, `$@`
    invalid: list[tuple[Word, str, int]]  # words Hydra cannot parse: the word, why, the offset in it
    # Overrides a later one of the same path replaces in `entries` (Hydra still applies each in turn, so a
    # `+key` before `key=...` fails as it would alone): (path, prefix, entry), in order.
    shadowed: list[tuple[str, str, Entry]]
    config_dir: str | None = None  # --config-dir / -cd: a folder added to the search path


# Hydra's own flags that take a value (hydra 1.3 `get_args_parser`); the config flags are read below.
_VALUE_FLAGS = frozenset({"--cfg", "-c", "--package", "-p", "--experimental-rerun", "--info", "-i"})
_CONFIG_FLAGS = frozenset({"--config-name", "-cn", "--config-path", "-cp", "--config-dir", "-cd"})


class HydraContext(Record):
    """What a verl Document carries besides its entries."""

    prefixes: dict[str, str]  # path -> "", "+", "++" or "~" (command-line overrides only)
    config_name: str | None  # the base config named with --config-name, if any
    file_keys: frozenset[str]  # paths a user config file defines (known to Hydra, whatever verl has)
    file_path: str | None  # that config file
    flavour: str | None  # "fsdp" or "megatron" when the base config decides it
    opaque: bool = False  # words that may hold further overrides (a bash array, $(...)): absence proves nothing
    unresolved: tuple[tuple[str, Entry], ...] = ()  # overrides whose value is unknown: their keys still count
    entry: str | None = None  # a verl trainer other than main_ppo (its own config and batch semantics)
    # The repository's own entry point composed its config tree (grpo_lint.sources.hydra_compose): every key
    # of the composed config by dotted path, with its value. None when no tree was composed.
    schema: dict[str, Any] | None = None
    composed_from: str = ""  # `the config verl_tool/trainer/main_ppo.py composes (.../ppo_trainer.yaml)`
    group_keys: frozenset[str] = frozenset()  # overrides that choose a config group, not a key
    not_composed: str = ""  # why the entry's tree could not be followed (no key is then called unknown)
    shadowed: tuple[tuple[str, str, Entry], ...] = ()  # Overrides.shadowed
    verl_loop: bool = False  # the entry feeds verl's RayPPOTrainer (or a subclass with the same groups)
    # What a command leaves unset may be set where grpo-lint cannot see: in the base config --config-name names when
    # it is not in the repository (or its folder is not known before launch), or by words not known before launch.
    # Such a value is not verl's default, and no verdict blames the default.
    defaults_unknown: bool = False
    # A file a walk found that no launch names and whose defaults list builds on no verl config: its reader is not
    # shown. When most of its keys are not verl's, it is another program's schema (a record of a run, a wrapper's
    # profile), and what it leaves unset is not verl's default either.
    unread: bool = False

    def chooses_group(self, entry: Entry) -> bool:
        """Whether an override chooses a config group's option (`model_engine=veomni`, `actor@x=dp`), not a key."""
        return entry.key.lstrip("+~").split("@", 1)[0] in self.group_keys


def parse_value(text: str) -> Any:
    """A Hydra override value as Python: 1024, 1e-06, True, None, [...], or the text itself."""
    stripped = text.strip()
    lowered = stripped.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    if lowered == "null":
        return None
    if _INT.match(stripped):
        return integer(stripped.replace("_", ""))
    if (_FLOAT.match(stripped) and any(c.isdigit() for c in stripped)) or lowered.lstrip("+-") in ("inf", "nan"):
        return float(stripped.replace("_", ""))
    if stripped[:1] in "[{" and stripped[-1:] in "]}":
        from grpo_lint.sources.yaml_guards import load_plain

        try:
            return load_plain(stripped)
        except ValueError:
            return stripped
    if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "'\"":
        return stripped[1:-1]
    return stripped


def parse_overrides(words: tuple[Word, ...] | list[Word]) -> Overrides:
    from grpo_lint.sources.hydra_grammar import override_error

    result = Overrides({}, {}, {}, None, None, [], [], [])
    index = 0
    config_name = config_path = config_dir = None
    while index < len(words):
        word = words[index]
        text = word.text
        index += 1
        if text.startswith("-"):
            flag, equals, inline = text.partition("=")
            if flag in _CONFIG_FLAGS:
                value_word = word if equals else (words[index] if index < len(words) else None)
                value = inline if equals else (value_word.text if value_word is not None else "")
                index += 0 if equals else 1
                if value_word is not None and value_word.unknown:
                    result.others.append(value_word)  # which config runs is not known: nothing is complete
                if flag in ("--config-name", "-cn"):
                    # a name known only at run time: which config (and which keys) is not known
                    config_name = value if value_word is None or value_word.known else f"(unknown: {value})"
                elif flag in ("--config-path", "-cp"):
                    config_path = value
                else:
                    config_dir = value if value_word is None or value_word.known else f"(unknown: {value})"
                continue
            result.others.append(word)
            if flag in _VALUE_FLAGS and not equals and index < len(words):
                result.others.append(words[index])  # its value, not an override
                index += 1
            continue
        if word.known and (error := override_error(text)) is not None:
            result.invalid.append((word, *error))  # Hydra stops before verl starts
        key_text, equals, value_text = text.partition("=")
        match = _KEY.match(key_text)
        if match is None or (not equals and match.group(1) != "~"):
            result.others.append(word)
            continue
        prefix, path = match.group(1) or "", match.group(2).replace("/", ".")
        line, column = word.span.line, word.span.column
        key_span = Span(line, column, line, column + len(key_text))
        value_span = Span(line, column + len(key_text) + 1, word.span.end_line, word.span.end_column)
        entry = Entry(key_text, parse_value(value_text) if equals else None, key_span, value_span)
        if path in result.entries:
            result.shadowed.append((path, result.prefixes[path], result.entries[path]))
        result.entries[path] = entry
        result.prefixes[path] = prefix
        if word.unknown:
            result.unresolved[path] = word._replace(text=value_text, span=value_span)
    return result._replace(config_name=config_name, config_path=config_path, config_dir=config_dir)


def flatten_entries(entries: dict[str, Entry], prefix: str = "") -> dict[str, Entry]:
    """Nested YAML mappings as dotted-path entries; each leaf keeps its own key's position."""
    flat: dict[str, Entry] = {}
    for key, entry in entries.items():
        path = f"{prefix}{key}"
        if entry.children and isinstance(entry.value, dict):
            flat.update(flatten_entries(entry.children, f"{path}."))
            continue
        leaf = Entry(path, entry.value, entry.key_span, entry.value_span)
        leaf.item_spans = entry.item_spans
        flat[path] = leaf
    return flat
