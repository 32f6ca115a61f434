"""GRPO5xx: rules about how a run is launched (launch scripts and accelerate configs).

They judge a whole script rather than one RunPlan, so they are registered without a plan check
and run by grpo_lint.launch.runs. Facts: reference ms-swift.md section 1, verl-openrlhf-launchers.md
section 3.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from packaging.version import Version

from grpo_lint.checks import REGISTRY, Rule
from grpo_lint.diagnostics import Diagnostic, Severity, Span, first_of
from grpo_lint.sources.document import Document

if TYPE_CHECKING:
    from grpo_lint.launch.commands import Launch
    from grpo_lint.options import Options
    from grpo_lint.plan import RunPlan
    from grpo_lint.sources.shell import Command, Joined, Script

_RULES = (
    (
        "GRPO501",
        "comment-ends-command",
        Severity.ERROR,
        "A commented-out (or empty) line inside a `\\`-continued command.",
    ),
    ("GRPO502", "swift-vllm-device-map", Severity.ERROR, "ms-swift with vLLM where a process sees several GPUs."),
    ("GRPO503", "launcher-bypassed", Severity.WARNING, "The launch bypasses the distributed launcher."),
    ("GRPO504", "rollout-gpus-overlap", Severity.WARNING, "The vLLM server and the training share GPUs."),
    ("GRPO505", "rollout-gpus-missing", Severity.ERROR, "A rollout server asks for more GPUs than it sees."),
    ("GRPO506", "accelerate-config-inconsistent", Severity.ERROR, "An accelerate config contradicts itself."),
    ("GRPO507", "unresolved-value", Severity.INFO, "A launch-script value that is not known before launch."),
    ("GRPO508", "launch-never-starts", Severity.ERROR, "The launch cannot start as written."),
    ("GRPO012", "overwritten-by-script", Severity.WARNING, "A setting the training script replaces after parsing."),
)
for _code, _name, _severity, _summary in _RULES:
    REGISTRY[_code] = Rule(_code, _name, _severity, _summary, None)


def _diagnostic(code: str, message: str, span: Span, fix: str, severity: Severity | None = None, key=None):
    return Diagnostic(code, severity or REGISTRY[code].severity, message, "", span, key=key, fix=fix)


def run_script_rules(
    script: Script, pairs: list[tuple[Launch, RunPlan | None]], options: Options, joined: Joined | None = None
) -> list[Diagnostic]:
    """The rules of a launch script; `joined`: its commands cut where a `\\` continuation was meant, as read with
    the script (grpo_lint.launch.runs.ScriptRuns.joined; found here when not given)."""
    launches = [launch for launch, _ in pairs]
    found: list[Diagnostic] = []
    found.extend(_cut_off(script, launches))
    found.extend(_blank_line_cut(script, launches, joined))
    found.extend(_never_starts(script, launches))
    found.extend(_unbound(script, launches))
    found.extend(_server_in_the_foreground(script, launches))
    for launch, plan in pairs:
        found.extend(_device_map(launch, plan, options))
        found.extend(_bypassed(launch))
        found.extend(_server_capacity(launch))
        found.extend(_trl_vllm_device(launch, plan))
        found.extend(_ray_cluster_too_small(script, launch, plan))
    found.extend(_overlap(launches, script))
    return found


def _cut_off(script: Script, launches: list[Launch]) -> Iterator[Diagnostic]:
    from grpo_lint.sources.shell import looks_like_override

    started = {launch.command.line: launch for launch in launches}
    for cut in script.cutoffs:
        launch = started.get(cut.command_line)
        if launch is None:
            continue
        flags = [w.text.split("=", 1)[0] for w in cut.lost if w.text.startswith("--") or looks_like_override(w.text)]
        listed, program = _cut_words(flags, launch)
        yield _diagnostic(
            "GRPO501",
            f"this comment ends the `{program}` command of line {cut.command_line}: a `\\` inside a comment "
            f"continues nothing, so {listed or 'the words after it'} on line {cut.lost[0].span.line} onwards "
            f"never reach the run (the shell then tries to run `{cut.lost[0].text}` as a command)",
            cut.comment,
            "delete the commented-out line, or move it below the command",
        )


def _cut_words(flags: list[str], launch: Launch) -> tuple[str, str]:
    """The flags a cut drops, as a message lists them, and the command's program (`python -m`, `swift rlhf`)."""
    return first_of(flags, 4), " ".join(w.text for w in launch.command.words[:2])


