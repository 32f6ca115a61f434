"""What a launch script runs: every GRPO command in it as a Document, with the world size its
launcher decides and the config file it names (flags override the file, as in the framework).

This module only reads; grpo_lint.lint judges the runs."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from grpo_lint.diagnostics import Diagnostic, Severity, Span
from grpo_lint.launch.commands import (
    Launch,
    Outside,
    Places,
    beside,
    files_ending,
    find_file,
    in_checkout,
    names_own_folder,
    recognise,
    resolve_file,
    unknown_script,
    written_tail,
)
from grpo_lint.launch.script_config import owns_config_flag, through_argparse, through_hydra, written_config
from grpo_lint.plan import Setting
from grpo_lint.records import Record
from grpo_lint.sources import parse_cache
from grpo_lint.sources.document import Document, Entry, ReadProblem, stamp
from grpo_lint.sources.reading import real_path
from grpo_lint.sources.shell import (
    Command,
    Joined,
    Script,
    Word,
    blank_line_continuations,
    made_here,
    run_by_wrapper,
)
from grpo_lint.workspace.files import SHELL_SUFFIXES

if TYPE_CHECKING:
    from grpo_lint.versions import Target
    from grpo_lint.workspace.modules import Program

_CONFIG_SUFFIXES = (".yaml", ".yml", ".json")


class Run(Record):
    """One training command of a script, as the Document its program will see."""

    launch: Launch
    document: Document
    unresolved: dict[str, Word]  # flags whose values depend on variables not known before launch
    extra_keys: frozenset[str]  # flags the launched script defines itself (argparse)
    # Words the program cannot even parse (Hydra's override grammar): it stops before it reads any
    # setting, and which settings the command means is not known.
    unparsable: bool = False


class ScriptRuns:
    """What a launch script starts: its commands, the runs they make, and the config files they name."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.launches: list[Launch] = []
        self.runs: list[Run | None] = []  # one per launch; None for servers and runs that are not GRPO
        self.not_grpo: list[str] = []  # why a training command is not a GRPO run (`swift rlhf --rlhf_type dpo`)
        self.problems: list[Diagnostic] = []  # config files named but missing or unreadable
        self.sources: dict[str, str] = {}  # the config files it named: path -> text
        self.duplicates: dict[str, list[tuple[Entry, Entry]]] = {}  # keys such a file gives twice: path -> pairs
        # Scripts of the repository it runs (`bash train/rlhf.sh`), read with the variables it exports:
        # (the command, the called script's runs with those variables, its runs read alone).
        self.called: list[tuple[Command, ScriptRuns, ScriptRuns]] = []
        # Commands cut where the author meant a `\` continuation (shell.blank_line_continuations), read once.
        self.joined: Joined = {}


def read_script(
    text: str,
    path: str,
    root: Path,
    target_for: Callable[[str], Target],
    modules: Any = None,
    environment: dict[str, Word] | None = None,
    calls: tuple[str, ...] = (),
    arguments: list[Word] | None = None,
    shells: tuple[frozenset[int], frozenset[int]] | None = None,
) -> ScriptRuns:
    """The runs of a script: data only, linted by grpo_lint.lint. `modules`: the repository's Python
    modules (grpo_lint.workspace.modules), to read the scripts its commands run. `environment`: the
    variables a calling script exports; `calls`: the scripts that led here (a cycle is not followed);
    `arguments`: the words a calling script runs it with (its `$@`)."""
    script = parse_cache.script(text, path, environment, arguments)
    places = Places(Path(real_path(path)).parent, root, modules)
    result = ScriptRuns(script)
    # A command cut short by a comment (GRPO501 reports the cut) is judged as written, with the words after
    # the comment: they are what the run means, and what it runs once the comment is moved.
    lost = {cut.command_line: _as_written(cut.lost, True) for cut in script.cutoffs}
    # (likewise one cut by an empty line: judged with the flags written below it, over every such cut)
    joined = result.joined = blank_line_continuations(script)
    for line, cuts in joined.items():
        lost[line] = lost.get(line, ()) + tuple(w for _cut, _kind, words in cuts for w in _as_written(words, True))
    intended = [
        c._replace(words=_as_written(c.words, c.line in joined) + lost[c.line]) if c.line in lost else c
        for c in script.commands
    ]
    where: list[Places] = []  # where each launch runs (after the script's `cd`s)
    installed = ""  # a framework installed from a checkout the repository does not show (`pip install -e .` there)
    for c, here in _working_dirs(intended, places, shells):
        launch = recognise(c, here)
        if launch is not None:
            if installed.startswith(launch.framework + ":") and not launch.unseen_copy:
                launch = launch._replace(unseen_copy=installed.partition(":")[2])
                if launch.hydra is not None and launch.entry is None:  # not the repository's copy of the framework
                    launch = launch._replace(hydra=None, script=None)
            where.append(here)
            result.launches.append(launch)
        elif found := _installed_elsewhere(c, here):
            installed = found
        elif (unknown := unknown_script(c, here)) is not None:
            result.not_grpo.append(
                f"the command of line {c.line} runs {unknown}, a script whose name is known only at launch: "
                "which run it makes is not shown"
            )
        elif len(calls) < _MAX_CALL_DEPTH:
            _read_called(c, here, result, target_for, modules, (*calls, path))
    for launch, here in zip(result.launches, where, strict=True):
        broken = never_starts(script, launch).why
        if broken:
            result.not_grpo.append(f"the command of line {launch.command.line} never starts: {broken}")
        run = _run(launch, script, here, target_for, result) if launch.role == "train" and not broken else None
        if launch.role == "megatron":
            result.problems.extend(_megatron_rlhf_type(launch, target_for))
            result.not_grpo.append(
                f"`megatron rlhf` (line {launch.command.line}) trains with Megatron, whose GRPO arguments "
                "grpo-lint does not check yet"
            )
        result.runs.append(run)
    return result


def _installed_elsewhere(command: Command, here: Places) -> str:
    """`pip install -e .` (or `pip install .`, `python setup.py develop`) run after a `cd` to a folder the repository
    does not show whose written name names a framework (`cd $HOME/verl_repo && pip install -e .`): that checkout is
    the framework the later runs import. "framework:why", or "" for any other command."""
    words = [w.text for w in command.words]
    if not here.lost or not here.lost_to or len(words) < 3:
        return ""
    if words[0] in ("python", "python3") and words[1:3] == ["-m", "pip"]:
        words = ["pip", *words[3:]]
    pip = words[0] in ("pip", "pip3") and words[1] == "install" and "." in words[2:]
    setup = words[0] in ("python", "python3") and words[1] == "setup.py" and words[2] in ("develop", "install")
    from grpo_lint.workspace.forks import FRAMEWORKS, marker

    name = next((f for f in FRAMEWORKS if f in here.lost_to.lower()), "") if pip or setup else ""
    if not name:
        return ""
    own = here.root.resolve().name.lower()
    if here.modules is not None and "" in here.modules.copies_of(marker(name)) and name in own:
        # the repository is that framework (or a fork named for it): the checkout installed is most likely this one;
        # a fork of another name (Logic-RL's copy of verl, whose notebook installs `$HOME/verl_repo`) is not
        return ""
    return (
        f"{name}:line {command.line} installs {name} from {here.lost_to}, a checkout the repository does not hold, "
        "so the code that runs may differ from the repository's"
    )


def _as_written(words: tuple[Word, ...], cut: bool) -> tuple[Word, ...]:
    """A cut command's own words as meant: without the blank a `\\` before the line break escaped (`--n 8 \\ `)."""
    return tuple(word for word in words if not word.text.isspace()) if cut else words


class Stop(Record):
    """Why bash or Python never runs a launch command as written: `kind` names the cause ("" = it runs)."""

    kind: str  # "quote", "crlf", "module", "script" or ""
    why: str


