"""Orchestrate a run: build the workspace, decide the units, hand each to grpo_lint.lint.

Launch scripts come first: a config file they name is checked with their world size and flags,
so it is not linted a second time on its own. A config that a script elsewhere in the repository
launches (a pre-commit run names only the config) is checked through that script as well.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grpo_lint import forked
from grpo_lint.diagnostics import Diagnostic, Severity, Span
from grpo_lint.limits import MAX_SCRIPT_BYTES
from grpo_lint.lint import (
    finish,
    judged_anyway,
    lint_config,
    lint_document,
    lint_python,
    lint_shell,
    selected,
    unreadable,
)
from grpo_lint.options import Options
from grpo_lint.patterns import lazy
from grpo_lint.results import FileResult, Report
from grpo_lint.sources.document import Document, ReadProblem
from grpo_lint.sources.reading import inside, present, read_file, read_head, real_path
from grpo_lint.workspace import Candidate, Workspace, build
from grpo_lint.workspace.files import CONFIG_SUFFIXES, SHELL_SUFFIXES

if TYPE_CHECKING:
    from grpo_lint.plan import Setting
    from grpo_lint.versions import Target

__all__ = ["FileResult", "Report", "lint_bytes", "lint_document", "lint_paths", "lint_text", "selected"]


def lint_paths(paths: list[str], options: Options, changed: list[str] | None = None) -> Report:
    """Lint files and folders (`changed`: the files --changed-since found, instead of walking)."""
    return lint_workspace(workspace_for(paths, options, changed), options)


def workspace_for(paths: list[str], options: Options, changed: list[str] | None = None) -> Workspace:
    """The repository around the paths, with the files to lint: those the paths name or hold, or `changed`."""
    workspace = build(paths, options)
    if changed is not None:
        from grpo_lint.workspace import from_list

        workspace.candidates = from_list(changed, options)
    return workspace


def lint_workspace(workspace: Workspace, options: Options) -> Report:
    """Lint the workspace's candidates with what it has read of the repository so far (the editor's server
    keeps one workspace across edits)."""
    from grpo_lint.sources import parse_cache
    from grpo_lint.sources.reading import end_run, forget_folders

    parse_cache.bind(workspace.root)  # (the packs of a cache the command line keeps are this repository's)
    forget_folders()
    try:
        return _lint_workspace(workspace, options)
    finally:
        end_run()


def _lint_workspace(workspace: Workspace, options: Options) -> Report:
    candidates = workspace.candidates
    kinds = [file_kind(c.path, c.explicit) for c in candidates]
    options = _with_accelerate_world(candidates, kinds, options)
    reasons = [_not_a_config(candidate, workspace, options) for candidate in candidates]
    count = forked.processes(options.jobs)
    if count > 1 and ("python" in kinds or "notebook" in kinds):
        _parse_python_ahead(candidates, kinds, reasons, workspace, count)
    results: dict[int, FileResult] = {}
    first: list[int] = []  # launch scripts first (a config they name is checked through them), framework code
    for index, candidate in enumerate(candidates):
        reason = reasons[index]
        if reason is not None and kinds[index] == "python" and workspace.fork_containing(candidate.path) is not None:
            first.append(index)  # a framework's own code (its maintainers lint it too): the code rules judge it
        elif reason is not None:
            results[index] = FileResult(candidate.display, "skipped", note=reason)
        elif kinds[index] == "shell":
            first.append(index)

    def lint_first(index: int) -> FileResult:
        candidate = candidates[index]
        if kinds[index] == "shell":
            return guarded(candidate.display, options, lint_candidate, candidate, options, "shell", workspace)
        return guarded(candidate.display, options, _lint_framework_code, candidate, options, workspace)

    _lint_each(first, lint_first, count, results)
    linked: dict[str, str] = {}
    for index in first:
        for source in results[index].sources:
            linked.setdefault(real_path(source), candidates[index].display)
    others = _Launchers(workspace, {real_path(c.path) for c, k in zip(candidates, kinds, strict=True) if k == "shell"})
    second: list[int] = []
    for index, candidate in enumerate(candidates):
        if index in results:
            continue
        script = linked.get(real_path(candidate.path))
        if script is not None:
            results[index] = FileResult(candidate.display, "skipped", note=f"checked as part of {script}")
        else:
            second.append(index)

    def lint_second(index: int) -> FileResult:
        candidate = candidates[index]
        return guarded(candidate.display, options, _lint_found, candidate, others, kinds[index], options)

    _lint_each(second, lint_second, count, results)
    _one_release_per_premise(results, candidates, kinds, others, options)
    files = [results[i] for i in range(len(candidates))]
    files.extend(_repository_notes(workspace, options))
    _once_each(files)
    return Report(files, workspace)


def _lint_each(
    indices: list[int], lint: Callable[[int], FileResult], count: int, results: dict[int, FileResult]
) -> None:
    """`results[i] = lint(i)` for each index, shared out between `count` processes (grpo_lint.forked) when there
    are enough files to pay for it; a file a copy did not send back is linted here."""
    if count > 1 and len(indices) >= _FORK_FROM:
        results.update(forked.share_out(indices, lint, count, _portable))
    for index in indices:
        if index not in results:
            results[index] = lint(index)


_FORK_FROM = 24  # files, below which forking costs more than it saves


def _portable(result: FileResult) -> FileResult:
    """What a forked copy sends back of a file's result: all of it, but of its runs only what the rest of the run
    reads (the release each rests on and the keys it writes), not the parsed config and the framework's schema."""
    result.plans = [plan.outline() for plan in result.plans]
    return result


