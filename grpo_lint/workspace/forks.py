"""Copies of a framework that a repository ships itself (the framework's own repository, a
vendored `third_party/verl`, a fork such as EasyR1): its version file gives the version and its
own sources give the keys, so the repository is linted against the code it actually runs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from grpo_lint.patterns import lazy
from grpo_lint.sources.document import ReadProblem
from grpo_lint.sources.reading import inside, read_file
from grpo_lint.versions import Fork

# A file that marks a package folder as a copy of the framework: framework -> path inside the package.
_MARKERS = {
    "verl": ("trainer/main_ppo.py",),
    "openrlhf": ("cli/train_ppo_ray.py",),
    "trl": ("trainer/grpo_config.py",),
    "swift": ("cli/rlhf.py",),
}
_PACKAGE = {"verl": "verl", "openrlhf": "openrlhf", "trl": "trl", "swift": "swift"}
FRAMEWORKS = tuple(_MARKERS)
_MARKER_NAMES = frozenset(marker.rpartition("/")[2] for markers in _MARKERS.values() for marker in markers)
_MAX_SOURCE = 4 * 1024 * 1024
_VERSION = lazy(r"""__version__\s*=\s*['"]([^'"]+)['"]""")


def marker(framework: str) -> str:
    """The file that marks a copy of the framework, below the folder holding its package: `verl/trainer/main_ppo.py`."""
    return f"{_PACKAGE[framework]}/{_MARKERS[framework][0]}"


def find_copies(root: Path, files: list[str]) -> dict[str, list[str]]:
    """The package folder of every copy of each framework among the repository's files, shallowest first (a copy
    nested in a project the repository bundles, `verl/third_party/x/verl/`, comes after the repository's own)."""
    copies: dict[str, list[str]] = {}
    # (by depth, not by name: `verl/third_party/x/verl/` sorts before `verl/trainer/`)
    for name in sorted(_named_like_markers(files), key=lambda name: name.count("/")):
        for framework, markers in _MARKERS.items():
            for marker in markers:
                suffix = f"{_PACKAGE[framework]}/{marker}"
                if (name == suffix or name.endswith("/" + suffix)) and inside(root / name, root):
                    package = name[: -len(marker) - 1]
                    if package not in copies.setdefault(framework, []):
                        copies[framework].append(package)
    return copies


def _named_like_markers(files: list[str]) -> list[str]:
    """The files whose name is the last part of a marker, in the order of `files`: found by searching the list as
    one text for each such name (a monorepo lists 10,000s of files, a handful of them named `main_ppo.py`)."""
    joined = "\0" + "\0".join(files) + "\0"
    found: set[int] = set()
    for last in _MARKER_NAMES:
        for needle in (f"/{last}\0", f"\0{last}\0"):
            at = joined.find(needle)
            while at >= 0:
                found.add(joined.rfind("\0", 0, at) + 1 if needle[0] == "/" else at + 1)
                at = joined.find(needle, at + 1)
    return [joined[start : joined.index("\0", start)] for start in sorted(found)]


def fork_sources(forks: dict[str, Fork]) -> tuple[str, ...]:
    """Folders whose files are the framework's own sources, not user configs: `verl/`, ..."""
    return tuple(fork.package + "/" for fork in forks.values())


