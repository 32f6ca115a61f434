"""The repository's Python modules, resolved across files: which parser reads a launched script's
arguments, with which keys, and which trainer consumes them. Read with `ast` only.

A training script parses its arguments with `TrlParser((ScriptArguments, GRPOConfig, ModelConfig))` or
`HfArgumentParser(...)` over dataclasses that may live in other modules of the repository (absolute and
relative imports, re-exports in a package's `__init__`, several levels of inheritance, a base class in a
third module). `Modules.program` follows those names to their class definitions; the union of their
fields is the key set the script accepts. Classes of TRL and transformers count as the framework's own
(the field tables know them); a class that cannot be resolved (defined dynamically, or in a package
grpo-lint does not know) makes the key set unknown, and then no key is reported unknown.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from grpo_lint.limits import MAX_PYTHON_BYTES
from grpo_lint.patterns import lazy_bytes
from grpo_lint.records import Record

if TYPE_CHECKING:
    from grpo_lint.sources.python_code import PythonFile
    from grpo_lint.sources.python_index import Field, Imported, PythonIndex

_KEPT_FILE_BYTES = 64 * 1024  # a Python file this small is kept once read, up to _KEPT_BYTES for the run
_KEPT_BYTES = 16 * 1024 * 1024
_MAX_DEPTH = 12  # names followed through imports and bases before giving up
# Packages whose argument classes the field tables cover (their fields are the framework's own keys).
_FRAMEWORK_PACKAGES = ("trl", "transformers", "unsloth")
# Packages whose classes add no fields a config could set (Generic, ABC, Enum, ...).
_FIELDLESS = ("typing", "abc", "enum", "dataclasses", "collections", "builtins", "object")
_TRL_CONFIGS = frozenset({"GRPOConfig"})
_TRL_TRAINERS = frozenset({"GRPOTrainer"})


class ClassRef(Record):
    file: str | None  # the repository file that defines it; None for a class of an installed package
    module: str  # the package module it comes from (for an installed package)
    name: str


_NAME = lazy_bytes(rb"[A-Za-z_][A-Za-z0-9_]{5,}")


# Bytes of a script that may start a training run; and its imports (`from pkg.train import main`, `import pkg`).
_PROGRAM_NEEDLES = (
    b"Trainer", b"Parser", b"parse_args", b"add_argument", b"GRPO", b"grpo", b"hydra", b"rlhf", b"trl", b"verl",
    b"swift", b"openrlhf", b".train(", b"Config(",
)  # fmt: skip
_IMPORTED = lazy_bytes(rb"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import|import[ \t]+([\w.]+))", re.M)


class Program(Record):
    """What a training script shows about the run it starts."""

    parser: str | None  # `grpo.py:38 TrlParser((ScriptArguments, GRPOConfig, ModelConfig))`, None: no parser
    keys_known: bool  # every argument class resolved: the key set is the framework's plus `own_keys`
    own_keys: frozenset[str]  # fields the repository's own classes add
    unresolved: tuple[str, ...]  # class names that could not be followed
    trl_config: bool  # TRL's GRPOConfig (or a subclass of it) is among the parser's classes
    own_trainer: str  # a trainer of the repository's own that does not extend TRL's GRPOTrainer, or ""
    trains: bool  # builds a GRPO config or trainer at all (a GRPO training script)
    flags: frozenset[str]  # argparse flags it defines
    # Unknown keys are handed back to the script (`return_remaining_strings=True`,
    # `fail_with_unknown_args=False`, `allow_extra_keys=True`): what it does with them is its own business.
    keeps_unknown: bool = False
    # Fields that an argument class of the repository's own (one between the parser's and TRL's GRPOConfig, itself
    # left out) assigns in its `__post_init__`: the checks TRL makes there see another value than the config's.
    # (field, where): `("num_generations", "CodeGRPOConfig.__post_init__ (trl/trainer/code_grpo_config.py:554)")`.
    rewritten: tuple[tuple[str, str], ...] = ()
    # The checks of TRL's GRPOTrainer that `own_trainer`'s file still makes, word for word (a copy of TRL's trainer
    # that keeps `Number of reward weights (...) must match number of reward functions`): rule codes.
    trainer_checks: frozenset[str] = frozenset()
    # Fields of the repository's own argument classes that take a value on the command line (`str`, `int`, `float`, a
    # list, or one of them Optional), with what argparse says when one is written with none ("expected one argument").
    takes_value: tuple[tuple[str, str], ...] = ()
    # The batch `own_trainer` checks holds whole groups, where its file keeps TRL 0.15-0.17's check word for word:
    # "global" (processes x per-device batch, 0.15-0.16) or "effective" (x gradient accumulation, 0.17); "" if not.
    trainer_batch: str = ""
    # Fields of the script's own argument classes with no default: HfArgumentParser makes their flags required.
    required: frozenset[str] = frozenset()
    # The parser takes TRL's ScriptArguments (or a class of the repository's on it that gives dataset_name no default):
    # `dataset_name` is required before TRL 0.18.0.
    trl_dataset_name: bool = False


# An annotation HfArgumentParser gives a value to: `str`, `Optional[int]`, `list[str]` (group 1: a list, nargs="+"),
# `str | None`; not `bool`.
_TAKES_VALUE = re.compile(r"(?:Optional\[\s*)?(?:str|int|float|((?:list|List)\[[^\]]*\]))(?:\s*\])?(?:\s*\|\s*None)?")


_TRL_SCRIPT_ARGUMENTS = frozenset({"ScriptArguments", "GRPOScriptArguments"})
# Folders of a library a repository ships (a copy of verl, TRL, vLLM): broken_import does not walk their modules.
_VENDORED = frozenset({"verl", "trl", "openrlhf", "swift", "vllm", "transformers", "deepspeed", "third_party"})
# An import a module's top level makes (an unindented line): `import a.b as c, d`, `from .x import y, z`.
_TOP_IMPORT = re.compile(
    rb"^(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([\w, \t]+)|import[ \t]+([\w., \t]+))", re.M
)


def _top_imports(data: bytes) -> list[tuple[str, str | None, int]]:
    """(module, imported name or None, relative level) for each import of a module's top level."""
    found: list[tuple[str, str | None, int]] = []
    for match in _TOP_IMPORT.finditer(data):
        dots, module, names, plain = match.groups()
        if plain is not None:
            for part in plain.decode("ascii", "replace").split(","):
                words = part.split()
                if words:
                    found.append((words[0], None, 0))
            continue
        for part in names.decode("ascii", "replace").split(","):
            words = part.split()
            if words and words[0] != "*":
                found.append((module.decode("ascii", "replace"), words[0], len(dots)))
    return found


