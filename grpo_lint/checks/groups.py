"""GRPO101-GRPO107: broken groups. The batch a generation round produces must be whole groups."""

from __future__ import annotations

from collections.abc import Iterator

from packaging.version import Version

from grpo_lint.checks import file_start, report, rule
from grpo_lint.checks.fixes import set_setting
from grpo_lint.checks.messages import first_located, fw, name_of
from grpo_lint.diagnostics import Diagnostic, Fix, Severity, Span
from grpo_lint.groups import (
    Failure,
    Geometry,
    check,
    divisors_at_least_two,
    lcm,
    nearest,
    spell_counts,
    spell_list,
    valid_world_sizes,
)
from grpo_lint.options import Options
from grpo_lint.plan import RunPlan, Setting

# Failures that do not depend on the number of processes.
_ANY_WORLD = frozenset({"GRPO101"})


# The settings a group verdict rests on (TRL and ms-swift names).
_GEOMETRY_KEYS = frozenset({
    "num_generations", "per_device_train_batch_size", "gradient_accumulation_steps", "generation_batch_size",
    "steps_per_generation", "per_device_eval_batch_size", "num_generations_eval", "num_processes",
})  # fmt: skip


# What a group of one rests on: its size, and (ms-swift) a teacher model, with which a group of one is allowed.
_GROUP_SIZE_KEYS = frozenset({"num_generations", "teacher_model", "teacher_model_server"})


def _inputs_unknown(plan: RunPlan, code: str) -> bool:
    """A setting the verdict rests on is written, but as a value not known before launch (`$N`, a
    variable in Python): its default must not be blamed, and no verdict is given. A group of one rests on
    the group size alone: a batch not known before launch leaves `num_generations=1` a group of one."""
    return bool(plan.document.unknown & (_GROUP_SIZE_KEYS if code == "GRPO101" else _GEOMETRY_KEYS))


def _failures(plan: RunPlan, code: str) -> list[Failure]:
    """The framework's verdict on this code. With an unknown world size only what holds for every
    world size is judged here; GRPO106 says for which process counts the rest passes."""
    if _inputs_unknown(plan, code) and plan.framework in ("trl", "swift"):
        return []
    if (
        not plan.world_known
        and code not in _ANY_WORLD
        and not (code == "GRPO104" and plan.group_rules.both_set == "rejected")
    ):
        return []
    return [f for f in check(plan.group_rules, plan.geometry) if f.code == code]


def _anchor(plan: RunPlan, *names: str) -> Setting | Span:
    located = first_located(*(plan.get(n) for n in names), plan.world_size)
    return located if located is not None else file_start(plan)


def _batch_words(plan: RunPlan, batch: int) -> str:
    """'generation batch 512 (16 per device x 8 processes x 4 steps)' in the version's terms."""
    g, rules = plan.geometry, plan.group_rules
    per_device = f"{g.per_device} per device"
    procs = f"{g.world_size} process{'es' if g.world_size != 1 else ''}"
    if rules.basis == "global":
        return f"global train batch {batch} ({procs} x {per_device})"
    if rules.basis == "effective":
        return f"effective train batch {batch} ({procs} x {per_device} x {g.grad_accum} gradient accumulation steps)"
    if g.generation_batch_size is not None:
        return f"{name_of(plan, 'generation_batch_size')} {batch}"
    if g.steps_per_generation is not None:
        steps = f"{g.steps()} {name_of(plan, 'steps_per_generation')}"
    else:
        steps = f"{g.steps()} gradient accumulation step{'s' if g.steps() != 1 else ''}"
    return f"generation batch {batch} ({per_device} x {procs} x {steps})"


