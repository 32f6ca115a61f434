"""verl's own checks, with verl's semantics: GRPO010, GRPO108-GRPO111, GRPO206, GRPO207, GRPO410, GRPO411.

verl counts `data.train_batch_size` and `ppo_mini_batch_size` in prompts and multiplies them by
`rollout.n` inside the workers; the conditions and the quoted texts are those of verl's
`validate_config`, its actor config and its workers (reference verl-openrlhf-launchers.md 1.2-1.4,
checked against the 0.4.0-0.9.1 releases).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from math import gcd
from typing import TYPE_CHECKING

from packaging.version import Version

from grpo_lint.checks import file_start, report, rule
from grpo_lint.checks.fixes import set_setting
from grpo_lint.checks.messages import assignment, fw, shown, written_at
from grpo_lint.diagnostics import Diagnostic, Fix, Severity, Span
from grpo_lint.frameworks.base import as_int
from grpo_lint.frameworks.verl import ACTOR, REF, ROLLOUT
from grpo_lint.groups import divisor_near, largest_divisor, nearest_multiple
from grpo_lint.options import Options
from grpo_lint.patterns import lazy
from grpo_lint.plan import RunPlan, Setting

if TYPE_CHECKING:
    from grpo_lint.frameworks.verl.frontend import VerlRun
    from grpo_lint.sources.document import Entry


# How Hydra's `true` and its YAML spellings read once written back as text.
_TRUE = ("true", "1", "yes", "on")


def _verl(plan: RunPlan) -> VerlRun | None:
    return plan.native if plan.framework == "verl" else None


def _at(plan: RunPlan, *paths: str) -> Setting | Span:
    """The first of `paths` the user wrote, else where the world size comes from, else the file start."""
    found = written_at(plan, *paths)
    if found is not None:
        return found
    return plan.world_size if plan.world_size.span is not None else file_start(plan)


def _name(plan: RunPlan, path: str) -> str:
    return plan.get(path).label(path)


def _gpus(plan: RunPlan, run: VerlRun) -> str:
    return f"{run.n_gpus} GPU{'s' if run.n_gpus != 1 else ''} ({plan.world_size.origin})"


def _unknown(plan: RunPlan, *paths: str | None) -> bool:
    """True when one of `paths` is set in the script to a value that is not known before launch."""
    return any(p in plan.document.unknown for p in paths if p)


_CHECK_UNDER_DYNAMIC_UNTIL = Version("0.6.0")
# Before 0.5.0 the trainer sends the step's prompts to the rollout workers before repeating them n times
# (0.5.0 repeats first: ray_trainer.py `gen_batch.repeat(...)` before generate_sequences).
_REPEAT_FIRST = Version("0.5.0")


def _prompts_split_first(plan: RunPlan, run: VerlRun) -> Iterator[Diagnostic]:
    """verl 0.4: the prompts themselves are split over the GPUs, so train_batch_size must divide evenly."""
    mode = plan.value(f"{ROLLOUT}.mode")
    if plan.target.version >= _REPEAT_FIRST or mode == "async" or run.train_batch_size % run.n_gpus == 0:
        return
    if run.strategy == "megatron":
        return  # its workers chunk by data-parallel rank, which this check does not model
    tbs = _name(plan, "data.train_batch_size")
    step = run.n_gpus
    choices = sorted({max(step, run.train_batch_size // step * step), run.train_batch_size // step * step + step})
    yield report(
        plan,
        "GRPO108",
        f"{tbs} {run.train_batch_size} prompts cannot be split evenly over {_gpus(plan, run)}. {fw(plan)} hands "
        "the prompts to the rollout workers before it repeats them rollout.n times (0.5.0 repeats first), so the "
        f"start-up check on {tbs} x n passes and the first step fails: "
        f'"only support equal chunk. Got size of DataProto {run.train_batch_size} and chunk {run.n_gpus}."',
        _at(plan, "data.train_batch_size"),
        fix=" or ".join(assignment(plan, "data.train_batch_size", v) for v in choices if v > 0)
        + f" (a multiple of {step}), or upgrade to verl >= 0.5.0",
        fixes=set_setting(plan, "data.train_batch_size", [v for v in choices if v > 0], near=run.train_batch_size),
    )


def _minimal_batch(run: VerlRun) -> int | None:
    """verl's `minimal_bsz`: the GPU count (FSDP) or Megatron DP x micro batch per GPU."""
    if run.strategy != "megatron":
        return run.n_gpus
    if run.n_gpus % run.megatron_mp or run.micro_per_gpu is None:
        return None
    return run.n_gpus // run.megatron_mp * run.micro_per_gpu


