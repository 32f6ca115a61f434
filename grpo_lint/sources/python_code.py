"""Python code, read with `ast` in one pass (never imported or run): what the module declares (the
grpo_lint.sources.python_index facts the repository model resolves names with), its `GRPOConfig(...)`
calls with their literal keyword arguments, and the facts the seeding rules follow.

The seeding facts are events in source order within each function (and the module's own code):

- seeds of the global random streams (`torch.manual_seed`, `torch.cuda.manual_seed_all`, `random.seed`,
  `np.random.seed`, `set_seed`, `seed_everything`), whether their value depends on the process rank (a
  name such as `rank`, `local_rank`, `process_index`, `get_rank()`, `RANK`/`LOCAL_RANK` from the
  environment, `device_specific=True`, or a variable or `self.` attribute assigned from one), and whether
  the value is one of the function's own parameters (a seeding helper, judged where it is called);
- calls of seeding helpers (a function whose name speaks of seeds), with the rank dependence of each
  argument, resolved later across the repository's modules;
- the first uses of randomness (generation, sampling, torch/random/numpy draws, a shuffling loader, a
  training step with its dropout).

A rule then asks which seeding reaches a random use, not which seeding is written first. Seeding a
`torch.Generator` of one's own (`g.manual_seed(seed)`, `torch.Generator().manual_seed(0)`) never counts:
it does not touch the global streams. Every fact is gathered by one visitor, with no walk inside a walk.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from grpo_lint.diagnostics import Span
from grpo_lint.patterns import lazy
from grpo_lint.records import Record
from grpo_lint.sources.document import Entry, ReadProblem
from grpo_lint.sources.numbers import bounded
from grpo_lint.sources.python_index import (
    NOT_LITERAL,
    PARSERS,
    ClassFacts,
    Field,
    HydraApp,
    Imported,
    ParserCall,
    PythonIndex,
    default_of,
    dotted,
    literal,
    post_init_writes,
    required,
)
from grpo_lint.sources.python_kwargs import Items, changed_by_call, collected
from grpo_lint.sources.python_launches import LaunchCall, process_call, words_of
from grpo_lint.sources.python_loads import (
    Loaded,
    LoadedRead,
    called_loader,
    load,
    may_load,
    opened,
    overridden,
    view,
)
from grpo_lint.sources.python_needles import (
    DISTRIBUTED_MODULES,
    DISTRIBUTED_NAMES,
    DISTRIBUTED_STRINGS,
    SAMPLERS,
    is_test_path,
)

# The global random streams, by the module path a seed call goes through (its last name aside).
_GLOBAL_SEEDS = {
    "manual_seed": ("torch", "torch.cuda", "torch.random", "cuda", "torch.npu", "torch.xpu", "torch.mps"),
    "manual_seed_all": ("torch.cuda", "cuda", "torch.npu", "torch.xpu"),
    "seed": ("random", "np.random", "numpy.random", "paddle", "mx.random", "mindspore"),
    "set_seed": (
        "",
        "transformers",
        "accelerate.utils",
        "accelerate",
        "trl",
        "tf.random",
        "tensorflow.random",
        "utils",
    ),
    "seed_everything": ("", "pl", "L", "lightning", "pytorch_lightning", "lightning.pytorch", "lightning.fabric"),
    "set_random_seed": ("", "mmcv", "mmengine"),
}
# Packages whose seeding function offsets the seed by rank itself: Megatron's set_random_seed adds 100 x the
# pipeline rank (10 x the data-parallel rank with data_parallel_random_init) and seeds tensor-parallel ranks
# apart through model_parallel_cuda_manual_seed (megatron/training/initialize.py, core 0.8-0.15).
_RANK_AWARE_SEEDERS = frozenset({"megatron"})
# Names whose value differs from one process to the next. `rank_zero_seed` (the seed of rank 0, the same
# everywhere) is not one.
_RANK_WORDS = frozenset({"rank", "process_index", "local_process_index", "procid", "device_specific"})
_RANK_ENV = frozenset({"RANK", "LOCAL_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "GROUP_RANK"})
_RANK_CALLS = frozenset({"get_rank", "get_local_rank", "get_global_rank", "get_node_rank", "get_process_index"})
# Draws from the global streams or uses of them: generation, sampling, a training step (dropout). A data
# order drawn with `shuffle`, `permutation` or `randperm` is not one: every rank must draw the same order before
# it takes its shard (minimind's `42 + epoch`, a train/eval split), so a seed shared by all ranks is meant there.
# What a script may read of a module only to report it (provenance), not to run with it.
_PROVENANCE = frozenset({"__version__", "__file__", "__name__"})
# Draws of Python's and numpy's global streams that a seed may be taken from (`np.random.randint(1 << 31)`).
_DRAWS = frozenset({
    "randint", "random", "rand", "randn", "randrange", "getrandbits", "random_sample", "random_integers", "uniform",
    "choice",
})  # fmt: skip
# Seeding functions that seed Python's, numpy's and torch's streams at once.
_SEEDS_ALL = frozenset({"set_seed", "seed_everything", "enable_full_determinism"})
_RANDOM_CALLS = frozenset({
    "generate", "infer", "multinomial", "bernoulli", "rand", "randn", "randint", "rand_like",
    "randn_like", "randint_like", "normal", "choice", "choices", "sample", "uniform", "random",
    "backward", "dropout", "train",
})  # fmt: skip
# Trainers that generate completions themselves: a subclass samples through them.
_SAMPLING_TRAINERS = ("GRPO", "RLOO", "PPO", "OnlineDPO", "GKD", "Rollout", "XPO", "NashMD")
# A sampling request built per call: its seed is the same for every request when it comes from the run's
# config (`request_config.seed = self.args.seed`), and the completions of a prompt are then identical.
_REQUEST_TYPES = ("RequestConfig", "SamplingParams", "GenerationConfig")
_REQUEST_NAMES = lazy(r"request|sampling|sample_params|gen_config|generation_config", re.IGNORECASE)
_TRAINING_CALLS = frozenset({"backward", "train", "step", "zero_grad", "train_epoch", "train_step"})
_MAIN_NAMES = frozenset({"main", "run", "train", "cli", "launch", "entry", "run_training"})


def _attribute_chain(node: ast.expr) -> str | None:
    """`args.beta` -> "args.beta", `cfg.training.grpo.beta` -> "cfg.training.grpo.beta"; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if parts and isinstance(node, ast.Name) else None


