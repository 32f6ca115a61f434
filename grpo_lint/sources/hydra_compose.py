"""A Hydra config tree composed as hydra-core 1.3 composes it (`version_base=None`), without importing Hydra.

What a `@hydra.main(config_path=..., config_name=...)` entry point sees before its overrides: the primary
config and, depth first, every entry of its `defaults` list and of the lists inside the files they load:

- `group: option` (`group/option.yaml`, merged at the package `group`), `group@pkg: option` (at `pkg`,
  relative to the package of the file that names it), `/group: option` (the group from the top of the
  search path), `../group@pkg: option` (a group beside the current one), `optional group: option`,
  `group: null`, a list of options, and `override group: option` (a choice made for the whole tree);
- a config of the same folder (`- dp_actor`, merged at the file's own package);
- `_self_`, the file's own keys, where it stands (at the end when it is not written);
- the `# @package` header (absolute; `_global_` is the root).

The search path is the primary config folder, then `hydra.searchpath` (`file://` relative to where the
run starts, `pkg://` a package folder) and `--config-dir`. A folder the repository does not hold (an
installed package's configs) can be stood for by a flat table of keys (`Fallback`): composition then
knows the keys, not the files of that package's groups.

Then the command line, as Hydra applies it to the composed config in struct mode: `key=value` only for
a key the config has, `+key=value` only where the key is absent or null (or the value is a mapping or
list), `++key=value` always, `~key` only for a key that is there. An override whose key names a config
group changes that group's choice (`+group=option` adds one). The messages are Hydra's.

Everything is bounded: at most `_MAX_FILES` files loaded and `_MAX_DEPTH` nested defaults lists.
"""

from __future__ import annotations

import copy
import os
import posixpath
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from grpo_lint.patterns import lazy
from grpo_lint.records import Record

_MAX_FILES = 400
_MAX_DEPTH = 24
_MISSING = "???"


class ComposeError(Exception):
    """Composition stops here, with the message Hydra gives (hydra.errors.ConfigCompositionException)."""


class Unresolved(Exception):
    """grpo-lint cannot follow this tree (a folder outside the repository, a package it does not hold)."""


class Fallback(Record):
    """An installed package's config folder, stood for by its flat key table: config name -> {path: value}; and,
    per config, the group options its defaults list selects, (group, package, option), that a folder earlier on the
    search path may shadow (Hydra resolves each through the whole path, the primary folder first)."""

    configs: Mapping[str, Mapping[str, Any]]
    selects: Mapping[str, tuple[tuple[str, str, str], ...]] = {}


class Override(Record):
    """One command-line override as Hydra reads it: prefix ('', '+', '++', '~'), dotted key, value."""

    prefix: str
    key: str
    value: Any
    package: str | None = None  # `group@pkg=option`
    has_value: bool = True
    text: str = ""  # as written, for messages


class Composition(Record):
    config: dict[str, Any]  # the composed config (the `hydra` node left out)
    group_keys: frozenset[str] = frozenset()  # the overrides that chose a config group (by their key)

    def flat(self) -> dict[str, Any]:
        """Every leaf by its dotted path (an empty mapping is a leaf)."""
        out: dict[str, Any] = {}

        def walk(prefix: str, value: Any) -> None:
            if isinstance(value, dict) and value:
                for key, child in value.items():
                    walk(f"{prefix}.{key}" if prefix else str(key), child)
            elif prefix:
                out[prefix] = value

        walk("", self.config)
        return out


def yaml_loader(limit: int, within: Path | None = None, seen: dict[Path, Any] | None = None) -> Callable[[Path], Any]:
    """How `compose` reads a config file: at most `limit` bytes, inside `within` once symlinks are followed,
    parsed as plain YAML; a file that cannot be read or parsed leaves the tree not followed (Unresolved).
    With `seen`, each file is read once for every composition that shares the mapping."""
    from grpo_lint.sources.document import ReadProblem
    from grpo_lint.sources.reading import read_file
    from grpo_lint.sources.yaml_guards import load_plain

    def read(path: Path) -> Any:
        data = read_file(path, limit, within=within)
        if isinstance(data, ReadProblem):
            return Unresolved(f"{path} cannot be read: {data.message}")
        try:
            return load_plain(data.decode("utf-8", "replace"))
        except ValueError as exc:
            return Unresolved(f"{path} cannot be read: {exc}")

    def load(path: Path) -> Any:
        if seen is None:
            found = read(path)
        else:
            if path not in seen:
                seen[path] = read(path)
            found = seen[path]
        if isinstance(found, Unresolved):
            raise found
        return found

    return load


