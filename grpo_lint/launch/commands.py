"""What a launch-script command starts: which framework, with which flags, on how many processes.

`recognise` turns a shell Command into a Launch: `swift rlhf|rollout`, `python -m swift.cli.rlhf`,
`trl grpo|vllm-serve`, `accelerate launch`, `torchrun` (and `python -m torch.distributed.run`),
`deepspeed`, `python script.py` / `python -m trl.scripts.grpo`, `python3 -m verl.trainer.main_ppo`,
`python3 -m openrlhf.cli.train_ppo_ray` (also behind `ray job submit ... --`), with the program's own flags kept
as Words so that diagnostics point at them. World sizes follow the launcher's precedence
(reference: verl-openrlhf-launchers.md section 3, ms-swift.md section 1.1).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from grpo_lint.diagnostics import Span
from grpo_lint.patterns import lazy, lazy_bytes
from grpo_lint.plan import Setting
from grpo_lint.records import Record
from grpo_lint.sources.shell import WRAPPERS, Command, Word

# Flags of each launcher that take no value (everything else `--flag value` consumes the next word).
_ACCELERATE_SWITCHES = frozenset({
    "--multi_gpu", "--cpu", "--use_deepspeed", "--use_fsdp", "--use_megatron_lm", "--use_xpu", "--tpu",
    "--debug", "-q", "--quiet", "--no_python", "-m", "--module", "--same_network", "--downcast_bf16",
    "--enable_cpu_affinity", "--tpu_use_cluster", "--tpu_use_sudo", "--dynamo_use_fullgraph",
    "--dynamo_use_dynamic", "--ipex", "--mps",
})  # fmt: skip
_TORCHRUN_SWITCHES = frozenset({
    "--standalone", "--no_python", "--no-python", "-m", "--module", "--run_path", "--run-path", "--tee_all",
})  # fmt: skip
_DEEPSPEED_SWITCHES = frozenset({
    "--no_python", "--no_local_rank", "--no_ssh_check", "--force_multi", "--save_pid", "--enable_each_rank_log",
    "--autotuning", "--elastic_training", "--bind_cores_to_rank", "--module",
})  # fmt: skip
_PYTHON_VALUE_OPTIONS = frozenset({"-W", "-X", "-c"})
_TRL_GRPO_MODULES = ("trl.scripts.grpo", "trl.cli")
# Trainers that place their own workers with Ray: the launcher's process count is not the world size.
_RAY_TRAINERS = {"verl.trainer.main_ppo": "verl", "openrlhf.cli.train_ppo_ray": "openrlhf"}
# Other verl trainers: the experimental ones (`verl.experimental.one_step_off_policy.main_ppo`,
# `...fully_async_main`), recipes (`recipe.dapo.main_dapo`) and a repository's own `main_ppo_*.py`.
# They compose their own Hydra config on top of ppo_trainer and give some batch keys their own
# meaning (the fully async trainer runs with data.train_batch_size=0), so only the sampling rules apply.
_VERL_ENTRIES = lazy(
    r"^(verl\.[\w.]*\.(main_ppo\w*|fully_async_main)|recipe\.[\w.]+\.main_\w+)$"
    r"|(^|/)(main_ppo\w*|fully_async_main|recipe/[\w/]+/main_\w+)\.py$"
)
_GRPO_FLAGS = frozenset({"--num_generations", "--num-generations", "--rlhf_type", "--generation_batch_size"})


TRL_CLI = "trl grpo"
TRL_SCRIPT = "trl.scripts.grpo"
UNSLOTH = "unsloth"  # a Python file that imports unsloth: its patched GRPOConfig reads the values


class Launch(Record):
    command: Command
    framework: str  # "trl", "swift", "verl" or "openrlhf"
    role: str  # "train" or "server" (swift rollout, trl vllm-serve)
    launcher: str  # "swift", "trl", "accelerate", "torchrun", "deepspeed", "python"
    args: tuple[Word, ...]  # the program's own flags
    world: Setting | None  # training processes, when the launcher decides and it is known
    world_unknown: str | None  # why the launcher's process count is not known statically
    bypass: str | None  # GRPO503: how the launcher is bypassed
    visible: tuple[str, ...] | None  # CUDA_VISIBLE_DEVICES, when set and known
    visible_word: Word | None
    script: str | None = None  # the Python file the command runs, when it names one
    by_config: bool = False  # recognised only by `--config F`: a GRPO run if F is a GRPO config
    # verl: a trainer other than verl.trainer.main_ppo, with its own config. TRL: which program reads
    # the config, "trl grpo" (the CLI) or "trl.scripts.grpo" (TRL's script run directly); None: a
    # script of the user's own.
    entry: str | None = None
    # verl: the repository's own Hydra application the command runs (grpo_lint.launch.entries.HydraEntry).
    hydra: Any = None
    # The module the command runs is not there, although its package is (`python -m recipe.gone.main_ppo` with a
    # `recipe/` folder that holds no `gone/`): Python stops with "No module named ...". The module's name, or "".
    missing: str = ""
    # The script the command runs (`accelerate launch train_old.py`) is in no folder the run may start in: Python
    # stops with "can't open file". The path as written, or "".
    missing_file: str = ""
    # The framework's own entry point (`python -m verl.trainer.main_ppo`) run with PYTHONPATH naming first a folder
    # the repository does not hold (`$PWD/external/Search-R1`, cloned at run time): the copy that runs may be a
    # fork there, with keys and defaults of its own. What the command's PYTHONPATH says, or "".
    unseen_copy: str = ""
    # EasyR1's entry point (`python3 -m verl.trainer.main config=X key=value`) of the repository's own copy: its
    # `verl/trainer/main.py`, which builds the config from dataclasses (grpo_lint.launch.easyr1). "" otherwise.
    easyr1: str = ""


_PROGRAMS = lazy(r"^(swift|megatron|trl|accelerate|torchrun|deepspeed|ray|python(\d+(\.\d+)?)?)$")


def _unwrap(words: list[Word]) -> list[Word]:
    """The words from the launched program on, past any wrappers in front of it."""
    while words and os.path.basename(words[0].text) in WRAPPERS:  # (shell.WRAPPERS: `nohup`, `srun`, `uv`, ...)
        inner = next((i for i, w in enumerate(words[1:], 1) if _PROGRAMS.match(os.path.basename(w.text))), None)
        if inner is None:
            return words
        words = words[inner:]
    return words


# `docker run` / `docker exec` options that take a value (the others are switches: --rm, -it, --privileged).
_CONTAINER_VALUES = frozenset({
    "-e", "--env", "--env-file", "-v", "--volume", "--mount", "-w", "--workdir", "--name", "--gpus", "--shm-size",
    "--entrypoint", "--network", "--net", "-p", "--publish", "--ipc", "--pid", "-u", "--user", "--cpus", "-m",
    "--memory", "--memory-swap", "--device", "-l", "--label", "--ulimit", "--cap-add", "--cap-drop", "--security-opt",
    "-h", "--hostname", "--platform", "--pull", "--restart", "--log-driver", "--log-opt", "--runtime", "--add-host",
    "--dns", "--tmpfs", "--cpuset-cpus", "--group-add", "--volumes-from", "--link", "--expose", "--detach-keys",
    "--cidfile", "--uts", "--userns", "--stop-signal", "--storage-opt",
})  # fmt: skip


def _in_container(words: list[Word]) -> list[Word] | None:
    """The command `docker run [options] IMAGE [command]` (or `docker exec [options] CONTAINER command`, podman
    alike) runs inside the container: `--entrypoint python3 IMAGE -m pkg.main` runs `python3 -m pkg.main`. None
    when the words are not such a command or name none."""
    if len(words) < 3 or os.path.basename(words[0].text) not in ("docker", "podman"):
        return None
    if words[1].text not in ("run", "exec"):
        return None
    entrypoint: Word | None = None
    index = 2
    while index < len(words) and words[index].text.startswith("-"):
        option, has_value, value = words[index].text.partition("=")
        if option == "--entrypoint":
            entrypoint = words[index]._replace(text=value) if has_value else words[min(index + 1, len(words) - 1)]
        index += 1 if has_value or option not in _CONTAINER_VALUES else 2
    inner = words[index + 1 :]  # past the image (or the container)
    if entrypoint is not None and entrypoint.text:
        inner = [entrypoint, *inner]
    return inner or None


# Wrappers that start their command once per task or rank (`srun --ntasks=4 python train.py`): whether those copies
# join one run (the environment maps SLURM_PROCID to RANK) or run apart is not shown by the command.
_TASK_STARTERS = frozenset({"srun", "mpirun", "mpiexec"})


def recognise(command: Command, places: Places) -> Launch | None:
    words = list(command.words)
    contained = _in_container(words)
    if contained is not None:  # its files are the image's: where it runs, and what is there, is not shown
        words, places = contained, places._replace(lost=True)
    unwrapped = _unwrap(words)
    starter = _task_starter(words, unwrapped)
    launch = _recognise(command, unwrapped, places)
    if launch is not None and starter is not None and launch.launcher == "python":
        why = f"`{starter}` starts the command once per task, and whether the copies join one run is not shown"
        return launch._replace(world=None, world_unknown=why, bypass=None)
    return launch


def _task_starter(words: list[Word], unwrapped: list[Word]) -> str | None:
    """The wrapper in front of a command that starts it once per task (`srun`, `mpirun`, `mpiexec`), if any."""
    wrappers = (os.path.basename(w.text) for w in words[: len(words) - len(unwrapped)])
    return next((name for name in wrappers if name in _TASK_STARTERS), None)


def _recognise(command: Command, words: list[Word], places: Places) -> Launch | None:
    if not words:
        return None
    command = command._replace(words=tuple(words))
    name = os.path.basename(words[0].text)
    if name == "megatron" and len(words) > 1 and words[1].text == "rlhf":
        return _launch(command, "swift", "megatron", "megatron", words[2:], None, None)
    if name == "swift" and len(words) > 1 and words[1].text in ("rlhf", "rollout"):
        role = "train" if words[1].text == "rlhf" else "server"
        world, unknown = _swift_world(command) if role == "train" else (None, None)
        return _launch(command, "swift", role, "swift", words[2:], world, unknown)
    if name == "trl" and len(words) > 1 and words[1].text in ("grpo", "vllm-serve"):
        role = "train" if words[1].text == "grpo" else "server"
        return _launch(command, "trl", role, "trl", words[2:], None, None)._replace(entry=TRL_CLI)
    if name == "trl" and len(words) > 1 and (sub := copy_subcommand(words[1], places)) is not None:
        return _program(command, "trl", [Word(sub, words[1].span), *words[2:]], None, _BY_TRL_CLI, places)
    launched = _launched(command, words, places)
    if launched is not None:  # accelerate, torchrun, deepspeed, python: the program they start, on how many processes
        return _program(command, *launched, places)
    if not words[0].known and len(words) > 1:
        # `"$(sol_python)" -m verl.trainer.main_ppo ...`, `$PYTHON -m pkg.train`: a program known only at launch that
        # runs a module. Python, or a launcher that takes `-m` too (torchrun, accelerate): how many processes it
        # starts is not shown.
        module = len(words) > 2 and words[1].text == "-m" and _MODULE.fullmatch(words[2].text) is not None
        # `"${ENV_PYTHON}" train.py ...` (an interpreter set in a file the script sources): a variable named for
        # Python running a script of the repository (`$RUNNER run.py` may be any program)
        script = (
            not module
            and any("py" in name.lower() for name in words[0].unknown)
            and words[1].known
            and words[1].text.endswith(".py")
            and _repository_script(words[1].text, False, places) is not None
        )
        if module or script:
            shown = words[0].unknown[0] if words[0].unknown else "its program"
            unknown = f"the program ({shown}) is known only at launch"
            return _program(command, "a program", words[1:], None, unknown, places)
    if name == "ray" and len(words) > 3 and words[1].text == "job" and words[2].text == "submit":
        inner = [i for i, w in enumerate(words) if w.text == "--"]
        if inner and inner[0] + 1 < len(words):  # `ray job submit [options] -- python3 -m ...`
            directory = _working_dir(words[3 : inner[0]])
            if directory is not None:  # the job runs there: its script is looked up there first
                places = places.within(directory)
            return recognise(command._replace(words=tuple(words[inner[0] + 1 :])), places)
    return None


_MODULE = lazy(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
# A module named as a training entry (`main_grpo`, `train_ppo`, `grpo_main`), not an evaluation's or a generation's.
_TRAINING_ENTRY = lazy(r"^main_(?!gen|eval)|grpo|ppo|dapo|rloo|^train")


def started_file(command: Command, places: Places) -> tuple[Path | None, Setting | None] | None:
    """The repository's Python file a command runs, whatever it does (`python -m pkg.train`, `accelerate launch
    [flags] train.py`, `torchrun ...`, `deepspeed ...`), with the processes its launcher starts (None when not
    known from the command); the file is None when it is not found. None for a command that runs no Python
    program of a launcher grpo-lint reads."""
    words = list(command.words)
    unwrapped = _unwrap(words)
    if not unwrapped:
        return None
    launched = _launched(command._replace(words=tuple(unwrapped)), unwrapped, places)
    if launched is None:
        return None
    launcher, program, world, _ = launched
    if launcher == "python" and _task_starter(words, unwrapped) is not None:
        world = None
    module = bool(program) and program[0].text in ("-m", "--module")
    if not program or (module and len(program) < 2):
        return None
    target = program[1].text if module else program[0].text
    return _repository_script(target, module, places), world


def _working_dir(options: list[Word]) -> str | None:
    """`ray job submit --working-dir DIR` (or `--working-dir=DIR`): the folder the job runs in, when written."""
    for index, word in enumerate(options):
        if word.text.startswith("--working-dir="):
            value: Word | None = word
            text = word.text.split("=", 1)[1]
        elif word.text == "--working-dir" and index + 1 < len(options):
            value = options[index + 1]
            text = value.text
        else:
            continue
        relative = text and not os.path.isabs(text) and ".." not in text.split("/")
        return text if value.known and relative else None
    return None


def _launch(
    command: Command,
    framework: str,
    role: str,
    launcher: str,
    args: list[Word],
    world: Setting | None,
    unknown: str | None,
    bypass: str | None = None,
) -> Launch:
    visible_word = command.env.get("CUDA_VISIBLE_DEVICES")
    visible = None
    if visible_word is not None and visible_word.known:
        visible = tuple(d for d in visible_word.text.split(",") if d.strip())
    return Launch(command, framework, role, launcher, tuple(args), world, unknown, bypass, visible, visible_word)


# TRL's command line (`trl NAME`, `python -m trl.cli.main NAME`): it runs the script `trl/scripts/NAME.py` of the TRL
# it belongs to (trl/cli/commands/training.py, TRL 1.x) under `accelerate launch`.
_TRL_COMMAND_LINE = frozenset({"trl", "trl.cli", "trl.cli.main"})
_BY_TRL_CLI = "TRL's command line starts the script with accelerate launch, on the processes its config gives"


def copy_subcommand(word: Word, places: Places | None) -> str | None:
    """The script that `trl NAME` runs when the repository ships its own copy of TRL and NAME is a script of that copy
    that upstream TRL's command line does not have (`trl code_grpo`: `trl/trl/scripts/code_grpo.py`); None otherwise
    (upstream's `grpo` is read as TRL's own program)."""
    name = word.text
    if places is None or places.modules is None or not word.known or name in ("grpo", "vllm-serve", "vllm_serve"):
        return None
    if not name.isidentifier():
        return None
    from grpo_lint.workspace.forks import marker

    trl = set(places.modules.copies_of(marker("trl")))
    copies = [c for c in places.modules.copies_of(f"trl/scripts/{name}.py") if c in trl]
    if len(copies) != 1:
        return None
    return str(places.root.joinpath(*(part for part in (copies[0], "trl", "scripts", f"{name}.py") if part)))


def _launched(
    command: Command, words: list[Word], places: Places
) -> tuple[str, list[Word], Setting | None, str | None] | None:
    """What a launcher starts: (launcher, the program's words, its processes, why they are not known) for
    `accelerate launch`, `torchrun` (and `python -m torch.distributed.run`), `deepspeed`, and `python [-u ...] -m
    module args` or `python script.py args`; None for any other command."""
    name = os.path.basename(words[0].text)
    if name == "accelerate" and len(words) > 1 and words[1].text == "launch":
        flags, program = _split_launcher(words[2:], _ACCELERATE_SWITCHES)
        return ("accelerate", program, *_accelerate_world(flags, command, places))
    if name in ("torchrun", "torch.distributed.run"):
        flags, program = _split_launcher(words[1:], _TORCHRUN_SWITCHES)
        return ("torchrun", program, *_torchrun_world(flags, command))
    if name == "deepspeed":
        flags, program = _split_launcher(words[1:], _DEEPSPEED_SWITCHES)
        return ("deepspeed", program, *_deepspeed_world(flags, command))
    if not re.fullmatch(r"python(\d+(\.\d+)?)?", name):
        return None
    rest, index = words[1:], 0
    while index < len(rest) and rest[index].text.startswith("-") and rest[index].text != "-m":
        index += 2 if rest[index].text in _PYTHON_VALUE_OPTIONS else 1
    if index >= len(rest):
        return None
    if rest[index].text == "-m" and index + 1 < len(rest):
        module, args = rest[index + 1].text, rest[index + 2 :]
        if module in ("torch.distributed.run", "torch.distributed.launch"):
            flags, program = _split_launcher(args, _TORCHRUN_SWITCHES)
            return ("torchrun", program, *_torchrun_world(flags, command))
        if module == "accelerate.commands.launch":
            flags, program = _split_launcher(args, _ACCELERATE_SWITCHES)
            return ("accelerate", program, *_accelerate_world(flags, command, places))
        if module in _DEBUGGERS:  # `python -m pdb train.py ...`: the script runs under the debugger, as with python
            options = _DEBUGGERS[module]
            at = 0
            while at < len(args) and args[at].text in options:
                at += 2
            if at < len(args) and not args[at].text.startswith("-"):
                return "python", list(args[at:]), _one(command), None
        return "python", [rest[index], rest[index + 1], *args], _one(command), None
    return "python", rest[index:], _one(command), None


def unknown_script(command: Command, places: Places) -> str | None:
    """The script a launcher or `python` starts when its name is known only at launch (open-r1's
    `accelerate launch ... src/open_r1/$TASK.py`): the path as written, or None for any other command."""
    words = _unwrap(list(command.words))
    launched = _launched(command, words, places) if words else None
    if launched is None or not launched[1]:
        return None
    script = launched[1][0]
    name = script.text.rpartition("/")[2]  # (a folder not known, `$ROOT/train.py`, still names the file)
    if script.known or script.text.startswith("-") or not name.endswith(".py") or not ("$" in name or "`" in name):
        return None
    return script.text