def never_starts(script: Script, launch: Launch) -> Stop:
    """Why the command never starts ("" when it does), in the order the failures come: bash reads the script
    first (a quote that nothing closes before or inside the command, a backslash continuation broken by a
    CRLF line ending), then Python looks for the module or the file it runs."""
    words = launch.command.words
    if script.unclosed is not None and words and words[-1].span.end_line >= script.unclosed[0]:
        return Stop("quote", f"the {script.unclosed[2]} on line {script.unclosed[0]} is never closed")
    if any(word.text == "\r" for word in words):
        return Stop("crlf", "the script has CRLF line endings, so its `\\` continuations continue nothing")
    if launch.missing:
        return Stop("module", f"the module {launch.missing} is not in the repository, although its package is")
    if launch.missing_file and not made_here(script.text, launch.missing_file.rpartition("/")[2], launch.command):
        return Stop("script", f"the script {launch.missing_file} is in no folder of the repository")
    return Stop("", "")


def _run(
    launch: Launch, script: Script, places: Places, target_for: Callable[[str], Target], result: ScriptRuns
) -> Run | None:
    if launch.easyr1:  # EasyR1's own entry point: its config classes decide (grpo_lint.launch.easyr1)
        from grpo_lint.launch.easyr1 import launch_problems

        found = launch_problems(
            launch, places, lambda word: _easyr1_config(word, places, result, script, launch.command)
        )
        result.problems.extend(found)
        return None
    script_file = resolve_file(launch.script, places) if launch.script is not None else None
    extra, parser, trainer, rewritten, program = _script_facts(script_file, places)
    result.problems.extend(_does_not_compile(launch, script_file, places))
    if launch.framework == "verl":
        before = len(result.problems)
        document, unresolved = _verl_document(launch, script, places, result, target_for)
        broken = any(p.code == "GRPO001" and p.severity is Severity.ERROR for p in result.problems[before:])
        return _finish_run(Run(launch, document, unresolved, extra, broken))
    if launch.framework == "openrlhf":
        flags, unresolved = flag_entries(launch.args)
        document = Document(script.path, script.text, "cli", flags)
        document.entry = launch.entry or ""  # an OpenRLHF trainer under another package name reads its own flags
        from grpo_lint.launch.openrlhf_files import loaded_file_problems

        result.problems.extend(loaded_file_problems(flags, unresolved, places, target_for("openrlhf")))
        return _finish_run(Run(launch, document, unresolved, extra))
    version = target_for(launch.framework).version
    flags, unresolved = flag_entries(launch.args)
    given = dict(flags)  # what the launch gives the script's own parser
    reads_training_args = launch.framework == "swift" or (
        launch.framework == "trl" and (launch.entry is not None or (program is not None and program.trains))
    )
    if "deepspeed" in flags and "deepspeed" not in unresolved and reads_training_args:
        result.problems.extend(_deepspeed_file(flags["deepspeed"], launch, places, script, result))
    own_script = launch.framework == "trl" and launch.entry is None
    # The script's own `--config`: the file is read there, and its GRPOConfig call takes what it needs of it.
    own_config = own_script and owns_config_flag(launch, places)
    config_entry, config_path = _config_file(launch, flags, version)
    if config_entry is not None and "config" in unresolved:
        if launch.by_config:  # `--config $1`: which file runs is not known before launch
            result.not_grpo.append(_config_not_known(launch, str(config_entry.value)))
            return None
        if config_entry.key.startswith("-"):
            del flags["config"]  # names a file not known before launch: no argument of the run either
        config_entry = config_path = None
    document = Document(script.path, script.text, "cli", {})
    file_entries: dict[str, Entry] = {}
    if config_entry is not None:
        if config_entry.key.startswith("-"):
            del flags["config"]  # `--config F` names the file; it is not an argument of the run
        if launch.by_config and config_path is not None and find_file(config_path, places) is None:
            return None  # a program known only by `--config F`, and F is not there: nothing shows a GRPO run
        # TRL's own entry points and a script's TrlParser open the file at start-up: a missing one stops the run
        opens = (
            launch.framework == "trl"
            and not own_config
            and (launch.entry is not None or (program is not None and "TrlParser" in (program.parser or "")))
        )
        file_entries = _read_config(config_entry, config_path, places, result, script, launch.command, opens)
        if own_config:
            file_entries = {}  # (read above for its place and its problems: not found, not YAML)
    computed: dict[str, Entry] = {}
    if own_script:
        result.problems.extend(_unrecognized(launch, places))
        through = through_hydra(launch, places, result) or through_argparse(
            launch, places, given, unresolved, result, script
        )
        if through is not None:  # the script's own parser feeds its GRPOConfig(...) call: that call is the run
            flags, unresolved, computed = through
            document.called = True
    flags_win = not (launch.framework == "swift" and version < Version("4.1.0"))
    document.entries = {**file_entries, **flags} if flags_win else {**flags, **file_entries}
    if launch.framework == "trl" and not own_config:
        result.problems.extend(_required_missing(launch, program, document, unresolved, target_for("trl")))
    if file_entries:  # a key the config file gives twice (GRPO007), unless a flag of the command sets it anyway
        named = next(iter(file_entries.values())).key_span.path or ""
        document.duplicates = [d for d in result.duplicates.get(named, ()) if not (flags_win and d[1].key in flags)]
    if launch.by_config and not _is_grpo(document):
        if config_path is not None:
            result.sources.pop(str(resolve_file(config_path, places)), None)
            result.not_grpo.append(f"line {launch.command.line} runs {config_path}, which is not a GRPO config")
        elif "config" in unresolved:  # `--config recipes/$MODEL/config_$TASK.yaml` (open-r1's train.slurm)
            result.not_grpo.append(_config_not_known(launch, unresolved["config"].text))
        return None
    if launch.framework == "swift":
        kind = _swift_rlhf_type(document, unresolved)
        if kind is not None:
            result.not_grpo.append(f"`swift rlhf` with rlhf_type {kind} (line {launch.command.line}) is not GRPO")
            return None
    result.problems.extend(_overwritten(launch, places, document))
    document.launcher = _launcher_world(launch, file_entries, unresolved)
    document.entry = launch.entry or ""
    if launch.framework == "trl" and launch.entry is None:
        document.parser, document.trainer = parser, trainer  # a script of the user's own reads it
        document.program = program
        document.code = str(script_file) if script_file is not None else ""
    run = _finish_run(Run(launch, document, unresolved, extra))
    if computed:  # fields the script computes: their values are not known, and their defaults never apply
        document.unknown_entries.update(computed)
        document.unknown = document.unknown | frozenset(computed)
    if rewritten:  # fields its own config class assigns in __post_init__: the checks there see other values
        _rewritten_by_post_init(document, rewritten)
    return run


def _rewritten_by_post_init(document: Document, rewritten: dict[str, str]) -> None:
    """The settings an argument class of the repository's own assigns in its `__post_init__` (`self.num_generations =
    2` in an evaluation mode): what TRL's checks see is not the value written, so no rule judges it."""
    _not_known(document, rewritten)
    document.unknown = document.unknown | frozenset(rewritten)


# ms-swift's Megatron RLHF (`megatron rlhf`, swift/megatron/argument/rlhf_args.py): `rlhf_type` is a Literal, so
# HfArgumentParser gives it argparse choices: 3.8.x dpo; 3.9.0-3.10.x dpo, kto, rm; grpo from 3.11.0 (gkd from 3.12.0).
_MEGATRON_GRPO_SINCE = Version("3.11.0")


