"""GRPO301-303 (and GRPO203 in code): seeding that makes every rank sample the same stream.

Run by grpo_lint.lint on what grpo_lint.sources.python_code read with `ast`. The analysis follows the
seeding that reaches a use of randomness, within each function and through seeding helpers of the
repository (a function that seeds with its parameter is judged where it is called, with the argument each
call passes). Facts: reference trl.md (set_seed(args.seed, device_specific=True) in GRPOTrainer since TRL
0.15.0, PR #2824) and ms-swift.md section 4 (the same fix in ms-swift, PR #3144; the fixed per-request seed
of its server mode, PR #4385).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from grpo_lint.checks import REGISTRY, Rule
from grpo_lint.diagnostics import Diagnostic, Severity
from grpo_lint.records import Record

if TYPE_CHECKING:
    from grpo_lint.sources.python_code import PythonFile, RandomUse, Seed
    from grpo_lint.workspace.modules import Modules

_RULES = (
    ("GRPO301", "same-seed-on-every-rank", Severity.WARNING, "A constant seed in distributed sampling code."),
    (
        "GRPO302",
        "set-seed-not-device-specific",
        Severity.WARNING,
        "A GRPO trainer or generation loop seeds with set_seed(seed) without device_specific=True, or never seeds "
        "per process while it skips the trainer that does.",
    ),
    (
        "GRPO303",
        "sampler-seed-fixed",
        Severity.WARNING,
        "A DistributedSampler that shuffles with a literal or missing seed while the run has one of its own.",
    ),
    (
        "GRPO305",
        "sampler-epoch-not-set",
        Severity.WARNING,
        "A shuffling DistributedSampler in training code that is never told the epoch (set_epoch).",
    ),
)
for _code, _name, _severity, _summary in _RULES:
    REGISTRY[_code] = Rule(_code, _name, _severity, _summary, None)


class Helper(Record):
    """What calling a seeding function of the repository does."""

    param: str | None  # it seeds the global streams with this parameter (judged at the call)
    constant: bool  # it seeds them with a value of its own, the same on every rank
    where: str  # `trainer/trainer_utils.py:54`


def check_code(code: PythonFile, modules: Modules | None = None, relative: str = "") -> Iterator[Diagnostic]:
    if code.is_test:
        return  # tests of seeding code seed on purpose
    yield from _seeding(code, modules, relative)
    yield from _missing_seeding(code, modules, relative)
    yield from _request_seeds(code)
    yield from _samplers(code, modules)


# --- which seeding reaches a random draw ---------------------------------------------------------


def _builds_grpo_trainer(code: PythonFile, modules: Modules | None, relative: str) -> bool:
    """Whether the file builds TRL's GRPOTrainer or a class that extends it (its own, or one of the repository's,
    or of a copy of TRL the repository ships): GRPOTrainer.__init__ reseeds every process with seed + rank
    (TRL 0.15.0+), and before 0.15.0 it samples a prompt's whole group in one call on one process."""
    if code.uses_grpo_trainer:
        return True
    index = code.index
    if index is None or code.deleted_inits:
        return False
    for name, _line in index.trainers:
        local = index.classes.get(name)
        if local is not None and any(b.rpartition(".")[2] == "GRPOTrainer" for b in local.bases):
            return True
        if modules is not None and relative:
            ref = modules.resolve(relative, name)
            if ref is not None and _extends_grpo_trainer(modules, ref, 0):
                return True
    return False


_HF_TRAINERS = frozenset({"Trainer", "Seq2SeqTrainer"})


def _builds_hf_trainer(code: PythonFile, modules: Modules | None, relative: str) -> bool:
    """Whether the file builds transformers' Trainer or a class that extends it (an SFT script's own trainer)."""
    index = code.index
    if index is None:
        return False
    for name, _line in index.trainers:
        imported = index.imports.get(name)
        if imported is not None and imported.module.split(".")[0] == "transformers" and name in _HF_TRAINERS:
            return True
        if name.rpartition(".")[0] == "transformers" and name.rpartition(".")[2] in _HF_TRAINERS:
            return True
        if modules is not None and relative:
            ref = modules.resolve(relative, name)
            if ref is not None and modules.extends(ref, "transformers", _HF_TRAINERS):
                return True
    return False


