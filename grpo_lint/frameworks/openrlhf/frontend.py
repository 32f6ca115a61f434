"""OpenRLHF front end: `openrlhf.cli.train_ppo_ray` flags onto a RunPlan.

The flags of either generation are read (flat up to 0.10.1, dotted from 0.10.2); the ones of the
other generation than the target's are GRPO004. argparse accepts a unique prefix of a flag, so
`--n_samples 8` is `--n_samples_per_prompt 8`. The numbers of OpenRLHF's asserts and of the
DeepSpeed batch check (reference verl-openrlhf-launchers.md section 2.2-2.4) go into an OpenRLHFRun.
"""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from grpo_lint.frameworks.base import as_int, expand_abbreviations, lifecycle_finding, schema_for
from grpo_lint.frameworks.openrlhf.fields import DOTTED_SINCE, openrlhf_table
from grpo_lint.groups import Geometry, GroupRules
from grpo_lint.options import Options
from grpo_lint.plan import KeyFinding, RunPlan, Setting
from grpo_lint.records import Record
from grpo_lint.sources.document import Document
from grpo_lint.versions import Target

# Each setting the rules read: (flat flag name, dotted flag name).
NAMES = {
    "estimator": ("advantage_estimator", "algo.advantage.estimator"),
    "n": ("n_samples_per_prompt", "rollout.n_samples_per_prompt"),
    "rollout_batch_size": ("rollout_batch_size", "rollout.batch_size"),
    "micro_rollout_batch_size": ("micro_rollout_batch_size", "rollout.micro_batch_size"),
    "vllm_generate_batch_size": ("vllm_generate_batch_size", "rollout.vllm_generate_batch_size"),
    "train_batch_size": ("train_batch_size", "train.batch_size"),
    "micro_train_batch_size": ("micro_train_batch_size", "train.micro_batch_size"),
    "temperature": ("temperature", "rollout.temperature"),
    "top_p": ("top_p", "rollout.top_p"),
    "seed": ("seed", "train.seed"),
    "actor_num_nodes": ("actor_num_nodes", "actor.num_nodes"),
    "actor_num_gpus_per_node": ("actor_num_gpus_per_node", "actor.num_gpus_per_node"),
    "ref_num_nodes": ("ref_num_nodes", "ref.num_nodes"),
    "ref_num_gpus_per_node": ("ref_num_gpus_per_node", "ref.num_gpus_per_node"),
    "reward_num_nodes": ("reward_num_nodes", "reward.num_nodes"),
    "reward_num_gpus_per_node": ("reward_num_gpus_per_node", "reward.num_gpus_per_node"),
    "vllm_num_engines": ("vllm_num_engines", "vllm.num_engines"),
    "vllm_tensor_parallel_size": ("vllm_tensor_parallel_size", "vllm.tensor_parallel_size"),
    "colocate_all": ("colocate_all_models", "train.colocate_all"),
    "colocate_actor_ref": ("colocate_actor_ref", "train.colocate_actor_ref"),
    "ring_attn_size": ("ring_attn_size", "ds.ring_attn_size"),
    "ds_tensor_parallel_size": ("ds_tensor_parallel_size", "ds.tensor_parallel_size"),
    "async_train": ("async_train", "train.async_enable"),
    "dynamic_batch": ("use_dynamic_batch", "train.dynamic_batch_enable"),
    "packing_samples": ("packing_samples", "ds.packing_samples"),
    "init_kl_coef": ("init_kl_coef", "algo.kl.init_coef"),
    "use_kl_loss": ("use_kl_loss", "algo.kl.use_loss"),
    "remote_rm_url": ("remote_rm_url", "reward.remote_url"),
    "reward_pretrain": ("reward_pretrain", "reward.model_name_or_path"),
}
# Estimators OpenRLHF asserts need n_samples_per_prompt > 1, by release.
GROUP_ESTIMATORS = (
    ("0.8.0", frozenset({"rloo", "reinforce_baseline", "group_norm"})),
    ("0.11.0", frozenset({"rloo", "reinforce_baseline", "group_norm", "dr_grpo"})),
)
# Estimators whose advantage is relative to the other samples of the prompt (all versions).
RELATIVE_ESTIMATORS = frozenset({"rloo", "reinforce_baseline", "group_norm", "dr_grpo"})


