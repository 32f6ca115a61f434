"""Python training code, read with `ast` only (never imported or run): GRPOConfig(...) calls with
their literal keyword arguments, and the facts the seeding rules need."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from grpo_lint.diagnostics import Span
from grpo_lint.sources.document import Entry, ReadProblem
from grpo_lint.sources.numbers import bounded

SEED_CALLS = {
    "manual_seed": "torch.manual_seed",
    "manual_seed_all": "torch.cuda.manual_seed_all",
    "seed": "random.seed / np.random.seed",
    "set_seed": "set_seed",
    "seed_everything": "seed_everything",
}
_DISTRIBUTED_NAMES = frozenset({
    "init_process_group", "Accelerator", "DistributedDataParallel", "DDP", "DistributedSampler",
    "get_rank", "get_world_size", "PartialState", "initialize",
})  # fmt: skip
_DISTRIBUTED_STRINGS = frozenset({"LOCAL_RANK", "RANK", "WORLD_SIZE"})
_DISTRIBUTED_MODULES = ("accelerate", "torch.distributed", "deepspeed")
_RANK = re.compile(r"rank|process_index|local_process_index|device_specific", re.IGNORECASE)
_SAMPLERS = ("DistributedSampler", "RepeatSampler", "RepeatRandomSampler")
# Trainers that generate completions themselves: a subclass samples through them.
_SAMPLING_TRAINERS = ("GRPO", "RLOO", "PPO", "OnlineDPO", "GKD", "Rollout", "XPO", "NashMD")
_GLOBAL_MANUAL_SEEDS = frozenset({
    "manual_seed", "manual_seed_all", "torch.manual_seed", "torch.random.manual_seed", "torch.cuda.manual_seed",
    "torch.cuda.manual_seed_all", "cuda.manual_seed", "cuda.manual_seed_all", "torch.npu.manual_seed",
    "torch.npu.manual_seed_all", "torch.xpu.manual_seed_all",
})  # fmt: skip


class ConfigCall(NamedTuple):
    """A `GRPOConfig(...)` call: its literal keyword arguments as entries."""

    span: Span
    entries: dict[str, Entry]
    unknown: tuple[str, ...]  # keyword arguments whose value is not a literal


class SeedCall(NamedTuple):
    name: str  # as written: torch.manual_seed, set_seed, ...
    span: Span
    argument: str  # the seed expression as written
    rank_aware: bool
    device_specific: bool
    in_trainer_subclass: bool
    in_generation_loop: bool
    scope: int = 0  # which function it is called in
    in_quiet_trainer: bool = False  # inside a trainer class that never calls generate (SFT, DPO, reward)


class SamplerCall(NamedTuple):
    name: str
    span: Span
    seed: str | None  # the seed expression as written; None when missing
    seed_is_literal: bool
    shuffle_off: bool


class PythonFile(NamedTuple):
    path: str
    text: str
    configs: list[ConfigCall]
    seeds: list[SeedCall]
    samplers: list[SamplerCall]
    distributed: bool  # initialises a process group, uses accelerate/DDP/deepspeed, reads RANK ...
    samples: bool  # GRPO code or a generation loop: where identical streams mean identical groups
    uses_grpo_trainer: bool  # constructs a GRPOTrainer, which reseeds each process with seed + rank
    is_test: bool
    other_trainer: bool = False  # trains with a trainer from trl.experimental, which reads the config its own way
    unsloth: bool = False  # imports unsloth, whose patched GRPOConfig adjusts the batch instead of failing


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
    lines = text.splitlines()
    visitor = _Visitor(lines)
    with _deep_enough():
        visitor.visit(tree)
    identifiers = visitor.identifiers
    modules = visitor.modules
    distributed = bool(identifiers & _DISTRIBUTED_NAMES) or bool(visitor.strings & _DISTRIBUTED_STRINGS)
    distributed = distributed or any(m == d or m.startswith(d + ".") for m in modules for d in _DISTRIBUTED_MODULES)
    samples = (
        any("grpo" in name.lower() for name in identifiers | modules)
        or "generate" in visitor.attributes
        or "num_generations" in identifiers
    )
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    is_test = (
        name.startswith("test_")
        or name.endswith("_test.py")
        or "/tests/" in "/" + path.replace("\\", "/")
        or bool({"pytest", "unittest"} & {m.split(".")[0] for m in modules})
    )
    return PythonFile(
        path,
        text,
        visitor.configs,
        _rank_aware(visitor.seeds, visitor.rank_names),
        visitor.samplers,
        distributed,
        samples,
        "GRPOTrainer" in visitor.called,
        is_test,
        visitor.experimental_trainer,
        any(m == "unsloth" or m.startswith("unsloth.") for m in modules),
    )


def _rank_aware(seeds: list[SeedCall], rank_names: set[str]) -> list[SeedCall]:
    """Seeds whose value comes from a rank variable are rank-aware; a constant seed that the same
    function later replaces with a rank-aware one is a deliberate sync (e.g. of a shuffled
    DataLoader's order before accelerator.prepare), not the stream the ranks sample with."""
    marked = [
        s._replace(rank_aware=True) if not s.rank_aware and _last_name(s.argument) in rank_names else s for s in seeds
    ]
    reseeded = {s.scope: s.span.line for s in marked if s.rank_aware and s.scope}
    return [
        s._replace(rank_aware=True) if s.scope in reseeded and s.span.line < reseeded[s.scope] else s for s in marked
    ]


def _last_name(expression: str) -> str:
    return re.split(r"[^A-Za-z0-9_]+", expression.strip())[-1] if expression.strip() else ""


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


def _called_name(func: ast.expr) -> str:
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


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


class _Visitor(ast.NodeVisitor):
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.configs: list[ConfigCall] = []
        self.seeds: list[SeedCall] = []
        self.samplers: list[SamplerCall] = []
        self.identifiers: set[str] = set()
        self.attributes: set[str] = set()
        self.modules: set[str] = set()
        self.strings: set[str] = set()
        self.called: set[str] = set()
        self.trainer_class = 0
        self.quiet_trainer = 0
        self.generation_function = 0
        self.experimental_trainer = False
        self.rank_names: set[str] = set()  # variables assigned from the rank (`local_seed = seed + rank`)
        self.scope = 0  # the function a call is in (0: module level)
        self.scopes = 1

    def visit_Import(self, node: ast.Import) -> None:
        self.modules.update(alias.name for alias in node.names)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module:
            self.modules.add(node.module)
            if node.module.startswith("trl.experimental") and any(a.name.endswith("Trainer") for a in node.names):
                self.experimental_trainer = True
        self.identifiers.update(alias.name for alias in node.names)

    def visit_Name(self, node: ast.Name) -> None:
        self.identifiers.add(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.attributes.add(node.attr)
        self.identifiers.add(node.attr)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            self.strings.add(node.value)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        trainer = any("GRPO" in _called_name(base) or "Trainer" in _called_name(base) for base in node.bases)
        # Only a trainer that samples can give its ranks identical completions: SFT, DPO, KTO and reward
        # trainers never call generate.
        samples = any(any(s in _called_name(base) for s in _SAMPLING_TRAINERS) for base in node.bases) or any(
            isinstance(inner, ast.Call) and "generate" in _called_name(inner.func).split(".")[-1]
            for inner in ast.walk(node)
        )
        quiet = trainer and not samples
        trainer = trainer and samples
        self.trainer_class += trainer
        self.quiet_trainer += quiet
        self.generic_visit(node)
        self.trainer_class -= trainer
        self.quiet_trainer -= quiet

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        generates = any(
            isinstance(inner, ast.Call) and _called_name(inner.func).split(".")[-1] == "generate"
            for inner in ast.walk(node)
        )
        self.generation_function += generates
        outer, self.scope = self.scope, self.scopes
        self.scopes += 1
        self.generic_visit(node)
        self.scope = outer
        self.generation_function -= generates

    def visit_Assign(self, node: ast.Assign) -> None:
        names = (
            n.id if isinstance(n, ast.Name) else n.attr
            for n in ast.walk(node.value)
            if isinstance(n, ast.Name | ast.Attribute)
        )
        if any(_RANK.search(name) for name in names):
            for target in node.targets:
                if isinstance(target, ast.Name | ast.Attribute):
                    self.rank_names.add(target.id if isinstance(target, ast.Name) else target.attr)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        name = _called_name(node.func)
        last = name.split(".")[-1]
        self.called.add(last)
        if last == "GRPOConfig":
            self.configs.append(self._config(node))
        elif last in SEED_CALLS and node.args and self._is_seed_call(name, last):
            self.seeds.append(self._seed(node, name))
        elif last in _SAMPLERS:
            self.samplers.append(self._sampler(node, last))
        self.generic_visit(node)

    @staticmethod
    def _is_seed_call(name: str, last: str) -> bool:
        if last == "seed":  # random.seed(...), np.random.seed(...), numpy.random.seed(...)
            return name in ("random.seed", "np.random.seed", "numpy.random.seed")
        if last in ("manual_seed", "manual_seed_all"):
            # the global streams only: a torch.Generator seeded alike on every rank (TRL's RepeatSampler)
            # keeps the prompt order the same on every rank, which grouping needs
            return name in _GLOBAL_MANUAL_SEEDS
        return True

    def _source(self, node: ast.AST) -> str:
        """The node as written (one line), else as ast renders it."""
        line, end = getattr(node, "lineno", 0), getattr(node, "end_lineno", 0)
        if line and line == end and 0 < line <= len(self.lines):
            data = self.lines[line - 1].encode("utf-8")
            return data[node.col_offset : node.end_col_offset].decode("utf-8", "replace")  # type: ignore[attr-defined]
        return ast.unparse(node)

    def _config(self, node: ast.Call) -> ConfigCall:
        entries: dict[str, Entry] = {}
        unknown: list[str] = []
        for keyword in node.keywords:
            if keyword.arg is None:  # **kwargs
                continue
            try:
                value: Any = bounded(ast.literal_eval(keyword.value), self._source(keyword.value))
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                unknown.append(keyword.arg)
                continue
            key_span = _span(keyword, self.lines)
            key_span = key_span._replace(end_line=key_span.line, end_column=key_span.column + len(keyword.arg))
            entry = Entry(keyword.arg, value, key_span, _span(keyword.value, self.lines))
            if isinstance(keyword.value, ast.List | ast.Tuple):
                entry.item_spans = [_span(item, self.lines) for item in keyword.value.elts]
            entries[keyword.arg] = entry
        return ConfigCall(_span(node, self.lines), entries, tuple(unknown))

    def _seed(self, node: ast.Call, name: str) -> SeedCall:
        argument = node.args[0]
        written = self._source(argument)
        device_specific = any(
            k.arg == "device_specific" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in node.keywords
        )
        rank_aware = bool(_RANK.search(written)) or device_specific
        return SeedCall(
            name,
            _span(node, self.lines),
            written,
            rank_aware,
            device_specific,
            self.trainer_class > 0,
            self.generation_function > 0,
            self.scope,
            self.quiet_trainer > 0 and self.trainer_class == 0,
        )

    def _sampler(self, node: ast.Call, name: str) -> SamplerCall:
        seed_node = next((k.value for k in node.keywords if k.arg == "seed"), None)
        shuffle = next((k.value for k in node.keywords if k.arg == "shuffle"), None)
        shuffle_off = isinstance(shuffle, ast.Constant) and shuffle.value is False
        return SamplerCall(
            name,
            _span(node, self.lines),
            self._source(seed_node) if seed_node is not None else None,
            isinstance(seed_node, ast.Constant),
            shuffle_off,
        )