def _blank_line_cut(script: Script, launches: list[Launch], joins: Joined | None) -> Iterator[Diagnostic]:
    """GRPO501: a launch whose last line ends in `\\` before an empty line: bash continues the command into the
    empty line, which ends it, and the indented flags or overrides below run as commands of their own. Each such cut
    of the command is said (a second one below the first still cuts the run once the first is mended)."""
    from grpo_lint.sources.shell import blank_line_continuations, looks_like_override

    if joins is None:
        joins = blank_line_continuations(script)
    for launch in launches:
        for cut, kind, words in joins.get(launch.command.line, ()):
            flags = [w.text.split("=", 1)[0] for w in words if w.text.startswith("--") or looks_like_override(w.text)]
            listed, program = _cut_words(flags, launch)
            lost = f"{listed or 'the words after it'} on line {words[0].span.line} onwards never reach the run"
            if kind == "empty":
                yield _diagnostic(
                    "GRPO501",
                    f"this empty line ends the `{program}` command of line {launch.command.line}: the `\\` on line "
                    f"{cut - 1} continues it into the empty line, so {lost} (the shell then tries to run them as "
                    "commands of their own)",
                    Span.point(cut, 1),
                    "delete the empty line (a `\\`-continued command has no empty lines)",
                )
                continue
            text = script.lines[cut - 1]
            backslash = len(text.rstrip(" \t"))
            yield _diagnostic(
                "GRPO501",
                f"a space follows the `\\` that ends this line: it escapes the space, not the line break, so the "
                f"`{program}` command of line {launch.command.line} ends here and {lost} (the shell then tries to "
                "run them as commands of their own)",
                Span(cut, backslash, cut, len(text) + 1),
                "delete the blanks after the `\\`",
            )


def _unbound(script: Script, launches: list[Launch]) -> Iterator[Diagnostic]:
    """GRPO508: under `set -u`, a variable read before the line that gives it its default stops bash there."""
    for name, line, column, default in script.unbound:
        after = [launch.command.line for launch in launches if launch.command.line > line]
        if not after:
            continue
        text = script.lines[line - 1] if 0 < line <= len(script.lines) else ""
        found = next((i for i in (text.find("${" + name), text.find("$" + name)) if i >= 0), column - 1)
        span = Span(line, found + 1, line, found + 1 + len(name) + (3 if text.startswith("${", found) else 1))
        yield _diagnostic(
            "GRPO508",
            f"`set -u` (line {script.nounset}) makes bash stop at `${name}` here: line {default} gives `{name}` its "
            f'default only later, so unless the caller exports it, bash exits with "{name}: unbound variable" '
            f"and the launch on line {after[0]} never runs.",
            span,
            f"give `{name}` its default before line {line} (move line {default} up), or read it as `${{{name}:-}}`",
        )


def _server_in_the_foreground(script: Script, launches: list[Launch]) -> Iterator[Diagnostic]:
    """GRPO508: a rollout server (`trl vllm-serve`, `swift rollout`) started in the foreground, with a training later
    in the same script: the shell waits for the server, which serves until it is stopped, so the training starts only
    after it is gone. A server ended with `&`, run through another program (tmux, screen, `bash -c`) or in another arm
    of an `if`/`case` than the training is not judged, nor a script in an examples or docs folder, whose commands may
    be steps to run in shells of their own (ms-swift's "NODE1 for vLLM Server", "NODE2 for Training"), nor one with a
    training before the server as well (a file of runs to copy one by one)."""
    from grpo_lint.launch.commands import in_template_folder

    if in_template_folder(os.path.dirname(script.path)):
        return
    for server in launches:
        command = server.command
        if server.role != "server" or command.background or command.inner or command.called_at:
            continue
        if not command.words or command.words[0].text not in _SERVER_PROGRAMS:
            continue  # (`tmux new -d "trl vllm-serve ..."`, `setsid`: started apart)
        train = next(
            (
                t
                for t in launches
                if t.role == "train" and t.command.line > command.line and not t.command.exclusive_with(command)
            ),
            None,
        )
        if train is None or any(t.role == "train" and t.command.line < command.line for t in launches):
            continue  # (a training before the server too: the file lists runs to copy one by one, not one run)
        program = " ".join(w.text for w in command.words[:2])
        yield _diagnostic(
            "GRPO508",
            f"`{program}` runs in the foreground: the shell waits for the server, which serves until it is stopped, "
            f"so the training of line {train.command.line} starts only after the server has exited.",
            Span(command.line, command.words[0].span.column, command.line, command.words[1].span.end_column)
            if len(command.words) > 1 and command.words[1].span.line == command.line
            else command.words[0].span,
            "end the server's command with `&` (and wait until it answers before training), or start it in a shell of "
            "its own",
        )


