"""Settings for a launch of the repository's own Hydra entry point: its config tree, composed as Hydra does.

The search path is the entry's config folder (`@hydra.main(config_path=...)`, or `--config-path`, both
relative to the entry file), then the primary config's `hydra.searchpath` (and a `hydra.searchpath=[...]`
override), then `--config-dir`. `file://DIR` is relative to where the run starts (the folder a `cd` in the
script names, else the repository root); `pkg://a.b.c` is the package folder the repository holds. When the
repository holds no verl copy, verl's own `ppo_trainer`/`ppo_megatron_trainer` of the target release stand at
the end of the path (their keys, not their files). Anything that cannot be followed leaves the tree not
composed, with the reason, and then no key is called unknown.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grpo_lint.diagnostics import Diagnostic, Severity
from grpo_lint.launch.commands import RUN_DIR
from grpo_lint.limits import MAX_FILE_BYTES
from grpo_lint.sources.hydra_compose import (
    ComposeError,
    Fallback,
    Override,
    Unresolved,
    compose,
    search_dirs,
    yaml_loader,
)
from grpo_lint.sources.shell import made_here

if TYPE_CHECKING:
    from grpo_lint.launch.commands import Launch, Places
    from grpo_lint.sources.hydra_overrides import HydraContext, Overrides
    from grpo_lint.versions import Target


def compose_entry(
    launch: Launch,
    overrides: Overrides,
    places: Places,
    context: HydraContext,
    result: Any,  # grpo_lint.launch.runs.ScriptRuns: problems found on the way are added to it
    target_for: Callable[[str], Target] | None,
) -> HydraContext:
    entry = launch.hydra
    root = places.root
    written_path = overrides.config_path
    name = overrides.config_name or entry.config_name
    if written_path is not None and ("$" in written_path or "`" in written_path):
        folder = run_dir_path(config_path_word(launch), places)
        if folder is None:
            return context._replace(not_composed=f"--config-path {written_path} is not known before launch")
        if not folder.is_dir():
            rest = _RUN_DIR_PATH.match(written_path).group(1)  # type: ignore[union-attr]
            top = rest.strip("/").partition("/")[0]
            if top and made_here(result.script.text, top, launch.command):
                # (`git clone https://github.com/volcengine/verl.git` before `--config-path=$(pwd)/verl/examples/...`)
                return context._replace(
                    not_composed=f"--config-path {written_path} is in {top}/, which the script makes or fetches first"
                )
            result.problems.append(
                _stops(
                    launch,
                    overrides,
                    entry,
                    f"Primary config directory not found: {written_path} (no folder from the script's own up to the "
                    f"repository root holds {rest}, wherever the run starts).",
                )
            )
            return context._replace(not_composed="the --config-path folder is not in the repository")
        written_path = str(folder.resolve())
    if name is None or name.startswith("(unknown"):
        return context._replace(not_composed="which config the entry point composes is not known before launch")
    config_dir = entry.config_dir(root, written_path)
    if config_dir is None:
        return context._replace(not_composed=f"{entry.file}:{entry.line} names no config folder grpo-lint can read")
    from grpo_lint.sources.reading import inside

    if not inside(config_dir, root):
        return context._replace(not_composed=f"the config folder {config_dir} is outside the repository")
    name = name.removesuffix(".yaml")
    if not config_dir.is_dir():
        shown = os.path.relpath(config_dir, Path.cwd())
        result.problems.append(
            _stops(launch, overrides, entry, f"Primary config directory not found: {shown} is not a folder.")
        )
        return context._replace(not_composed="the config folder is not in the repository")
    load = yaml_loader(MAX_FILE_BYTES, within=root, seen=_files(places))
    try:
        primary = load(config_dir / f"{name}.yaml") if (config_dir / f"{name}.yaml").is_file() else None
        search: list[Path | Fallback] = [config_dir]
        upstream = _upstream(target_for("verl")) if target_for is not None else None
        search += _searchpath(primary, overrides, places, root, upstream)
        if overrides.config_dir is not None:
            if overrides.config_dir.startswith("(unknown") or "$" in overrides.config_dir:
                raise Unresolved(f"--config-dir {overrides.config_dir} is not known before launch")
            search.append(run_dir(places) / overrides.config_dir)
        group_overrides = _overrides(overrides)
        # what the composition depends on: the search path, the name, and the overrides that may choose a group
        # (a dotted key never names one: Hydra's groups are folders, written with `/`)
        choosing = tuple(repr(o) for o in group_overrides if o.package is not None or "." not in o.key)
        key = (tuple(str(place) if isinstance(place, Path) else id(place) for place in search), name, choosing)
        cache = _cache(places)
        if key not in cache:
            try:
                composition = compose(search, name, group_overrides, load, apply_values=False)
                cache[key] = (composition.flat(), composition.group_keys)
            except (ComposeError, Unresolved) as exc:
                cache[key] = exc
        if isinstance(cache[key], Exception):
            raise cache[key]
        flat, group_keys = cache[key]
    except Unresolved as exc:
        return context._replace(not_composed=str(exc))
    except ComposeError as exc:
        result.problems.append(_stops(launch, overrides, entry, str(exc)))
        return context._replace(not_composed=f"Hydra stops: {exc}")
    shown = os.path.relpath(config_dir / f"{name}.yaml", Path.cwd())
    from_file = shown if not shown.startswith("..") else str(config_dir / f"{name}.yaml")
    return context._replace(
        schema=flat,
        composed_from=f"the config {entry.file} composes ({from_file})",
        group_keys=group_keys,
        verl_loop=bool(entry.trainer),
        config_name=name,
        flavour="megatron" if "megatron" in name else None,
    )


def config_path_word(launch: Launch) -> Any:
    words = launch.args
    for index, word in enumerate(words):
        if word.text.startswith(("--config-path=", "-cp=")):
            return word._replace(text=word.text.partition("=")[2])
        if word.text in ("--config-path", "-cp") and index + 1 < len(words):
            return words[index + 1]
    return None


_RUN_DIR_PATH = re.compile(r"^(?:[^=]*=)?" + RUN_DIR + r"/([\w./-]+)$")


def run_dir_path(word: Any, places: Places) -> Path | None:
    """The path a word names as `$(pwd)/rest` (or `$PWD/rest`, also through a variable the script set so):
    `rest` below the folder the run starts in (the first place where it exists, else the first place)."""
    if word is None or not set(word.unknown) <= {"$(pwd)", "PWD", "`pwd`"}:
        return None
    found = _RUN_DIR_PATH.match(word.text)
    if found is None or ".." in found.group(1).split("/"):
        return None
    rest = found.group(1).rstrip("/")
    folders = starts(places)
    return next((start / rest for start in folders if (start / rest).exists()), folders[0] / rest)


def _cache(places: Places) -> dict[Any, Any]:
    """Compositions of this run (flat keys, group keys, or why not), kept with its modules (a repository's
    scripts compose the same tree many times)."""
    return places.modules.compositions if places.modules is not None else {}


def _files(places: Places) -> dict[Path, Any]:
    return places.modules.config_files if places.modules is not None else {}


def run_dir(places: Places) -> Path:
    """Where the run starts: the folder a `cd` before it names (from the script's folder up), else the root."""
    return next((folder for folder in places.workdirs() if folder.is_dir()), places.root)


def _searchpath(
    primary: Any, overrides: Overrides, places: Places, root: Path, upstream: Fallback | None
) -> list[Path | Fallback]:
    """The `hydra.searchpath` folders; verl's own config folder, when the repository does not hold it, is the
    target release's (`file://verl/trainer/config` run from a verl checkout, `pkg://verl.trainer.config`)."""
    entries: list[str] = []
    if isinstance(primary, dict) and isinstance(primary.get("hydra"), dict):
        written = primary["hydra"].get("searchpath")
        if isinstance(written, list):
            entries += [str(e) for e in written]
    override = overrides.entries.get("hydra.searchpath")
    if override is not None:
        if "hydra.searchpath" in overrides.unresolved or not isinstance(override.value, list):
            raise Unresolved("hydra.searchpath is not known before launch")
        entries += [str(e) for e in override.value]
    if any("${" in e for e in entries):
        raise Unresolved("the search path holds an interpolation")
    places_found: list[Path | Fallback] = []
    for entry in entries:
        try:
            places_found += search_dirs([entry], starts(places), lambda m: _package_dir(m, places, root))
        except Unresolved:
            if upstream is None or not entry.replace("/", ".").rstrip(".").endswith("verl.trainer.config"):
                raise
            places_found.append(upstream)
    return places_found


def starts(places: Places) -> list[Path]:
    """Where the run may start: the folder a `cd` names, the script's folder and those above it up to the root
    (a script inside a vendored copy's project runs from that project's top)."""
    found = [run_dir(places)] if places.workdir else []
    top = places.root.resolve()
    for folder in (places.script_dir, *places.script_dir.parents):
        if folder != top and top not in folder.parents:
            break  # never above the repository
        found.append(folder)
    return found or [places.root]


def _package_dir(module: str, places: Places, root: Path) -> Path | None:
    """The folder of a package the repository holds (`verl.trainer.config` -> verl/trainer/config)."""
    relative = module.replace(".", "/")
    candidates = [root / relative]
    modules = places.modules
    if modules is not None:
        found = modules.module_file(module, 0, "")
        if found is not None and found.endswith("/__init__.py"):
            candidates.insert(0, root / found[: -len("/__init__.py")])
        for name in modules.files:
            if f"/{relative}/" in f"/{name}":
                head = f"/{name}".index(f"/{relative}/")
                candidates.append(root / name[:head].lstrip("/") / relative)
                break
    return next((c for c in candidates if c.is_dir()), None)


def _upstream(target: Target) -> Fallback | None:
    """verl's own reference configs at the target release, as flat key tables (None when the repository holds
    a copy of verl: its own folder is then the one the search path names)."""
    if target.fork is not None:
        return None
    from grpo_lint.frameworks.verl.fields import reference_selects, verl_table

    configs, selects = {}, {}
    for name, flavour in (("ppo_trainer", "fsdp"), ("ppo_megatron_trainer", "megatron")):
        specs = verl_table(flavour).at(target.version)
        configs[name] = {path: spec.default_at(target.version) for path, spec in specs.items()}
        selects[name] = reference_selects(flavour, target.version)
    return Fallback(configs, selects)


def _overrides(overrides: Overrides) -> list[Override]:
    """The overrides in the order Hydra applies them; one a later override of its key replaces is applied too
    (a `+key` before `key=...` fails as it would alone)."""
    found: list[Override] = []
    written = [(path, prefix, entry) for path, prefix, entry in overrides.shadowed]
    written += [(path, overrides.prefixes.get(path, ""), entry) for path, entry in overrides.entries.items()]
    for path, prefix, entry in sorted(written, key=lambda item: (item[2].key_span.line, item[2].key_span.column)):
        if path in overrides.unresolved:
            continue
        key_text = entry.key[len(prefix) :]
        key, at, package = key_text.partition("@")
        found.append(
            Override(prefix, key.replace("/", ".") if "." in key else key, entry.value, package if at else None,
                     prefix != "~" or entry.value is not None, entry.key)
        )  # fmt: skip
    return found


def _stops(launch: Launch, overrides: Overrides, entry: Any, message: str) -> Diagnostic:
    # the word the failure is about: the config folder, else the config name, else the first of them written
    folder_missing = "directory not found" in message
    about = ("--config-path", "-cp") if folder_missing else ("--config-name", "-cn")
    flags = [w for w in launch.args if w.text.startswith(("--config-name", "-cn", "--config-path", "-cp"))]
    flag = next((w for w in flags if w.text.startswith(about)), flags[0] if flags else None)
    first = message.splitlines()[0]
    return Diagnostic(
        "GRPO001",
        Severity.ERROR,
        f"Hydra cannot compose the config of {entry.file} (its `@hydra.main` at line {entry.line}): {first} "
        "The run stops before training (hydra.errors.ConfigCompositionException).",
        "",
        (flag or launch.command.words[0]).span,
        fix=(
            "point --config-path at a folder of the repository that holds the config (it is relative to "
            f"{entry.file}, or absolute)"
            if folder_missing
            else "name a config that exists in the entry point's config folder, or add the missing file"
        ),
    )
