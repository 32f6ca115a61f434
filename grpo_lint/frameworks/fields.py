"""Field tables: a framework's arguments with their kinds, defaults and life cycles, as data."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from grpo_lint.records import Record
from grpo_lint.release_range import in_range


class Versioned(Record):
    """A default that changed across releases: [(first version, value), ...] in order."""

    history: tuple[tuple[str, Any], ...]

    def at(self, version: Version) -> Any:
        value = self.history[0][1]
        for since, candidate in self.history:
            if in_range(version, since):
                value = candidate
        return value


class Choices(Record):
    """Accepted values of a string field in a range of versions."""

    since: str | None
    until: str | None
    values: tuple[Any, ...]
    # Values the framework runs with, but not as the user may think: (value, why) pairs; `...` stands
    # for any value outside `values` and `rejected`, which still stop the run.
    warned: tuple[tuple[Any, str], ...] = ()
    rejected: tuple[Any, ...] = ()
    # Checked by the framework's own entry (verl's main_ppo) when it runs, not by every program that reads the key: not
    # judged for a trainer of the repository's own or a recipe's, nor in a file no launch names.
    entry_only: bool = False
    # Other values may be registered by the run (ms-swift's reward functions a plugin adds): the values are the
    # built-in ones, and an editor's schema suggests them without ruling others out.
    extensible: bool = False

    def warning(self, value: Any) -> str | None:
        """Why `value` is only warned about, or None when it stops the run."""
        if value in self.rejected:
            return None
        specific = next((why for warned, why in self.warned if warned is not ... and warned == value), None)
        return specific or next((why for warned, why in self.warned if warned is ...), None)


class FieldSpec(Record):
    name: str
    kind: str  # int, float, bool, str, list, dict, any, unions like "dict|str"; "?" = may be null
    default: Any = None
    since: str | None = None
    removed: str | None = None  # first release without the field
    replacement: str | None = None  # the field that took its place, if any
    note: str | None = None  # what to do instead, for removed fields with no replacement
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    choices: tuple[Choices, ...] = ()
    # First release that still accepts the field but no longer reads it (deprecated, kept for a while
    # so that old configs parse): the value is not used.
    unused: str | None = None

    def default_at(self, version: Version) -> Any:
        return self.default.at(version) if isinstance(self.default, Versioned) else self.default

    def exists_at(self, version: Version) -> bool:
        return in_range(version, self.since, self.removed)

    def choices_at(self, version: Version) -> tuple[Any, ...] | None:
        found = self.choice_at(version)
        return found.values if found is not None else None

    def choice_at(self, version: Version) -> Choices | None:
        for choice in self.choices:
            if in_range(version, choice.since, choice.until):
                return choice
        return None

    @property
    def base_kind(self) -> str:
        return self.kind.rstrip("?")

    @property
    def nullable(self) -> bool:
        return self.kind.endswith("?")


class FieldTable:
    """All fields a framework ever had; `at(version)` says which exist in a release."""

    __slots__ = ("_cache", "framework", "specs")

    def __init__(self, framework: str, specs: dict[str, FieldSpec]) -> None:
        self.framework = framework
        self.specs = specs
        self._cache: dict[Version, dict[str, FieldSpec]] = {}

    def at(self, version: Version) -> dict[str, FieldSpec]:
        cached = self._cache.get(version)
        if cached is None:
            cached = {n: s for n, s in self.specs.items() if s.exists_at(version)}
            self._cache[version] = cached
        return cached

    def get(self, name: str) -> FieldSpec | None:
        return self.specs.get(name)

    def suggest(self, name: str, version: Version, extra: tuple[str, ...] = ()) -> str | None:
        """The known key that `name` most likely misspells, if one is close enough."""
        import difflib

        candidates = list(self.at(version)) + list(extra)
        lowered = name.lower().replace("-", "_")
        for candidate in candidates:
            if candidate.lower() == lowered:
                return candidate
        matches = difflib.get_close_matches(lowered, candidates, n=1, cutoff=0.85)
        if matches:
            return matches[0]
        # A missing or extra word separator or a plural: num_generation, numgenerations.
        squashed = lowered.replace("_", "").rstrip("s")
        for candidate in candidates:
            if candidate.replace("_", "").rstrip("s") == squashed:
                return candidate
        return None


def closest(word: str, candidates: list[str], cutoff: float = 0.6) -> str | None:
    """The candidate `word` most likely misspells, if any is close enough."""
    import difflib

    matches = difflib.get_close_matches(word, candidates, n=1, cutoff=cutoff)
    return matches[0] if matches else None


def sole_match(word: str, candidates: list[str], cutoff: float = 0.8, margin: float = 0.05) -> str | None:
    """The one candidate `word` clearly misspells: close enough, and clearly closer than any other
    (`num_generation` -> `num_generations`, not `num_generations_eval`). None when in doubt."""
    import difflib

    # A candidate whose upper bounds on the ratio fall below `cutoff - margin` can neither be the match nor
    # make it doubtful: only the others are scored in full (a file of thousands of misspelt keys).
    # (The bounds are symmetric, so `word` is the matcher's second sequence there, whose counts it keeps; the
    # ratio itself is taken as before, `word` first.)
    floor = cutoff - margin
    bound = difflib.SequenceMatcher(None, "", word)
    scored = []
    for candidate in set(candidates):
        if candidate == word:
            continue
        bound.set_seq1(candidate)
        if bound.real_quick_ratio() >= floor and bound.quick_ratio() >= floor:
            scored.append((difflib.SequenceMatcher(None, word, candidate).ratio(), candidate))
    scored.sort(reverse=True)
    if not scored or scored[0][0] < cutoff:
        return None
    if len(scored) > 1 and scored[1][0] > scored[0][0] - margin:
        return None
    return scored[0][1]


def spec(name: str, kind: str, default: Any = None, **kw: Any) -> FieldSpec:
    return FieldSpec(name, kind, default, **kw)


def table_from_kinds(kinds: dict[str, list[Any]], **kw: Any) -> dict[str, FieldSpec]:
    """Fields recorded by tools/dump_fields.py: {name: [kind, default]}."""
    return {name: FieldSpec(name, kind, default, **kw) for name, (kind, default) in kinds.items()}
