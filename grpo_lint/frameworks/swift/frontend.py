"""ms-swift front end: `swift rlhf cfg.yaml` configs and the args.json a run writes."""

from __future__ import annotations

from math import ceil
from typing import Any

from packaging.version import Version

from grpo_lint.diagnostics import Span
from grpo_lint.frameworks.base import (
    CANONICAL,
    as_int,
    classify_keys,
    expand_abbreviations,
    resolve_settings,
    rules_at,
    schema_for,
    vllm_top_p,
)
from grpo_lint.frameworks.schema import ValueProblem
from grpo_lint.frameworks.swift.fields import CONFIG_FILE_KEYS, swift_table
from grpo_lint.groups import Geometry, GroupRules
from grpo_lint.options import Options
from grpo_lint.plan import RunPlan, Setting
from grpo_lint.sources.document import Document
from grpo_lint.versions import Target

_LATE = "after the model loads"
# Which batch must hold whole groups, by release (reference ms-swift.md §3.1). 3.5.0-3.5.1 relied on
# TRL's GRPOConfig; TRL >= 0.18 is assumed there.
GROUP_RULES = (
    ("3.1.1", "3.4.0", GroupRules("global", "misleading", eval="num_generations", where=_LATE)),
    ("3.4.0", "3.5.0", GroupRules("effective", "explicit", eval="num_generations", where=_LATE)),
    ("3.5.0", "3.12.0", GroupRules("generation", "explicit", "rejected", "global", "num_generations")),
    # 3.12 requires trl < 0.25, whose GRPOConfig (inherited) checks the eval batch against num_generations.
    ("3.12.0", "4.0.0", GroupRules(
        "generation", "explicit", "rejected", "global", "num_generations_eval", eval_also_train_group=True,
    )),
    ("4.0.0", "4.4.0", GroupRules("generation", "explicit", "rejected", "global", "num_generations_eval")),
    ("4.4.0", None, GroupRules(
        "generation", "explicit", "must_match", "global", "num_generations_eval",
        checks_need_groups=True, teacher_allows_one=True,
    )),
)  # fmt: skip

# 3.5.0-3.5.1 dropped ms-swift's own group checks (#4322) until 3.5.2 restored them (#4590): TRL's
# GRPOConfig checks them from TRL 0.18.
LEAVES_TO_TRL = (Version("3.5.0"), Version("3.5.2"))
TRL_CHECKS = Version("0.18.0")

# The TRL releases an ms-swift release installs with, for the releases where a verdict depends on the
# TRL under it (first, end, TRL first, TRL end): requirements/framework.txt, and the floor GRPOConfig
# asserts from 4.0.0 (require_version('trl>=0.20')). 4.0.0-4.1.x: the rollout-step bug (GRPO114).
TRL_UNDER = (
    (Version("3.5.0"), Version("3.5.2"), Version("0.15.0"), Version("0.20.0")),
    (Version("4.0.0"), Version("4.0.3"), Version("0.20.0"), Version("0.29.0")),
    (Version("4.0.3"), Version("4.2.0"), Version("0.20.0"), Version("0.30.0")),
)


def trl_under(version: Version) -> tuple[Version, Version] | None:
    """The TRL range [first, end) this ms-swift release installs with, where a rule depends on it."""
    for first, end, trl_first, trl_end in TRL_UNDER:
        if first <= version < end:
            return trl_first, trl_end
    return None


_NUMERIC = ("int", "float", "bool")


def is_args_json(document: Document) -> bool:
    entries = document.entries
    return document.path.endswith("args.json") or (
        "swift_version" in entries or ("global_world_size" in entries and "rlhf_type" in entries)
    )


def _name(key: str) -> str:
    """A key or flag as written (`--max-length`) as the argument's name (`max_length`)."""
    return key.lstrip("-").replace("-", "_")