def read_fork(framework: str, root: Path, package: str, present: set[str]) -> Fork:
    version = _version(framework, root, package, present)
    if framework == "verl":
        schemas = _verl_schemas(root / package, package, present)
    elif framework == "openrlhf":
        schemas = {"": _argparse_defaults(root / package / "cli" / "train_ppo_ray.py")}
    elif framework == "trl":
        schemas = {"": _dataclass_fields(root / package / "trainer" / "grpo_config.py")}
    else:
        argument_files = [
            n
            for n in present
            if n.startswith(package + "/") and n.endswith(".py") and re.search(r"/(\w*argument\w*)(/|\.py$)", n)
        ]
        fields: dict[str, Any] = {}
        for name in sorted(argument_files):
            fields.update(_dataclass_fields(root / name))
        schemas = {"": fields}
    mapped = any(schemas.values())
    groups = _group_keys(root / package) if framework == "verl" else ()
    # No `__init__.py`: imported under the framework's own name, an installed copy comes first and these files only
    # overlay it (under the repository's own package name, `rubric_rm.verl`, they are what runs: its launches
    # compose the folder's own tree). A copy with no schema of its own is then said to be an overlay (GRPO011).
    overlay = f"{package}/__init__.py" not in present
    shown = (("GRPO111", _floors_micro), ("GRPO015", _critic_for_gae)) if framework == "verl" else ()
    shows = frozenset(code for code, reads in shown if reads(root / package))
    kl_gate = _kl_gate(root / package) if framework == "verl" else ""
    if kl_gate in (KL_IN_REWARD, KL_WITHOUT_LOSS, KL_NEVER):
        shows |= {"GRPO016"}
    reversed_kl = _reversed_kl(root, package) if framework == "verl" else ""
    if reversed_kl:
        shows |= {"GRPO412"}
    fields = (schemas if mapped else {}, mapped, groups, overlay, shows, kl_gate, reversed_kl)
    return Fork(framework, package, version, *fields)


# `batch = batch.repeat(repeat_times=self.config.actor_rollout_ref.rollout.n, interleave=True)` in the
# training loop of verl's RayPPOTrainer (validation batches are repeated by their own keys).
_REPEAT = lazy(r"^[ \t]*(\w+)\s*=\s*\w+\.repeat\(\s*repeat_times\s*=\s*self\.config\.([\w.]+)", re.M)


def _group_keys(package_dir: Path) -> tuple[str, ...]:
    """The config keys a verl copy's trainer repeats the training prompts by: each response of a prompt
    is one member of that prompt's group."""
    text = _read(package_dir / "trainer" / "ppo" / "ray_trainer.py")
    return repeat_keys(text) if text else ()


# verl 0.1's ActorRolloutRefWorker.__init__ (`self.config.actor.ppo_micro_batch_size //= (self.device_mesh.shape[0]
# // ...)`) and DataParallelPPOActor.update_policy (`assert self.config.ppo_mini_batch_size %
# self.config.ppo_micro_batch_size == 0`), as TinyZero and its forks ship them.
_FLOORED_MICRO = lazy(r"\.actor\.ppo_micro_batch_size\s*//=\s*\(?\s*self\.device_mesh\.shape\[0\]")
_MICRO_MODULO = lazy(r"ppo_mini_batch_size\s*%\s*self\.config\.ppo_micro_batch_size\b")


# RayPPOTrainer of verl 0.1-0.5 (`if ...adv_estimator == 'gae': ... self.use_critic = True` within a few lines, the
# other estimators False) and of 0.6 on (`self.use_critic = need_critic(self.config)`).
_CRITIC_FOR_GAE = lazy(
    r"adv_estimator\s*==\s*(?:['\"]gae['\"]|AdvantageEstimator\.GAE)\s*:[^\n]*\n(?:[^\n]*\n){0,8}?\s*self\.use_critic\s*=\s*True"
    r"|self\.use_critic\s*=\s*need_critic\("
)


def _critic_for_gae(package_dir: Path) -> bool:
    """Whether a verl copy's trainer builds a critic for the gae estimator only (GRPO015)."""
    text = _read(package_dir / "trainer" / "ppo" / "ray_trainer.py")
    if not text or not _CRITIC_FOR_GAE.search(text):
        return False
    return "need_critic(" in text or text.count("self.use_critic = True") == 1