def _extends_grpo_trainer(modules: Modules, ref: object, depth: int) -> bool:
    """Whether the class `ref` names is a GRPOTrainer of TRL (installed, or a copy the repository ships) or of
    another installed library, or extends one. A library's own GRPOTrainer is a fork of TRL's that reseeds per
    process or samples away from the training ranks (verifiers' samples on a vLLM server, 0.1.x), as a direct
    `GRPOTrainer(...)` call of the file is taken to."""
    file, name = ref.file, ref.name  # type: ignore[attr-defined]
    if name == "GRPOTrainer" and (file is None or "trl/" in f"/{file}"):
        return True
    if file is None or depth > 8:
        return False
    facts = modules.index(file)
    if facts is None or name not in facts.classes:
        return False
    for base in facts.classes[name].bases:
        if base.rpartition(".")[2] == "GRPOTrainer" and modules.resolve(file, base) is None:
            return True  # imported from a package the repository does not hold under that name
        found = modules.resolve(file, base)
        if found is not None and _extends_grpo_trainer(modules, found, depth + 1):
            return True
    return False


def _seeding(code: PythonFile, modules: Modules | None, relative: str) -> Iterator[Diagnostic]:
    own = helpers_of(code, relative)
    builds_grpo_trainer = _builds_grpo_trainer(code, modules, relative)
    builds_hf_trainer = not code.samples and _builds_hf_trainer(code, modules, relative)
    events: list[tuple[Seed, bool]] = [(s, s.rank_aware) for s in code.seeds]  # (event, rank-aware)
    resolved: dict[int, Helper] = {}
    for call in code.helpers:
        helper = _resolve(call, code, own, modules, relative)
        if helper is None or (helper.param is None and not helper.constant):
            continue
        resolved[call.order] = helper
        events.append((call, call.rank_aware and not helper.constant))
    by_scope: dict[int, list[tuple[int, object]]] = {}
    for seed, aware in events:
        by_scope.setdefault(seed.scope, []).append((seed.order, (seed, aware)))
    for use in code.random_uses:
        by_scope.setdefault(use.scope, []).append((use.order, use))
    for scope in by_scope.values():
        scope.sort(key=lambda item: item[0])
    for seed, aware in sorted(events, key=lambda e: e[0].order):
        if aware or seed.in_quiet_trainer:
            continue
        helper = resolved.get(seed.order)
        if seed.direct and seed.param is not None:
            continue  # a helper's body seeding with its parameter: judged where it is called
        if helper is not None and helper.constant:
            continue  # the helper's own constant seed is reported in its body
        local = seed.in_trainer_subclass or seed.in_generation_loop
        if not code.distributed and not seed.in_trainer_subclass:
            continue  # one process: one stream, whatever its seed (a trainer runs on every process it is given)
        if builds_grpo_trainer and not local:
            continue  # TRL's GRPOTrainer (or a subclass), built in this file, reseeds every process itself
        if not code.samples and not local and seed.direct and seed.name.rpartition(".")[2] == "set_seed":
            # transformers' / accelerate's set_seed(args.seed) in code that never samples: what their own
            # Trainer does on every rank (transformers Trainer.__init__), the convention of every SFT/DPO script;
            # dropout alike on every rank is not a group made alike. Seeds written by hand still count.
            continue
        if not code.samples and not local and builds_hf_trainer:
            # Code that never samples and trains with transformers' Trainer (SFT, DPO): Trainer.__init__ seeds
            # every rank with set_seed(args.seed) itself, so an earlier seed written by hand changes nothing.
            continue
        reach = _reaches(seed, by_scope.get(seed.scope, []), code)
        if reach is None:
            continue
        yield _report(code, seed, reach, helper)


def _reaches(seed: Seed, events: list[tuple[int, object]], code: PythonFile) -> RandomUse | str | None:
    """What the seed reaches before any rank-aware reseed of the same function: a random draw, or (in the
    code that runs the whole script) the rest of the run; None when a reseed comes first or nothing does."""
    from grpo_lint.sources.python_code import RandomUse

    function = code.functions.get(seed.scope)
    builds_data = function is not None and not (function.main or function.trains or function.generates)
    if builds_data and not (seed.in_trainer_subclass or seed.in_generation_loop or "seed" in function.name.lower()):
        return None  # a function that builds data: every rank must build the same, so one seed is meant
    for order, event in events:
        if order <= seed.order:
            continue
        if isinstance(event, RandomUse):
            if seed.stream and event.stream != seed.stream:
                continue  # `random.seed` does not reach torch's sampling, a training step or np.random
            return event
        _, aware = event  # type: ignore[misc]
        if aware:
            return None  # reseeded per rank before anything random happens
    if seed.stream:
        return None  # Python's or numpy's stream alone: generation and dropout draw from torch's
    main = seed.scope == 0 or (function is not None and function.main)
    constant_helper = function is not None and "seed" in function.name.lower() and seed.direct
    if seed.in_trainer_subclass:
        return "the trainer's next generation"  # a trainer's method runs between its steps
    if (main or constant_helper) and (code.trains or code.samples):
        return "the rest of the run"
    return None