def _once_each(files: list[FileResult]) -> None:
    """A diagnostic said once: several launches that run one script (or name one config) each carry the finding
    about a line of that file, which is reported in that file, and the file's own lint may carry it too. Only the
    files such findings point into are looked at (a run without any costs nothing)."""
    import os

    into = {os.path.normpath(d.path) for result in files for d in result.diagnostics if d.path != result.path}
    if not into:
        return
    seen: set[tuple] = set()
    for result in files:
        if not result.diagnostics:
            continue
        kept = []
        for d in result.diagnostics:
            path = os.path.normpath(d.path)
            if path in into:
                at = (d.span.line, d.span.column, d.span.end_line, d.span.end_column) if d.span is not None else None
                key = (path, at, d.code, d.message)
                if key in seen:
                    continue
                seen.add(key)
            kept.append(d)
        result.diagnostics = kept


def _parse_python_ahead(
    candidates: list[Candidate], kinds: list[str], reasons: list[str | None], workspace: Workspace, count: int
) -> None:
    """Parse the Python files this run will parse on `count` processes first (grpo_lint.sources.parallel):
    the same files, read the same way, that lint_python then finds in the workspace's cache. `reasons`:
    why each candidate is not a config (see lint_paths): a framework's own code is still linted."""
    from grpo_lint.sources import parallel, yaml_reader
    from grpo_lint.sources.python_needles import not_worth_parsing

    modules = workspace.modules
    files: list[tuple[str, str]] = []
    for candidate, kind, reason in zip(candidates, kinds, reasons, strict=True):
        notebook = kind == "notebook" and reason is None
        if not notebook and (
            kind != "python" or (reason is not None and workspace.fork_containing(candidate.path) is None)
        ):
            continue  # not Python, or not linted at all
        relative = modules.relative(candidate.display)
        if relative is None:
            continue
        text = yaml_reader.read_decoded(candidate.path)
        if notebook and not isinstance(text, ReadProblem):
            text = _notebook_code(text)  # its JSON decoded once, here: its lint reuses it
        elif isinstance(text, str):
            workspace.read_ahead[candidate.display] = text  # its lint reads it from here, not from the disk again
        explicit = candidate.explicit and reason is None  # a framework's code is linted as if found
        if text is None or isinstance(text, ReadProblem):
            continue
        if not explicit:
            framework_code = reason is not None  # (a framework's own code: only the seeding rules judge it)
            screened = workspace.screened[candidate.display] = not_worth_parsing(text, relative, framework_code)
            if screened is not None:
                continue
        files.append((relative, text))
    for relative, code in parallel.read_many(files, count).items():
        modules.add(relative, code)


def _notebook_code(text: str) -> str | None:
    """A notebook's code cells joined as one Python text, or None if it is no notebook (decoded once per run: the
    notebook's lint finds it decoded)."""
    from grpo_lint.sources.notebook import NotebookError, python_text

    try:
        return python_text(text)[0]
    except NotebookError:
        return None