# Programs that start a rollout server themselves (a launcher in front of them, `nohup`, `setsid`, `tmux`, is another
# story: nohup keeps the foreground, but the others start the server apart).
_SERVER_PROGRAMS = frozenset({"trl", "swift", "vllm", "python", "python3", "nohup", "env", "accelerate"})


def _never_starts(script: Script, launches: list[Launch]) -> Iterator[Diagnostic]:
    from grpo_lint.launch.runs import never_starts

    for launch in launches:
        spans = {word.span for word in launch.command.words}
        for placeholder in script.placeholders:
            if placeholder not in spans:
                continue
            name = script.written(placeholder)
            yield _diagnostic(
                "GRPO508",
                f"`{name}` is a placeholder left in the script: bash reads it as a redirection from a file named "
                f"`{name[1:-1]}` (and the `>` as one to the next word), which does not exist, so the command of line "
                f"{launch.command.line} never runs. The other checks read the command as meant, with the placeholder "
                "as its value.",
                placeholder,
                "write the real value in place of the placeholder",
            )
        stop = never_starts(script, launch)
        program = " ".join(w.text for w in launch.command.words[:3])
        if stop.kind == "module":
            word = next((w for w in launch.command.words if w.text == launch.missing), launch.command.words[0])
            package = launch.missing.split(".")[0]
            yield _diagnostic(
                "GRPO508",
                f"`{launch.missing}` is not a module of the repository, although its package `{package}` is: Python "
                f"stops at once (\"No module named '{launch.missing}'\"), so the command of line "
                f"{launch.command.line} never starts.",
                word.span,
                "name the module that holds the entry point (a file under the package folder), or restore the file",
            )
        elif stop.kind == "script":
            word = next((w for w in launch.command.words if w.text == launch.missing_file), launch.command.words[0])
            yield _diagnostic(
                "GRPO508",
                f"`{launch.missing_file}` is in no folder of the repository: Python stops at once (\"can't open "
                f'file"), so the command of line {launch.command.line} never starts.',
                word.span,
                "name the training script as it is in the repository now, or restore it",
            )
        elif stop.kind == "quote" and script.unclosed is not None:
            line, column, quote = script.unclosed
            yield _diagnostic(
                "GRPO508",
                f"this {quote} is never closed: bash reads to the end of the file looking for its match and stops "
                f'("unexpected EOF while looking for matching `{quote}\'"), so the `{program}` command of line '
                f"{launch.command.line} never runs.",
                Span(line, column, line, column + 1),
                f"delete the stray {quote}, or close it",
            )
        elif stop.kind == "crlf":
            first = launch.command.words[0].span
            yield _diagnostic(
                "GRPO508",
                f"this script has Windows (CRLF) line endings: bash reads the `\\` before each line end as an escaped "
                f"carriage return, not as a continuation, so the `{program}` command of line {launch.command.line} "
                "ends on its first line (with a stray carriage-return argument) and every line after it runs as a "
                "command of its own.",
                Span(first.line, first.column, first.line, first.end_column),
                "convert the script to LF line endings (`dos2unix script.sh`, or `git config core.autocrlf input`)",
            )


def _visible(launch: Launch) -> list[str] | None:
    return list(launch.visible) if launch.visible is not None else None


def _per_node(launch: Launch) -> int | None:
    """Processes per machine of a swift launch: NPROC_PER_NODE, or 1 without it."""
    word = launch.command.env.get("NPROC_PER_NODE")
    if launch.bypass or word is None:
        return 1
    if not word.known or not word.text.isdigit() or int(word.text) < 1:
        return None
    return int(word.text)