# What a verl trainer's step applies the KL penalty in the reward (`apply_kl_penalty(batch, kl_ctrl=...)`, which alone
# reads `algorithm.kl_ctrl` and `algorithm.kl_penalty`) under: `if self.config.algorithm.use_kl_in_reward:` (0.4.0 on),
# `if not self.config.actor_rollout_ref.actor.get('use_kl_loss', False):` (0.2-0.3, and the verl 0.1 copies TinyZero
# and Logic-RL ship), or nothing (the v0.1 tag applies it whenever a reference policy is built).
KL_IN_REWARD, KL_WITHOUT_LOSS, KL_ALWAYS, KL_NEVER = "use_kl_in_reward", "not use_kl_loss", "always", "never"
_KL_CALL = lazy(r"^(?![ \t]*def )[^\n#]*\bapply_kl_penalty\(", re.M)
_KL_DEFINED = lazy(r"^[ \t]*def apply_kl_penalty\(", re.M)
_KL_GUARD = lazy(r"^[ \t]*(?:el)?if\b([^\n]*):[ \t]*(?:#[^\n]*)?$", re.M)


def _kl_gate(package_dir: Path) -> str:
    """Under what a verl copy's trainer applies the KL penalty in the reward (KL_*), "" when it does not show it."""
    text = _read(package_dir / "trainer" / "ppo" / "ray_trainer.py")
    call = _KL_CALL.search(text) if text else None
    if call is None:  # (a trainer that defines the penalty but never calls it: the call commented out, DeepScaleR)
        return KL_NEVER if text and _KL_DEFINED.search(text) and "apply_kl_penalty(" in text else ""
    before = text[: call.start()].splitlines()[-3:]  # (the guard sits on one of the lines just above the call)
    guards = [m.group(1) for line in before for m in [_KL_GUARD.match(line)] if m is not None]
    if not guards:
        return KL_ALWAYS
    guard = guards[-1]
    if "use_kl_in_reward" in guard and "not" not in guard.split():
        return KL_IN_REWARD
    if "use_kl_loss" in guard and guard.split()[0] == "not" and " and " not in guard and " or " not in guard:
        return KL_WITHOUT_LOSS
    return ""


# A fork that puts a floored micro batch of 0 back to 1 (`if self.config.actor.ppo_micro_batch_size == 0: ... = 1`, or
# `= max(1, ...)`): the division that follows never sees 0.
_MICRO_GUARD = lazy(
    r"\.actor\.ppo_micro_batch_size\s*(?:==\s*0\b|<\s*1\b|<=\s*0\b)|\.actor\.ppo_micro_batch_size\s*=\s*max\(\s*1\b"
)


# verl's actor between GRPO's arrival (#124) and 2025-02-01 (#179, first released in 0.2): the KL loss is subtracted
# from the policy loss, so minimizing it pushes the policy away from the reference (the copy TinyZero ships).
_REVERSED_KL = lazy(r"^[ \t]*policy_loss\s*=\s*policy_loss\s*-\s*kl_loss\s*\*", re.M)


def _reversed_kl(root: Path, package: str) -> str:
    """Where a verl copy's actor subtracts the KL loss (`path:line`), "" when it does not."""
    name = f"{package}/workers/actor/dp_actor.py"
    text = _read(root / name)
    found = _REVERSED_KL.search(text) if text else None
    return f"{name}:{text.count(chr(10), 0, found.start()) + 1}" if found and text else ""


def _floors_micro(package_dir: Path) -> bool:
    """Whether a verl copy floors the global actor micro batch to a per-GPU count and then divides by it unguarded."""
    workers = _read(package_dir / "workers" / "fsdp_workers.py")
    actor = _read(package_dir / "workers" / "actor" / "dp_actor.py")
    return bool(
        workers
        and actor
        and _FLOORED_MICRO.search(workers)
        and not _MICRO_GUARD.search(workers)
        and _MICRO_MODULO.search(actor)
    )


def repeat_keys(text: str) -> tuple[str, ...]:
    """The config keys a trainer's module repeats the training prompts by (validation repeats left out)."""
    found = [m.group(2) for m in _REPEAT.finditer(text) if not m.group(1).startswith(("test", "val"))]
    return tuple(dict.fromkeys(found))


