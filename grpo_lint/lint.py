"""Lint one unit (a config, a launch script with the runs it starts, a Python file) in the context
of its workspace: detect the framework, pick the version, build the RunPlan, run the rules, filter.

This is the only place that lints. Readers (`sources/`) and the launch model (`launch/`) produce
data; the engine decides which units there are. Filtering happens here, once per file:
--select/--ignore, per-file ignores, inline suppressions (GRPO008 for unused ones) and per-rule
severity overrides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from grpo_lint.diagnostics import Diagnostic, Severity, Span, first_of
from grpo_lint.limits import CLIP, MAX_MESSAGE
from grpo_lint.options import Options
from grpo_lint.patterns import lazy
from grpo_lint.premises import ASSUMED_READER, RELEASE_INDEPENDENT
from grpo_lint.results import FileResult
from grpo_lint.sources.document import Document, Entry, ReadProblem
from grpo_lint.versions import Target, resolve_target

if TYPE_CHECKING:
    from grpo_lint.launch.commands import Launch
    from grpo_lint.launch.runs import Run, ScriptRuns
    from grpo_lint.plan import RunPlan
    from grpo_lint.sources.shell import Command, Joined, Script, Word
    from grpo_lint.workspace import Workspace


def selected(code: str, options: Options) -> bool:
    """--select / --ignore by code or code prefix (GRPO1 = every GRPO1xx)."""
    select, ignore = options.select, options.ignore
    if select and not code.startswith(tuple(select)):
        return False
    return not (ignore and code.startswith(tuple(ignore)))


def target_for(
    framework: str,
    options: Options,
    workspace: Workspace | None,
    recorded: str | None = None,
    path: str = "",
    keys: Iterable[str] = (),
    called: bool = False,
) -> Target:
    return resolve_target(framework, options.targets, recorded, workspace, path, keys, called)


# --- configs ---------------------------------------------------------------------------------


def judged_anyway(explicit: bool, options: Options) -> bool:
    """Whether a config is judged whatever its keys say: the user names the framework, or names the file (unless
    the names come from a hook's `--only-configs`)."""
    return options.framework is not None or (explicit and not options.only_configs)


def lint_config(
    parsed: Document | ReadProblem | None, display: str, explicit: bool, options: Options, workspace: Workspace | None
) -> FileResult:
    judge_anyway = judged_anyway(explicit, options)
    if parsed is None:
        return FileResult(display, "skipped", note="empty")
    if isinstance(parsed, ReadProblem):
        not_mapping = parsed.message.startswith("top level is")
        # (a file found by a walk, or passed by a pre-commit hook, that cannot be parsed is reported only when its text
        # looks like a GRPO config: any other broken YAML is not ours to judge)
        from grpo_lint.frameworks.detect import LOOKS_LIKE_GRPO

        grpo_like = parsed.grpo if parsed.grpo is not None else bool(LOOKS_LIKE_GRPO.search(parsed.text))
        if not judge_anyway and (not_mapping or not grpo_like):
            reason = "not a mapping" if not_mapping else "unreadable, and nothing in it looks like a GRPO config"
            return finish(FileResult(display, "skipped", note=reason), options)
        return finish(unreadable(display, parsed, options), options)
    if not judge_anyway:
        # Found by a walk, with no launch that names it: which program reads it is not shown.
        parsed.parser = None
    return finish(lint_document(parsed, options, workspace), options)


def _with_trl_under(target: Target, options: Options, workspace: Workspace | None) -> Target:
    """ms-swift releases whose verdicts depend on the TRL installed under them (TRL_UNDER): that TRL, when
    known (a --target, the installed package or a pin) and one they install with."""
    from grpo_lint.frameworks.swift.frontend import trl_under

    installs = trl_under(target.version)
    if installs is None:
        return target
    underneath = target_for("trl", options, workspace)
    if underneath.uncertain:
        return target
    if not installs[0] <= underneath.version < installs[1]:
        return target
    return target._replace(trl=underneath.version)


def lint_document(
    document: Document, options: Options, workspace: Workspace | None = None, extra_keys: frozenset[str] = frozenset()
) -> FileResult:
    """Lint one Document: a config file, or the Document of one command of a launch script."""
    from grpo_lint.frameworks.detect import detect

    framework = options.framework
    if framework is None:
        from grpo_lint.launch.accelerate import is_accelerate_config

        if is_accelerate_config(document) and document.format != "cli":
            return _lint_accelerate_config(document, options, workspace)
        detection = detect(document)
        if detection.framework is None:
            return FileResult(document.path, "skipped", text=document.text, note=detection.reason)
        framework = detection.framework
        stated = framework in options.targets  # the user names the framework
        if document.parser is None and workspace is not None and not stated and workspace.uses(framework) is None:
            # found by a walk, no launch names it, and the repository never uses the framework: key likeness
            # is no evidence (a retrieval tool's YAML with `model_name_or_path`)
            from grpo_lint.versions import DISPLAY

            name = DISPLAY[framework]
            note = f"looks like a {name} config, but the repository neither imports nor depends on {name}"
            return FileResult(document.path, "skipped", text=document.text, note=note)
    if document.launcher is None and options.accelerate is not None:
        document.launcher = options.accelerate
    if framework == "verl" and document.hydra is None:
        from grpo_lint.frameworks.verl.frontend import nested_to_paths

        nested_to_paths(document)
    loaded = _interpolated_when_loaded(document, framework)
    recorded = document.entries.get("swift_version") if framework == "swift" else None
    recorded_version = str(recorded.value) if recorded is not None else None
    written = document.written()  # (a key written with a value not known yet too)
    where = document.path
    if document.code and workspace is not None and workspace.pins.nearest(framework, workspace.relative(document.code)):
        where = document.code  # (the release the launched script's own folders state: its project's setup.py)
    target = target_for(framework, options, workspace, recorded_version, where, written, document.called)
    if framework == "swift":
        target = _with_trl_under(target, options, workspace)
    if target.fork is not None and not target.fork.mapped:
        document.parser = None  # a copy whose schema grpo-lint cannot read: its keys are not known
    elif document.parser is None and framework == "swift" and document.format != "python":
        # `rlhf_type: grpo` and ms-swift's argument names: read by `swift rlhf`, whatever starts it
        document.parser = ""
    elif document.parser is None and framework == "trl" and workspace is not None and document.format != "cli":
        # (a launch's own flags are read by the script it names: not found, its keys are not known; a `GRPOConfig(...)`
        # call's keywords are the constructor's, whatever parser the repository has)
        extra_keys = extra_keys if document.called else extra_keys | _assumed_reader(document, workspace)
    known = options.extra_keys | extra_keys
    if target.fork is not None and framework != "verl":
        known |= target.fork.keys()
    if known != options.extra_keys:
        options = options._replace(extra_keys=known)
    if framework == "swift" and "reward_funcs" in document.entries:
        document.registered = _rewards_registered(document, workspace)
    plan = _plan(framework, document, target, options, workspace)
    diagnostics = _judged(plan, options)
    if framework == "verl" and workspace is not None and any(d.code == "GRPO006" for d in diagnostics):
        diagnostics = [d for d in diagnostics if not _registered_here(d, plan, workspace)]
    oldest = None
    if target.basis == "assumed" and target.allows and any(_release_error(d) for d in diagnostics):
        # An assumed release stands for several: an error that the oldest of them gives too is no assumption (nor
        # is one of the only release that fits the keys the config writes, unless the code installed is a git
        # checkout, which may lie between releases).
        if len(target.allows) > 1:
            oldest = _judged(
                _plan(framework, document, target._replace(version=target.allows[0]), options, workspace), options
            )
        elif not target.git:
            oldest = diagnostics
    from grpo_lint.premises import decide

    diagnostics, unchecked = decide(diagnostics, plan, oldest)
    hydra = document.hydra
    if framework == "verl" and hydra is not None and hydra.entry and hydra.schema is None:
        unchecked.append(
            f"GRPO002, GRPO009 and the batch rules: {hydra.entry} composes a config of its own"
            f"{f' ({hydra.not_composed})' if hydra.not_composed else ', which grpo-lint does not read'}; only the "
            "sampling values the run writes are judged"
        )
    elif framework == "verl" and hydra is not None and hydra.not_composed and hydra.schema is None:
        # (verl's own main_ppo of a copy, its tree not followed: `--config-path="$CONFIG_PATH"` not known before launch)
        unchecked.append(f"the keys of the config tree the run composes: {hydra.not_composed}")
    if loaded:
        shown = first_of([f"`{key}`" for key in loaded], 6)
        unchecked.append(
            f"the values of {shown}: OmegaConf interpolations (`${{...}}`), computed when the config is loaded"
        )
    if selected("GRPO013", options):
        from grpo_lint.premises import release_ties

        diagnostics.extend(_in_own_file(release_ties(plan)))
    result = FileResult(document.path, "linted", diagnostics, document.text, str(target), [plan], document.format)
    result.unchecked = unchecked
    return result


# A Hydra config's own marks: the package header, or a key only Hydra's composition and instantiation read.
_HYDRA_HEADER = lazy(r"^#\s*@package\b", re.M)
_HYDRA_KEYS = ("_target_", "defaults")


def _interpolated_when_loaded(document: Document, framework: str) -> list[str]:
    """The keys of a YAML or JSON config written as OmegaConf interpolations (`max_completion_length:
    ${eval:"${model.max_seq_length} - 512"}`) where a loader of the repository's own reads the file: no launch
    shows TRL's or OpenRLHF's parser reading it (a walk found it), or the file is a Hydra config (`# @package`,
    `_target_`, `defaults`). OmegaConf computes such values when it loads the config, so they are not known before
    launch: moved to the document's unknown keys, as a launch's `$VAR` is. (TRL's and ms-swift's own parsers take
    the text as written, and the value's check stands; verl composes interpolations itself.)"""
    if framework == "verl" or document.format not in ("yaml", "json"):
        return []
    hydra = any(key in document.entries for key in _HYDRA_KEYS) or bool(_HYDRA_HEADER.search(document.text))
    if not hydra and (document.parser is not None or framework == "swift"):
        return []
    keys = [key for key, entry in document.entries.items() if isinstance(entry.value, str) and "${" in entry.value]
    for key in keys:
        entry = document.entries.pop(key)
        document.unknown_entries[key] = Entry(entry.key, None, entry.key_span, entry.value_span)
    document.unknown |= frozenset(keys)
    return keys


# verl names a run looks up in a registry the repository can add to: an advantage estimator (`@register_adv_est("x")`,
# an enum value of its own) and a rollout engine (`_ROLLOUT_REGISTRY[("vllm_omni", "async")] = ...`).
_REGISTERED_KEYS = ("algorithm.adv_estimator", "actor_rollout_ref.rollout.name")


def _registered_here(diagnostic: Diagnostic, plan: RunPlan, workspace: Workspace) -> bool:
    """A verl advantage estimator or rollout engine the repository registers itself: its name is written as a string
    in the repository's Python, so the run may know it."""
    if diagnostic.key not in _REGISTERED_KEYS:
        return False
    entry = plan.document.entries.get(diagnostic.key)
    if entry is None or not isinstance(entry.value, str):
        return False
    name = entry.value.encode()
    modules = workspace.modules
    return any(
        b'"' + name + b'"' in data or b"'" + name + b"'" in data
        for relative in modules.files
        if (data := modules.bytes_of(relative)) is not None
    )


def _rewards_registered(document: Document, workspace: Workspace | None) -> frozenset[str] | None:
    """The reward function names an ms-swift run may have beyond the built-in ones: those written as a string in the
    repository's Python (a plugin registers `orms['my_reward'] = MyORM`). None (any name) when the run loads a plugin
    (`--external_plugins`, `--custom_register_path`) that is not a file of the repository, or is not known before
    launch, or when the repository is not shown."""
    plugins: list[str] = []
    for key in ("external_plugins", "custom_register_path"):
        if key in document.unknown:
            return None
        entry = document.entries.get(key)
        if entry is not None:
            plugins += [str(v) for v in (entry.value if isinstance(entry.value, list) else [entry.value]) if v]
    if workspace is None:
        return None if plugins else frozenset()
    from grpo_lint.frameworks.swift.fields import REWARDS
    from grpo_lint.workspace.files import held

    if any(held(plugin, workspace.files) is not True for plugin in plugins):
        return None

    entry = document.entries["reward_funcs"]
    names = [v for v in (entry.value if isinstance(entry.value, list) else [entry.value]) if isinstance(v, str)]
    modules = workspace.modules  # (a built-in name is never looked for: most runs name only those)
    return frozenset(
        name
        for name in names
        if name not in REWARDS
        and (modules.mentions(b'"' + name.encode() + b'"') or modules.mentions(b"'" + name.encode() + b"'"))
    )


def _assumed_reader(document: Document, workspace: Workspace) -> frozenset[str]:
    """A TRL config no launch names: when every GRPO training script of the repository shows its parser,
    one of them reads it (assumed): their keys are what it may hold. Returns the keys they add."""
    scripts = workspace.grpo_scripts
    if not scripts or any(not p.keys_known or p.keeps_unknown for _, p in scripts):
        return frozenset()
    names = first_of([name for name, _ in scripts], 3)
    document.parser = f"{ASSUMED_READER}one of the repository's GRPO training scripts ({names}) reads it"
    trainers = {p.own_trainer for _, p in scripts}
    if len(trainers) == 1:
        document.trainer = trainers.pop()
        # what holds whichever of them reads it: the checks all their trainers keep, TRL's GRPOConfig in all
        document.program = scripts[0][1]._replace(
            trainer_checks=frozenset.intersection(*(p.trainer_checks for _, p in scripts)),
            trl_config=all(p.trl_config for _, p in scripts),
            trainer_batch="",
            takes_value=(),
        )
    return frozenset().union(*(p.own_keys | p.flags for _, p in scripts))


def _plan(framework: str, document: Document, target: Target, options: Options, workspace: Workspace | None) -> RunPlan:
    if framework == "trl":
        from grpo_lint.frameworks.trl.frontend import build
    elif framework == "verl":
        from grpo_lint.frameworks.verl.frontend import build
    elif framework == "openrlhf":
        from grpo_lint.frameworks.openrlhf.frontend import build
    else:
        from grpo_lint.frameworks.swift.frontend import build
    plan = build(document, target, options)
    if workspace is not None and any(f.status == "unknown" for f in plan.key_findings) and not _parser_shown(document):
        # The repository's own argument classes are read only when a key is unknown to the framework, and only where
        # the program that reads the file is not shown (a script's TrlParser shown has its own classes: the fields of
        # an unrelated script's dataclass are not its keys).
        defined = workspace.known_keys(framework)
        plan = plan._replace(key_findings=[f for f in plan.key_findings if f.entry.key.lstrip("-") not in defined])
    return plan


def _parser_shown(document: Document) -> bool:
    """Whether the program that reads a TRL config is shown with its classes: a script's own parser, or TRL's own."""
    from grpo_lint.launch.commands import TRL_CLI, TRL_SCRIPT

    parser = document.parser or ""
    return (bool(parser) and not parser.startswith(ASSUMED_READER)) or document.entry in (TRL_CLI, TRL_SCRIPT)


def _judged(plan: RunPlan, options: Options) -> list[Diagnostic]:
    from grpo_lint.checks import run_all

    return _in_own_file(d for d in run_all(plan, options) if selected(d.code, options))


def _in_own_file(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Each diagnostic in the file its span is in (a value a launch takes from a script's GRPOConfig call or a
    config file the script loads is reported there, not at that line number of the launch script)."""
    return [d._replace(path=d.span.path) if d.span is not None and d.span.path else d for d in diagnostics]


def _release_error(diagnostic: Diagnostic) -> bool:
    return diagnostic.severity >= Severity.WARNING and diagnostic.code not in RELEASE_INDEPENDENT


def _lint_accelerate_config(document: Document, options: Options, workspace: Workspace | None) -> FileResult:
    from grpo_lint.checks.launch import check_accelerate_config

    files = workspace.files if workspace is not None and workspace.complete else None
    diagnostics = [d for d in check_accelerate_config(document, files) if selected(d.code, options)]
    if any(d.code == "GRPO001" for d in diagnostics) and workspace is not None:
        relative = workspace.relative(document.path)
        if relative and not workspace.modules.names_file(relative):
            # (no file of the repository names this accelerate config: no run shown uses it, a DPO folder's leftover)
            diagnostics = [d for d in diagnostics if d.code != "GRPO001"]
    if not diagnostics:
        return FileResult(document.path, "skipped", text=document.text, note="an accelerate config (consistent)")
    return FileResult(document.path, "linted", diagnostics, document.text, "accelerate config", None, document.format)


def unreadable(display: str, problem: ReadProblem, options: Options) -> FileResult:
    diagnostics = []
    if selected("GRPO001", options):
        diagnostics.append(
            Diagnostic(
                "GRPO001",
                Severity.ERROR,
                f"cannot be read as a config: {problem.message}",
                display,
                problem.span or Span.point(1, 1),
                fix=None,
            )
        )
    return FileResult(display, "unreadable", diagnostics, problem.text)


# --- launch scripts --------------------------------------------------------------------------


def lint_script(runs: ScriptRuns, options: Options, workspace: Workspace | None) -> FileResult:
    """Every GRPO run a script starts, then the GRPO5xx launch rules over the whole script."""
    from grpo_lint.checks.launch import run_script_rules

    script = runs.script
    diagnostics: list[Diagnostic] = _after_cuts(list(runs.problems), script)
    skipped_rules: list[str] = []
    plans: list[RunPlan] = []
    pairs: list[tuple[Launch, RunPlan | None]] = []
    said: set[tuple] = set()  # what the runs of a function's body said, once for all its calls
    from grpo_lint.launch.runs import never_starts

    for launch, run in zip(runs.launches, runs.runs, strict=True):
        if (
            run is None
            and launch.role in ("train", "megatron")
            and not launch.easyr1
            and not never_starts(script, launch).kind
        ):
            continue  # not a GRPO run grpo-lint checks (`swift rlhf --rlhf_type dpo`, an SFT recipe, Megatron)
        plan = None
        if run is not None:
            plan, found, unchecked = _lint_run(run, script, options, workspace, runs.joined)
            if launch.command.called_at:
                found = _as_called(found, launch.command.called_at, script, said)
            if run.unparsable:
                # Hydra stops on the command before it reads a setting (GRPO001 says where): what else the
                # command would do depends on what it means to say, which is not known
                found = [d for d in found if d.severity is Severity.INFO or d.code.startswith(("GRPO5", "GRPO2"))]
                unchecked = [f"the settings of line {launch.command.line}: Hydra cannot parse the command (GRPO001)"]
            diagnostics.extend(found)
            skipped_rules.extend(f"line {launch.command.line}: {u}" for u in unchecked)
            if plan is not None:
                plans.append(plan)
        pairs.append((launch, plan))
    if pairs:
        found = run_script_rules(script, pairs, options, runs.joined)
        plans_of = [plan for _, plan in pairs if plan is not None]
        if plans_of:  # the script's own rules judge its runs together: the first run's premises speak for them
            from grpo_lint.premises import decide

            found, unchecked = decide(found, plans_of[0])
            skipped_rules.extend(unchecked)
        diagnostics.extend(found)
    for text, first, expanded, moved in script.embedded_python:
        if expanded:  # bash fills in `$VAR` first: what the program says is known only when the script runs
            skipped_rules.append(f"line {first}: the Python here-document bash expands (`$VAR` in it) is not read")
            continue
        # `python3 - << 'EOF'`: a program of the script's own, read as a Python file at the script's lines
        embedded = lint_python("\n" * (first - 1) + text, script.path, False, options, workspace)
        # (`<<-` took tabs off its lines: a column there is not the script's, so no edit is offered)
        diagnostics.extend(d._replace(fixes=()) if moved else d for d in embedded.diagnostics)
        plans.extend(embedded.plans)
    called = False
    for command, with_env, alone in runs.called:
        found, their_plans = _called_script(command, with_env, alone, script, options, workspace)
        diagnostics.extend(found)
        plans.extend(their_plans)
        called = called or bool(their_plans)
    diagnostics = [d if d.path else d._replace(path=script.path) for d in diagnostics if selected(d.code, options)]
    if not called and not any(launch.role == "train" for launch, _ in pairs) and not diagnostics and not plans:
        if runs.not_grpo:
            note = runs.not_grpo[0]
        elif runs.launches:
            note = "starts only a rollout server"
        else:
            note = "no GRPO launch command"
        return FileResult(script.path, "skipped", text=script.text, note=note, format="shell")
    result = FileResult(script.path, "linted", diagnostics, script.text, "launch script", plans, "shell")
    result.sources = runs.sources
    result.unchecked = sorted(set(skipped_rules))
    return finish(result, options)


def _as_called(found: list[Diagnostic], called_at: int, script: Script, said: set[tuple]) -> list[Diagnostic]:
    """The findings on a run of a function's body, judged with the arguments of the call at line `called_at`: each
    names that call, is said once for all calls that give it, and offers no edit (an edit of the body would change
    every call)."""
    call = clip(script.lines[called_at - 1].strip()) if called_at <= len(script.lines) else ""
    where = f" (the function as line {called_at} calls it: `{call}`)"
    kept = []
    for d in found:
        key = (d.code, d.span, d.message)
        if key not in said:
            said.add(key)
            kept.append(d._replace(message=d.message + where, fixes=()))
    return kept


def _called_script(
    command: Command,
    with_env: ScriptRuns,
    alone: ScriptRuns,
    script: Script,
    options: Options,
    workspace: Workspace | None,
) -> tuple[list[Diagnostic], list[RunPlan]]:
    """What a script of the repository run by this one (`bash train/rlhf.sh`) gives with the variables this
    one exports, beyond what it gives read alone: reported in the called script, naming this one."""
    called = lint_script(with_env, options, workspace)
    seen = {(d.code, d.path, d.span, d.message) for d in lint_script(alone, options, workspace).diagnostics}
    where = f" (when {script.path} runs it at line {command.line}, with the variables that script sets)"
    found = [
        d._replace(message=d.message + where)
        for d in called.diagnostics
        if (d.code, d.path, d.span, d.message) not in seen and d.severity is not Severity.INFO
    ]
    return found, list(called.plans or [])


def _lint_run(
    run: Run, script: Script, options: Options, workspace: Workspace | None, joined: Joined | None = None
) -> tuple[RunPlan | None, list[Diagnostic], list[str]]:
    framework = run.launch.framework
    options = options._replace(framework=framework)
    if run.launch.unseen_copy and framework not in options.targets:
        from grpo_lint.versions import NEWEST_KNOWN

        why = run.launch.unseen_copy
        unseen = Target(framework, NEWEST_KNOWN[framework], why, uncertain=why, unknown=True, foreign=True)
        options = options._replace(targets={**options.targets, framework: unseen})
    linted = lint_document(run.document, options, workspace, run.extra_keys)
    found = list(linted.diagnostics)
    cut = next((c for c in script.cutoffs if c.command_line == run.launch.command.line), None)
    blank = (joined or {}).get(run.launch.command.line)
    where = f"the comment on line {cut.comment.line}" if cut is not None else ""
    if blank is not None:
        where = f"{where} and " if where else ""
        line, kind, _words = blank[0]
        where += f"the empty line {line}" if kind == "empty" else f"the `\\ ` (a space after it) of line {line}"
        where += " and the cuts below it" if len(blank) > 1 else ""
    if where:  # judged as written; GRPO501 reports the cut itself
        found = [
            d._replace(message=d.message + _as_written(where)) if not d.code.startswith("GRPO5") else d for d in found
        ]
    read = _read_keys(run.launch.framework)
    for name, word in run.unresolved.items():
        if read is None or name in read:
            found.append(_unresolved(script, name, word))
    return (linted.plans[0] if linted.plans else None), found, linted.unchecked


def _after_cuts(problems: list[Diagnostic], script: Script) -> list[Diagnostic]:
    """A problem of the script reader (a Hydra override that does not parse) in the words a comment cut off a command:
    found by reading the command as written, as the rules read it; said so, and GRPO501 says what bash does."""
    if not script.cutoffs:
        return problems
    lost = {(w.span.line, w.span.column): cut.comment.line for cut in script.cutoffs for w in cut.lost}
    marked = []
    for problem in problems:
        line = lost.get((problem.span.line, problem.span.column)) if problem.span is not None else None
        if line is not None and not problem.code.startswith("GRPO5"):
            problem = problem._replace(message=problem.message + _as_written(f"the comment on line {line}"))
        marked.append(problem)
    return marked


def _as_written(where: str) -> str:
    """What a finding in words bash cuts off a command says of itself (GRPO501 reports the cut)."""
    return f" (This reads the command as written, with the words after {where}, which bash cuts off; see GRPO501.)"


def _read_keys(framework: str) -> frozenset[str] | None:
    """The keys the checks read, for frameworks whose commands are mostly other settings; None = all."""
    if framework not in ("verl", "openrlhf"):
        return None
    if framework == "verl":
        from grpo_lint.frameworks.verl.frontend import READ

        return frozenset(READ)
    from grpo_lint.frameworks.openrlhf.frontend import NAMES

    return frozenset(name for pair in NAMES.values() for name in pair)


def _shown(script: Script, word: Word) -> str:
    """A value as the script writes it (`${TP}`), not as far as it could be expanded."""
    written = script.written(word.span)
    return written if 0 < len(written) <= 120 and "\n" not in written else word.text


def _unresolved(script: Script, name: str, word: Word) -> Diagnostic:
    return Diagnostic(
        "GRPO507",
        Severity.INFO,
        f"`{_shown(script, word)}` depends on {', '.join(clip(u) for u in word.unknown)}, which is not known "
        "before launch; "
        f"the checks that need {name} are not made (its default is never blamed)",
        script.path,
        word.span,
        key=name,
        fix="set the variable in the script, or pass a literal value",
    )


# --- Python files ----------------------------------------------------------------------------


def _trls(callee: str, index: Any) -> bool:
    """Whether a `GRPOConfig(...)` call builds TRL's config: the name is imported from TRL (or Unsloth, which patches
    it), or not shown to come from anywhere else (a star import, a notebook cell). A class of that name defined in
    the file or imported from another module is the repository's own."""
    if index is None:
        return True
    head, _, _ = callee.partition(".")
    if head in index.classes:
        return False
    imported = index.imports.get(head)
    if imported is None:
        return True
    return imported.level == 0 and imported.module.split(".")[0] in ("trl", "unsloth")


def lint_python(
    text: str,
    display: str,
    explicit: bool,
    options: Options,
    workspace: Workspace | None,
    framework_source: bool = False,
) -> FileResult:
    """GRPOConfig(...) calls like config files, and the seeding rules. `framework_source`: the file is part
    of a framework's own code (a copy in the repository): only the code rules judge it."""
    from grpo_lint.sources.python_needles import not_worth_parsing

    modules = workspace.modules if workspace is not None else None
    relative = modules.relative(display) if modules is not None else None
    if not explicit:
        # the byte-level test, on the path the reader would judge as a test's: most files are never parsed (the
        # verdict of the read ahead, when it made one)
        screened = workspace.screened if workspace is not None else {}
        reason = (
            screened.pop(display)
            if display in screened
            else not_worth_parsing(text, relative or display, framework_source)
        )
        if reason is not None:
            return FileResult(display, "skipped", note=reason)
    from grpo_lint.checks.code import check_code
    from grpo_lint.sources.parse_cache import read

    code = modules.code(relative, text) if modules is not None and relative is not None else None
    if code is None:
        code = read(text, display)
    if isinstance(code, ReadProblem):
        if explicit and not options.only_configs:
            return finish(unreadable(display, code, options), options)
        return FileResult(display, "skipped", note="not valid Python")
    diagnostics: list[Diagnostic] = []
    plans = []
    unchecked: list[str] = []
    for call in [] if framework_source else code.configs:
        if not _trls(call.callee, code.index):
            continue  # the repository's own class of that name (`from src.model import GRPOConfig`): not TRL's
        document = Document(display, text, "python", call.entries)
        document.called = True  # (a `GRPOConfig(...)` call, under its own name or an alias: `TRLGRPOConfig(...)`)
        document.unknown = frozenset(call.unknown)
        if call.spread:  # `GRPOConfig(**kwargs, ...)`: any value the call does not write may come from kwargs
            from grpo_lint.frameworks.base import CANONICAL

            document.unknown |= frozenset(CANONICAL) - call.entries.keys()
        document.unknown_entries = dict(call.unknown_entries or {})
        if code.unsloth:
            from grpo_lint.launch.commands import UNSLOTH

            document.entry = UNSLOTH  # Unsloth's patched GRPOConfig reads these values
        linted = lint_document(document, options._replace(framework="trl"), workspace)
        diagnostics.extend(
            d._replace(path=display) for d in linted.diagnostics if not (code.other_trainer and d.code == "GRPO006")
        )
        plans.extend(linted.plans)
        if code.unsloth and selected("GRPO401", options):
            diagnostics.extend(_unsloth_forces_vllm(call.entries.get("use_vllm"), text, display))
        for key, span in call.repeated if selected("GRPO001", options) else ():
            diagnostics.append(
                Diagnostic(
                    "GRPO001",
                    Severity.ERROR,
                    f"`{key}` is given twice in this {call.callee}(...) call: Python refuses the module before any of "
                    f'it runs: "SyntaxError: keyword argument repeated: {key}" (its parser accepts the file; its '
                    "compiler does not), so the training script never starts.",
                    display,
                    span,
                    key=key,
                    fix=f"keep one `{key}=`",
                )
            )
        where = f"line {call.span.line}: "
        unchecked.extend(where + reason for reason in linted.unchecked)
        if call.spread:  # (`GRPOConfig(**config["grpo"])`: the keys and values the mapping gives are the code's)
            unchecked.append(
                f"{where}the fields a `**mapping` (or a positional argument) of the call gives are computed by the "
                "code, not known before launch"
            )
        if call.unknown:  # (`num_generations=cfg.group_size`: the code computes it, and no verdict rests on it)
            shown = first_of(list(call.unknown), 6)
            unchecked.append(f"{where}the values of {shown} are computed by the code, not known before launch")
    if not framework_source and workspace is not None and selected("GRPO004", options):
        diagnostics.extend(_grpo_before_release(text, display, options, workspace))
        diagnostics.extend(_trl_without_warnings_issued(code, text, display, options, workspace))
    if not framework_source and not code.unsloth and selected("GRPO002", options):
        unknown_keywords = _trainer_keywords(code, display)
        if unknown_keywords and (workspace is None or not workspace.uses_unsloth):
            diagnostics.extend(unknown_keywords)
    found = list(check_code(code._replace(path=display), modules, relative or ""))
    one = None
    if workspace is not None and relative and any(d.code in _PER_PROCESS for d in found):
        from grpo_lint.launch.starts import one_process

        one = one_process(relative, text.encode(), workspace)
        if one is not None:  # (a plain `python` command: no rank shares a seed with another)
            found = [d for d in found if d.code not in _PER_PROCESS]
            unchecked.append(f"GRPO301-305: every launch of the repository runs it on one process ({one})")
    diagnostics.extend(d for d in found if selected(d.code, options))
    for launch in [] if framework_source else code.launches:
        started = _started(launch, text, display, options, workspace)
        diagnostics.extend(started.diagnostics)
        plans.extend(started.plans)
        unchecked.extend(started.unchecked)
    if not plans and not diagnostics and not (code.samples and code.trains and not framework_source):
        note = f"its seeding holds on one process, and every launch of the repository runs it so ({one})"
        return FileResult(display, "skipped", text=text, note=note if one is not None else _NOTHING_IN_PYTHON)
    result = FileResult(display, "linted", diagnostics, text, "Python training code", plans, "python")
    result.unchecked = unchecked
    return finish(result, options)


_NOTHING_IN_PYTHON = "no GRPOConfig call and no seeding problem"
# The seeding rules whose finding holds only where several processes run the code.
_PER_PROCESS = frozenset({"GRPO301", "GRPO302", "GRPO303", "GRPO305"})


# A model loaded with `fast_inference=True` (`FastLanguageModel.from_pretrained(..., fast_inference=True)`) carries a
# vLLM engine, and Unsloth's patched GRPOTrainer then turns use_vllm on (unsloth/models/rl.py: "if hasattr(model,
# 'vllm_engine') ... if args.use_vllm == False: args.use_vllm = True", and vllm_mode colocate from TRL 0.18.0).
_FAST_INFERENCE = lazy(r"^[^#\n]*\bfast_inference\s*=\s*True\b", re.M)


def _unsloth_forces_vllm(entry: Entry | None, text: str, display: str) -> list[Diagnostic]:
    """GRPO401 for `use_vllm=False` in a file whose Unsloth model is loaded with `fast_inference=True`: the value
    has no effect, generation runs in vLLM."""
    if entry is None or entry.value is not False:
        return []
    found = _FAST_INFERENCE.search(text)
    if found is None:
        return []
    line = text.count("\n", 0, found.start()) + 1
    return [
        Diagnostic(
            "GRPO401",
            Severity.WARNING,
            f"`use_vllm=False` has no effect: the model is loaded with `fast_inference=True` (line {line}), so it "
            "carries a vLLM engine, and Unsloth's patched GRPOTrainer sets use_vllm to True when it is False. "
            "Completions are generated by vLLM, with vLLM's sampling.",
            display,
            entry.key_span,
            key="use_vllm",
            fix="delete `use_vllm=False`, or load the model with `fast_inference=False` to generate with transformers",
        )
    ]


# `from trl import GRPOTrainer` (or GRPOConfig; `from trl.trainer import ...` too): TRL's GRPO classes imported.
_GRPO_IMPORT = lazy(r"^[ \t]*from[ \t]+trl(?:\.[\w.]+)?[ \t]+import[^\n]*?\b(GRPO(?:Config|Trainer))\b", re.M)


def _grpo_before_release(text: str, display: str, options: Options, workspace: Workspace) -> list[Diagnostic]:
    """GRPO004: TRL's GRPO classes imported where the repository pins TRL to a release before 0.14.0, which has none:
    the import raises ImportError, so no GRPO run starts."""
    match = _GRPO_IMPORT.search(text) if "GRPO" in text else None
    if match is None:
        return []
    target = target_for("trl", options, workspace, path=display)
    if not target.before_grpo:
        return []
    line = text.count("\n", 0, match.start(1)) + 1
    column = match.start(1) - (text.rfind("\n", 0, match.start(1)) + 1) + 1
    name = match.group(1)
    return [
        Diagnostic(
            "GRPO004",
            Severity.ERROR,
            f"{target.source} pins TRL before 0.14.0, the first release with GRPO: it has no `{name}`, so this import "
            f"raises \"ImportError: cannot import name '{name}' from 'trl'\" and no GRPO run starts.",
            display,
            Span(line, column, line, column + len(name)),
            key=name,
            fix="pin trl 0.14.0 or later (the release the code was written for)",
        )
    ]


# TRL 0.14.0-0.27.x write `model.warnings_issued["estimate_tokens"] = True` in GRPOTrainer.__init__ (removed in 0.28.0,
# huggingface/trl#4960); transformers 5.1.0 dropped the attribute (PreTrainedModel.__init__ of 5.0.0 is the last to set
# it; checked in the 5.0.0-5.6.0 wheels), so a GRPOTrainer of those releases stops under it (run: TRL 0.24.0 with
# transformers 5.6.0 raises that AttributeError once its import passes; the import itself fails first on a missing
# `mergekit`, since transformers 5.3.0's `_is_package_available` returns a tuple, which TRL reads as true).
_WARNINGS_ISSUED_GONE = "5.1.0"
_TRL_WITHOUT_IT = "0.28.0"


def _trl_without_warnings_issued(
    code: Any, text: str, display: str, options: Options, workspace: Workspace
) -> list[Diagnostic]:
    """GRPO004: a `GRPOTrainer(...)` of TRL, where the repository pins TRL before 0.28.0 (every release it may be) and
    transformers 5.1.0 or later (every version it may be). Not where the code sets `warnings_issued` itself."""
    from packaging.version import Version

    from grpo_lint.workspace.pins import admits_only_from

    calls = [c for c in code.trainer_calls if c.span is not None and _from_trl(c.callee, code.index)]
    if not calls or "warnings_issued" in text:
        return []
    target = target_for("trl", options, workspace, path=display)
    if target.unknown or target.foreign or target.fork is not None or target.before_grpo:
        return []
    releases = target.allows or (target.version,)
    if any(release >= Version(_TRL_WITHOUT_IT) for release in releases):
        return []
    relative = workspace.modules.relative(display)
    pin = workspace.pins.stated("transformers", relative or display)
    if pin is None or not pin.requirement or not admits_only_from(pin.requirement, Version(_WARNINGS_ISSUED_GONE)):
        return []
    trl = f"TRL {target.version}" if len(releases) == 1 else f"TRL {releases[0]}-{releases[-1]}"
    return [
        Diagnostic(
            "GRPO004",
            Severity.ERROR,
            f"{trl} ({target.source}) with transformers{pin.requirement} ({pin.provenance}): GRPOTrainer.__init__ of "
            'TRL before 0.28.0 writes `model.warnings_issued["estimate_tokens"]`, an attribute transformers removed '
            "in 5.1.0, so it stops with \"AttributeError: ... object has no attribute 'warnings_issued'\" after the "
            "model has loaded, before training (from transformers 5.3.0 the import of the trainer may fail first: "
            "TRL's `is_*_available()` then read every optional package as installed, `mergekit` under TRL 0.24.0).",
            display,
            call.span,
            key="GRPOTrainer",
            fix="pin trl>=0.28.0, or transformers<5.1; or set `model.warnings_issued = {}` on the model before the "
            "trainer is built",
        )
        for call in calls
    ]


# transformers' Trainer.train(resume_from_checkpoint, trial, ignore_keys_for_eval): 5.23.0 takes no other keyword;
# 4.x takes **kwargs and raises TypeError on any but the deprecated `model_path` (trainer.py).
_TRAIN_ARGUMENTS = frozenset({"resume_from_checkpoint", "trial", "ignore_keys_for_eval", "model_path"})
_CONFIG_FIELDS_IN_TRAIN = frozenset({"max_steps", "num_train_epochs", "learning_rate", "output_dir", "logging_steps"})

_TRAINER_FIXES = {
    "tokenizer": "pass the tokenizer as `processing_class=`",
    "ref_model": "delete it: GRPOTrainer builds its reference model from `model` itself (when beta > 0)",
}


def _trainer_keywords(code: Any, display: str) -> list[Diagnostic]:
    """GRPO002: a keyword of a `GRPOTrainer(...)` call, TRL's by its import, that GRPOTrainer has taken in no release,
    and one of its `trainer.train(...)` that transformers' Trainer.train does not take. (Unsloth's patched trainer
    takes more, and importing Unsloth anywhere in the process patches TRL's: such a file or repository is not
    judged.)"""
    from grpo_lint.frameworks.trl.fields import GRPO_TRAINER_ARGUMENTS

    found = []
    for calls, allowed, unknown in (
        (code.trainer_calls, GRPO_TRAINER_ARGUMENTS, _unknown_trainer_keyword),
        (code.train_calls, _TRAIN_ARGUMENTS, _unknown_train_keyword),
    ):
        for call in calls:
            if _from_trl(call.callee, code.index):  # (a fork's or verifiers' trainer may take more)
                found.extend(unknown(kw, span, display) for kw, span in call.keywords if kw not in allowed)
    return found


def _from_trl(callee: str, index: Any) -> bool:
    """Whether the file imports the name a call starts with from TRL (stricter than _trls: an origin not shown is not
    TRL's here, as a verdict would be an error)."""
    imported = index.imports.get(callee.partition(".")[0]) if index is not None else None
    return imported is not None and imported.level == 0 and imported.module.split(".")[0] == "trl"


def _unknown_trainer_keyword(keyword: str, span: Span, display: str) -> Diagnostic:
    return Diagnostic(
        "GRPO002",
        Severity.ERROR,
        f"`{keyword}` is no argument of TRL's GRPOTrainer in any release (0.14.0 to 1.16.0 take model, reward_funcs, "
        'args, the datasets, processing_class and a few more, and no `**kwargs`): Python stops with "TypeError: '
        f"GRPOTrainer.__init__() got an unexpected keyword argument '{keyword}'\" before training.",
        display,
        span,
        key=f"GRPOTrainer.{keyword}",
        fix=_TRAINER_FIXES.get(keyword, f"delete `{keyword}=`, or pass it where it belongs"),
    )


def _unknown_train_keyword(keyword: str, span: Span, display: str) -> Diagnostic:
    in_config = keyword in _CONFIG_FIELDS_IN_TRAIN
    return Diagnostic(
        "GRPO002",
        Severity.ERROR,
        f"`{keyword}` is no argument of the trainer's train(): transformers' Trainer.train takes "
        "resume_from_checkpoint, trial and ignore_keys_for_eval (5.x: no other keyword; 4.x: a deprecated model_path "
        "too) and stops with a TypeError on any other (an unexpected keyword argument) before the first step.",
        display,
        span,
        key=f"train.{keyword}",
        fix=f"set `{keyword}` in GRPOConfig(...) (the trainer's args), not in train()"
        if in_config
        else f"delete `{keyword}=`",
    )


def _started(launch: Any, text: str, display: str, options: Options, workspace: Workspace | None) -> FileResult:
    """A command line the program starts (`subprocess.run([sys.executable, "-m", "verl.trainer.main_ppo", ...])`),
    linted as a launch script whose words stand where the list's elements do."""
    from grpo_lint.sources.python_launches import script_text

    result = lint_shell(script_text(launch, text.count("\n") + 1), display, options, workspace)
    result.diagnostics = [d._replace(fixes=()) for d in result.diagnostics]  # (edits of the script, not the file)
    return result


def lint_shell(
    text: str,
    display: str,
    options: Options,
    workspace: Workspace | None,
    shells: tuple[frozenset[int], frozenset[int]] | None = None,
) -> FileResult:
    """A launch script's text (a file's, or one a YAML task or a Python program holds) linted as `display`;
    `shells`: a notebook's lines that start a shell of their own and its `%cd` lines (launch.runs.read_script)."""
    from pathlib import Path

    from grpo_lint.launch.runs import read_script

    root = workspace.root if workspace is not None else Path.cwd()
    modules = workspace.modules if workspace is not None else None
    runs = read_script(
        text,
        display,
        root,
        lambda framework: target_for(framework, options, workspace, path=display),
        modules,
        shells=shells,
    )
    return lint_script(runs, options, workspace)


def lint_notebook(text: str, display: str, explicit: bool, options: Options, workspace: Workspace | None) -> FileResult:
    """A notebook: its code cells linted as one Python file, each diagnostic placed in its cell."""
    from grpo_lint.sources.notebook import NotebookError, python_text

    try:
        code, cells = python_text(text)  # (decoded once: the run may have parsed it ahead with the Python files)
    except NotebookError as exc:
        if explicit and not options.only_configs:
            return finish(unreadable(display, ReadProblem(str(exc), Span.point(1, 1), text), options), options)
        return FileResult(display, "skipped", note=str(exc))
    result = lint_python(code, display, explicit, options, workspace)
    if cells.shell:  # `!python train.py \` lines and `%%bash` cells: the notebook's launch script
        shells = (cells.shells, cells.working_dirs)  # (each `!` line a shell of its own; `%cd` moves the notebook)
        result = _with_shell(result, lint_shell(cells.shell, display, options, workspace, shells), code)
    if result.status == "linted":
        placed = []
        for d in result.diagnostics:
            # (a config file the shell lines name has no cells: its diagnostics keep their own lines)
            here = d.span is not None and not d.span.path and (not d.path or d.path == display)
            cell = cells.cell_at(d.span.line) if here else None
            if cell is not None:
                d = d._replace(cell=(cell.number, cell.first_line, cell.raw_line))
            placed.append(d._replace(fixes=()))  # edits of the joined code are no edits of the .ipynb
        result.diagnostics = placed
        result.format = "notebook"
        # excerpts show the cells as written (`!python train.py \`), line for line what was linted
        result.text = "\n".join(line for cell in cells.cells for line in cell.source.splitlines() or [""]) + "\n"
    return result


def _with_shell(python: FileResult, shell: FileResult, code: str) -> FileResult:
    """A notebook's Python lint with its shell lines' (what a cell's `!` commands start, each in a shell of its
    own) added: one result for the file."""
    if shell.status != "linted":
        return python
    if python.status != "linted":
        python = FileResult(python.path, "linted", [], code, "Python training code", [], "python")
    python.diagnostics = [*python.diagnostics, *shell.diagnostics]
    python.plans = [*python.plans, *shell.plans]
    python.sources = {**shell.sources, **python.sources}
    python.unchecked = sorted({*python.unchecked, *shell.unchecked})
    return python


# --- filters ---------------------------------------------------------------------------------


_QUOTE = lazy(r"`([^`\n]*)`")  # quotes taken in pairs from the left: the text between two quotes is none


def clip(text: str) -> str:
    """`text`, or its first CLIP and last CLIP / 2 characters when it is longer than 2 x CLIP."""
    return text if len(text) <= 2 * CLIP else f"{text[:CLIP]}...{text[-CLIP // 2 :]}"


def _clip_text(text: str) -> str:
    """A message with every quoted text longer than 2 x CLIP characters shortened in the middle: a key
    or value of 5,000 characters says nothing more than its ends."""
    if len(text) <= 2 * CLIP:
        return text

    def short(match: re.Match[str]) -> str:
        quoted = match.group(1)
        return match.group(0) if len(quoted) <= 2 * CLIP else f"`{clip(quoted)}` ({len(quoted):,} characters)"

    text = _QUOTE.sub(short, text)
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "..."


def _clipped(diagnostic: Diagnostic) -> Diagnostic:
    message, fix, key = diagnostic.message, diagnostic.fix, diagnostic.key
    if len(message) + len(fix or "") + len(key or "") <= 6 * CLIP:
        return diagnostic
    return diagnostic._replace(
        message=_clip_text(message),
        fix=_clip_text(fix) if fix else fix,
        key=clip(key) if key is not None else None,
    )


def finish(result: FileResult, options: Options) -> FileResult:
    """Per-file ignores, inline suppressions, severity overrides; then sort."""
    from grpo_lint.workspace import matches

    diagnostics = result.diagnostics
    if options.per_file_ignores and diagnostics:
        ignored = {
            code for patterns, codes in options.per_file_ignores if matches(result.path, patterns) for code in codes
        }
        diagnostics = [d for d in diagnostics if not any(d.code.startswith(c) for c in ignored)]
    texts = {result.path: result.text, **result.sources}
    if any("grpo-lint" in text for text in texts.values()):
        from grpo_lint import suppressions
        from grpo_lint.checks import all_rules

        known = all_rules()
        kept = [d for d in diagnostics if d.path not in texts]
        for path, text in texts.items():
            mine = [d for d in diagnostics if d.path == path]
            is_json = (result.format == "json") if path == result.path else path.lower().endswith(".json")
            if text and not is_json and "grpo-lint" in text:
                mine = suppressions.apply(
                    mine, suppressions.parse(text), path, lambda code: selected(code, options), known.__contains__
                )
            kept.extend(mine)
        diagnostics = kept
    if options.severity:
        diagnostics = [
            d._replace(severity=options.severity[d.code]) if d.code in options.severity else d for d in diagnostics
        ]
    if any(d.fixes for d in diagnostics):
        from grpo_lint.edits import resolve

        lines: dict[str, list[str]] = {}
        diagnostics = [resolve(d, texts, lines) if d.fixes else d for d in diagnostics]
    # Two launches of one config (`--config c.yaml` twice) find the same problem at the same place: said once.
    unique = {(d.path, d.span, d.code, d.severity, d.message): d for d in map(_clipped, diagnostics)}
    result.diagnostics = sorted(unique.values(), key=Diagnostic.sort_key)
    return result
