"""Record verl's config keys and defaults, release by release, for grpo_lint/data/verl_keys.json.

    python tools/verl_keys.py 0.4.0=DIR 0.5.0=DIR ... > grpo_lint/data/verl_keys.json

Each DIR holds a release's `verl/trainer/config/` (from its wheel or `git archive vX verl/trainer/config`).
The flattened reference files `_generated_ppo_trainer.yaml` / `_generated_ppo_megatron_trainer.yaml`
are read when the release has them (0.5.0+), else `ppo_trainer.yaml` / `ppo_megatron_trainer.yaml`
(self-contained before 0.5.0). A key's entry is [kind, default, first release, first release without
it]; a default that changed is a list of [release, value] changes. Only dotted key names, default
values and the releases in which each key exists are recorded: facts about verl's interface, no code.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml
from packaging.version import Version

FLAVOURS = {"fsdp": "ppo_trainer", "megatron": "ppo_megatron_trainer"}


def flatten(node: Any, prefix: str = "") -> dict[str, Any]:
    """Leaves by dotted path; an empty mapping is a leaf (its children need `+`)."""
    out: dict[str, Any] = {}
    if isinstance(node, dict) and node:
        for key, value in node.items():
            if key in ("defaults", "_target_") or (not prefix and key == "hydra"):
                continue
            out.update(flatten(value, f"{prefix}{key}."))
        return out
    out[prefix[:-1]] = node
    return out


def kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "interp" if value.startswith("${") else "mandatory" if value == "???" else "str"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "dict"
    return "null"


def keys_of(config_dir: Path, name: str) -> dict[str, Any] | None:
    for candidate in (f"_generated_{name}.yaml", f"{name}.yaml"):
        path = config_dir / candidate
        if path.is_file():
            return flatten(yaml.safe_load(path.read_text(encoding="utf-8")))
    return None


def main(pairs: list[str]) -> None:
    releases = sorted(((Version(v), Path(d)) for v, _, d in (p.partition("=") for p in pairs)), key=lambda r: r[0])
    result: dict[str, Any] = {"releases": [str(v) for v, _ in releases]}
    for flavour, name in FLAVOURS.items():
        seen: dict[str, list[str]] = {}
        history: dict[str, list[list[Any]]] = {}  # [[first release with this default, default], ...]
        for version, directory in releases:
            keys = keys_of(directory / "verl" / "trainer" / "config", name)
            if keys is None:
                continue
            for key, value in keys.items():
                seen.setdefault(key, []).append(str(version))
                value = value if not isinstance(value, dict) else {}
                changes = history.setdefault(key, [])
                if not changes or changes[-1][1] != value:
                    changes.append([str(version), value])
        table = {}
        names = [str(v) for v, _ in releases]
        for key, present in sorted(seen.items()):
            first = present[0]
            last = names.index(present[-1])
            removed = names[last + 1] if last + 1 < len(names) else None
            changes = history[key]
            default: Any = changes[0][1] if len(changes) == 1 else changes
            table[key] = [kind(changes[-1][1]), default, first, removed]
        result[flavour] = table
    json.dump(result, sys.stdout, sort_keys=True, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
