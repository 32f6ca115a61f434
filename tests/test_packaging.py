"""The wheel ships every package of the source tree (pyproject.toml lists them by hand)."""

from __future__ import annotations

import tomllib

from .conftest import ROOT


def test_every_source_folder_is_a_listed_package():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "grpo_lint").rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert folders <= listed, f"not in pyproject.toml's packages: {sorted(folders - listed)}"