def _argparse_default(node: ast.Call) -> Any:
    """The value argparse gives a flag the command line does not set: its literal `default=`, False for
    `store_true` (True for `store_false`), else None."""
    for keyword in node.keywords:
        if keyword.arg == "default":
            try:
                return ast.literal_eval(keyword.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return NOT_LITERAL
    action = next((k.value for k in node.keywords if k.arg == "action"), None)
    if isinstance(action, ast.Constant) and action.value in ("store_true", "store_false"):
        return action.value == "store_false"
    return None


class TrainerCall(Record):
    """A `GRPOTrainer(...)` call: the keywords it passes by name, each with where it is written."""

    callee: str  # as written (`GRPOTrainer`, `trl.GRPOTrainer`)
    keywords: tuple[tuple[str, Span], ...]
    span: Span | None = None  # the callee as written


class ConfigCall(Record):
    """A `GRPOConfig(...)` call: its literal keyword arguments as entries."""

    span: Span
    entries: dict[str, Entry]
    unknown: tuple[str, ...]  # keyword arguments whose value is not a literal
    callee: str = "GRPOConfig"  # as written
    # Those keyword arguments as entries with no value: their names are still checked (a removed key is
    # removed whatever its value), their values never.
    unknown_entries: dict[str, Entry] | None = None
    # Keyword arguments whose value is an attribute of a name (`beta=args.beta`, `beta=cfg.grpo.beta`): keyword ->
    # the name and its attributes, dotted (`args.beta`, `cfg.grpo.beta`).
    attributes: dict[str, str] | None = None
    spread: bool = False  # `**kwargs` among the arguments: the call may set any field
    # Keyword arguments whose value is a key of a config file the script loads (`tcfg["num_generations"]` after
    # `cfg = yaml.safe_load(open(args.config))` and `tcfg = cfg["training"]`).
    loaded: dict[str, LoadedRead] | None = None
    # Keyword arguments whose value is a bare name (`num_generations=G`): keyword -> the scope of the call and the
    # name. One bound once, to a literal (`G = 8` at the module's top level or in that function), gives that
    # literal (PythonFile.configs).
    names: dict[str, tuple[int, str]] | None = None
    # A keyword written twice (`logging_steps=...` on two lines): Python's compiler refuses the module ("keyword
    # argument repeated"), though its parser accepts it. (keyword, the span of its second writing.)
    repeated: tuple[tuple[str, Span], ...] = ()


class Seed(Record):
    """A seed of the global random streams, or a call of a seeding helper (`direct` False)."""

    name: str  # as written: torch.manual_seed, set_seed, setup_seed
    span: Span
    argument: str  # the seed expression as written
    rank_aware: bool
    device_specific: bool
    scope: int  # the function it is in (0: the module's own code)
    order: int  # its place among the events of the file
    param: str | None = None  # the value is this parameter of its function: a seeding helper
    direct: bool = True
    in_trainer_subclass: bool = False
    in_quiet_trainer: bool = False  # inside a trainer class that never generates (SFT, DPO, reward)
    in_generation_loop: bool = False  # its function calls generate()
    # The one stream it seeds when that is all it seeds: "random" (`random.seed`), "numpy" (`np.random.seed`);
    # "" for torch's and for seeding functions that seed them all (set_seed, seed_everything, helpers).
    stream: str = ""


class RandomUse(Record):
    scope: int
    order: int
    what: str
    line: int
    # The one global stream it draws from when the call says so: "random" (Python's `random` module),
    # "numpy" (`np.random.*`); "" for torch's and for uses that draw from any (generation, a training step).
    stream: str = ""


class Function(Record):
    scope: int
    name: str
    class_name: str
    params: tuple[str, ...]
    main: bool  # the module's own code or its `main`: a seed set here stays for the rest of the run
    generates: bool
    trains: bool = False  # calls a training step (backward, step, train) or builds a trainer


class SamplerCall(Record):
    name: str
    span: Span
    seed: str | None  # the seed expression as written; None when missing
    seed_is_literal: bool
    shuffle_off: bool
    scope: int = 0
    seed_from_param: bool = False  # the seed is a parameter of the function that builds the sampler
    forwards: bool = False  # the function passes its own parameters to the sampler (a library helper)


class RequestSeed(Record):
    """A seed set on a per-request sampling config from the run's config: the same on every request."""

    span: Span
    written: str
    scope: int


class TrainerClass(Record):
    """A class that generates a group's completions: a subclass of a GRPO trainer, or one that calls
    generate itself, and how its construction seeds."""

    name: str
    span: Span
    bases: tuple[str, ...]
    seeds_per_rank: bool  # one of its methods seeds device-specifically or with the rank
    generates: bool


class PythonFile(Record):
    path: str
    text: str
    configs: list[ConfigCall]
    seeds: list[Seed]
    samplers: list[SamplerCall]
    distributed: bool  # initialises a process group, uses accelerate/DDP/deepspeed, reads RANK ...
    samples: bool  # GRPO code or a generation loop: where identical streams mean identical groups
    uses_grpo_trainer: bool  # constructs a GRPOTrainer, which reseeds each process with seed + rank
    is_test: bool
    other_trainer: bool = False  # trains with a trainer from trl.experimental, which reads the config its own way
    unsloth: bool = False  # imports unsloth, whose patched GRPOConfig adjusts the batch instead of failing
    index: PythonIndex | None = None
    helpers: tuple[Seed, ...] = ()  # calls of seeding helpers (direct False), resolved by the rules
    random_uses: tuple[RandomUse, ...] = ()
    functions: dict[int, Function] = {}  # noqa: RUF012 - a record default, never mutated
    request_seeds: tuple[RequestSeed, ...] = ()
    trainers: tuple[TrainerClass, ...] = ()
    deleted_inits: frozenset[str] = frozenset()  # `del Base.__init__`: that class's construction is skipped
    trains: bool = False  # takes training steps (backward, a trainer's train(), an optimizer step)
    run_seed: bool = False  # reads a run's seed (`args.seed`, `config.seed`): a sampler can follow it
    set_epoch: bool = False  # calls `sampler.set_epoch(...)`
    flag_defaults: dict[str, Any] = {}  # noqa: RUF012 - argparse dest -> default (NOT_LITERAL when not a literal)
    parsed_names: frozenset[str] = frozenset()  # names bound to `parser.parse_args()` (`args`)
    # Programs the code starts from a list of words or a command string (`subprocess.run([sys.executable, "-m",
    # "verl.trainer.main_ppo", ...])`): grpo_lint.sources.python_launches.
    launches: tuple[LaunchCall, ...] = ()
    positionals: tuple[str, ...] = ()  # argparse's positional arguments, in order (`add_argument("config")`)
    trainer_calls: tuple[TrainerCall, ...] = ()  # `GRPOTrainer(...)` calls, with the keywords each passes
    train_calls: tuple[TrainerCall, ...] = ()  # `trainer.train(...)` of a GRPOTrainer (callee: the trainer's class)
    # The option strings of an argparse parser shown whole in this file (see _Visitor.option_strings); None when the
    # file has no such parser: then the flags it accepts are not known from it.
    strict_options: frozenset[str] | None = None


def read(text: str, path: str) -> PythonFile | ReadProblem:
    from grpo_lint.sources.python_syntax import parse

    try:
        tree = parse(text, filename=path)
    except SyntaxError as exc:
        line, column = exc.lineno or 1, exc.offset or 1
        return ReadProblem(f"Python syntax error: {exc.msg}", Span.point(line, column), text)
    except ValueError as exc:  # NUL bytes
        return ReadProblem(f"cannot be parsed as Python: {exc}", Span.point(1, 1), text)
    except (RecursionError, MemoryError):
        # Python's own parser gives up (RecursionError past ~3,000 levels, MemoryError further): the
        # interpreter could not run this file either.
        return ReadProblem("expressions nest too deeply for Python's own parser", Span.point(1, 1), text)
    visitor = _Visitor(text)
    if visitor.feeds_config and isinstance(tree, ast.Module):
        from grpo_lint.sources.python_loads import loader_functions

        visitor.loaders = loader_functions(tree)
    with _deep_enough():
        try:
            visitor.visit(tree)
        except RecursionError:
            return ReadProblem("expressions nest too deeply to be read", Span.point(1, 1), text)
    return visitor.result(path)


def _span(node: ast.AST, lines: list[str]) -> Span:
    line = getattr(node, "lineno", 1)
    end_line = getattr(node, "end_lineno", line) or line
    return Span(line, _column(lines, line, node.col_offset), end_line, _column(lines, end_line, node.end_col_offset))


def _column(lines: list[str], line: int, byte_offset: int | None) -> int:
    """ast counts UTF-8 bytes; positions here count characters, 1-based."""
    if byte_offset is None:
        return 1
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(source.encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1


# What any rank-dependent expression has in its text (lowercased): rank words, the RANK variables, get_rank().
def _maybe_rank(lowered: str) -> bool:
    """Whether an expression's text (lowercased) may name a per-process value (substring tests: the hot path)."""
    return (
        "rank" in lowered
        or "process_index" in lowered
        or "procid" in lowered
        or "device_specific" in lowered
        or "gpu_i" in lowered
        or "device_i" in lowered
        or "cuda_i" in lowered
        or "_ordinal" in lowered
    )


def _device_specific(node: ast.Call) -> bool:
    """`set_seed(seed, device_specific=True)`: accelerate/transformers add the process index themselves."""
    return any(
        k.arg == "device_specific" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in node.keywords
    )


def rank_word(name: str) -> bool:
    """Whether an identifier names a per-process value: `rank`, `local_rank`, `ddp_rank`, `process_index`, and the
    device a process drives (`gpu_id`, `device_idx`: one GPU per process, as `mp.Process(target=worker,
    args=(gpu_id, ...))` starts them)."""
    lowered = name.lower()
    if lowered in _RANK_WORDS or lowered.endswith(("process_index", "procid")):
        return True
    parts = lowered.split("_")
    if len(parts) >= 2 and parts[-2] in _DEVICE_WORDS and parts[-1] in _INDEX_WORDS:
        return True
    return "rank" in parts and "zero" not in parts and "world" not in parts


_DEVICE_WORDS = frozenset({"gpu", "device", "cuda"})
_INDEX_WORDS = frozenset({"id", "idx", "index", "ordinal"})


# ast.parse refuses expressions nested deeper than about 3,000 levels; visiting one takes two or three
# Python frames per level (`a + b + ... ` with 500 terms already passes the default limit of 1,000).
# Python-to-Python calls do not grow the C stack, so the limit is raised while a tree is visited.
_VISIT_RECURSION = 12_000


@contextmanager
def _deep_enough() -> Iterator[None]:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, _VISIT_RECURSION))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


