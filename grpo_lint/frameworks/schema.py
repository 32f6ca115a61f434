"""Pydantic models of a framework's arguments at one version, built from its field table once.

Start-up is the product in a pre-commit hook, and importing pydantic and building a model of a few
hundred fields costs more than the rest of a run. Most configs hold values that already have the
right Python type and range, so `Schema.validate` first asks `_plainly_valid`, which can only say
"valid as written"; anything else (a string to convert, a value out of range, a wrong type) goes
through the pydantic model, which is the one place that coerces values and words errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from packaging.version import Version

from grpo_lint.frameworks.fields import FieldSpec, FieldTable
from grpo_lint.limits import MAX_DIGITS
from grpo_lint.patterns import lazy
from grpo_lint.records import Record
from grpo_lint.sources.numbers import out_of_range

if TYPE_CHECKING:
    from pydantic import BaseModel


def _no_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("a boolean is not a number")
    return value


def _annotations() -> dict[str, Any]:
    from typing import Annotated

    from pydantic import BeforeValidator

    guard = BeforeValidator(_no_bool)
    scalar = str | int | float | bool
    return {
        "int": Annotated[int, guard],
        "float": Annotated[float, guard],
        "bool": bool,
        "str": str,
        # Launchers splice a scalar into a one-item list, so both forms are accepted.
        "list": list[Any] | scalar,
        "dict": dict[str, Any],
        "dict|str": dict[str, Any] | str,
        "list|str": list[Any] | str,
        "bool|str": bool | str,
        "int|str": Annotated[int, guard] | str,
        "float|str": Annotated[float, guard] | str,
        "any": Any,
    }


_PLAIN_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "float": (float, int),
    "bool": (bool,),
    "str": (str,),
    "list": (list, str, int, float, bool),
    "dict": (dict,),
    "dict|str": (dict, str),
    "list|str": (list, str),
    "bool|str": (bool, str),
    "int|str": (int, str),
    "float|str": (float, int, str),
}


def _plainly_valid(spec: FieldSpec, value: Any) -> bool:
    """True when the value is valid as written, without conversion (never decides an error)."""
    if value is None:
        return spec.nullable or spec.base_kind == "any"
    kind = spec.base_kind
    if kind == "any":
        return True
    types = _PLAIN_TYPES.get(kind)
    if types is None or not isinstance(value, types):
        return False
    if kind in ("int", "float", "int|str", "float|str") and not isinstance(value, str):
        if isinstance(value, bool):
            return False
        return (
            (spec.ge is None or value >= spec.ge)
            and (spec.gt is None or value > spec.gt)
            and (spec.le is None or value <= spec.le)
            and (spec.lt is None or value < spec.lt)
        )
    return True


def annotation_for(spec: FieldSpec, base_types: dict[str, Any]) -> Any:
    from pydantic import Field

    base = base_types.get(spec.base_kind, Any)
    limits = {k: getattr(spec, k) for k in ("ge", "gt", "le", "lt") if getattr(spec, k) is not None}
    if limits and spec.base_kind in ("int", "float"):
        from typing import Annotated

        base = Annotated[base, Field(**limits)]
    return base | None if spec.nullable or base is Any else base


class ValueProblem(Record):
    """A value the framework would reject or misread: which key, and what is wrong."""

    key: str
    kind: str  # pydantic's error type, e.g. int_parsing, less_than_equal
    message: str
    fix: str | None = None  # the value as it should be written, when the default is not the answer


class Schema:
    """Validates a config's values against one framework version's arguments."""

    def __init__(self, table: FieldTable, version: Version) -> None:
        self.specs = table.at(version)
        self.name = f"{table.framework}_{version}".replace(".", "_").replace("+", "_")
        self._model: type[BaseModel] | None = None

    @property
    def model(self) -> type[BaseModel]:
        """The pydantic model of every argument of this version, built on first use."""
        if self._model is None:
            from pydantic import ConfigDict, create_model

            base_types = _annotations()
            fields: dict[str, Any] = {
                name: (annotation_for(spec, base_types), None) for name, spec in self.specs.items()
            }
            self._model = create_model(  # type: ignore[call-overload]
                self.name, __config__=ConfigDict(extra="ignore", coerce_numbers_to_str=True), **fields
            )
        return self._model

    def validate(self, values: dict[str, Any]) -> tuple[dict[str, Any], list[ValueProblem]]:
        """Coerced values of the known keys, and the problems of the others."""
        known = {k: v for k, v in values.items() if k in self.specs}
        if all(_plainly_valid(self.specs[k], v) for k, v in known.items()):
            return {k: _as_kind(self.specs[k], v) for k, v in known.items()}, []
        # Command-line words (`--num_generations 8`, `--bf16 true`) are strings: the plain ones are read here as
        # pydantic reads them, so a launch script's values need no model (importing pydantic and building one
        # costs far more than the lint of a file).
        plain = {k: _from_word(self.specs[k], v) for k, v in known.items()}
        if all(v is not _NOT_PLAIN and _plainly_valid(self.specs[k], v) for k, v in plain.items()):
            return {k: _as_kind(self.specs[k], v) for k, v in plain.items()}, []
        huge = [k for k, v in known.items() if out_of_range(v)]
        if huge:
            # Out of range before any conversion: such numbers never reach pydantic or the arithmetic.
            coerced, problems = self.validate({k: v for k, v in known.items() if k not in huge})
            return coerced, [_too_large(k, known[k]) for k in huge] + problems
        from pydantic import ValidationError

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


def _too_large(key: str, value: Any) -> ValueProblem:
    from grpo_lint.sources.numbers import TooLarge

    digits = TooLarge(value).digits if isinstance(value, str) else TooLarge(f"{value:#x}").digits
    return ValueProblem(
        key, "out_of_range", f"is out of range: a number of {digits} digits (grpo-lint reads up to {MAX_DIGITS})"
    )


_NOT_PLAIN = object()
_INT_WORD = lazy(r"-?[0-9]+")
_FLOAT_WORD = lazy(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _from_word(spec: FieldSpec, value: Any) -> Any:
    """A string written for an int, float or bool field, read as pydantic's lax mode reads it when it is
    plainly that (`8`, `-1`, `0.5`, `1e-6`, `true`/`false`); _NOT_PLAIN for anything else, which pydantic
    then judges. A number for a string field becomes its str(), as pydantic's `coerce_numbers_to_str` makes
    it (verl records `optim.lr` as a string: YAML reads `lr: 1e-6` as one, `lr: 1.0e-6` as a float).
    Other kinds and non-strings are returned as they are."""
    if not isinstance(value, str):
        if spec.base_kind == "str" and isinstance(value, int | float) and not isinstance(value, bool):
            return value if out_of_range(value) else str(value)
        return value
    kind = spec.base_kind
    if kind == "int" and len(value) <= MAX_DIGITS and _INT_WORD.fullmatch(value):
        return int(value)
    if kind == "float" and len(value) <= MAX_DIGITS and _FLOAT_WORD.fullmatch(value):
        return float(value)
    if kind == "bool" and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value if kind not in ("int", "float", "bool") else _NOT_PLAIN


def _as_kind(spec: FieldSpec, value: Any) -> Any:
    """What pydantic would return for a plainly valid value: ints in float fields become floats."""
    if spec.base_kind == "float" and isinstance(value, int):
        return float(value)
    return value


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
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        return f"must be {_range_text(spec)}"
    expected = _KIND_WORDS.get(spec.base_kind, spec.base_kind)
    if kind == "int_from_float":
        return f"must be {expected}, not a fraction"
    if kind == "none_required" or (kind.endswith("_type") and error.get("input") is None):
        return f"must be {expected}; null is not allowed here"
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
