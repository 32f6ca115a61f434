"""Whether a version lies in a release window: the one comparison the field tables and the versions share."""

from __future__ import annotations

from functools import cache

from packaging.version import Version


def in_range(version: Version, since: str | None = None, until: str | None = None) -> bool:
    """since <= version < until, with either bound optional."""
    if since is not None and version < parsed_version(since):
        return False
    return not (until is not None and version >= parsed_version(until))


@cache
def parsed_version(text: str) -> Version:
    """A release's Version, parsed once."""
    return Version(text)