class _Scope:
    __slots__ = (
        "changed", "class_name", "files", "generates", "id", "kwargs", "lists", "loads", "main", "name", "params",
        "rank_vars", "trains",
    )  # fmt: skip

    def __init__(self, scope: int, name: str, class_name: str, params: tuple[str, ...], main: bool) -> None:
        self.id = scope
        self.name = name
        self.class_name = class_name
        self.params = params
        self.main = main
        self.rank_vars: set[str] = set()  # local names assigned from the rank
        self.generates = False
        self.trains = False
        self.files: dict[str, tuple[str, str]] = {}  # `with open(args.config) as f`: f -> where its path comes from
        self.loads: dict[str, Loaded] = {}  # `cfg = yaml.safe_load(f)`, `tcfg = cfg["training"]`
        self.kwargs: dict[str, Items] = {}  # `kw = dict(num_generations=8)`: the items of a dict the code collects
        self.lists: dict[str, ast.expr] = {}  # `cmd = [sys.executable, "-m", ...]`: a command line the code builds
        self.changed: set[str] = set()  # lists the code adds to (`cmd.append(...)`, `cmd += [...]`)


class _Class:
    __slots__ = ("bases", "generates", "name", "node", "per_rank", "rank_attrs", "scope", "trainer")

    def __init__(self, node: ast.ClassDef, bases: tuple[str, ...], scope: int) -> None:
        self.node = node
        self.scope = scope  # the scope the class statement is in: its body binds class attributes, not names there
        self.name = node.name
        self.bases = bases
        self.rank_attrs: set[str] = set()  # `self.x` assigned from the rank in any method
        self.generates = False
        self.per_rank = False  # seeds device-specifically or with the rank somewhere
        self.trainer = any("GRPO" in b or "Trainer" in b for b in bases)


_DISPATCH: dict[type, Any] = {}  # node class -> the _Visitor function that visits it
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}  # node class -> the fields that may hold nodes to visit
_NEWLINES = lazy(r"\r\n|\r|\n")


def _method(kind: type) -> Any:
    """The _Visitor function for a node class (its visit_ method, else generic_visit), kept in _DISPATCH."""
    _DISPATCH[kind] = getattr(_Visitor, "visit_" + kind.__name__, _Visitor.generic_visit)
    return _DISPATCH[kind]