def _megatron_rlhf_type(launch: Launch, target_for: Callable[[str], Target]) -> list[Diagnostic]:
    """`megatron rlhf --rlhf_type grpo` at an ms-swift release whose Megatron RLHF has no GRPO: argparse stops."""
    flags, unresolved = flag_entries(launch.args)
    entry = flags.get("rlhf_type")
    if entry is None or "rlhf_type" in unresolved or str(entry.value).lower() != "grpo":
        return []
    target = target_for("swift")
    if target.uncertain or target.fork is not None or target.version >= _MEGATRON_GRPO_SINCE:
        return []  # a release that is only assumed, or a copy whose arguments are its own: not judged
    choices = "dpo" if target.version < Version("3.9.0") else "dpo, kto, rm"
    return [
        Diagnostic(
            "GRPO006",
            Severity.ERROR,
            f"`megatron rlhf --rlhf_type grpo` is not accepted by {target} ({target.source}): its Megatron RLHF "
            f"takes rlhf_type {choices} only, so argparse stops before training (\"invalid choice: 'grpo'\"). "
            "Megatron GRPO came with ms-swift 3.11.0.",
            "",
            entry.value_span,
            key=entry.key,
            fix="pin ms-swift>=3.11.0, or train with `swift rlhf --rlhf_type grpo`",
        )
    ]


_MAX_CALL_DEPTH = 3  # submit.sh -> pipeline.sh -> rlhf.sh
_BATCH = ("sbatch", "qsub")  # submit a script to a cluster's queue, with the submitter's environment
# sbatch/qsub options that take no value (the others take one, `-p gpu` or `--partition=gpu`)
_BATCH_SWITCHES = frozenset({
    "--exclusive", "--requeue", "--no-requeue", "--parsable", "--wait", "-W", "--hold", "-H", "--quiet", "-Q",
    "--test-only", "--contiguous", "--overcommit", "-O", "--spread-job", "--use-min-nodes", "-v", "--verbose",
    "-V", "-h", "-z",
})  # fmt: skip


def _starts_script(word: Word) -> bool:
    """A word that runs or sources a script: a shell, `source`, `.`, or a script's own path (`./run.sh`)."""
    name = os.path.basename(word.text)
    return name in ("bash", "sh", "source", ".") or ("/" in word.text and word.text.endswith(SHELL_SUFFIXES))


def called_script(words: tuple[Word, ...]) -> tuple[Word, list[Word] | None] | None:
    """The repository script a command runs, with the words it passes as positional arguments (None when it is
    sourced and keeps the caller's): `bash run.sh a b`, `bash -x run.sh`, `source env.sh`, `./scripts/run.sh a`,
    `sbatch -p gpu --gres=gpu:2 job.slurm a`. None for any other command."""
    # (run through a wrapper: `exec bash run.sh`, `env A=1 bash run.sh`, `timeout 2h ./run.sh`)
    words = run_by_wrapper(words, _starts_script)
    if not words:
        return None
    program = os.path.basename(words[0].text)
    if program in ("source", "."):
        return (words[1], None) if len(words) > 1 else None
    index = 1
    if program in ("bash", "sh"):
        while index < len(words) and words[index].text.startswith("-"):
            if words[index].text in ("-c", "-s", "-o", "+o"):
                return None  # a command string or standard input, not a script
            index += 1
    elif program in _BATCH:
        while index < len(words) and words[index].text.startswith("-"):
            option, has_value, _ = words[index].text.partition("=")
            if option == "--wrap":
                return None  # a command string, not a script
            attached = has_value or (not option.startswith("--") and len(option) > 2)  # `--partition=gpu`, `-pgpu`
            index += 1 if attached or option in _BATCH_SWITCHES else 2
    elif "/" in words[0].text and words[0].text.endswith(SHELL_SUFFIXES):
        return words[0], list(words[1:])  # `./scripts/run.sh a b`: run by its own shebang
    else:
        return None
    if index >= len(words):
        return None
    return words[index], list(words[index + 1 :])


def _read_called(
    command: Command,
    places: Places,
    result: ScriptRuns,
    target_for: Callable[[str], Target],
    modules: Any,
    calls: tuple[str, ...],
) -> None:
    """`bash train/rlhf.sh` (or `sh`, `source`, `.`, `./train/rlhf.sh`, `sbatch [options] job.slurm`): a script of
    the repository run with this one's exported variables, read with them when it starts a GRPO run."""
    called = called_script(command.words)
    if called is None:
        return
    script_word, arguments = called
    target = script_word.text
    found: Path | None = None
    if not script_word.known:
        # `bash "$(dirname "$0")/run.sh"`: the script's own folder
        here = beside(target)
        if here is not None and here.endswith(SHELL_SUFFIXES):
            target = str(places.script_dir / here)
        else:
            # `bash "${PROJECT_ROOT}/scripts/base.sh"` with the checkout's folder unknown: the repository's file
            found = in_checkout(target, places)
            if found is None:
                return
    if target.startswith("-") or not target.endswith(SHELL_SUFFIXES):
        return
    found = found or resolve_file(target, places) or in_checkout(target, places)
    if found is None:
        return
    shown = str(found)
    if os.path.abspath(shown) in {os.path.abspath(call) for call in calls}:
        return  # a cycle: a.sh runs b.sh, which runs a.sh
    from grpo_lint.limits import MAX_SCRIPT_BYTES
    from grpo_lint.sources.document import ReadProblem
    from grpo_lint.sources.reading import read_file

    data = read_file(found, MAX_SCRIPT_BYTES, within=places.root)
    if isinstance(data, ReadProblem):
        return
    text = data.decode("utf-8", "replace")
    with_env = read_script(text, shown, places.root, target_for, modules, dict(command.env), calls, arguments)
    if not any(launch.role == "train" for launch in with_env.launches) and not with_env.called:
        return
    if script_word is command.words[0] and (stored := _not_executable(found, places.root)) is not None:
        result.problems.append(_permission_denied(script_word, found, places.root, stored))
    alone = read_script(text, shown, places.root, target_for, modules, None, calls)
    result.called.append((command, with_env, alone))


def _not_executable(found: Path, root: Path) -> str | None:
    """How a script that a command runs by its own shebang (`./run.sh`, `exec "$(dirname "$0")/run.sh"`) is stored
    without the executable bit: "git stores it as 100644" (git's index decides inside a work tree: a checkout
    makes the file as git stores it), "its file mode is 644" outside one; None when it may be executed."""
    try:
        mode = found.stat().st_mode
    except OSError:
        return None
    if mode & 0o111:
        return None
    from grpo_lint.workspace.git import index_mode

    try:
        relative = found.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    stored = index_mode(root, relative)
    if stored is None:
        return f"its file mode is {mode & 0o777:o}"
    return None if stored == "100755" else f"git stores it as {stored}"


def _unrecognized(launch: Launch, places: Places) -> list[Diagnostic]:
    """GRPO002: a flag the launched script's own argparse parser does not define, where the parser is shown whole in
    the script (built and read with parse_args() there, every option literal, none handed in from elsewhere):
    argparse stops at start-up with "unrecognized arguments". A unique prefix of an option is that option (argparse's
    allow_abbrev)."""
    modules = places.modules
    found = resolve_file(launch.script, places) if launch.script is not None and modules is not None else None
    relative = modules.relative(found) if found is not None else None
    code = modules.code(relative) if relative is not None else None
    options = code.strict_options if code is not None else None
    if not options:
        return []
    from grpo_lint.frameworks.fields import closest

    problems: list[Diagnostic] = []
    longs = [o for o in options if o.startswith("--")]
    for word in launch.args:
        flag = word.text.partition("=")[0]
        if not word.known or not _is_flag(flag) or flag in ("-h", "--help", "--"):
            continue
        if flag in options or (flag.startswith("--") and any(o.startswith(flag) for o in longs)):
            continue
        near = closest(flag, longs)
        problems.append(
            Diagnostic(
                "GRPO002",
                Severity.ERROR,
                f"`{flag}` is no option of {relative}'s argparse parser (its {len(options)} options are all defined "
                f'there){f"; did you mean `{near}`?" if near else ""}: argparse stops at start-up: "error: '
                f'unrecognized arguments: {flag}".',
                "",
                word.span,
                key=flag,
                fix=f"`{near}`" if near else f"delete `{flag}` (and its value)",
            )
        )
    return problems