def _framework_text(plan: RunPlan, failure: Failure) -> str:
    """What the target version itself says, verbatim where the reference records it."""
    g, v, trl = plan.geometry, plan.target.version, plan.framework == "trl"
    n, w, b = g.num_generations, g.world_size, g.per_device
    valid = divisors_at_least_two(failure.batch)
    if failure.code == "GRPO102":
        if plan.group_rules.basis == "global":
            return (
                f"The global train batch size ({w} x {b}) must be evenly divisible by the number "
                f"of generations per prompt ({n}). Given the current train batch size, the valid "
                f"values for the number of generations are: {valid}."
            )
        if plan.group_rules.basis == "effective":
            return (
                f"The effective train batch size ({w} x {b} x {g.grad_accum}) must be evenly "
                f"divisible by the number of generations per prompt ({n}). ..."
            )
        if (trl and v < Version("0.20.0")) or (not trl and v < Version("4.4.0")):
            return (
                f"The effective train batch size ({w} x {b} x {g.steps()}) must be evenly "
                f"divisible by the number of generations per prompt ({n}). ..."
            )
        if trl:
            return f"generation_batch_size ({failure.batch}) must be divisible by num_generations ({n})."
        return (
            f"generation_batch_size ({failure.batch}) must be evenly divisible by num_generations "
            f"({n}). Valid values: {valid}."
        )
    if failure.code == "GRPO103":
        e = g.eval_per_device
        if plan.group_rules.eval_also_train_group and failure.group == n and g.num_generations_eval not in (None, n):
            # the check of the TRL (0.22-0.24) that ms-swift 3.12 inherits GRPOConfig from
            return f"The global eval batch size ({e} * {w}) must be divisible by num_generations ({n})."
        if trl and v >= Version("0.26.1"):
            return (
                f"The global eval batch size ({e} * {w}) must be divisible by the number of "
                f"generations used for evaluation ({failure.group})."
            )
        if trl and v >= Version("0.22.0"):
            return f"The global eval batch size ({e} * {w}) must be divisible by num_generations ({n})."
        return (
            f"The global eval batch size ({w} x {e}) must be evenly divisible by the number of "
            f"generations per prompt ({failure.group}). ..."
        )
    return ""


def _rejects(plan: RunPlan) -> str:
    if plan.document.trainer and plan.document.trainer_batch:
        trainer = plan.document.trainer.partition(" (")[0]
        return f"The repository's own {trainer} (its copy of TRL's check) rejects it {plan.group_rules.where}"
    if _trl_decides(plan) is not None:
        return f"{fw(plan)} with TRL >= 0.18 under it rejects it {plan.group_rules.where}"
    return f"{fw(plan)} rejects it {plan.group_rules.where}"


def _trl_decides(plan: RunPlan) -> str | None:
    """ms-swift 3.5.0-3.5.1 rely on TRL's GRPOConfig for the group checks (reference ms-swift.md §3.1,
    #4322, #4589; see LEAVES_TO_TRL). None when the TRL under it is known to check; else why the verdict
    is only a warning."""
    from grpo_lint.frameworks.swift.frontend import LEAVES_TO_TRL, TRL_CHECKS

    if plan.framework != "swift" or not LEAVES_TO_TRL[0] <= plan.target.version < LEAVES_TO_TRL[1]:
        return None
    trl = plan.target.trl
    if trl is not None and trl >= TRL_CHECKS:
        return None
    later = (
        'not check it at start-up, and the run breaks later (ms-swift #4589: "ValueError: range() arg 3 must '
        'not be zero")'
    )
    if trl is not None:
        return f" The TRL under it, {trl}, does {later}."
    return (
        f" {fw(plan)} leaves this check to the GRPOConfig of the TRL installed under it, and its requirements "
        f"also allow TRL 0.15-0.17, which do {later}. Pin TRL or lint with --target trl==X to know which."
    )


def _trl_verdict(plan: RunPlan, message: str, severity: Severity | None) -> tuple[str, Severity | None]:
    """The message and severity of a group failure, a warning where the TRL underneath decides."""
    depends = _trl_decides(plan)
    if depends is None:
        return message, severity
    return message + depends, Severity.WARNING


