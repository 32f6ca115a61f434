"""GRPO401-GRPO408: settings that contradict each other (vLLM modes, rewards, clipping, lengths)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from packaging.version import Version

from grpo_lint.checks import report, rule
from grpo_lint.checks.messages import assignment, fw, name_of, shown, spell
from grpo_lint.diagnostics import Diagnostic, Severity, Span
from grpo_lint.groups import divisors_at_least_two
from grpo_lint.options import Options
from grpo_lint.plan import RunPlan, Setting
from grpo_lint.records import Record


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def vllm_mode(plan: RunPlan) -> str | None:
    """The mode the framework will run in (ms-swift 3.5-3.11 picks it from the host)."""
    if not plan.value("use_vllm"):
        return None
    mode = plan.value("vllm_mode")
    if plan.framework == "swift" and plan.target.version < Version("3.12.0"):
        if plan.target.version < Version("3.5.0"):
            return None
        return "server" if _servers(plan) else "colocate"
    return mode


def _servers(plan: RunPlan) -> list[Any]:
    return _as_list(plan.value("vllm_server_base_url")) or _as_list(
        plan.value("vllm_server_host") if plan.get("vllm_server_host").explicit else None
    )


@rule(
    "GRPO401",
    "vllm-mode-conflict",
    Severity.ERROR,
    "vLLM mode inconsistent with the other vLLM settings.",
)
def vllm_mode_conflict(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    use_vllm, mode = plan.get("use_vllm"), plan.get("vllm_mode")
    version = plan.target.version
    if plan.framework == "openrlhf":
        from grpo_lint.checks.openrlhf_batches import openrlhf_without_vllm

        yield from openrlhf_without_vllm(plan)
        return
    if plan.framework == "swift":
        new = version >= Version("3.12.0")
        if new and use_vllm.value and mode.value is None:
            yield report(
                plan,
                "GRPO401",
                f"{use_vllm.key or 'use_vllm'} is true but vllm_mode is not set; {fw(plan)} stops "
                'with "vllm_mode is required when use_vllm is true".',
                use_vllm,
                fix="add `vllm_mode: colocate` (vLLM on the training GPUs) or `vllm_mode: server` "
                "(a `swift rollout` server)",
            )
        if new and mode.value is not None and not use_vllm.value:
            yield report(
                plan,
                "GRPO401",
                f'{mode.key} is set but use_vllm is not true; {fw(plan)} stops with "vllm_mode is '
                'not supported when use_vllm is false".',
                mode,
                fix="add `use_vllm: true`, or delete vllm_mode",
            )
        if use_vllm.value and mode.value == "server" and not _servers(plan):
            if new:
                yield report(
                    plan,
                    "GRPO401",
                    f"vllm_mode server needs vllm_server_host or vllm_server_base_url; {fw(plan)} "
                    "fails with a bare AssertionError.",
                    mode,
                    fix="add `vllm_server_host: [127.0.0.1]` and `vllm_server_port: [8000]` "
                    "(where `swift rollout` listens)",
                )
            elif version >= Version("3.5.0"):
                yield report(
                    plan,
                    "GRPO401",
                    f"vllm_mode server without vllm_server_host: {fw(plan)} silently switches to "
                    "colocate mode and runs vLLM on the training GPUs.",
                    mode,
                    fix="add `vllm_server_host`, or write `vllm_mode: colocate`",
                    severity=Severity.WARNING,
                )
        if use_vllm.value and mode.value == "colocate" and _servers(plan):
            host = (
                plan.get("vllm_server_host")
                if plan.get("vllm_server_host").explicit
                else plan.get("vllm_server_base_url")
            )
            switched = Version("3.5.0") <= version < Version("3.12.0")
            yield report(
                plan,
                "GRPO401",
                f"vllm_mode colocate with a server address ({host.key}): "
                + (
                    f"{fw(plan)} silently switches to server mode."
                    if switched
                    else f"{fw(plan)} builds the colocated engine and also connects to the server."
                ),
                host,
                fix=f"delete `{host.key}`, or write `vllm_mode: server`",
                severity=Severity.WARNING,
            )
        async_generate = plan.get("async_generate")
        if async_generate.value is True and version >= Version("3.5.0") and vllm_mode(plan) != "server":
            yield report(
                plan,
                "GRPO401",
                f"{async_generate.key} needs vllm_mode server; {fw(plan)} stops with "
                '"async generate require vllm_mode == server".',
                async_generate,
                fix="`vllm_mode: server` with a `swift rollout` server, or `async_generate: false`",
            )
    elif use_vllm.value and not mode.explicit and version >= Version("1.0.0"):
        servers = [plan.get(k) for k in ("vllm_server_base_url", "vllm_server_host", "vllm_server_port")]
        given = [s for s in servers if s.explicit]
        if given:
            yield report(
                plan,
                "GRPO401",
                f"{given[0].key} is set but vllm_mode is not: since TRL 1.0.0 the default mode is "
                "colocate, so the server settings are ignored and vLLM runs on the training GPUs.",
                given[0],
                fix="add `vllm_mode: server`",
                severity=Severity.WARNING,
            )
    if plan.framework == "trl" and version >= Version("0.18.0") and vllm_mode(plan) == "server":
        yield from _colocate_only(plan)


# GRPOTrainer keeps these "only for colocation mode" (trl/trainer/grpo_trainer.py, 0.18.0 to 1.x): in server mode
# the engine is `trl vllm-serve`'s, started with its own flags.
_COLOCATE_ONLY = (("vllm_gpu_memory_utilization", "--gpu_memory_utilization"),
                  ("vllm_tensor_parallel_size", "--tensor_parallel_size"))  # fmt: skip


def _colocate_only(plan: RunPlan) -> Iterator[Diagnostic]:
    """A colocated engine's setting written for a run in server mode: nothing reads it. The mode must be shown:
    written, or left at its default by the command that runs the config (or by a `GRPOConfig(...)` call). A config
    read on its own may be launched with `--vllm_mode colocate` (a loop over a folder of configs)."""
    mode = plan.get("vllm_mode")
    shown_mode = mode.explicit or plan.document.format in ("cli", "python")
    if not shown_mode or "vllm_mode" in plan.document.unknown:
        return
    for name, flag in _COLOCATE_ONLY:
        setting = plan.get(name)
        spec = plan.specs.get(name)
        if not setting.explicit or spec is None or setting.value == spec.default_at(plan.target.version):
            continue
        how = f"{mode.key} is server" if mode.explicit else "vllm_mode is server (its default before TRL 1.0.0)"
        yield report(
            plan,
            "GRPO401",
            f"{setting.key} {shown(setting.value)} has no effect: {how}, and {fw(plan)} reads it only for "
            f"a colocated engine. The server's engine is `trl vllm-serve`'s, with its own {flag}.",
            setting,
            fix=f"pass `{flag} {shown(setting.value)}` to `trl vllm-serve`, and delete `{setting.key}`",
            severity=Severity.WARNING,
        )


@rule(
    "GRPO402",
    "tensor-parallel-world-size",
    Severity.ERROR,
    "Colocated vLLM tensor parallel size does not divide the world size.",
)
def tensor_parallel_world_size(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    if plan.framework == "verl":
        yield from _verl_rollout_parallel(plan)
        return
    if vllm_mode(plan) != "colocate":
        return
    if plan.framework == "trl" and plan.target.version < Version("0.18.0"):
        return
    tp = plan.get("vllm_tensor_parallel_size")
    world = plan.geometry.world_size
    if not isinstance(tp.value, int) or tp.value < 1 or world % tp.value == 0 or not plan.world_known:
        return
    name = (
        "tensor_parallel_size"
        if plan.framework == "trl" and plan.target.version >= Version("0.28.0")
        else "vllm_tensor_parallel_size"
    )
    divisors = [1, *divisors_at_least_two(world)]
    yield report(
        plan,
        "GRPO402",
        f"{tp.label('vllm_tensor_parallel_size')} {tp.value} does not divide the world size {world} "
        f"({plan.world_size.origin}): colocated vLLM groups the training processes into tensor-"
        f"parallel groups of {tp.value}. {fw(plan)} stops: "
        f'"{name} ({tp.value}) must divide world size ({world}) evenly."',
        tp if tp.span else plan.world_size,
        fix=f"{name_of(plan, 'vllm_tensor_parallel_size')} {spell(divisors)}; "
        f"or a world size that is a multiple of {tp.value}",
    )


def _verl_rollout_parallel(plan: RunPlan) -> Iterator[Diagnostic]:
    """verl's rollout shares the training GPUs (hybrid engine): TP x DP x PP must divide their count. The check is
    the FSDP workers', whatever trainer class drives them: a repository's own entry point gets it too."""
    rollout = "actor_rollout_ref.rollout"
    run = plan.native
    tp = plan.get(f"{rollout}.tensor_model_parallel_size")
    if run is None:
        run = _entry_rollout(plan, tp)
        if run is None:
            return
    if run.n_gpus % run.rollout_parallel == 0:
        return
    parts = [f"{tp.label(f'{rollout}.tensor_model_parallel_size')} {tp.value}"]
    for name in ("data_parallel_size", "pipeline_model_parallel_size"):
        setting = plan.get(f"{rollout}.{name}")
        if setting.explicit:
            parts.append(f"{setting.key} {setting.value}")
    divisors = [1, *divisors_at_least_two(run.n_gpus)]
    yield report(
        plan,
        "GRPO402",
        f"the rollout engines are colocated with training on {run.n_gpus} GPU{'s' if run.n_gpus != 1 else ''} "
        f"({plan.world_size.origin}), and {' x '.join(parts)} = {run.rollout_parallel} GPUs per engine does not "
        f"divide it{' (verl defaults rollout TP to 2)' if not tp.explicit else ''}. {fw(plan)} stops when the "
        f'workers start: "rollout world_size: {run.n_gpus} is not divisible by infer_world_size: '
        f'{run.rollout_parallel}".',
        tp if tp.span else plan.world_size if plan.world_size.span else Span.point(1, 1),
        fix=assignment(plan, f"{rollout}.tensor_model_parallel_size", spell(nearest_divisors(divisors))),
    )


class _Rollout(Record):
    n_gpus: int
    rollout_parallel: int


def _entry_rollout(plan: RunPlan, tp: Setting) -> _Rollout | None:
    """GPUs and rollout parallel size of a verl run whose trainer is not verl's own (no VerlRun), from the run's
    settings: the GPU count written, the sizes written or from the entry point's composed tree."""
    from grpo_lint.frameworks.base import as_int

    if plan.document.format != "hydra" or str(plan.get("actor_rollout_ref.actor.strategy").value) == "megatron":
        return None
    per_node, nodes = plan.get("trainer.n_gpus_per_node"), plan.get("trainer.nnodes")
    names = ("trainer.n_gpus_per_node", "trainer.nnodes", "actor_rollout_ref.rollout.tensor_model_parallel_size")
    if not (per_node.explicit or nodes.explicit) or any(n in plan.document.unknown for n in names):
        return None
    hydra = plan.document.hydra
    if not tp.explicit and hydra is not None and hydra.schema is None:
        return None  # the default of an entry point's own tree that was not composed is not known
    size = as_int(tp.value, 2)
    for name in ("data_parallel_size", "pipeline_model_parallel_size"):
        size *= max(as_int(plan.get(f"actor_rollout_ref.rollout.{name}").value, 1), 1)
    return _Rollout(max(as_int(per_node.value, 8), 1) * max(as_int(nodes.value, 1), 1), max(size, 1))