def _permission_denied(word: Word, found: Path, root: Path, stored: str) -> Diagnostic:
    shown = found.resolve().relative_to(root.resolve()).as_posix()
    return Diagnostic(
        "GRPO508",
        Severity.ERROR,
        f"`{word.text}` runs {shown} by its own shebang, but the file is not executable ({stored}): the shell "
        'stops with "Permission denied" (exit status 126) and the GRPO run it starts never begins.',
        "",
        word.span,
        key=word.text,
        fix=f"`chmod +x {shown}` and `git update-index --chmod=+x {shown}` (the mode a clone gets), or start it with "
        "`bash` (`bash <the same path> ...`), which needs no executable bit",
    )


def _working_dirs(
    commands: list[Command], places: Places, shells: tuple[frozenset[int], frozenset[int]] | None = None
) -> Iterator[tuple[Command, Places]]:
    """Each command with the places its paths are looked up in: after `cd DIR` (a relative folder
    written out), DIR first. A `cd` to a folder that is not written out (`cd $HOME`, `cd "$(dirname $0)"`,
    `cd -`, an absolute path) leaves where the script runs unknown again: the usual places."""
    here = start = places
    starts, moves = shells or (frozenset(), frozenset())
    line = 0
    for command in sorted(commands, key=lambda c: c.line):
        words = command.words
        if command.line != line and (command.line in starts or command.line in moves):
            here = start  # a notebook's `!` line (a shell of its own) or `%cd`: from where the notebook is
        line = command.line
        if words and words[0].text in ("cd", "pushd", "popd"):
            target = words[1] if len(words) == 2 and words[0].text != "popd" else None
            written = (
                target is not None
                and target.known
                and target.text != "-"
                and not os.path.isabs(target.text)
                and not target.text.startswith("~")  # (a home folder: not the repository's)
            )
            if written and target is not None:
                here = here.within(target.text)
            else:  # where it runs is not shown, unless it is the script's own folder (`cd "$(dirname "$0")"`)
                own = target is not None and names_own_folder(target.text)
                # an absolute folder (`cd /home/me/checkout`) is kept: a script named under it may be the repository's
                absolute = target.text if target is not None and target.known and os.path.isabs(target.text) else ""
                # its written tail may name a folder of the checkout (`cd $ROOT/exgrpo/verl/`): looked in first, and
                # the copy of a framework there is the one that runs; what is not found there stays not shown
                found = _checkout_folder(target.text, places) if target is not None and not own else None
                tail, sure = found if found is not None else (None, False)
                if own:
                    here = places
                elif sure:  # `cd ~/work/CODE-GRPO/trl` in CODE-GRPO/: the run starts in the checkout's trl/
                    here = places._replace(workdir=tail)
                else:
                    written = target.text if target is not None else ""
                    here = places._replace(lost=True, lost_dir=absolute, workdir=tail, lost_to=written)
            if command.line in moves:
                start = here  # `%cd DIR`: the notebook's own folder, where its later shells start
            continue
        yield command, here


def _checkout_folder(written: str, places: Places) -> tuple[str, bool] | None:
    """The repository folder that the written tail of a `cd` path names, after a part not shown (`$ROOT/exgrpo/verl/`,
    `~/work/project/trl`): the longest tail that is a folder below the script's folder or one above it up to the root
    (commands.written_tail), as a path relative to the script's folder, and whether that is sure: the part before the
    tail is the checkout's own name (`.../CODE-GRPO/trl` in a checkout named CODE-GRPO). None when no tail is."""
    above = (places.script_dir, *places.script_dir.parents)
    bases = above[: above.index(places.root) + 1] if places.root in above else above[:1]
    found = written_tail(written, bases, places.root, folder=True)
    if found is None:
        return None
    folder, base, cut = found
    before = written.replace("\\", "/").split("/")[cut - 1]
    sure = base == places.root and before == places.root.resolve().name
    return os.path.relpath(folder, places.script_dir), sure


def _not_known(document: Document, keys: Iterable[str]) -> None:
    """The keys' values moved out of the entries: their names are still judged, their values by no rule."""
    for key in keys:
        entry = document.entries.pop(key, None)
        if entry is not None:
            document.unknown_entries[key] = Entry(entry.key, None, entry.key_span, entry.value_span)


def _finish_run(run: Run) -> Run:
    """Values that depend on unknown variables are left out (the checks use the default) and listed
    in `document.unknown`, so that no rule judges a value nobody knows."""
    _not_known(run.document, run.unresolved)
    run.document.unknown = frozenset(run.unresolved)
    if run.launch.command.words:
        run.document.start = run.launch.command.words[0].span
    return run


def _is_grpo(document: Document) -> bool:
    from grpo_lint.frameworks.detect import detect

    return detect(document).framework is not None


def _swift_rlhf_type(document: Document, unresolved: dict[str, Word]) -> str | None:
    """The rlhf_type of a `swift rlhf` run when it is not GRPO. Without rlhf_type ms-swift runs dpo,
    its default; GRPO arguments then still show what the user meant, so the run is linted as GRPO."""
    from grpo_lint.frameworks.detect import GRPO_KEYS

    if "rlhf_type" in unresolved:
        return None
    entry = document.entries.get("rlhf_type")
    if entry is None:
        return None if GRPO_KEYS & set(document.entries) else "dpo (the default)"
    value = str(entry.value).lower()
    return None if value == "grpo" else value


def _overwritten(launch: Launch, places: Places, document: Document) -> list[Diagnostic]:
    """A setting the run writes that the training script replaces right after parsing (GRPO012)."""
    if launch.script is None or places.modules is None or launch.framework not in ("trl", "swift"):
        return []
    found = resolve_file(launch.script, places)
    if found is None:
        return []
    replaced = places.modules.overwritten(found)
    program = places.modules.program(found)
    where = program.parser.split(" ", 1)[0] if program is not None and program.parser else str(found)
    problems: list[Diagnostic] = []
    for name, value, line in replaced:
        entry = document.entries.get(name)
        if entry is None or entry.value == value:
            continue
        problems.append(
            Diagnostic(
                "GRPO012",
                Severity.WARNING,
                f"`{entry.key}: {entry.value}` is not used: the training script sets `{name} = {value!r}` right after "
                f"parsing its arguments ({where.rpartition(':')[0] or where}:{line}), so every run gets {value!r}.",
                entry.key_span.path or "",
                entry.key_span,
                key=entry.key,
                fix=f"delete `{entry.key}`, or remove the assignment at line {line} of the script",
            )
        )
    return problems


def _script_facts(
    found: Path | None, places: Places
) -> tuple[frozenset[str], str | None, str, dict[str, str], Program | None]:
    """What the Python script a launch runs (`found`, when it is in the repository) shows: the keys it adds to the
    framework's (its own argument classes, its argparse flags), its parser (None when it is not known,
    so that no key is called unknown), a trainer of its own that reads the config its own way, the fields its
    own config class assigns in `__post_init__`, and the script as read."""
    if found is None:
        return frozenset(), None, "", {}, None
    program = places.modules.program(found) if places.modules is not None else None
    if program is None:
        from grpo_lint.workspace.arguments import script_arguments

        flags = script_arguments(found)
        return (frozenset(flags) if flags else frozenset()), None, "", {}, None
    parser = program.parser if program.keys_known and not program.keeps_unknown else None
    if program.parser is None and program.flags:
        parser = None  # argparse flags beside other parsing: which keys it accepts is not fully shown
    trainer = program.own_trainer
    if not trainer and program.keys_known and not program.trl_config and program.trains:
        trainer = f"the argument classes of {program.parser} (no TRL GRPOConfig among them)"
    return program.own_keys | program.flags, parser, trainer, dict(program.rewritten), program


