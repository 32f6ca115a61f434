"""RunPlan: one framework-neutral description of a run, each value traced to the key that set it."""

from __future__ import annotations

from typing import Any

from grpo_lint.frameworks.fields import FieldSpec
from grpo_lint.frameworks.schema import ValueProblem
from grpo_lint.groups import Geometry, GroupRules
from grpo_lint.records import Record
from grpo_lint.setting import Setting
from grpo_lint.sources.document import Document, Entry
from grpo_lint.versions import Target


class KeyFinding(Record):
    """A key that the target version does not accept as written."""

    entry: Entry
    status: str  # "unknown", "removed", "not_yet", "misplaced"
    suggestion: str | None = None
    spec: FieldSpec | None = None


class RunPlan(Record):
    path: str
    document: Document
    target: Target
    flavor: str  # "config" or "args.json"
    settings: dict[str, Setting]
    world_size: Setting
    group_rules: GroupRules
    geometry: Geometry
    problems: list[ValueProblem]
    key_findings: list[KeyFinding]
    specs: dict[str, FieldSpec]
    native: Any = None  # a front end's own arithmetic (verl's VerlRun, OpenRLHF's OpenRLHFRun)

    @property
    def framework(self) -> str:
        return self.target.framework

    @property
    def world_known(self) -> bool:
        """Whether the number of processes is known. When it is not, `world_size.value` is what is
        known of it: the run uses a multiple of that many processes (1: nothing is known)."""
        return not self.world_size.origin.startswith("assumed")

    def get(self, name: str) -> Setting:
        return self.settings.get(name) or Setting(None)

    def value(self, name: str) -> Any:
        return self.get(name).value

    def entry(self, key: str) -> Entry | None:
        return self.document.entries.get(key)

    def outline(self) -> RunPlan:
        """The run without its settings, schema and parsed config, as a forked process sends it back (what the rest
        of a run reads of it: its release and the keys it writes)."""
        return self._replace(
            document=self.document.outline(), settings={}, problems=[], key_findings=[], specs={}, native=None
        )