class OpenRLHFRun(Record):
    estimator: str
    n: int
    rollout_batch_size: int
    micro_rollout_batch_size: int
    vllm_generate_batch_size: int | None
    train_batch_size: int
    micro_train_batch_size: int
    actor_gpus: int
    ref_gpus: int
    actor_layout: tuple[int, int]  # (nodes, GPUs per node)
    ref_layout: tuple[int, int]
    reward_gpus: int
    ring: int
    ds_tp: int
    vllm_gpus: int
    colocate_all: bool
    colocate_actor_ref: bool
    async_train: bool
    dynamic_batch: bool
    packing: bool  # --packing_samples as written
    engines: int  # vLLM engines (0: none)
    init_kl_coef: float
    has_ref: bool  # init_kl_coef > 0
    has_reward_model: bool  # no --remote_rm_url, and a reward model is named
    asserted_groups: frozenset[str]
    dotted: bool  # the target's flag generation

    def flag(self, flat: str, dotted: str) -> str:
        return f"--{dotted if self.dotted else flat}"


# A model group OpenRLHF does not build takes no GPUs: 0 nodes or GPUs for it is no error (train_ppo_ray.py,
# 0.8.0-0.11.2: `if args.init_kl_coef == 0: ref_model = None` (0.10.2+: `algo.kl.init_coef`, unless the KL is a
# loss); the reward model group only with a reward model to load (`reward_pretrain`).
_GROUPS = {
    ("ref_num_nodes", "ref.num_nodes", "ref_num_gpus_per_node", "ref.num_gpus_per_node"): "ref",
    ("reward_num_nodes", "reward.num_nodes", "reward_num_gpus_per_node", "reward.num_gpus_per_node"): "reward",
}


def _not_built(key: str, kind: str, coerced: dict[str, Any], values: dict[str, Any]) -> bool:
    """Whether a positivity problem is on the layout of a model group this run never builds."""
    group = next((g for keys, g in _GROUPS.items() if key in keys), None)
    if group is None or kind not in ("greater_than_equal", "greater_than"):
        return False
    written = {**values, **coerced}
    if group == "ref":
        coef = written.get("init_kl_coef", written.get("algo.kl.init_coef"))
        kl_loss = written.get("use_kl_loss", written.get("algo.kl.use_loss")) in (True, "true", "True")
        try:
            return coef is not None and float(coef) == 0 and not kl_loss
        except (TypeError, ValueError):
            return False
    model = written.get("reward_pretrain", written.get("reward.model_name_or_path"))
    return model in (None, "", "None")


def build(document: Document, target: Target, options: Options) -> RunPlan:
    table = openrlhf_table()
    version = target.version
    specs = table.at(version)
    ambiguous = expand_abbreviations(document, specs)
    values = {name: entry.value for name, entry in document.entries.items() if name in specs}
    coerced, problems = schema_for(table, version).validate(values)
    problems = [p for p in problems if not _not_built(p.key, p.kind, coerced, values)]
    findings = _key_findings(document, table, version, options, ambiguous)
    dotted = version >= Version(DOTTED_SINCE)
    settings: dict[str, Setting] = {}
    for name, (flat, dot) in NAMES.items():
        flag, other = (dot, flat) if dotted else (flat, dot)
        entry = document.entries.get(flag)
        written = document.entries.get(other)  # the other generation's flag: GRPO004, but its value counts
        if entry is not None and flag in coerced:
            settings[name] = Setting(coerced[flag], entry.key, entry.key_span, "file")
        elif entry is None and written is not None and table.get(other) is not None:
            settings[name] = Setting(_plain(written.value), written.key, written.key_span, "file")
        else:
            spec = specs.get(flag)
            settings[name] = Setting(spec.default_at(version) if spec else None)
    settings["num_generations"] = settings["n"]
    run = _run(settings, version, dotted)
    min_group = "explicit" if run.estimator in run.asserted_groups else "none"
    rules = GroupRules("none", min_group, where="at start-up, before Ray starts the workers")
    geometry = Geometry(
        world_size=run.actor_gpus,
        per_device=1,
        grad_accum=1,
        num_generations=run.n if run.estimator in RELATIVE_ESTIMATORS else max(run.n, 2),
    )
    world_anchor = settings["actor_num_gpus_per_node"]
    world = Setting(
        run.actor_gpus,
        world_anchor.key,
        world_anchor.span,
        f"actor GPUs: {run.flag('actor_num_nodes', 'actor.num_nodes')} {settings['actor_num_nodes'].value} x "
        f"{run.flag('actor_num_gpus_per_node', 'actor.num_gpus_per_node')} {settings['actor_num_gpus_per_node'].value}",
    )
    plan_specs = dict(specs)
    for name in ("temperature", "top_p", "seed"):
        flag = NAMES[name][1 if dotted else 0]
        if flag in specs:
            plan_specs[name] = specs[flag]
    return RunPlan(
        path=document.path,
        document=document,
        target=target,
        flavor="config",
        settings=settings,
        world_size=world,
        group_rules=rules,
        geometry=geometry,
        problems=problems,
        key_findings=findings,
        specs=plan_specs,
        native=run,
    )