def nearest_divisors(divisors: list[int]) -> list[int]:
    return divisors[-3:] if len(divisors) > 3 else divisors


@rule(
    "GRPO403",
    "reward-weights-length",
    Severity.ERROR,
    "reward_weights length differs from the number of rewards.",
)
def reward_weights_length(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    weights = plan.get("reward_weights")
    if not weights.explicit or weights.value is None:
        return
    funcs = plan.get("reward_funcs")
    if not funcs.explicit:
        return
    n_funcs = len(_as_list(funcs.value))
    extra = 0
    if plan.framework == "trl":
        extra = 1 if plan.value("reward_model_name_or_path") else 0
        models = "reward_model_name_or_path"
    else:
        # GRPOTrainer appends each reward model to the list it then compares the weights with (its
        # `self.reward_funcs` is that list): 3.1-3.4 take one model, 3.5 on every --reward_model given.
        given = _as_list(plan.value("reward_model"))
        extra = min(len(given), 1) if plan.target.version < Version("3.5.0") else len(given)
        models = "reward_model"
        gym = _gym_reward(plan)
        if gym is None:  # the rollout server decides whether the gym's reward is a column: either count stands
            if len(_as_list(weights.value)) == n_funcs + extra + 1:
                return
        elif gym:
            extra += 1
            models = f"{models} and the gym environment's reward (use_gym_env)" if given else "use_gym_env's reward"
    n_weights = len(_as_list(weights.value))
    if n_weights == n_funcs + extra:
        return
    counted = f"{n_funcs} in {funcs.key}" + (f" + {extra} from {models}" if extra else "")
    yield report(
        plan,
        "GRPO403",
        f"{weights.key} has {n_weights} weight{'s' if n_weights != 1 else ''} but there are "
        f'{n_funcs + extra} reward sources ({counted}). {fw(plan)} stops: "Number of reward weights '
        f'({n_weights}) must match number of reward functions ({n_funcs + extra})".',
        weights,
        fix=f"give {weights.key} exactly {n_funcs + extra} values, in the order of {funcs.key}",
    )


def _gym_reward(plan: RunPlan) -> bool | None:
    """Whether ms-swift counts a gym environment's total reward as one more reward column, which the weights must
    cover: from 4.3.0 on `use_gym_env` appends `gym_reward` to the names the weights are compared with
    (swift/rlhf_trainers/grpo_trainer.py; 4.0-4.2 compared with the reward functions only). It is read only with
    vLLM (`_prepare_vllm` returns before it otherwise). None when the repository does not say: `gym_env` given
    without `use_gym_env` (4.4 turns it on), or server mode, where the rollout server's setting is inherited."""
    if plan.target.version < Version("4.3.0") or not plan.value("use_vllm"):
        return False
    stated = plan.get("use_gym_env")
    if stated.explicit and stated.value is not None:
        return bool(stated.value)
    if plan.value("gym_env") or plan.value("vllm_mode") == "server":
        return None
    return False


@rule("GRPO404", "sync-ref-without-kl", Severity.ERROR, "sync_ref_model with beta 0.")
def sync_ref_without_kl(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    sync, beta = plan.get("sync_ref_model"), plan.get("beta")
    if sync.value is not True:
        return
    beta_value = beta.value if beta.value is not None else (0.04 if plan.framework == "swift" else 0.0)
    if beta_value != 0:
        return
    rejected = plan.framework == "trl" and plan.target.version >= Version("0.28.0")
    message = (
        f"{sync.key} is true but {beta.label('beta')} is 0: with beta 0 no reference model is "
        "loaded, so there is nothing to synchronise."
    )
    message += f" {fw(plan)} stops at start-up." if rejected else f" {fw(plan)} accepts it; the setting does nothing."
    yield report(
        plan,
        "GRPO404",
        message,
        sync,
        fix="`beta: 0.04` to use a KL penalty, or delete sync_ref_model",
        severity=None if rejected else Severity.WARNING,
    )


@rule("GRPO405", "clip-bounds", Severity.ERROR, "Clipping bounds inconsistent.")
def clip_bounds(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    low, high = plan.get("epsilon"), plan.get("epsilon_high")
    if (
        high.explicit
        and isinstance(high.value, int | float)
        and isinstance(low.value, int | float)
        and high.value < low.value
    ):
        yield report(
            plan,
            "GRPO405",
            f"{high.key} {high.value} is below {low.label('epsilon')} {low.value}: the upper clip bound "
            "1 + epsilon_high is tighter than the lower one, the reverse of clip-higher (DAPO). "
            f"{fw(plan)} accepts it.",
            high,
            fix=f"`{high.key}: 0.28` (DAPO's value), or delete it to use epsilon",
            severity=Severity.WARNING,
        )
    if plan.framework != "trl" or plan.target.version < Version("1.6.0"):
        return
    cmin, cmax = (
        plan.get("vllm_importance_sampling_clip_min"),
        plan.get("vllm_importance_sampling_clip_max"),
    )
    if isinstance(cmin.value, int | float) and isinstance(cmax.value, int | float) and cmin.value >= cmax.value:
        at = cmin if cmin.explicit else cmax
        yield report(
            plan,
            "GRPO405",
            f"vllm_importance_sampling_clip_min ({cmin.value}) must be less than "
            f"vllm_importance_sampling_clip_max ({cmax.value}); {fw(plan)} stops at start-up.",
            at,
            fix="a clip_min below clip_max, e.g. `vllm_importance_sampling_clip_min: 0.5`",
        )


@rule(
    "GRPO406",
    "vllm-context-too-short",
    Severity.WARNING,
    "vLLM max model length below prompt + completion length.",
)
def vllm_context_too_short(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    if not plan.value("use_vllm"):
        return
    name = "vllm_max_model_length" if plan.framework == "trl" else "vllm_max_model_len"
    limit = plan.get(name)
    completion = plan.get("max_completion_length")
    prompt = plan.get("max_prompt_length" if plan.framework == "trl" else "max_length")
    if not isinstance(limit.value, int) or not isinstance(completion.value, int):
        return
    prompt_len = prompt.value if isinstance(prompt.value, int) else 0
    if limit.value >= completion.value + prompt_len and limit.value > completion.value:
        return
    need = completion.value + prompt_len
    parts = f"{completion.label('max_completion_length')} {completion.value}"
    if prompt_len:
        parts = f"{prompt.label(prompt.key or 'max_length')} {prompt_len} + {parts}"
    if limit.value > completion.value and prompt_len:
        # Only prompts longer than the room left for the completion are cut (ms-swift 3.10.2 caps each
        # colocated request at max_model_len minus its prompt): whether the data set has any is not shown.
        return
    yield report(
        plan,
        "GRPO406",
        f"{limit.key} {limit.value} is below {parts}"
        + (f" = {need}" if prompt_len else " plus the prompt")
        + ": vLLM rejects or truncates long requests, so completions end early or prompts fail.",
        limit,
        fix=f"`{limit.key}: {max(need, completion.value) + (0 if prompt_len else 1024)}` or more",
    )


def _ports(plan: RunPlan, count: int) -> str:
    """Example ports as this version's config file takes them: quoted where a YAML list of numbers
    crashes `swift rlhf --config` (3.10-4.0, see the swift front end)."""
    quoted = plan.document.format == "yaml" and Version("3.10.0") <= plan.target.version < Version("4.1.0")
    return ", ".join(f"'{8000 + i}'" if quoted else str(8000 + i) for i in range(count))


@rule(
    "GRPO408",
    "server-list-mismatch",
    Severity.ERROR,
    "ms-swift server host and port lists of different lengths.",
)
def server_list_mismatch(plan: RunPlan, options: Options) -> Iterator[Diagnostic]:
    del options
    if plan.framework != "swift" or plan.target.version < Version("3.7.0"):
        return
    hosts, ports = plan.get("vllm_server_host"), plan.get("vllm_server_port")
    if not hosts.explicit:
        return
    n_hosts, n_ports = len(_as_list(hosts.value)), len(_as_list(ports.value))
    if n_hosts == n_ports or n_ports == 0:
        return
    yield report(
        plan,
        "GRPO408",
        f"{hosts.key} lists {n_hosts} server{'s' if n_hosts != 1 else ''} but "
        f"{ports.key or 'vllm_server_port'} has {n_ports} port{'s' if n_ports != 1 else ''}"
        + (" (the default is [8000])" if not ports.explicit else "")
        + f'; {fw(plan)} stops: "host and server_port must have same length when lists are provided".',
        hosts,
        fix=f"give `vllm_server_port` {n_hosts} values, one per host, e.g. [{_ports(plan, n_hosts)}]",
    )