def _version(framework: str, root: Path, package: str, present: set[str]) -> Version | None:
    """The version a copy's version file states (target resolution maps it to a known release)."""
    parent = package.rpartition("/")[0]
    near = f"{parent}/" if parent else ""
    candidates = {
        "verl": (f"{package}/version/version",),
        "openrlhf": (f"{near}version.txt", f"{package}/version.txt"),
        "trl": (f"{package}/__init__.py", f"{near}VERSION"),
        "swift": (f"{package}/version.py",),
    }[framework]
    for name in candidates:
        if name not in present:
            continue
        text = _read(root / name)
        if text is None:
            continue
        found = _VERSION.search(text) if name.endswith(".py") else None
        raw = found.group(1) if found else (text.strip() if not name.endswith(".py") else "")
        try:
            return Version(raw)
        except (InvalidVersion, ValueError):  # ValueError: a number past int()'s digit limit
            continue
    return None


def _read(path: Path) -> str | None:
    data = read_file(path, _MAX_SOURCE)
    return None if isinstance(data, ReadProblem) else data.decode("utf-8", "replace")


def _verl_schemas(package_dir: Path, package: str, present: set[str]) -> dict[str, dict[str, Any]]:
    """The copy's trainer configs as Hydra composes them (their `defaults` lists followed); else verl's
    flattened reference configs (`_generated_ppo_trainer.yaml`, else the flat `ppo_trainer.yaml`)."""
    schemas: dict[str, dict[str, Any]] = {}
    for flavour, stem in (("fsdp", "ppo_trainer"), ("megatron", "ppo_megatron_trainer")):
        if f"{package}/trainer/config/{stem}.yaml" in present:
            composed = _composed(package_dir / "trainer" / "config", stem)
            if composed and "actor_rollout_ref.rollout.n" in composed:
                schemas[flavour] = composed
                continue
        for name in (f"_generated_{stem}.yaml", f"{stem}.yaml"):
            if f"{package}/trainer/config/{name}" not in present:
                continue
            flat = _flat_yaml(package_dir / "trainer" / "config" / name)
            if flat and "actor_rollout_ref.rollout.n" in flat:
                schemas[flavour] = flat
                break
    return schemas


def _composed(folder: Path, name: str) -> dict[str, Any]:
    """A config of the copy composed as Hydra composes it ({} when it cannot be followed)."""
    from grpo_lint.sources.hydra_compose import ComposeError, Unresolved, compose, yaml_loader

    try:
        return compose([folder], name, [], yaml_loader(_MAX_SOURCE)).flat()
    except (ComposeError, Unresolved):
        return {}


def _flat_yaml(path: Path) -> dict[str, Any]:
    from grpo_lint.sources.yaml_guards import load_plain

    text = _read(path)
    if text is None:
        return {}
    try:
        data = load_plain(text)
    except ValueError:
        return {}
    flat: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and value:
            for key, child in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), child)
        elif prefix and prefix != "defaults" and not prefix.startswith(("defaults.", "hydra.")):
            flat[prefix] = value

    walk("", data)
    return flat


def _argparse_defaults(path: Path) -> dict[str, Any]:
    """`parser.add_argument("--name", ..., default=X)` calls: name -> default."""
    from grpo_lint.workspace.arguments import argparse_arguments

    text = _read(path)
    return argparse_arguments(text) if text else {}


def _dataclass_fields(path: Path) -> dict[str, Any]:
    """Annotated class attributes of every class in the file: name -> default (None when absent)."""
    import ast  # only for a vendored copy of a framework (a plain lint of one file never needs it)

    text = _read(path)
    if not text:
        return {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    from grpo_lint.workspace.arguments import class_fields

    fields: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            fields.update({f.name: f.default for f in class_fields(node)})
    return fields