class _Visitor(ast.NodeVisitor):
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines()
        self._ast_lines: list[str] | None = None
        # what the module declares (PythonIndex)
        self.imports: dict[str, Imported] = {}
        self.stars: list[Imported] = []
        self.classes: dict[str, ClassFacts] = {}
        self.parsers: list[ParserCall] = []
        self.trainer_refs: list[tuple[str, int]] = []
        self._trainer_seen: set[str] = set()
        self.flags: dict[str, Any] = {}
        self.flag_defaults: dict[str, Any] = {}  # argparse dest -> its default (NOT_LITERAL when not one)
        self.positionals: list[str] = []  # argparse's positional arguments, in order
        # Every option string of the file's argparse parser as written (`-n`, `--num-generations`), and whether the
        # parser is all shown here: ArgumentParser(...) built and read with parse_args() in this file, options all
        # literal, no parents, sub-commands or parse_known_args, and the parser handed to no other function.
        self.option_strings: set[str] = set()
        self.parser_vars: set[str] = set()
        self.argparse_calls = 0  # ArgumentParser(...) built
        self.argparse_strict_reads = 0  # parse_args() called
        self.argparse_open = False
        self.parsed_names: set[str] = set()  # names bound to what an argparse parser returned
        self.hydra: HydraApp | None = None
        self.parse_calls: list[tuple[str, tuple[tuple[str, Any], ...]]] = []
        # what the rules read
        self.configs: list[ConfigCall] = []
        self.trainer_calls: list[TrainerCall] = []
        self.trainer_vars: dict[str, str] = {}  # `trainer = GRPOTrainer(...)`: the name -> the callee as written
        self.train_calls: list[TrainerCall] = []  # `trainer.train(...)` of such a name, with its keywords
        self.seeds: list[Seed] = []
        self.helpers: list[Seed] = []
        self.random_uses: list[RandomUse] = []
        self.samplers: list[SamplerCall] = []
        self.request_seeds: list[RequestSeed] = []
        self.trainer_classes: list[TrainerClass] = []
        self.functions: dict[int, Function] = {}
        self.deleted_inits: set[str] = set()
        self.identifiers: set[str] = set()
        self.attributes: set[str] = set()
        self.modules: set[str] = set()
        # `import accelerate` (a module imported whole, by a name of its own): the name -> the module, and the
        # attributes read of it (a script that only reports `accelerate.__version__` does not run distributed).
        self.whole_imports: dict[str, str] = {}
        self.whole_uses: dict[str, set[str]] = {}
        self.from_modules: set[str] = set()
        self.process_groups: list[bool] = []  # each init_process_group call: whether it writes world_size=1
        self.strings: set[str] = set()
        self.called: set[str] = set()
        self.loading = False  # some scope has bound a loaded config file (grpo_lint.sources.python_loads)
        self.loaders: dict[str, tuple[int, str]] = {}  # the module's functions that load a config file they are given
        self.feeds_config = "GRPOConfig" in text  # only then are loaded files and collected dicts followed
        self.launching = "subprocess" in text or "os.system" in text  # only then are command lines followed
        self.launches: list[LaunchCall] = []
        # The module's functions that start the command they are given (`def run(cmd): subprocess.run(cmd, ...)`):
        # name -> (the parameter's position, whether a shell reads it). A call of one with a list is a launch.
        self.launchers: dict[str, tuple[int, bool]] = {}
        # Constants a GRPOConfig call may read (only followed where one is written): (scope, name) -> the literal
        # an assignment in that scope (the module's top level or a function's body) binds it to; how often each
        # scope binds each name, and the names bound otherwise (parameters, `global`, `except ... as`, definitions).
        self.constants: dict[tuple[int, str], tuple[Any, ast.expr]] = {}
        self.aliases: dict[tuple[int, str], str] = {}  # `BATCH = G`: the name another constant's name is bound to
        # `dataclass_types = (ScriptArguments, GRPOConfig, ModelConfig)`: a tuple of names a parser may be given
        self.name_tuples: dict[tuple[int, str], tuple[str, ...]] = {}
        self.bindings: dict[tuple[int, str], int] = {}
        self.rebound: set[str] = set()
        self.experimental_trainer = False
        self.trains = False
        self.run_seed = False
        self.set_epoch = False
        self.order = 0
        self.scopes: list[_Scope] = [_Scope(0, "<module>", "", (), True)]
        self.class_stack: list[_Class] = []
        self.next_scope = 1
        self.seed_class: dict[int, _Class | None] = {}  # seed order -> the class it was written in

    # --- results -----------------------------------------------------------------------------------

    def result(self, path: str) -> PythonFile:
        identifiers, modules = self.identifiers, self.modules
        distributed = bool(identifiers & DISTRIBUTED_NAMES) or bool(self.strings & DISTRIBUTED_STRINGS)
        distributed = distributed or any(
            (m == d or m.startswith(d + ".")) and self._module_used(m) for m in modules for d in DISTRIBUTED_MODULES
        )
        if self.process_groups and all(self.process_groups):
            distributed = (
                False  # its process group is one process (`init_process_group(..., world_size=1)`), whatever reads RANK
            )
        samples = (
            any("grpo" in name.lower() for name in identifiers | modules)
            or "generate" in self.attributes
            or "num_generations" in identifiers
        )
        is_test = (
            is_test_path(path)
            or "pytest" in modules
            or any(b.rpartition(".")[2] == "TestCase" for c in self.classes.values() for b in c.bases)
        )  # (`from unittest.mock import patch` alone is no test: ms-swift's trainer imports it)
        index = PythonIndex(
            self.imports,
            self.classes,
            tuple(self.parsers),
            tuple(self.trainer_refs),
            self.flags,
            self.hydra,
            tuple(self.stars),
            tuple(self.parse_calls),
        )
        generating = {scope for scope, function in self.functions.items() if function.generates}
        seeds = [self._finish_seed(s, generating) for s in self.seeds]
        return PythonFile(
            path,
            self.text,
            [self._with_constants(call) for call in self.configs] if self.constants else self.configs,
            seeds,
            self.samplers,
            distributed,
            samples,
            "GRPOTrainer" in self.called,
            is_test,
            self.experimental_trainer,
            any(m == "unsloth" or m.startswith("unsloth.") for m in modules),
            index,
            tuple(self._finish_seed(s, generating) for s in self.helpers),
            tuple(self.random_uses),
            self.functions,
            tuple(self.request_seeds),
            tuple(self.trainer_classes),
            frozenset(self.deleted_inits),
            self.trains,
            self.run_seed,
            self.set_epoch,
            self.flag_defaults,
            frozenset(self.parsed_names),
            tuple(self.launches),
            tuple(self.positionals),
            tuple(self.trainer_calls),
            tuple(self.train_calls),
            self._strict_options(),
        )

    def _strict_options(self) -> frozenset[str] | None:
        shown = self.argparse_calls == 1 and self.argparse_strict_reads == 1 and not self.argparse_open
        return frozenset(self.option_strings) if shown and self.option_strings else None

    def _with_constants(self, call: ConfigCall) -> ConfigCall:
        """The call with each keyword that names a constant given its value: `num_generations=G` where `G = 8` is
        the one binding of `G` in the call's function (or, where the function binds no `G`, in the module), and no
        `global`, parameter, import or star import may rebind it. The entry is at the keyword's own place (a fix
        edits the call, not the constant other code may read)."""
        if not call.names or self.stars:
            return call
        entries, unknown = dict(call.entries), dict(call.unknown_entries or {})
        for field, (scope, name) in call.names.items():
            constant = self._constant_of(scope, name)
            if constant is None:
                continue
            at = unknown.pop(field)
            entry = Entry(field, constant[0], at.key_span, at.value_span)
            if isinstance(constant[1], ast.List | ast.Tuple):
                entry.item_spans = [at.value_span] * len(constant[1].elts)
            entries[field] = entry
        if len(unknown) == len(call.unknown_entries or {}):
            return call
        return call._replace(entries=entries, unknown=tuple(unknown), unknown_entries=unknown)

    def _constant_of(self, scope: int, name: str) -> tuple[Any, ast.expr] | None:
        """The literal a name stands for where a call reads it: its one binding in that function (or, where the function
        binds no such name, in the module), through names bound to names (`BATCH = G`, `G = 16`), none rebound."""
        for _ in range(8):
            if name in self.rebound or name in self.imports:
                return None
            if (scope, name) not in self.bindings:
                scope = 0  # (a name the function does not bind is the module's)
            if self.bindings.get((scope, name)) != 1:
                return None
            constant = self.constants.get((scope, name))
            if constant is not None:
                return constant
            name = self.aliases.get((scope, name), "")
            if not name:
                return None
        return None

    def _finish_seed(self, seed: Seed, generating: set[int]) -> Seed:
        owner = self.seed_class.get(seed.order)
        trainer = owner is not None and owner.trainer
        samples = owner is not None and (
            owner.generates or any(any(s in b for s in _SAMPLING_TRAINERS) for b in owner.bases)
        )
        return seed._replace(
            in_trainer_subclass=trainer and samples,
            in_quiet_trainer=trainer and not samples,
            in_generation_loop=seed.scope in generating,
        )

    # --- traversal ---------------------------------------------------------------------------------
    # ast.NodeVisitor's own `visit` builds a method name and looks it up for every node, and its
    # `generic_visit` walks every field through a generator, the expression contexts (`Load`, `Store`)
    # included: on a large file that was as long as parsing it. The same order of visits, cheaper.

    def visit(self, node: ast.AST) -> None:
        (_DISPATCH.get(node.__class__) or _method(node.__class__))(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        fields = _CHILD_FIELDS.get(node.__class__)
        if fields is None:
            fields = _CHILD_FIELDS[node.__class__] = tuple(f for f in node._fields if f != "ctx")
        dispatch, method = _DISPATCH, _method
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        (dispatch.get(item.__class__) or method(item.__class__))(self, item)
            elif isinstance(value, ast.AST):
                (dispatch.get(value.__class__) or method(value.__class__))(self, value)

    def _segment(self, node: ast.AST) -> str | None:
        """`ast.get_source_segment` without splitting the whole text again at every call."""
        if self._ast_lines is None:
            self._ast_lines = _NEWLINES.split(self.text)  # the line breaks ast counts (not \f or \v)
        lines = self._ast_lines
        first, last = getattr(node, "lineno", 0), getattr(node, "end_lineno", 0) or 0
        start, end = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if not 0 < first <= last <= len(lines) or start is None or end is None:
            return None
        if first == last:
            return lines[first - 1].encode("utf-8")[start:end].decode("utf-8", "replace")
        head = lines[first - 1].encode("utf-8")[start:].decode("utf-8", "replace")
        tail = lines[last - 1].encode("utf-8")[:end].decode("utf-8", "replace")
        return "\n".join((head, *lines[first : last - 1], tail))

    # --- helpers -----------------------------------------------------------------------------------

    @property
    def scope(self) -> _Scope:
        return self.scopes[-1]

    def _tick(self) -> int:
        self.order += 1
        return self.order

    def _source(self, node: ast.AST) -> str:
        """The node as written (one line), else as ast renders it."""
        line, end = getattr(node, "lineno", 0), getattr(node, "end_lineno", 0)
        if line and line == end and 0 < line <= len(self.lines):
            data = self.lines[line - 1].encode("utf-8")
            return data[node.col_offset : node.end_col_offset].decode("utf-8", "replace")  # type: ignore[attr-defined]
        return ast.unparse(node)

    def _rank(self, node: ast.AST | None) -> bool:
        """Whether an expression's value depends on the process rank (bounded by the expression's size)."""
        if node is None:
            return False
        scope = self.scope
        owner = self.class_stack[-1] if self.class_stack else None
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        if first is not None and last is not None:
            # A look at the expression's lines first: most assignments name nothing about ranks, and walking
            # every right-hand side again inside the visit was the hot spot on large files.
            text = "\n".join(self.lines[first - 1 : last])
            lowered = text.lower()
            if not _maybe_rank(lowered) and not any(
                name in text for name in (*scope.rank_vars, *(owner.rank_attrs if owner is not None else ()))
            ):
                return False
        stack: list[ast.AST] = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, ast.Name):
                if rank_word(item.id) or item.id in scope.rank_vars:
                    return True
            elif isinstance(item, ast.Attribute):
                if rank_word(item.attr):
                    return True
                if (
                    owner is not None
                    and isinstance(item.value, ast.Name)
                    and item.value.id == "self"
                    and item.attr in owner.rank_attrs
                ):
                    return True
            elif isinstance(item, ast.Constant):
                if isinstance(item.value, str) and item.value in _RANK_ENV:
                    return True
            elif isinstance(item, ast.Call):
                if dotted(item.func).rpartition(".")[2] in _RANK_CALLS:
                    return True
            elif isinstance(item, ast.keyword) and item.arg == "device_specific":
                return isinstance(item.value, ast.Constant) and item.value.value is True
            stack.extend(ast.iter_child_nodes(item))
        return False

    def _random(self, what: str, line: int, stream: str = "") -> None:
        self.random_uses.append(RandomUse(self.scope.id, self._tick(), what, line, stream))

    def _stream(self, name: str) -> str:
        """The stream a call draws from or seeds by the module it goes through: `random.choice` (or
        `rnd.choice` after `import random as rnd`), `np.random.seed`; "" for any other."""
        receiver = name.rpartition(".")[0]
        if not receiver:
            return ""
        first, _, rest = receiver.partition(".")
        imported = self.imports.get(first)
        if imported is not None and imported.name is None:
            first = imported.module
        elif imported is None and first == "np":
            first = "numpy"  # the usual alias, in a snippet that does not show its import
        module = f"{first}.{rest}" if rest else first
        return "random" if module == "random" else "numpy" if module == "numpy.random" else ""

    # --- imports -----------------------------------------------------------------------------------

    def _module_used(self, module: str) -> bool:
        """Whether the file uses a module it imports for more than its version: imported from (`from accelerate import
        Accelerator`), or imported whole (or under a dotted name) and read for anything but `__version__`."""
        if module in self.from_modules or "." in module:
            return True
        names = [name for name, whole in self.whole_imports.items() if whole == module]
        return not names or any(self.whole_uses.get(name, set()) - _PROVENANCE for name in names)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.modules.add(alias.name)
            if "." not in alias.name:
                self.whole_imports[alias.asname or alias.name] = alias.name
            if alias.asname:
                self.imports[alias.asname] = Imported(alias.name, None, 0)
            else:
                top = alias.name.split(".")[0]
                self.imports.setdefault(top, Imported(top, None, 0))
                if "." in alias.name:
                    self.imports[alias.name] = Imported(alias.name, None, 0)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if module:
            self.modules.add(module)
            self.from_modules.add(module)
            if module.startswith("trl.experimental") and any(a.name.endswith("Trainer") for a in node.names):
                self.experimental_trainer = True
        for alias in node.names:
            self.identifiers.add(alias.name)
            if alias.name == "*":
                self.stars.append(Imported(module, None, node.level))
            else:
                self.imports[alias.asname or alias.name] = Imported(module, alias.name, node.level)

    # --- names -------------------------------------------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        self.identifiers.add(node.id)
        if self.feeds_config and type(node.ctx) is not ast.Load:  # (a Store or a Del)
            bound = (self.scopes[-1].id, node.id)
            self.bindings[bound] = self.bindings.get(bound, 0) + 1
        if node.id.endswith("Trainer") and isinstance(node.ctx, ast.Load) and node.id not in self._trainer_seen:
            self._trainer_seen.add(node.id)
            self.trainer_refs.append((node.id, node.lineno))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.attributes.add(node.attr)
        self.identifiers.add(node.attr)
        value = node.value
        if isinstance(value, ast.Name) and value.id in self.whole_imports:
            self.whole_uses.setdefault(value.id, set()).add(node.attr)
        if node.attr == "seed" and isinstance(node.ctx, ast.Load):
            self.run_seed = True  # args.seed, config.seed, self.args.seed
        if node.attr.endswith("Trainer") and isinstance(node.ctx, ast.Load):
            name = dotted(node)
            if name and name not in self._trainer_seen:
                self._trainer_seen.add(name)
                self.trainer_refs.append((name, node.lineno))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            self.strings.add(node.value)

    # --- definitions -------------------------------------------------------------------------------

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        if self.feeds_config:  # a function that rebinds a module name: none of its values is a constant
            self.rebound.update(node.names)

    visit_Nonlocal = visit_Global

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if self.feeds_config and node.name:
            self.rebound.add(node.name)
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if self.feeds_config:
            self.rebound.add(node.name)
        fields = []
        for item in node.body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                annotation = ast.unparse(item.annotation)
                if "ClassVar" not in annotation:
                    fields.append(Field(item.target.id, annotation, default_of(item.value), required(item.value)))
        bases = tuple(name for base in node.bases if (name := dotted(base)))
        writes, line = post_init_writes(node)
        self.classes.setdefault(node.name, ClassFacts(node.name, bases, tuple(fields), node.lineno, writes, line))
        owner = _Class(node, bases, self.scopes[-1].id)
        self.class_stack.append(owner)
        self.generic_visit(node)
        self.class_stack.pop()
        if self.class_stack:
            self.class_stack[-1].generates |= owner.generates
        grpo = any("GRPO" in b for b in bases) or any(any(s in b for s in _SAMPLING_TRAINERS) for b in bases)
        if owner.trainer and (grpo or owner.generates):
            span = _span(node, self.lines)
            span = Span(span.line, span.column, span.line, span.column + len(f"class {node.name}"))
            self.trainer_classes.append(TrainerClass(node.name, span, bases, owner.per_rank, owner.generates))

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and dotted(decorator.func) in ("hydra.main", "main"):
                values = {k.arg: literal(k.value) for k in decorator.keywords}
                if "config_path" in values or "config_name" in values:
                    path, config = values.get("config_path"), values.get("config_name")
                    self.hydra = HydraApp(
                        path if isinstance(path, str) else None,
                        config if isinstance(config, str) else None,
                        decorator.lineno,  # the `@hydra.main` line (a `def` comes after it)
                    )
        args = node.args
        params = tuple(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
        if self.launching and not self.class_stack:
            self._launcher(node, tuple(a.arg for a in (*args.posonlyargs, *args.args)))
        if self.feeds_config:
            self.rebound.update(params, (a.arg for a in (args.vararg, args.kwarg) if a is not None), (node.name,))
        class_name = self.class_stack[-1].name if self.class_stack and self.scope.id == 0 else ""
        main = node.name in _MAIN_NAMES and not class_name
        scope = _Scope(self.next_scope, node.name, class_name, params, main)
        self.next_scope += 1
        scope.rank_vars = {p for p in params if rank_word(p)}
        self.scopes.append(scope)
        for decorator in node.decorator_list:
            self.visit(decorator)
        for default in (*args.defaults, *[d for d in args.kw_defaults if d is not None]):
            self.visit(default)
        for statement in node.body:
            self.visit(statement)
        self.scopes.pop()
        self.functions[scope.id] = Function(
            scope.id, node.name, class_name, params, main, scope.generates, scope.trains
        )
        if scope.generates:
            self.scope.generates = True  # a nested function's generation is its outer function's too
        if scope.trains:
            self.scope.trains = True

    visit_AsyncFunctionDef = visit_FunctionDef

    # --- assignments --------------------------------------------------------------------------------

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        value = node.value
        if isinstance(value, ast.Call) and _called_name(value.func) == "ArgumentParser":
            self.parser_vars.update(t.id for t in node.targets if isinstance(t, ast.Name))
        if isinstance(value, ast.Call) and _called_name(value.func) == "GRPOTrainer":
            self.trainer_vars.update((t.id, dotted(value.func)) for t in node.targets if isinstance(t, ast.Name))
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _ARGPARSE:
            for target in node.targets:  # `args = parser.parse_args()`, `args, rest = parser.parse_known_args()`
                first = target.elts[0] if isinstance(target, ast.Tuple) and target.elts else target
                if isinstance(first, ast.Name):
                    self.parsed_names.add(first.id)
        ranked = self._rank(node.value)
        for target in node.targets:
            self._assign(target, node.value, ranked)
            self.visit(target)
        if self.feeds_config:  # what a GRPOConfig call may take its values from (a file without one: nothing)
            self._tracked(node, value)
            self._constant(node.targets, value)
        if self.launching and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
            name = node.targets[0].id
            lists = self.scope.lists
            if isinstance(value, ast.List | ast.Tuple):
                lists[name] = value
                self.scope.changed.discard(name)
            elif name in lists:
                del lists[name]

    def _constant(self, targets: list[ast.expr], value: ast.expr | None) -> None:
        """`G = 8` at the module's top level or in a function's body (not a class's): a constant, if nothing else
        binds the name there."""
        if not targets or any(type(t) is not ast.Name for t in targets) or value is None:
            return  # (`A = B = 8` binds both)
        if self.class_stack and self.class_stack[-1].scope == self.scopes[-1].id:
            return
        scope = self.scopes[-1].id
        if type(value) is ast.Name:  # `BATCH = NUM_GENERATIONS`: the other constant's value, if it is one
            for target in targets:
                self.aliases[(scope, target.id)] = value.id  # type: ignore[attr-defined]
            return
        if type(value) in (ast.Tuple, ast.List) and value.elts:  # type: ignore[attr-defined]
            names = tuple(dotted(item) for item in value.elts)  # type: ignore[attr-defined]
            if all(names):
                for target in targets:
                    self.name_tuples[(scope, target.id)] = names  # type: ignore[attr-defined]
                return
        try:
            literal_value = bounded(ast.literal_eval(value), self._source(value))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return
        for target in targets:
            self.constants[(scope, target.id)] = (literal_value, value)  # type: ignore[attr-defined]

    def _tracked(self, node: ast.Assign, value: ast.expr) -> None:
        """Names bound to a config file a script loads, and dicts it collects keyword arguments in."""
        first = node.targets[0]
        scope = self.scopes[-1]
        if len(node.targets) == 1 and type(first) is ast.Name:
            if self.loading or scope.files or may_load(value) or self._calls_loader(value):
                self._bind_loaded(first.id, value)
            if scope.kwargs or type(value) is ast.Dict or type(value) is ast.Call:
                self._collect(first.id, value)
        elif type(first) is ast.Subscript and scope.kwargs:
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    self._collected_item(target.value.id, target)

    def _collect(self, name: str, value: ast.expr) -> None:
        """`kw = dict(...)` / `kw = {...}`: a dict of keyword arguments; any other value unbinds the name."""
        kwargs = self.scope.kwargs
        items = collected(value)
        if items is not None:
            kwargs[name] = items
        elif name in kwargs:
            del kwargs[name]

    def _collected_item(self, name: str, target: ast.Subscript) -> None:
        """`kw["beta"] = value`: a keyword added (maybe only on some paths, so its value is not judged)."""
        kwargs = self.scope.kwargs
        items = kwargs.get(name)
        if items is None:
            return
        key = target.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            kwargs[name] = [*(item for item in items if item[0] != key.value), (key.value, None, target)]
        else:
            kwargs[name] = None  # a key computed when it runs

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items if self.feeds_config else ():  # `with open(args.config) as f:`
            if isinstance(item.optional_vars, ast.Name):
                source = opened(item.context_expr)
                if source is not None:
                    self.scope.files[item.optional_vars.id] = source
        self.generic_visit(node)

    visit_AsyncWith = visit_With

    def _loaded_names(self) -> dict[str, Loaded]:
        """The loaded config files and sections in reach: the module's, then each enclosing function's."""
        if len(self.scopes) == 1:
            return self.scopes[0].loads
        names: dict[str, Loaded] = {}
        for scope in self.scopes:
            names.update(scope.loads)
        return names

    def _named(self, node: ast.Call) -> tuple[tuple[str, Span], ...]:
        """The keywords a call passes by name, each with where it is written."""
        return tuple((k.arg, _span(k, self.lines)) for k in node.keywords if k.arg is not None)

    def _argparse_fact(self, node: ast.Call, last: str) -> None:
        if last == "ArgumentParser":
            self.argparse_calls += 1
            if any(k.arg in ("parents", "fromfile_prefix_chars") or k.arg is None for k in node.keywords):
                self.argparse_open = True
        elif last == "parse_args" and not node.args and not node.keywords:
            self.argparse_strict_reads += 1
        else:  # parse_known_args, parse_intermixed_args, add_subparsers, parse_args(list): not what the launch gives
            self.argparse_open = True

    def _calls_loader(self, value: ast.expr) -> bool:
        return bool(self.loaders) and type(value) is ast.Call and getattr(value.func, "id", None) in self.loaders

    def _bind_loaded(self, name: str, value: ast.expr) -> None:
        """`f = open(args.config)`, `cfg = yaml.safe_load(f)`, `tcfg = cfg["training"]`; any other value unbinds."""
        scope = self.scope
        scope.files.pop(name, None)
        source = opened(value)
        if source is not None:
            scope.files[name] = source
        found = load(value, scope.files) or (called_loader(value, self.loaders) if self.loaders else None)
        if found is not None:
            self.loading = True
        if found is None and self.loading and (names := self._loaded_names()):
            section = view(value, names)
            found = section[0] if section is not None else None
        if found is not None:
            scope.loads[name] = found
        else:
            scope.loads.pop(name, None)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
            self._assign(node.target, node.value, self._rank(node.value))
            if self.feeds_config:
                self._constant([node.target], node.value)
        self.visit(node.target)
        self.visit(node.annotation)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name) and node.target.id in self.scope.kwargs:
            self.scope.kwargs[node.target.id] = None  # `kw |= other`
        if self.launching and isinstance(node.target, ast.Name):
            self.scope.changed.add(node.target.id)  # `cmd += ["--x", "1"]`
        self.visit(node.value)
        if self._rank(node.value):
            self._assign(node.target, node.value, True)
        elif isinstance(node.target, ast.Attribute) and node.target.attr == "seed":
            self._request_seed(node.target, node.value, augmented=True)
        self.visit(node.target)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            subscript = isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
            if subscript and target.value.id in self.scope.kwargs:  # type: ignore[attr-defined]
                self.scope.kwargs[target.value.id] = None  # type: ignore[attr-defined] # `del kw["beta"]`
            if isinstance(target, ast.Attribute) and target.attr == "__init__":
                self.deleted_inits.add(dotted(target.value))  # `del HFGRPOTrainer.__init__`
        self.generic_visit(node)

    def _assign(self, target: ast.expr, value: ast.expr, ranked: bool) -> None:
        if isinstance(target, ast.Name):
            if ranked:
                self.scope.rank_vars.add(target.id)
            else:
                self.scope.rank_vars.discard(target.id)
        elif isinstance(target, ast.Attribute):
            if ranked and isinstance(target.value, ast.Name) and target.value.id == "self" and self.class_stack:
                self.class_stack[-1].rank_attrs.add(target.attr)
            if target.attr == "seed":
                self._request_seed(target, value)
            elif target.attr == "__init__":
                self.deleted_inits.add(dotted(target.value))  # `Base.__init__ = other`: the original is skipped
        elif isinstance(target, ast.Tuple | ast.List):
            for item in target.elts:
                self._assign(item, value, ranked)

    def _request_seed(self, target: ast.Attribute, value: ast.expr, augmented: bool = False) -> None:
        """`request_config.seed = self.args.seed`: one seed for every request, from the run's config."""
        owner = dotted(target.value)
        if not owner or not _REQUEST_NAMES.search(owner.rpartition(".")[2]):
            return
        if augmented:
            # `request_config.seed += i * n`: varies per request; it undoes a fixed seed set before
            self.request_seeds[:] = [r for r in self.request_seeds if r.scope != self.scope.id]
            return
        if _from_run_config(value) and not self._rank(value):
            self.request_seeds.append(RequestSeed(_span(target.value, self.lines), self._source(value), self.scope.id))

    # --- calls --------------------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        name = dotted(node.func)
        func = node.func
        while isinstance(func, ast.Subscript):  # `DistributedSampler[int](...)`
            func = func.value
        last = _called_name(func)
        self.called.add(last)
        if self.feeds_config and (kwargs := self.scopes[-1].kwargs):
            for changed in changed_by_call(node, kwargs):
                kwargs[changed] = None
        if self.launching and process_call(name, last, self.imports):
            self._launch(node, last)
        elif self.launching and type(func) is ast.Name and func.id in self.launchers:
            position, shell = self.launchers[func.id]
            if position < len(node.args):
                self._launch_command(node.args[position], shell)
        elif self.launching and last in ("append", "extend", "insert") and isinstance(func, ast.Attribute):
            self._changed(func.value)
        if last in _ARGPARSE_FACTS:
            self._argparse_fact(node, last)
        elif self.parser_vars and any(
            isinstance(a, ast.Name) and a.id in self.parser_vars
            for a in (*node.args, *(k.value for k in node.keywords))
        ):
            self.argparse_open = True  # the parser handed to another function, which may add options
        if last == "GRPOConfig" or (
            last in self.imports and self.imports[last].name == "GRPOConfig" and type(func) is ast.Name
        ):  # (`from trl import GRPOConfig as TRLGRPOConfig`)
            self.configs.append(self._config(node, name))
        elif last == "GRPOTrainer" and node.keywords:
            self.trainer_calls.append(TrainerCall(name, self._named(node), _span(func, self.lines)))
        elif last == "train" and node.keywords and isinstance(func, ast.Attribute):
            owner = func.value
            callee = (
                self.trainer_vars.get(owner.id)
                if isinstance(owner, ast.Name)
                else dotted(owner.func)
                if isinstance(owner, ast.Call) and _called_name(owner.func) == "GRPOTrainer"
                else None
            )
            if callee:  # `trainer.train(max_steps=10)` of a GRPOTrainer
                self.train_calls.append(TrainerCall(callee, self._named(node)))
        elif last in PARSERS and node.args:
            first = node.args[0]
            items = first.elts if isinstance(first, ast.Tuple | ast.List) else [first]
            classes = tuple(dotted(item) for item in items)
            if isinstance(first, ast.Name):  # `TrlParser(dataclass_types)`, the tuple bound just before
                scope = self.scopes[-1].id
                classes = self.name_tuples.get((scope, first.id)) or self.name_tuples.get((0, first.id)) or classes
            written = self._segment(node) or f"{last}(...)"
            written = " ".join(written.split())
            self.parsers.append(ParserCall(last, classes, node.lineno, written[:160]))
        elif last in _PARSE_METHODS:
            self.parse_calls.append((last, tuple((k.arg, literal(k.value)) for k in node.keywords if k.arg)))
        elif last == "add_argument":
            flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if len(flags) != len(node.args):
                self.argparse_open = True  # (`add_argument(*names)`, a computed option string)
            self.option_strings.update(f for f in flags if f.startswith("-"))
            long = [f for f in flags if f.startswith("--")] or [f for f in flags if f.startswith("-")]
            default = next((literal(k.value) for k in node.keywords if k.arg == "default"), None)
            for flag in long:
                self.flags[flag.lstrip("-").replace("-", "_")] = default
            if long:
                self.flag_defaults[long[0].lstrip("-").replace("-", "_")] = _argparse_default(node)
            elif len(flags) == 1 and flags[0].isidentifier():  # `add_argument("config", nargs="?", default=...)`
                self.positionals.append(flags[0])
                self.flag_defaults[flags[0]] = _argparse_default(node)
        elif last == "set_epoch":
            self.set_epoch = True
        elif last == "init_process_group":
            size = next((k.value for k in node.keywords if k.arg == "world_size"), None)
            self.process_groups.append(isinstance(size, ast.Constant) and size.value == 1)
        self.generic_visit(node)  # arguments first: their draws come before this call's
        if self._global_seed(node, name, last):
            self._seed(node, name)
        elif "seed" in last.lower() and last not in ("manual_seed", "seed") and name:
            self._helper(node, name)
        elif last in SAMPLERS:
            self.samplers.append(self._sampler(node, last))
        elif last in _REQUEST_TYPES:
            seed = next((k.value for k in node.keywords if k.arg == "seed"), None)
            # A request for several samples of its prompt (`n=8`) draws them apart: vLLM gives its i-th child request
            # seed + i (vllm/v1/engine/parallel_sampling.py), so one seed for every request makes no group alike.
            several = any(
                k.arg in ("n", "num_return_sequences")
                and not (isinstance(k.value, ast.Constant) and k.value.value == 1)
                for k in node.keywords
            )
            if seed is not None and not several and _from_run_config(seed) and not self._rank(seed):
                self.request_seeds.append(RequestSeed(_span(seed, self.lines), self._source(seed), self.scope.id))
        if (last in _RANDOM_CALLS and last not in ("train",)) or (last == "train" and not node.args):
            self._random(last, node.lineno, self._stream(name))
            if last in ("generate", "infer"):
                self.scope.generates = True
                if self.class_stack:
                    self.class_stack[-1].generates = True
        elif last == "DataLoader" and any(
            k.arg == "shuffle" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
            for k in node.keywords
        ):
            self._random("DataLoader(shuffle=...)", node.lineno)
        if last in _TRAINING_CALLS or last.endswith("Trainer"):
            self.trains = True
            self.scope.trains = True

    def _changed(self, receiver: ast.expr) -> None:
        if isinstance(receiver, ast.Name):
            self.scope.changed.add(receiver.id)  # `cmd.append("--x")`

    def _launcher(self, node: ast.FunctionDef | ast.AsyncFunctionDef, positional: tuple[str, ...]) -> None:
        """A function that hands one of its parameters, as it is, to `subprocess.run` (or call, Popen, os.system):
        its callers' lists are the commands that run."""
        for inner in ast.walk(node):
            if type(inner) is not ast.Call or not inner.args:
                continue
            given = _as_given(inner.args[0])
            name = dotted(inner.func)
            if given in positional and process_call(name, _called_name(inner.func), self.imports):
                self.launchers[node.name] = (positional.index(given), _shell_read(inner, name))
                return
        self.launchers.pop(node.name, None)  # (a later definition of the name replaces an earlier one)

    def _launch(self, node: ast.Call, last: str) -> None:
        """`subprocess.run(cmd)` of a list built in reach (`cmd = [...]`), or of a list or command string written in
        the call (a string only where a shell reads it: `os.system`, `shell=True`)."""
        if node.args:
            self._launch_command(node.args[0], _shell_read(node, last))

    def _launch_command(self, command: ast.expr, shell: bool) -> None:
        """The command a process call (or a function that makes one) is given: a list, a name bound to one in reach,
        or a command string a shell reads."""
        more = False
        if isinstance(command, ast.Name):
            for scope in reversed(self.scopes):
                if command.id in scope.lists:
                    more = command.id in scope.changed
                    command = scope.lists[command.id]
                    break
            else:
                return
        if not isinstance(command, ast.List | ast.Tuple) and not shell:
            return
        found = words_of(command)
        if found is not None:
            self.launches.append(found._replace(more=found.more or more))

    def _global_seed(self, node: ast.Call, name: str, last: str) -> bool:
        """A seed of the global streams: the call goes through a module (`torch.cuda.manual_seed_all`) or
        a seeding function imported by its name (`set_seed` from transformers or accelerate); a seeding
        function the module defines itself is a helper."""
        receivers = _GLOBAL_SEEDS.get(last)
        if receivers is None or (not node.args and not node.keywords):
            return False
        receiver = name.rpartition(".")[0]
        if not isinstance(node.func, ast.Name) and not _module_chain(node.func):
            return False  # `generator.manual_seed(0)`, `torch.Generator().manual_seed(0)`: a stream of its own
        if receiver:
            first = receiver.split(".")[0]
            imported = self.imports.get(first)
            if imported is not None and imported.name is None:
                receiver = receiver.replace(first, imported.module, 1)  # `import numpy as np`
            return receiver in receivers or receiver.endswith(("cuda", "random"))
        imported = self.imports.get(last)
        if imported is not None and imported.level == 0 and imported.module.split(".")[0] in _RANK_AWARE_SEEDERS:
            return False  # the framework's own seeding, which offsets the seed by rank itself
        if imported is not None and imported.level == 0 and imported.module.split(".")[0] in (
            "transformers", "accelerate", "trl", "lightning", "pytorch_lightning", "torch", "random", "numpy",
            "mmengine", "mmcv", "tensorflow",
        ):  # fmt: skip
            return True
        # Imported from elsewhere (the repository's own utils, a package grpo-lint does not know): a helper,
        # judged by its body where the repository holds it, and not at all where it does not.
        return "" in receivers and imported is None and last not in self._own_functions()

    def _own_functions(self) -> set[str]:
        return {f.name for f in self.functions.values()}

    def _seeding_event(self, rank_aware: bool) -> int:
        """The place of a seeding in the file's events, noted on the class it is in."""
        order = self._tick()
        if self.class_stack:
            self.seed_class[order] = self.class_stack[-1]
            if rank_aware:
                self.class_stack[-1].per_rank = True
        return order

    def _seed(self, node: ast.Call, name: str) -> None:
        argument = node.args[0] if node.args else node.keywords[0].value
        device_specific = _device_specific(node)
        rank_aware = device_specific or self._rank(argument) or self._drawn_per_rank(argument)
        param = argument.id if isinstance(argument, ast.Name) and argument.id in self.scope.params else None
        order = self._seeding_event(rank_aware)
        self.seeds.append(
            Seed(
                name,
                _span(node, self.lines),
                self._source(argument),
                rank_aware,
                device_specific,
                self.scope.id,
                order,
                param,
                stream=self._stream(name) if name.rpartition(".")[2] == "seed" else "",
            )
        )

    def _drawn_per_rank(self, value: ast.AST) -> bool:
        """A seed drawn from Python's or numpy's global stream (`torch.manual_seed(np.random.randint(1 << 31))`): the
        same on every rank only where that stream was last seeded, before it and in this function or at the module's
        top, with one value for every rank. Seeded per rank (`np.random.seed(seed * world + rank)`), or not seeded
        where the file shows it (each process then starts from the system's entropy), the draw differs per rank."""
        if not isinstance(value, ast.Call):
            return False
        name = dotted(value.func)
        if name.rpartition(".")[2] not in _DRAWS:
            return False
        stream = self._stream(name)
        if not stream:
            return False  # torch's own stream, or a generator of its own: judged as before
        scopes = (self.scope.id, 0)
        earlier = [
            seed
            for seed in self.seeds
            if seed.scope in scopes and (seed.stream == stream or seed.name.rpartition(".")[2] in _SEEDS_ALL)
        ]
        return not earlier or earlier[-1].rank_aware

    def _helper(self, node: ast.Call, name: str) -> None:
        """A call of a function that seeds (by its name): judged once the function is resolved."""
        arguments = [*node.args, *[k.value for k in node.keywords if k.arg not in ("device_specific",)]]
        device_specific = _device_specific(node)
        rank_aware = device_specific or any(self._rank(a) or self._drawn_per_rank(a) for a in arguments)
        written = ", ".join(self._source(a) for a in arguments)
        param = next((a.id for a in arguments if isinstance(a, ast.Name) and a.id in self.scope.params), None)
        order = self._seeding_event(rank_aware)
        self.helpers.append(
            Seed(
                name, _span(node, self.lines), written, rank_aware, device_specific, self.scope.id, order, param, False
            )
        )

    def _config(self, node: ast.Call, callee: str) -> ConfigCall:
        entries: dict[str, Entry] = {}
        unknown: dict[str, Entry] = {}
        attributes: dict[str, str] = {}
        loaded: dict[str, LoadedRead] = {}
        names = self._loaded_names()
        spread = bool(node.args)
        bare: dict[str, tuple[int, str]] = {}
        arguments: list[tuple[str, ast.expr | None, Span]] = []
        for keyword in node.keywords:
            if keyword.arg is None:  # **kwargs: a dict this code collects gives its items, any other mapping anything
                items = self.scope.kwargs.get(keyword.value.id) if isinstance(keyword.value, ast.Name) else None
                if items is None:
                    spread = True
                    continue
                for key, value, place in items:
                    key_span = _span(place, self.lines)
                    if isinstance(place, ast.keyword):
                        key_span = key_span._replace(end_line=key_span.line, end_column=key_span.column + len(key))
                    arguments.append((key, value, key_span))
                continue
            key_span = _span(keyword, self.lines)
            key_span = key_span._replace(end_line=key_span.line, end_column=key_span.column + len(keyword.arg))
            arguments.append((keyword.arg, keyword.value, key_span))
        for name, written, key_span in arguments:
            if written is None:  # `kw["beta"] = ...` added on some path: its name is checked, its value never
                unknown[name] = Entry(name, None, key_span, key_span)
                continue
            if (chain := _attribute_chain(written)) is not None:
                attributes[name] = chain
            if names and (read_of := view(written, names)) is not None:
                found, default = read_of
                loaded[name] = LoadedRead(found.kind, found.source, found.keys, default)
            elif names and (given := overridden(written, names)) is not None:
                loaded[name] = given
            try:
                value: Any = bounded(ast.literal_eval(written), self._source(written))
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                unknown[name] = Entry(name, None, key_span, _span(written, self.lines))
                if type(written) is ast.Name:
                    bare[name] = (self.scopes[-1].id, written.id)
                continue
            entry = Entry(name, value, key_span, _span(written, self.lines))
            if isinstance(written, ast.List | ast.Tuple):
                entry.item_spans = [_span(item, self.lines) for item in written.elts]
            entries[name] = entry
        seen: set[str] = set()
        repeated = []
        for keyword in node.keywords:
            if keyword.arg is not None and keyword.arg in seen:
                span = _span(keyword, self.lines)
                repeated.append(
                    (keyword.arg, span._replace(end_line=span.line, end_column=span.column + len(keyword.arg)))
                )
            elif keyword.arg is not None:
                seen.add(keyword.arg)
        return ConfigCall(
            _span(node, self.lines), entries, tuple(unknown), callee, unknown, attributes, spread, loaded or None,
            bare or None, tuple(repeated),
        )  # fmt: skip

    def _sampler(self, node: ast.Call, name: str) -> SamplerCall:
        seed_node = next((k.value for k in node.keywords if k.arg == "seed"), None)
        if seed_node is None and len(node.args) >= 6:
            seed_node = node.args[5]  # DistributedSampler(dataset, num_replicas, rank, shuffle, seed, ...)
        shuffle = next((k.value for k in node.keywords if k.arg == "shuffle"), None)
        shuffle_off = isinstance(shuffle, ast.Constant) and shuffle.value is False
        params = set(self.scope.params)
        forwarded = [k.value for k in node.keywords] + list(node.args[1:])
        forwards = any(isinstance(v, ast.Name) and v.id in params for v in forwarded) or any(
            isinstance(v, ast.IfExp) for v in forwarded
        )
        return SamplerCall(
            name,
            _span(node, self.lines),
            self._source(seed_node) if seed_node is not None else None,
            isinstance(seed_node, ast.Constant),
            shuffle_off,
            self.scope.id,
            isinstance(seed_node, ast.Name) and seed_node.id in params,
            forwards,
        )


