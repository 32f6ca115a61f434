"""GRPO3xx for Python training code: seeding that makes every rank sample the same stream.

Run by grpo_lint.lint on what grpo_lint.sources.python_code read with `ast`. Facts:
reference trl.md (set_seed(args.seed, device_specific=True) in GRPOTrainer since TRL 0.15.0, PR #2824)
and ms-swift.md section 4 (the same fix in ms-swift, PR #3144).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from grpo_lint.checks import REGISTRY, Rule
from grpo_lint.diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from grpo_lint.sources.python_code import PythonFile

_RULES = (
    ("GRPO301", "same-seed-on-every-rank", Severity.WARNING, "A constant seed in distributed sampling code."),
    (
        "GRPO302",
        "set-seed-not-device-specific",
        Severity.WARNING,
        "A GRPO trainer or generation loop seeds with set_seed(seed) without device_specific=True.",
    ),
    (
        "GRPO303",
        "sampler-seed-fixed",
        Severity.WARNING,
        "A DistributedSampler whose seed is a literal or missing while shuffling.",
    ),
)
for _code, _name, _severity, _summary in _RULES:
    REGISTRY[_code] = Rule(_code, _name, _severity, _summary, None)


def check_code(code: PythonFile) -> Iterator[Diagnostic]:
    if code.is_test:
        return  # tests of seeding code seed on purpose
    for seed in code.seeds:
        if seed.rank_aware or seed.in_quiet_trainer:
            continue  # rank-aware, or the seeding of a trainer that never samples (SFT, DPO, reward)
        # A trainer runs on every process accelerate starts; a plain generation function only in a script
        # that is distributed itself (a one-process vLLM script samples distinct completions per prompt).
        local = seed.in_trainer_subclass or (seed.in_generation_loop and code.distributed)
        if seed.name.split(".")[-1] == "set_seed" and local and code.samples:
            where = "a trainer subclass" if seed.in_trainer_subclass else "a function that calls generate()"
            yield Diagnostic(
                "GRPO302",
                Severity.WARNING,
                f"{seed.name}({seed.argument}) in {where} gives every process the same random stream, so the "
                "copies of a prompt spread over the GPUs sample the same completions and their advantages are 0. "
                "TRL's GRPOTrainer calls set_seed(args.seed, device_specific=True) for this reason (since 0.15.0).",
                code.path,
                seed.span,
                fix=f"{seed.name}({seed.argument}, device_specific=True)",
            )
        elif code.distributed and code.samples and not (code.uses_grpo_trainer and not local):
            yield Diagnostic(
                "GRPO301",
                Severity.WARNING,
                f"{seed.name}({seed.argument}) seeds every process of this distributed run with the same value, so "
                "each GPU draws the same random stream: completions sampled for copies of a prompt on different "
                "ranks are identical, and so are their rewards",
                code.path,
                seed.span,
                fix=f"{seed.name}({seed.argument} + rank) with the process rank (e.g. accelerator.process_index or "
                'int(os.environ["RANK"])), or set_seed(seed, device_specific=True)',
            )
        elif code.distributed and not code.samples and not local:
            # A training script that never samples (DDP pre-training): the cost is milder, but real.
            yield Diagnostic(
                "GRPO301",
                Severity.WARNING,
                f"{seed.name}({seed.argument}) seeds every process of this distributed run with the same value, so "
                "every rank draws the same dropout masks and random augmentations for its own data (nanoGPT-style "
                "scripts add the rank to the seed for this reason)",
                code.path,
                seed.span,
                fix=f"{seed.name}({seed.argument} + rank) with the process rank (e.g. int(os.environ['RANK']))",
            )
    for sampler in code.samplers:
        if sampler.shuffle_off or (sampler.seed is not None and not sampler.seed_is_literal):
            continue
        what = f"seed={sampler.seed}" if sampler.seed is not None else "no seed (it defaults to 0)"
        yield Diagnostic(
            "GRPO303",
            Severity.WARNING,
            f"{sampler.name} shuffles with {what}: the data order is the same in every run whatever the run's "
            "seed, so changing --seed does not change which prompts are grouped and trained on first",
            code.path,
            sampler.span,
            fix=f"{sampler.name}(..., seed=args.seed): the run's seed, the same on every rank",
        )