# ms-swift 3.6.0 removed the USE_FAST_INFERENCE shortcut from is_mp() (swift/utils/env.py, checked in the
# 3.1.1-3.6.0 wheels): from then on the GPU/process ratio is asserted and device_map applies with vLLM too.
_DEVICE_MAP_CHECKED = Version("3.6.0")


def _device_map(launch: Launch, plan: RunPlan | None, options: Options) -> Iterator[Diagnostic]:
    if launch.framework != "swift" or launch.role != "train" or launch.visible_word is None:
        return
    visible, per_node = _visible(launch), _per_node(launch)
    if visible is None or per_node is None or not visible:
        return
    use_vllm = plan is not None and plan.value("use_vllm") is True
    version = plan.target.version if plan is not None else None
    # 3.1-3.4 switch the same fast-inference mode on for LMDeploy (rlhf_args.py: `if self.use_vllm or
    # self.use_lmdeploy: os.environ['USE_FAST_INFERENCE'] = '1'`, v3.2.0-v3.4.0 tags)
    lmdeploy = plan is not None and _written_true(plan, "use_lmdeploy")
    if (use_vllm or lmdeploy) and version is not None and version < _DEVICE_MAP_CHECKED:
        # 3.1-3.5 set USE_FAST_INFERENCE for GRPO with vLLM, and is_mp() returns before its assert: no
        # device_map, one GPU per process, the rest left to vLLM (ms-swift's own 3.4 example: 8 GPUs, 7 processes)
        return
    gpus, span = len(visible), launch.visible_word.span
    fix = f"NPROC_PER_NODE={gpus} (one process per visible GPU)"
    if gpus % per_node:
        yield _diagnostic(
            "GRPO502",
            f"CUDA_VISIBLE_DEVICES lists {gpus} GPUs for {per_node} process{'es' if per_node > 1 else ''} per "
            f"machine: not a whole number of GPUs per process. ms-swift asserts it at start-up: "
            f'"n_gpu: {gpus}, local_world_size: {per_node}".',
            span,
            fix,
            key="CUDA_VISIBLE_DEVICES",
        )
    elif gpus // per_node >= 2 and use_vllm:
        yield _diagnostic(
            "GRPO502",
            f"each of the {per_node} training process{'es' if per_node > 1 else ''} sees {gpus // per_node} GPUs "
            f"(CUDA_VISIBLE_DEVICES has {gpus}), which ms-swift runs as device_map model parallelism; "
            'with vLLM it stops at start-up: "GRPO with vLLM is not compatible with `device_map`. Please set '
            'NPROC_PER_NODE equal to num_processes."',
            span,
            fix,
            key="CUDA_VISIBLE_DEVICES",
        )


def _written_true(plan: RunPlan, key: str) -> bool:
    """A switch the run sets true as written (a key no longer in the target's table has no setting)."""
    entry = plan.document.entries.get(key)
    return entry is not None and str(entry.value).lower() in ("true", "1")


def _bypassed(launch: Launch) -> Iterator[Diagnostic]:
    if launch.role != "train" or not launch.bypass:
        return
    visible = _visible(launch)
    several = visible is not None and len(visible) >= 2
    swift_env = launch.framework == "swift" and launch.launcher == "python"
    if not several and not (swift_env and ("NPROC_PER_NODE" in launch.command.env)):
        return
    where = f"{len(visible)} GPUs are visible" if several and visible else "NPROC_PER_NODE is set"
    if launch.framework == "swift":
        fix = "start it with `swift rlhf ...` (with NPROC_PER_NODE set), which runs torchrun for you"
    else:
        fix = "start it with `accelerate launch --num_processes N ...` or `torchrun --nproc_per_node N ...`"
    yield _diagnostic(
        "GRPO503",
        f"{launch.bypass}: {where}, but a single training process runs, so the batch and group arithmetic "
        "differs from the one the script was written for.",
        launch.command.words[0].span,
        fix,
    )