def _report(code: PythonFile, seed: Seed, reach: RandomUse | str, helper: Helper | None) -> Diagnostic:
    local = seed.in_trainer_subclass or (seed.in_generation_loop and code.distributed)
    name = seed.name
    written = f"{name}({seed.argument})"
    reached = reach if isinstance(reach, str) else f"the `{reach.what}` on line {reach.line}"
    if name.rpartition(".")[2] == "set_seed" and local and code.samples and seed.direct:
        where = "a trainer subclass" if seed.in_trainer_subclass else "a function that calls generate()"
        return Diagnostic(
            "GRPO302",
            Severity.WARNING,
            f"{written} in {where} gives every process the same random stream, and it reaches {reached}: the copies "
            "of a prompt spread over the GPUs sample the same completions and their advantages are 0. TRL's "
            "GRPOTrainer calls set_seed(args.seed, device_specific=True) for this reason (since 0.15.0).",
            code.path,
            seed.span,
            fix=f"{name}({seed.argument}, device_specific=True)",
        )
    via = f" (which seeds the global random streams with it, {helper.where})" if helper is not None else ""
    if seed.stream:
        module = "Python's `random` module" if seed.stream == "random" else "numpy's global generator"
        what = f"so every rank draws the same values from {module} there."
    elif code.samples:
        what = (
            "so each GPU draws the same random stream: completions sampled for copies of a prompt on different "
            "ranks are identical, and so are their rewards."
        )
    else:
        what = (
            "so every rank draws the same dropout masks and random augmentations for its own data (nanoGPT-style "
            "scripts add the rank to the seed for this reason)."
        )
    return Diagnostic(
        "GRPO301",
        Severity.WARNING,
        f"{written}{via} seeds every process of this distributed run with the same value, and it reaches "
        f"{reached} before any per-process seed, {what}",
        code.path,
        seed.span,
        fix=f"{name}({seed.argument} + rank) with the process rank (e.g. int(os.environ['RANK']) or "
        "accelerator.process_index), or set_seed(seed, device_specific=True); a data order shared by every rank "
        "wants a torch.Generator of its own, not the global seed",
    )


def helpers_of(code: PythonFile, relative: str) -> dict[str, Helper]:
    """The seeding functions a module defines, by name (`setup_seed`, `Strategy.set_seed`)."""
    found: dict[str, Helper] = {}
    for seed in code.seeds:
        function = code.functions.get(seed.scope)
        if function is None:
            continue
        name = f"{function.class_name}.{function.name}" if function.class_name else function.name
        where = f"{relative or code.path}:{seed.span.line}"
        if seed.param is not None:
            if name not in found or found[name].constant:
                found[name] = Helper(seed.param, False, where)  # where it first seeds with its parameter
        elif not seed.rank_aware and name not in found and "seed" in function.name.lower():
            found[name] = Helper(None, True, where)
    return found


def _resolve(
    call: Seed, code: PythonFile, own: dict[str, Helper], modules: Modules | None, relative: str
) -> Helper | None:
    """The seeding function a call runs: one of the module's own (a method through `self.`), else one of
    another module of the repository, followed through the imports."""
    name = call.name
    if name.startswith("self."):
        function = code.functions.get(call.scope)
        return own.get(f"{function.class_name}.{name[5:]}") if function is not None else None
    if name in own:
        return own[name]
    if modules is None or not relative:
        return None
    found = modules.function(relative, name)
    if found is None:
        return None
    file, function_name = found
    other = modules.code(file)
    return helpers_of(other, file).get(function_name) if other is not None else None


# --- a trainer that skips the seeding its base does ------------------------------------------------