class _Repo:
    """The search path: folders (Path) and fallbacks, first match wins."""

    def __init__(self, search: list[Path | Fallback], load: Callable[[Path], Any]) -> None:
        self.search = search
        self.load_file = load
        self.files_loaded = 0
        self._cache: dict[str, tuple[Any, str | None] | None] = {}

    def load(self, config_path: str) -> tuple[Any, str | None] | None:
        """(content, package header) of `config_path` (`actor/dp_actor`), or None when no folder has it."""
        config_path = posixpath.normpath(config_path).lstrip("/")
        if config_path.startswith("..") or config_path in ("", "."):
            return None
        if config_path in self._cache:
            return self._cache[config_path]
        name = config_path if config_path.endswith((".yaml", ".yml")) else config_path + ".yaml"
        found: tuple[Any, str | None] | None = None
        for index, place in enumerate(self.search):
            if isinstance(place, Fallback):
                table = place.configs.get(config_path.removesuffix(".yaml"))
                if table is not None:
                    selects = place.selects.get(config_path.removesuffix(".yaml"), ())
                    found = (self._shadowed(_nest(table), selects, self.search[:index]), None)
                    break
                continue
            file = place / name
            if file.is_file():
                if self.files_loaded >= _MAX_FILES:
                    raise Unresolved(f"the config tree loads more than {_MAX_FILES} files")
                content = self.load_file(file)
                self.files_loaded += 1
                found = (content, _header(file))
                break
        self._cache[config_path] = found
        return found

    def _shadowed(self, tree: dict[str, Any], selects: tuple[tuple[str, str, str], ...], before: list) -> dict:
        """The package's config with each group option it selects that a folder earlier on the path holds too
        (`data/legacy_data.yaml` of an extension's own config folder) laid over its part: that file's keys are the
        run's. (The package's own keys of the option are kept: its file is not read, so no key is called unknown
        for being absent from the shadowing file.)"""
        for group, package, option in selects:
            for place in before:
                if isinstance(place, Fallback) or not (place / group / f"{option}.yaml").is_file():
                    continue
                if self.files_loaded >= _MAX_FILES:
                    raise Unresolved(f"the config tree loads more than {_MAX_FILES} files")
                content = self.load_file(place / group / f"{option}.yaml")
                self.files_loaded += 1
                if isinstance(content, dict):
                    _merge(tree, package, {k: v for k, v in content.items() if k != "defaults"})
                break
        return tree

    def group_exists(self, group: str) -> bool:
        group = posixpath.normpath(group).lstrip("/")
        if group in ("", ".") or group.startswith(".."):
            return False
        for place in self.search:
            if isinstance(place, Fallback):
                if any(name.startswith(group + "/") for name in place.configs):
                    return True
            elif (place / group).is_dir():
                return True
        return False

    def has_fallback(self) -> bool:
        return any(isinstance(place, Fallback) for place in self.search)


def _header(path: Path) -> str | None:
    """The `# @package X` line among a config file's leading comments."""
    try:
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            for _ in range(50):
                line = handle.readline()
                if not line:
                    break
                stripped = line.strip()
                if not stripped:
                    continue
                if not stripped.startswith("#"):
                    break
                body = stripped[1:].strip()
                if body.startswith("@package"):
                    return body[len("@package") :].strip()
    except OSError:
        return None
    return None


def _nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path, value in flat.items():
        node, leaf = _holder(out, path)
        node[leaf] = copy.deepcopy(value)
    return out


def _node(config: dict[str, Any], path: str) -> dict[str, Any]:
    """The mapping at a dotted path ('' is the config itself), made where missing, a scalar in the way replaced."""
    node = config
    for part in path.split(".") if path else ():
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    return node


def _holder(config: dict[str, Any], key: str) -> tuple[dict[str, Any], str]:
    """The mapping that holds a dotted key's leaf, and the leaf."""
    parent, _, leaf = key.rpartition(".")
    return _node(config, parent), leaf


def _final_package(parent: str, package: str) -> str:
    """hydra.core.default_element.InputDefault._get_final_package."""
    if parent == "":
        result = package
    elif package == "":
        result = parent
    else:
        result = f"{parent}.{package}"
    at = result.rfind("_global_")
    return result if at == -1 else result[at + len("_global_") + 1 :]