def _int_flag(launch: Launch, *names: str) -> tuple[int, Span | None] | None:
    """An integer flag of the launched program (the first of `names` given), default 1; None if unknown."""
    from grpo_lint.launch.runs import flag_entries

    entries, unresolved = flag_entries(launch.args)
    for name in names:
        if name in unresolved:
            return None
        entry = entries.get(name)
        if entry is not None:
            value = str(entry.value)
            return (int(value), entry.key_span) if value.isdigit() else None
    return 1, None


def _server_size(launch: Launch) -> tuple[int, Span | None] | None:
    """Tensor x data parallel size of a rollout server, and where the first of them is written."""
    if launch.framework == "swift":  # ms-swift before 3.10 also took the names without `vllm_`
        tp = _int_flag(launch, "vllm_tensor_parallel_size", "tensor_parallel_size")
        dp = _int_flag(launch, "vllm_data_parallel_size", "data_parallel_size")
    else:
        tp = _int_flag(launch, "tensor_parallel_size")
        dp = _int_flag(launch, "data_parallel_size")
    if tp is None or dp is None:
        return None
    return tp[0] * dp[0], tp[1] or dp[1]


def _server_capacity(launch: Launch) -> Iterator[Diagnostic]:
    if launch.role != "server":
        return
    size, visible = _server_size(launch), _visible(launch)
    if size is None or visible is None or size[0] <= len(visible):
        return
    needed, where = size
    program = " ".join(w.text for w in launch.command.words[:2])
    quote = ""
    if launch.framework == "swift":
        quote = (
            f' ms-swift 3.7+ stops with "Error: local_device_count ({len(visible)}) must be greater than or equal to '
            f'the product of vllm_data_parallel_size and vllm_tensor_parallel_size".'
        )
    yield _diagnostic(
        "GRPO505",
        f"`{program}` needs tensor x data parallel = {needed} GPUs but CUDA_VISIBLE_DEVICES gives it "
        f"{len(visible)}.{quote}",
        where or launch.command.words[0].span,
        f"give the server {needed} GPUs in CUDA_VISIBLE_DEVICES, or lower its parallel sizes to fit {len(visible)}",
    )


# TRL 0.14-0.15 run vLLM inside the main training process on `vllm_device`, "auto" meaning the GPU after
# the training ones: cuda:{num_processes} (0.15: cuda:0 when the machine has one GPU). 0.16 moved to a
# vLLM server and deprecated the key (grpo_trainer.py of the 0.14.0, 0.15.2 and 0.16.0 wheels).
_VLLM_DEVICE = (Version("0.14.0"), Version("0.16.0"))


def _trl_vllm_device(launch: Launch, plan: RunPlan | None) -> Iterator[Diagnostic]:
    if plan is None or launch.framework != "trl" or not _VLLM_DEVICE[0] <= plan.target.version < _VLLM_DEVICE[1]:
        return
    visible = _visible(launch)
    device = plan.value("vllm_device") or "auto"
    if not plan.value("use_vllm") or visible is None or device != "auto" or not plan.world_known:
        return
    processes, gpus = int(plan.world_size.value), len(visible)
    if processes < gpus or (gpus == 1 and plan.target.version >= Version("0.15.0")):
        return
    yield _diagnostic(
        "GRPO505",
        f"with use_vllm and vllm_device auto, TRL {plan.target.version} puts vLLM on the GPU after the training "
        f"ones, cuda:{processes}, but CUDA_VISIBLE_DEVICES gives the job {gpus} GPU{'s' if gpus != 1 else ''}. "
        f'TRL stops when the trainer is built: "The requested device for vllm (cuda:{processes}) is not available."',
        launch.visible_word.span if launch.visible_word is not None else launch.command.words[0].span,
        f"--num_processes {gpus - 1} (one GPU left for vLLM)" if gpus > 1 else "make a second GPU visible for vLLM",
    )


def _ray_head_gpus(script: Script, before: int) -> tuple[int, Command] | None:
    """The GPUs of a one-machine Ray cluster the script starts itself (`ray start --head --num-gpus N`,
    no worker joining from this script), else None."""
    heads, workers = [], 0
    for command in script.commands:
        words = [w.text for w in command.words]
        if command.line >= before or len(words) < 2 or os.path.basename(words[0]) != "ray" or words[1] != "start":
            continue
        if "--head" in words:
            heads.append((command, words))
        else:
            workers += 1
    if len(heads) != 1 or workers:
        return None
    command, words = heads[0]
    count = _count_flag(words, {"--num-gpus", "--num_gpus"})
    return (count, command) if count is not None else None


