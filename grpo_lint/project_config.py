"""Project settings: `[tool.grpo-lint]` in the nearest pyproject.toml, or a `.grpo-lint.toml`.

The nearest file wins, searched from the current directory upwards; in one directory a
`.grpo-lint.toml` (or `grpo-lint.toml`) beats `pyproject.toml`, and a pyproject.toml without a
`[tool.grpo-lint]` table is passed over. Every setting is validated here; a mistake is a
`ConfigError` with the file, line and column of the offending key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grpo_lint.diagnostics import Severity
from grpo_lint.limits import MAX_WORLD_SIZE
from grpo_lint.options import PathPatterns, Thresholds
from grpo_lint.patterns import lazy
from grpo_lint.records import Record
from grpo_lint.versions import Target, TargetError, parse_target

OWN_FILES = (".grpo-lint.toml", "grpo-lint.toml")
SECTION = ("tool", "grpo-lint")
SEVERITIES = ("error", "warning", "info")


class ConfigError(Exception):
    """A setting that cannot be used; printed as `path:line:col: message`."""

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{path}:{line}:{column}: {message}")
        self.path, self.line, self.column, self.message = path, line, column, message


class ProjectConfig(Record):
    """Validated settings in Options' terms (only those the file sets), and where they came from."""

    path: str
    settings: dict[str, Any]


def find(start: Path) -> Path | None:
    """The nearest settings file at or above `start`."""
    for directory in (start.resolve(), *start.resolve().parents):
        for name in OWN_FILES:
            candidate = directory / name
            if candidate.is_file():
                return candidate
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file() and _has_section(pyproject):
            return pyproject
    return None


def _has_section(pyproject: Path) -> bool:
    from grpo_lint.sources.document import ReadProblem
    from grpo_lint.sources.reading import read_file

    data = read_file(pyproject)
    if isinstance(data, ReadProblem):
        return False
    text = data.decode("utf-8", "replace")
    return re.search(r"^\s*\[\s*tool\s*\.\s*[\"']?grpo-lint", text, re.M) is not None


def load(path: Path) -> ProjectConfig:
    import tomllib

    from grpo_lint.sources.document import ReadProblem
    from grpo_lint.sources.reading import read_file
    from grpo_lint.sources.yaml_guards import prescan

    display = str(path)
    data = read_file(path)
    if isinstance(data, ReadProblem):
        raise ConfigError(display, 1, 1, f"the settings file {data.message}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(display, 1, 1, f"the settings file is not UTF-8 text: {exc.reason}") from None
    refused = prescan(text)  # TOML arrays and inline tables nest like YAML flow collections
    if refused is not None:
        line, column = (refused.span.line, refused.span.column) if refused.span else (1, 1)
        raise ConfigError(display, line, column, f"the settings file {refused.message}")
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column = _toml_error_position(str(exc), text)
        raise ConfigError(display, line, column, f"invalid TOML: {exc}") from None
    except ValueError:  # Python will not convert an integer of more than 4,300 digits
        found = _LONG_NUMBER.search(text)
        offset = found.start() if found is not None else 0
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        raise ConfigError(display, line, column, "a number is too long to read (out of range)") from None
    own = path.name != "pyproject.toml"  # .grpo-lint.toml, or any file given with --config
    tool = parsed.get("tool", {})
    if not own and not isinstance(tool, dict):
        raise ConfigError(display, *_locate(text, (), "tool"), "`tool` must be a table")
    table = parsed if own else tool.get("grpo-lint", {})
    prefix: tuple[str, ...] = () if own else SECTION
    if not isinstance(table, dict):
        raise ConfigError(display, *_locate(text, (), "tool"), "[tool] grpo-lint must be a table")
    reader = _Reader(display, text, prefix, path.parent)
    return ProjectConfig(display, reader.read(table))


# Where a number too long for Python's int() is (to place the error; TOML parsers keep no positions).
_LONG_NUMBER = lazy(r"(?<![\w\"'.])[+-]?\d[\d_]{4000,}")


def _toml_error_position(message: str, text: str) -> tuple[int, int]:
    match = re.search(r"at line (\d+), column (\d+)", message)
    if match:
        return int(match.group(1)), int(match.group(2))
    if "end of document" in message:
        return text.count("\n") + 1, len(text.rpartition("\n")[2]) + 1
    return 1, 1


def _locate(text: str, table: tuple[str, ...], key: str) -> tuple[int, int]:
    """Line and column of `key = ...` inside [table] (TOML parsers keep no positions)."""
    current: tuple[str, ...] = ()
    header_line = 0
    key_pattern = re.compile(r"""^(\s*)(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_.-]+))\s*=""")
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"^\s*\[\s*([^\]\[]+?)\s*\]\s*(#.*)?$", line)
        if header:
            current = tuple(part.strip().strip("\"'") for part in header.group(1).split("."))
            if current == table:
                header_line = number
            continue
        if current != table:
            continue
        match = key_pattern.match(line)
        if match and next(g for g in match.groups()[1:] if g is not None) == key:
            return number, len(match.group(1)) + 1
    if not header_line and table not in ((), SECTION):
        # Not under its own header: an inline table (`severity = {GRPO205 = "error"}`) in the parent.
        return _locate(text, table[:-1], table[-1])
    return max(header_line, 1), 1