def _one_release_per_premise(
    results: dict[int, FileResult], candidates: list[Candidate], kinds: list[str], others: _Launchers, options: Options
) -> None:
    """Where the repository does not state its release, each run assumed the release its own keys fit; one
    repository runs one release, though, so the keys of all the runs that rest on the same assumption decide
    it together (a run that writes no key of a later release fits it as well as an older one). Files whose
    own guess differs from the repository's are linted again against it."""
    from grpo_lint.versions import fitting

    groups: dict[tuple[str, str], tuple[Target, list[str]]] = {}
    for result in results.values():
        for plan in result.plans:
            target = plan.target
            if target.basis != "assumed" or target.fork is not None or plan.framework in options.targets:
                continue
            _, keys = groups.setdefault((target.framework, target.uncertain), (target, []))
            # the repository's own fields say nothing of the release; a GRPOConfig(...) call's keywords do
            own = frozenset() if plan.document.called else others.workspace.known_keys(target.framework)
            written = plan.document.written()  # (values not known yet too)
            keys.extend(k for k in written if k.lstrip("-").replace("-", "_") not in own)
    chosen: dict[tuple[str, str], Target] = {}
    for (framework, why), (target, keys) in groups.items():
        window = fitting(framework, target.admits, keys)
        window = window or target.admits
        if not window:
            continue
        stated = target.source.partition(": assumed")[0] if ": assumed" in target.source else ""
        source = (f"{stated}: " if stated else "") + (
            f"assumed {window[-1]}, the newest release that fits the keys the repository's runs write"
        )
        chosen[(framework, why)] = target._replace(version=window[-1], source=source, allows=window)
    if not chosen:
        return
    for index, result in list(results.items()):
        targets = {}
        for plan in result.plans:
            found = chosen.get((plan.target.framework, plan.target.uncertain))
            if found is not None and found.version != plan.target.version:
                targets[found.framework] = found
        if targets:
            again = options._replace(targets={**options.targets, **targets})
            candidate = candidates[index]
            results[index] = guarded(candidate.display, again, _lint_found, candidate, others, kinds[index], again)


def _lint_framework_code(candidate: Candidate, options: Options, workspace: Workspace) -> FileResult:
    from grpo_lint.lint import lint_python
    from grpo_lint.sources import yaml_reader

    text = yaml_reader.read_decoded(candidate.path)
    if isinstance(text, ReadProblem):
        return FileResult(candidate.display, "skipped", note=f"part of a framework copy; {text.message}")
    return lint_python(text, candidate.display, False, options, workspace, framework_source=True)


def _lint_found(candidate: Candidate, others: _Launchers, kind: str, options: Options) -> FileResult:
    through = others.lint_through(candidate, options) if kind == "config" else None
    return through or lint_candidate(candidate, options, kind, others.workspace)


def guarded(display: str, options: Options, lint: Callable[..., FileResult], *args: Any) -> FileResult:
    """`lint(*args)`, where an unexpected exception (a bug of grpo-lint, never of the input) becomes a
    GRPO000 diagnostic of this file, so that the other files are still linted; the run exits 2."""
    try:
        return lint(*args)
    except Exception as exc:  # the last line of defence: reported, never silent
        import traceback

        frames = traceback.extract_tb(exc.__traceback__)
        where = ""
        if frames:
            inner = frames[-1]
            where = f" at {Path(inner.filename).name}:{inner.lineno} in {inner.name}"
        message = (
            f"grpo-lint failed on this file ({type(exc).__name__}{where}); this is a bug of grpo-lint, not of the "
            "file. Please report it with the file (or a smaller one that fails the same way)"
        )
        diagnostic = Diagnostic("GRPO000", Severity.ERROR, message, display, Span.point(1, 1))
        del options  # never filtered: a failure of the tool is not a finding to select or ignore
        return FileResult(display, "unreadable", [diagnostic])