def _ray_cluster_too_small(script: Script, launch: Launch, plan: RunPlan | None) -> Iterator[Diagnostic]:
    """OpenRLHF asks Ray for placement groups of the actor, the reference and reward models (unless
    colocated) and the vLLM engines (unless --colocate_all_models); a cluster with fewer GPUs never
    schedules them and the job waits forever."""
    if plan is None or launch.framework != "openrlhf" or plan.native is None or launch.role != "train":
        return
    cluster = _ray_head_gpus(script, launch.command.line)
    if cluster is None:
        return
    run, (gpus, head) = plan.native, cluster
    parts = [("actor", run.actor_gpus)]
    if run.has_ref and not (run.colocate_actor_ref or run.colocate_all):
        parts.append(("reference model", run.ref_gpus))
    if run.has_reward_model and not run.colocate_all:
        parts.append(("reward model", run.reward_gpus))
    if run.vllm_gpus and not run.colocate_all:
        parts.append(("vLLM engines", run.vllm_gpus))
    needed = sum(count for _, count in parts)
    if needed <= gpus:
        return
    spelled = " + ".join(f"{name} {count}" for name, count in parts)
    yield _diagnostic(
        "GRPO505",
        f"the job asks Ray for {needed} GPUs ({spelled}), but the cluster this script starts has {gpus} "
        f"(`ray start --head --num-gpus {gpus}`, line {head.line}). Unless other machines join, Ray never "
        "schedules the placement groups and the job waits forever without an error.",
        head.words[0].span,
        f"start Ray with --num-gpus {needed}, colocate models (--colocate_all_models), or give them fewer GPUs",
        severity=Severity.WARNING,
    )


def _devices(launch: Launch) -> set[str] | None:
    """The physical GPUs a command uses, where the script makes that knowable."""
    visible = _visible(launch)
    if launch.role == "server":
        size = _server_size(launch)
        if size is None:
            return None
        return set(visible[: size[0]]) if visible is not None else {str(i) for i in range(min(size[0], 4096))}
    if visible is not None:
        return set(visible)
    if launch.world is not None and launch.world.key is not None:
        nodes = launch.command.env.get("NNODES")
        per_node = launch.world.value
        if nodes is not None and nodes.known and nodes.text.isdigit() and int(nodes.text) > 0:
            per_node //= int(nodes.text)
        return {str(i) for i in range(min(per_node, 4096))}  # more GPUs than any machine has
    return None


_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]"})


def _remote_server(trainer: Launch) -> bool:
    """The trainer talks to a vLLM server on another machine (or one whose address is not known)."""
    words = list(trainer.args)
    for index, word in enumerate(words):
        flag, equals, inline = word.text.partition("=")
        if flag not in ("--vllm_server_host", "--vllm_server_base_url", "--vllm-server-host"):
            continue
        value = words[index + 1] if not equals and index + 1 < len(words) else (word if equals else None)
        if value is None or not value.known:
            return True
        text = inline if equals else value.text
        host = text.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0] if "base_url" in flag else text
        return host.strip("[]") not in {h.strip("[]") for h in _LOCAL_HOSTS}
    return False


_ALL = "*"  # every GPU of the machine: a launcher without CUDA_VISIBLE_DEVICES or a process count
_TRAINER_PROGRAMS = ("accelerate", "torchrun", "deepspeed")


