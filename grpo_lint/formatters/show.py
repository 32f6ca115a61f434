"""--show: what a config means for the run, without judging it (text or JSON)."""

from __future__ import annotations

import json
from typing import Any

from grpo_lint.formatters import jsonable
from grpo_lint.groups import group_batch, spell_counts, valid_world_sizes
from grpo_lint.plan import RunPlan, Setting
from grpo_lint.results import Report

_BASIS = {
    "none": "not checked by this version",
    "global": "processes x per-device batch",
    "effective": "processes x per-device batch x gradient accumulation",
    "generation": "the generation batch",
}
SAMPLING = ("temperature", "top_p", "top_k", "min_p", "repetition_penalty", "use_vllm", "vllm_mode")
# What the batch rows are computed from: when one is not known before launch, neither are they.
_GEOMETRY = (
    "per_device_train_batch_size", "gradient_accumulation_steps", "num_generations", "steps_per_generation",
    "generation_batch_size",
)  # fmt: skip
NOT_KNOWN = "not known before launch"


def describe(plan: RunPlan) -> dict[str, Any]:
    """The run in numbers, each with the key (or default) that decided it."""
    if plan.framework == "verl" and plan.native is not None:
        return _describe_verl(plan)
    if plan.framework == "openrlhf" and plan.native is not None:
        return _describe_openrlhf(plan)
    if plan.framework in ("verl", "openrlhf"):
        # a trainer of its own (a verl recipe, an agent loop) reads the batch keys its own way: no arithmetic shown
        return {**_common(plan), "kind": "sampling"}
    g, rules = plan.geometry, plan.group_rules
    # Before TRL 0.18 (bases "global"/"effective") every step generates for its own batch.
    per_round = (
        (g.generation_batch_size or g.global_batch * g.steps()) if rules.basis == "generation" else g.global_batch
    )
    must_hold = group_batch(rules, g) if rules.basis != "none" else None
    n = g.num_generations
    generation_kwargs = plan.value("generation_kwargs")
    known = not plan.document.unknown.intersection(_GEOMETRY)  # a script computes one of them: no sum is shown
    return {
        **_common(plan),
        "per_device_batch": _setting(plan, "per_device_train_batch_size"),
        "gradient_accumulation_steps": _setting(plan, "gradient_accumulation_steps"),
        "steps_per_generation": g.steps() if known else None,
        "generation_batch": per_round if known else None,
        "prompts_per_generation": per_round // n if known and n > 0 and per_round % n == 0 else None,
        "completions_per_optimizer_step": g.global_batch * g.grad_accum if known else None,
        "whole_groups_required_of": _BASIS[rules.basis],
        "whole_groups_batch": must_hold if known else None,
        "evaluation": {
            "enabled": g.eval_enabled,
            "batch": g.world_size * g.eval_per_device,
            "num_generations": g.num_generations_eval or n,
        },
        "generation_kwargs": generation_kwargs if isinstance(generation_kwargs, dict) else None,
        "valid_process_counts": (valid_world_sizes(rules, g) if rules.basis != "none" else "any")
        if known
        else NOT_KNOWN,
    }


def _setting(plan: RunPlan, name: str) -> dict[str, Any]:
    """A setting's value and what decided it; a value the launch or the script computes is not known (its default
    never applies)."""
    key = name
    if plan.framework == "verl":
        from grpo_lint.frameworks.verl.frontend import CANONICAL  # (loaded already: the plan was built there)

        key = CANONICAL.get(name, name)  # verl's own path (`actor_rollout_ref.rollout.n`), as `unknown` holds it
    if key in plan.document.unknown:
        return {"value": None, "from": NOT_KNOWN}
    return _described(plan.get(name), plan.path)


def _world(plan: RunPlan) -> dict[str, Any]:
    """How many processes (GPUs, for verl) the run has; not known when the values it is computed from are not."""
    world = plan.world_size
    counts = ("trainer.n_gpus_per_node", "trainer.nnodes") if plan.framework == "verl" else ()
    if world.key is None and world.origin != "--world-size" and plan.document.unknown.intersection(counts):
        return {"value": None, "from": NOT_KNOWN}
    return _described(world, plan.path)