def _verl_document(
    launch: Launch,
    script: Script,
    places: Places,
    result: ScriptRuns,
    target_for: Callable[[str], Target] | None = None,
) -> tuple[Document, dict[str, Word]]:
    """The overrides, on top of the user's own base config when --config-path/--config-name name one, or
    of the config tree the repository's own entry point composes."""
    from grpo_lint.sources.hydra_overrides import HydraContext, flatten_entries, parse_overrides

    overrides = parse_overrides(launch.args)
    name = overrides.config_name
    stem = name[: -len(".yaml")] if name and name.endswith(".yaml") else name
    document = Document(script.path, script.text, "hydra", {})
    opaque = any(w.unknown and w.text not in ("$@", "$*") for w in overrides.others)
    context = HydraContext(
        overrides.prefixes, stem, frozenset(), None, None, opaque=opaque, entry=launch.entry,
        shadowed=tuple(overrides.shadowed), defaults_unknown=opaque,
    )  # fmt: skip
    if launch.hydra is not None:
        from grpo_lint.launch.compose_entry import compose_entry

        composed = compose_entry(launch, overrides, places, context, result, target_for)
        # verl's own main_ppo in a copy whose tree could not be followed: read as verl's main_ppo is
        context = composed if composed.schema is not None or launch.entry is not None else context
    if context.schema is None and stem and stem not in ("ppo_trainer", "ppo_megatron_trainer"):
        folder = overrides.config_path or "."
        if "$" in folder or "`" in folder:  # `--config-path="$PWD/configs"`: below the folder the run starts in
            from grpo_lint.launch.compose_entry import config_path_word, run_dir_path

            shown = run_dir_path(config_path_word(launch), places)
            folder = str(shown) if shown is not None else ""
        named = f"{folder}/{stem}.yaml"
        found = None
        entry = _entry_folder(launch, places) if folder and not os.path.isabs(folder) else None
        if entry is not None:  # a relative --config-path is Hydra's from the entry file's folder
            found = find_file(str(entry / named), places)
        if found is None:
            found = find_file(named, places) if folder else None
        if found is None:
            # The base config is not in the repository or not known before launch: its values, not verl's
            # defaults, are what the run starts from, so no verdict rests on a default.
            why = (
                f"--config-path {overrides.config_path} is not known before launch"
                if not folder
                else f"the base config {named} is not in the repository"
            )
            context = context._replace(opaque=True, defaults_unknown=True, not_composed=context.not_composed or why)
        elif isinstance(found, Outside):
            flag = next((w for w in launch.args if w.text.startswith(("--config-path", "--config-name"))), None)
            span = flag.span if flag is not None else (launch.args[0].span if launch.args else Span.point(1, 1))
            result.problems.append(_outside(named, found, places, span))
        elif found is not None:
            from grpo_lint.sources import yaml_reader

            parsed = yaml_reader.read(found, str(found))
            if isinstance(parsed, Document):
                base = {k: stamp(v, str(found)) for k, v in flatten_entries(parsed.entries).items()}
                base = {k: v for k, v in base.items() if not k.startswith(("defaults", "hydra."))}
                result.sources[str(found)] = parsed.text
                flavour = "megatron" if "ppo_megatron_trainer" in str(parsed.values.get("defaults")) else "fsdp"
                if (
                    target_for is not None
                ):  # (its own `data/legacy_data.yaml` is the run's `data`: Hydra finds it first)
                    base = {**_shadowing(found.parent, flavour, target_for("verl"), result), **base}
                document.entries.update(base)
                context = context._replace(file_keys=frozenset(base), file_path=str(found), flavour=flavour)
    document.entries.update(overrides.entries)
    # Hydra rejects an unknown key whatever its value: keys with unknown values are still checked.
    unresolved = tuple(
        (path, overrides.entries[path])
        for path in overrides.unresolved
        if path in overrides.entries and _literal_key(script, overrides.entries[path])
    )
    document.hydra = context._replace(unresolved=unresolved)
    result.problems.extend(_grammar_problems(overrides.invalid, script))
    result.problems.extend(_missing_files(launch, overrides, places))
    result.problems.extend(_failed_asserts(launch, overrides, document.hydra))
    if not launch.unseen_copy:  # (the code that runs is another checkout's: what the repository reads says nothing)
        result.problems.extend(_unread_keys(overrides, places, document.hydra, target_for))
    return document, overrides.unresolved


def _entry_folder(launch: Launch, places: Places) -> Path | None:
    """The folder of the repository file a `python -m pkg.main` launch runs, or None when it is not the repository's."""
    modules = places.modules
    if modules is None or not launch.entry or "/" in launch.entry or launch.entry.endswith(".py"):
        return None
    found = modules.module_file(launch.entry, 0, "")
    return (places.root / found).parent if found is not None else None


def _shadowing(folder: Path, flavour: str, target: Target, result: ScriptRuns) -> dict[str, Entry]:
    """The entries of the group options verl's trainer config selects (`data@data: legacy_data`) that the run's own
    config folder holds under the same name: Hydra looks each up along the search path, that folder first."""
    from grpo_lint.frameworks.verl.fields import reference_selects
    from grpo_lint.sources import yaml_reader
    from grpo_lint.sources.hydra_overrides import flatten_entries

    entries: dict[str, Entry] = {}
    for group, package, option in reference_selects(flavour, target.version) if target.fork is None else ():
        path = folder / group / f"{option}.yaml"
        if not path.is_file():
            continue
        parsed = yaml_reader.read(path, str(path))
        if isinstance(parsed, Document):
            result.sources[str(path)] = parsed.text
            for key, entry in flatten_entries(parsed.entries).items():
                if not key.startswith(("defaults", "hydra.")):
                    entries[f"{package}.{key}"] = stamp(entry, str(path))
    return entries


# Sections whose keys are handed on whole to another program (`engine_kwargs.vllm.*`, `ray_init.*`,
# `override_config.*`, `model.lora.*` to PEFT's or Megatron-Bridge's LoRA class, whose fields read them): no code of
# the repository names them, and they still act.
_PASSED_ON = (
    "kwargs", "override", "engine", "extra", "custom", "config", "ray", "env", "args", "hydra", "optim", "lora", "peft",
)  # fmt: skip


# vLLM's SamplingParams fields of the long, snake-case kind the check above looks at: verl's vLLM rollout passes any key
# of the rollout section that SamplingParams has (`for k in config.keys(): if hasattr(SamplingParams(), str(k))`),
# so such a key is read though no Python file names it.
_SAMPLING_PARAMS = frozenset({
    "presence_penalty", "frequency_penalty", "repetition_penalty", "stop_token_ids", "include_stop_str_in_output",
    "skip_special_tokens", "spaces_between_special_tokens", "prompt_logprobs", "logits_processors",
    "truncate_prompt_tokens", "allowed_token_ids", "bad_words", "min_tokens", "max_tokens", "ignore_eos",
    "length_penalty", "early_stopping", "use_beam_search", "logit_bias", "output_kind", "guided_decoding",
    "extra_args", "best_of",
})  # fmt: skip

# Keys every verl trainer reads by name: a repository whose Python names none of them does not hold the code that
# reads its config.
_READ_EVERYWHERE = frozenset({b"train_batch_size", b"ppo_mini_batch_size", b"save_freq", b"test_freq"})


def _copies_named(places: Places, package: str) -> str:
    """The repository's copies of verl as a message names them: every copy where it holds several (the run may
    compose another copy's tree than the first one's)."""
    from grpo_lint.workspace.forks import marker

    copies = places.modules.copies_of(marker("verl")) if places.modules is not None else []
    if len(copies) < 2:
        return f"the copy of verl in {package}/"
    return "its copies of verl in " + ", ".join(f"{c + '/' if c else ''}verl/" for c in copies)


