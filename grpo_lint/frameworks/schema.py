"""Pydantic models of a framework's arguments at one version, built from its field table once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from packaging.version import Version
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, create_model

from grpo_lint.frameworks.fields import FieldSpec, FieldTable


def _no_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    return value


_NUMBER_GUARD = BeforeValidator(_no_bool)
_SCALAR = str | int | float | bool
_BASE: dict[str, Any] = {
    "int": Annotated[int, _NUMBER_GUARD],
    "float": Annotated[float, _NUMBER_GUARD],
    "bool": bool,
    "str": str,
    # Launchers splice a scalar into a one-item list, so both forms are accepted.
    "list": list[Any] | _SCALAR,
    "dict": dict[str, Any],
    "dict|str": dict[str, Any] | str,
    "list|str": list[Any] | str,
    "bool|str": bool | str,
    "int|str": Annotated[int, _NUMBER_GUARD] | str,
    "float|str": Annotated[float, _NUMBER_GUARD] | str,
    "any": Any,
}


def annotation_for(spec: FieldSpec) -> Any:
    base = _BASE.get(spec.base_kind, Any)
    limits = {k: getattr(spec, k) for k in ("ge", "gt", "le", "lt") if getattr(spec, k) is not None}
    if limits and spec.base_kind in ("int", "float"):
        base = Annotated[base, Field(**limits)]
    return base | None if spec.nullable or base is Any else base


@dataclass(frozen=True, slots=True)
class ValueProblem:
    """A value the framework would reject or misread: which key, and what is wrong."""

    key: str
    kind: str  # pydantic's error type, e.g. int_parsing, less_than_equal
    message: str


class Schema:
    """Validates a config's values against one framework version's arguments."""

    def __init__(self, table: FieldTable, version: Version) -> None:
        self.specs = table.at(version)
        fields: dict[str, Any] = {name: (annotation_for(spec), None) for name, spec in self.specs.items()}
        self.model: type[BaseModel] = create_model(  # type: ignore[call-overload]
            f"{table.framework}_{version}".replace(".", "_"),
            __config__=ConfigDict(extra="ignore", coerce_numbers_to_str=True),
            **fields,
        )

    def validate(self, values: dict[str, Any]) -> tuple[dict[str, Any], list[ValueProblem]]:
        """Coerced values of the known keys, and the problems of the others."""
        known = {k: v for k, v in values.items() if k in self.specs}
        try:
            model = self.model.model_validate(known)
            return {k: getattr(model, k) for k in known}, []
        except ValidationError as exc:
            problems: list[ValueProblem] = []
            bad: set[str] = set()
            for error in exc.errors(include_url=False):
                key = str(error["loc"][0])
                if key in bad:
                    continue  # a union reports once per member; the first says enough
                bad.add(key)
                problems.append(ValueProblem(key, error["type"], _describe(error, self.specs[key])))
            good = {k: v for k, v in known.items() if k not in bad}
            coerced = self.model.model_validate(good) if good else None
            return ({k: getattr(coerced, k) for k in good} if coerced else {}), problems


_KIND_WORDS = {
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "str": "a string",
    "list": "a list",
    "dict": "a mapping",
    "dict|str": "a mapping (or a JSON string)",
}


def _describe(error: Any, spec: FieldSpec) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        return f"must be {_range_text(spec)}"
    expected = _KIND_WORDS.get(spec.base_kind, spec.base_kind)
    if kind == "int_from_float":
        return f"must be {expected}, not a fraction"
    if kind == "none_required" or (kind.endswith("_type") and error.get("input") is None):
        return f"must be {expected}; null is not allowed here"
    del ctx
    return f"must be {expected}"


def _range_text(spec: FieldSpec) -> str:
    low = f"> {spec.gt:g}" if spec.gt is not None else f">= {spec.ge:g}" if spec.ge is not None else ""
    high = f"< {spec.lt:g}" if spec.lt is not None else f"<= {spec.le:g}" if spec.le is not None else ""
    if low and high:
        left = "(" if spec.gt is not None else "["
        right = ")" if spec.lt is not None else "]"
        lo = spec.gt if spec.gt is not None else spec.ge
        hi = spec.lt if spec.lt is not None else spec.le
        return f"in {left}{lo:g}, {hi:g}{right}"
    return low or high