# Modules that run a script given after their own options (each taking a value), as `python script.py` would.
_DEBUGGERS = {
    "pdb": frozenset({"-c", "--command"}),
    "cProfile": frozenset({"-o", "-s"}),
    "profile": frozenset({"-o", "-s"}),
}


def _one(command: Command) -> Setting:
    return Setting(1, None, command.words[0].span, "a plain `python` command runs one process")


def _program(
    command: Command,
    launcher: str,
    program: list[Word],
    world: Setting | None,
    unknown: str | None,
    places: Places | None = None,
) -> Launch | None:
    """The program a launcher starts: swift's rlhf.py, TRL's grpo script, or a script with GRPO flags."""
    if not program:
        return None
    first = program[0].text
    if first in ("-m", "--module", "--no_python") and len(program) > 1:
        target, args = program[1].text, program[2:]
    else:
        target, args = first, program[1:]
    if not program[0].known and (here := beside(target)) is not None and places is not None:
        target = first = str(places.script_dir / here)  # the script's own folder, spelled by the shell
    if target in _TRL_COMMAND_LINE and args and (sub := copy_subcommand(args[0], places)) is not None:
        return _program(command, "trl", [Word(sub, args[0].span), *args[1:]], None, _BY_TRL_CLI, places)
    target_path = target.replace("\\", "/")
    # The repository file it runs, looked up once (framework_own: looked up below, if at all).
    framework_own = target in _TRL_GRPO_MODULES or target in ("swift.cli.rlhf", "trl")  # never a Hydra app
    ran = None if places is None or framework_own else _repository_script(target, first in ("-m", "--module"), places)
    for module, framework in _RAY_TRAINERS.items():
        if (
            target == module
            or target_path.endswith(module.replace(".", "/") + ".py")
            or (ran is not None and _overrides_shaped(args) and _runs_main_of(ran, module, places))
        ):
            launch = _launch(command, framework, "train", launcher, args, None, None)
            copy = _copy_entry(command, places) if framework == "verl" else None
            if copy is not None:  # the repository's own copy of verl runs: its tree is composed as itself
                return launch._replace(script=str(places.root / copy.file), hydra=copy)  # type: ignore[union-attr]
            unseen = _unseen_path_folder(command, places) or _unseen_start_folder(first, target, places)
            return launch._replace(unseen_copy=unseen)
    easyr1 = places is not None and (target == "verl.trainer.main" or _builds_like_easyr1(ran, args, places))
    if (first in ("-m", "--module") or target != "verl.trainer.main") and easyr1 and places is not None:
        from grpo_lint.launch.easyr1 import easyr1_copy

        main = easyr1_copy(places.modules)
        if main is not None:  # EasyR1: a config built from the copy's dataclasses, not a Hydra tree
            launch = _launch(command, "verl", "train", launcher, args, None, None)
            script = str(ran) if ran is not None and target != "verl.trainer.main" else str(places.root / main)
            return launch._replace(entry=target, script=script, easyr1=main)
    entry = None if framework_own else _hydra_entry(ran, places)
    if entry is not None:
        script = str(places.root / entry.file) if places is not None else entry.file
        launch = _launch(command, "verl", "train", launcher, args, None, None)
        return launch._replace(entry=target, script=script, hydra=entry)
    if _VERL_ENTRIES.search(target_path) and not _own_trainer(ran, places):
        launch = _launch(command, "verl", "train", launcher, args, None, None)._replace(entry=target)
        if first in ("-m", "--module") and _missing_module(target, places):
            return launch._replace(missing=target)
        return launch
    if (
        first in ("-m", "--module")
        and target.startswith("verl.")
        and _TRAINING_ENTRY.search(target.rpartition(".")[2])
        and any(w.text.lstrip("+~").startswith("actor_rollout_ref.") for w in args)
        and _missing_module(target, places)
    ):  # `python -m verl.trainer.main_grpo actor_rollout_ref...=...`: a training entry the copy does not hold
        return _launch(command, "verl", "train", launcher, args, None, None)._replace(entry=target, missing=target)
    if target in ("swift.cli.rlhf",) or target_path.endswith("swift/cli/rlhf.py"):
        bypass = None
        if launcher == "python" and ("NPROC_PER_NODE" in command.env or "NNODES" in command.env):
            bypass = "`python -m swift.cli.rlhf` bypasses swift's launcher, so NPROC_PER_NODE/NNODES start no processes"
        return _launch(command, "swift", "train", launcher, args, world, unknown, bypass)
    if target == "trl" and args and args[0].text == "grpo":
        return _launch(command, "trl", "train", launcher, args[1:], world, unknown)._replace(entry=TRL_CLI)
    is_trl = target in _TRL_GRPO_MODULES or target_path.endswith("trl/scripts/grpo.py")
    module = first in ("-m", "--module") and not is_trl
    if places is None or is_trl:
        script = None
    else:
        script = ran if not framework_own else _repository_script(target, module, places)
    modules = places.modules if places is not None else None
    program = modules.program(script) if script is not None and modules is not None else None
    by_config = not is_trl and any(w.text.split("=", 1)[0] == "--config" for w in args)
    if program is not None and _openrlhf_shaped(program.flags):
        # A copy of OpenRLHF's train_ppo_ray under another name (`python -m ttrl.cli.train_ppo_naive`): its own
        # argparse flags are what it accepts.
        launch = _launch(command, "openrlhf", "train", launcher, args, None, None)
        return launch._replace(script=str(script), entry=target)
    if script is not None and _swift_wrapper(script):
        # A thin script of the repository that hands its command line to ms-swift (`rlhf_main()`): an ms-swift run.
        return _launch(command, "swift", "train", launcher, args, world, unknown)._replace(script=str(script))
    if program is not None and not program.trains and not _has_grpo_flag(args):
        return None  # a script of the repository that builds no GRPO run (a server, an evaluation, data)
    if program is not None and not program.trains and not program.trl_config and _own_flags(args, program.flags):
        return None  # a sampling script of its own whose argparse defines `--num_generations` (best-of-n rollouts)
    if module and script is None and not is_trl and not _has_grpo_flag(args):
        return None  # a module the repository does not hold, with no GRPO flag: `--config` alone shows no run
    trains = program is not None and program.trains
    # a script the repository may not hold; one named for GRPO and not there (`python grpo_old.py --beta 0.4`) is a
    # GRPO run that never starts
    lookable = script is None and not module and not is_trl and target.endswith(".py") and places is not None
    named = lookable and "grpo" in target.rpartition("/")[2].lower()
    gone = named and _missing_script(target, places)  # type: ignore[arg-type]
    if is_trl or by_config or _has_grpo_flag(args) or trains or gone:
        bypass = None
        # (a trainer of the repository's own, not TRL's, may drive several GPUs from one process: `--device2`, vLLM)
        if launcher == "python" and not (program is not None and program.own_trainer):
            bypass = "a plain `python` command runs one process"
        launch = _launch(command, "trl", "train", launcher, args, world, unknown, bypass)
        shown = str(script) if script is not None else (target if target.endswith(".py") and not is_trl else None)
        entry = TRL_SCRIPT if is_trl else None
        only_config = by_config and not _has_grpo_flag(args) and not trains
        # (a run known only by `--config F` is a GRPO run only if F is a GRPO config: nothing to say before that)
        missing = gone or (lookable and not named and not only_config and _missing_script(target, places))  # type: ignore[arg-type]
        return launch._replace(script=shown, by_config=only_config, entry=entry, missing_file=target if missing else "")
    return None


