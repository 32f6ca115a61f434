"""The Python API: lint a config object where it lives (a dict, a GRPOConfig, an OmegaConf DictConfig, an
argparse Namespace), with the real world size when the caller knows it.

    import grpo_lint
    grpo_lint.check(training_args, world_size=8).raise_for_errors()

The object is turned into the config text a user would write (only the values that differ from the
class's own defaults, for a dataclass) and linted by the same engine as files; nothing of the caller's
frameworks is imported here.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator, Mapping
from typing import Any

from grpo_lint.diagnostics import Diagnostic, Severity

_FRAMEWORKS = ("trl", "swift", "verl", "openrlhf")  # also the top-level packages that name them


class ConfigError(Exception):
    """The config has errors; the message is the formatted report."""

    def __init__(self, report: Report) -> None:
        super().__init__(report.text())
        self.report = report


class Report:
    """What grpo-lint says about one config object."""

    def __init__(self, diagnostics: list[Diagnostic], source: str, name: str, against: str) -> None:
        self.diagnostics = diagnostics
        self.source = source  # the config text that was linted (the object as YAML)
        self.name = name
        self.against = against  # "TRL 1.16.0 (installed)"

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.WARNING]

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.diagnostics)

    def __len__(self) -> int:
        return len(self.diagnostics)

    def __bool__(self) -> bool:
        """True when the config is clean of errors (so `if grpo_lint.check(args):` reads naturally)."""
        return not self.errors

    def text(self) -> str:
        """The report as the command line prints it (with excerpts of the config as linted)."""
        from grpo_lint.formatters.text import render_text
        from grpo_lint.results import FileResult
        from grpo_lint.results import Report as FileReport

        result = FileResult(self.name, "linted", list(self.diagnostics), self.source)
        return render_text(FileReport([result]), color=False)

    def raise_for_errors(self) -> Report:
        """Raise ConfigError when there is an error; return the report otherwise (for chaining)."""
        if self.errors:
            raise ConfigError(self)
        return self

    def __repr__(self) -> str:
        return f"<grpo_lint.Report {len(self.errors)} errors, {len(self.warnings)} warnings against {self.against}>"


def check(
    config: Any,
    *,
    framework: str | None = None,
    target: str | None = None,
    world_size: int | None = None,
) -> Report:
    """Lint a config object: a mapping, a TRL or ms-swift arguments dataclass (GRPOConfig, ...), an
    OmegaConf DictConfig (verl) or an argparse Namespace (OpenRLHF).

    `framework` ("trl", "swift", "verl", "openrlhf") is taken from the object's class when not given,
    `target` ("trl==1.16.0") from the installed package, and `world_size` from the object when it has
    one (TrainingArguments.world_size in a running job).
    """
    import yaml

    from grpo_lint.engine import lint_text
    from grpo_lint.options import Options
    from grpo_lint.versions import parse_target

    values, guessed = _values(config)
    framework = framework or guessed
    if framework is not None and framework not in _FRAMEWORKS:
        raise ValueError(f"framework must be one of {', '.join(_FRAMEWORKS)}, not {framework!r}")
    if world_size is None:
        world_size = _world_size(config)
    targets = {}
    if target is not None:
        parsed = parse_target(target)
        targets[parsed.framework] = parsed
        framework = framework or parsed.framework
    if framework == "swift" and "rlhf_type" not in values:
        values = {"rlhf_type": "grpo", **values}
    source = yaml.safe_dump(_plain(values), sort_keys=False, default_flow_style=False, allow_unicode=True)
    name = f"<{type(config).__name__}>.yaml"
    options = Options(targets=targets, framework=framework, world_size=world_size)
    result = lint_text(source or "{}\n", name, options, kind="config")
    against = ", ".join(f"{p.target} ({p.target.source})" for p in result.plans) or "no framework"
    return Report(list(result.diagnostics), source, name, against)


def _values(config: Any) -> tuple[dict[str, Any], str | None]:
    """The object's settings as a mapping, and the framework its class names (or None)."""
    module = type(config).__module__ or ""
    framework = next((fw for fw in _FRAMEWORKS if module.split(".")[0] == fw), None)
    if module.startswith("omegaconf"):  # a verl DictConfig: the user's process has omegaconf loaded
        from omegaconf import OmegaConf  # type: ignore[import-not-found]

        container = OmegaConf.to_container(config, resolve=False)
        return dict(container) if isinstance(container, dict) else {}, framework or "verl"
    if isinstance(config, Mapping):
        return dict(config), framework
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        return _changed_fields(config), framework
    if type(config).__name__ == "Namespace" and module == "argparse":
        return _namespace_values(config), framework or "openrlhf"
    raise TypeError(
        f"grpo_lint.check takes a mapping, an arguments dataclass, a DictConfig or a Namespace, not {type(config)!r}"
    )


def _namespace_values(namespace: Any, prefix: str = "") -> dict[str, Any]:
    """argparse values by flag name; nested namespaces (OpenRLHF 0.10.2+ groups `actor.num_nodes`) flattened."""
    values: dict[str, Any] = {}
    for key, value in vars(namespace).items():
        if value is None:
            continue
        if type(value).__name__ == "Namespace":
            values.update(_namespace_values(value, f"{prefix}{key}."))
        else:
            values[f"{prefix}{key}"] = value
    return values


def _changed_fields(instance: Any) -> dict[str, Any]:
    """A dataclass's fields that differ from the class defaults: what the user set, as in a config file."""
    values: dict[str, Any] = {}
    for field in dataclasses.fields(instance):
        if field.name.startswith("_") or not field.init:
            continue
        value = getattr(instance, field.name, None)
        if field.default is not dataclasses.MISSING:
            default: Any = field.default
        elif field.default_factory is not dataclasses.MISSING:
            default = field.default_factory()
        else:
            default = dataclasses.MISSING
        if default is not dataclasses.MISSING and _same(value, default):
            continue
        values[field.name] = value
    if values.get("generation_batch_size") is not None and values.get("steps_per_generation") is not None:
        # GRPOConfig.__post_init__ derives the one not given from the other (TRL rejects both given), so a
        # built object holds both: keep steps_per_generation, which the geometry follows.
        del values["generation_batch_size"]
    return values


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(_plain(value) == _plain(default))
    except Exception:  # an object without a meaningful ==
        return False


def _plain(value: Any) -> Any:
    """YAML-ready: enums by value, mappings and sequences recursively, other objects as text."""
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _world_size(config: Any) -> int | None:
    """The process count the object knows in a running job (TrainingArguments.world_size), else None."""
    if isinstance(config, Mapping) or type(config).__name__ == "Namespace":
        return None
    try:
        value = config.world_size
    except Exception:  # a property that needs a distributed state the caller has not set up
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
