"""What a lint run was asked to do (from the command line, later also from configuration files)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from grpo_lint.versions import Target


class Thresholds(NamedTuple):
    """Where sampling becomes so narrow that groups are likely to collapse (GRPO205)."""

    min_temperature: float = 0.3
    min_top_p: float = 0.5
    min_top_k: int = 5


class Options(NamedTuple):
    targets: Mapping[str, Target] = MappingProxyType({})
    world_size: int | None = None
    framework: str | None = None  # forced front end: "trl" or "swift"
    select: frozenset[str] = frozenset()
    ignore: frozenset[str] = frozenset()
    extra_keys: frozenset[str] = frozenset()
    thresholds: Thresholds = Thresholds()
