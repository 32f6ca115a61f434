"""Record the flags of OpenRLHF's `openrlhf.cli.train_ppo_ray`, release by release.

    python tools/openrlhf_flags.py 0.8.0=FILE 0.8.1=FILE ... > grpo_lint/data/openrlhf_flags.json

Each FILE is a release's `openrlhf/cli/train_ppo_ray.py` (from its wheel). The file is read with
`ast`; nothing is imported or run. For every flag it records [kind, default, first release, first
release without it, choices, replacement]; a flat flag that the 0.10.2 rename turned into a dotted one
gets the dotted name as its replacement (same help text, else the same last name component). Only
names, kinds, defaults and release numbers are recorded: facts about the interface, no code of it.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

from packaging.version import Version

# Renames the help text does not reveal (reference verl-openrlhf-launchers.md section 2.1).
RENAMES = {
    "--advantage_estimator": "--algo.advantage.estimator",
    "--micro_rollout_batch_size": "--rollout.micro_batch_size",
    "--temperature": "--rollout.temperature",
    "--pretrain": "--actor.model_name_or_path",
    "--use_dynamic_batch": "--train.dynamic_batch_enable",
    "--train_max_tokens_per_gpu": "--train.max_tokens_per_gpu",
    "--full_determinism": "--train.full_determinism_enable",
    "--no_advantage_std_norm": "--algo.advantage.no_std_norm",
    "--dynamic_filtering": "--algo.dynamic_filtering_enable",
    "--dynamic_filtering_reward_range": "--algo.dynamic_filtering_range",
    "--partial_rollout": "--train.partial_rollout_enable",
    "--colocate_actor_ref": "--train.colocate_actor_ref",
    "--colocate_critic_reward": "--train.colocate_critic_reward",
    # 0.11.2: the IS-correction switch became a level (off/token/seq).
    "--algo.advantage.is_correction_enable": "--algo.advantage.is_correction_level",
}


def _calls(node: ast.AST, env: dict[str, str]) -> list[tuple[ast.Call, dict[str, str]]]:
    """add_argument calls, each with the loop variables around it (`for prefix in ("actor", "critic")`)."""
    found: list[tuple[ast.Call, dict[str, str]]] = []
    if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Tuple | ast.List):
        items = [e.value for e in node.iter.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        for item in items:
            for child in node.body:
                found.extend(_calls(child, {**env, node.target.id: item}))
        return found
    if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
        found.append((node, env))
    for child in ast.iter_child_nodes(node):
        found.extend(_calls(child, env))
    return found


def _text(node: ast.AST, env: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name) and value.value.id in env:
                parts.append(env[value.value.id])
            else:
                return None
        return "".join(parts)
    return None


def flags_of(path: Path) -> dict[str, dict[str, Any]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    flags: dict[str, dict[str, Any]] = {}
    for node, env in _calls(tree, {}):
        names = [t for a in node.args if (t := _text(a, env)) is not None]
        names = [n for n in names if n.startswith("--")]
        if not names:
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        info: dict[str, Any] = {"kind": "str", "default": None, "choices": None, "help": ""}
        action = _literal(keywords.get("action"))
        type_node = keywords.get("type")
        if action in ("store_true", "store_false"):
            info["kind"] = "switch"
            info["default"] = action == "store_false"
        elif isinstance(type_node, ast.Name) and type_node.id in ("int", "float", "str"):
            info["kind"] = type_node.id
        if "nargs" in keywords:
            info["kind"] = f"list[{info['kind']}]"
        if "default" in keywords:
            info["default"] = _literal(keywords["default"])
        if "choices" in keywords:
            info["choices"] = _literal(keywords["choices"])
        info["help"] = _literal(keywords.get("help")) or ""
        for name in names:
            flags[name] = info
    return flags


def _literal(node: ast.AST | None) -> Any:
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError):
        return None


def main(pairs: list[str]) -> None:
    releases = sorted(((Version(v), Path(f)) for v, _, f in (p.partition("=") for p in pairs)), key=lambda r: r[0])
    names = [str(v) for v, _ in releases]
    seen: dict[str, list[str]] = {}
    newest: dict[str, dict[str, Any]] = {}
    for version, path in releases:
        for flag, info in flags_of(path).items():
            seen.setdefault(flag, []).append(str(version))
            newest[flag] = info
    table: dict[str, list[Any]] = {}
    for flag, present in sorted(seen.items()):
        last = names.index(present[-1])
        removed = names[last + 1] if last + 1 < len(names) else None
        info = newest[flag]
        table[flag] = [info["kind"], info["default"], present[0], removed, info["choices"], None]
    dotted = {f: i for f, i in newest.items() if "." in f and seen[f][-1] == names[-1]}
    for flag, entry in table.items():
        if entry[3] is None:
            continue
        if RENAMES.get(flag) in dotted:
            entry[5] = RENAMES[flag]
            continue
        if "." in flag:
            continue
        help_text = newest[flag]["help"]
        same_help = [d for d, i in dotted.items() if help_text and i["help"] == help_text]
        same_tail = [d for d in dotted if d.rsplit(".", 1)[-1] == flag[2:]]
        for candidates in (same_help, same_tail):
            if len(candidates) == 1:
                entry[5] = candidates[0]
                break
    json.dump({"releases": names, "flags": table}, sys.stdout, sort_keys=True, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