_OVERRIDE = lazy(r"^[+~]{0,2}[A-Za-z_][\w-]*\.[\w.@-]+=|^--config-(name|path|dir)\b|^-c[npd]$")


def _overrides_shaped(args: list[Word]) -> bool:
    """Whether a command line holds a Hydra override of a dotted key (`data.train_batch_size=64`) or a config flag: a
    verl entry is launched with them; a script given only its own flags (`--input x.csv`) is not read for one."""
    return any(_OVERRIDE.match(word.text) for word in args)


def _runs_main_of(script: Path, module: str, places: Places | None) -> bool:
    """Whether a script of the repository hands its command line to a framework's own entry point:
    `from verl.trainer.main_ppo import main` (after patching what it calls) and `main()`. The run is that entry's."""
    if script.as_posix().endswith(module.replace(".", "/") + ".py") or places is None or places.modules is None:
        return False  # the framework's own file (a copy's main_ppo.py): read as it is
    modules = places.modules
    relative = modules.relative(script)
    data = modules.bytes_of(relative) if relative is not None else None  # (read once per run)
    if data is None or module.encode() not in data:
        return False
    named = re.escape(module.encode())
    imported = re.search(rb"^[ \t]*from[ \t]+" + named + rb"[ \t]+import\b[^\n]*\bmain\b", data, re.M)
    return imported is not None and re.search(rb"^[ \t]*main\(\s*\)", data, re.M) is not None