def _plain_trainers(script: Script, launches: list[Launch], after: int) -> list[tuple[Command, set[str]]]:
    """Commands after a backgrounded server that train without GRPO flags on their line (their config
    is in a file or in Python): any python/accelerate/torchrun/deepspeed command, with the GPUs it uses.
    An unset CUDA_VISIBLE_DEVICES means every GPU for a launcher, cuda:0 for one plain python process."""
    known = {launch.command.line for launch in launches}  # recognised launches are judged as such
    found = []
    for command in script.commands:
        words = [w.text for w in command.words]
        if command.line in known or command.line <= after or not words:
            continue
        program = os.path.basename(words[0])
        is_python = re.fullmatch(r"python(\d+(\.\d+)?)?", program) is not None
        if not (is_python or program in _TRAINER_PROGRAMS) or "-c" in words[1:3] or words[1:3] == ["-m", "pip"]:
            continue
        visible = command.env.get("CUDA_VISIBLE_DEVICES")
        if visible is not None:
            if not visible.known:
                continue
            found.append((command, {d.strip() for d in visible.text.split(",") if d.strip()}))
            continue
        count = _count_flag(words, {"--num_processes", "--nproc_per_node", "--nproc-per-node", "--num_gpus"})
        if count is None and is_python and "torch.distributed.run" not in words:
            found.append((command, {"0"}))
        elif count is not None:
            found.append((command, {str(i) for i in range(min(count, 4096))}))
        else:
            found.append((command, {_ALL}))
    return found


def _count_flag(words: list[str], names: set[str]) -> int | None:
    for index, word in enumerate(words):
        flag, equals, value = word.partition("=")
        if flag in names:
            text = value if equals else (words[index + 1] if index + 1 < len(words) else "")
            return int(text) if text.isdigit() and int(text) > 0 else None
    return None


def _overlap(launches: list[Launch], script: Script) -> Iterator[Diagnostic]:
    # A server in the foreground never returns: the commands after it are meant for other machines
    # (the multi-node examples list one command per node), so only a backgrounded server shares GPUs.
    servers = [launch for launch in launches if launch.role == "server" and launch.command.background]
    trainers = [launch for launch in launches if launch.role == "train"]
    # A step `srun` starts runs where SLURM places it (open-r1's train.slurm: the server on the last node, the
    # training on the others): which GPUs of which machine it holds is not shown.
    steps = {c.line for c in script.commands if c.words and os.path.basename(c.words[0].text) == "srun"}
    for server in servers:
        server_gpus = _devices(server) if server.command.line not in steps else set()
        for command, gpus in _plain_trainers(script, launches, server.command.line) if server_gpus else []:
            shared = sorted(server_gpus if _ALL in gpus else server_gpus & gpus, key=lambda d: (len(d), d))
            if not shared or server.command.exclusive_with(command) or command.line in steps:
                continue
            program = " ".join(w.text for w in server.command.words[:2])
            which = "every GPU of the machine" if _ALL in gpus else f"GPU {', '.join(shared)}"
            consequence = (
                'TRL after 0.19.1 stops with "Attempting to use the same CUDA device for multiple distinct '
                'roles/ranks within the same communicator."'
                if server.framework == "trl"
                else "the run runs out of GPU memory at start-up or when the weights are synced"
            )
            visible = command.env.get("CUDA_VISIBLE_DEVICES")
            yield _diagnostic(
                "GRPO504",
                f"`{' '.join(w.text for w in command.words[:3])}` (line {command.line}) starts after `{program}` "
                f"(line {server.command.line}) and uses {which}"
                + ("" if visible is not None else " (no CUDA_VISIBLE_DEVICES: rank 0 on cuda:0)")
                + f", which the server uses too. If it is the trainer, they compete for memory; {consequence}",
                visible.span if visible is not None else command.words[0].span,
                "give the server and the training disjoint CUDA_VISIBLE_DEVICES lists",
            )
        for trainer in trainers:
            trainer_gpus = _devices(trainer)
            if not server_gpus or not trainer_gpus:
                continue
            if (
                server.command.exclusive_with(trainer.command)
                or _remote_server(trainer)
                or trainer.command.line in steps
            ):
                continue  # never on the same machine at once: other arms of `if NODE_RANK...`, another host
            shared = sorted(server_gpus & trainer_gpus, key=lambda d: (len(d), d))
            if not shared:
                continue
            program = " ".join(w.text for w in server.command.words[:2])
            span = trainer.visible_word.span if trainer.visible_word is not None else trainer.command.words[0].span
            consequence = (
                'TRL after 0.19.1 stops with "Attempting to use the same CUDA device for multiple distinct '
                'roles/ranks within the same communicator."'
                if trainer.framework == "trl"
                else "the run runs out of GPU memory at start-up or when the weights are synced"
            )
            yield _diagnostic(
                "GRPO504",
                f"the training command and `{program}` (line {server.command.line}) both use GPU "
                f"{', '.join(shared)}. The vLLM server and the training processes then compete for memory; "
                + consequence,
                span,
                "give the server and the training disjoint CUDA_VISIBLE_DEVICES lists",
            )