def _unread_keys(
    overrides: Any, places: Places, context: Any, target_for: Callable[[str], Target] | None
) -> list[Diagnostic]:
    """GRPO014: an override of a key the repository's copy of verl has in its config, that no Python file of the
    repository names: the copy's code never reads it, so the value has no effect (a key kept from an older
    design, or one the fork stopped using)."""
    target = target_for("verl") if target_for is not None else None
    if target is None or target.fork is None or context.schema is None or places.modules is None:
        return []
    if not places.modules.complete:
        return []  # a file that reads the key may be one the walk did not reach
    names: frozenset[bytes] | None = None
    interpolations: str | None = None  # every `${...}` value of the tree, joined: what other keys interpolate
    found: list[Diagnostic] = []
    for path, entry in overrides.entries.items():
        prefix = overrides.prefixes.get(path, "")
        added = prefix == "+" and path not in context.schema  # `+a.b=1`: a key the tree does not have, added
        if not added and (prefix not in ("", "++") or path not in context.schema):
            continue
        if context.chooses_group(entry):
            continue  # it chooses a config group's option (`model_engine=veomni`): read by Hydra, not by the code
        sections, _, leaf = path.rpartition(".")
        if len(leaf) < 8 or "_" not in leaf or any(word in sections for word in _PASSED_ON):
            continue
        if "rollout" in sections and leaf in _SAMPLING_PARAMS:
            continue  # verl's vLLM rollout hands every key of its section that SamplingParams has to vLLM
        if interpolations is None:
            interpolations = "\n".join(v for v in context.schema.values() if isinstance(v, str) and "${" in v)
        if leaf in interpolations:
            continue  # another key interpolates it (`${algorithm.x}`)
        if names is None:
            names = places.modules.identifiers()
            if not _READ_EVERYWHERE.issubset(names):
                return []  # the code that reads the config is not the repository's (verl installed beside it)
        if leaf.encode() in names:
            continue
        what = (
            f"`+{path}` adds a key that {context.composed_from or 'the config the copy composes'} does not have"
            if added
            else f"`{path}` is a key of {context.composed_from or 'the config the copy composes'}"
        )
        found.append(
            Diagnostic(
                "GRPO014",
                Severity.WARNING,
                f"{what}, but no Python file of the repository ({_copies_named(places, target.fork.package)} "
                f"included) names `{leaf}`: the code that runs never reads it, so the value set here has no effect.",
                "",
                entry.key_span,
                key=path,
                fix=f"delete `{entry.key}`, or read `{leaf}` where it is meant to act",
            )
        )
    return found


def _failed_asserts(launch: Launch, overrides: Any, context: Any) -> list[Diagnostic]:
    """An `assert config.a.b == X` of the entry point that this run's value of `a.b` fails (the composed tree's
    value, or the override's): the entry stops with AssertionError before training."""
    from grpo_lint.launch.entries import assertion_holds

    entry = launch.hydra
    if entry is None or not entry.asserts or context.schema is None:
        return []
    found: list[Diagnostic] = []
    for path, operator, expected, line, written in entry.asserts:
        override = overrides.entries.get(path)
        if path in overrides.unresolved:
            continue
        if override is not None:
            value = override.value
        elif path in context.schema:
            value = context.schema[path]
        else:
            continue
        if isinstance(value, str) and "${" in value:
            continue  # an interpolation: its value is known when verl runs
        if assertion_holds(operator, value, expected) is not False:
            continue
        where = override.value_span if override is not None else launch.command.words[0].span
        source = "" if override is not None else f" (the value of {context.composed_from})"
        if written.endswith("(else: raise)"):
            what = (
                f"{entry.file}:{line} accepts `{path}` only as {', '.join(repr(v) for v in expected)} and raises "
                f"otherwise, but this run gives {value!r}{source}: the entry point stops before training."
            )
        else:
            what = (
                f"{entry.file}:{line} asserts `{written}`, but this run gives `{path}` {value!r}{source}: the entry "
                "point stops with AssertionError before training."
            )
        found.append(
            Diagnostic(
                "GRPO508",
                Severity.ERROR,
                what,
                "",
                where,
                key=path,
                fix=f"give `{path}` a value the entry point accepts ({operator} {expected!r})",
            )
        )
    return found


# Keys whose value is a file verl loads at start-up (verl/trainer/ppo/reward.py get_custom_reward_fn:
# "Reward function file '...' not found."; verl/utils/import_utils.py load_extern_type: "Custom type file '...'
# not found."), and, with multi_turn on, the tool and interaction configs of the rollout.
_FILE_KEYS = ("custom_reward_function.path", "data.custom_cls.path")


_REQUIRED_SINCE_OPTIONAL = Version("0.18.0")  # TRL's ScriptArguments.dataset_name: no default in 0.14.0-0.17.x


def _required_missing(
    launch: Launch, program: Program | None, document: Document, unresolved: dict[str, Word], target: Target
) -> list[Diagnostic]:
    """The flags HfArgumentParser requires (a field of the parser's classes with no default) that neither the command
    nor its `--config` file gives: the parser stops at start-up. TRL's ScriptArguments.dataset_name has none before
    0.18.0 (trl/scripts/utils.py at v0.14.0-v0.17.0), as TRL's grpo script and `trl grpo` parse it, and a script's
    own class with no default. Not judged where the command's other words may add flags (`$ARGS`, `"$@"`)."""
    if any(w.unknown and not w.text.startswith("-") for w in launch.args) or unresolved:
        return []
    needed: set[str] = set(program.required) if program is not None and program.parser else set()
    takes_trl = launch.entry is not None or (program is not None and program.trl_dataset_name)
    if takes_trl and not target.uncertain and not target.unknown and target.version < _REQUIRED_SINCE_OPTIONAL:
        needed.add("dataset_name")
    given = set(document.entries) | set(document.unknown)
    missing = sorted(name for name in needed if name not in given)
    if not missing:
        return []
    flags = ", ".join(f"--{name}" for name in missing)
    where = program.parser if program is not None and program.parser else "TRL's grpo script"
    return [
        Diagnostic(
            "GRPO010",
            Severity.ERROR,
            f"{flags} {'is' if len(missing) == 1 else 'are'} required by {where} (a field with no default"
            + (f", TRL {target.version}'s ScriptArguments.dataset_name" if "dataset_name" in missing else "")
            + f"), and neither the command nor its config gives {'it' if len(missing) == 1 else 'them'}: "
            f'HfArgumentParser stops at start-up: "error: the following arguments are required: {flags}".',
            "",
            Span(launch.command.line, 1, launch.command.line, 1),
            key=missing[0],
            fix=f"give {flags} on the command line or in the config file",
        )
    ]


def _does_not_compile(launch: Launch, found: Path | None, places: Places) -> list[Diagnostic]:
    """GRPO508: the repository script a launch runs (`found`), or a module of the repository it imports at once (its
    top-level imports, and theirs), that Python cannot compile: the run stops before any setting is read."""
    modules = places.modules
    if launch.script is None or found is None or modules is None or found.suffix != ".py":
        return []
    relative = modules.relative(found)
    broken = modules.broken_import(relative) if relative else None
    if broken is None:
        return []
    chain, message, line = broken
    if len(chain) == 1:
        how = "does not compile"
    elif len(chain) <= 3:
        how = "imports at once " + " -> ".join(f"`{c}`" for c in chain[1:]) + ", which does not compile"
    else:
        how = f"imports at once, through `{chain[1]}` and {len(chain) - 3} more, `{chain[-1]}`, which does not compile"
    return [
        Diagnostic(
            "GRPO508",
            Severity.ERROR,
            f"`{launch.script}` {how} ({chain[-1]}:{line}: {message}): Python stops before the run starts.",
            "",
            launch.command.words[0].span if launch.command.words else Span.point(launch.command.line, 1),
            fix=f"fix {chain[-1]} at line {line}",
        )
    ]