def _missing_seeding(code: PythonFile, modules: Modules | None, relative: str) -> Iterator[Diagnostic]:
    """A GRPO trainer class whose module deletes the `__init__` of the framework trainer it extends (that
    `__init__` seeds each process: TRL's GRPOTrainer since 0.15.0), and that never seeds per process itself."""
    for trainer in code.trainers:
        if trainer.seeds_per_rank:
            continue
        skipped = [
            b for b in trainer.bases if b in code.deleted_inits and _framework_trainer(b, code, modules, relative)
        ]
        if not skipped:
            continue
        base = skipped[0]
        yield Diagnostic(
            "GRPO302",
            Severity.WARNING,
            f"{trainer.name} extends {base} but its module deletes {base}.__init__, which seeds each process with "
            "set_seed(args.seed, device_specific=True) (TRL 0.15.0 and later), and no method of "
            f"{trainer.name} seeds per process itself: every process starts from the same random stream, so the "
            "copies of a prompt spread over the GPUs sample identical completions and their advantages are 0",
            code.path,
            trainer.span,
            fix=f"call set_seed(args.seed, device_specific=True) in {trainer.name}.__init__ (from accelerate.utils)",
        )


def _framework_trainer(base: str, code: PythonFile, modules: Modules | None, relative: str) -> bool:
    """Whether `base` is TRL's GRPOTrainer (or a class that extends it)."""
    if modules is not None and relative:
        ref = modules.resolve(relative, base)
        if ref is not None:
            return modules.extends(ref, "trl", frozenset({"GRPOTrainer"}))
    index = code.index
    imported = index.imports.get(base.split(".")[0]) if index is not None else None
    return (
        imported is not None
        and imported.module.split(".")[0] == "trl"
        and (imported.name or "").endswith("GRPOTrainer")
    )


# --- a fixed seed on every sampling request --------------------------------------------------------


def _request_seeds(code: PythonFile) -> Iterator[Diagnostic]:
    if not (code.trains or code.samples) or not code.distributed:
        return  # an inference or evaluation script that never trains
    for found in code.request_seeds:
        yield Diagnostic(
            "GRPO203",
            Severity.WARNING,
            f"the sampling request takes its seed from {found.written}, the same value for every request and on "
            "every process: the completions sampled for the copies of a prompt come out identical, their rewards "
            "are equal and every advantage is 0 (ms-swift's server mode shipped this and fixed it in PR #4385)",
            code.path,
            found.span,
            fix="leave the request's seed unset, or make it differ per process and request "
            "(seed + process_index * n + i)",
        )


# --- samplers ------------------------------------------------------------------------------------


def _samplers(code: PythonFile, modules: Modules | None = None) -> Iterator[Diagnostic]:
    def told_elsewhere() -> bool:
        # A sampler handed out (OpenRLHF's setup_dataloader returns the loader built on it) is told the epoch
        # where its loader is used: `self.prompts_dataloader.sampler.set_epoch(...)` in another module.
        return modules is not None and modules.mentions(b".set_epoch(")

    for sampler in code.samplers:
        if sampler.shuffle_off or sampler.seed_from_param:
            continue
        fixed = sampler.seed is None or sampler.seed_is_literal
        if fixed and sampler.forwards:
            # a function that builds the sampler from its own parameters, but not its seed
            yield Diagnostic(
                "GRPO303",
                Severity.WARNING,
                f"{sampler.name} is built from this function's parameters, but not its seed, which stays "
                f"{'0 (its default)' if sampler.seed is None else sampler.seed}: no caller can give it the run's "
                "seed, so every run shuffles the data in the same order whatever its seed",
                code.path,
                sampler.span,
                fix=f"add a `seed` parameter and pass it on: {sampler.name}(..., seed=seed)",
            )
        elif fixed and code.run_seed:
            what = f"seed={sampler.seed}" if sampler.seed is not None else "no seed (it defaults to 0)"
            yield Diagnostic(
                "GRPO303",
                Severity.WARNING,
                f"{sampler.name} shuffles with {what}, not the run's seed: the data order is the same in every run "
                "whatever its seed, so changing --seed does not change which prompts are grouped and trained on first.",
                code.path,
                sampler.span,
                fix=f"{sampler.name}(..., seed=args.seed): the run's seed, the same on every rank",
            )
        if code.trains and not code.set_epoch and sampler.name == "DistributedSampler" and not told_elsewhere():
            yield Diagnostic(
                "GRPO305",
                Severity.WARNING,
                f"{sampler.name} shuffles, but nothing calls its set_epoch(): it draws the same order in every epoch "
                "(it seeds its shuffle with seed + epoch), so each epoch repeats the first one's batches and groups.",
                code.path,
                sampler.span,
                fix="call sampler.set_epoch(epoch) at the start of every epoch",
            )