@rule(
    "GRPO108",
    "rollout-batch-not-divisible",
    Severity.ERROR,
    "verl: train_batch_size x rollout.n not a multiple of the GPU count (or Megatron DP x micro batch).",
)
def rollout_batch_not_divisible(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _verl(plan)
    # 0.4-0.5 check it in RayPPOTrainer._validate_config whatever use_dynamic_bsz says; 0.6 moved the check
    # into verl/utils/config.py under `if not use_dynamic_bsz` (checked in the 0.4.1-0.9.1 wheels).
    if run is None or (run.dynamic_bsz and plan.target.version >= _CHECK_UNDER_DYNAMIC_UNTIL):
        return
    minimal = _minimal_batch(run)
    real = run.train_batch_size * run.n
    if minimal and real % minimal == 0:
        yield from _prompts_split_first(plan, run)
        return
    if not minimal:
        return
    what = _gpus(plan, run)
    if run.strategy == "megatron":
        what = (
            f"Megatron data-parallel size {run.n_gpus // run.megatron_mp} x "
            f"{_name(plan, f'{ACTOR}.ppo_micro_batch_size_per_gpu')} {run.micro_per_gpu}"
        )
    step = minimal // gcd(minimal, run.n)
    options_ = sorted({max(step, run.train_batch_size // step * step), run.train_batch_size // step * step + step})
    tbs = _name(plan, "data.train_batch_size")
    yield report(
        plan,
        "GRPO108",
        f"{tbs} {run.train_batch_size} x {_name(plan, f'{ROLLOUT}.n')} {run.n} = {real} responses per step "
        f'cannot be split evenly over {what}. {fw(plan)} stops at start-up: "real_train_batch_size ({real}) '
        f'must be divisible by minimal possible batch size ({minimal})".',
        _at(plan, "data.train_batch_size", f"{ROLLOUT}.n"),
        fix=" or ".join(assignment(plan, "data.train_batch_size", v) for v in options_ if v > 0)
        + f" (a multiple of {step})",
        fixes=set_setting(plan, "data.train_batch_size", _step_sizes(run, step), near=run.train_batch_size),
    )


def _step_sizes(run: VerlRun, step: int) -> list[int]:
    """Prompts per step near the current one that split evenly (multiples of `step`), and those that the
    mini batch also divides (multiples of both), so that a fix of one rule need not break the other."""
    sizes = set()
    for unit in (step, step * run.mini // gcd(step, run.mini) if run.mini > 0 else step):
        below = run.train_batch_size // unit * unit
        sizes.update(v for v in (below, below + unit) if v > 0)
    return sorted(sizes)


@rule(
    "GRPO109",
    "mini-batch-exceeds-train-batch",
    Severity.ERROR,
    "verl: ppo_mini_batch_size larger than train_batch_size, or not dividing it.",
)
def mini_batch_exceeds_train_batch(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _verl(plan)
    if run is None or run.mini < 1:
        return
    tbs, mini = _name(plan, "data.train_batch_size"), _name(plan, f"{ACTOR}.ppo_mini_batch_size")
    if run.train_batch_size >= run.mini and run.train_batch_size % run.mini == 0:
        return
    # The mini batch that fits: the largest divisor of the step not above the current one.
    fitting = largest_divisor(run.train_batch_size, run.mini)
    fix = assignment(plan, f"{ACTOR}.ppo_mini_batch_size", fitting)
    fixes = set_setting(plan, f"{ACTOR}.ppo_mini_batch_size", [fitting])
    if run.dynamic_bsz:
        # verl checks the mini batch only without dynamic batching (0.4-0.5 RayPPOTrainer, 0.6-0.9.1
        # ActorConfig.validate both under `if not use_dynamic_bsz`); the split then yields one mini batch.
        if run.train_batch_size < run.mini:
            yield _one_update_per_step(
                plan,
                f"{mini} {run.mini} is larger than {tbs} {run.train_batch_size}. With use_dynamic_bsz {fw(plan)} does "
                "not check it, and a step's data splits into one mini batch: one optimizer update per step instead "
                "of the several the setting suggests, without a word.",
                fix,
                fixes,
            )
        return
    written = plan.get(f"{ACTOR}.ppo_mini_batch_size").key and plan.get("data.train_batch_size").key
    if run.train_batch_size < run.mini and plan.target.unknown and written:  # (an unknown copy's defaults: unknown)
        # A copy older than any release known (verl 0.1 forks): 0.4.0-0.9.1 all stop on it, an older copy may not check
        # it at all (0.1's workers split the step into one mini batch and divide the loss by the mini batch's steps).
        yield _one_update_per_step(
            plan,
            f"{mini} {run.mini} is larger than {tbs} {run.train_batch_size}: both count prompts, and a step cannot "
            "hold an optimizer mini batch bigger than itself. Every verl release grpo-lint knows (0.4.0-0.9.1) stops "
            "at start-up on it; a copy older than them may not check it, and then a step's data makes one mini batch: "
            "one optimizer update per step, with the loss scaled for the mini batch the setting asks for.",
            fix,
            fixes,
        )
        return
    if plan.target.unknown:
        return  # (a default of a copy whose release is not known, or no mini batch above the step: not judged)
    if run.train_batch_size < run.mini:
        quote = (
            f'"train_batch_size ({run.train_batch_size}) must be >= actor.ppo_mini_batch_size ({run.mini})"'
            if plan.target.version >= Version("0.6.0")
            else "an AssertionError"
        )
        yield report(
            plan,
            "GRPO109",
            f"{mini} {run.mini} is larger than {tbs} {run.train_batch_size}: both count prompts, and a step "
            f"cannot hold an optimizer mini batch bigger than itself. {fw(plan)} stops at start-up with {quote}.",
            _at(plan, f"{ACTOR}.ppo_mini_batch_size", "data.train_batch_size"),
            fix=fix,
            fixes=fixes,
        )
    elif run.train_batch_size % run.mini:
        updates = -(-run.train_batch_size // run.mini)
        yield report(
            plan,
            "GRPO109",
            f"{tbs} {run.train_batch_size} is not a multiple of {mini} {run.mini}: verl splits each step into "
            f"{updates} mini batches and the last one holds only {run.train_batch_size % run.mini} prompts, so that "
            "optimizer step is noisier than the others. verl does not check it.",
            _at(plan, f"{ACTOR}.ppo_mini_batch_size", "data.train_batch_size"),
            fix=fix,
            fixes=fixes,
            severity=Severity.WARNING,
        )


def _one_update_per_step(plan: RunPlan, message: str, fix: str | None, fixes: tuple[Fix, ...]) -> Diagnostic:
    """GRPO109 where verl does not stop on a mini batch above the step: a warning that the step makes one update."""
    where = _at(plan, f"{ACTOR}.ppo_mini_batch_size", "data.train_batch_size")
    return report(plan, "GRPO109", message, where, fix=fix, fixes=fixes, severity=Severity.WARNING)


@rule(
    "GRPO110",
    "mini-batch-per-gpu",
    Severity.ERROR,
    "verl: the per-GPU mini batch (ppo_mini_batch_size x n / data-parallel size) is 0, uneven, or not a "
    "multiple of the micro batch.",
)
def mini_batch_per_gpu(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _verl(plan)
    if run is None or run.dynamic_bsz:
        return
    megatron = run.strategy == "megatron"
    if megatron and run.n_gpus % run.megatron_mp:
        return  # GRPO411
    dp = run.n_gpus // run.megatron_mp if megatron else max(run.n_gpus // run.sp, 1)
    total = run.mini * run.n
    per_gpu = total // dp
    mini = _name(plan, f"{ACTOR}.ppo_mini_batch_size")
    where = _at(plan, f"{ACTOR}.ppo_mini_batch_size", f"{ACTOR}.ppo_micro_batch_size_per_gpu")
    dp_words = (
        f"{dp} data-parallel ranks ({run.n_gpus} GPUs / Megatron TP x PP x CP {run.megatron_mp})"
        if megatron
        else f"{dp} data-parallel rank{'s' if dp != 1 else ''} ({_gpus(plan, run)}"
        + (f" / ulysses_sequence_parallel_size {run.sp})" if run.sp > 1 else ")")
    )
    # m x n is a whole number per rank exactly when m is a multiple of dp / gcd(n, dp)
    step = dp // gcd(run.n, dp) if dp and run.n else 0
    suggestion = nearest_multiple(step, run.mini) if step else None
    suggestion = suggestion if suggestion is not None and suggestion <= 4 * run.mini else None
    fix_even = assignment(plan, f"{ACTOR}.ppo_mini_batch_size", suggestion) if suggestion else None
    group = _name(plan, f"{ROLLOUT}.n")  # ("... (default)" where the run leaves it to verl: premises.decide)
    text = f"{mini} {run.mini} x {group} {run.n} = {total} responses per optimizer step over {dp_words}"
    if not run.legacy_workers:
        if total % dp:
            yield report(
                plan,
                "GRPO110",
                f"{text} is not a whole number per rank. {fw(plan)}'s workers stop at the first update: "
                f'"Got mini_batch_size={total} and self.engine.get_data_parallel_size()={dp}".',
                where,
                fix=fix_even,
            )
        return
    if megatron:
        if total % dp:
            yield report(
                plan,
                "GRPO110",
                f"{text} is not a whole number per rank: the Megatron workers floor-divide it to {per_gpu} per "
                f"rank, so {total - per_gpu * dp} responses of every mini batch are silently never trained on.",
                where,
                fix=fix_even,
                severity=Severity.WARNING,
            )
        return
    if per_gpu == 0:
        yield report(
            plan,
            "GRPO110",
            f"{text} leaves 0 per rank. {fw(plan)}'s FSDP workers stop: \"ppo_mini_batch_size 0 should be larger "
            'than 0 after normalization".',
            where,
            fix=fix_even,
        )
        return
    micro = run.micro_per_gpu
    micro_name = _name(plan, f"{ACTOR}.ppo_micro_batch_size_per_gpu")
    if micro is None and run.micro is not None:
        micro, micro_name = max(run.micro // dp, 0), f"{_name(plan, f'{ACTOR}.ppo_micro_batch_size')} / {dp}"
    if micro and per_gpu % micro:
        best = divisor_near(per_gpu, micro, larger=True)
        yield report(
            plan,
            "GRPO110",
            f"{text} gives {per_gpu} per rank, which {micro_name} {micro} does not divide. {fw(plan)}'s FSDP "
            f'workers stop: "normalized ppo_mini_batch_size {per_gpu} should be divisible by '
            f'ppo_micro_batch_size_per_gpu {micro}".',
            _at(plan, f"{ACTOR}.ppo_micro_batch_size_per_gpu", f"{ACTOR}.ppo_mini_batch_size"),
            fix=assignment(plan, f"{ACTOR}.ppo_micro_batch_size_per_gpu", best) + f" (a divisor of {per_gpu})",
        )
    elif total % dp:
        yield report(
            plan,
            "GRPO110",
            f"{text} is not a whole number per rank: verl floor-divides it to {per_gpu} per rank, so each optimizer "
            f"step trains on {per_gpu * dp} responses, not {total}: every training step makes more, smaller updates "
            "than the mini batch says (each rank's data is split into chunks of that size, the last one shorter).",
            where,
            fix=fix_even,
            severity=Severity.WARNING,
        )


@rule(
    "GRPO111",
    "micro-batch-keys",
    Severity.ERROR,
    "verl: a micro batch size not set, or set in both the per-GPU and the deprecated global form.",
)
def micro_batch_keys(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _verl(plan)
    if run is None or run.dynamic_bsz:
        return
    if plan.target.unknown:  # a copy older than any release: only what its own code shows (_floored_micro)
        yield from _deprecated_micro(plan, run)
        return
    sections = [("actor", ACTOR, "ppo_micro_batch_size"), (ROLLOUT, ROLLOUT, "log_prob_micro_batch_size")]
    if run.uses_ref:
        sections.append((REF, REF, "log_prob_micro_batch_size"))
    for label, section, param in sections:
        old, new = plan.get(f"{section}.{param}"), plan.get(f"{section}.{param}_per_gpu")
        name = f"{label}.{param}"
        if old.value is not None and new.value is not None:
            quote = (
                f"[{label}] You have set both '{name}' AND '{name}_per_gpu'. Please remove '{name}' because only "
                f"'*_{param}_per_gpu' is supported (the former is deprecated)."
            )
            yield report(
                plan,
                "GRPO111",
                f'both {old.key} and {new.key} are set. {fw(plan)} stops at start-up: "{quote}"',
                old,
                fix=f"delete `{old.key}`",
            )
        elif (
            old.value is None
            and new.value is None
            and run.complete
            and not _unknown(plan, f"{section}.{param}", f"{section}.{param}_per_gpu", f"{ACTOR}.use_dynamic_bsz")
        ):
            why = ""
            if section == REF:
                why = " (the reference model runs because use_kl_loss or use_kl_in_reward is on)"
            quote = f"[{label}] Please set at least one of '{name}' or '{name}_per_gpu'" + (
                " if use_dynamic_bsz is not enabled." if label == "actor" else "."
            )
            per_gpu = run.micro_per_gpu or 8
            yield report(
                plan,
                "GRPO111",
                f'{section}.{param}_per_gpu is not set{why}. {fw(plan)} stops at start-up: "{quote}"',
                _at(plan, f"{ACTOR}.ppo_mini_batch_size", "algorithm.adv_estimator"),
                fix=assignment(plan, f"{section}.{param}_per_gpu", per_gpu)
                + f", or {assignment(plan, f'{ACTOR}.use_dynamic_bsz', 'true')}",
            )
    yield from _deprecated_micro(plan, run)


def _deprecated_micro(plan: RunPlan, run: VerlRun) -> Iterator[Diagnostic]:
    """The deprecated global actor.ppo_micro_batch_size: it must divide the mini batch and, times the Ulysses
    size, cover every GPU (0.4-0.5 RayPPOTrainer asserts; 0.6-0.9.1 ActorConfig.validate raises ValueError)."""
    setting = plan.get(f"{ACTOR}.ppo_micro_batch_size")
    micro = run.micro
    if micro is None or micro < 1 or setting.span is None or run.micro_per_gpu is not None:
        return  # with the per-GPU form set too, verl stops first on "both set" (reported above)
    fork = plan.target.fork
    if plan.target.unknown:
        if fork is not None and "GRPO111" in fork.shows and run.strategy != "megatron":  # (its micro batch floors)
            yield from _floored_micro(plan, run, setting, micro)
        return
    raises = plan.target.version >= Version("0.6.0")
    label, mini = setting.key, _name(plan, f"{ACTOR}.ppo_mini_batch_size")
    if run.mini >= 1 and run.mini % micro:
        quote = (
            f'"ppo_mini_batch_size ({run.mini}) must be divisible by ppo_micro_batch_size ({micro})"'
            if raises
            else "an AssertionError"
        )
        yield report(
            plan,
            "GRPO111",
            f"{label} {micro} does not divide {mini} {run.mini}. {fw(plan)} stops at start-up with {quote}.",
            setting,
            fix=assignment(plan, f"{ACTOR}.ppo_micro_batch_size", largest_divisor(run.mini, micro))
            + f", or the per-GPU form {ACTOR}.ppo_micro_batch_size_per_gpu",
        )
    if micro * run.sp < run.n_gpus:
        quote = (
            f'"ppo_micro_batch_size ({micro}) * ulysses_sequence_parallel_size ({run.sp}) must be >= n_gpus '
            f'({run.n_gpus})"'
            if raises
            else "an AssertionError"
        )
        need = -(-run.n_gpus // max(run.sp, 1))
        yield report(
            plan,
            "GRPO111",
            f"{label} {micro} is a global micro batch, split over {_gpus(plan, run)}: with Ulysses size {run.sp} "
            f"it leaves some GPUs without a sample. {fw(plan)} stops at start-up with {quote}.",
            setting,
            fix=assignment(plan, f"{ACTOR}.ppo_micro_batch_size", need)
            + f" or more, or the per-GPU form {ACTOR}.ppo_micro_batch_size_per_gpu",
        )


def _floored_micro(plan: RunPlan, run: VerlRun, setting: Setting, micro: int) -> Iterator[Diagnostic]:
    """A copy of verl 0.1's code (TinyZero's), older than any release known: its FSDP workers floor the global micro
    batch to `micro // (GPUs / Ulysses size)`, and its actor's `mini % micro` divides by 0 when that is 0."""
    per_rank = run.n_gpus // max(run.sp, 1)
    if per_rank < 1 or micro // per_rank:
        return
    package = plan.target.fork.package if plan.target.fork is not None else "verl"
    yield report(
        plan,
        "GRPO111",
        f"{setting.key} {micro} is a global micro batch, floored per GPU over {_gpus(plan, run)}: the copy of verl in "
        f"{package}/ divides it to {micro} // {per_rank} = 0 (workers/fsdp_workers.py), and its actor's "
        '`ppo_mini_batch_size % ppo_micro_batch_size` (workers/actor/dp_actor.py) then raises "ZeroDivisionError: '
        'integer modulo by zero" at the first policy update, after the models have loaded.',
        setting,
        fix=assignment(plan, f"{ACTOR}.ppo_micro_batch_size", per_rank) + " or more (a multiple of it)",
    )


@rule(
    "GRPO410",
    "sequence-parallel-remove-padding",
    Severity.ERROR,
    "verl: Ulysses sequence parallelism without use_remove_padding.",
)
def sequence_parallel_remove_padding(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _verl(plan)
    if run is None or run.strategy == "megatron" or run.sp <= 1:
        return
    padding = plan.get("actor_rollout_ref.model.use_remove_padding")
    if padding.value is True:
        return
    sp = _name(plan, f"{ACTOR}.ulysses_sequence_parallel_size")
    yield report(
        plan,
        "GRPO410",
        f"{sp} {run.sp} needs padding removed, but {padding.label('actor_rollout_ref.model.use_remove_padding')} "
        f'is {shown(padding.value)}. {fw(plan)} stops at start-up: "When using sequence parallelism for '
        'actor/ref policy, you must enable `use_remove_padding`."',
        padding if padding.span else _at(plan, f"{ACTOR}.ulysses_sequence_parallel_size"),
        fix=assignment(plan, "actor_rollout_ref.model.use_remove_padding", "true"),
    )


@rule(
    "GRPO411",
    "model-parallel-world-size",
    Severity.ERROR,
    "verl Megatron: the GPU count not a multiple of tensor x pipeline x context parallel size.",
)
def model_parallel_world_size(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _verl(plan)
    if run is None or run.strategy != "megatron" or run.dynamic_bsz or run.n_gpus % run.megatron_mp == 0:
        return
    tp, pp, cp = (
        as_int(plan.get(f"{ACTOR}.megatron.{name}_parallel_size").value, 1)
        for name in ("tensor_model", "pipeline_model", "context")
    )
    yield report(
        plan,
        "GRPO411",
        f"{_gpus(plan, run)} cannot be split into Megatron model-parallel groups of tensor {tp} x pipeline {pp} "
        f'x context {cp} = {run.megatron_mp}. {fw(plan)} stops at start-up: "n_gpus ({run.n_gpus}) must be '
        f"divisible by model_parallel_size ({tp * pp}) times "
        f'context_parallel_size ({cp})".',
        _at(plan, f"{ACTOR}.megatron.tensor_model_parallel_size", f"{ACTOR}.megatron.pipeline_model_parallel_size"),
        fix=f"a GPU count that is a multiple of {run.megatron_mp}, or smaller model-parallel sizes",
    )


@rule(
    "GRPO010",
    "missing-mandatory-value",
    Severity.ERROR,
    "A key the framework requires has no value (verl's rollout.name, a flag HfArgumentParser requires).",
)
def missing_mandatory_value(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _verl(plan)
    if run is None or plan.document.format != "hydra" or not run.key_checks:
        return
    name = plan.get(f"{ROLLOUT}.name")
    if name.explicit or name.value != "???" or not run.complete or _unknown(plan, f"{ROLLOUT}.name"):
        return
    yield report(
        plan,
        "GRPO010",
        f"{ROLLOUT}.name has no default in {_whose(plan)} (`???`): the run stops when the "
        f'rollout is built: "Missing mandatory value: {ROLLOUT}.name".',
        _at(plan, "algorithm.adv_estimator", "data.train_batch_size"),
        fix=f"{ROLLOUT}.name=vllm (or sglang, hf)",
    )


def _whose(plan: RunPlan) -> str:
    """Whose config leaves the key without a value: the tree an entry point composes, or the release's."""
    composed = getattr(plan.document.hydra, "composed_from", "")
    return composed or f"{fw(plan)}'s ppo_trainer.yaml"


@rule(
    "GRPO206",
    "ignored-sampling-key",
    Severity.WARNING,
    "verl: rollout.do_sample=false, which the vLLM/SGLang rollout ignores.",
)
def ignored_sampling_key(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _verl(plan)
    if run is None:
        return
    do_sample = plan.get(f"{ROLLOUT}.do_sample")
    name = str(plan.get(f"{ROLLOUT}.name").value or "").lower()
    if not do_sample.explicit or do_sample.value is not False or name == "hf":
        return
    temperature = plan.get(f"{ROLLOUT}.temperature").value
    yield report(
        plan,
        "GRPO206",
        f"{do_sample.key} false has no effect with rollout.name {name or '(unset)'}: verl sends vLLM/SGLang only "
        f"temperature, top_p and top_k, so training still samples at temperature {shown(temperature)}. "
        "(Only the `hf` rollout honours do_sample.) If greedy rollouts were intended, the group members would be "
        "identical anyway.",
        do_sample,
        fix=f"delete `{do_sample.key}`",
    )


@rule(
    "GRPO207",
    "greedy-validation-samples",
    Severity.WARNING,
    "verl: several validation samples per prompt drawn greedily (val_kwargs n > 1 with temperature 0).",
)
def greedy_validation_samples(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _verl(plan)
    if run is None:
        return
    n = plan.get(f"{ROLLOUT}.val_kwargs.n")
    if not isinstance(n.value, int) or isinstance(n.value, bool) or n.value <= 1 or not n.explicit:
        return  # (a value a composed config file sets is reported in that file)
    temperature = plan.get(f"{ROLLOUT}.val_kwargs.temperature")
    do_sample = plan.get(f"{ROLLOUT}.val_kwargs.do_sample")
    hf = str(plan.get(f"{ROLLOUT}.name").value or "").lower() == "hf"
    greedy_t = isinstance(temperature.value, int | float) and temperature.value <= 0
    if not greedy_t and not (hf and do_sample.value is False):
        return
    cause = (
        f"{temperature.label(f'{ROLLOUT}.val_kwargs.temperature')} {shown(temperature.value)}"
        if greedy_t
        else f"{do_sample.label(f'{ROLLOUT}.val_kwargs.do_sample')} false"
    )
    yield report(
        plan,
        "GRPO207",
        f"{n.key} {n.value} asks for {n.value} validation samples per prompt, but {cause} makes them greedy: "
        f"all {n.value} are the same answer, so mean@{n.value}/best@{n.value} metrics equal the single-sample one "
        "and the extra generation is wasted.",
        n,
        fix=assignment(plan, f"{ROLLOUT}.val_kwargs.temperature", 0.6)
        + " and "
        + assignment(plan, f"{ROLLOUT}.val_kwargs.do_sample", "true"),
    )


# verl builds a critic only for the gae estimator (RayPPOTrainer.__init__: `use_critic` is True for GAE alone, 0.1 to
# 0.5; `need_critic` from 0.6: `critic.enable` when set, else the estimator is gae), and checks the critic's settings
# only then. `critic.strategy` is read whatever the estimator (main_ppo asserts it matches the actor's, 0.1-0.5, and
# picks the critic worker class with it, 0.6 on); `trainer.critic_warmup` holds the actor's updates back whatever it.
_CRITIC = "critic."
_READ_ANYWAY = frozenset({"critic.enable", "critic.strategy"})


@rule(
    "GRPO015",
    "unused-critic",
    Severity.WARNING,
    "verl: critic settings for a run whose estimator builds no critic.",
)
def unused_critic(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    if _verl(plan) is None or "algorithm.adv_estimator" in plan.document.unknown:
        return
    estimator = plan.get("algorithm.adv_estimator")
    if not isinstance(estimator.value, str) or estimator.value.lower() == "gae":
        return
    if not estimator.explicit and plan.document.format != "cli":
        return  # (a config read alone: the command that runs it may choose gae)
    enable = plan.document.entries.get("critic.enable") or plan.document.entries.get("+critic.enable")
    if "critic.enable" in plan.document.unknown or (enable is not None and str(enable.value).lower() in _TRUE):
        return  # (critic.enable=true builds one for any estimator, 0.6 on; null leaves it to the estimator)
    schema = getattr(plan.document.hydra, "schema", None) or {}  # (the composed tree, where one was)
    read = _READ_ANYWAY | _interpolated_critic_keys(schema)
    written = [
        entry
        for key, entry in plan.document.entries.items()
        if key.lstrip("+~").startswith(_CRITIC)
        and key.lstrip("+~") not in read
        and (key.lstrip("+~") in plan.specs or key.lstrip("+~") in schema)  # (a key verl lacks is GRPO002's)
    ]
    if not written:
        return
    first = written[0]
    more = f" and {len(written) - 1} more critic setting{'s' if len(written) > 2 else ''}" if len(written) > 1 else ""
    verb = "have" if more else "has"
    yield report(
        plan,
        "GRPO015",
        f"`{first.key}`{more} {verb} no effect: {estimator.label('algorithm.adv_estimator')} {estimator.value} builds "
        "no critic (verl builds one only for gae, or with critic.enable=true from 0.6.0), so nothing reads the "
        "critic's settings.",
        first,
        fix="delete the `critic.*` settings, or use algorithm.adv_estimator=gae if a critic was meant",
    )


# verl applies the KL penalty in the reward (`apply_kl_penalty`, the only reader of `algorithm.kl_ctrl.*` and
# `algorithm.kl_penalty`) only when `algorithm.use_kl_in_reward` is true (RayPPOTrainer, 0.4.0 to 0.7.0 tags and main);
# 0.2-0.3 and the verl 0.1 copies TinyZero and Logic-RL ship apply it unless `actor.use_kl_loss` is true; the v0.1 tag
# always. A copy's own trainer shows which (workspace.forks.KL_*).
_KL_SETTINGS = ("algorithm.kl_ctrl.", "algorithm.kl_penalty")


@rule(
    "GRPO016",
    "unused-kl-controller",
    Severity.WARNING,
    "verl: KL controller settings for a run that puts no KL penalty in the reward.",
)
def unused_kl_controller(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    from grpo_lint.workspace.forks import KL_IN_REWARD, KL_NEVER, KL_WITHOUT_LOSS

    del options
    if _verl(plan) is None:
        return
    written = [
        entry
        for key, entry in plan.document.entries.items()
        if key.lstrip("+~").startswith(_KL_SETTINGS)
        and key.lstrip("+~") in plan.specs
        and not (_from_file(plan, entry) and _is_default(plan, key.lstrip("+~"), entry.value))  # (a copied default)
    ]
    coef = plan.document.entries.get("algorithm.kl_ctrl.kl_coef")
    if not written or (coef is not None and as_int(coef.value, 1) == 0):
        return  # (a kl_coef of 0 says there is no penalty: its other settings say nothing more)
    fork = plan.target.fork
    if fork is not None:
        gates = (fork.kl_gate,) if fork.kl_gate in (KL_IN_REWARD, KL_WITHOUT_LOSS, KL_NEVER) else ()
    else:  # verl 0.4.0 on; where the release is not known, 0.2-0.3's condition must agree
        gates = (KL_IN_REWARD,) if not plan.target.unknown else (KL_IN_REWARD, KL_WITHOUT_LOSS)
    if not gates:
        return
    in_reward = plan.get("algorithm.use_kl_in_reward")
    kl_loss = plan.get(f"{ACTOR}.use_kl_loss")
    if {"algorithm.use_kl_in_reward", f"{ACTOR}.use_kl_loss"} & plan.document.unknown:
        return  # (a value known only at launch)
    loss_on = str(kl_loss.value).lower() in _TRUE
    alone = plan.document.format in ("yaml", "json")  # a config file read alone, not the launch's overrides
    reasons = []
    for gate in gates:
        if gate == KL_IN_REWARD:
            if str(in_reward.value).lower() in _TRUE or (not in_reward.explicit and alone):
                return  # (a config read alone: the command that runs it may turn it on)
            reasons.append(f"{in_reward.label('algorithm.use_kl_in_reward')} is false")
        elif gate == KL_WITHOUT_LOSS:
            if not loss_on:
                return
            reasons.append(f"{kl_loss.label(f'{ACTOR}.use_kl_loss')} is true")
    first = written[0]
    more = (
        f" and {len(written) - 1} more KL controller setting{'s' if len(written) > 2 else ''}"
        if len(written) > 1
        else ""
    )
    verb = "have" if more else "has"
    if gates == (KL_NEVER,) and fork is not None:
        why = (
            f"the trainer of the copy in {fork.package}/ never applies the KL penalty in the reward (its call of "
            "apply_kl_penalty is commented out)"
        )
        instead = "restore the call in the copy's ray_trainer.py"
    else:
        how = (
            "verl applies the KL penalty in the reward only with algorithm.use_kl_in_reward=true (0.4.0 on)"
            if gates == (KL_IN_REWARD,)
            else "its trainer skips the KL penalty in the reward when the actor's KL loss is on"
            if gates == (KL_WITHOUT_LOSS,)
            else "verl applies the KL penalty in the reward only with use_kl_in_reward=true (0.4.0 on), and not "
            "with the actor's KL loss on (0.2-0.3)"
        )
        why = f"{' and '.join(reasons)}, and {how}"
        instead = (
            f"set {ACTOR}.use_kl_loss=false" if gates == (KL_WITHOUT_LOSS,) else "set algorithm.use_kl_in_reward=true"
        )
    term = (
        f"the KL term of this run is the actor's loss ({ACTOR}.kl_loss_coef)" if loss_on else "this run has no KL term"
    )
    yield report(
        plan,
        "GRPO016",
        f"`{first.key}`{more} {verb} no effect: {why}, so nothing reads the KL controller; {term}.",
        first,
        fix=f"delete the `algorithm.kl_ctrl.*` settings (the actor's KL weight is {ACTOR}.kl_loss_coef), or {instead} "
        "if a KL penalty in the reward was meant",
    )


@rule(
    "GRPO412",
    "reversed-kl-loss",
    Severity.WARNING,
    "verl copy: the actor subtracts the KL loss, so use_kl_loss pushes the policy away from the reference.",
)
def reversed_kl_loss(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    fork = plan.target.fork
    if _verl(plan) is None or fork is None or not fork.reversed_kl:
        return
    if {f"{ACTOR}.use_kl_loss", f"{ACTOR}.kl_loss_coef"} & plan.document.unknown:
        return  # (a value known only at launch)
    use, coef = plan.get(f"{ACTOR}.use_kl_loss"), plan.get(f"{ACTOR}.kl_loss_coef")
    if str(use.value).lower() not in _TRUE or not isinstance(coef.value, int | float) or coef.value <= 0:
        return
    if not use.explicit and plan.document.format in ("yaml", "json"):
        return  # (a config read alone: the command that runs it may turn the loss off)
    yield report(
        plan,
        "GRPO412",
        f"{use.label(f'{ACTOR}.use_kl_loss')} is true, but the copy of verl that runs subtracts the KL loss "
        f"({fork.reversed_kl}: `policy_loss = policy_loss - kl_loss * kl_loss_coef`): minimizing the loss then "
        f"rewards moving away from the reference model, the opposite of a KL penalty, and "
        f"{coef.label(f'{ACTOR}.kl_loss_coef')} {shown(coef.value)} sets how hard. verl fixed the sign on 2025-02-01 "
        "(#124 brought the KL loss, #179 the fix, first released in 0.2); TinyZero's and Logic-RL's copies predate it.",
        use if use.span is not None else _at(plan, f"{ACTOR}.kl_loss_coef"),
        fix=f"add the KL loss in {fork.reversed_kl.rpartition(':')[0]} (`policy_loss + kl_loss * ...`, verl #179), "
        f"or set {ACTOR}.use_kl_loss=false",
    )


def _from_file(plan: RunPlan, entry: Entry) -> bool:
    """A setting a config file writes (a whole copy of verl's defaults holds every key), not an override the launch
    writes on purpose."""
    return plan.document.format in ("yaml", "json") or entry.key_span.path is not None


def _is_default(plan: RunPlan, key: str, value: object) -> bool:
    spec = plan.specs.get(key)
    if spec is None:
        return False
    default = spec.default_at(plan.target.version)
    return value == default or str(value) == str(default)


_CRITIC_REFERENCE = lazy(r"\$\{(critic\.[\w.]+)\}")


def _interpolated_critic_keys(schema: dict) -> frozenset[str]:
    """Critic keys another key of the config takes its value from (`reward_model.forward_max_token_len_per_gpu:
    ${critic.forward_max_token_len_per_gpu}`, verl 0.4 on): setting one sets that key too. From the composed tree, and
    from every release's defaults."""
    found = set(_critic_keys_any_release())
    for value in schema.values():
        if isinstance(value, str) and "${critic." in value:
            found.update(_CRITIC_REFERENCE.findall(value))
    return frozenset(found)


@cache
def _critic_keys_any_release() -> frozenset[str]:
    from grpo_lint.frameworks.fields import Versioned
    from grpo_lint.frameworks.verl.fields import verl_table

    found: set[str] = set()
    for flavour in ("fsdp", "megatron"):
        for spec in verl_table(flavour).specs.values():
            defaults = [v for _, v in spec.default.history] if isinstance(spec.default, Versioned) else [spec.default]
            for value in defaults:
                if isinstance(value, str) and "${critic." in value:
                    found.update(_CRITIC_REFERENCE.findall(value))
    return frozenset(found)