def _absolute_header(header: str | None) -> str | None:
    if header is None:
        return None
    if header == "_global_" or header.startswith("_global_."):
        return header
    return "_global_" if header == "" else f"_global_.{header}"


class _Default(Record):
    kind: str  # "self", "config", "group"
    path: str  # config path for "config", group (as written) for "group"
    options: tuple[str, ...]  # group options (one, several, or () for null)
    package: str | None
    optional: bool
    override: bool


# `${name}` in a defaults list's option (the option chosen for the config group `name`).
_INTERPOLATION = lazy(r"\$\{([^${}]+)\}")


def _read_defaults(raw: Any, where: str) -> list[_Default]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ComposeError(f"Invalid defaults list in '{where}', defaults must be a list")
    found: list[_Default] = []
    for item in raw:
        if isinstance(item, str):
            if item == "_self_":
                found.append(_Default("self", "", (), None, False, False))
                continue
            path, _, package = item.partition("@")
            found.append(_Default("config", path, (), package if "@" in item else None, False, False))
            continue
        if not isinstance(item, dict) or len(item) != 1:
            raise ComposeError(f"Unsupported item value in defaults : {item!r} in '{where}'")
        ((key, value),) = item.items()
        key = str(key)
        words = key.split()
        optional = override = False
        while len(words) > 1 and words[0] in ("optional", "override"):
            optional = optional or words[0] == "optional"
            override = override or words[0] == "override"
            words = words[1:]
        group, _, package = " ".join(words).partition("@")
        if value is None:
            options: tuple[str, ...] = ()
        elif isinstance(value, list):
            options = tuple(str(v) for v in value)
        else:
            options = (str(value),)
        found.append(_Default("group", group, options, package if "@" in key else None, optional, override))
    return found


def _merge(into: dict[str, Any], package: str, content: Any) -> None:
    """OmegaConf.merge of `content` placed at `package` into the config."""
    node = _node(into, package)  # made even for an empty file, as before any content is merged
    if isinstance(content, dict):
        _merge_dicts(node, content)


def _merge_dicts(into: dict[str, Any], content: dict[str, Any]) -> None:
    for key, value in content.items():
        key = str(key)
        here = into.get(key)
        if isinstance(value, dict):
            if isinstance(here, dict):
                _merge_dicts(here, value)
            else:
                into[key] = copy.deepcopy(value)
        elif value == _MISSING and key in into:
            continue  # a mandatory-value marker does not replace a value already there
        else:
            into[key] = copy.deepcopy(value) if isinstance(value, list) else value  # (a scalar is never changed)


