"""Target versions: --target parsing and the installed version, found without importlib.metadata."""

from __future__ import annotations

import sys
from importlib import metadata

import pytest
from packaging.version import Version

from grpo_lint import versions
from grpo_lint.versions import TargetError, installed_version, parse_target, resolve_target


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A private sys.path holding only tmp_path, with the version cache cleared around the test."""
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    installed_version.cache_clear()
    yield tmp_path
    installed_version.cache_clear()


def _dist_info(site, folder: str, version: str) -> None:
    path = site / folder
    path.mkdir()
    name = folder.split("-")[0]
    (path / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


@pytest.mark.parametrize(
    ("folder", "framework", "expected"),
    [
        ("trl-0.19.1.dist-info", "trl", "0.19.1"),
        ("ms_swift-3.5.2.dist-info", "swift", "3.5.2"),
        ("TRL-1.2.0.dist-info", "trl", "1.2.0"),
        ("trl_extra-9.0.0.dist-info", "trl", None),
        ("ms_swift-3.5.2.dist-info", "trl", None),
    ],
)
def test_installed_version_agrees_with_importlib_metadata(site, folder, framework, expected):
    _dist_info(site, folder, folder.removesuffix(".dist-info").split("-")[1])
    found = installed_version(framework)
    assert found == (Version(expected) if expected else None)
    try:
        assert found == Version(metadata.version(versions.DISTRIBUTIONS[framework]))
    except metadata.PackageNotFoundError:
        assert found is None


def test_egg_info_falls_back_to_importlib_metadata(site):
    egg = site / "trl.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: trl\nVersion: 0.17.0\n")
    assert installed_version("trl") == Version("0.17.0")


def test_first_path_entry_wins(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    _dist_info(first, "trl-0.20.0.dist-info", "0.20.0")
    _dist_info(second, "trl-1.0.0.dist-info", "1.0.0")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(first), str(second)])
    installed_version.cache_clear()
    try:
        assert installed_version("trl") == Version("0.20.0")
    finally:
        installed_version.cache_clear()


def test_resolution_order(site):
    _dist_info(site, "trl-0.21.0.dist-info", "0.21.0")
    explicit = {"trl": parse_target("trl==0.19.1")}
    assert resolve_target("trl", explicit).version == Version("0.19.1")
    assert resolve_target("trl", {}).source == "installed"
    assert resolve_target("swift", {}, file_version="3.8.1").version == Version("3.8.1")
    newest = resolve_target("swift", {})
    assert newest.version == versions.NEWEST_KNOWN["swift"] and newest.basis == "assumed"
    assert newest.uncertain == "nothing in the repository states which ms-swift release it runs"
    # A version too old to have GRPO is not a usable target; the next source decides.
    assert resolve_target("swift", {}, file_version="2.6.0").source == "assumed 4.6.0, the newest known"
    # Nothing states the release: the newest in which every key written exists (vllm_device left TRL in 0.18).
    fits = resolve_target("trl", {"swift": parse_target("swift==4.6.0")}, keys=["vllm_device"])
    assert fits.source == "installed"  # installed TRL 0.21.0 is shown, keys or not
    old = resolve_target("openrlhf", {}, keys=["--bf16"])  # flat --bf16 is gone since 0.9.2
    assert old.version == Version("0.9.1") and "the newest release that fits the keys this config writes" in old.source


@pytest.mark.parametrize("text", ["trl", "trl=0.19", "torch==2.0", "trl==banana", "trl==0.13.0"])
def test_bad_targets_are_rejected(text):
    with pytest.raises(TargetError):
        parse_target(text)
