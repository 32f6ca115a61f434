"""Known bugs of released versions, as data: GRPO304 (duplicate completions) and GRPO114 (a rollout
trained on other batches than the config says). Each entry names the releases affected, the fixed
release and its pull request, and when a config meets the bug."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from packaging.version import Version

from grpo_lint.checks import report, rule
from grpo_lint.checks.consistency import vllm_mode
from grpo_lint.checks.messages import fw
from grpo_lint.diagnostics import Diagnostic, Severity
from grpo_lint.options import Options
from grpo_lint.plan import RunPlan, Setting
from grpo_lint.records import Record


class Trigger(Record):
    """Where a config meets a bug: the setting to point at, and the words the message fills in."""

    at: Setting
    words: dict[str, object]


class KnownBug(Record):
    code: str
    framework: str
    first: Version  # the first release affected
    fixed: Version  # the first release fixed
    meets: Callable[[RunPlan], Trigger | None]
    message: str  # str.format with "fw" and the trigger's words
    fix: str
    trl_from: Version | None = None  # ms-swift: only with this TRL or newer under it


def _colocated_tensor_parallel(plan: RunPlan) -> Trigger | None:
    tp = plan.get("vllm_tensor_parallel_size")
    if vllm_mode(plan) == "colocate" and isinstance(tp.value, int) and tp.value > 1:
        return Trigger(tp, {"tp": f"{tp.key or 'vllm_tensor_parallel_size'} {tp.value}"})
    return None


def _several_servers(plan: RunPlan) -> Trigger | None:
    hosts, urls = plan.get("vllm_server_host"), plan.get("vllm_server_base_url")
    servers = hosts if hosts.explicit else urls
    count = len(servers.value) if isinstance(servers.value, list) else (1 if servers.value else 0)
    if vllm_mode(plan) == "server" and count > 1:
        return Trigger(servers, {"count": count})
    return None


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _micro_batches(count: int) -> str:
    return "micro-batch" if count == 1 else f"{count} micro-batches"


def _rollout_every_even(plan: RunPlan) -> Trigger | None:
    """ms-swift 4.0-4.1 advance the rollout step twice per micro-batch (their `_prepare_inputs` and TRL
    0.26+'s `training_step` both add 1). The buffer holds steps_per_generation x sequence_parallel_size
    micro-batches and is regenerated every buffer x num_iterations; when that is even, the doubled step
    regenerates twice as often, and reads only every other buffered micro-batch (even buffer) or reuses
    each one half as often (odd buffer, even num_iterations)."""
    g = plan.geometry
    steps: int | None = g.steps()
    if g.generation_batch_size is not None and g.steps_per_generation is None and not plan.world_known:
        steps = None  # generation_batch_size / (batch x processes): the process count decides
    sp = _count(plan.value("sequence_parallel_size")) or 1
    iterations = _count(plan.value("num_iterations")) or 1
    buffer = steps * sp if steps else None
    if buffer is not None and buffer % 2 == 0:
        if steps is not None and steps % 2 == 0:
            at = plan.get("steps_per_generation")
            for source in ("steps_per_generation", "generation_batch_size", "gradient_accumulation_steps"):
                if plan.get(source).explicit:
                    at = plan.get(source)
                    break
        else:
            at = plan.get("sequence_parallel_size")
        every = buffer * iterations
        effect = (
            f"would generate a new rollout every {_micro_batches(every // 2)} instead of every "
            f"{_micro_batches(every)} and train on every other buffered micro-batch, throwing half of each "
            "generation away"
        )
    elif buffer is not None and iterations % 2 == 0:
        at = plan.get("num_iterations")
        effect = (
            f"would generate a new rollout twice as often as num_iterations {iterations} says and train on each "
            f"buffered micro-batch {iterations // 2} time(s) instead of {iterations}"
        )
    elif buffer is None and sp % 2 == 0:
        at = plan.get("sequence_parallel_size")
        effect = "would generate a new rollout twice as often as configured, throwing half of each one away"
    elif buffer is None and iterations % 2 == 0:
        at = plan.get("num_iterations")
        effect = "would generate a new rollout twice as often as configured"
    else:
        return None
    return Trigger(at, {"effect": effect})


KNOWN_BUGS = (
    KnownBug(
        "GRPO304",
        "swift",
        Version("3.5.0"),
        Version("3.5.3"),
        _colocated_tensor_parallel,
        "{fw} gives every request of a tensor-parallel group the same sampling seed in colocate mode with "
        "{tp}: copies of a prompt inside a group come out identical (zero reward std). Fixed in ms-swift "
        "3.5.3 (PR #4712).",
        "upgrade to ms-swift >= 3.5.3, or use vllm_tensor_parallel_size: 1",
    ),
    KnownBug(
        "GRPO304",
        "swift",
        Version("3.7.0"),
        Version("3.12.3"),
        _several_servers,
        "{fw} starts every rollout server with the same vLLM seed, so copies of a prompt sent to the {count} "
        "servers (or to data-parallel workers) sample identically. Fixed in ms-swift 3.12.3 and 4.0.0 (PR "
        "#7858/#7859).",
        "upgrade to ms-swift >= 3.12.3 (or 4.0.0)",
    ),
    KnownBug(
        "GRPO114",
        "swift",
        Version("4.0.0"),
        Version("4.2.0"),
        _rollout_every_even,
        "{fw} with TRL 0.26 or newer under it counts each micro-batch twice (its _prepare_inputs and TRL's "
        "training_step both advance the step): this run {effect}, so the optimizer takes half the steps per "
        "rollout the config says (ms-swift issue #9261; fixed in 4.2.0 by PR #9264).",
        "upgrade to ms-swift >= 4.2.0, or install trl < 0.26 under it",
        trl_from=Version("0.26.0"),
    ),
)


def _reports(plan: RunPlan, code: str) -> Iterator[Diagnostic]:
    for bug in KNOWN_BUGS:
        if bug.code != code or plan.framework != bug.framework:
            continue
        if not bug.first <= plan.target.version < bug.fixed:
            continue
        trl = plan.target.trl
        if bug.trl_from is not None and trl is not None and trl < bug.trl_from:
            continue
        trigger = bug.meets(plan)
        if trigger is None:
            continue
        message = bug.message.format(fw=fw(plan), **trigger.words)
        if bug.trl_from is not None:
            message += _trl_clause(plan, bug.trl_from)
        yield report(plan, code, message, trigger.at, fix=bug.fix)


def _trl_clause(plan: RunPlan, needed: Version) -> str:
    from grpo_lint.frameworks.swift.frontend import trl_under

    if plan.target.trl is not None:
        return f" The TRL under it is {plan.target.trl}."
    installs = trl_under(plan.target.version)
    allowed = f"trl>={needed},<{installs[1]}" if installs else f"trl>={needed}"
    return (
        f" Its requirements allow {allowed}, and a fresh install takes the newest; pin TRL or lint with "
        "--target trl==X to say which is under it."
    )


def _check(code: str, plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    yield from _reports(plan, code)


# Both rules read KNOWN_BUGS; they differ in what the bug does to the run.
for _code, _name, _summary in (
    ("GRPO304", "known-duplicate-bug", "Known duplicate-completion bug in the target version."),
    (
        "GRPO114",
        "known-batch-bug",
        "Known bug in the target version that trains on other batches than the config says.",
    ),
):
    rule(_code, _name, Severity.WARNING, _summary)(partial(_check, _code))