def _described(setting: Setting, here: str) -> dict[str, Any]:
    # Without a key: "default", or how the value was found (--world-size, num_processes, ...). A key of another file
    # (the config a script loads) is named with that file.
    span = setting.span
    elsewhere = span is not None and span.path is not None and span.path != here
    line = (f", {span.path}:{span.line}" if elsewhere else f", line {span.line}") if span else ""
    where = f"{setting.key}{line}" if setting.key else setting.origin
    return {"value": setting.value, "from": where}


def _value(item: dict[str, Any]) -> str:
    if item["from"] == NOT_KNOWN:
        return NOT_KNOWN
    return f"{item['value']}" + (f"  [{item['from']}]" if item["from"] else "")


def _block(path: str, rows: list[tuple[str, str]]) -> str:
    width = max(len(label) for label, _ in rows)
    return "\n".join([path] + [f"  {label.ljust(width)}  {text}" for label, text in rows])


def _native_text(d: dict[str, Any]) -> str:
    rows = [("framework", f"{d['framework']} {d['target']}  [{d['target_source']}]")]
    if d.get("config_tree"):
        rows.append(("config tree", d["config_tree"]))
    rows += [("GPUs", _value(d["world_size"])), ("group size", _value(d["num_generations"]))]
    if d["kind"] == "verl":
        rows += [
            ("prompts per step", f"{d['prompts_per_step']}  [data.train_batch_size]"),
            ("responses per step", f"{d['responses_per_step']}  (x rollout.n)"),
            ("mini batch", f"{d['mini_batch_prompts']} prompts, {d['updates_per_step']} updates per step"),
            ("per-GPU mini batch", f"{d['per_gpu_mini_batch']} responses" if d["per_gpu_mini_batch"] else "-"),
            ("micro batch per GPU", str(d["micro_batch_per_gpu"]) if d["micro_batch_per_gpu"] else "not set"),
            ("dynamic batching", "on" if d["dynamic_batch"] else "off"),
            ("actor strategy", d["strategy"]),
        ]
    else:
        rows += [
            ("prompts per rollout", str(d["prompts_per_rollout"])),
            ("samples per rollout", f"{d['samples_per_rollout']}  (x n_samples_per_prompt)"),
            ("train batch", f"{d['train_batch']} samples, {d['optimizer_steps_per_rollout']} steps per rollout"),
            ("micro train batch", str(d["micro_train_batch"])),
            ("actor GPUs", str(d["actor_gpus"])),
            ("vLLM GPUs", str(d["vllm_gpus"])),
            ("estimator", d["estimator"]),
        ]
    rows += [(f"  {name}", _value(item)) for name, item in d["sampling"].items()]
    rows.append(("seed", _value(d["seed"])))
    return _block(d["path"], rows)


def render_show(report: Report, fmt: str) -> str:
    plans = [plan for f in report.files for plan in f.plans]
    skipped = [(f.path, f.note or f.status) for f in report.files if not f.plans]
    if fmt == "json":
        payload = {
            "workspace": report.facts,
            "runs": [describe(p) for p in plans],
            "skipped": [{"path": p, "reason": r} for p, r in skipped],
        }
        return json.dumps(jsonable(payload), indent=2, allow_nan=False) + "\n"
    blocks = ["\n".join(["workspace", *(f"  {fact}" for fact in report.facts)])] if report.facts else []
    blocks += [_text(describe(p)) for p in plans]
    blocks += [f"{path}: not shown ({reason})" for path, reason in skipped]
    return "\n\n".join(blocks) + "\n"


def _common(plan: RunPlan) -> dict[str, Any]:
    return {
        "path": plan.path,
        "framework": plan.target.framework_name,
        "target": str(plan.target.version),
        "target_source": plan.target.source,
        "world_size": _world(plan),
        "num_generations": _setting(plan, "num_generations"),
        "sampling": {name: _setting(plan, name) for name in SAMPLING if name in plan.settings},
        "seed": _setting(plan, "seed"),
        # the config tree the repository's own entry point composes (verl), when it was composed
        "config_tree": getattr(plan.document.hydra, "composed_from", "") or None,
    }


