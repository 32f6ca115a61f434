"""OpenRLHF's batch and placement rules: GRPO112, GRPO113, GRPO409.

OpenRLHF counts `--train_batch_size` in samples (prompts x n_samples_per_prompt) and hands it to
DeepSpeed with the micro batch per GPU; DeepSpeed derives gradient accumulation by floor division and
then asserts the product. The asserts of `train_ppo_ray.py` are quoted as OpenRLHF words them
(reference verl-openrlhf-launchers.md section 2.2, checked against releases 0.8.0-0.11.2).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from packaging.version import Version

from grpo_lint.checks import file_start, report, rule
from grpo_lint.checks.messages import fw, openrlhf_flag, written_at
from grpo_lint.diagnostics import Diagnostic, Severity, Span
from grpo_lint.groups import divisor_near
from grpo_lint.options import Options
from grpo_lint.plan import RunPlan, Setting

if TYPE_CHECKING:
    from grpo_lint.frameworks.openrlhf.frontend import OpenRLHFRun


def _run(plan: RunPlan) -> OpenRLHFRun | None:
    return plan.native if plan.framework == "openrlhf" else None


def _at(plan: RunPlan, *names: str) -> Setting | Span:
    found = written_at(plan, *names)
    return found if found is not None else file_start(plan)


def _flag(plan: RunPlan, name: str) -> str:
    """The flag as the run writes it, or OpenRLHF's spelling marked as its default (`--actor_num_nodes (default)`),
    as other messages name a default: a verdict naming a default the run replaces with a value not known before
    launch is then not given (grpo_lint.premises)."""
    setting = plan.get(name)
    return setting.key if setting.key else f"{openrlhf_flag(plan, name)} (default)"


# 0.9.8-0.10.x set max_len only inside `if vllm_num_engines > 0:` and pass it to PPOTrainer unconditionally.
_MAX_LEN_BUG = (Version("0.9.8"), Version("0.11.0"))
# 0.9.0+ turn --packing_samples on for --ring_attn_size > 1 or --use_dynamic_batch (with a warning).
_PACKING_IMPLIED = Version("0.9.0")


def openrlhf_without_vllm(plan: RunPlan) -> Iterator[Diagnostic]:
    """GRPO401 for OpenRLHF: settings that need vLLM engines when the command starts none (checked in the
    0.8.1-0.11.2 wheels' train_ppo_ray.py)."""
    run = _run(plan)
    if run is None or run.engines > 0 or plan.document.unknown & {"vllm_num_engines", "vllm.num_engines"}:
        return  # engines started, or a count not known before launch
    engines, version = _flag(plan, "vllm_num_engines"), plan.target.version
    packing = _flag(plan, "packing_samples")
    why = ""
    if run.packing:
        why = f"{packing} is set"
    elif version >= _PACKING_IMPLIED and run.ring > 1:
        why = f"{_flag(plan, 'ring_attn_size')} {run.ring} turns {packing} on"
    elif version >= _PACKING_IMPLIED and run.dynamic_batch:
        why = f"{_flag(plan, 'dynamic_batch')} turns {packing} on"
    if why:
        yield report(
            plan,
            "GRPO401",
            f"{why}, but no vLLM engine is started ({engines} is not set above 0). {fw(plan)} stops at start-up: "
            '"Only support `--packing_samples` with vLLM."',
            _at(plan, "packing_samples", "ring_attn_size", "dynamic_batch", "vllm_num_engines"),
            fix=f"{engines} 1 or more (with {_flag(plan, 'vllm_tensor_parallel_size')}), or drop {packing}",
        )
    elif _MAX_LEN_BUG[0] <= version < _MAX_LEN_BUG[1]:
        yield report(
            plan,
            "GRPO401",
            f"no vLLM engine is started ({engines} is not set above 0). {fw(plan)} then stops after the models "
            "load: train_ppo_ray sets max_len only when it creates vLLM engines and passes it to the trainer "
            "anyway (UnboundLocalError: max_len); fixed in 0.11.0.",
            _at(plan, "vllm_num_engines"),
            fix=f"{engines} 1 or more, or upgrade to OpenRLHF >= 0.11.0",
        )


_GENERATE_READ = Version("0.10.0")  # the first OpenRLHF whose code reads --vllm_generate_batch_size


@rule(
    "GRPO112",
    "deepspeed-batch-not-divisible",
    Severity.ERROR,
    "OpenRLHF: train batch not micro batch x gradient accumulation x GPUs of a DeepSpeed model group.",
)
def deepspeed_batch(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _run(plan)
    if run is None or run.dynamic_batch:
        return
    groups = [("actor", run.actor_gpus, "actor_num_gpus_per_node")]
    if run.has_ref and not run.colocate_all:
        groups.append(("reference model", run.ref_gpus, "ref_num_gpus_per_node"))
    if run.has_reward_model and not run.colocate_all:
        groups.append(("reward model", run.reward_gpus, "reward_num_gpus_per_node"))
    tb, mb = _flag(plan, "train_batch_size"), _flag(plan, "micro_train_batch_size")
    scaled = run.train_batch_size * run.ring * run.ds_tp
    for name, gpus, gpu_key in groups:
        if gpus < 1:
            continue
        per_step = run.micro_train_batch_size * gpus
        accumulation = scaled // per_step
        if accumulation >= 1 and scaled == per_step * accumulation:
            continue
        scale = f" x ring {run.ring} x tensor parallel {run.ds_tp}" if run.ring * run.ds_tp > 1 else ""
        if accumulation == 0:
            quote = "Gradient accumulation steps: 0 has to be greater than 0"
            why = f"is smaller than one micro batch on every GPU ({mb} {run.micro_train_batch_size} x {gpus} GPUs)"
        else:
            quote = (
                "Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
                f"gradient_acc_step * world_size {scaled} != {run.micro_train_batch_size} * {accumulation} * {gpus}"
            )
            why = f"is not a multiple of {mb} {run.micro_train_batch_size} x {gpus} GPUs"
        valid = [per_step * k for k in range(1, 65) if per_step * k % (run.ring * run.ds_tp) == 0]
        nearest = sorted(valid, key=lambda v: (abs(v - scaled), v))[:2]
        yield report(
            plan,
            "GRPO112",
            f"{tb} {run.train_batch_size}{scale} {why} of the {name} ({gpus} GPUs). OpenRLHF gives DeepSpeed "
            f"the train and micro batch and lets it derive gradient accumulation ({scaled} // {per_step} = "
            f'{accumulation}); DeepSpeed stops when the {name} starts: "{quote}".',
            _at(plan, "train_batch_size", "micro_train_batch_size", gpu_key),
            fix=" or ".join(f"{tb} {v // (run.ring * run.ds_tp)}" for v in sorted(nearest)),
        )
        return


@rule(
    "GRPO113",
    "rollout-batch-relations",
    Severity.ERROR,
    "OpenRLHF: rollout batch too small for the actor ranks, oversampling without async, or leftover samples.",
)
def rollout_batch_relations(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _run(plan)
    if run is None:
        return
    samples = run.n * run.rollout_batch_size
    chunks = samples // run.micro_rollout_batch_size
    actors = run.actor_gpus // run.ring // run.ds_tp
    rb, mrb = _flag(plan, "rollout_batch_size"), _flag(plan, "micro_rollout_batch_size")
    if chunks < actors:
        yield report(
            plan,
            "GRPO113",
            f"{rb} {run.rollout_batch_size} x n_samples_per_prompt {run.n} = {samples} samples make {chunks} "
            f"experience batches of {mrb} {run.micro_rollout_batch_size}, fewer than the {actors} actor "
            'processes that each need one. OpenRLHF stops at start-up: "The number of sample batches must be '
            'greater than or equal to the effective number of actor processes."',
            _at(plan, "micro_rollout_batch_size", "rollout_batch_size"),
            fix=f"{mrb} {max(samples // max(actors, 1), 1)}, or a larger {rb}",
        )
    generate = run.vllm_generate_batch_size
    if generate is not None and generate != run.rollout_batch_size and plan.target.version < _GENERATE_READ:
        # 0.8.1-0.9.x parse the flag and default it to the rollout batch, but no code reads it (checked
        # in the wheels of 0.8.1, 0.9.0 and 0.9.10); 0.10.0 made the samples generator use it.
        gb = _flag(plan, "vllm_generate_batch_size")
        yield report(
            plan,
            "GRPO113",
            f"{gb} {generate} has no effect in {fw(plan)}: the flag is parsed, but nothing reads it before "
            "OpenRLHF 0.10.0, so generation ignores it (no over-sampling).",
            _at(plan, "vllm_generate_batch_size"),
            fix=f"delete {gb}, or upgrade to OpenRLHF >= 0.10.0 (over-sampling also needs "
            f"{openrlhf_flag(plan, 'async_train')})",
            severity=Severity.WARNING,
        )
    elif generate is not None and generate > run.rollout_batch_size and not run.async_train:
        gb = _flag(plan, "vllm_generate_batch_size")
        yield report(
            plan,
            "GRPO113",
            f"{gb} {generate} is larger than {rb} {run.rollout_batch_size}: over-sampling needs the async "
            f'queue. {fw(plan)} stops at start-up: "--vllm_generate_batch_size > '
            '--rollout_batch_size requires --async_train (over-sampling needs async queue to buffer extra batches)."',
            _at(plan, "vllm_generate_batch_size"),
            fix=f"{gb} {run.rollout_batch_size}, or add {openrlhf_flag(plan, 'async_train')}",
        )
    tb = _flag(plan, "train_batch_size")
    if run.train_batch_size and samples % run.train_batch_size and samples >= run.train_batch_size:
        steps = samples // run.train_batch_size
        yield report(
            plan,
            "GRPO113",
            f"{rb} {run.rollout_batch_size} x n_samples_per_prompt {run.n} = {samples} samples per rollout is not "
            f"a multiple of {tb} {run.train_batch_size}: the actor takes {steps} optimizer step"
            f"{'s' if steps != 1 else ''} and the last {samples % run.train_batch_size} samples of each rollout do "
            "not fill a step. OpenRLHF does not check it.",
            _at(plan, "train_batch_size", "rollout_batch_size"),
            fix=f"{tb} {divisor_near(samples, run.train_batch_size)} (a divisor of {samples})",
            severity=Severity.WARNING,
        )


@rule(
    "GRPO409",
    "colocated-gpu-mismatch",
    Severity.ERROR,
    "OpenRLHF: colocated models placed on different GPU counts.",
)
def colocated_gpu_mismatch(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    run = _run(plan)
    if run is None:
        return
    actor = f"{_flag(plan, 'actor_num_nodes')} x {_flag(plan, 'actor_num_gpus_per_node')}"
    if run.colocate_all and not run.async_train and run.vllm_gpus and run.vllm_gpus != run.actor_gpus:
        vllm = f"{_flag(plan, 'vllm_num_engines')} x {_flag(plan, 'vllm_tensor_parallel_size')}"
        yield report(
            plan,
            "GRPO409",
            f"with {_flag(plan, 'colocate_all')} every vLLM engine shares the actor's GPUs, but {vllm} = "
            f"{run.vllm_gpus} GPUs and {actor} = {run.actor_gpus}. OpenRLHF stops at start-up: "
            f'"actor_num_nodes * actor_num_gpus_per_node must be equal to vllm_num_engines * '
            f'vllm_tensor_parallel_size, got {run.actor_gpus} and {run.vllm_gpus}".',
            _at(plan, "vllm_num_engines", "vllm_tensor_parallel_size", "colocate_all"),
            fix=_engines_fix(plan, run),
        )
    colocated = run.colocate_actor_ref or run.colocate_all
    # OpenRLHF (0.8-0.11.2) compares nodes and GPUs per node one by one: 2 x 4 and 1 x 8 differ.
    if colocated and run.has_ref and run.ref_layout != run.actor_layout:
        ref = f"{_flag(plan, 'ref_num_nodes')} x {_flag(plan, 'ref_num_gpus_per_node')}"
        yield report(
            plan,
            "GRPO409",
            f"the reference model is colocated with the actor, but {ref} = {run.ref_layout[0]} x "
            f"{run.ref_layout[1]} and {actor} = {run.actor_layout[0]} x {run.actor_layout[1]}: the nodes and the "
            'GPUs per node must both match. OpenRLHF stops at start-up: "num_nodes and num_gpus_per_node must be '
            'the same when colocate actor and ref model."',
            _at(plan, "ref_num_gpus_per_node", "ref_num_nodes", "actor_num_gpus_per_node"),
            fix=f"give {_flag(plan, 'ref_num_nodes')} and {_flag(plan, 'ref_num_gpus_per_node')} the actor's values",
        )


def _engines_fix(plan: RunPlan, run: OpenRLHFRun) -> str:
    tp = plan.get("vllm_tensor_parallel_size").value
    tp = tp if isinstance(tp, int) and tp > 0 else 1
    if run.actor_gpus % tp == 0:
        return f"{_flag(plan, 'vllm_num_engines')} {run.actor_gpus // tp} (engines x tensor parallel {tp} = actor GPUs)"
    return f"engines x tensor parallel size = {run.actor_gpus}, the actor's GPU count"