def _not_a_config(candidate: Candidate, workspace: Workspace, options: Options) -> str | None:
    """Why a found file is not linted: a framework's own source, a dataset, a file too large."""
    if candidate.explicit and not options.only_configs:
        return None
    fork = workspace.fork_containing(candidate.path)
    if fork is not None and file_kind(candidate.path, candidate.explicit) != "shell":
        # (a launch script kept inside a copy's package folder, as a project that renamed the copy keeps its
        # runs in `my_pkg/verl/scripts/`, still starts runs)
        return f"part of the copy of {fork.framework} in {fork.package}/ (the framework's own source)"
    if candidate.explicit:
        return None
    if candidate.path.suffix == ".py" and (project := workspace.vendored_project(candidate.path)) is not None:
        return f"part of a copy of {project[1]} in {project[0]} (another project's code, shipped with the repository)"
    if not inside(candidate.path, workspace.root):
        return "a symlink that leads outside the repository (not followed)"
    from grpo_lint.workspace.files import too_big_or_data

    return too_big_or_data(candidate.path)


class _Launchers:
    """Launch scripts of the repository that are not among the linted files, searched only when a
    config has to be checked through the script that launches it."""

    def __init__(self, workspace: Workspace, linted: set[str]) -> None:
        self.workspace = workspace
        self.linted = linted
        self._scripts: list[tuple[Path, bytes]] | None = None
        self._linted: dict[Path, FileResult] = {}  # a script that launches several changed configs is read once

    def scripts(self) -> list[tuple[Path, bytes]]:
        if self._scripts is None:
            self._scripts = []
            root = self.workspace.root
            for name in self.workspace.files:
                if _KINDS.get(os.path.splitext(name)[1].lower()) != "shell":
                    continue
                path = root / name
                if real_path(path) in self.linted or not inside(path, root):
                    continue
                data = read_file(path, MAX_SCRIPT_BYTES)
                if not isinstance(data, ReadProblem):
                    self._scripts.append((path, data))
        return self._scripts

    def lint_through(self, candidate: Candidate, options: Options) -> FileResult | None:
        """The config's diagnostics when a script launches it, as that script's run sees it."""
        if not self.workspace.files or candidate.path.suffix.lower() not in (".yaml", ".yml", ".json"):
            return None
        wanted = real_path(candidate.path)
        needle = os.fsencode(candidate.path.name)
        for path, data in self.scripts():
            if needle not in data:
                continue
            display = os.path.relpath(path)
            result = self._linted.get(path)
            if result is None:
                result = lint_candidate(Candidate(path, display, False), options, "shell", self.workspace)
                self._linted[path] = result
            sources = {real_path(s): s for s in result.sources}
            if wanted not in sources:
                continue
            shown = sources[wanted]
            mine = [d._replace(path=candidate.display) for d in result.diagnostics if d.path == shown]
            through = FileResult(candidate.display, "linted", mine, result.sources[shown], f"launched by {display}")
            through.plans = result.plans
            return through
        return None


def _repository_notes(workspace: Workspace, options: Options) -> list[FileResult]:
    """GRPO011, once per repository: a framework copy whose schema grpo-lint cannot read."""

    notes = []
    from grpo_lint.versions import DISPLAY

    for fork in workspace.forks.values():
        if fork.mapped or not selected("GRPO011", options):
            continue
        where = os.path.relpath(workspace.root / fork.package)
        name = DISPLAY[fork.framework]
        unchecked = (
            f"so keys of {name} runs in this repository are not checked, nor are the batch rules that rest on its "
            "defaults; only the sampling values a run sets itself are judged."
        )
        if fork.overlay:
            message = (
                f"{where}/ holds files of {name} but no __init__.py: Python imports an installed {name} before such "
                f"a folder, so these files overlay a copy of {name} the repository does not ship, whose release "
                f"and config are not known here; {unchecked}"
            )
            fix = f"nothing is wrong; to have the keys checked, lint with --target {fork.framework}==VERSION"
        else:
            message = (
                f"{where}/ is a copy of {name} whose configuration schema grpo-lint cannot read "
                f"(no ppo_trainer.yaml or argument definitions it knows), {unchecked}"
            )
            fix = (
                f"nothing is wrong; to have the keys checked, keep the copy's reference config in {where}/ as verl "
                "does (trainer/config/ppo_trainer.yaml), or lint with --target FRAMEWORK==VERSION"
            )
        diagnostic = Diagnostic("GRPO011", Severity.INFO, message, where, Span.point(1, 1), key=fork.package, fix=fix)
        notes.append(finish(FileResult(where, "linted", [diagnostic], note="repository"), options))
    return notes


