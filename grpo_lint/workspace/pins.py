"""Framework versions a repository pins: requirements files, setup.py/setup.cfg/pyproject.toml
dependencies, conda environment files, `REQUIRED_*.txt`, an ms-swift `args.json`.

Each pin keeps where it was written (`setup.py: trl[vllm]==0.18.0`). A range picks the newest
known release inside it; a version between releases maps to the release below it. A git reference
(`trl @ git+https://...@v0.16.0`, `-e git+...@REF#egg=trl`) pins the release its tag names; a commit
pins a version grpo-lint cannot tell (`version` None), and a branch follows the newest release.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import NamedTuple

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from grpo_lint.sources.document import ReadProblem
from grpo_lint.sources.numbers import integer
from grpo_lint.sources.reading import read_file

_PROJECTS = {"trl": "trl", "ms-swift": "swift", "verl": "verl", "openrlhf": "openrlhf"}
_REQUIREMENT_FILE = re.compile(r"(^|/)(requirements[^/]*\.txt|required_[^/]*\.txt|[^/]*requirements\.in)$", re.I)
_MAX_PIN_FILE = 512 * 1024
# `name[extras] specifiers ; markers` (PEP 508 without URLs): packaging.specifiers judges the versions.
# (packaging.requirements would do the same at 25 ms of import on every pre-commit run.)
_REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;@]*?)\s*(?:;.*)?$")
_MAX_DEPTH = 2  # pins live at the root or one or two folders down (requirements/, docker/)
# PEP 508 direct references (`trl[vllm] @ git+https://...@REF`) and pip's `git+URL@REF#egg=trl`.
_DIRECT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*@\s*(\S+)")
_EGG = re.compile(r"^(?:-e\s+|--editable\s+)?(\w+\+\S+?)#(?:.*&)?egg=([A-Za-z0-9._-]+)")
_TAG = re.compile(r"^v?(\d+(?:\.\d+)+(?:(?:a|b|rc|\.post|\.dev)\d+)?)$")
_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")


class Pin(NamedTuple):
    framework: str
    version: Version | None  # None: a git commit, whose release is not known
    provenance: str  # `setup.py: trl==0.18.0`
    exact: bool  # `==` (or a conda `=`, a git tag or commit), not a range


def find_pins(root: Path, files: list[str]) -> dict[str, Pin]:
    """The version each framework is pinned to, exact pins first, then the shallowest file."""
    found: list[tuple[int, int, str, Pin]] = []
    for name in files:
        depth = name.count("/")
        if depth > _MAX_DEPTH:
            continue
        for pin in _pins_in(root / name, name, root):
            found.append((0 if pin.exact else 1, depth, name, pin))
    chosen: dict[str, Pin] = {}
    for _, _, _, pin in sorted(found, key=lambda row: row[:3]):
        chosen.setdefault(pin.framework, pin)
    return chosen


def _pins_in(path: Path, name: str, root: Path) -> list[Pin]:
    base = name.rpartition("/")[2].lower()
    reader = None
    if _REQUIREMENT_FILE.search(name):
        reader = _requirements
    elif base == "setup.py":
        reader = _setup_py
    elif base == "setup.cfg":
        reader = _setup_cfg
    elif base == "pyproject.toml":
        reader = _pyproject
    elif base in ("environment.yml", "environment.yaml", "conda.yml", "conda.yaml"):
        reader = _conda
    elif base == "args.json":
        reader = _args_json
    if reader is None:
        return []
    data = read_file(path, _MAX_PIN_FILE, within=root)
    if isinstance(data, ReadProblem):
        return []
    text = data.decode("utf-8", "replace")
    try:
        return [pin for line in reader(text) if (pin := _pin(line, name)) is not None]
    except (ValueError, SyntaxError, RecursionError, TypeError, AttributeError):
        return []


def _pin(text: str, name: str) -> Pin | None:
    text = text.strip()
    if not text or text.startswith("#"):
        return None
    text = text.split(" #", 1)[0].strip()
    if "+" in text and (pin := _git_pin(text, name)) is not None:
        return pin
    if text.startswith("-"):
        return None
    match = _REQUIREMENT.match(text)
    if match is None:
        return None
    framework = _PROJECTS.get(match.group(1).lower().replace(".", "-").replace("_", "-"))
    if framework is None:
        return None
    try:
        specifier = SpecifierSet(match.group(2).replace(" ", "").strip("()"))
    except InvalidSpecifier:
        return None
    version, exact = pick(framework, specifier)
    if version is None:
        return None
    return Pin(framework, version, f"{name}: {text}", exact)


def _git_pin(text: str, name: str) -> Pin | None:
    """`trl @ git+https://github.com/huggingface/trl.git@REF` or `-e git+...@REF#egg=trl`: a tag names
    its release; a commit pins a version that cannot be told offline; a branch (or none) follows the
    newest release, so it is no pin."""
    if direct := _DIRECT.match(text):
        project, url = direct.group(1), direct.group(2)
    elif egg := _EGG.match(text):
        project, url = egg.group(2), egg.group(1)
    else:
        return None
    framework = _PROJECTS.get(project.lower().replace(".", "-").replace("_", "-"))
    if framework is None or not url.startswith("git+"):
        return None
    path = url.split("#", 1)[0].split("://", 1)[-1]
    ref = path.rpartition("@")[2] if "@" in path.partition("/")[2] else ""
    if tag := _TAG.match(ref):
        try:
            return Pin(framework, Version(tag.group(1)), f"{name}: {text}", True)
        except (InvalidVersion, ValueError):
            return None
    if _COMMIT.match(ref):
        return Pin(framework, None, f"{name}: {project} at git commit {ref[:12]}", True)
    return None


def pick(framework: str, specifier: SpecifierSet) -> tuple[Version | None, bool]:
    """The version a specifier selects: the pinned one for `==X`, else the newest known inside."""
    from grpo_lint.versions import releases

    for spec in specifier:
        if spec.operator in ("==", "===") and "*" not in spec.version:
            try:
                return Version(spec.version), True
            except (InvalidVersion, ValueError):  # ValueError: a number past int()'s digit limit
                return None, False
    inside = [v for v in releases(framework) if specifier.contains(v, prereleases=True)]
    return (max(inside), False) if inside and str(specifier) else (None, False)


def _requirements(text: str) -> list[str]:
    return text.splitlines()


def _setup_py(text: str) -> list[str]:
    """Every string constant that reads as a requirement (open-r1 keeps them in a `_deps` list)."""
    return [
        node.value
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200
    ]


def _setup_cfg(text: str) -> list[str]:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text)
    lines: list[str] = []
    for section in parser.sections():
        if section == "options" or section.startswith("options.extras_require"):
            for key, value in parser.items(section):
                if key in ("install_requires",) or section.startswith("options.extras_require"):
                    lines.extend(value.splitlines())
    return lines


def _pyproject(text: str) -> list[str]:
    import tomllib

    data = tomllib.loads(text)
    project = data.get("project", {})
    lines = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        lines.extend(extra)
    for group in data.get("dependency-groups", {}).values():
        lines.extend(item for item in group if isinstance(item, str))
    poetry = data.get("tool", {}).get("poetry", {})
    for table in (
        poetry.get("dependencies", {}),
        *[g.get("dependencies", {}) for g in poetry.get("group", {}).values()],
    ):
        for package, spec in table.items():
            version = spec.get("version") if isinstance(spec, dict) else spec
            if isinstance(version, str):
                lines.append(f"{package}{_poetry_specifier(version)}")
    return lines


def _poetry_specifier(text: str) -> str:
    """Poetry's `^0.18` / `~0.18.1` / `0.18.0` as a PEP 440 specifier."""
    text = text.strip()
    if text == "*":
        return ""
    if text.startswith(("^", "~")) and not text.startswith("~="):
        base = Version(text.lstrip("^~"))
        release = [*base.release, 0, 0]
        if text.startswith("^"):
            first = next((i for i, part in enumerate(release[:3]) if part), 2)
            upper = release[: first + 1]
            upper[first] += 1
        else:
            upper = release[:2] if len(base.release) >= 2 else release[:1]
            upper[-1] += 1
        return f">={base},<{'.'.join(map(str, upper))}"
    if text[:1].isdigit():
        return f"=={text}"
    return text


def _conda(text: str) -> list[str]:
    from grpo_lint.sources.yaml_guards import load_plain

    data = load_plain(text)
    lines: list[str] = []
    stack = list(data.get("dependencies", [])) if isinstance(data, dict) else []
    while stack:
        item = stack.pop(0)
        if isinstance(item, dict):
            stack.extend(item.get("pip", []) or [])
        elif isinstance(item, str):
            # conda's `trl=0.18.0` pins with one `=`; pip lines use PEP 440
            lines.append(re.sub(r"^([A-Za-z0-9_.\-\[\]]+)=(?!=)([^=]+)$", r"\1==\2", item.strip()))
    return lines


def _args_json(text: str) -> list[str]:
    data = json.loads(text, parse_int=integer)
    version = data.get("swift_version") if isinstance(data, dict) else None
    return [f"ms-swift=={version}"] if isinstance(version, str) else []