class _Composer:
    def __init__(self, repo: _Repo, choices: dict[str, tuple[str, ...]]) -> None:
        self.repo = repo
        self.config: dict[str, Any] = {}
        self.choices = choices  # group -> options chosen by `override` entries or the command line
        self.used: set[str] = set()
        # group -> the option chosen for it so far, what `${group}` in a defaults list stands for (Hydra 1.1+)
        self.known: dict[str, str] = {}

    def node(self, config_path: str, content: Any, package: str, depth: int, primary: bool = False) -> None:
        if depth > _MAX_DEPTH:
            raise Unresolved(f"the defaults lists nest more than {_MAX_DEPTH} deep")
        if content is None:
            content = {}
        if not isinstance(content, dict):
            # (a symbolic link kept as a file by an archive holds the path it pointed to)
            raise Unresolved(f"the config '{config_path}' is not a mapping")
        defaults = _read_defaults(content.get("defaults"), config_path)
        own = {k: v for k, v in content.items() if k != "defaults" and not (primary and k == "hydra")}
        if not any(d.kind == "self" for d in defaults):
            defaults.append(_Default("self", "", (), None, False, False))
        base = posixpath.dirname(config_path)
        for default in defaults:  # the choices of this list are known before any of its entries is read
            if default.kind == "group" and default.override and not primary:
                # `override model_engine: megatron` in a config the tree includes (verl's ppo_megatron_trainer,
                # under a config of its own): a choice for the whole tree, the command line's winning over it
                self.choices.setdefault(self._key(default, base), default.options)
            if default.kind == "group":
                key = self._key(default, base)
                chosen = self.choices.get(key, default.options)
                if len(chosen) == 1 and "${" not in chosen[0]:
                    self.known.setdefault(key, chosen[0])
        for default in defaults:
            if default.kind == "self":
                _merge(self.config, package, own)
            elif default.kind == "config":
                self._config(default, base, package, depth)
            elif not default.override:
                self._group(default, base, package, depth)

    def _config(self, default: _Default, base: str, parent: str, depth: int) -> None:
        absolute = default.path.startswith("/")
        path = default.path.lstrip("/")
        config_path = path if absolute or not base else f"{base}/{path}"
        loaded = self.repo.load(config_path)
        if loaded is None:
            if self.repo.has_fallback():
                raise Unresolved(f"the config '{config_path}' is not in the repository")
            raise ComposeError(f"Could not load '{config_path}'.")
        content, header = loaded
        relative = posixpath.dirname(path)
        package = default.package if default.package is not None else _absolute_header(header)
        if package is None:
            package = relative.replace("/", ".")
        self.node(config_path, content, _final_package(parent, package), depth + 1)

    @staticmethod
    def _key(default: _Default, base: str) -> str:
        group = default.path.lstrip("/")
        return posixpath.normpath(group if default.path.startswith("/") or not base else f"{base}/{group}")

    def _interpolated(self, option: str, key: str) -> str:
        """`${model_engine}_actor` with the option chosen for the group `model_engine` (Hydra's interpolation of
        config group choices in a defaults list); a name no group of the tree has chosen is not followed."""

        def choice(match: re.Match[str]) -> str:
            name = match.group(1).strip()
            if name not in self.known:
                raise Unresolved(f"'{key}: {option}' interpolates {match.group(0)}, which no config group chooses")
            return self.known[name]

        return _INTERPOLATION.sub(choice, option)

    def _group(self, default: _Default, base: str, parent: str, depth: int) -> None:
        group = default.path.lstrip("/")
        key = self._key(default, base)
        options = self.choices.get(key, default.options)
        if key in self.choices:
            self.used.add(key)
        options = tuple(self._interpolated(o, key) if "${" in o else o for o in options)
        if len(options) == 1:
            self.known[key] = options[0]
        for option in options:
            if option == _MISSING:
                raise ComposeError(f"You must specify '{key}', e.g, {key}=<OPTION>")
            loaded = self.repo.load(f"{key}/{option}")
            if loaded is None:
                if default.optional:
                    continue
                if self.repo.has_fallback():
                    raise Unresolved(f"the config '{key}/{option}' is not in the repository")
                raise ComposeError(f"In '{key}': Could not find '{key}/{option}'")
            content, header = loaded
            package = default.package if default.package is not None else _absolute_header(header)
            if package is None:
                package = group.replace("/", ".")
            self.node(f"{key}/{option}", content, _final_package(parent, package), depth + 1)


def compose(
    search: list[Path | Fallback],
    name: str,
    overrides: list[Override],
    load: Callable[[Path], Any],
    apply_values: bool = True,
) -> Composition:
    """The config `name` composed over `search` with `overrides` applied (raises ComposeError where Hydra
    stops, Unresolved where grpo-lint cannot follow). `apply_values=False`: only the overrides that choose
    config groups are applied (the caller judges the others key by key)."""
    repo = _Repo(search, load)
    primary = repo.load(name)
    if primary is None:
        if repo.has_fallback():
            raise Unresolved(f"the config '{name}' is not in the repository")
        raise ComposeError(f"Cannot find primary config '{name}'. Check that it's in your config search path.")
    content, header = primary
    choices: dict[str, tuple[str, ...]] = {}
    if isinstance(content, dict):
        for default in _read_defaults(content.get("defaults"), name):
            if default.kind == "group" and default.override:
                choices[posixpath.normpath(default.path.lstrip("/"))] = default.options
    values: list[Override] = []
    group_keys: set[str] = set()
    added: list[_Default] = []
    for override in overrides:
        if override.key == "hydra" or override.key.startswith("hydra."):
            continue
        if override.package is not None or repo.group_exists(override.key):
            if not repo.group_exists(override.key):
                raise ComposeError(
                    f"Override {override.text} looks like a config group override, but config group "
                    f"'{override.key}' does not exist."
                )
            group_keys.add(override.key)
            option = (
                tuple(str(v) for v in override.value)
                if isinstance(override.value, list)
                else (() if override.value is None else (str(override.value),))
            )
            if override.prefix in ("+", "++") and override.key not in _groups_named(content, name):
                added.append(_Default("group", override.key, option, override.package, False, False))
            elif override.prefix == "~":
                choices[posixpath.normpath(override.key)] = ()
            else:
                choices[posixpath.normpath(override.key)] = option
            continue
        values.append(override)
    composer = _Composer(repo, choices)
    if isinstance(content, dict) and added:
        content = {**content, "defaults": [*(content.get("defaults") or []), *_as_items(added)]}
    composer.node(name, content, _final_package("", _absolute_header(header) or ""), 0, primary=True)
    for key in choices:
        if key not in composer.used and not _override_declared(content, name, key):
            raise ComposeError(f"Could not override '{key}'. No match in the defaults list.")
    config = composer.config
    config.pop("hydra", None)
    for override in values if apply_values else ():
        _apply(config, override)
    return Composition(config, frozenset(group_keys))


