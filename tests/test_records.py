"""`Record` makes the class typing.NamedTuple makes, from the same class body."""

from __future__ import annotations

import pickle
from typing import NamedTuple, get_type_hints

import pytest

from grpo_lint.records import Record


class ByRecord(Record):
    """A span."""

    line: int
    column: int = 1
    names: tuple[str, ...] = ()

    @property
    def position(self) -> str:
        return f"{self.line}:{self.column}"

    def moved(self, lines: int) -> ByRecord:
        return self._replace(line=self.line + lines)


class ByTyping(NamedTuple):
    """A span."""

    line: int
    column: int = 1
    names: tuple[str, ...] = ()

    @property
    def position(self) -> str:
        return f"{self.line}:{self.column}"

    def moved(self, lines: int) -> ByTyping:
        return self._replace(line=self.line + lines)


def test_a_record_behaves_as_the_named_tuple_of_the_same_body():
    ours, theirs = ByRecord(3, names=("a",)), ByTyping(3, names=("a",))
    assert tuple(ours) == tuple(theirs) == (3, 1, ("a",))
    assert ours._fields == theirs._fields and ours._field_defaults == theirs._field_defaults
    assert ours.position == theirs.position == "3:1"
    assert ours.moved(2) == (5, 1, ("a",)) and type(ours.moved(2)) is ByRecord
    assert repr(ours) == "ByRecord(line=3, column=1, names=('a',))"
    assert ByRecord.__doc__ == ByTyping.__doc__ == "A span."
    assert ByRecord.__annotations__ == {"line": "int", "column": "int", "names": "tuple[str, ...]"}  # as written
    assert (
        get_type_hints(ByRecord) == get_type_hints(ByTyping) == {"line": int, "column": int, "names": tuple[str, ...]}
    )
    assert ByRecord.__mro__ == (ByRecord, tuple, object)
    assert ByRecord.__module__ == __name__ and ByRecord.__qualname__ == "ByRecord"
    assert pickle.loads(pickle.dumps(ours)) == ours
    assert hash(ours) == hash((3, 1, ("a",)))


def test_a_record_refuses_what_typing_refuses():
    with pytest.raises(TypeError, match="without a default follows"):

        class Late(Record):
            first: int = 0
            second: int

    with pytest.raises(AttributeError, match="_replace"):

        class Clash(Record):
            value: int

            def _replace(self) -> None: ...

    with pytest.raises(TypeError, match="from Record alone"):

        class Mixed(Record, dict):  # type: ignore[misc]
            value: int


def test_defining_and_building_a_record_compiles_no_code(monkeypatch):
    import builtins

    def refused(*args, **kwargs):
        raise AssertionError("code compiled at run time")

    monkeypatch.setattr(builtins, "eval", refused)
    monkeypatch.setattr(builtins, "exec", refused)
    monkeypatch.setattr(builtins, "compile", refused)

    class Late(Record):
        key: str
        value: int = 0

    assert Late("a") == ("a", 0) and Late(value=2, key="b") == ("b", 2) and Late("c", 3)._replace(value=4) == ("c", 4)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'key'"):
        Late()
    with pytest.raises(TypeError, match="unexpected keyword argument 'other'"):
        Late("a", other=1)