_WORDS_FIRST = 256 * 1024  # characters of a found config below which its words are read before it is parsed

_KINDS = {
    **dict.fromkeys(SHELL_SUFFIXES, "shell"),
    **dict.fromkeys(CONFIG_SUFFIXES, "config"),
    ".py": "python",
    ".ipynb": "notebook",
}


def kind_of(name: str, head: str | None) -> str:
    """ "shell", "python" or "config", by suffix; without a known suffix, a shell shebang means shell."""
    kind = _KINDS.get(os.path.splitext(name)[1].lower())
    if kind is not None:
        return kind
    from grpo_lint.sources.shell import looks_like_shell

    return "shell" if head is not None and looks_like_shell(head) else "config"


def file_kind(path: Path, explicit: bool) -> str:
    """The kind of a file; only a named file without a known suffix is opened to look at its shebang."""
    if not explicit or path.suffix.lower() in _KINDS:
        return kind_of(path.name, None)
    head = read_head(path, 128)
    return kind_of(path.name, head.decode("utf-8", "replace") if head is not None else None)


def lint_candidate(
    candidate: Candidate, options: Options, kind: str = "config", workspace: Workspace | None = None
) -> FileResult:
    from grpo_lint.sources import yaml_reader
    from grpo_lint.sources.task_yaml import may_be_task

    if not present(candidate.path):
        return finish(unreadable(candidate.display, ReadProblem("no such file or directory"), options), options)
    if kind == "config":
        text = yaml_reader.read_decoded(candidate.path)
        if not isinstance(text, ReadProblem):
            if len(text) <= _WORDS_FIRST and may_be_task(text):
                task = _lint_task(text, candidate.display, options, workspace)
                if task is not None:  # a SkyPilot task: its `run:` commands are a launch script
                    return task
            if not judged_anyway(candidate.explicit, options) and _GENERATED_REFERENCE.search(text, 0, 1024):
                return FileResult(candidate.display, "skipped", text=text, note=_REFERENCE_NOTE)
        if (
            not judged_anyway(candidate.explicit, options)
            and not isinstance(text, ReadProblem)
            and text.strip()
            and len(text) <= _WORDS_FIRST  # (a larger file is data, and reading its words costs what parsing saves)
        ):
            from grpo_lint.frameworks.detect import may_be_detected

            if not may_be_detected(text):  # another tool's config: what parsing it would conclude, without parsing
                return FileResult(candidate.display, "skipped", text=text, note="no GRPO key")
        fmt = "json" if candidate.path.suffix.lower() == ".json" else "yaml"
        if fmt == "json" and not judged_anyway(candidate.explicit, options) and not isinstance(text, ReadProblem):
            from grpo_lint.frameworks.detect import found_json_skip

            reason = found_json_skip(text)  # results and traces a repository keeps: decoded, not parsed with positions
            if reason is not None:
                return finish(FileResult(candidate.display, "skipped", text=text, note=reason), options)
        parsed = text if isinstance(text, ReadProblem) else yaml_reader.parse(text, candidate.display, fmt)
        return lint_config(parsed, candidate.display, candidate.explicit, options, workspace)
    ahead = workspace.read_ahead.pop(candidate.display, None) if workspace is not None else None
    text = ahead if ahead is not None else yaml_reader.read_decoded(candidate.path)
    if isinstance(text, ReadProblem):
        if kind == "python" and not candidate.explicit:
            # a Python file a walk found that is not text (NUL padding, another encoding): not a config, and
            # Python reports it if anything runs it
            return FileResult(candidate.display, "skipped", note=f"not read as Python: it {text.message}")
        return finish(unreadable(candidate.display, text, options), options)
    return _lint_code(text, candidate.display, candidate.explicit, options, kind, workspace)


# The header verl's generator writes on its flattened reference configs (`_generated_ppo_trainer.yaml`, and an
# extension's `_generated_omni_trainer.yaml`): "... automatically generated ... only for reference and never used."
_GENERATED_REFERENCE = lazy(r"^#[^\n]*automatically generated[\s\S]*?^#[^\n]*never used", re.M | re.I)
_REFERENCE_NOTE = "a generated reference of a config (its header says it is never used): no run reads it"