_SWIFT_IMPORT = lazy_bytes(
    rb"^[ \t]*(from[ \t]+swift(\.[\w.]+)?[ \t]+import\b[^\n]*\brlhf_main\b|import[ \t]+swift\b)", re.M
)
_SWIFT_CALL = lazy_bytes(rb"\brlhf_main\(\s*\)")


# The flags that make an argparse parser OpenRLHF's PPO/GRPO trainer's (flat names up to 0.10.1, dotted after).
_OPENRLHF_SHAPE = (
    frozenset({"n_samples_per_prompt", "rollout_batch_size", "actor_num_gpus_per_node", "micro_rollout_batch_size"}),
    frozenset({"rollout.n_samples_per_prompt", "rollout.batch_size", "actor.num_gpus_per_node"}),
)


def _openrlhf_shaped(flags: frozenset[str]) -> bool:
    return any(shape <= flags for shape in _OPENRLHF_SHAPE)


def _swift_wrapper(script: Path) -> bool:
    """Whether a Python file passes its own command line to ms-swift's `rlhf_main()` (a launcher wrapper)."""
    from grpo_lint.limits import MAX_PYTHON_BYTES
    from grpo_lint.sources.document import ReadProblem
    from grpo_lint.sources.reading import read_file

    data = read_file(script, MAX_PYTHON_BYTES)
    return not isinstance(data, ReadProblem) and bool(_SWIFT_CALL.search(data)) and bool(_SWIFT_IMPORT.search(data))