def _plain(value: Any) -> Any:
    """A flag's text as argparse would convert it, for a flag of the other generation."""
    if not isinstance(value, str):
        return value
    if value == "true":
        return True
    for convert in (int, float):
        try:
            return convert(value)
        except ValueError:
            pass
    return value


def _key_findings(
    document: Document, table: Any, version: Version, options: Options, ambiguous: frozenset[str]
) -> list[KeyFinding]:
    specs = table.at(version)
    findings: list[KeyFinding] = []
    for name, entry in document.entries.items():
        if name in specs or name in options.extra_keys:
            continue
        found = lifecycle_finding(entry, table.get(name), version)
        if found is not None:
            findings.append(found)
        else:
            status = "ambiguous" if name in ambiguous else "unknown"
            findings.append(KeyFinding(entry, status, table.suggest(name, version)))
    return findings


def _int(settings: dict[str, Setting], name: str, fallback: int) -> int:
    return max(as_int(settings[name].value, fallback), 0)


def _run(settings: dict[str, Setting], version: Version, dotted: bool) -> OpenRLHFRun:
    asserted = GROUP_ESTIMATORS[0][1]
    for since, names in GROUP_ESTIMATORS:
        if version >= Version(since):
            asserted = names
    rollout_batch = _int(settings, "rollout_batch_size", 1024)
    generate = settings["vllm_generate_batch_size"].value
    init_kl = settings["init_kl_coef"].value
    init_kl_coef = float(init_kl) if isinstance(init_kl, int | float) and not isinstance(init_kl, bool) else 0.01
    engines = as_int(settings["vllm_num_engines"].value, 0)
    remote = settings["remote_rm_url"].value
    return OpenRLHFRun(
        estimator=str(settings["estimator"].value or "gae"),
        n=_int(settings, "n", 1),
        rollout_batch_size=rollout_batch,
        micro_rollout_batch_size=max(_int(settings, "micro_rollout_batch_size", 1), 1),
        vllm_generate_batch_size=as_int(generate, 0) or None,
        train_batch_size=_int(settings, "train_batch_size", 128),
        micro_train_batch_size=max(_int(settings, "micro_train_batch_size", 1), 1),
        actor_gpus=_int(settings, "actor_num_nodes", 1) * _int(settings, "actor_num_gpus_per_node", 8),
        ref_gpus=_int(settings, "ref_num_nodes", 1) * _int(settings, "ref_num_gpus_per_node", 8),
        actor_layout=(_int(settings, "actor_num_nodes", 1), _int(settings, "actor_num_gpus_per_node", 8)),
        ref_layout=(_int(settings, "ref_num_nodes", 1), _int(settings, "ref_num_gpus_per_node", 8)),
        reward_gpus=_int(settings, "reward_num_nodes", 1) * _int(settings, "reward_num_gpus_per_node", 8),
        ring=max(_int(settings, "ring_attn_size", 1), 1),
        ds_tp=max(_int(settings, "ds_tensor_parallel_size", 1), 1),
        vllm_gpus=engines * max(_int(settings, "vllm_tensor_parallel_size", 1), 1),
        colocate_all=settings["colocate_all"].value is True,
        colocate_actor_ref=settings["colocate_actor_ref"].value is True,
        async_train=settings["async_train"].value is True,
        dynamic_batch=settings["dynamic_batch"].value is True,
        packing=settings["packing_samples"].value is True,
        engines=max(engines, 0),
        init_kl_coef=init_kl_coef,
        has_ref=init_kl_coef > 0,
        has_reward_model=not remote and bool(settings["reward_pretrain"].value),
        asserted_groups=asserted,
        dotted=dotted,
    )