# What TRL's GRPOTrainer raises for a rule's check (TRL 0.14-0.29 trainer sources), as a copy of it keeps the text
# (an f-string may be cut in two between words: `... must match number of reward "` `f"functions ...`).
_GAP = rb"(?:\s|[\"']\s*f?[\"'])+"
_TRAINER_BATCH = lazy_bytes(rb"The (global|effective) train batch size \([^\n]*\) must be evenly")
_TRAINER_CHECKS = (
    ("GRPO403", lazy_bytes(rb"must match number of reward" + _GAP + rb"functions")),
    ("GRPO402", lazy_bytes(rb"must divide" + _GAP + rb"world size")),
)


# The files that may name a config a run uses (launch scripts, notes, code, configs), and how much of each is read.
_NAMING_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch", ".md", ".rst", ".txt", ".py", ".ipynb", ".yaml", ".yml",
                    ".json", ".toml", "Makefile")  # fmt: skip
_NAMING_BYTES = 1 << 20


class Modules:
    """The repository's Python files, read on demand and kept for the run."""

    def __init__(self, root: Path, files: list[str], complete: bool = False) -> None:
        self.root = root
        self._all = files
        self._python: list[str] | None = None
        self.complete = complete  # every Python file of the repository is in `files`
        self._codes: dict[str, PythonFile | None] = {}
        self._suffixes: dict[str, list[str]] | None = None
        self._programs: dict[str, Program | None] = {}
        self._mentions: dict[bytes, bool] = {}
        self._identifiers: frozenset[bytes] | None = None
        self._bytes: dict[str, bytes | None] = {}  # small files read so far (see bytes_of)
        self._copies: dict[str, list[str]] = {}
        self._compiled: dict[str, tuple[str, int] | None] = {}  # what Python's compiler said of a file (broken_import)
        self._imports_of: dict[str, list[str]] = {}  # the repository files a file's top level imports
        self._broken: dict[str, tuple[list[str], str, int] | None] = {}
        self._relative: dict[str, str | None] = {}
        self._submodules: tuple[str, ...] | None = None
        self._kept = 0
        # Hydra config trees composed for the run's launches (grpo_lint.launch.compose_entry), and their files.
        self.compositions: dict[object, object] = {}
        self.config_files: dict[Path, object] = {}
        self.hydra_entries: dict[str, object] = {}  # entry file -> grpo_lint.launch.entries.HydraEntry or None

    @property
    def files(self) -> list[str]:
        """The repository's Python files (picked from its file list when first asked for)."""
        if self._python is None:
            self._python = [f for f in self._all if f.endswith(".py")]
        return self._python

    def code(self, relative: str, text: str | None = None) -> PythonFile | None:
        """The module read once for the whole run (grpo_lint.sources.python_code), or None when it is not
        in the repository or does not parse. `text`: the module's text when the caller has it already."""
        if relative not in self._codes:
            from grpo_lint.sources.document import ReadProblem
            from grpo_lint.sources.parse_cache import read

            if text is None:
                data = self.bytes_of(relative)
                text = None if data is None else data.decode("utf-8", "replace")
            found = read(text, relative) if text is not None else None
            self._codes[relative] = None if isinstance(found, ReadProblem) else found
        return self._codes[relative]

    def add(self, relative: str, code: PythonFile) -> None:
        """A module read elsewhere (grpo_lint.sources.parallel) from the text `code()` would have read."""
        self._codes.setdefault(relative, code)

    def forget_configs(self) -> None:
        """A config changed (an editor's buffer): what was composed or read of config files is read again (whether an
        entry runs verl is read from its config too)."""
        self.compositions.clear()
        self.config_files.clear()
        self.hydra_entries.clear()

    def bytes_of(self, relative: str) -> bytes | None:
        """A Python file of the repository as bytes, or None when it cannot be read (too large, outside, gone). The
        small ones are kept for the run, up to a budget (a launched script is looked at for a Hydra app and then for
        what it trains)."""
        if relative in self._bytes:
            return self._bytes[relative]
        from grpo_lint.sources.document import ReadProblem
        from grpo_lint.sources.reading import read_file

        data = read_file(self.root / relative, MAX_PYTHON_BYTES, within=self.root)
        found = None if isinstance(data, ReadProblem) else data
        size = len(found or b"")
        if size <= _KEPT_FILE_BYTES and self._kept + size <= _KEPT_BYTES:
            self._bytes[relative] = found
            self._kept += size
        return found

    @property
    def submodules(self) -> tuple[str, ...]:
        """The folders `.gitmodules` names (`recipe`, `third_party/verl`): what they hold is another repository's,
        and a checkout without `--recursive` leaves them empty, so a file missing there is not shown missing."""
        if self._submodules is None:
            from grpo_lint.sources.document import ReadProblem
            from grpo_lint.sources.reading import read_file
            from grpo_lint.workspace.pins import submodules

            data = read_file(self.root / ".gitmodules", 256 * 1024, within=self.root)
            text = "" if isinstance(data, ReadProblem) else data.decode("utf-8", "replace")
            self._submodules = tuple(path.strip("/") for path, _ in submodules(text) if path.strip("/"))
        return self._submodules

    def in_submodule(self, path: Path | str) -> bool:
        """Whether a path (absolute, or relative to the root) lies in a folder `.gitmodules` names."""
        if not self.submodules:
            return False
        relative = self.relative(path) if os.path.isabs(path) else str(path).replace(os.sep, "/")
        if relative is None:
            return False
        return any(relative == folder or relative.startswith(folder + "/") for folder in self.submodules)

    def copies_of(self, main: str) -> list[str]:
        """The folders that hold a file at `main` (`verl/trainer/main_ppo.py`) in a package of that name (its
        `verl/__init__.py` beside it): "" for the root, else `third_party/x`. A folder of the package's files
        without its `__init__.py` is no copy that runs: Python imports an installed package of that name before
        such a folder (a namespace portion), so its files overlay a copy the repository does not ship. Looked for
        once per run (every launch of verl asks)."""
        found = self._copies.get(main)
        if found is None:
            ending = "/" + main
            folders = [name[: -len(main)].rstrip("/") for name in self.files if name == main or name.endswith(ending)]
            if folders:
                files, package = set(self.files), main.partition("/")[0] + "/__init__.py"
                folders = [f for f in folders if (f"{f}/{package}" if f else package) in files]
            found = self._copies[main] = folders
        return found

    def mentions(self, needle: bytes) -> bool:
        """Whether any Python file of the repository holds `needle` (a byte search, once per needle)."""
        if needle not in self._mentions:
            self._mentions[needle] = any(needle in (self.bytes_of(name) or b"") for name in self.files)
        return self._mentions[needle]

    def names_file(self, relative: str) -> bool:
        """Whether another text file of the repository (a script, a README, Python, a config) names the file at
        `relative`: by its path from the root or from above (`configs/ds.yaml`), or by its name in a file of its own
        folder. Read only when a rule needs to know that some run uses the file (a rare question: bounded reads)."""
        from grpo_lint.sources.document import ReadProblem
        from grpo_lint.sources.reading import read_file

        folder, _, name = relative.rpartition("/")
        tail = (folder.rpartition("/")[2] + "/" + name if folder else name).encode()
        for other in self._all:
            if other == relative or not other.endswith(_NAMING_SUFFIXES):
                continue
            beside = other.rpartition("/")[0] == folder
            data = read_file(self.root / other, _NAMING_BYTES, within=self.root)
            if isinstance(data, ReadProblem):
                continue
            if tail in data or (beside and name.encode() in data) or (folder and folder.encode() + b"/" in data):
                return True
        return False

    def mentions_in(self, relative: str, needle: bytes) -> bool:
        """Whether one file of the repository holds `needle` (a file that cannot be read: True, its parse says why)."""
        data = self.bytes_of(relative)
        return data is None or needle in data

    def identifiers(self) -> frozenset[bytes]:
        """Every name of 6 or more characters written in the repository's Python files (attributes, strings,
        fields): what its code can read a config key by. Read once, when a rule first asks."""
        if self._identifiers is None:
            found: set[bytes] = set()
            for name in self.files:
                found.update(_NAME.findall(self.bytes_of(name) or b""))
            self._identifiers = frozenset(found)
        return self._identifiers

    def index(self, relative: str) -> PythonIndex | None:
        code = self.code(relative)
        return code.index if code is not None else None

    def relative(self, path: str | Path) -> str | None:
        """The path relative to the root (`/`-separated), None outside it; asked once per path and run."""
        key = os.fspath(path)
        if key in self._relative:
            return self._relative[key]
        from grpo_lint.sources.reading import relative_to

        relative: str | None = relative_to(path, self.root).replace(os.sep, "/")
        if relative is not None and relative.startswith(".."):
            relative = None
        self._relative[key] = relative
        return relative

    # --- modules ---------------------------------------------------------------------------------

    def ending_with(self, tail: str) -> list[str]:
        """The repository's files (any kind) whose path is `tail` or ends with `/tail`."""
        if tail.endswith(".py"):
            return list(self._by_suffix().get(tail, ()))
        end = "/" + tail
        return [name for name in self._all if name == tail or name.endswith(end)]

    def _by_suffix(self) -> dict[str, list[str]]:
        if self._suffixes is None:
            table: dict[str, list[str]] = {}
            for name in self.files:
                parts = name.split("/")
                for start in range(len(parts)):
                    table.setdefault("/".join(parts[start:]), []).append(name)
            self._suffixes = table
        return self._suffixes

    def module_file(self, module: str, level: int, importer: str) -> str | None:
        """The repository file of `module` as `importer` imports it (relative with `level` dots)."""
        path = module.replace(".", "/")
        if level:
            base = importer.rpartition("/")[0]
            for _ in range(level - 1):
                base = base.rpartition("/")[0]
            stem = f"{base}/{path}".strip("/") if path else base
            for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                if candidate in self._codes or (self.root / candidate).is_file():
                    return candidate
            return None
        found = self._by_suffix().get(f"{path}.py", []) + self._by_suffix().get(f"{path}/__init__.py", [])
        found = [f for f in found if f == f"{path}.py" or f == f"{path}/__init__.py" or f.endswith("/" + path + ".py")
                 or f.endswith("/" + path + "/__init__.py")]  # fmt: skip
        if not found:
            return None
        here = importer.split("/")
        return max(found, key=lambda f: (_shared(f.split("/"), here), -f.count("/")))

    def broken_import(self, relative: str, limit: int = 40) -> tuple[list[str], str, int] | None:
        """A module that running `relative` imports at once (the imports its top level makes, and theirs) and that
        Python cannot compile: the chain from `relative` to it, the error and its line. None when each compiles (or
        is not the repository's). Read with Python's own compiler and a look at each file's unindented import lines,
        not parsed into facts (a launch's imports may reach hundreds of modules); at most `limit` files, and not into a
        library the repository ships (`verl/`, `trl/`, `third_party/`)."""
        if relative in self._broken:
            return self._broken[relative]
        self._broken[relative] = found = self._broken_import(relative, limit)
        return found

    def _broken_import(self, relative: str, limit: int) -> tuple[list[str], str, int] | None:
        queue, seen = [[relative]], {relative}
        while queue:
            chain = queue.pop(0)
            data = self.bytes_of(chain[-1])
            if data is None:
                continue
            problem = self._compile_problem(chain[-1], data)
            if problem is not None:
                return chain, *problem
            if chain[-1] not in self._imports_of:
                self._imports_of[chain[-1]] = [
                    target
                    for module, name, level in _top_imports(data)
                    for target in self._imported_files(module, name, level, chain[-1])
                ]
            for target in self._imports_of[chain[-1]]:
                if target not in seen and len(seen) < limit and not _VENDORED.intersection(target.split("/")[:-1]):
                    seen.add(target)
                    queue.append([*chain, target])
        return None

    def _compile_problem(self, relative: str, data: bytes) -> tuple[str, int] | None:
        """Why Python cannot compile a repository file (its syntax error and line), None when it can."""
        if self._codes.get(relative) is not None:
            return None  # (parsed already)
        if relative not in self._compiled:
            import ast
            import warnings

            try:
                with warnings.catch_warnings():  # (an invalid escape in the user's code is not grpo-lint's to print)
                    warnings.simplefilter("ignore")
                    compile(data, relative, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
                self._compiled[relative] = None
            except SyntaxError as exc:
                self._compiled[relative] = (f"{type(exc).__name__}: {exc.msg}", exc.lineno or 1)
            except (ValueError, RecursionError, MemoryError):
                self._compiled[relative] = None  # (NUL bytes, nesting: other rules say so)
        return self._compiled[relative]

    def _imported_files(self, module: str, name: str | None, level: int, importer: str) -> list[str]:
        """The repository files an import runs: each package on the way (`a/__init__.py` for `import a.b`), the module,
        and the submodule a `from` names. An absolute import counts only a file below a folder the importer is in
        (where Python looks first: the script's folder, the root), never another project's module of that name."""
        names = [".".join(module.split(".")[: i + 1]) for i in range(len(module.split(".")))] if module else []
        if name:
            names.append(f"{module}.{name}" if module else name)
        found: list[str] = []
        for dotted_name in names:
            file = self.module_file(dotted_name, level, importer)
            if file is None or file in found:
                continue
            if not level:
                tail = dotted_name.replace(".", "/")
                base = file.removesuffix(f"{tail}.py").removesuffix(f"{tail}/__init__.py")
                if not importer.startswith(base):
                    continue
            found.append(file)
        return found

    def resolve(self, importer: str, name: str, depth: int = 0) -> ClassRef | None:
        """The class a (dotted) name means in a module, followed through imports and re-exports."""
        if depth > _MAX_DEPTH or not name:
            return None
        facts = self.index(importer)
        if facts is None:
            return None
        first, _, rest = name.partition(".")
        if not rest and first in facts.classes:
            return ClassRef(importer, "", first)
        imported = facts.imports.get(first)
        if imported is not None:
            return self._through(importer, imported, rest, depth)
        for star in facts.star_imports:
            file = self.module_file(star.module, star.level, importer)
            if file is not None and file != importer:
                found = self.resolve(file, name, depth + 1)
                if found is not None:
                    return found
        return None

    def _through(self, importer: str, imported: Imported, rest: str, depth: int) -> ClassRef | None:
        module = imported.module
        if imported.name is None:  # `import pkg.mod as m` then `m.Class`
            if not rest:
                return None
            *inner, symbol = rest.split(".")
            module = ".".join([module, *inner]) if module else ".".join(inner)
        else:
            symbol = imported.name
            if rest:  # `from pkg import mod` then `mod.Class`
                *inner, last = rest.split(".")
                module = ".".join(p for p in (module, symbol, *inner) if p)
                symbol = last
        file = self.module_file(module, imported.level, importer)
        if file is None and imported.name is not None and not rest:
            # `from pkg import mod` where mod is a module, not a class: nothing to resolve
            file = None
        if file is None:
            if imported.level:
                return None  # a relative import the repository does not hold
            return ClassRef(None, module, symbol)
        if file == importer:
            index = self.index(file)
            if index is None or symbol not in index.classes:
                return None
        return self.resolve(file, symbol, depth + 1)

    def function(self, importer: str, name: str, depth: int = 0) -> tuple[str, str] | None:
        """The repository file and name of the function a (dotted) name calls in a module, followed through
        its imports (`from trainer.trainer_utils import setup_seed`, `utils.seed_all`)."""
        facts = self.index(importer)
        code = self.code(importer)
        if facts is None or code is None or depth > _MAX_DEPTH:
            return None
        first, _, rest = name.partition(".")
        if not rest and any(f.name == first and not f.class_name for f in code.functions.values()):
            return importer, first
        imported = facts.imports.get(first)
        if imported is None:
            return None
        module, symbol = imported.module, imported.name
        if symbol is None:
            *inner, symbol = rest.split(".") if rest else [""]
            module = ".".join([module, *inner])
        elif rest:
            module = ".".join(p for p in (module, symbol, *rest.split(".")[:-1]) if p)
            symbol = rest.split(".")[-1]
        file = self.module_file(module, imported.level, importer)
        if file is None or not symbol:
            return None
        return self.function(file, symbol, depth + 1)

    # --- classes ---------------------------------------------------------------------------------

    def fields(self, ref: ClassRef, depth: int = 0) -> tuple[frozenset[str], bool, list[str], bool]:
        """The fields a class adds over the framework's own classes, whether every base resolved, the names
        that did not, and whether it is (or extends) TRL's GRPOConfig."""
        if ref.file is None:
            package = ref.module.split(".")[0]
            if package in _FRAMEWORK_PACKAGES:
                return frozenset(), True, [], package == "trl" and ref.name in _TRL_CONFIGS
            if package in _FIELDLESS or ref.name in ("object", "Generic"):
                return frozenset(), True, [], False
            return frozenset(), False, [f"{ref.module}.{ref.name}"], False
        facts = self.index(ref.file)
        if facts is None or depth > _MAX_DEPTH:
            return frozenset(), False, [ref.name], False
        own = {f.name for f in facts.classes[ref.name].fields}
        resolved, missing, trl = True, [], False
        for base in facts.classes[ref.name].bases:
            if base in ("object", "Generic") or base.startswith(("typing.", "abc.")):
                continue
            found = self.resolve(ref.file, base)
            if found is None:
                resolved = False
                missing.append(base)
                continue
            more, ok, lost, is_trl = self.fields(found, depth + 1)
            own |= more
            resolved = resolved and ok
            missing += lost
            trl = trl or is_trl
        return frozenset(own), resolved, missing, trl

    def declared_fields(self, ref: ClassRef, depth: int = 0) -> dict[str, Field]:
        """Each field a repository class (and its bases in the repository) declares, the class's own last."""
        facts = self.index(ref.file) if ref.file is not None else None
        if facts is None or depth > _MAX_DEPTH or ref.name not in facts.classes:
            return {}
        found: dict[str, Field] = {}
        for base in facts.classes[ref.name].bases:
            based = self.resolve(ref.file or "", base)
            if based is not None:
                found.update(self.declared_fields(based, depth + 1))
        found.update((f.name, f) for f in facts.classes[ref.name].fields)
        return found

    def extends(self, ref: ClassRef, package: str, names: frozenset[str], depth: int = 0) -> bool:
        """Whether a class is, or derives from, one of `names` of an installed `package`."""
        if ref.file is None:
            return ref.module.split(".")[0] == package and ref.name in names
        facts = self.index(ref.file)
        if facts is None or depth > _MAX_DEPTH:
            return False
        for base in facts.classes[ref.name].bases:
            found = self.resolve(ref.file, base)
            if found is not None and self.extends(found, package, names, depth + 1):
                return True
        return False

    # --- programs --------------------------------------------------------------------------------

    def program(self, path: str | Path) -> Program | None:
        """What a script of the repository shows: its parser and key set, its trainer. None when the file
        is not in the repository or does not parse."""
        relative = self.relative(path)
        if relative is None:
            return None
        if relative not in self._programs:
            self._programs[relative] = None  # (a module that imports itself back is not followed twice)
            if not self._may_be_program(relative):
                return None  # names nothing a training run is made of, and imports nothing of ours
            found = self._program(relative)
            if found is not None and not found.trains and found.parser is None:
                found = self._delegate(relative) or found
            self._programs[relative] = found
        return self._programs[relative]

    def _delegate(self, relative: str) -> Program | None:
        """A thin entry script (`main.py` that calls `train.pipeline.main()`): the training module it imports
        from the repository, when exactly one of them builds a GRPO run."""
        facts = self.index(relative)
        if facts is None:
            return None
        found: list[Program] = []
        for imported in facts.imports.values():
            module = imported.module
            file = self.module_file(module, imported.level, relative) if module or imported.level else None
            if file is None and imported.name is not None:
                joined = ".".join(p for p in (imported.module, imported.name) if p)
                file = self.module_file(joined, imported.level, relative)
            if file is None or file == relative:
                continue
            if file not in self._programs and not self._may_train(file):
                continue  # (a module that names no trainer and no parser is not parsed for this)
            program = self._programs[file] if file in self._programs else self._program(file)
            if program is not None and program.trains and program not in found:
                found.append(program)
        return found[0] if len(found) == 1 else None

    def overwritten(self, path: str | Path) -> tuple[tuple[str, object, int], ...]:
        """The parsed arguments a training script sets itself after its parser read them
        (`training_args.max_grad_norm = 1.0` after `parser.parse_args_and_config()`): (field, value, line). Only
        literal values, at the top of the function that parses (not under an `if`), are read. Follows a thin entry
        script into the module it delegates to."""
        relative = self.relative(path)
        if relative is None:
            return ()
        found = self._overwritten(relative)
        if found:
            return found
        program = self.program(path)
        if program is not None and program.parser:
            file = program.parser.split(":", 1)[0]
            if file != relative:
                return self._overwritten(file)
        return ()

    def _overwritten(self, relative: str) -> tuple[tuple[str, object, int], ...]:
        import ast

        from grpo_lint.sources.python_index import literal

        code = self.code(relative)
        if code is None or "parse_args" not in code.text:
            return ()
        try:
            tree = ast.parse(code.text)
        except (SyntaxError, ValueError, RecursionError):
            return ()
        found: list[tuple[str, object, int]] = []
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            parsed: set[str] = set()
            for statement in function.body:
                if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call):
                    callee = statement.value.func
                    if isinstance(callee, ast.Attribute) and callee.attr.startswith("parse_args"):
                        for target in statement.targets:
                            names = target.elts if isinstance(target, ast.Tuple) else [target]
                            parsed |= {n.id for n in names if isinstance(n, ast.Name)}
                        continue
                if not parsed or not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
                    continue
                target = statement.targets[0]
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id in parsed
                    and isinstance(statement.value, ast.Constant)
                ):
                    found.append((target.attr, literal(statement.value), statement.lineno))
        return tuple(found)

    def _may_be_program(self, relative: str) -> bool:
        """Whether a script may start a training run, by its bytes: it names a trainer, a parser, a framework or
        GRPO, or imports a module of the repository (a thin entry that hands on to one). Most scripts of a large
        repository (a data tool, a server) are then never parsed to learn that they train nothing."""
        data = self.bytes_of(relative)
        if data is None:
            return True  # (the parse says why)
        if any(needle in data for needle in _PROGRAM_NEEDLES):
            return True
        for match in _IMPORTED.finditer(data):
            module = (match.group(1) or match.group(2)).decode("ascii", "replace")
            if module.startswith(".") or self.module_file(module, 0, relative) is not None:
                return True
        return False

    def _may_train(self, relative: str) -> bool:
        data = self.bytes_of(relative) or b""
        return b"Trainer" in data or b"Parser" in data

    def _program(self, relative: str) -> Program | None:
        facts = self.index(relative)
        if facts is None:
            return None
        parser_text: str | None = None
        own: set[str] = set()
        unresolved: list[str] = []
        takes_value: dict[str, str] = {}
        required: set[str] = set()
        trl_dataset_name = False
        trl_config = False
        rewritten: dict[str, str] = {}
        if facts.parsers:
            call = facts.parsers[0]
            parser_text = f"{relative}:{call.line} {call.text}"
            for name in call.classes:
                ref = self.resolve(relative, name) if name else None
                if ref is None:
                    unresolved.append(name or "?")
                    continue
                declared = self.declared_fields(ref)
                for field, facts_of in declared.items():
                    kind = _TAKES_VALUE.fullmatch(facts_of.annotation.strip())
                    if kind is not None:
                        takes_value[field] = (
                            "expected at least one argument" if kind.group(1) else "expected one argument"
                        )
                    if facts_of.required:
                        required.add(field)
                if self.extends(ref, "trl", _TRL_SCRIPT_ARGUMENTS) and not (
                    "dataset_name" in declared and not declared["dataset_name"].required
                ):
                    trl_dataset_name = True  # (TRL's ScriptArguments, whose dataset_name has no default before 0.18)
                more, ok, missing, is_trl = self.fields(ref)
                own |= more
                unresolved += missing if not ok else []
                trl_config = trl_config or is_trl
                for field, where in self.post_init_writes(ref).items():
                    rewritten.setdefault(field, where)
        own_trainer = ""
        trainer_checks: frozenset[str] = frozenset()
        trainer_batch = ""
        trains = trl_config
        for name, line in facts.trainers:
            ref = self.resolve(relative, name)
            if ref is None:
                continue
            if self.extends(ref, "trl", _TRL_TRAINERS):
                trains = True
            elif "GRPO" in ref.name or "Grpo" in ref.name:
                trains = True
                where = f"{ref.file}:{self.index(ref.file).classes[ref.name].line}" if ref.file else ref.module  # type: ignore[union-attr]
                if not own_trainer:
                    own_trainer = f"{ref.name} ({where}, constructed at {relative}:{line})"
                    text = self.bytes_of(ref.file) if ref.file else None
                    trainer_checks = frozenset(code for code, mark in _TRAINER_CHECKS if text and mark.search(text))
                    batch = _TRAINER_BATCH.search(text) if text else None
                    if batch is not None:  # (TRL 0.15-0.17's own check of the batch, kept in the copy)
                        trainer_batch = batch.group(1).decode()
                        trainer_checks |= {"GRPO102"}
        keeps = any(
            (key, value) in (("return_remaining_strings", True), ("fail_with_unknown_args", False),
                             ("allow_extra_keys", True))
            for _, keywords in facts.parse_calls
            for key, value in keywords
        )  # fmt: skip
        return Program(
            parser_text,
            parser_text is not None and not unresolved,
            frozenset(own),
            tuple(unresolved),
            trl_config,
            own_trainer,
            trains,
            frozenset(facts.flags),
            keeps,
            tuple(rewritten.items()),
            trainer_checks,
            tuple(takes_value.items()),
            trainer_batch,
            frozenset(required),
            trl_dataset_name,
        )

    def post_init_writes(self, ref: ClassRef, depth: int = 0) -> dict[str, str]:
        """The attributes the `__post_init__` of a repository class (or of its bases up to, not including, TRL's
        GRPOConfig or a class of an installed package) assigns, each with where."""
        if ref.file is None or ref.name in _TRL_CONFIGS or depth > _MAX_DEPTH:
            return {}
        facts = self.index(ref.file)
        if facts is None or ref.name not in facts.classes:
            return {}
        found = facts.classes[ref.name]
        where = f"{ref.name}.__post_init__ ({ref.file}:{found.post_init_line})"
        written = dict.fromkeys(found.post_init_writes, where)
        for base in found.bases:
            above = self.resolve(ref.file, base)
            if above is not None:
                for field, there in self.post_init_writes(above, depth + 1).items():
                    written.setdefault(field, there)
        return written


def _shared(a: list[str], b: list[str]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count