def build(document: Document, target: Target, options: Options) -> RunPlan:
    table = swift_table()
    version = target.version
    flavor = "args.json" if is_args_json(document) else "config"
    ambiguous = frozenset[str]()
    as_argv = document.format == "cli" or (
        # swift turns a config file into command-line words: `--config` YAML from 3.10, any file from 4.1
        flavor == "config" and (version >= _FILES_AS_TEXT or (version >= _CONFIG_FLAG and document.format == "yaml"))
    )
    if as_argv:
        # swift's argparse (allow_abbrev) takes a unique prefix of a flag for the flag itself
        ambiguous = expand_abbreviations(document, table.at(version))
    values: dict[str, Any] = {}
    null_problems: list[ValueProblem] = []
    specs = table.at(version)
    for key, entry in document.entries.items():
        name = key.replace("-", "_")
        if entry.value is None:
            # args.json records unset arguments as null. A config file's null reaches swift's
            # argument parser as the string 'None' (reference ms-swift.md §1.2 b).
            if flavor == "config" and name in specs and specs[name].base_kind in _NUMERIC:
                null_problems.append(
                    ValueProblem(
                        key,
                        "swift_null",
                        f"is null, which ms-swift passes on as the string 'None': not a {specs[name].base_kind}",
                    )
                )
            continue
        values[name] = entry.value
    coerced, problems = schema_for(table, version).validate(values)
    # ms-swift's record of a run (args.json) holds its arguments after __post_init__ turned them into what the run
    # uses (`init_weights: 'true'` -> true): not what a user writes, so not judged against the declared types.
    # ms-swift never checks top_p itself (v3.5.3, v3.10.2, v4.2.0).
    problems = ([] if flavor == "args.json" else problems) + vllm_top_p(coerced)
    if flavor == "args.json":
        findings = []
    else:
        findings = classify_keys(document, table, version, CONFIG_FILE_KEYS, options.extra_keys)
        findings = [f for f in findings if _name(f.entry.key) not in specs]
        findings = [f._replace(status="ambiguous") if _name(f.entry.key) in ambiguous else f for f in findings]
    settings = resolve_settings(document, table, version, coerced, CANONICAL)
    world = _world_size(document, version, options)
    w = as_int(world.value, 1)
    per_device = as_int(settings["per_device_train_batch_size"].value, 1)
    grad_accum = settings["gradient_accumulation_steps"]
    if grad_accum.value is None:
        # swift's default: 1 for GRPO since 3.7.0, ceil(16 / (batch x world size)) before.
        derived = 1 if version >= Version("3.7.0") else max(1, ceil(16 / max(per_device * w, 1)))
        grad_accum = Setting(derived, None, None, "default")
        settings["gradient_accumulation_steps"] = grad_accum
    eval_strategy = settings.get("eval_strategy", Setting(None)).value
    ratio = settings.get("split_dataset_ratio", Setting(0.0)).value or 0.0
    has_val = bool(settings.get("val_dataset", Setting(None)).value)
    eval_enabled = eval_strategy != "no" and (ratio > 0 or has_val)
    geometry = Geometry(
        world_size=w,
        per_device=per_device,
        grad_accum=as_int(grad_accum.value, 1),
        num_generations=as_int(settings["num_generations"].value, 8),
        steps_per_generation=_positive(settings.get("steps_per_generation")),
        generation_batch_size=_positive(settings.get("generation_batch_size")),
        eval_per_device=as_int(settings["per_device_eval_batch_size"].value, 1),
        num_generations_eval=_positive(settings.get("num_generations_eval")),
        eval_enabled=eval_enabled,
        has_teacher=bool(
            settings.get("teacher_model", Setting(None)).value
            or settings.get("teacher_model_server", Setting(None)).value
        ),
    )
    return RunPlan(
        path=document.path,
        document=document,
        target=target,
        flavor=flavor,
        settings=settings,
        world_size=world,
        group_rules=rules_at(GROUP_RULES, version),
        geometry=geometry,
        problems=null_problems + problems + _file_problems(document, specs, version),
        key_findings=findings,
        specs=specs,
    )