def _deepspeed_file(
    entry: Entry, launch: Launch, places: Places, script: Script, result: ScriptRuns
) -> list[Diagnostic]:
    """`--deepspeed ds.json` of a run whose TrainingArguments take it: `__post_init__` builds accelerate's
    HfDeepSpeedConfig, which opens the path as JSON at start-up (transformers 4.x-5.x, accelerate utils/deepspeed.py).
    A path in no folder the run may start in, or a file that is not JSON (an accelerate YAML given in its place), stops
    the run. ms-swift's own names (`zero2`, `zero3_offload`) are not paths."""
    written = entry.value
    if not isinstance(written, str) or written.startswith(("{", "~", "$", "..")) or os.path.isabs(written):
        return []  # (a file above the repository is not read: _find_config would say so as of a config)
    if launch.framework == "swift" and "/" not in written and not written.endswith(".json"):
        return []
    found = _find_config(written, entry.value_span, places, result, script, launch.command)
    if found == _MISSING and visibly_missing(written, places):
        message = (
            f"the DeepSpeed config {written} is in no folder the run may start in: TrainingArguments opens it at "
            'start-up and stops: "ValueError: Expected a string path to an existing deepspeed config, or a '
            f'dictionary, or a base64 encoded string. Received: {written}".'
        )
    elif isinstance(found, Path) and found.suffix in (".yaml", ".yml") and not _json_text(found):
        message = (
            f"the DeepSpeed config {written} is YAML (an accelerate config?): TrainingArguments reads `--deepspeed` "
            "as JSON at start-up and stops with json.JSONDecodeError."
        )
    else:
        return []
    return [
        Diagnostic(
            "GRPO001",
            Severity.ERROR,
            message,
            "",
            entry.value_span,
            key="deepspeed",
            fix="name a DeepSpeed JSON file of the repository (a path from where the script is run); an accelerate "
            "config goes to `accelerate launch --config_file`",
        )
    ]


def _json_text(path: Path) -> bool:
    """Whether a small file parses as JSON (which is also YAML); a file that cannot be read is not judged."""
    import json

    from grpo_lint.sources.reading import read_file

    data = read_file(path, 1 << 20)
    if isinstance(data, ReadProblem):
        return True
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def visibly_missing(written: str, places: Places) -> bool:
    """Whether the repository shows that a relative path (`recipe/x/reward.py`, `$(pwd)/recipe/...`) is missing:
    its top folder is there from some start and the file is not; and no start holds it with its leading folders
    dropped (a repository checked out as a folder of another project, as verl-recipe is verl's `recipe/`)."""
    from grpo_lint.launch.compose_entry import starts

    parts = [p for p in written.split("/") if p not in ("", ".")]
    if parts and parts[0].startswith("$"):
        parts = parts[1:]
    if len(parts) < 2:
        return False
    bases = starts(places)
    if not any((base / parts[0]).is_dir() for base in bases):
        return False  # a folder the repository does not hold (a submodule not checked out, made at run time)
    modules = places.modules
    if modules is not None and any(modules.in_submodule(base / "/".join(parts)) for base in bases):
        return False  # a submodule's folder (`recipe`, verl's verl-recipe): empty where it is not checked out
    return not any((base / "/".join(parts[cut:])).exists() for base in bases for cut in range(len(parts)))


_MULTI_TURN_FILE_KEYS = ("multi_turn.tool_config_path", "multi_turn.interaction_config_path")
_LOADED_SUFFIXES = (".py", ".yaml", ".yml", ".json")


def _missing_files(launch: Launch, overrides: Any, places: Places) -> list[Diagnostic]:
    """A file an override names for verl to load at start-up that is in no folder the run may start in."""
    from grpo_lint.launch.compose_entry import run_dir_path

    multi_turn = any(p.endswith("multi_turn.enable") and e.value is True for p, e in overrides.entries.items())
    found: list[Diagnostic] = []
    for path, entry in overrides.entries.items():
        if not (path.endswith(_FILE_KEYS) or (multi_turn and path.endswith(_MULTI_TURN_FILE_KEYS))):
            continue
        written = str(entry.value)
        if path in overrides.unresolved:
            # `key=$(pwd)/recipe/x/reward.py`: below the folder the run starts in
            at = (entry.key_span.line, entry.key_span.column)
            word = next((w for w in launch.args if (w.span.line, w.span.column) == at), None)
            target = run_dir_path(word, places) if word is not None else None
            if target is None or target.exists():
                continue
        elif not isinstance(entry.value, str) or os.path.isabs(written) or "$" in written or ".." in written:
            continue
        if not written.endswith(_LOADED_SUFFIXES) or not visibly_missing(written, places):
            continue
        found.append(
            Diagnostic(
                "GRPO508",
                Severity.ERROR,
                f"`{entry.key}` names {written}, which is in no folder the run may start in (the script's own up "
                "to the repository root): verl stops at start-up with FileNotFoundError before training.",
                "",
                entry.value_span,
                key=entry.key,
                fix="name the file as it is in the repository (a path from where the script is run), or restore it",
            )
        )
    return found


def _literal_key(script: Script, entry: Entry) -> bool:
    """Whether the script writes the override's key itself (`key=$VALUE`), rather than the whole
    override coming from a variable that may hold anything on the path that runs."""
    span = entry.key_span
    return script.written(span).lstrip("+~") == entry.key.lstrip("+~")


def _grammar_problems(invalid: list[tuple[Word, str, int]], script: Script) -> list[Diagnostic]:
    """Words Hydra cannot parse as overrides: it stops before verl starts (OverrideParseException)."""
    from grpo_lint.sources.hydra_grammar import TOO_DEEP

    found: list[Diagnostic] = []
    for word, message, offset in invalid:
        line, column = word.span.line, word.span.column
        at = word.span  # the whole word, unless it is written as Hydra reads it (no quotes to shift columns)
        if script.written(word.span) == word.text:
            at = Span(line, column + offset, line, column + offset + 1)
        if message == TOO_DEEP:  # a bound of grpo-lint, not an error of Hydra's
            found.append(Diagnostic("GRPO001", Severity.INFO, f"`{word.text}`: {message}", "", at))
            continue
        escaped = script.written(word.span).startswith(("\\ ", "\\\t"))
        why = (
            " The `\\` before it escapes the blank after it, not the line's end: the blank is a word of its own and"
            " the line does not continue (a `#` right after the blank is part of that word, not a comment)."
            if escaped
            else ""
        )
        found.append(
            Diagnostic(
                "GRPO001",
                Severity.ERROR,
                f"Hydra cannot parse the override `{word.text}`: {message}. verl stops before it starts "
                f"(hydra.errors.OverrideParseException).{why}",
                "",
                at,
                fix="end the line with the `\\` (the comment on a line of its own)"
                if escaped
                else "quote the value for Hydra (key='value'), or remove the stray characters",
            )
        )
    return found


def _launcher_world(launch: Launch, file_entries: dict[str, Entry], unresolved: dict[str, Word]) -> Setting | None:
    if launch.world is not None:
        if launch.framework == "swift" and launch.world.key is None and "ENV" in file_entries:
            return None  # no NPROC_PER_NODE in the shell: the config's ENV block decides (ms-swift >= 4.3)
        return launch.world
    if launch.world_unknown:
        return Setting(1, None, launch.command.words[0].span, f"assumed: {launch.world_unknown}")
    return None


class Bare(str):
    """The value of a flag written with none (`--bf16`, or `--dataset_name $EMPTY` whose empty variable vanished):
    "true" for a switch, and no value at all for an argument that takes one (argparse: "expected one argument")."""

    __slots__ = ()


BARE = Bare("true")