_COPY_MAIN = "verl/trainer/main_ppo.py"


def _copy_entry(command: Command, places: Places | None) -> Any:
    """The `verl.trainer.main_ppo` of the verl copy a command runs, as a Hydra entry, or None (verl installed).

    Which copy: one on the command's PYTHONPATH (written out, relative to where it runs); else one whose
    project folder holds the script (or the folder a `cd` names); else, with one copy in the repository, that
    copy; else the copy whose project folder shares the most folders with the script's, when that is more
    than the repository root (a copy in a sibling project never runs another project's script)."""
    if places is None or places.modules is None:
        return None
    copies = places.modules.copies_of(_COPY_MAIN)
    if not copies:
        return None
    chosen = _copy_for(command, places, copies)
    if chosen is None:
        return None
    from grpo_lint.launch.entries import hydra_entry

    entry = hydra_entry(places.modules, places.root / (f"{chosen}/{_COPY_MAIN}" if chosen else _COPY_MAIN))
    return entry if entry is not None and entry.config_path is not None else None


def _copy_for(command: Command, places: Places, copies: list[str]) -> str | None:
    root = places.root.resolve()
    here = places.script_dir
    where = [here / places.workdir] if places.workdir else []
    where.append(here)
    relative = []
    for folder in where:
        try:
            relative.append(os.path.relpath(folder.resolve(), root).replace(os.sep, "/").strip("."))
        except ValueError:
            continue
    path_word = command.env.get("PYTHONPATH")
    if path_word is not None:
        for part in path_word.text.split(":"):
            if not part or os.path.isabs(part) or "$" in part:
                continue
            for base in relative:
                joined = os.path.normpath(os.path.join(base, part)).replace(os.sep, "/").strip(".")
                if joined in copies:
                    return joined
    for base in relative:
        holding = [c for c in copies if not c or base == c or base.startswith(c + "/")]
        if holding:
            return max(holding, key=len)
    if len(copies) == 1:
        return copies[0]
    scored = [(_shared(c.split("/"), relative[-1].split("/")), c) for c in copies]
    best = max(scored)
    return best[1] if best[0] > 0 and [s for s, _ in scored].count(best[0]) == 1 else None


# The folder a run starts in, as a shell word spells it.
RUN_DIR = r"(?:\$\(pwd\)|\$\{?PWD\}?|`pwd`)"
_RUN_DIR_PREFIX = lazy(rf"^{RUN_DIR}(?:/|$)")


def _unseen_start_folder(first: str, module: str, places: Places | None) -> str:
    """Why `python -m verl.trainer.main_ppo` may run a copy the repository does not hold: the script `cd`s first to a
    folder of another name that it does not hold (`cd ~/TinyZero`), and `python -m` looks for the module in the folder
    it starts in before the installed packages. "" for a `cd` to the checkout itself (named as the repository's
    folder), to a folder not written out (`cd $WORK`), for a program run by its path, and where the repository holds
    the module itself (a fork whose scripts `cd /path/to/workdir`, its own checkout on the cluster)."""
    if places is None or first not in ("-m", "--module") or not places.lost or not places.lost_to or places.workdir:
        return ""
    if places.modules is None or places.modules.module_file(module, 0, "") is not None:
        return ""
    parts = [part for part in places.lost_to.replace("\\", "/").split("/") if part not in ("", ".")]
    name = parts[-1] if parts else ""
    if not name or "$" in name or "`" in name or name in ("~", "..") or name == places.root.resolve().name:
        return ""
    return (
        f"the script runs it after `cd {places.lost_to}`, a folder the repository does not hold, and `python -m` "
        "looks there first: the code that runs may be a checkout of another project there"
    )


def _unseen_path_folder(command: Command, places: Places | None) -> str:
    """Why the framework a command imports may come from a folder the repository does not hold: its PYTHONPATH
    names one (relative to where the run starts, or below `$PWD`) before any other place the framework could be
    found; "" when it names none, or only folders the repository holds or places that are not shown."""
    path_word = command.env.get("PYTHONPATH")
    if places is None or path_word is None or places.modules is None:
        return ""
    files = places.modules.files
    for part in path_word.text.split(":"):
        relative = _RUN_DIR_PREFIX.sub("", part).strip("/")
        if not relative or os.path.isabs(part) or "$" in relative or "`" in relative or ".." in relative.split("/"):
            continue
        held = [folder / relative for folder in (*places.workdirs(), places.script_dir, places.root)]
        if any(folder.is_dir() for folder in held):
            continue
        prefix = relative.rstrip("/") + "/"
        if any(name.startswith(prefix) or f"/{prefix}" in name for name in files):
            continue
        return (
            f"PYTHONPATH names {part} first, a folder the repository does not hold (made or cloned before the run), "
            "so the code that runs may be a copy there"
        )
    return ""