@rule("GRPO101", "group-too-small", Severity.ERROR, "num_generations below 2.")
def group_too_small(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    if plan.framework in ("verl", "openrlhf"):
        yield from _ray_group_too_small(plan)
        return
    for failure in _failures(plan, "GRPO101"):
        n = plan.geometry.num_generations
        label = name_of(plan, "num_generations")
        message = (
            f"{label} {n}: a group needs at least 2 completions of the same prompt. The advantage "
            "of a completion is its reward minus its group's mean, so with one completion per "
            "prompt every advantage is 0 and nothing is learned."
        )
        if not failure.rejected:
            message += f" {fw(plan)} accepts it and trains on zero advantages."
        elif n < 1 and plan.framework == "swift" and plan.group_rules.checks_need_groups:
            # ms-swift >= 4.4 checks only `num_generations == 1` (rlhf_args.py) and skips the divisibility
            # checks for N <= 1; TRL's RepeatSampler, which it inherits, then divides by N.
            message += (
                f" {fw(plan)} accepts {n} at start-up (it checks only num_generations == 1); the training "
                "sampler then divides the generation batch by it, and the run stops with ZeroDivisionError "
                "when training starts."
            )
        elif plan.group_rules.min_group == "misleading":
            message += (
                f" {_rejects(plan)}, with a misleading text: 'The global train batch size ... must "
                f"be evenly divisible by the number of generations per prompt ({n})'."
            )
        else:
            message += f" {_rejects(plan)}."
        batch = plan.geometry.global_batch * plan.geometry.steps()
        message, severity = _trl_verdict(plan, message, None if failure.rejected else Severity.WARNING)
        if _inputs_unknown(plan, "GRPO102"):  # the batch is not known before launch: no divisor can be named
            computed = ", ".join(sorted(plan.document.unknown & _GEOMETRY_KEYS))
            fix = f"{label}: 2 or more, a divisor of the generation batch ({computed} not known before launch)"
            fixes: tuple[Fix, ...] = ()
        else:
            fix, fixes = _group_fix(plan, label, batch)
        yield report(
            plan,
            "GRPO101",
            message,
            _anchor(plan, "num_generations"),
            fix=fix,
            severity=severity,
            key=label,
            fixes=fixes,
        )


def _group_fix(plan: RunPlan, label: str, batch: int) -> tuple[str, tuple[Fix, ...]]:
    """A group size of at least 2 that leaves no GRPO102/103 behind: a divisor of the generation batch
    that the evaluation batch holds too; else one whose evaluation batch grows with it; else, when the
    generation batch is a single prompt, the batch grows too. Each is one fix of all its edits."""
    g = plan.geometry

    def clean(geometry: Geometry) -> bool:
        return not [f for f in check(plan.group_rules, geometry) if f.rejected and f.code != "GRPO101"]

    plain = [m for m in divisors_at_least_two(batch) if clean(g._replace(num_generations=m))]
    if plain:
        chosen = nearest(plain, 8, 3)
        return (
            f"{label}: {spell_list(chosen)} (a divisor of the generation batch {batch})",
            set_setting(plan, "num_generations", chosen, near=8),
        )
    options: list[list[tuple[str, int]]] = []
    for m in nearest(divisors_at_least_two(batch), 8, 3):
        for e in range(max(g.eval_per_device, 1) + 1, max(g.eval_per_device, 1) * m + 1):
            if clean(g._replace(num_generations=m, eval_per_device=e)):
                options.append([("num_generations", m), ("per_device_eval_batch_size", e)])
                break
    if not options and batch < 2:
        grown = [("num_generations", 2), ("per_device_train_batch_size", max(g.per_device, 1) * 2)]
        geometry = g._replace(num_generations=2, per_device=max(g.per_device, 1) * 2)
        if not clean(geometry) and g.eval_enabled:
            grown.append(("per_device_eval_batch_size", max(g.eval_per_device, 1) * 2))
            geometry = geometry._replace(eval_per_device=max(g.eval_per_device, 1) * 2)
        if clean(geometry):
            options.append(grown)
    if not options:
        return f"{label}: 2 or more, with batches that hold whole groups of it (the generation batch is {batch})", ()
    texts, fixes = [], []
    for changes in options:
        text = ", ".join(f"{name_of(plan, name)}: {value}" for name, value in changes)
        texts.append(text)
        edits = [edit for name, value in changes for fix in set_setting(plan, name, [value])[:1] for edit in fix.edits]
        if len(edits) == len(changes):
            fixes.append(Fix(f"set {text}", tuple(edits), "unsafe"))
    why = "the generation batch holds no group of 2 or more" if batch < 2 else "the evaluation batch must hold it too"
    return "; or ".join(texts) + f" ({why})", tuple(fixes)


def _set_to_unknown(plan: RunPlan) -> bool:
    """The group size is written in the script, but as a variable that is not known before launch."""
    names = {"actor_rollout_ref.rollout.n", "n_samples_per_prompt", "rollout.n_samples_per_prompt"}
    return bool(plan.document.unknown & names)


def _distillation_only(plan: RunPlan) -> bool:
    """verl 0.8.0+ on-policy distillation without task rewards (`distillation.enabled=True`,
    `distillation.distillation_loss.use_task_rewards=False`): verl sets the policy loss to 0 (trainer/distillation/
    losses.py in 0.8.0 and 0.9.1), so a group's advantages are never used."""
    entries = plan.document.entries
    enabled = entries.get("distillation.enabled")
    task_rewards = entries.get("distillation.distillation_loss.use_task_rewards")
    return (
        enabled is not None
        and str(enabled.value).lower() in ("true", "1")
        and task_rewards is not None
        and str(task_rewards.value).lower() in ("false", "0")
    )


def _own_trainer_group_of_one(plan: RunPlan, n: int) -> Iterator[Diagnostic]:
    """verl's own other trainers (`verl.experimental.fully_async_policy.fully_async_main`, the one-step-off-policy
    `main_ppo`) sample `actor_rollout_ref.rollout.n` responses per prompt as the main trainer does: a group estimator
    with `rollout.n=1` written is a group of one there too. (A recipe's or a fork's trainer forms its own groups.)"""
    from grpo_lint.frameworks.verl.frontend import GROUP_ESTIMATORS

    entry = str(getattr(plan.document.hydra, "entry", "") or "")
    setting, estimator = plan.get("num_generations"), plan.get("algorithm.adv_estimator")
    if plan.framework != "verl" or not entry.startswith("verl.experimental.") or setting.span is None:
        return
    if _set_to_unknown(plan) or estimator.value not in GROUP_ESTIMATORS:
        return
    label = setting.label("actor_rollout_ref.rollout.n")
    yield report(
        plan,
        "GRPO101",
        f"{label} {n} with {estimator.label('algorithm.adv_estimator')} {estimator.value}: {entry} samples "
        "rollout.n responses per prompt as verl's main trainer does, and the advantage is a response's reward "
        "relative to the other responses to the same prompt, which a group of one does not have: no baseline, "
        "no GRPO.",
        setting,
        fix=f"{label}=8, or another group size of at least 2",
        severity=Severity.WARNING,
        key=label,
    )


def _ray_group_too_small(plan: RunPlan) -> Iterator[Diagnostic]:
    """verl and OpenRLHF: a group estimator with one sample per prompt."""
    from grpo_lint.checks.messages import assignment

    n = plan.geometry.num_generations
    if n >= 2:
        return
    if plan.native is None:  # a verl trainer other than main_ppo
        yield from _own_trainer_group_of_one(plan, n)
        return
    setting = plan.get("num_generations")
    if _set_to_unknown(plan):
        return  # GRPO507 says the value is not known; the default must not be blamed
    if plan.framework == "verl":
        if _distillation_only(plan):
            return  # the policy loss is 0: the student learns the teacher's tokens, and no advantage is used
        label = setting.label("actor_rollout_ref.rollout.n")
        estimator = plan.get("algorithm.adv_estimator")
        message = (
            f"{label} {n} with {estimator.label('algorithm.adv_estimator')} {estimator.value}: the advantage is a "
            "response's reward relative to the other responses to the same prompt, and a group of one has none. "
            f"{fw(plan)} accepts it and gives a group of one mean 0 and std 1, so the 'advantage' is the raw "
            "score: no baseline, no GRPO."
        )
        run = plan.native
        valid = [k for k in range(2, 17) if (run.train_batch_size * k) % max(run.n_gpus, 1) == 0]
        choices = nearest(valid, 8, 3) or [8]
        fix = assignment(plan, label, spell_list(choices))
        anchor = setting if setting.span else (estimator if estimator.span else file_start(plan))
        fixes = set_setting(plan, "num_generations", choices, near=8)
        yield report(plan, "GRPO101", message, anchor, fix=fix, severity=Severity.WARNING, key=label, fixes=fixes)
        return
    run = plan.native
    label = setting.key or "n_samples_per_prompt (default)"
    asserted = run.estimator in run.asserted_groups
    estimator = plan.get("estimator")
    message = (
        f"{label} {n} with {estimator.key or 'the advantage estimator'} {run.estimator}: the estimator "
        "normalises each sample's reward within its prompt's group, and a group of one has no other member."
    )
    if asserted:
        message += f' {fw(plan)} stops {plan.group_rules.where}: "{run.estimator} requires n_samples_per_prompt > 1".'
    else:
        message += f" {fw(plan)} accepts it (its assert covers {run.estimator} only from 0.11.0)."
    anchor = setting if setting.span else (estimator if estimator.span else file_start(plan))
    yield report(
        plan,
        "GRPO101",
        message,
        anchor,
        fix=assignment(plan, label, 8),
        severity=None if asserted else Severity.WARNING,
        key=label,
    )


@rule(
    "GRPO102",
    "partial-groups",
    Severity.ERROR,
    "Generation batch not a multiple of num_generations.",
)
def partial_groups(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    if _unsloth_adjusts(plan):
        yield from _unsloth_batch(plan)
        return
    for failure in _failures(plan, "GRPO102"):
        g, rules = plan.geometry, plan.group_rules
        n, label = failure.group, name_of(plan, "num_generations")
        groups = failure.batch / n
        message = (
            f"{_batch_words(plan, failure.batch)} is not a multiple of {label} {n} "
            f"({failure.batch} / {n} = {groups:.3g} groups), so a generation round cannot be "
            f'split into whole groups. {_rejects(plan)}: "{_framework_text(plan, failure)}"'
        )
        fixes = []
        edits: list[Fix] = []
        choices = nearest(divisors_at_least_two(failure.batch), n, 5)
        if choices:
            fixes.append(f"{label} {spell_list(choices)}")
        worlds = [w for w in valid_world_sizes(rules, g) if w != g.world_size]
        if worlds:
            fixes.append(f"run on {spell_list(nearest(worlds, g.world_size, 3))} processes")
        if g.generation_batch_size is not None:
            step = lcm(n, max(g.global_batch, 1))
            multiples = [step * k for k in range(1, 65)]
            closest = nearest(multiples, g.generation_batch_size, 2)
            fixes.append(f"{name_of(plan, 'generation_batch_size')} {spell_list(closest)}")
            edits.extend(set_setting(plan, "generation_batch_size", closest, near=g.generation_batch_size))
        else:
            sizes = [
                b
                for b in range(1, min(max(64, 4 * g.per_device), 1024) + 1)
                if b != g.per_device
                and not [f for f in check(rules, g._replace(per_device=b)) if f.code in ("GRPO102", "GRPO105")]
            ]
            if sizes:
                closest = nearest(sizes, g.per_device, 2)
                fixes.append(f"{name_of(plan, 'per_device_train_batch_size')} {spell_list(closest)}")
                edits.extend(set_setting(plan, "per_device_train_batch_size", closest, near=g.per_device))
        message, severity = _trl_verdict(plan, message, None)
        yield report(
            plan,
            "GRPO102",
            message,
            _anchor(plan, "num_generations", "per_device_train_batch_size"),
            fix="; or ".join(fixes) if fixes else None,
            severity=severity,
            key=label,
            fixes=tuple(edits),
        )
    yield from _launcher_process(plan)


def _unsloth_adjusts(plan: RunPlan) -> bool:
    """Unsloth's GRPOConfig (unsloth/models/rl.py, 2026.10.9) replaces the batch instead of failing when
    neither generation_batch_size nor steps_per_generation is set."""
    from grpo_lint.launch.commands import UNSLOTH

    g = plan.geometry
    return (
        plan.document.entry == UNSLOTH
        and g.generation_batch_size is None
        and g.steps_per_generation is None
        and g.num_generations >= 2
    )


# Before TRL 0.18.0 (no steps_per_generation), Unsloth's patched GRPOConfig checks the batch of one device alone
# (unsloth/models/rl_replacements.py, grpo_trainer_fix_batch_size; rl.py's branch for a config without
# steps_per_generation): `per_device_train_batch_size` not a multiple of num_generations is replaced on any
# process count.
_UNSLOTH_PER_DEVICE_BEFORE = Version("0.18.0")


def _unsloth_batch(plan: RunPlan) -> Iterator[Diagnostic]:
    """What Unsloth runs where TRL would reject the batch: per_device_train_batch_size becomes num_generations."""
    g = plan.geometry
    batch, n, label = g.per_device, g.num_generations, name_of(plan, "per_device_train_batch_size")
    if plan.target.version < _UNSLOTH_PER_DEVICE_BEFORE:
        if batch % n == 0 or _inputs_unknown(plan, "GRPO102"):
            return
        checked, words = batch, f"{label} {batch}"
    else:
        failures = _failures(plan, "GRPO102")
        if not failures:
            return
        checked, words = failures[0].batch, _batch_words(plan, failures[0].batch)
    keep = [k for k in divisors_at_least_two(checked) if k != n][:3]
    yield report(
        plan,
        "GRPO102",
        f"{words} is not a multiple of {name_of(plan, 'num_generations')} {n}. "
        'This file imports Unsloth, whose GRPOConfig does not fail on it: it prints "We will change the batch '
        f'size of {batch} to the `num_generations` of {n}" and trains with {label} {n}, {n / max(batch, 1):.3g}x '
        "the completions per device per step, and that much more GPU memory, than written.",
        _anchor(plan, "per_device_train_batch_size", "num_generations"),
        fix=f"num_generations {spell_list(keep)} to keep your batch"
        if keep
        else f"set {label} yourself to a multiple of num_generations that fits in memory",
        severity=Severity.WARNING,
        key=label,
    )


# `trl grpo` parses the config into GRPOConfig in the launcher process, where the world size is 1, before
# accelerate starts the workers (trl/cli/commands/training.py, TRL 1.0.0 on; 0.29 only splits the
# arguments, and 0.18-0.28 pass them to the script untouched).
_LAUNCHER_BUILDS = Version("1.0.0")


def _launcher_process(plan: RunPlan) -> Iterator[Diagnostic]:
    """A geometry valid on the run's processes that fails in `trl grpo`'s own process (world size 1)."""
    from grpo_lint.launch.commands import TRL_CLI

    g = plan.geometry
    if plan.framework != "trl" or plan.document.entry != TRL_CLI or plan.target.version < _LAUNCHER_BUILDS:
        return
    if not plan.world_known or g.world_size == 1 or _failures(plan, "GRPO102") or _failures(plan, "GRPO105"):
        return
    alone = g._replace(world_size=1)
    failures = [f for f in check(plan.group_rules, alone) if f.rejected and f.code in ("GRPO102", "GRPO105")]
    if not failures:
        return
    failure, label = failures[0], name_of(plan, "num_generations")
    batch = g.generation_batch_size if g.generation_batch_size is not None else g.global_batch * g.steps()
    what = (
        f"generation batch {failure.batch} is not a multiple of {label} {g.num_generations}"
        if failure.code == "GRPO102"
        else f"{name_of(plan, 'generation_batch_size')} {failure.batch} is not a multiple of the one-process batch "
        f"{g.per_device}"
    )
    yield report(
        plan,
        "GRPO102",
        f"`trl grpo` ({fw(plan)}) builds GRPOConfig once in its own process, where the world size is 1, before "
        f"`accelerate launch` starts the {g.world_size} training processes; there the {what}, so it stops before "
        "training although the run itself would hold whole groups.",
        _anchor(plan, "num_generations", "per_device_train_batch_size"),
        fix=f"set `generation_batch_size: {batch}` (it does not depend on the process count), or launch with "
        "`accelerate launch -m trl.scripts.grpo`",
        key=label,
    )


@rule(
    "GRPO103",
    "partial-eval-groups",
    Severity.ERROR,
    "Evaluation batch not a multiple of the group size.",
)
def partial_eval_groups(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    for failure in _failures(plan, "GRPO103"):
        g, n = plan.geometry, failure.group
        eval_key = name_of(plan, "per_device_eval_batch_size")
        by_eval_key = plan.get("num_generations_eval").explicit and g.num_generations_eval == n
        group_key = name_of(plan, "num_generations_eval") if by_eval_key else name_of(plan, "num_generations")
        why = name_of(plan, "eval_strategy") if plan.get("eval_strategy").explicit else "evaluation"
        message = (
            f"global eval batch {failure.batch} ({g.world_size} processes x {g.eval_per_device} "
            f"per device) is not a multiple of {group_key} {n}, and evaluation is on ({why}). "
            f'{_rejects(plan)}: "{_framework_text(plan, failure)}"'
        )
        good_e = [e for e in range(1, 257) if (g.world_size * e) % n == 0]
        closest = nearest(good_e, g.eval_per_device, 2)
        fixes = [f"{eval_key} {spell_list(closest)}"]
        if plan.group_rules.eval == "num_generations_eval":
            eval_groups = [1, *divisors_at_least_two(failure.batch)]
            fixes.append(f"num_generations_eval {spell_list(nearest(eval_groups, n, 3))}")
        fixes.append("eval_strategy: no")
        message, severity = _trl_verdict(plan, message, None)
        yield report(
            plan,
            "GRPO103",
            message,
            _anchor(plan, "per_device_eval_batch_size", "num_generations_eval", "num_generations"),
            fix="; or ".join(fixes),
            severity=severity,
            key=eval_key,
            fixes=set_setting(plan, "per_device_eval_batch_size", closest, near=g.eval_per_device),
        )
    yield from _swift_340_eval(plan)


def _swift_340_eval(plan: RunPlan) -> Iterator[Diagnostic]:
    """ms-swift 3.4.0 splits an evaluation batch into gradient_accumulation_steps chunks like a training
    batch and asserts it holds eval batch x accumulation inputs (grpo_trainer.py `_prepare_inputs`);
    3.4.1 uses one chunk in evaluation. Checked in the 3.4.0 and 3.4.1 wheels."""
    g = plan.geometry
    if plan.framework != "swift" or plan.target.version != Version("3.4.0") or not g.eval_enabled or g.grad_accum < 2:
        return
    ga = name_of(plan, "gradient_accumulation_steps")
    yield report(
        plan,
        "GRPO103",
        f"{fw(plan)} evaluates with {ga} {g.grad_accum}: its evaluation step splits the eval batch into "
        f"{g.grad_accum} accumulation chunks and stops at the first evaluation with "
        f'"AssertionError: Expected {g.eval_per_device * g.grad_accum} inputs, got {g.eval_per_device}". '
        "Fixed in ms-swift 3.4.1.",
        _anchor(plan, "gradient_accumulation_steps", "eval_strategy"),
        fix="upgrade to ms-swift >= 3.4.1, or eval_strategy: no",
        key=ga,
    )


@rule("GRPO104", "conflicting-generation-size", Severity.ERROR,
      "generation_batch_size and steps_per_generation both set where rejected.")  # fmt: skip
def conflicting_generation_size(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    for failure in _failures(plan, "GRPO104"):
        g = plan.geometry
        gbs_key, spg_key = (
            name_of(plan, "generation_batch_size"),
            name_of(plan, "steps_per_generation"),
        )
        implied = g.global_batch * (g.steps_per_generation or 1)
        if failure.batch:
            message = (
                f"{gbs_key} {g.generation_batch_size} does not match {spg_key} "
                f"{g.steps_per_generation}: {g.per_device} per device x {g.world_size} processes x "
                f"{g.steps_per_generation} steps = {implied}. {_rejects(plan)}: "
                f'"generation_batch_size ({g.generation_batch_size}) must equal '
                f'per_device_train_batch_size * world_size * steps_per_generation = {implied}."'
            )
        else:
            message = (
                f"{gbs_key} and {spg_key} are both set; each one determines the other. "
                f"{_rejects(plan)}: \"'generation_batch_size' and 'steps_per_generation' can not "
                'be both configured at the same time"'
            )
        yield report(
            plan,
            "GRPO104",
            message,
            _anchor(plan, "generation_batch_size"),
            fix=f"delete `{gbs_key}` (with {spg_key} {g.steps_per_generation} it is {implied}), or delete `{spg_key}`",
            key=gbs_key,
        )


@rule("GRPO105", "generation-batch-not-whole-steps", Severity.ERROR,
      "generation_batch_size not a multiple of per-device batch x world size.")  # fmt: skip
def generation_batch_not_whole_steps(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    for failure in _failures(plan, "GRPO105"):
        g = plan.geometry
        gbs_key = name_of(plan, "generation_batch_size")
        glob = g.global_batch
        message = (
            f"{gbs_key} {g.generation_batch_size} is not a multiple of the global batch {glob} "
            f"({g.per_device} per device x {g.world_size} processes), so a generation round is "
            "not a whole number of optimizer steps."
        )
        if failure.rejected:
            message += (
                f' {_rejects(plan)}: "generation_batch_size ({g.generation_batch_size}) must be '
                f'divisible by the global batch size ({glob})."'
            )
        else:
            message += (
                f" {fw(plan)} accepts it through a bug (fixed in TRL 0.19.1) and silently uses "
                f"steps_per_generation {g.generation_batch_size // glob}."
            )
        step = lcm(glob, g.num_generations if g.num_generations > 1 else 1)
        good = nearest([step * k for k in range(1, 65)], g.generation_batch_size or 0, 2)
        message, severity = _trl_verdict(plan, message, None if failure.rejected else Severity.WARNING)
        yield report(
            plan,
            "GRPO105",
            message,
            _anchor(plan, "generation_batch_size"),
            fix=f"{gbs_key} {spell_list(good)} (multiples of {step})",
            severity=severity,
            key=gbs_key,
            fixes=set_setting(plan, "generation_batch_size", good, near=g.generation_batch_size),
        )


@rule("GRPO106", "world-size-unknown", Severity.INFO, "The number of processes is not known; valid counts listed.")
def world_size_unknown(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    if plan.framework in ("verl", "openrlhf"):
        return  # the GPU layout is part of their own config; unknown values are GRPO507
    world = plan.world_size
    if world.key and world.value == 1 and "applies ENV" in world.origin:
        yield from _env_ignored(plan)
        return
    if plan.world_known or plan.group_rules.basis == "none":
        return
    if plan.geometry.num_generations < 2 or _unsloth_adjusts(plan) or _inputs_unknown(plan, "GRPO106"):
        return  # GRPO101 says it for every count; Unsloth replaces a batch that would not hold groups
    step = max(int(world.value), 1)
    candidates = list(range(step, 65, step))
    valid = [w for w in valid_world_sizes(plan.group_rules, plan.geometry) if w % step == 0]
    if len(valid) == len(candidates):
        return
    reason = world.origin.partition("assumed")[2].lstrip(": ") or "the config does not say"
    what = f"a multiple of {step} processes" if step > 1 else "how many processes run it"
    how = "num_processes: N" if plan.framework == "trl" else "ENV: {NPROC_PER_NODE: N}"
    fix = f"pass --world-size N, launch it from a script that sets the process count, or set `{how}` in the config"
    if plan.document.format == "cli":
        fix = "pass --world-size N, or give the launcher a literal process count"
    if not valid:
        yield report(
            plan,
            "GRPO106",
            f"the run uses {what} ({reason}), and {fw(plan)} rejects this config on every such count up to 64: "
            "its batch can never be split into whole groups of "
            f"{name_of(plan, 'num_generations')} {plan.geometry.num_generations}",
            world if world.span else file_start(plan),
            fix=fix,
            severity=Severity.WARNING,
        )
        return
    yield report(
        plan,
        "GRPO106",
        f"the run uses {what} ({reason}); with {fw(plan)} this config is valid on {spell_counts(valid)} "
        f"process{'es' if valid != [1] else ''} and rejected on the other counts; pass --world-size or launch "
        "it from a script to check exactly.",
        world if world.span else file_start(plan),
        fix=fix,
    )


def _env_ignored(plan: RunPlan) -> Iterator[Diagnostic]:
    """ms-swift < 4.3 reads ENV after choosing the launcher: NPROC_PER_NODE there starts no processes."""
    world = plan.world_size
    valid = valid_world_sizes(plan.group_rules, plan.geometry)
    where = f"valid on {spell_counts(valid)} process{'es' if valid != [1] else ''}" if valid else "valid on no count"
    yield report(
        plan,
        "GRPO106",
        f"world size taken as 1 process ({world.origin}); the batch checks assume it. "
        f"With {fw(plan)} this config is {where}.",
        world if world.span else file_start(plan),
        fix="set NPROC_PER_NODE in the shell that runs `swift rlhf`, or upgrade to ms-swift 4.3 or later",
    )


@rule(
    "GRPO107",
    "auto-find-batch-size",
    Severity.ERROR,
    "auto_find_batch_size halves batches and breaks groups.",
)
def auto_find_batch_size(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    setting = plan.get("auto_find_batch_size")
    if setting.value is not True:
        return
    rejected = plan.framework == "trl" and plan.target.version >= Version("1.9.0")
    message = (
        "auto_find_batch_size halves per_device_train_batch_size after an out-of-memory error, "
        "and the halved batch no longer holds whole groups of num_generations."
    )
    message += (
        f" {fw(plan)} rejects it at start-up."
        if rejected
        else f" {fw(plan)} accepts it; the run fails or mixes groups after the first OOM."
    )
    yield report(
        plan,
        "GRPO107",
        message,
        setting,
        fix=f"`{setting.key}: false`, and lower per_device_train_batch_size yourself",
        severity=None if rejected else Severity.WARNING,
    )
