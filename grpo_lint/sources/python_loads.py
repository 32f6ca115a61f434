"""Config files a script loads itself, and the values it takes from them.

`cfg = yaml.safe_load(open(args.config))`, then `tcfg = cfg["training"]`, then
`GRPOConfig(num_generations=tcfg["num_generations"])`: the run's group size is a value of the YAML file the
launch names with `--config` (or argparse's default). This module reads those three steps from the syntax of
one function (and of the module's own code): which file a name was loaded from (a flag of the script, or a
path written in it), and which keys of that file an expression reads. Nothing is resolved here; the launch
(grpo_lint.launch.script_config) finds the file and its values.

Read: `yaml.safe_load` / `yaml.load` / `yaml.full_load` / `json.load` of `open(P)` (directly, through
`with open(P) as f`, or `Path(P).read_text()`), and `OmegaConf.load(P)`; P is `args.name` (a flag) or a
string. Views: `cfg["a"]`, `cfg.get("a")`, `cfg.get("a", default)`, and for OmegaConf `cfg.a`, each
possibly wrapped in `int(...)`, `float(...)`, `bool(...)` or `str(...)`. A function of the module that returns
such a load of its own parameter (`def load_config(path): with open(path) as f: return yaml.safe_load(f)`) loads
the file its caller names (`cfg = load_config(args.config)`).
"""

from __future__ import annotations

import ast
from typing import Any

from grpo_lint.records import Record
from grpo_lint.sources.python_index import NOT_LITERAL

NO_DEFAULT = "(no default)"  # a view with no `.get(key, default)`: a key the file lacks stops the script


class Loaded(Record):
    """A name bound to a loaded config file, or to a section of one."""

    kind: str  # "flag": the file is named by the flag `source` of the script; "path": `source` is the file;
    # "parameter" (inside a loader function only): the file the function's parameter `source` names
    source: str
    loader: str  # "yaml", "json", "omegaconf" (only OmegaConf reads `cfg.a` as a key)
    keys: tuple[str, ...] = ()


class LoadedRead(Record):
    """A keyword argument whose value is a key of a loaded config file."""

    kind: str
    source: str
    keys: tuple[str, ...]
    default: Any = NO_DEFAULT  # `.get(key, default)`'s literal default (NOT_LITERAL when not a literal)
    # `args.lr if args.lr is not None else tcfg["lr"]` (or `args.lr or tcfg["lr"]`): the flag that wins when given
    # ("args.lr"), and whether any false value gives way to the file (`or`) rather than None only.
    override: str | None = None
    falsy: bool = False


_YAML_LOADERS = frozenset({"safe_load", "load", "full_load", "unsafe_load"})
_OPENERS = frozenset({"open", "read_text"})
_CASTS = frozenset({"int", "float", "bool", "str"})


def may_load(value: ast.expr) -> bool:
    """Whether a value may open or load a config file (`open(...)`, `yaml.safe_load(...)`): asked first of every
    assignment, so that most skip `opened` and `load`."""
    if not isinstance(value, ast.Call):
        return False
    name = _name(value.func)
    return name in _OPENERS or name in _YAML_LOADERS


def path_source(node: ast.expr, parameters: frozenset[str] = frozenset()) -> tuple[str, str] | None:
    """Where a path expression comes from: `args.config` -> ("flag", "config"); "configs/a.yaml" -> ("path",
    ...); a parameter of the enclosing function named in `parameters` -> ("parameter", its name); `Path(x)` and
    `str(x)` looked through. None for anything else."""
    while isinstance(node, ast.Call) and _name(node.func) in ("Path", "str") and len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return "path", node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return "flag", node.attr
    if isinstance(node, ast.Name) and node.id in parameters:
        return "parameter", node.id
    return None


