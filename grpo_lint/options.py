"""What a lint run was asked to do: command-line flags laid over `[tool.grpo-lint]` settings."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from grpo_lint.diagnostics import Severity
from grpo_lint.records import Record
from grpo_lint.versions import Target

if TYPE_CHECKING:
    from grpo_lint.plan import Setting


class Thresholds(Record):
    """Where sampling becomes so narrow that groups are likely to collapse (GRPO205)."""

    min_temperature: float = 0.3
    min_top_p: float = 0.5
    min_top_k: int = 5


class PathPatterns(Record):
    """Glob patterns and the directory they are relative to (the config file's)."""

    base: str = ""
    patterns: tuple[str, ...] = ()


class Options(Record):
    targets: Mapping[str, Target] = MappingProxyType({})
    world_size: int | None = None
    framework: str | None = None  # forced front end: "trl" or "swift"
    select: frozenset[str] = frozenset()
    ignore: frozenset[str] = frozenset()
    extra_keys: frozenset[str] = frozenset()
    thresholds: Thresholds = Thresholds()
    severity: Mapping[str, Severity] = MappingProxyType({})  # per-rule overrides
    exclude: PathPatterns = PathPatterns()
    per_file_ignores: tuple[tuple[PathPatterns, frozenset[str]], ...] = ()
    force_exclude: bool = False  # apply `exclude` to files named on the command line too
    only_configs: bool = False  # named files that are not GRPO configs are skipped, as in a walk
    accelerate: Setting | None = None  # world size from an accelerate config (--accelerate-config)
    jobs: int = 1  # processes that parse Python files (grpo_lint.sources.parallel); 0: one per CPU