def _lint_task(text: str, display: str, options: Options, workspace: Workspace | None) -> FileResult | None:
    """A SkyPilot task's `setup`/`run` commands linted as the launch script they are, each diagnostic at its place
    in the YAML file; None when the file is no task or its commands start no GRPO run."""
    from grpo_lint.sources import yaml_reader
    from grpo_lint.sources.task_yaml import task_script

    parsed = yaml_reader.parse(text, display, "yaml")
    task = task_script(parsed) if isinstance(parsed, Document) else None
    if task is None:
        return None
    result = lint_shell(task.text, display, options, workspace)
    if result.status != "linted":
        return None

    def moved(span: Span | None) -> Span | None:
        if span is None or span.path not in (None, display):
            return span
        return span._replace(
            column=span.column + task.offsets.get(span.line, 0),
            end_column=span.end_column + task.offsets.get(span.end_line, 0),
        )

    result.diagnostics = [
        d._replace(span=moved(d.span), fixes=()) if d.path in ("", display) else d for d in result.diagnostics
    ]  # (the fixes edit the script's text, not the file's)
    result.text = text
    return result


def _lint_code(
    text: str, display: str, explicit: bool, options: Options, kind: str, workspace: Workspace | None
) -> FileResult:
    if kind == "python":
        return lint_python(text, display, explicit, options, workspace)
    if kind == "notebook":
        from grpo_lint.lint import lint_notebook

        return lint_notebook(text, display, explicit, options, workspace)
    return lint_shell(text, display, options, workspace)


def _with_accelerate_world(candidates: list[Candidate], kinds: list[str], options: Options) -> Options:
    """One accelerate config named among the files (or --accelerate-config) gives the others their world size."""
    if options.world_size is not None or options.accelerate is not None:
        return options
    from grpo_lint.launch.accelerate import is_accelerate_config
    from grpo_lint.sources import yaml_reader

    found = []
    for candidate, kind in zip(candidates, kinds, strict=True):
        if kind != "config" or not candidate.explicit:
            continue
        head = read_head(candidate.path, 65536)
        if head is None:
            continue
        if b"distributed_type" not in head and b"compute_environment" not in head:
            continue  # cheap test first: most files are not accelerate configs
        parsed = yaml_reader.read(candidate.path, candidate.display)
        if isinstance(parsed, Document) and is_accelerate_config(parsed):
            found.append(parsed)
    if len(found) != 1:
        return options
    return options._replace(accelerate=accelerate_world(found[0]))


def accelerate_world(document: Document) -> Setting | None:
    from grpo_lint.launch.accelerate import from_document
    from grpo_lint.plan import Setting

    config = from_document(document)
    entry = document.entries.get("num_processes")
    if config.num_processes is None or config.num_processes < 1 or entry is None:
        return None
    span = entry.key_span._replace(path=document.path)
    return Setting(config.num_processes, "num_processes", span, f"num_processes in {document.path}")


def lint_text(
    text: str, display: str, options: Options, kind: str | None = None, workspace: Workspace | None = None
) -> FileResult:
    """Lint text that comes with a name but not from a walk (stdin, tests, rule pages).

    `kind` is "shell", "python" or "config"; by default it follows the name (see kind_of). Without
    a workspace the text is judged alone: no repository pins, forks or arguments.
    """
    from grpo_lint.sources import yaml_reader

    kind = kind or kind_of(display, text)
    if kind == "config":
        return lint_config(yaml_reader.read_text(text, display), display, True, options, workspace)
    return _lint_code(text, display, True, options, kind, workspace)


def lint_bytes(data: bytes, display: str, options: Options, workspace: Workspace | None = None) -> FileResult:
    """Lint raw bytes, e.g. standard input: binary data and bad UTF-8 are GRPO001 as for files."""
    from grpo_lint.sources import yaml_reader

    text = yaml_reader.decode(data)
    if isinstance(text, ReadProblem):
        return finish(unreadable(display, text, options), options)
    return lint_text(text, display, options, workspace=workspace)