class _Reader:
    def __init__(self, display: str, text: str, prefix: tuple[str, ...], base: Path) -> None:
        self.display, self.text, self.prefix, self.base = display, text, prefix, base

    def fail(self, table: tuple[str, ...], key: str, message: str) -> ConfigError:
        line, column = _locate(self.text, self.prefix + table, key)
        return ConfigError(self.display, line, column, message)

    def read(self, table: dict[str, Any]) -> dict[str, Any]:
        from grpo_lint.frameworks.fields import closest

        settings: dict[str, Any] = {}
        for key, value in table.items():
            handler = _SETTINGS.get(key)
            if handler is None:
                hint = closest(key, list(_SETTINGS))
                known = ", ".join(_SETTINGS)
                message = f"unknown setting {key!r}" + (
                    f"; did you mean {hint!r}?" if hint else f" (known settings: {known})"
                )
                raise self.fail((), key, message)
            settings.update(handler(self, key, value))
        return settings

    # Value readers, each raising a ConfigError at the key.
    def codes(self, table: tuple[str, ...], key: str, value: Any, exact: bool = False) -> frozenset[str]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(table, key, f'{key} must be a list of rule codes, e.g. ["GRPO205"]')
        found = set()
        for raw in value:
            code = raw.strip().upper()
            problem = code_problem(code, exact)
            if problem:
                raise self.fail(table, key, f"{key}: {problem}")
            found.add(code)
        return frozenset(found)

    def strings(self, key: str, value: Any) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail((), key, f"{key} must be a list of strings")
        return tuple(value)

    def choice(self, table: tuple[str, ...], key: str, value: Any, choices: tuple[str, ...]) -> str:
        if value not in choices:
            raise self.fail(table, key, f"{key} must be one of {', '.join(choices)}, not {value!r}")
        return value

    def number(self, table: tuple[str, ...], key: str, value: Any, integer: bool, low: float, high: float) -> Any:
        kinds = (int,) if integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
            kind = "an integer" if integer else "a number"
            bound = f" >= {low}" if high == float("inf") else f" in [{low}, {high}]"
            raise self.fail(table, key, f"{key} must be {kind}{bound}, not {value!r}")
        return value

    def table(self, key: str, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail((), key, f"{key} must be a table")
        return value


def _select(r: _Reader, key: str, value: Any) -> dict[str, Any]:
    return {key: r.codes((), key, value)}


def _targets(r: _Reader, key: str, value: Any) -> dict[str, Any]:
    targets: dict[str, Target] = {}
    for text in r.strings(key, value):
        try:
            target = parse_target(text)
        except TargetError as exc:
            raise r.fail((), key, str(exc).replace("--target ", "target ")) from None
        targets[target.framework] = target
    return {"targets": targets}


def _world_size(r: _Reader, key: str, value: Any) -> dict[str, Any]:
    return {"world_size": r.number((), key, value, True, 1, MAX_WORLD_SIZE)}


def _framework(r: _Reader, key: str, value: Any) -> dict[str, Any]:
    return {"framework": r.choice((), key, value, ("trl", "swift", "verl", "openrlhf"))}


def _extra_keys(r: _Reader, key: str, value: Any) -> dict[str, Any]:
    return {"extra_keys": frozenset(r.strings(key, value))}


def _fail_on(r: _Reader, key: str, value: Any) -> dict[str, Any]:
    return {"fail_on": r.choice((), key, value, SEVERITIES)}


def _exclude(r: _Reader, key: str, value: Any) -> dict[str, Any]:
    return {"exclude": PathPatterns(str(r.base), r.strings(key, value))}


def _severity(r: _Reader, key: str, value: Any) -> dict[str, Any]:
    overrides = {}
    for code, level in r.table(key, value).items():
        problem = code_problem(code, exact=True)
        if problem:
            raise r.fail((key,), code, problem)
        overrides[code] = Severity.parse(r.choice((key,), code, level, SEVERITIES))
    return {"severity": overrides}


_THRESHOLDS = {
    "min-temperature": ("min_temperature", False, 0.0, float("inf")),
    "min-top-p": ("min_top_p", False, 0.0, 1.0),
    "min-top-k": ("min_top_k", True, 1, float("inf")),
}


def _thresholds(r: _Reader, key: str, value: Any) -> dict[str, Any]:
    from grpo_lint.frameworks.fields import closest

    values = {}
    for name, number in r.table(key, value).items():
        if name not in _THRESHOLDS:
            hint = closest(name, list(_THRESHOLDS))
            raise r.fail((key,), name, f"unknown threshold {name!r}" + (f"; did you mean {hint!r}?" if hint else ""))
        field, integer, low, high = _THRESHOLDS[name]
        values[field] = r.number((key,), name, number, integer, low, high)
    return {"thresholds": Thresholds()._replace(**values)}


def _per_file_ignores(r: _Reader, key: str, value: Any) -> dict[str, Any]:
    entries = []
    for pattern, codes in r.table(key, value).items():
        entries.append((PathPatterns(str(r.base), (pattern,)), r.codes((key,), pattern, codes)))
    return {"per_file_ignores": tuple(entries)}


_SETTINGS: dict[str, Callable[[_Reader, str, Any], dict[str, Any]]] = {
    "select": _select,
    "ignore": _select,
    "target": _targets,
    "world-size": _world_size,
    "framework": _framework,
    "extra-keys": _extra_keys,
    "fail-on": _fail_on,
    "exclude": _exclude,
    "severity": _severity,
    "thresholds": _thresholds,
    "per-file-ignores": _per_file_ignores,
}


def code_problem(code: str, exact: bool = False) -> str | None:
    """Why `code` names no rule (exact code, or a prefix such as GRPO1), or None when it does."""
    from grpo_lint.checks import all_rules

    known = all_rules()
    if exact and code in known:
        return None
    if not exact and any(c.startswith(code) for c in known) and code.startswith("GRPO"):
        return None
    kind = "rule code" if exact else "rule code or prefix"
    return f"{code!r} is not a known {kind} (e.g. GRPO102{'' if exact else ' or GRPO1'}; see --list-rules)"
