"""grpo-lint against hydra-core on the repositories' own Hydra entry points (forks, recipes, copies).

For every launch of a verl trainer that grpo-lint follows into a repository's own `@hydra.main` entry (a fork's
`python3 -m pkg.trainer.main_ppo`, a root `main_ppo.py`, a recipe's `main_x.py`) in the corpus snapshots, hydra-core
1.3 composes the same entry's config folder with the script's overrides, and grpo-lint lints the script from the
snapshot's root as a user would. Hydra fails a command exactly when grpo-lint reports an error on it (GRPO001,
GRPO002, GRPO009), and every config tree grpo-lint composes holds the same keys as Hydra's composition.

Values known only at run time (`key=$VAR`) are composed as a placeholder (composition checks keys, not values);
commands whose overrides are not all known (`$ARGS`) are left out, as are the trees grpo-lint does not compose
(it says why in --verbose).
"""

from __future__ import annotations

import os
import tarfile
import warnings
from pathlib import Path

import pytest

from grpo_lint.launch.runs import read_script
from grpo_lint.lint import target_for
from grpo_lint.options import Options
from grpo_lint.sources.hydra_compose import ComposeError, Unresolved, compose
from grpo_lint.sources.yaml_guards import load_plain
from grpo_lint.workspace import build

from .conftest import ROOT
from .test_differential_hydra_compose import _overrides, lint_errors

hydra = pytest.importorskip("hydra", reason="the composition oracle needs hydra-core (extra 'test')")
pytestmark = pytest.mark.differential
REPOS = ROOT.parent / "shared" / "corpus" / "repos"
# Repositories whose launches run their own entry point or a copy of verl (fork, recipe, vendored copy).
NAMES = ("cmu-l3+l1", "TIGER-AI-Lab+verl-tool", "dongguanting+Tool-Star", "QingyangZhang+EMPO", "ChenxinAn-fdu+POLARIS")


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("entries")
    found = []
    for name in NAMES:
        archive = REPOS / f"{name}.tar.gz"
        if not archive.is_file():
            continue
        with tarfile.open(archive) as tar:
            tar.extractall(folder, filter="data")
        found.append(folder / name)
    if len(found) < 3:
        pytest.skip("../shared/corpus/repos snapshots are not present")
    return found


def cases(root: Path) -> list[tuple[str, int, Path, str, list[str], Path, set[str]]]:
    """(script, line, config folder, config name, overrides, folder the run starts in, the keys grpo-lint
    composed) of each followed entry."""
    cwd = Path.cwd()
    os.chdir(root)
    try:
        options = Options()
        workspace = build(["."], options)
        found = []
        for name in workspace.files:
            if not name.endswith(".sh"):
                continue
            text = (root / name).read_text(errors="replace")
            runs = read_script(
                text,
                name,
                root,
                lambda framework, n=name: target_for(framework, options, workspace, None, n),
                workspace.modules,
            )
            for launch, run in zip(runs.launches, runs.runs, strict=True):
                context = run.document.hydra if run is not None else None
                if launch.hydra is None or context is None or context.schema is None:
                    continue
                overrides = _overrides(list(launch.args))
                if overrides is None:
                    continue
                config_name = context.config_name
                folder = launch.hydra.config_dir(root, _config_path(launch.args))
                start = _start(root, name, folder, config_name)
                found.append((name, launch.command.line, folder, config_name, overrides[1], start, set(context.schema)))
        return found
    finally:
        os.chdir(cwd)


def _config_path(words) -> str | None:
    for index, word in enumerate(words):
        if word.text.startswith(("--config-path=", "-cp=")):
            return word.text.partition("=")[2]
        if word.text in ("--config-path", "-cp") and index + 1 < len(words):
            return words[index + 1].text
    return None


def _start(root: Path, script: str, folder: Path, name: str) -> Path:
    """Where the run starts for `file://` search paths, as grpo-lint assumes it: the nearest folder from the
    script's folder up to the root where every `file://` folder of the primary config exists."""
    primary = folder / f"{name}.yaml"
    data = load_plain(primary.read_text(errors="replace")) if primary.is_file() else None
    entries = (data.get("hydra") or {}).get("searchpath") or [] if isinstance(data, dict) else []
    relative = [e[len("file://") :] for e in entries if isinstance(e, str) and e.startswith("file://")]
    here = (root / script).parent
    while True:
        if all((here / r).is_dir() for r in relative):
            return here
        if here == root or root not in here.parents:
            return root
        here = here.parent


