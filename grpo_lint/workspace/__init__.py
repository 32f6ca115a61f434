"""The workspace: what a whole run needs to know about the repository, read once before linting.

`build` finds the repository root (git, else the common parent of the paths), the files to lint
(`git ls-files` inside a work tree, else a walk), the framework versions the repository pins,
copies of a framework it ships itself, and the arguments its own code defines. Every fact keeps
where it came from, for `--show` and the summary line.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from grpo_lint.patterns import lazy
from grpo_lint.records import Record
from grpo_lint.workspace.files import SUFFIXES, git_files, lintable, walk_files
from grpo_lint.workspace.root import find_root

if TYPE_CHECKING:
    from grpo_lint.options import Options, PathPatterns
    from grpo_lint.versions import Fork
    from grpo_lint.workspace.arguments import RepoArguments
    from grpo_lint.workspace.modules import Modules, Program
    from grpo_lint.workspace.pins import Pin, Statements

__all__ = ["SUFFIXES", "Candidate", "Workspace", "build", "matches"]


_WALK_LIMIT = 20_000


class Candidate(Record):
    path: Path
    display: str
    explicit: bool  # named on the command line (or by git for --changed-since), not found by a walk


class Workspace:
    """The repository around the linted paths."""

    def __init__(self, root: Path, files: list[str] | None, candidates: list[Candidate]) -> None:
        self.root = root
        self._files = files  # every file of the repository, relative to the root (None: not read yet)
        self._complete = files is not None
        self.candidates = candidates
        self.read_ahead: dict[str, str] = {}  # Python files read before their lint this run, by display name
        # Why each Python file read ahead is not parsed (None: it is), by display name: its lint asks no twice.
        self.screened: dict[str, str | None] = {}
        self._nested: dict[tuple[str, str], Fork] = {}  # copies in bundled projects, read when a file of theirs asks

    @property
    def files(self) -> list[str]:
        if self._files is None:
            listed = git_files(self.root) if (self.root / ".git").exists() else None
            # Outside git the root is only the paths' common parent (perhaps /tmp): a shallow, bounded look
            # finds pins and framework copies without walking a whole disk.
            # A project's own folder (an unpacked repository) is walked whole, bounded by the file count.
            from grpo_lint.workspace.root import is_project

            project = is_project(self.root)
            depth = {} if project else {"max_depth": 4}
            self._files = listed if listed is not None else walk_files(self.root, limit=_WALK_LIMIT, **depth)
            self._complete = listed is not None or (project and len(self._files) < _WALK_LIMIT)
        return self._files

    @property
    def complete(self) -> bool:
        """Whether `files` is every file of the repository (git's list, or a whole project walked), so that a
        file it lacks is not there."""
        _ = self.files
        return self._complete

    @cached_property
    def pins(self) -> Statements:
        """Every statement of a framework release the repository makes (see grpo_lint.workspace.pins)."""
        from grpo_lint.workspace.pins import find_pins

        return find_pins(self.root, self.files)

    @cached_property
    def forks(self) -> dict[str, Fork]:
        """The repository's own copy of each framework: the shallowest."""
        from grpo_lint.workspace.forks import read_fork

        present = set(self.files) if self._copies else set()
        return {
            framework: read_fork(framework, self.root, packages[0], present)
            for framework, packages in self._copies.items()
        }

    @cached_property
    def _copies(self) -> dict[str, list[str]]:
        from grpo_lint.workspace.forks import find_copies

        return find_copies(self.root, self.files)

    @cached_property
    def modules(self) -> Modules:
        """The repository's Python modules, parsed on demand (grpo_lint.workspace.modules)."""
        from grpo_lint.workspace.modules import Modules

        return Modules(self.root, self.files, self.complete)

    @cached_property
    def arguments(self) -> RepoArguments:
        from grpo_lint.workspace.arguments import read_arguments

        return read_arguments(self.modules, tuple(f.package + "/" for f in self.forks.values()))

    def uses(self, framework: str) -> str | None:
        """Where the repository shows that it uses a framework at all: a statement of it (even unpinned), a
        copy of it, a module or notebook that imports it, or a launch script that runs its own program. None: it
        shows none, and a file that only looks like one of its configs is not one."""
        if framework in self.forks:
            return f"a copy of it in {self.forks[framework].package}/"
        stated = self.pins.uses(framework)
        if stated is not None:
            return stated.provenance
        return self._used.get(framework)

    @cached_property
    def uses_unsloth(self) -> bool:
        """Whether the repository imports or installs Unsloth (an import in a Python file or a notebook, a requirement,
        an install line; a word in a comment or a name is not one): importing it anywhere in a process replaces
        TRL's trainers with Unsloth's for every module of it."""
        import re

        from grpo_lint.sources.document import ReadProblem
        from grpo_lint.sources.reading import read_file

        statement = re.compile(
            rb"""(?:^|["'\s])(?:import\s+unsloth\b|from\s+unsloth\b)"""  # an import
            rb"""|^\s*unsloth(?:\[[^\]\n]*\])?\s*(?:[=<>~!;@]|$)"""  # a requirements file's line
            rb"""|["']unsloth(?:\[[^\]\n]*\])?\s*(?:[=<>~!;@][^"'\n]*)?["']"""  # a quoted requirement, a lock's name
            rb"""|\binstall\b[^\n#]*\s["']?unsloth\b""",  # an install line
            re.M,
        )
        for name in self.files:
            if not name.endswith((".py", ".ipynb", ".txt", ".toml", ".cfg", ".lock", ".yml", ".yaml", ".sh", ".in")):
                continue
            data = read_file(self.root / name, 4 * 1024 * 1024, within=self.root)
            if isinstance(data, ReadProblem) or b"nsloth" not in data:
                continue
            for match in statement.finditer(data):
                line_start = data.rfind(b"\n", 0, match.start()) + 1
                if not data[line_start : match.start()].lstrip().startswith(b"#"):
                    return True  # (not in a comment)
        return False

    @cached_property
    def _used(self) -> dict[str, str]:
        """The first module or notebook that imports each framework, else the first launch script that runs its
        own program (`trl grpo`, `swift rlhf`, `python -m verl.trainer.main_ppo`): a byte search, nothing parsed."""
        import re

        from grpo_lint.sources.document import ReadProblem
        from grpo_lint.sources.reading import read_file

        imports = re.compile(rb"""(?:^|["'\s])(?:from|import)\s+(trl|swift|verl|openrlhf|unsloth)\b""", re.M)
        names = {b"trl": "trl", b"unsloth": "trl", b"swift": "swift", b"verl": "verl", b"openrlhf": "openrlhf"}
        found: dict[str, str] = {}
        launched: dict[str, str] = {}
        for name in self.files:
            python = name.endswith((".py", ".ipynb"))
            if not (python or name.endswith((".sh", ".bash"))) or len(found) == 4:
                continue
            data = read_file(self.root / name, 4 * 1024 * 1024, within=self.root)
            if isinstance(data, ReadProblem):
                continue
            if python:
                for match in imports.finditer(data):
                    found.setdefault(names[match.group(1)], f"{name} imports {match.group(1).decode()}")
            elif len(launched) < 4:
                for match in _PROGRAMS.finditer(data):
                    program = match.group(0).decode("utf-8", "replace")
                    launched.setdefault(match.lastgroup or "", f"{name} runs {' '.join(program.split())}")
        return {**launched, **found}

    @cached_property
    def grpo_scripts(self) -> list[tuple[str, Program]]:
        """The repository's TRL GRPO training scripts that build their arguments with a parser: not the framework's
        own (a copy's package), nor another project's shipped with the repository (a vendored `trl/` holding
        `trl/trl/` and TRL's own `trl/examples/scripts/`)."""
        found = []
        others = (*(f.package + "/" for f in self.forks.values()), *self.vendored_projects)
        for name in self.files:
            if not name.endswith(".py") or name.startswith(others):
                continue
            data = self.modules.bytes_of(name)  # (read once for every question of the run)
            if data is None or b"GRPO" not in data or b"Parser" not in data:
                continue
            program = self.modules.program(self.root / name)
            if program is not None and program.trains and program.parser is not None:
                found.append((name, program))
        return found

    @cached_property
    def vendored_projects(self) -> dict[str, str]:
        """Folders below the root that hold another project's copy (its own setup.py or pyproject.toml beside a
        package of a known library: `transformers-4.54.0/`, `trl/` holding `trl/trl/`): folder -> library."""
        present = set(self.files)
        found: dict[str, str] = {}
        for name in self.files:
            folder, _, base = name.rpartition("/")
            if not folder or base not in ("setup.py", "pyproject.toml"):
                continue
            for library in _LIBRARIES:
                if f"{folder}/{library}/__init__.py" in present or f"{folder}/src/{library}/__init__.py" in present:
                    found[folder + "/"] = library
                    break
        return found

    def vendored_project(self, path: str | Path) -> tuple[str, str] | None:
        """(folder, library) of the vendored project a file belongs to, if any."""
        if not self.vendored_projects:
            return None
        relative = os.path.relpath(os.path.abspath(path), self.root).replace(os.sep, "/")
        for folder, library in self.vendored_projects.items():
            if relative.startswith(folder):
                return folder, library
        return None

    def fork(self, framework: str, path: str | Path = "") -> Fork | None:
        """The copy of a framework that a file's runs use: the deepest copy whose project folder holds the file (a
        project the repository bundles, with its own `verl/`, runs that), else the repository's own."""
        packages = self._copies.get(framework, ())
        if path and len(packages) > 1:
            relative = self.relative(path)
            for package in sorted(packages[1:], key=lambda p: -p.count("/")):
                project = package.rpartition("/")[0]
                if project and relative.startswith(project + "/"):
                    key = (framework, package)
                    if key not in self._nested:
                        from grpo_lint.workspace.forks import read_fork

                        self._nested[key] = read_fork(framework, self.root, package, set(self.files))
                    return self._nested[key]
        return self.forks.get(framework)

    def statement(self, framework: str, path: str | Path = "") -> tuple[Pin | None, str]:
        """The statement of the framework's release that applies to a file (its nearest folder's), and
        which one was used when several disagree."""
        return self.pins.choose(framework, self.relative(path) if path else "")

    def pin(self, framework: str) -> Pin | None:
        return self.statement(framework)[0]

    def relative(self, path: str | Path) -> str:
        """A path relative to the root, with `/` separators ('' outside the root)."""
        from grpo_lint.sources.reading import relative_to

        relative = relative_to(path, self.root)
        return "" if relative.startswith("..") else relative.replace(os.sep, "/")

    def fork_containing(self, path: str | Path) -> Fork | None:
        """The framework copy a file belongs to (its own sources are not user configs)."""
        if not self.forks:
            return None
        relative = self.relative(path)
        for fork in self.forks.values():
            if relative.startswith(fork.package + "/"):
                return fork
        return None

    def facts(self) -> list[str]:
        """What the workspace found, each with where it came from (for --show)."""
        facts = [f"repository root: {self.root}"]
        facts += [f"stated: {pin.provenance}" for pin in self.pins.pins[:20]]
        if len(self.pins.pins) > 20:
            facts.append(f"stated: {len(self.pins.pins) - 20} more statements of a release")
        for fork in self.forks.values():
            state = f"version {fork.version}" if fork.version is not None else "version unknown"
            schema = "schema read from its own sources" if fork.mapped else "schema not readable (GRPO011)"
            facts.append(f"framework copy: {fork.package}/ ({fork.framework}, {state}, {schema})")
        origins = self.arguments.origins()
        if origins:
            facts.append(f"arguments defined by the repository: {', '.join(origins)}")
        return facts

    def known_keys(self, framework: str) -> frozenset[str]:
        """Keys the repository's own code accepts for a framework's run (TRL: its dataclasses)."""
        if framework != "trl" or not self._has_python:
            return frozenset()  # (no Python of its own: nothing to read, nor any reader to import)
        return self.arguments.names()

    @cached_property
    def _has_python(self) -> bool:
        return any(name.endswith(".py") for name in self.files)


# Libraries whose source trees repositories ship beside their own code (a vendored copy, a submodule).
_LIBRARIES = (
    "transformers", "trl", "verl", "swift", "openrlhf", "accelerate", "peft", "deepspeed", "vllm", "sglang",
    "datasets", "diffusers", "lighteval", "lm_eval", "megatron", "torchtune", "liger_kernel",
)  # fmt: skip


def build(paths: list[str], options: Options | None = None) -> Workspace:
    """The root and the files to lint; the rest is read when a unit first asks for it."""
    root = find_root(paths)
    exclude = options.exclude if options is not None else None
    force = options is not None and options.force_exclude
    listing: list[str] | None = None
    candidates: list[Candidate] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            if not (force and matches(raw, exclude)):
                candidates.append(Candidate(path, raw, explicit=True))
            continue
        if listing is None and (root / ".git").exists():
            listing = git_files(root)
        below = _below(root, path, listing)
        for name in below:
            shown = os.path.join(raw, name)
            if lintable(name) and not matches(shown, exclude):
                candidates.append(Candidate(Path(shown), shown, explicit=False))
    return Workspace(root, listing, candidates)


def _below(root: Path, folder: Path, listing: list[str] | None) -> list[str]:
    """The files of `folder`, relative to it: from the repository's git listing when there is one."""
    if listing is None:
        return walk_files(folder)
    prefix = os.path.relpath(os.path.abspath(folder), root).replace(os.sep, "/")
    if prefix == ".":
        return listing
    if prefix.startswith(".."):
        return walk_files(folder)
    start = prefix + "/"
    return [name[len(start) :] for name in listing if name.startswith(start)]


def from_list(files: list[str], options: Options) -> list[Candidate]:
    """Files listed by git for --changed-since: kept like a walk's, by suffix and `exclude`."""
    return [
        Candidate(Path(name), name, explicit=False)
        for name in files
        if lintable(name) and not matches(name, options.exclude) and os.path.isfile(name)
    ]


def matches(path: str, patterns: PathPatterns | None) -> bool:
    """Whether `path` matches one of the globs, taken relative to the settings file's directory.

    A pattern with a `/` is matched against the whole relative path (`*` also crosses `/`, so
    `legacy/*` covers everything below legacy/); a pattern without one matches any single part
    of the path, so `drafts` or `*.local.yaml` work at any depth.
    """
    from fnmatch import fnmatchcase

    if patterns is None or not patterns.patterns:
        return False
    absolute = os.path.abspath(path)
    base = patterns.base or os.getcwd()
    relative = os.path.relpath(absolute, base).replace(os.sep, "/")
    if relative.startswith("../"):
        relative = absolute.replace(os.sep, "/")
    parts = relative.split("/")
    for pattern in patterns.patterns:
        pattern = pattern.removeprefix("./").rstrip("/")
        if "/" in pattern:
            if fnmatchcase(relative, pattern) or fnmatchcase(relative, pattern + "/*"):
                return True
        elif any(fnmatchcase(part, pattern) for part in parts):
            return True
    return False


# A framework's own training programs as a launch script runs them: its command (`trl grpo`, `swift rlhf`) or its
# module (`-m trl.scripts.grpo`, `verl.trainer.main_ppo`, `openrlhf.cli.train_ppo_ray`), each group named after its
# framework.
_PROGRAMS = lazy(
    rb"(?P<trl>\btrl\s+grpo\b|\btrl[./]scripts[./]grpo\b)"
    rb"|(?P<swift>\bswift\s+rlhf\b|\bswift[./]cli[./]rlhf\b)"
    rb"|(?P<verl>\bverl[./]trainer[./]main_(?:ppo|grpo)\b)"
    rb"|(?P<openrlhf>\bopenrlhf[./]cli[./]train_\w+)"
)
