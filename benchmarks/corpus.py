"""The corpus snapshots (../shared/corpus/repos/*.tar.gz), each unpacked into a scratch folder in turn."""

from __future__ import annotations

import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPOS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "repos"


def corpus_roots() -> Iterator[tuple[str, Path]]:
    """(name, root) of each snapshot, unpacked; the folder is removed when the next one is asked for."""
    for archive in sorted(REPOS.glob("*.tar.gz")):
        name = archive.name.removesuffix(".tar.gz")
        with tempfile.TemporaryDirectory() as scratch:
            with tarfile.open(archive) as tar:
                tar.extractall(scratch, filter="data")
            yield name, Path(scratch, name)