def flag_entries(words: tuple[Word, ...]) -> tuple[dict[str, Entry], dict[str, Word]]:
    """`--name value ...` / `--name=value` / `--switch` as entries keyed by the argument name.

    The entry keeps the flag as the user wrote it (`--num_generations`) for messages. Values whose
    variables are unknown are returned separately: they cannot be checked.
    """
    entries: dict[str, Entry] = {}
    unresolved: dict[str, Word] = {}
    index, count = 0, len(words)
    while index < count:
        word = words[index]
        index += 1
        if not _is_flag(word.text):
            continue
        flag, equals, inline = word.text.partition("=")
        name = flag.lstrip("-").replace("-", "_")
        span = word.span
        flag_span = Span(span.line, span.column, span.line, span.column + len(flag), None)
        values: tuple[Word, ...]
        if equals:
            start = span.column + len(flag) + 1
            values = (word._replace(text=inline, span=Span(span.line, start, span.end_line, span.end_column, None)),)
        else:
            first = index
            while index < count and not _is_flag(words[index].text):
                index += 1
            values = words[first:index]
        for value_word in values:
            if value_word.unknown:
                unresolved[name] = value_word
                break
        if not values:
            entries[name] = Entry(flag, BARE, flag_span, flag_span)
            continue
        value_span = values[0].span
        if len(values) == 1:
            text = values[0].text
            entry = Entry(flag, _json_or_text(text) if text.startswith("{") else text, flag_span, value_span)
        else:
            entry = Entry(flag, [v.text for v in values], flag_span, value_span)
            entry.item_spans = [v.span for v in values]
        entries[name] = entry
    return entries, unresolved


def _is_flag(text: str) -> bool:
    if not text.startswith("-") or text == "-":
        return False
    if text[1] not in "0123456789.iInN ":  # (what float() reads after a `-`: digits, `.5`, inf, nan)
        return True
    try:
        float(text)
    except ValueError:
        return True
    return False  # a negative number is a value (`--top_k -1`)


def _json_or_text(text: str) -> Any:
    import json

    from grpo_lint.sources.numbers import integer

    try:
        return json.loads(text, parse_int=integer)
    except (ValueError, RecursionError):
        return text


def _config_not_known(launch: Launch, written: str) -> str:
    return (
        f"the command of line {launch.command.line} names its config as {written}, a file known only at launch: "
        "which run it makes is not shown"
    )


def _config_file(launch: Launch, flags: dict[str, Entry], version: Version) -> tuple[Entry | None, str | None]:
    """The config file a command names: TRL `--config F`; ms-swift `swift rlhf F` (>= 4.1) or `--config F`."""
    entry = flags.get("config")
    takes_config = launch.framework == "trl" or Version("3.10.0") <= version < Version("4.1.0")
    if entry is not None and isinstance(entry.value, str) and takes_config:
        return entry, entry.value
    if launch.framework == "swift" and launch.args and version >= Version("4.1.0"):
        first = launch.args[0]
        if first.known and first.text.lower().endswith(_CONFIG_SUFFIXES):
            return Entry(first.text, first.text, first.span, first.span), first.text
    return None, None


def _read_config(
    entry: Entry,
    config: str | None,
    places: Places,
    result: ScriptRuns,
    script: Script,
    command: Command,
    opens: bool = False,
) -> dict[str, Entry]:
    """The entries of the config file a command names. `opens`: the program that reads the flags opens the file at
    start-up (TRL's TrlParser: `open(config_path)`), so a file that is not there stops the run."""
    if config is None:
        return {}
    written = written_config(script, config, command.line)
    if written is not None:  # the script writes the file from a here-document before it runs: that is the config
        if isinstance(written, str):
            return {}  # (its content is known only when the script runs)
        return dict(written.entries)
    path = _find_config(config, entry.value_span, places, result, script, command)
    if path == _MISSING:
        where = "looked from the current directory, the script's folder and its parents"
        result.problems.append(
            Diagnostic(
                "GRPO001",
                Severity.ERROR,
                f"the config file {config} named here is in no folder the run may start in ({where}): TrlParser "
                'opens it at start-up and stops: "FileNotFoundError: [Errno 2] No such file or directory".',
                "",
                entry.value_span,
                fix="name the file as it is in the repository (a path from where the script is run)",
            )
            if opens
            else Diagnostic(
                "GRPO001",
                Severity.WARNING,
                f"the config file {config} named here was not found ({where}); only the flags are checked.",
                "",
                entry.value_span,
            )
        )
    if not isinstance(path, Path):
        return {}
    return _config_entries(path, config, entry.value_span, result) or {}


_MISSING = "missing"  # (a config file the repository shows is not there)


def _find_config(
    written: str,
    span: Span,
    places: Places,
    result: ScriptRuns,
    script: Script,
    command: Command,
    by_tail: bool = False,
) -> Path | str | None:
    """The repository file a launch names as its config; _MISSING when the repository shows it is not there; None when
    that is not shown (made by the script, after a `cd` not shown) or it lies outside the repository (said here).
    `by_tail`: a path of another machine's checkout (`/home/me/EasyR1/examples/config.yaml`) is looked up by its
    tail, and is never missing."""
    path = find_file(written, places)
    if path is None and by_tail and (os.path.isabs(written) or written.startswith("~")):
        return in_checkout(written, places)
    if isinstance(path, Outside):
        result.problems.append(_outside(written, path, places, span))
        return None
    if path is None:
        if made_here(script.text, written.rpartition("/")[2], command) or places.lost:
            return None  # the script makes or fetches it (`cp`, `wget`), or where the path starts is not known
        if len(files_ending(written, places)) > 1:
            return None  # several files of the repository end so: the run may start beside any of them
        return _MISSING
    return path


def _config_entries(path: Path, written: str, span: Span, result: ScriptRuns) -> dict[str, Entry] | None:
    """A config file's top-level entries, their spans naming the file, which the script's results then hold; None when
    it does not parse (said here)."""
    from grpo_lint.sources import yaml_reader

    parsed = yaml_reader.read(path, str(path))
    if not isinstance(parsed, Document):
        message = parsed.message if parsed is not None else "it is empty"
        result.problems.append(Diagnostic("GRPO001", Severity.ERROR, f"cannot read {written}: {message}", "", span))
        return None
    display = str(path)
    result.sources[display] = parsed.text
    if parsed.duplicates:
        result.duplicates[display] = [(stamp(a, display), stamp(b, display)) for a, b in parsed.duplicates]
    return {key: stamp(value, display) for key, value in parsed.entries.items()}


def _easyr1_config(
    word: Word, places: Places, result: ScriptRuns, script: Script, command: Command
) -> dict[str, Entry] | None:
    """The YAML file an EasyR1 launch names (`config=examples/config.yaml`), its top-level entries; None when it is not
    shown (a path not known before launch, after a `cd` not shown, made by the script) or not there (said here)."""
    written = word.text.partition("=")[2]
    span = Span(word.span.line, word.span.column + len("config="), word.span.end_line, word.span.end_column)
    if not word.known or not written:
        return None
    path = _find_config(written, span, places, result, script, command, by_tail=True)
    if path == _MISSING:
        result.problems.append(
            Diagnostic(
                "GRPO001",
                Severity.ERROR,
                f"the config file {written} named here is in no folder the run may start in: EasyR1's "
                "verl.trainer.main stops at start-up (OmegaConf.load: FileNotFoundError).",
                "",
                span,
                key="config",
                fix="name the file as it is in the repository (a path from where the script is run)",
            )
        )
    return _config_entries(path, written, span, result) if isinstance(path, Path) else None


def _outside(named: str, found: Outside, places: Places, span: Span) -> Diagnostic:
    root = os.path.relpath(places.root) if not os.path.relpath(places.root).startswith("..") else str(places.root)
    return Diagnostic(
        "GRPO001",
        Severity.INFO,
        f"the config file {named} named here is outside the repository ({root}), so it is not read (a linted "
        "repository must not make grpo-lint print files of the machine it runs on); only the flags are checked.",
        "",
        span,
        fix=f"to check it, name it too: grpo-lint <this script> {found.path}",
    )