def _shared(a: list[str], b: list[str]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y or not x:
            break
        count += 1
    return count


def _missing_module(module: str, places: Places | None) -> bool:
    """Whether `-m module` names a module of a package the repository holds that is not in it. Not after a `cd` to a
    folder the repository does not show (`cd "${REPO_ROOT}/other/verl"`): the package there may be another's."""
    if places is None or places.modules is None or "." not in module or places.lost:
        return False
    if places.modules.module_file(module, 0, "") is not None:
        return False
    top = module.split(".")[0] + "/"
    starts = {""}
    if places.workdir:
        relative = os.path.relpath((places.script_dir / places.workdir).resolve(), places.root.resolve())
        starts.add("" if relative == "." else relative.replace(os.sep, "/") + "/")
    files = places.modules.files
    return any(name.startswith(start + top) for start in starts for name in files)


_TEMPLATE_FOLDERS = frozenset({"examples", "example", "docs", "doc", "templates", "template", "snippets"})


def in_template_folder(folder: str) -> bool:
    """Whether a folder is (or lies in) an examples or documentation folder: a script there may list steps a reader
    runs one by one (a server on one node, the training on another) or name the reader's own files."""
    return bool(_TEMPLATE_FOLDERS.intersection(folder.replace("\\", "/").lower().split("/")))


def _missing_script(written: str, places: Places) -> bool:
    """Whether a script path a command runs is in no folder of the repository (a run may start in any of them:
    a README may say `cd src/project` first), while the repository shows what is there: no `cd` before it to a
    folder that is not written out or that the repository does not hold (a clone, a download)."""
    if places.lost or places.modules is None or not places.modules.complete:
        return False  # where the command runs, or what the repository holds, is not shown
    if in_template_folder(os.path.relpath(places.script_dir, places.root)):
        return False  # an example or a documentation snippet: it may name the reader's own script
    if "$" in written or os.path.isabs(written) or ".." in written or "/." in f"/{written}":
        return False
    if any(ch in written for ch in "*?[{~`"):
        return False
    if places.workdir and not any(folder.is_dir() for folder in places.workdirs()):
        return False  # the `cd` names a folder made at run time: what it holds is not shown
    path = "/".join(p for p in written.split("/") if p not in ("", "."))
    if not path.endswith(".py"):
        return False
    modules = places.modules
    if modules.submodules and any(modules.in_submodule(Path(base, path)) for base in places.bases()):
        return False  # in a submodule's folder: git lists none of its files
    return not any(name == path or name.endswith("/" + path) for name in modules.files)


def _hydra_entry(script: Path | None, places: Places | None) -> Any:
    """The repository's own Hydra application that runs verl, when the command runs one (`script`: the repository
    file it runs)."""
    if places is None or places.modules is None or script is None:
        return None
    from grpo_lint.launch.entries import hydra_entry

    entry = hydra_entry(places.modules, script)
    return entry if entry is not None and entry.verl else None


# The script's own folder as a script writes it: `$(dirname "$0")`, `$(dirname "${BASH_SOURCE[0]}")`,
# `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)` (often kept in a SCRIPT_DIR variable), `${0%/*}`.
_DIRNAME = r'\$\(dirname\s+(?:--\s+)?"?\$(?:0|\{0\}|\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE)"?\)'
_OWN_DIR = rf'{_DIRNAME}|\$\(cd\s+(?:--\s+)?"?{_DIRNAME}"?\s*(?:&&|;)\s*pwd(?:\s+-P)?\)|\$\{{0%/\*\}}'
_BESIDE = lazy(rf"^(?:{_OWN_DIR})/([\w./-]+\.(?:sh|py))$")
_NAMES_OWN_DIR = lazy(_OWN_DIR)


def beside(written: str) -> str | None:
    """`$(dirname "$0")/run.sh`, `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../train.py`: the path from the
    script's own folder, or None."""
    match = _BESIDE.match(written)
    return match.group(1) if match is not None else None


def names_own_folder(written: str) -> bool:
    """Whether a path as the shell writes it starts from the script's own folder (`cd "$(dirname "$0")"`)."""
    return _NAMES_OWN_DIR.search(written) is not None


def in_checkout(written: str, places: Places) -> Path | None:
    """A path through a folder that names the checkout on another machine (`${ROOT}/scripts/base.sh`,
    `/workspace/project/scripts/base.sh`) whose tail, from a folder on, is a file of the repository (at least a
    folder and a file: `scripts/base.sh`); or a file under the absolute folder the script `cd`s to before
    (`cd /home/me/checkout` ... `/home/me/checkout/train.py`: the run starts in the checkout)."""
    from grpo_lint.sources.reading import is_regular

    written = written.replace("\\", "/")
    if places.lost_dir and written.startswith(places.lost_dir.rstrip("/") + "/"):
        rest = written[len(places.lost_dir.rstrip("/")) + 1 :]
        if rest and "$" not in rest and ".." not in rest.split("/") and is_regular(places.root / rest):
            return places.root / rest
    found = written_tail(written, (places.root,), places.root, folder=False, least=2)
    return found[0] if found is not None else None


def written_tail(
    written: str, bases: tuple[Path, ...], root: Path, folder: bool, least: int = 1
) -> tuple[Path, Path, int] | None:
    """The longest tail of a path written through a folder not shown (`$ROOT/exgrpo/verl/`, `/workspace/x/run.sh`)
    that is a folder (`folder`) or a regular file below one of `bases`, inside the root: (that path, its base, where
    the tail starts among the written parts), or None. A tail starts at the second part or later, holds at least
    `least` parts, at most MAX_PATH_TAIL, and every part written out (no `$X`, `~`, `..`)."""
    from grpo_lint.limits import MAX_PATH_TAIL
    from grpo_lint.sources.reading import inside, is_folder, is_regular

    parts = written.replace("\\", "/").split("/")
    while parts and not parts[-1]:
        parts.pop()
    exists = is_folder if folder else is_regular
    for cut in range(max(1, len(parts) - MAX_PATH_TAIL), len(parts) - least + 1):
        tail = parts[cut:]
        if any(not part or "$" in part or "`" in part or part in (".", "..", "~") for part in tail):
            continue
        for base in bases:
            path = base.joinpath(*tail)
            if exists(path) and inside(path, root):
                return path, base, cut
    return None


def _own_trainer(ran: Path | None, places: Places | None) -> bool:
    """Whether a repository file named like a verl trainer (`main_ppo.py`) is a program of the repository's own: it
    lies in no `verl` or `recipe` package and never names verl (a PPO loop written in PyTorch), so nothing of verl
    runs."""
    if ran is None or places is None or places.modules is None:
        return False
    relative = places.modules.relative(ran)
    if relative is None or any(part in ("verl", "recipe") for part in relative.split("/")[:-1]):
        return False
    return not places.modules.mentions_in(relative, b"verl")


def _builds_like_easyr1(ran: Path | None, args: list[Word], places: Places) -> bool:
    """A script of the repository that builds its config as EasyR1's `verl.trainer.main` does (`OmegaConf.from_cli()`
    merged over `OmegaConf.structured(PPOConfig())`: a fork's own entry point, `oracle_grpo.run_grpo_online`),
    launched with `config=` or `key=value` words."""
    if ran is None or places.modules is None or not any("=" in w.text and not w.text.startswith("-") for w in args):
        return False
    relative = places.modules.relative(ran)
    data = places.modules.bytes_of(relative) if relative is not None else None
    return data is not None and all(mark in data for mark in _EASYR1_MAIN)


_EASYR1_MAIN = (b"OmegaConf.from_cli(", b"OmegaConf.structured(PPOConfig", b"import PPOConfig")


def _repository_script(target: str, module: bool, places: Places) -> Path | None:
    """The repository file a launch runs: `train.py` (looked up as Places says), one named through the checkout's
    folder on another machine (see in_checkout), or `-m pkg.train`."""
    if not module:
        if not target.endswith(".py"):
            return None
        return resolve_file(target, places) or (in_checkout(target, places) if os.path.isabs(target) else None)
    if places.modules is None:
        return None
    # `python -m` looks in the folder it runs in first: after a `cd`, a module there (a second copy of a project in the
    # checkout) is the one, else the module nearest that folder
    from grpo_lint.sources.reading import inside

    ran = places.workdirs()[0] if places.workdirs() else None
    importer = ""
    if ran is not None and inside(ran, places.root):
        importer = os.path.relpath(ran, places.root).replace(os.sep, "/").strip(".") + "/"
    found = places.modules.module_file(target, 0, importer)
    return places.root / found if found is not None else None


def _own_flags(args: list[Word], flags: frozenset[str]) -> bool:
    """Whether every GRPO-named flag of a command is one the script's own argparse defines."""
    named = [w.text.split("=", 1)[0] for w in args if w.text.split("=", 1)[0] in _GRPO_FLAGS]
    return bool(named) and all(name in flags or name.lstrip("-") in flags for name in named)


def _has_grpo_flag(args: list[Word]) -> bool:
    return any(w.text.split("=", 1)[0] in _GRPO_FLAGS for w in args)


class LauncherFlags(Record):
    """A launcher's own flags by canonical name: the value word, and the flag word as written."""

    values: dict[str, Word]
    written: dict[str, Word]

    def get(self, name: str) -> Word | None:
        return self.values.get(name)

    def span(self, name: str) -> Span:
        """Where the flag is written (for `--name=value`, the whole word)."""
        return self.written[name].span


def _split_launcher(words: list[Word], switches: frozenset[str]) -> tuple[LauncherFlags, list[Word]]:
    """A launcher's own flags and the program words that follow them."""
    flags = LauncherFlags({}, {})
    index = 0
    while index < len(words):
        word = words[index]
        text = word.text
        if not text.startswith("-"):
            break
        if text in ("-m", "--module"):  # the program is a module: keep `-m module` for _program
            break
        if "=" in text:
            name, _, value = text.partition("=")
            start = word.span.column + len(name) + 1
            span = Span(word.span.line, start, word.span.line, word.span.end_column)
            flags.values[_canonical(name)] = word._replace(text=value, span=span)
            flags.written[_canonical(name)] = word
            index += 1
            continue
        if text in switches:
            flags.values[_canonical(text)] = word._replace(text="true")
            flags.written[_canonical(text)] = word
            index += 1
            continue
        if index + 1 < len(words):
            flags.values[_canonical(text)] = words[index + 1]
            flags.written[_canonical(text)] = word
        index += 2
    return flags, words[index:]


def _canonical(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _number(word: Word | None) -> int | None:
    if word is None or not word.known:
        return None
    try:
        value = int(word.text)
    except ValueError:
        return None
    return value if value > 0 else None


def _visible_count(command: Command) -> int | None:
    word = command.env.get("CUDA_VISIBLE_DEVICES")
    if word is None or not word.known:
        return None
    return len([d for d in word.text.split(",") if d.strip()])


def _unknown_reason(word: Word | None, what: str) -> str:
    if word is not None and word.unknown:
        return f"{what} is {word.text!r}, which depends on {', '.join(word.unknown)}, not known before launch"
    return f"{what} is not known before launch"


def _multiple(per_node: int | None, span: Span, why: str) -> Setting | None:
    """Processes per machine known, machines not: the run uses a multiple of `per_node` processes."""
    if per_node is None:
        return None
    return Setting(per_node, None, span, f"assumed: {why}")


def _swift_world(command: Command) -> tuple[Setting | None, str | None]:
    nproc, nnodes = command.env.get("NPROC_PER_NODE"), command.env.get("NNODES")
    if nproc is None and nnodes is None:
        span = command.words[0].span
        return Setting(1, None, span, "swift without NPROC_PER_NODE or NNODES starts one process"), None
    per_node = _number(nproc) if nproc is not None else 1
    nodes = _number(nnodes) if nnodes is not None else 1
    if per_node is not None and nodes is None and nproc is not None:
        return _multiple(per_node, nproc.span, _unknown_reason(nnodes, "NNODES")), None
    if per_node is None or nodes is None:
        bad = nproc if nproc is not None and _number(nproc) is None else nnodes
        name = "NPROC_PER_NODE" if bad is nproc else "NNODES"
        return None, _unknown_reason(bad, name)
    anchor = nproc if nproc is not None else nnodes
    assert anchor is not None
    key = "NPROC_PER_NODE" if nproc is not None else "NNODES"
    origin = f"NPROC_PER_NODE={per_node} x NNODES={nodes}" if nnodes is not None else f"NPROC_PER_NODE={per_node}"
    return Setting(per_node * nodes, key, anchor.span, origin), None


def _accelerate_world(flags: LauncherFlags, command: Command, places: Places) -> tuple[Setting | None, str | None]:
    processes = flags.get("num_processes")
    if processes is not None:
        count = _number(processes)
        if count is None:
            return None, _unknown_reason(processes, "--num_processes")
        return Setting(
            count, "--num_processes", flags.span("num_processes"), "accelerate --num_processes (total over machines)"
        ), None
    config = flags.get("config_file")
    if config is not None:
        if not config.known:
            return None, _unknown_reason(config, "--config_file")
        from grpo_lint.launch.accelerate import read_accelerate_config

        where = find_file(config.text, places)
        if isinstance(where, Outside):
            return None, f"the accelerate config {config.text} is outside the repository and is not read"
        found = read_accelerate_config(where or places.script_dir / config.text)
        if found is None:
            return None, f"the accelerate config {config.text} cannot be read"
        if found.num_processes is not None and found.num_processes > 0:
            return Setting(
                found.num_processes,
                "--config_file",
                config.span,
                f"num_processes: {found.num_processes} in {config.text}",
            ), None
        return None, f"{config.text} does not set num_processes"
    visible = _visible_count(command)
    if visible is not None:
        word = command.env["CUDA_VISIBLE_DEVICES"]
        return Setting(visible, "CUDA_VISIBLE_DEVICES", word.span, "accelerate uses every visible GPU"), None
    return None, "accelerate launch without --num_processes or --config_file uses every visible GPU of the machine"


def _torchrun_world(flags: LauncherFlags, command: Command) -> tuple[Setting | None, str | None]:
    nproc = flags.get("nproc_per_node") or command.env.get("PET_NPROC_PER_NODE")
    from_flag = flags.get("nproc_per_node") is not None
    nnodes = flags.get("nnodes") or command.env.get("PET_NNODES")
    per_node: int | None = 1
    key, span = "--nproc_per_node", command.words[0].span
    if nproc is not None:
        span = flags.span("nproc_per_node") if from_flag else nproc.span
        if nproc.known and nproc.text in ("gpu", "auto"):
            per_node = _visible_count(command)
            if per_node is None:
                return None, f"--nproc_per_node {nproc.text} counts the GPUs of the machine"
        else:
            per_node = _number(nproc)
            if per_node is None:
                return None, _unknown_reason(nproc, "--nproc_per_node")
    nodes: int | None = 1
    if nnodes is not None:
        if nnodes.known and ":" in nnodes.text:
            return None, f"--nnodes {nnodes.text} is elastic: the world size changes at run time"
        nodes = _number(nnodes)
        if nodes is None:
            return _multiple(per_node, span, _unknown_reason(nnodes, "--nnodes")), None
    assert per_node is not None and nodes is not None
    return Setting(per_node * nodes, key, span, f"torchrun --nproc_per_node {per_node} x --nnodes {nodes}"), None


def _deepspeed_world(flags: LauncherFlags, command: Command) -> tuple[Setting | None, str | None]:
    gpus = flags.get("num_gpus") or flags.get("num_accelerators")
    nodes_word = flags.get("num_nodes")
    nodes = _number(nodes_word) if nodes_word is not None else 1
    if nodes is None:
        return None, _unknown_reason(nodes_word, "--num_nodes")
    include = flags.get("include") or flags.get("i")
    if gpus is not None:
        count = _number(gpus)
        if count is None:
            return None, _unknown_reason(gpus, "--num_gpus")
        span = flags.span("num_gpus" if flags.get("num_gpus") is not None else "num_accelerators")
        return Setting(count * nodes, "--num_gpus", span, f"deepspeed --num_gpus {count} x --num_nodes {nodes}"), None
    if include is not None and include.known:
        total = 0
        for host in include.text.split("@"):
            _, _, slots = host.partition(":")
            total += len([s for s in slots.split(",") if s]) if slots else 0
        if total:
            return Setting(total, "--include", include.span, f"deepspeed --include {include.text}"), None
    visible = _visible_count(command)
    if visible is not None and nodes == 1:
        word = command.env["CUDA_VISIBLE_DEVICES"]
        return Setting(visible, "CUDA_VISIBLE_DEVICES", word.span, "deepspeed uses every visible GPU"), None
    return None, "deepspeed without --num_gpus uses every GPU of each host"


class Places(Record):
    """Where the paths a script names are looked up: its own folder, the repository root, the
    current directory (in that order, so the result never depends on where grpo-lint starts)."""

    script_dir: Path
    root: Path
    # The repository's Python modules (grpo_lint.workspace.modules.Modules), to tell what a launched
    # script of the repository is; None when the script is linted without its repository.
    modules: Any = None
    # Where the command runs when the script says so (`cd src/r1-v` before it, `ray job submit
    # --working-dir DIR`), relative to where the script is started: looked in first, from the script's
    # folder up to the repository root, nearest first (a project kept in a subfolder runs from its own top).
    workdir: str | None = None
    # A `cd` to a folder that is not written out (`cd $WORK`, an absolute path) came before: where the command
    # runs is not shown.
    lost: bool = False
    lost_dir: str = ""  # that folder when it is written out but absolute (`cd /home/me/checkout`)
    lost_to: str = ""  # that folder as written (`$HOME/verl_repo`)

    def workdirs(self) -> tuple[Path, ...]:
        """The folders the `cd` may name: the workdir below the script's folder and each folder above it up to
        the repository root, nearest first (none without a `cd`)."""
        if not self.workdir:
            return ()
        above = (self.script_dir, *self.script_dir.parents)
        upto = above.index(self.root) + 1 if self.root in above else 1
        return tuple(folder / self.workdir for folder in above[:upto])

    def bases(self) -> tuple[Path, ...]:
        return (*self.workdirs(), self.script_dir, self.root, Path.cwd(), *self.script_dir.parents)

    def within(self, directory: str) -> Places:
        """These places for a command run in `directory` (relative to where the script runs)."""
        return self._replace(workdir=os.path.normpath(os.path.join(self.workdir or "", directory)))


class Outside(Record):
    """A file a script names that exists, but outside the linted tree: it is not opened."""

    path: Path


def find_file(path: str, places: Places) -> Path | Outside | None:
    """The file a script names, looked up as Places says; a file outside the repository root (after
    symlinks) is not returned but reported as Outside, so that a linted repository cannot make
    grpo-lint read, and print, files of the machine it runs on."""
    from grpo_lint.sources.reading import inside, is_regular

    # (Looked up as text, and a Path made only of what is found: a repository's thousands of scripts each name a
    # file or two, from half a dozen folders.)
    found = (path,) if os.path.isabs(path) else (os.path.join(base, path) for base in places.bases())
    outside: Outside | None = None
    for file in found:
        if not is_regular(file):
            continue
        if not inside(file, places.root):
            outside = outside or Outside(Path(file))
            continue
        shown = os.path.relpath(file)  # as the user sees it from the current directory
        return Path(shown) if not shown.startswith("..") else Path(file)
    return outside or _below(path, places)


_RUN_FILES = (".py", ".yaml", ".yml", ".json")  # (a script a launch runs, the config it names)


def files_ending(path: str, places: Places) -> list[str]:
    """The repository's scripts and configs whose path ends with a relative path of folders a script names
    (`src/open_r1/grpo.py`): where a run that starts in another folder (a subproject a README says to `cd` into) finds
    it. None for a bare file name, an absolute path or one above the start, nor after a `cd` to a folder not shown
    (the checkout may be elsewhere)."""
    written = os.path.normpath(path)
    if places.modules is None or places.lost or os.path.isabs(path) or not written.endswith(_RUN_FILES):
        return []
    if "/" not in written or written.startswith(".."):
        return []
    return places.modules.ending_with(written)


def _below(path: str, places: Places) -> Path | None:
    """A script or config named by a path found nowhere the script looks, when exactly one file of the repository
    ends so (files_ending)."""
    found = files_ending(path, places)
    if len(found) != 1:
        return None
    shown = os.path.relpath(places.root / found[0])
    return Path(shown) if not shown.startswith("..") else places.root / found[0]


def resolve_file(path: str, places: Places) -> Path | None:
    """The file a script names, when it exists inside the linted tree."""
    found = find_file(path, places)
    return found if isinstance(found, Path) else None
