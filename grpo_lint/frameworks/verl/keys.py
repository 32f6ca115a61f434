"""Which dotted paths a verl config accepts, and what a path that is not one most likely meant.

Built once per key table and release (`index_for`), so that a config with many unknown keys costs
microseconds per key. Besides the listed paths, verl's config accepts:

- `_target_` under any section (verl instantiates dataclass-backed sections from it, 0.5+);
- anything under a free-form mapping (a key whose default is `{}`: `engine_kwargs.vllm`,
  `override_config`, `apply_chat_template_kwargs`, ...);
- named entries of a mapping of configs (`distillation.teacher_models.<name>.*`, 0.8+), whose one
  example entry in the reference config stands for any name.

A suggestion is made only within the same section (a close leaf name), or for a key of the same
component whose section differs in one place or moved by one level (`actor.profile.save_path` ->
`actor.profiler.save_path`, `actor.router_replay.mode` -> `actor.megatron.router_replay.mode`):
nothing rather than a guess.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

_CLOSE = 0.85  # difflib ratio for a misspelt leaf in the same section


class KeyIndex:
    def __init__(self, specs: Mapping[str, Any]) -> None:
        self.paths = frozenset(specs)
        self.siblings: dict[str, list[str]] = defaultdict(list)  # parent -> leaves
        self.by_leaf: dict[str, list[str]] = defaultdict(list)
        self.free: set[str] = set()  # free-form mappings
        nodes: dict[str, set[str]] = defaultdict(set)  # every inner node -> its children
        for path, spec in specs.items():
            parent, _, leaf = path.rpartition(".")
            self.siblings[parent].append(leaf)
            self.by_leaf[leaf].append(path)
            if getattr(spec, "kind", "").startswith("dict") or _is_empty_mapping(spec):
                self.free.add(path)
            parts = path.split(".")
            for depth in range(1, len(parts)):
                nodes[".".join(parts[:depth])].add(parts[depth])
        self.nodes = frozenset(nodes)
        # A plural node whose one child is itself a section: a mapping of named configs.
        self.named = {
            node: next(iter(children))
            for node, children in nodes.items()
            if len(children) == 1 and node.endswith("s") and f"{node}.{next(iter(children))}" in nodes
        }

    def canonical(self, path: str) -> str:
        """The path with a user's name for a named entry replaced by the reference config's."""
        for node, example in self.named.items():
            prefix = node + "."
            if path.startswith(prefix):
                rest = path[len(prefix) :]
                _, dot, tail = rest.partition(".")
                return f"{prefix}{example}{dot}{tail}"
        return path

    def known(self, path: str, from_file: bool = True) -> bool:
        """Whether verl's config accepts the path. A command-line override only sets keys the composed
        config has (Hydra's struct mode): new keys under a free-form mapping or a new named entry need
        `+`; a config file may add them."""
        if not from_file:
            return path in self.paths or (path.endswith("._target_") and path.rpartition(".")[0] in self.nodes)
        path = self.canonical(path)
        if path in self.paths:
            return True
        parent, _, leaf = path.rpartition(".")
        if leaf == "_target_" and (parent in self.nodes or not parent):
            return True
        parts = path.split(".")
        return any(".".join(parts[:depth]) in self.free for depth in range(1, len(parts)))

    def suggest(self, path: str) -> str | None:
        """The accepted path `path` most likely means, or None."""
        path = self.canonical(path)
        parent, _, leaf = path.rpartition(".")
        lowered = leaf.lower().replace("-", "_")
        siblings = self.siblings.get(parent, [])
        for sibling in siblings:
            if sibling.lower() == lowered:
                return f"{parent}.{sibling}" if parent else sibling
        match = difflib.get_close_matches(lowered, siblings, n=1, cutoff=_CLOSE)
        if match:
            return f"{parent}.{match[0]}" if parent else match[0]
        component = path.split(".", 1)[0]
        same_leaf = [p for p in self.by_leaf.get(leaf, ()) if p.split(".", 1)[0] == component]
        ranked = [(rank, p) for p in same_leaf if (rank := _one_step(p.split("."), path.split("."), len(same_leaf)))]
        return min(ranked, key=lambda r: (r[0], len(r[1]), r[1]))[1] if ranked else None


def _is_empty_mapping(spec: Any) -> bool:
    default = getattr(spec, "default", None)
    return isinstance(default, dict) and not default


def _one_step(candidate: list[str], path: list[str], namesakes: int) -> int:
    """How plausibly `candidate` is where `path` belongs (same leaf), 0 when not at all: 1 = moved by one
    section level (`actor.x.mode` -> `actor.megatron.x.mode`), 2 = a renamed section (`profile` ->
    `profiler`), 3 = the sibling section of the same component, for a leaf few sections of that component have
    (`actor.temperature` -> `rollout.temperature`; a `mode` or `name` could be anything's)."""
    if candidate[0] != path[0]:
        return 0  # another component (actor vs critic): not the same setting
    if len(candidate) == len(path):
        changed = [(a, b) for a, b in zip(candidate, path, strict=True) if a != b]
        if len(changed) != 1:
            return 0
        if difflib.SequenceMatcher(None, *changed[0]).ratio() >= 0.75:
            return 2
        return 3 if namesakes <= 3 else 0
    longer, shorter = (candidate, path) if len(candidate) > len(path) else (path, candidate)
    if len(longer) != len(shorter) + 1:
        return 0
    return 1 if any(longer[:i] + longer[i + 1 :] == shorter for i in range(1, len(longer) - 1)) else 0


_INDEXES: dict[int, tuple[Mapping[str, Any], KeyIndex]] = {}


def index_for(specs: Mapping[str, Any]) -> KeyIndex:
    """The index of one release's key table (the tables are cached, so their identity is stable)."""
    cached = _INDEXES.get(id(specs))
    if cached is None or cached[0] is not specs:
        cached = _INDEXES[id(specs)] = (specs, KeyIndex(specs))
    return cached[1]
