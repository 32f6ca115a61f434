"""Regular expressions compiled on first use: a pattern at module level costs nothing at import.

Compiling the patterns of every module at start-up cost about 37 ms of a cold run, most of it for
patterns the run never uses (a YAML config needs none of the bash reader's). `lazy` returns an object
that compiles its pattern the first time one of its methods is called, and is then the compiled
pattern's method.
"""

from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("findall", "finditer", "fullmatch", "match", "search", "split", "sub", "subn")


class _Lazy:
    __slots__ = ("_compiled", "_flags", "_pattern", *_METHODS)

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[Any] | None = None

    def __getattr__(self, name: str) -> Any:
        # Called only while a name is unset: the first use compiles the pattern and keeps its methods
        # here, so that every later `.match` is a plain attribute look-up (hot patterns run per word).
        if name.startswith("_"):
            raise AttributeError(name)
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern, self._flags)
            for method in _METHODS:
                setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return cast("re.Pattern[str]", _Lazy(pattern, flags))


def lazy_bytes(pattern: bytes, flags: int = 0) -> re.Pattern[bytes]:
    return cast("re.Pattern[bytes]", _Lazy(pattern, flags))
