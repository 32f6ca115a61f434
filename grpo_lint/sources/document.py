"""A configuration as written: each value with the key the user typed and its position."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grpo_lint.diagnostics import Span
from grpo_lint.records import Record

if TYPE_CHECKING:
    from grpo_lint.setting import Setting


# The keys that mark a W&B run's config (`config.yaml` of a run): each value is wrapped as `{desc, value}`.
WANDB_MARKERS = ("wandb_version", "_wandb")


class Entry:
    """One `key: value` of a config, with spans of the key and of the value.

    A plain class rather than a dataclass: building dataclasses costs start-up time.
    """

    __slots__ = ("children", "item_spans", "key", "key_span", "value", "value_span")

    def __init__(self, key: str, value: Any, key_span: Span, value_span: Span) -> None:
        self.key = key
        self.value = value
        self.key_span = key_span
        self.value_span = value_span
        # For a mapping value (generation_kwargs, ENV): its own entries.
        self.children: dict[str, Entry] = {}
        # For a sequence value: the span of each item.
        self.item_spans: list[Span] = []

    def __repr__(self) -> str:
        return f"Entry({self.key!r}, {self.value!r}, line {self.key_span.line})"


class Document:
    """A parsed config file."""

    __slots__ = (
        "_lines", "called", "code", "duplicates", "entries", "entry", "format", "hydra", "launcher", "outlined",
        "parser", "path", "program", "record", "registered", "start", "text", "trainer", "unknown", "unknown_entries",
    )  # fmt: skip

    def __init__(self, path: str, text: str, format: str, entries: dict[str, Entry]) -> None:
        self.path = path
        self.text = text
        self.format = format  # "yaml", "json", "cli" (flags of a launch script), "hydra" (k=v overrides), "python"
        self.entries = entries
        self.duplicates: list[tuple[Entry, Entry]] = []
        self._lines: list[str] | None = None
        # The world size a launch script (or an accelerate config) decided, beating the file's own.
        self.launcher: Setting | None = None
        # verl: how each path was overridden (+, ++) and which base config was named (HydraContext).
        self.hydra: Any = None
        # Keys a launch script sets to values that are not known before launch (left out of entries).
        self.unknown: frozenset[str] = frozenset()
        # Their entries (value None): the key rules still judge the names, no value rule sees them.
        self.unknown_entries: dict[str, Entry] = {}
        # Where the config begins in its file: a launch's command (its first word) for the Document of a launch, so
        # that a verdict about a key nobody wrote points at the command rather than at the script's first line.
        self.start: Span | None = None
        # What kind of record of a run this file is ("W&B run config"), when it is not a config written
        # by hand: such a record lists every key the run logged, so unknown keys are not reported.
        self.record = ""
        # TRL: the program that reads this config when it is known ("trl grpo" or "trl.scripts.grpo" from
        # a launch script, "unsloth" for Python code that imports it); "" for a file linted alone or the
        # user's own script.
        self.entry = ""
        # The program whose parser reads this config, and so the keys it may hold: "" for the framework's
        # own (`trl grpo`, `swift rlhf`, verl's main_ppo), a description of a script's parser whose
        # argument classes were all resolved (`train.py:38 TrlParser((ScriptArgs, GRPOConfig))`), or None
        # when it is not known: then no key is reported unknown (grpo_lint.premises).
        self.parser: str | None = ""
        # A trainer (or config class) of the repository's own that reads the config its own way, not TRL's
        # GRPOTrainer: TRL's batch and trainer checks do not apply to it. "" when it is TRL's or not known.
        self.trainer = ""
        # What the repository's script that reads the config shows (grpo_lint.workspace.modules.Program: the checks of
        # TRL's its own trainer keeps, whether TRL's GRPOConfig is among its classes, which of its flags take a value);
        # None when no script of the repository's reads it. (Typed loosely: the sources do not import the workspace.)
        self.program: Any = None
        # The repository's Python file a launch runs (`src/r1-v/src/open_r1/grpo.py`), "" when none: the release
        # its folders state is the one that runs, before the launch script's.
        self.code = ""
        # The keys are the keywords of a call of the framework's own config class (`GRPOConfig(loss_type=...)`, a
        # launched script's call fed by its flags): each exists in the release that runs, even where the
        # repository's own parser has a flag of the same name.
        self.called = False
        # The keys of an outline (see `outline`), which has no entries: None for a config as read.
        self.outlined: tuple[str, ...] | None = None
        # Names the run may register beyond the framework's own (ms-swift's reward functions a plugin of the
        # repository may add): None when any name may be (a plugin the repository does not show is loaded).
        self.registered: frozenset[str] | None = frozenset()

    def written(self) -> list[str]:
        """The keys the config writes, those set to values not known before launch too."""
        if self.outlined is not None:
            return list(self.outlined)
        return [*self.entries, *(self.unknown_entries or ())]

    def outline(self) -> Document:
        """The config without its text and values: its path, how it is read and the keys it writes (what a
        forked process sends back of it, see grpo_lint.forked)."""
        outline = Document(self.path, "", self.format, {})
        outline.outlined = tuple(self.written())
        outline.unknown = self.unknown
        outline.record, outline.entry, outline.parser = self.record, self.entry, self.parser
        outline.trainer, outline.called, outline.start = self.trainer, self.called, self.start
        outline.program, outline.code = self.program, self.code
        return outline

    @property
    def trainer_batch(self) -> str:
        """The batch the reading script's own trainer checks holds whole groups, as its copy of TRL's check says
        ("global", "effective"), or ""."""
        return self.program.trainer_batch if self.program is not None else ""

    def line(self, number: int) -> str:
        """The source line `number` (1-based), or '' when out of range."""
        if self._lines is None:
            self._lines = self.text.splitlines()
        if 1 <= number <= len(self._lines):
            return self._lines[number - 1]
        return ""

    @property
    def values(self) -> dict[str, Any]:
        return {key: entry.value for key, entry in self.entries.items()}


class ReadProblem(Record):
    """Why a file could not be read as a config (reported as GRPO001)."""

    message: str
    span: Span | None = None
    text: str = ""
    # Whether the rest of the file reads as a GRPO config, when the reader could tell (a YAML whose only
    # unreadable part is a tagged value); None when it could not (then the text is searched for GRPO keys).
    grpo: bool | None = None


def stamp(entry: Entry, path: str) -> Entry:
    """The same entry, its spans marked as belonging to another file."""
    copy = Entry(entry.key, entry.value, entry.key_span._replace(path=path), entry.value_span._replace(path=path))
    copy.item_spans = [s._replace(path=path) for s in entry.item_spans]
    copy.children = {k: stamp(v, path) for k, v in entry.children.items()}
    return copy
