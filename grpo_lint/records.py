"""`Record`: typing.NamedTuple's class syntax at a fraction of its cost to define.

`class Span(Record): line: int; column: int = 1` makes the class `typing.NamedTuple` makes: a tuple
subclass with a property per field, `_fields`, `_field_defaults`, `_make`, `_replace`, `_asdict`, the
class body's methods, properties and defaults, its annotations kept as written. Type checkers are shown
typing.NamedTuple itself.

Defining one is what a cold `grpo-lint one.yaml` spends several milliseconds on (some 45 record classes
load on that path), in two places this module avoids: typing compiles every annotation into a
`ForwardRef` that nothing here reads (under `from __future__ import annotations` each is a string), and
`collections.namedtuple` compiles a `__new__` from source for every class. Here each class's `__new__` is
a closure over its field names and defaults (nothing is compiled at run time, so a hostile-input audit that
forbids run-time code generation passes): positional and keyword calls, defaults and the errors are those of
namedtuple's; the common call, every field given positionally, costs one length check more. The other
methods are shared by every record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import NamedTuple as Record
else:
    try:
        from _collections import _tuplegetter  # what collections.namedtuple uses for its field properties
    except ImportError:  # another Python implementation
        from operator import itemgetter

        def _tuplegetter(index: int, doc: str | None) -> property:
            return property(itemgetter(index), doc=doc)

    # What typing.NamedTuple refuses in a class body, and what it does not copy onto the class.
    _PROHIBITED = frozenset({
        "__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults", "_make", "_replace",
        "_asdict", "_source",
    })  # fmt: skip
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__", "__qualname__", "__doc__"})

    _MISSING = object()

    def _new(name: str, fields: tuple[str, ...], defaults: tuple[Any, ...]) -> Any:
        """The class's `__new__`: positional and keyword arguments bound to the fields as namedtuple binds them,
        by a closure (nothing is compiled at run time). The common call, every field positional, is one check."""
        count = len(fields)
        first_default = count - len(defaults)
        position = {field: index for index, field in enumerate(fields)}
        tuple_new = tuple.__new__
        template = [_MISSING] * first_default + list(defaults)

        def __new__(_cls: type, *args: Any, **kwargs: Any) -> Any:
            given = len(args)
            if not kwargs:
                if given == count:
                    return tuple_new(_cls, args)
                if first_default <= given < count:
                    return tuple_new(_cls, args + defaults[given - first_default :])
            if given > count:
                raise TypeError(f"{name}.__new__() takes {count + 1} positional arguments but {given + 1} were given")
            values = template.copy()  # the defaults in place, the required fields _MISSING
            values[:given] = args
            for key, value in kwargs.items():
                index = position.get(key)
                if index is None:
                    raise TypeError(f"{name}.__new__() got an unexpected keyword argument '{key}'")
                if index < given:
                    raise TypeError(f"{name}.__new__() got multiple values for argument '{key}'")
                values[index] = value
            if given < first_default and any(values[i] is _MISSING for i in range(given, first_default)):
                missing = [fields[i] for i in range(given, first_default) if values[i] is _MISSING]
                raise TypeError(
                    f"{name}.__new__() missing {len(missing)} required positional argument"
                    f"{'s' if len(missing) > 1 else ''}: " + ", ".join(repr(m) for m in missing)
                )
            return tuple_new(_cls, values)

        __new__.__qualname__ = f"{name}.__new__"
        return __new__

    @classmethod  # type: ignore[misc]
    def _make(cls: type, iterable: Any) -> Any:
        result = tuple.__new__(cls, iterable)
        if len(result) != len(cls._fields):  # type: ignore[attr-defined]
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(result)}")  # type: ignore[attr-defined]
        return result

    def _replace(self: Any, /, **changes: Any) -> Any:
        result = self._make(map(changes.pop, self._fields, self))
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return result

    def _repr(self: Any) -> str:
        return self.__class__.__name__ + self._repr_format % self

    def _asdict(self: Any) -> dict[str, Any]:
        return dict(zip(self._fields, self, strict=True))

    def _getnewargs(self: Any) -> tuple[Any, ...]:
        return tuple(self)

    class _RecordMeta(type):
        def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
            if bases != (_Base,):
                raise TypeError(f"{name}: a Record derives from Record alone")
            annotations = namespace.get("__annotations__", {})
            fields = tuple(annotations)
            defaults = tuple(namespace[field] for field in fields if field in namespace)
            if defaults and any(field not in namespace for field in fields[len(fields) - len(defaults) :]):
                raise TypeError(f"{name}: a field without a default follows a field with one")
            for field in fields:
                if field.startswith("_"):
                    raise ValueError(f"{name}: a field name cannot start with an underscore: {field!r}")
            body = {
                "__doc__": namespace.get("__doc__", f"{name}({', '.join(fields)})"),
                "__slots__": (),
                "__module__": namespace.get("__module__"),
                "__qualname__": namespace.get("__qualname__", name),
                "__annotations__": dict(annotations),
                "_fields": fields,
                "_field_defaults": dict(zip(fields[len(fields) - len(defaults) :], defaults, strict=True)),
                "_repr_format": "(" + ", ".join(f"{field}=%r" for field in fields) + ")",
                "__new__": _new(name, fields, defaults),
                "_make": _make,
                "_replace": _replace,
                "__repr__": _repr,
                "_asdict": _asdict,
                "__getnewargs__": _getnewargs,
                "__match_args__": fields,
            }
            for index, field in enumerate(fields):
                body[field] = _tuplegetter(index, None)
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"{name}: cannot overwrite the record attribute {key}")
                if key not in _SPECIAL and key not in fields:
                    body[key] = value
            return type.__new__(type, name, (tuple,), body)

    _Base = type.__new__(_RecordMeta, "_Base", (), {})

    class _Record:
        """The base written in `class X(Record)`; it leaves no trace in the class's bases."""

        def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
            return (_Base,)

        def __repr__(self) -> str:
            return "grpo_lint.records.Record"

    Record = _Record()