# ms-swift 3.x-4.0 read a positional JSON config with HfArgumentParser.parse_json_file, which keeps
# values as written; 3.10-4.0 turn a `--config` YAML into command-line words, list items unconverted
# (swift/cli/main.py prepare_config_args: `argv.extend(value)`). From 4.1 both become command-line text.
_FILES_AS_TEXT = Version("4.1.0")
_CONFIG_FLAG = Version("3.10.0")


def _file_problems(document: Document, specs: dict, version: Version) -> list[ValueProblem]:
    """Values a config file holds that the way this version reads the file cannot take."""
    if version >= _FILES_AS_TEXT:
        return []
    found: list[ValueProblem] = []
    for key, entry in document.entries.items():
        path = entry.key_span.path or (document.path if document.format in ("yaml", "json") else None)
        if path is None:
            continue  # a command-line flag: argparse converts it
        spec = specs.get(key.replace("-", "_"))
        value = entry.value
        if path.lower().endswith(".json") and spec is not None and spec.base_kind in ("int", "float"):
            if isinstance(value, str):
                found.append(
                    ValueProblem(
                        key,
                        "swift_json_text",
                        f"is text in a JSON config: ms-swift {version} reads JSON configs with HfArgumentParser's "
                        "parse_json_file, which keeps values as written, so the run gets a string where it "
                        "computes with a number and fails",
                        fix=f'"{key}": {value.strip()}',
                    )
                )
        elif (
            version >= _CONFIG_FLAG
            and path.lower().endswith((".yaml", ".yml"))
            and isinstance(value, list)
            and any(not isinstance(item, str) for item in value)
        ):
            quoted = ", ".join(f"'{item}'" for item in value)
            found.append(
                ValueProblem(
                    key,
                    "swift_yaml_list",
                    "is a list of non-text values, which `swift rlhf --config` (ms-swift 3.10-4.0) puts on the "
                    "command line unconverted: it stops with TypeError: expected str, bytes or os.PathLike object",
                    fix=f"{key}: [{quoted}]",
                )
            )
    return found


def _positive(setting: Setting | None) -> int | None:
    if setting is None or setting.value is None:
        return None
    value = as_int(setting.value, 0)
    return value if value > 0 else None


def _env_int(env: dict[str, Any], name: str) -> int | None:
    value = env.get(name)
    try:
        return int(str(value).strip()) if value is not None else None
    except ValueError:
        return None


def _world_size(document: Document, version: Version, options: Options) -> Setting:
    if options.world_size is not None:
        return Setting(options.world_size, None, None, "--world-size")
    if document.launcher is not None:
        return document.launcher
    env_entry = document.entries.get("ENV")
    if env_entry is not None and isinstance(env_entry.value, dict):
        env = env_entry.value
        nproc, nnodes = _env_int(env, "NPROC_PER_NODE"), _env_int(env, "NNODES")
        if nproc is not None or nnodes is not None:
            child = env_entry.children.get("NPROC_PER_NODE") or env_entry.children.get("NNODES")
            span: Span | None = child.key_span if child else env_entry.key_span
            key = f"ENV.{child.key}" if child else "ENV"
            if version < Version("4.3.0"):
                return Setting(
                    1,
                    key,
                    span,
                    f"ms-swift {version} applies ENV after choosing the launcher, so "
                    "NPROC_PER_NODE there starts no extra processes",
                )
            total = (nproc or 1) * (nnodes or 1)
            origin = "ENV NPROC_PER_NODE x NNODES" if nnodes else "ENV NPROC_PER_NODE"
            return Setting(total, key, span, origin)
    recorded = document.entries.get("global_world_size")
    if recorded is not None and isinstance(recorded.value, int) and recorded.value > 0:
        return Setting(recorded.value, recorded.key, recorded.key_span, "global_world_size")
    return Setting(1, None, None, "assumed")