def hydra_result(folder: Path, name: str, overrides: list[str], start: Path) -> tuple[bool, set[str] | None]:
    """(fails, composed keys without the overrides) by hydra-core."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    here = Path.cwd()
    os.chdir(start)
    try:
        GlobalHydra.instance().clear()
        with warnings.catch_warnings(), initialize_config_dir(config_dir=str(folder.resolve()), version_base=None):
            warnings.simplefilter("ignore")
            base = OmegaConf.to_container(hydra_compose(config_name=name), resolve=False)
            try:
                hydra_compose(config_name=name, overrides=overrides)
                fails = False
            except Exception:  # ConfigCompositionException, OverrideParseException, ...
                fails = True
        return fails, _flat(base)
    finally:
        os.chdir(here)


def _flat(data) -> set[str]:
    out: set[str] = set()

    def walk(prefix: str, value) -> None:
        if isinstance(value, dict) and value:
            for key, child in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), child)
        elif prefix:
            out.add(prefix)

    walk("", data)
    out.discard("hydra")
    return {k for k in out if not k.startswith("hydra.")}


def test_entry_compositions_and_errors_agree_with_hydra(snapshots):
    total = agree = 0
    disagreements = []
    for root in snapshots:
        found = cases(root)
        if not found:
            continue
        flagged = lint_errors(root, [(s, line, n, o) for s, line, _f, n, o, _st, _k in found])
        for script, line, folder, name, overrides, start, ours in found:
            fails, keys = hydra_result(folder, name, overrides, start)
            total += 1
            if keys != ours:
                disagreements.append((root.name, script, line, "keys differ"))
                continue
            if fails != ((script, line) in flagged):
                disagreements.append((root.name, script, line, f"hydra fails={fails}"))
                continue
            agree += 1
    print(f"\nentry compositions: {agree}/{total} agree with hydra-core")
    assert total >= 60, "the snapshots hold fewer followed entry launches than expected"
    assert disagreements == []


def test_the_composer_follows_what_hydra_reports(tmp_path):
    """Failing and passing cases of the composer itself, each checked against hydra-core."""
    (tmp_path / "actor").mkdir()
    (tmp_path / "actor" / "base.yaml").write_text("lr: 1.0\nclip: {low: 0.2}\n")
    (tmp_path / "actor" / "dp.yaml").write_text("defaults:\n  - base\n  - _self_\nstrategy: fsdp\n")
    (tmp_path / "main.yaml").write_text(
        "defaults:\n  - actor@model.actor: dp\n  - _self_\nmodel:\n  actor:\n    lr: 2.0\ntrainer:\n  seed: null\n"
    )
    load = lambda p: load_plain(p.read_text())  # noqa: E731
    for overrides, fails in (
        (["model.actor.lr=3"], False),
        (["model.actor.typo=3"], True),
        (["+model.actor.lr=3"], True),
        (["++model.actor.lr=3"], False),
        (["+trainer.seed=1"], False),
        (["~model.actor.clip"], False),
        (["~model.actor.nothing"], True),
        (["model.actor.clip={low: 0.1}"], False),
        (["model.actor.clip={high: 0.1}"], True),
    ):
        from grpo_lint.launch.compose_entry import _overrides as to_overrides
        from grpo_lint.sources.hydra_overrides import parse_overrides
        from grpo_lint.sources.shell import parse

        words = parse("python x.py " + " ".join(f"'{o}'" for o in overrides), "x.sh").commands[0].words[2:]
        ours_fail = False
        try:
            composed = compose([tmp_path], "main", to_overrides(parse_overrides(words)), load)
        except ComposeError:
            ours_fail = True
        else:
            assert composed.flat()["model.actor.strategy"] == "fsdp"
            assert composed.flat().get("model.actor.clip.low", "deleted") in (0.2, 0.1, "deleted")
        theirs, keys = hydra_result(tmp_path, "main", overrides, tmp_path)
        assert (ours_fail, theirs) == (fails, fails), overrides
        assert keys == set(compose([tmp_path], "main", [], load).flat())
    with pytest.raises(ComposeError, match="Cannot find primary config"):
        compose([tmp_path], "missing", [], load)
    (tmp_path / "link.yaml").write_text("../verl/trainer/config/ppo_trainer.yaml")  # a symlink kept as a file
    with pytest.raises(Unresolved):
        compose([tmp_path], "link", [], load)


def test_a_defaults_list_interpolates_the_options_chosen_for_config_groups(tmp_path):
    """verl's trainer config (main, 2026) chooses `- model_engine: dp` and then `- actor@actor_rollout_ref.actor:
    ${model_engine}_actor`: the option chosen for a group, on the command line or in the list, names another
    group's option. grpo-lint composes what hydra-core composes, and fails where it fails."""
    for folder in ("model_engine", "actor"):
        (tmp_path / folder).mkdir()
    (tmp_path / "model_engine" / "dp.yaml").write_text("name: dp\n")
    (tmp_path / "model_engine" / "megatron.yaml").write_text("name: megatron\n")
    (tmp_path / "model_engine" / "vllm.yaml").write_text("name: vllm\n")  # no vllm_actor: composing it fails
    (tmp_path / "actor" / "dp_actor.yaml").write_text("strategy: fsdp\n")
    (tmp_path / "actor" / "megatron_actor.yaml").write_text("strategy: megatron\ntp: 1\n")
    (tmp_path / "main.yaml").write_text(
        "defaults:\n  - model_engine: dp\n  - actor@actor_rollout_ref.actor: ${model_engine}_actor\n  - _self_\n"
        "trainer:\n  n_gpus_per_node: 8\n"
    )
    load = lambda p: load_plain(p.read_text())  # noqa: E731
    from grpo_lint.launch.compose_entry import _overrides as to_overrides
    from grpo_lint.sources.hydra_overrides import parse_overrides
    from grpo_lint.sources.shell import parse

    for overrides, fails, strategy in (
        ([], False, "fsdp"),
        (["model_engine=megatron"], False, "megatron"),
        (["model_engine=megatron", "actor_rollout_ref.actor.tp=2"], False, "megatron"),
        (["actor_rollout_ref.actor.tp=2"], True, None),  # dp_actor has no tp
        (["model_engine=vllm"], True, None),
    ):
        words = parse("python x.py " + " ".join(overrides), "x.sh").commands[0].words[2:]
        try:
            composed = compose([tmp_path], "main", to_overrides(parse_overrides(words)), load)
        except ComposeError:
            ours_fail = True
        else:
            ours_fail = False
            assert composed.flat()["actor_rollout_ref.actor.strategy"] == strategy
        theirs, _keys = hydra_result(tmp_path, "main", overrides, tmp_path)
        assert (ours_fail, theirs) == (fails, fails), overrides
    # A name no group chooses: not followed (grpo-lint says nothing rather than guess).
    (tmp_path / "odd.yaml").write_text("defaults:\n  - actor@a: ${engine}_actor\n")
    with pytest.raises(Unresolved):
        compose([tmp_path], "odd", [], load)


def test_an_override_entry_of_a_config_the_tree_includes_chooses_for_the_whole_tree(tmp_path):
    """verl's `ppo_megatron_trainer` is `defaults: [ppo_trainer, override model_engine: megatron, _self_]`, and a
    config of the repository's own takes it in turn (`defaults: [ppo_megatron_trainer, _self_]`, the fully async
    trainer's): Hydra applies an `override` entry of any config of the defaults tree, not only of the primary one,
    and the command line's choice wins over it. grpo-lint composes what hydra-core composes."""
    for folder in ("model_engine", "actor"):
        (tmp_path / folder).mkdir()
    (tmp_path / "model_engine" / "dp.yaml").write_text("name: dp\n")
    (tmp_path / "model_engine" / "megatron.yaml").write_text("name: megatron\n")
    (tmp_path / "actor" / "dp_actor.yaml").write_text("strategy: fsdp\n")
    (tmp_path / "actor" / "megatron_actor.yaml").write_text("strategy: megatron\ntp: 1\n")
    (tmp_path / "base.yaml").write_text(
        "defaults:\n  - model_engine: dp\n  - actor@actor_rollout_ref.actor: ${model_engine}_actor\n  - _self_\n"
    )
    (tmp_path / "megatron_base.yaml").write_text(
        "defaults:\n  - base\n  - override model_engine: megatron\n  - _self_\n"
    )
    (tmp_path / "own.yaml").write_text("defaults:\n  - megatron_base\n  - _self_\nasync_training:\n  sync: 4\n")
    load = lambda p: load_plain(p.read_text())  # noqa: E731
    from grpo_lint.launch.compose_entry import _overrides as to_overrides
    from grpo_lint.sources.hydra_overrides import parse_overrides
    from grpo_lint.sources.shell import parse

    for name, overrides, fails, strategy in (
        ("own", [], False, "megatron"),
        ("own", ["actor_rollout_ref.actor.tp=2"], False, "megatron"),  # megatron_actor's key
        ("own", ["model_engine=dp"], False, "fsdp"),  # the command line wins
        ("own", ["model_engine=dp", "actor_rollout_ref.actor.tp=2"], True, None),
        ("megatron_base", ["actor_rollout_ref.actor.tp=2"], False, "megatron"),
        ("base", ["actor_rollout_ref.actor.tp=2"], True, None),
    ):
        words = parse("python x.py " + " ".join(overrides), "x.sh").commands[0].words[2:]
        try:
            composed = compose([tmp_path], name, to_overrides(parse_overrides(words)), load)
        except ComposeError:
            ours_fail = True
        else:
            ours_fail = False
            assert composed.flat()["actor_rollout_ref.actor.strategy"] == strategy, (name, overrides)
        theirs, _keys = hydra_result(tmp_path, name, overrides, tmp_path)
        assert (ours_fail, theirs) == (fails, fails), (name, overrides)