def opened(node: ast.expr, parameters: frozenset[str] = frozenset()) -> tuple[str, str] | None:
    """The file an expression opens or reads: `open(P, ...)`, `Path(P).open()`, `Path(P).read_text()`."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Name) and func.id == "open" and node.args:
        return path_source(node.args[0], parameters)
    if isinstance(func, ast.Attribute) and func.attr in _OPENERS:
        return path_source(func.value, parameters)
    return None


def load(node: ast.expr, files: dict[str, tuple[str, str]], parameters: frozenset[str] = frozenset()) -> Loaded | None:
    """What a call loads: `yaml.safe_load(open(P))`, `yaml.safe_load(f)` with `f` an opened file of `files`,
    `json.load(f)`, `OmegaConf.load(P)`. None for anything else."""
    if not isinstance(node, ast.Call) or not node.args or not isinstance(node.func, ast.Attribute):
        return None
    module = _name(node.func.value)
    method = node.func.attr
    argument = node.args[0]
    if module == "OmegaConf" and method == "load":
        source = path_source(argument, parameters)
        return Loaded(*source, "omegaconf") if source is not None else None
    if (module == "yaml" and method in _YAML_LOADERS) or (module == "json" and method == "load"):
        source = files.get(argument.id) if isinstance(argument, ast.Name) else opened(argument, parameters)
        return Loaded(*source, module) if source is not None else None
    return None


def loader_functions(module: ast.Module) -> dict[str, tuple[int, str]]:
    """The module's functions that return a config file loaded from their own parameter (`def load_config(path):
    with open(path) as f: return yaml.safe_load(f)`, `return OmegaConf.load(path)`): the function's name -> the
    parameter's position and the loader. A function that returns anything else, or more than one value, is none."""
    found: dict[str, tuple[int, str]] = {}
    for function in module.body:
        if isinstance(function, ast.FunctionDef) and not function.decorator_list:
            loaded = _loads_parameter(function)
            if loaded is not None:
                found[function.name] = loaded
    return found


def _loads_parameter(function: ast.FunctionDef) -> tuple[int, str] | None:
    parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    names = frozenset(parameters)
    returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)]
    if len(returns) != 1 or returns[0].value is None:
        return None
    files: dict[str, tuple[str, str]] = {}
    loads: dict[str, Loaded] = {}
    for statement in function.body:
        if isinstance(statement, ast.With) and len(statement.items) == 1:
            item = statement.items[0]
            source = opened(item.context_expr, names)
            if isinstance(item.optional_vars, ast.Name) and source is not None:
                files[item.optional_vars.id] = source
            body = statement.body
        else:
            body = [statement]
        for inner in body:
            if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name):
                found = load(inner.value, files, names)
                if found is not None:
                    loads[inner.targets[0].id] = found
    value = returns[0].value
    found = loads.get(value.id) if isinstance(value, ast.Name) else load(value, files, names)
    if found is None or found.kind != "parameter":
        return None  # (a file the function names itself, or a flag's: not the one its caller gives)
    return parameters.index(found.source), found.loader


def called_loader(node: ast.expr, functions: dict[str, tuple[int, str]]) -> Loaded | None:
    """`cfg = load_config(args.config)` of a loader function of the module: the file its argument names."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.func.id not in functions:
        return None
    position, loader = functions[node.func.id]
    if position >= len(node.args) or any(isinstance(a, ast.Starred) for a in node.args[: position + 1]):
        return None
    source = path_source(node.args[position])
    return Loaded(*source, loader) if source is not None else None


def view(node: ast.expr, names: dict[str, Loaded]) -> tuple[Loaded, Any] | None:
    """The loaded file and keys an expression reads, with `.get`'s default (NO_DEFAULT without one); None when it
    reads no loaded name."""
    while isinstance(node, ast.Call) and _name(node.func) in _CASTS and len(node.args) == 1:
        node = node.args[0]
    default: Any = NO_DEFAULT
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and 1 <= len(node.args) <= 2
        and not node.keywords
    ):
        key = _key(node.args[0])
        base = _base(node.func.value, names)
        if key is None or base is None:
            return None
        if len(node.args) == 2:
            try:
                default = ast.literal_eval(node.args[1])
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                default = NOT_LITERAL
        else:
            default = None
        return base._replace(keys=(*base.keys, key)), default
    found = _base(node, names)
    return (found, default) if found is not None and found.keys else None


def overridden(node: ast.expr, names: dict[str, Loaded]) -> LoadedRead | None:
    """A key of a loaded file that a flag overrides: `args.lr if args.lr is not None else tcfg["lr"]`,
    `tcfg["lr"] if args.lr is None else args.lr`, `args.lr or tcfg["lr"]`."""
    flag, other, falsy = None, None, False
    if isinstance(node, ast.IfExp) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1:
        test, op = node.test, node.test.ops[0]
        tested = _flag(test.left)
        is_none = isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
        if tested is not None and is_none and isinstance(op, ast.IsNot) and _flag(node.body) == tested:
            flag, other = tested, node.orelse
        elif tested is not None and is_none and isinstance(op, ast.Is) and _flag(node.orelse) == tested:
            flag, other = tested, node.body
    elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2:
        flag, other, falsy = _flag(node.values[0]), node.values[1], True
    if flag is None or other is None:
        return None
    found = view(other, names)
    if found is None:
        return None
    loaded, default = found
    return LoadedRead(loaded.kind, loaded.source, loaded.keys, default, flag, falsy)


def _flag(node: ast.expr) -> str | None:
    """`args.lr` -> "args.lr" (a name's attribute: a flag when the name is what the parser returned)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _base(node: ast.expr, names: dict[str, Loaded]) -> Loaded | None:
    """The loaded file and keys of a chain of subscripts (and, for OmegaConf, attributes) on a loaded name."""
    keys: list[str] = []
    by_attribute = False
    while not isinstance(node, ast.Name):
        if isinstance(node, ast.Subscript) and (key := _key(node.slice)) is not None:
            keys.append(key)
            node = node.value
        elif isinstance(node, ast.Attribute):
            keys.append(node.attr)
            by_attribute = True
            node = node.value
        else:
            return None
    found = names.get(node.id)
    if found is None or (by_attribute and found.loader != "omegaconf"):
        return None  # (`cfg.a` of a dict is no key of the file)
    return found._replace(keys=(*found.keys, *reversed(keys)))


def _key(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""