def check_accelerate_config(document: Document, files: list[str] | None = None) -> Iterator[Diagnostic]:
    """GRPO506 for an accelerate config file on its own; with the repository's `files`, GRPO001 for a DeepSpeed
    config it names that no file of the repository is."""
    from grpo_lint.launch.accelerate import from_document

    config = from_document(document)
    if files is not None:
        yield from _missing_deepspeed_config(document, files)
    processes = document.entries.get("num_processes")
    if config.num_processes is not None and config.num_processes > 0 and config.num_processes % config.num_machines:
        assert processes is not None
        per_machine = config.num_processes // config.num_machines
        yield Diagnostic(
            "GRPO506",
            Severity.ERROR,
            f"num_processes {config.num_processes} is the total over all machines, and {config.num_machines} "
            f"machines cannot share it evenly: accelerate starts {per_machine} per machine, "
            f"{per_machine * config.num_machines} in all, so every batch computed for {config.num_processes} "
            "processes is wrong.",
            document.path,
            processes.key_span,
            key="num_processes",
            fix=f"num_processes {per_machine * config.num_machines} or "
            f"{(per_machine + 1) * config.num_machines} (a multiple of num_machines)",
        )
    gpu_ids = document.entries.get("gpu_ids")
    if gpu_ids is not None and config.num_processes and config.num_machines == 1:
        text = str(gpu_ids.value).strip()
        if text and text.lower() != "all":
            ids = [g for g in text.split(",") if g.strip()]
            if len(ids) < config.num_processes:
                yield Diagnostic(
                    "GRPO506",
                    Severity.ERROR,
                    f"gpu_ids lists {len(ids)} GPU{'s' if len(ids) != 1 else ''} for num_processes "
                    f"{config.num_processes} on one machine: several processes would share a GPU",
                    document.path,
                    gpu_ids.key_span,
                    key="gpu_ids",
                    fix=f"num_processes {len(ids)}, or list {config.num_processes} GPUs in gpu_ids",
                )


def _missing_deepspeed_config(document: Document, files: list[str]) -> Iterator[Diagnostic]:
    """`deepspeed_config_file: ds_stage2.json` that no file of the repository is (whatever folder the launch runs
    in): accelerate's DeepSpeed plugin stops every process at start-up (accelerate utils/deepspeed.py
    HfDeepSpeedConfig). A path not written out (`$HOME/...`, `~`) or absolute is not judged."""
    section = document.entries.get("deepspeed_config")
    if section is None or not isinstance(section.value, dict):
        return
    written = section.value.get("deepspeed_config_file")
    if not isinstance(written, str):
        return
    from grpo_lint.workspace.files import held

    written = written.strip()
    if written.lower() in ("none", "null") or held(written, files) is not False:
        return
    yield Diagnostic(
        "GRPO001",
        Severity.WARNING,
        f"deepspeed_config_file {written} is not a file of the repository, from whatever folder the launch runs: "
        'accelerate stops every process at start-up with "ValueError: Expected a string path to an existing '
        f'deepspeed config, or a dictionary, or a base64 encoded string. Received: {written}" (unless the file is '
        "made or copied in before the run).",
        document.path,
        _nested_key_span(document, section.key_span.line, "deepspeed_config_file") or section.key_span,
        key="deepspeed_config.deepspeed_config_file",
        fix="add the DeepSpeed config to the repository at that path, or correct the path",
    )


def _nested_key_span(document: Document, after: int, key: str) -> Span | None:
    """Where `key:` is written first below line `after` (a key of a section whose entries are not positioned)."""
    lines = document.text.splitlines()
    for number in range(after, min(len(lines), after + 200)):
        stripped = lines[number].lstrip()
        if stripped.startswith(key) and stripped[len(key) :].lstrip().startswith(":"):
            column = len(lines[number]) - len(stripped) + 1
            return Span(number + 1, column, number + 1, column + len(key))
    return None