def _describe_verl(plan: RunPlan) -> dict[str, Any]:
    """verl counts prompts: each step takes train_batch_size prompts and generates x rollout.n responses."""
    run = plan.native
    dp = run.n_gpus // run.megatron_mp if run.megatron_mp and run.n_gpus % run.megatron_mp == 0 else None
    per_gpu_mini = run.mini * run.n // (dp // run.sp) if dp and run.sp and dp % run.sp == 0 and dp // run.sp else None
    return {
        **_common(plan),
        "kind": "verl",
        "prompts_per_step": run.train_batch_size,
        "responses_per_step": run.train_batch_size * run.n,
        "mini_batch_prompts": run.mini,
        "updates_per_step": -(-run.train_batch_size // run.mini) if run.mini > 0 else None,
        "per_gpu_mini_batch": per_gpu_mini,
        "micro_batch_per_gpu": run.micro_per_gpu,
        "dynamic_batch": run.dynamic_bsz,
        "strategy": run.strategy,
    }


def _describe_openrlhf(plan: RunPlan) -> dict[str, Any]:
    """OpenRLHF counts prompts per rollout, samples = x n_samples_per_prompt, then DeepSpeed train batches."""
    run = plan.native
    samples = run.rollout_batch_size * run.n
    return {
        **_common(plan),
        "kind": "openrlhf",
        "prompts_per_rollout": run.rollout_batch_size,
        "samples_per_rollout": samples,
        "train_batch": run.train_batch_size,
        "optimizer_steps_per_rollout": samples // run.train_batch_size if run.train_batch_size else None,
        "micro_train_batch": run.micro_train_batch_size,
        "actor_gpus": run.actor_gpus,
        "vllm_gpus": run.vllm_gpus,
        "estimator": run.estimator,
    }


def _text(d: dict[str, Any]) -> str:
    if d.get("kind") in ("verl", "openrlhf"):
        return _native_text(d)
    if d.get("kind") == "sampling":
        rows = [("framework", f"{d['framework']} {d['target']}  [{d['target_source']}]")]
        if d.get("config_tree"):
            rows.append(("config tree", d["config_tree"]))
        rows += [("GPUs", _value(d["world_size"])), ("group size", _value(d["num_generations"]))]
        rows.append(("batch arithmetic", "the entry's own trainer's (not shown)"))
        rows += [(f"  {name}", _value(item)) for name, item in d["sampling"].items()]
        rows.append(("seed", _value(d["seed"])))
        return _block(d["path"], rows)

    prompts = d["prompts_per_generation"]
    evaluation = d["evaluation"]
    rows = [
        ("framework", f"{d['framework']} {d['target']}  [{d['target_source']}]"),
        *([("config tree", d["config_tree"])] if d.get("config_tree") else []),
        ("world size", _value(d["world_size"])),
        ("per-device batch", _value(d["per_device_batch"])),
        ("gradient accumulation", _value(d["gradient_accumulation_steps"])),
        ("num_generations", _value(d["num_generations"])),
        ("steps per generation", _number(d["steps_per_generation"])),
        ("generation batch", _number(d["generation_batch"], " completions per generation round")),
        ("prompts per round", _prompts(prompts, d["generation_batch"])),
        ("completions per step", _number(d["completions_per_optimizer_step"], " per optimizer step")),
        (
            "whole groups of",
            d["whole_groups_required_of"]
            + (f" = {d['whole_groups_batch']}" if d["whole_groups_batch"] is not None else ""),
        ),
        (
            "evaluation",
            f"batch {evaluation['batch']}, groups of {evaluation['num_generations']}"
            if evaluation["enabled"]
            else "off",
        ),
    ]
    rows += [(f"  {name}", _value(item)) for name, item in d["sampling"].items()]
    if d["generation_kwargs"]:
        rows.append(("  generation_kwargs", json.dumps(jsonable(d["generation_kwargs"]))))
    rows.append(("seed", _value(d["seed"])))
    counts = d["valid_process_counts"]
    rows.append(("valid process counts", counts if isinstance(counts, str) else spell_counts(counts)))
    return _block(d["path"], rows)


def _prompts(prompts: int | None, generation_batch: int | None) -> str:
    if prompts is not None:
        return str(prompts)
    if generation_batch is None:
        return NOT_KNOWN
    return "not a whole number"


def _number(value: int | None, unit: str = "") -> str:
    return NOT_KNOWN if value is None else f"{value}{unit}"