def _groups_named(content: Any, name: str) -> set[str]:
    if not isinstance(content, dict):
        return set()
    return {d.path.lstrip("/") for d in _read_defaults(content.get("defaults"), name) if d.kind == "group"}


def _override_declared(content: Any, name: str, key: str) -> bool:
    if not isinstance(content, dict):
        return False
    return any(
        d.kind == "group" and d.override and posixpath.normpath(d.path.lstrip("/")) == key
        for d in _read_defaults(content.get("defaults"), name)
    )


def _as_items(defaults: list[_Default]) -> list[Any]:
    items: list[Any] = []
    for d in defaults:
        key = d.path + (f"@{d.package}" if d.package is not None else "")
        items.append({key: list(d.options) if len(d.options) != 1 else d.options[0]})
    return items


def _select(config: dict[str, Any], key: str) -> tuple[bool, Any]:
    """(found, value) of a dotted key."""
    node: Any = config
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _apply(config: dict[str, Any], override: Override) -> None:
    key, value = override.key, override.value
    found, existing = _select(config, key)
    if override.prefix == "~":
        if not found or existing is None or existing == _MISSING:
            raise ComposeError(f"Could not delete from config. '{key}' does not exist.")
        if override.has_value and value is not None and value != existing:
            raise ComposeError(f"Could not delete from config. The value of '{key}' is {existing} and not {value}.")
        parent, _, leaf = key.rpartition(".")
        holder = _select(config, parent)[1] if parent else config
        del holder[leaf]
        return
    if override.prefix == "+":
        if found and existing is not None and existing != _MISSING and not isinstance(value, dict | list):
            raise ComposeError(
                f"Could not append to config. An item is already at '{key}'.\n"
                f"Either remove + prefix: '{override.text[1:]}'\n"
                f"Or add a second + to add or override '{key}': '+{override.text}'"
            )
        _set(config, key, value)
        return
    if override.prefix == "++":
        _set(config, key, value)
        return
    if not found or (isinstance(value, dict) and isinstance(existing, dict) and not _covers(existing, value)):
        raise ComposeError(f"Could not override '{key}'.\nTo append to your config use +{override.text}")
    _set(config, key, value)


def _covers(existing: dict[str, Any], value: dict[str, Any]) -> bool:
    """Whether merging `value` into a struct mapping adds no key (nested mappings alike)."""
    for k, v in value.items():
        if k not in existing:
            return False
        if isinstance(v, dict) and isinstance(existing[k], dict) and not _covers(existing[k], v):
            return False
    return True


def _set(config: dict[str, Any], key: str, value: Any) -> None:
    node, leaf = _holder(config, key)
    if isinstance(value, dict) and isinstance(node.get(leaf), dict):
        _merge_dicts(node[leaf], value)
    else:
        node[leaf] = value


def search_dirs(
    entries: list[str], starts: list[Path], package_dir: Callable[[str], Path | Fallback | None]
) -> list[Path | Fallback]:
    """`hydra.searchpath` entries as places: `file://dir` (relative to where the run starts: the first of
    `starts` that holds the folder), `pkg://a.b`."""
    places: list[Path | Fallback] = []
    for entry in entries:
        if entry.startswith("file://"):
            path = entry[len("file://") :]
            if os.path.isabs(path):
                raise Unresolved(f"the search path entry {entry} is a folder outside the repository")
            found = next((start / path for start in starts if (start / path).is_dir()), None)
            if found is None:
                raise Unresolved(f"the search path entry {entry} names no folder of the repository")
            places.append(found)
        elif entry.startswith("pkg://"):
            found = package_dir(entry[len("pkg://") :].replace("/", "."))
            if found is None:
                raise Unresolved(f"the search path entry {entry} is a package the repository does not hold")
            places.append(found)
        else:
            raise Unresolved(f"the search path entry {entry!r} is not file:// or pkg://")
    return places