_ARGPARSE = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args"})


_ARGPARSE_FACTS = _ARGPARSE | {"ArgumentParser", "add_subparsers"}  # what decides whether a parser is shown whole


def _as_given(command: ast.expr) -> str | None:
    """The parameter a command is, word for word: `cmd`, `list(cmd)`, `[str(part) for part in cmd]`."""
    if type(command) is ast.Name:
        return command.id
    if type(command) is ast.Call and _called_name(command.func) in ("list", "tuple") and len(command.args) == 1:
        return _as_given(command.args[0])
    if type(command) is ast.ListComp and len(command.generators) == 1:
        loop = command.generators[0]
        element = command.elt
        if type(element) is ast.Call and _called_name(element.func) in ("str", "fspath") and len(element.args) == 1:
            element = element.args[0]
        same = type(loop.target) is ast.Name and type(element) is ast.Name and element.id == loop.target.id
        return loop.iter.id if same and not loop.ifs and type(loop.iter) is ast.Name else None
    return None


def _shell_read(node: ast.Call, name: str) -> bool:
    """Whether a process call hands its command to a shell: `os.system`, or `shell=True`."""
    return name.rpartition(".")[2] == "system" or any(
        k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords
    )


def _called_name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


_PARSE_METHODS = frozenset({
    "parse_args_and_config", "parse_args_into_dataclasses", "parse_yaml_file", "parse_json_file", "parse_dict",
})  # fmt: skip


def _module_chain(node: ast.expr) -> bool:
    """`torch.cuda.manual_seed_all`: names only, down to the called attribute (no call, no subscript)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _from_run_config(value: ast.expr) -> bool:
    """A seed that is the same for every request: the run's seed (`self.args.seed`, `args.seed`,
    `config.seed`) or a number."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, int) and not isinstance(value.value, bool)
    return isinstance(value, ast.Attribute) and value.attr == "seed"


def index(text: str, path: str = "<unknown>") -> PythonIndex | None:
    """The facts of one module, or None when it does not parse (one pass)."""
    found = read(text, path)
    return getattr(found, "index", None)
