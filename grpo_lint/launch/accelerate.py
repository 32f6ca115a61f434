"""accelerate config files (`accelerate launch --config_file F`): recognised, read for the world size
and checked for consistency, never reported as an unknown GRPO config."""

from __future__ import annotations

from pathlib import Path

from grpo_lint.records import Record
from grpo_lint.sources.document import Document, Entry

# Keys only an accelerate config has (reference: verl-openrlhf-launchers.md section 3).
MARKERS = frozenset({"distributed_type", "compute_environment"})


class AccelerateConfig(Record):
    path: str
    num_processes: int | None
    num_machines: int
    entries: dict[str, Entry]


def is_accelerate_config(document: Document) -> bool:
    return bool(set(document.entries) & MARKERS)


def from_document(document: Document) -> AccelerateConfig:
    processes = document.entries.get("num_processes")
    machines = document.entries.get("num_machines")
    count = processes.value if processes is not None and _is_int(processes.value) else None
    nodes = machines.value if machines is not None and _is_int(machines.value) and machines.value > 0 else 1
    return AccelerateConfig(document.path, count, nodes, document.entries)


def read_accelerate_config(path: Path) -> AccelerateConfig | None:
    from grpo_lint.sources import yaml_reader

    parsed = yaml_reader.read(path, str(path))
    if not isinstance(parsed, Document):
        return None
    return from_document(parsed)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
