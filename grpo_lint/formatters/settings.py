"""--show-settings: the settings a run uses, each with where it came from (text or JSON)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from grpo_lint.options import Options


def _rows(options: Options, fail_on: str, origins: Mapping[str, str]) -> list[tuple[str, object, str]]:
    """(name as written in [tool.grpo-lint], value, origin) for every setting."""

    def origin(name: str) -> str:
        return origins.get(name, "default")

    targets = {f: str(t.version) for f, t in sorted(options.targets.items())}
    rows: list[tuple[str, object, str]] = [
        (
            "settings file",
            origins.get("settings file", "none found"),
            origins.get("settings source", "searched from the current directory"),
        ),
    ]
    for framework, version in targets.items():
        rows.append((f"target {framework}", version, origins.get(f"target:{framework}", "default")))
    if not targets:
        rows.append(("target", "per repository: pins, installed package, newest known", "default"))
    world = options.world_size
    if world is None and options.accelerate is not None:
        world = options.accelerate.value
    rows += [
        ("world-size", world if world is not None else "from each config or launch script", origin("world_size")),
        ("framework", options.framework or "detected per file", origin("framework")),
        ("select", sorted(options.select) or "all rules", origin("select")),
        ("ignore", sorted(options.ignore), origin("ignore")),
        ("extra-keys", sorted(options.extra_keys), origin("extra_keys")),
        ("fail-on", fail_on, origin("fail_on")),
        ("severity", {code: s.label for code, s in sorted(options.severity.items())}, origin("severity")),
        ("thresholds", options.thresholds._asdict(), origin("thresholds")),
        ("exclude", list(options.exclude.patterns), origin("exclude")),
        (
            "per-file-ignores",
            {", ".join(p.patterns): sorted(codes) for p, codes in options.per_file_ignores},
            origin("per_file_ignores"),
        ),
        ("force-exclude", options.force_exclude, origin("force_exclude")),
        ("only-configs", options.only_configs, origin("only_configs")),
    ]
    return rows


def render_settings(options: Options, fail_on: str, origins: Mapping[str, str], fmt: str) -> str:
    rows = _rows(options, fail_on, origins)
    if fmt == "json":
        payload = [{"setting": name, "value": value, "from": where} for name, value, where in rows]
        return json.dumps(payload, indent=2, default=str) + "\n"
    width = max(len(name) for name, _, _ in rows)
    lines = []
    for name, value, where in rows:
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        if isinstance(value, dict):
            shown = ", ".join(f"{k}: {v}" for k, v in value.items())
        lines.append(f"{name:<{width}}  {shown if shown not in ('', None) else '-'}  [{where}]")
    return "\n".join(lines) + "\n"
