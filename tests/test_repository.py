"""A repository as the unit: pinned versions, vendored framework copies, arguments the repository
defines, which script launches which config, and the file list of a run. Each test builds a small
but realistic repository and lints it as a user would (`grpo-lint .` from its root)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from grpo_lint import versions
from grpo_lint.cli import main
from grpo_lint.sources.shell import parse
from grpo_lint.workspace.pins import find_pins, pick

from .conftest import SHARED, run_cli


@pytest.fixture
def uninstalled(monkeypatch):
    """As in a pre-commit environment: no framework installed beside grpo-lint."""
    monkeypatch.setattr(versions, "installed_version", lambda framework: None)


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def lint(root: Path, monkeypatch, *args: str) -> tuple[int, dict]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["--isolated", "--format", "json", *args, *([] if args[-1:] else ["."])])
    return result.exit_code, json.loads(result.output)


def codes(report: dict, path: str | None = None) -> list[str]:
    return sorted(d["code"] for d in report["diagnostics"] if path is None or d["path"].endswith(path))


def notes(report: dict) -> dict[str, str]:
    return {Path(f["path"]).as_posix().removeprefix("./"): f["note"] for f in report["summary"]["files"]}


RECIPE = """\
model_name_or_path: Qwen/Qwen2.5-1.5B-Instruct
torch_dtype: bfloat16
max_prompt_length: 512
num_generations: 8
per_device_train_batch_size: 8
"""


# Versions the repository pins ------------------------------------------------------------------


def test_the_version_comes_from_setup_py_and_the_summary_says_so(tmp_path, monkeypatch, uninstalled):
    write(tmp_path, {"setup.py": '_deps = ["accelerate>=1.2", "trl[vllm]==0.18.0"]\n', "recipes/grpo.yaml": RECIPE})
    status, report = lint(tmp_path, monkeypatch, ".")
    # torch_dtype and max_prompt_length were removed in TRL 0.27/0.28, not in the pinned 0.18.0
    assert status == 0 and codes(report) == []
    assert report["summary"]["targets"] == [
        {
            "framework": "trl",
            "version": "0.18.0",
            "source": "setup.py:1 trl[vllm]==0.18.0",
            "release_known": True,
            "basis": "shown",
            "assumed": "",
            "note": "",
        }
    ]
    monkeypatch.chdir(tmp_path)
    text = CliRunner().invoke(main, ["--isolated", "."]).output
    assert "against TRL 0.18.0 (setup.py:1 trl[vllm]==0.18.0)" in text
    # Depending on TRL without a pin states no release: it is assumed, as the newest release that has every
    # key the config writes (both were removed in 0.27/0.28), and the summary says so; GRPO013 (info) says that
    # `trl[vllm]` allows the releases that lack them.
    (tmp_path / "setup.py").write_text('_deps = ["accelerate>=1.2", "trl[vllm]"]\n')
    status, report = lint(tmp_path, monkeypatch, ".")
    assert status == 0 and codes(report) == ["GRPO013"]
    assert "setup.py:1 trl[vllm] allows every TRL release" in report["diagnostics"][0]["message"]
    (target,) = report["summary"]["targets"]
    assert target["version"] == "0.26.2" and target["release_known"] is False
    assert "the newest release that fits the keys this config writes" in target["source"]


def test_pins_in_every_common_file_and_ranges_pick_the_newest_release_inside(tmp_path):
    files = {
        "requirements.txt": "torch\ntrl~=0.19.0  # pinned for vllm\n",
        "pyproject.toml": '[tool.poetry.dependencies]\nms-swift = "^3.5"\n',
        "environment.yml": "dependencies:\n  - python=3.11\n  - pip:\n    - verl==0.6.1\n",
        "docker/REQUIRED_OPENRLHF.txt": "openrlhf>=0.9,<0.10\n",
    }
    statements = find_pins(write(tmp_path, files), sorted(files))
    pins = {name: statements.choose(name)[0] for name in ("trl", "swift", "verl", "openrlhf")}
    assert {name: str(pin.version) for name, pin in pins.items()} == {
        "trl": "0.19.1",
        "swift": "3.12.6",
        "verl": "0.6.1",
        "openrlhf": "0.9.10",
    }
    assert pins["verl"].provenance == "environment.yml verl==0.6.1" and pins["verl"].shown
    assert not pins["trl"].shown and pins["trl"].allows[-1] == Version("0.19.1")  # a range: assumed
    assert pick("trl", SpecifierSet(">=99")) == (None, False)  # nothing known inside: no pin


def test_an_install_command_in_prose_ends_where_its_code_span_does(tmp_path):
    files = {
        "README.md": "An editable install (`pip install -e .`) is slower. The verl\nfront end loads late.\n"
        "Then run `pip install trl==0.19.1` and train.\n",
        "docs/setup.md": "```bash\npip install ms-swift==3.5.0 # the release we tested\n```\n",
    }
    statements = find_pins(write(tmp_path, files), sorted(files))
    assert sorted(p.provenance for p in statements.pins) == [
        "README.md:3 trl==0.19.1",
        "docs/setup.md:2 ms-swift==3.5.0",
    ]  # and no `verl` from the words after the first code span


def test_an_install_command_continued_over_lines_is_read_whole(tmp_path):
    setup = "pip install --upgrade pip\npip install \\\n    transformers==4.41.0 \\\n    trl==0.19.1 \\\n"
    files = {"scripts/setup.sh": setup + "    peft==0.10.0\necho trl==0.1.0 \\\n  done\n"}
    statements = find_pins(write(tmp_path, files), sorted(files))
    assert [p.provenance for p in statements.pins if "trl" in p.provenance] == ["scripts/setup.sh:4 trl==0.19.1"]
    assert len(statements.pins) == 2  # transformers and trl (peft is no framework; echo installs nothing)


def test_git_references_pin_the_release_their_tag_names_and_a_commit_pins_no_known_release(tmp_path):
    cases = {
        "trl[vllm] @ git+https://github.com/huggingface/trl.git@v0.16.0": ("0.16.0", "trl[vllm] @ git+"),
        "-e git+https://github.com/huggingface/trl.git@0.17.0#egg=trl": ("0.17.0", "-e git+"),
        "trl@git+https://github.com/huggingface/trl.git@019fc6dbaa03b888f9d5c1845f0f690da8ed310c#egg=trl[main]": (
            None,
            "trl at git commit 019fc6dbaa03",
        ),
        "trl @ git+ssh://git@github.com/huggingface/trl.git@v0.19.1": ("0.19.1", "git+ssh"),
    }
    for line, (version, provenance) in cases.items():
        (pin,) = find_pins(write(tmp_path, {"requirements.txt": line + "\n"}), ["requirements.txt"]).pins
        assert (str(pin.version) if pin.version else None, pin.exact) == (version, True), line
        assert provenance in pin.provenance and pin.commit == (version is None)
    # A branch (or no ref) follows the newest release: a statement that allows every release.
    for line in (
        "trl @ git+https://github.com/huggingface/trl.git@main",
        "trl @ git+https://github.com/huggingface/trl",
    ):
        (pin,) = find_pins(write(tmp_path, {"requirements.txt": line + "\n"}), ["requirements.txt"]).pins
        assert not pin.exact and not pin.shown and len(pin.allows) > 10


def test_a_framework_cloned_at_a_tag_by_a_setup_script_pins_that_release(tmp_path):
    """`git clone --branch v4.4.3 --depth 1 \\ URL DIR` in a setup script (then installed with `-e DIR`): the tag
    names the release, as `pip install git+URL@v4.4.3` would; a clone of a branch, another project or a fork does
    not pin it."""
    setup = "mkdir -p third_party\nif [[ ! -d x ]]; then\n  git clone --branch v4.4.3 --depth 1 \\\n"
    setup += '    https://github.com/modelscope/ms-swift.git "${SWIFT_ROOT}"\nfi\n'
    (pin,) = find_pins(write(tmp_path, {"scripts/setup.sh": setup}), ["scripts/setup.sh"]).pins
    assert (pin.framework, str(pin.version), pin.exact) == ("swift", "4.4.3", True)
    assert pin.provenance.startswith("scripts/setup.sh:3 ")
    (other,) = find_pins(
        write(tmp_path, {"s.sh": "git clone -b 0.7.0 git@github.com:volcengine/verl.git\n"}), ["s.sh"]
    ).pins
    assert (other.framework, str(other.version)) == ("verl", "0.7.0")
    for line in (
        "git clone --branch main https://github.com/modelscope/ms-swift.git\n",
        "git clone --branch v1.0 https://github.com/someone/other.git\n",
        "git clone --depth 1 https://github.com/modelscope/ms-swift.git\n",
        "# git clone --branch v4.4.3 https://github.com/modelscope/ms-swift.git\n",
    ):
        assert [p for p in find_pins(write(tmp_path, {"s.sh": line}), ["s.sh"]).pins if p.exact] == [], line


def test_against_a_git_commit_the_release_is_assumed_from_the_keys_the_config_writes(
    tmp_path, monkeypatch, uninstalled
):
    """X-R1 installs TRL from a commit between 0.15 and 0.16: keys removed later (vllm_device, gone in
    0.18) must not block it, while a typo is wrong in every release. The release is assumed as the newest
    in which every key exists, and errors that depend on it are warnings naming that assumption."""
    commit = "019fc6dbaa03b888f9d5c1845f0f690da8ed310c"
    recipe = "vllm_device: auto\nnum_generations: 8\nper_device_train_batch_size: 7\ntemperatur: 0.9\n"
    files = {
        "requirements.txt": f"trl @ git+https://github.com/huggingface/trl.git@{commit}\n",
        "grpo.yaml": recipe,
        "train.sh": "accelerate launch --num_processes 1 -m trl.scripts.grpo --config grpo.yaml\n",
    }
    status, report = lint(write(tmp_path, files), monkeypatch, ".")
    found = {d["code"]: d for d in report["diagnostics"]}
    assert status == 1 and found["GRPO002"]["severity"] == "error" and "GRPO004" not in found
    assert found["GRPO102"]["severity"] == "warning"  # 7 completions in groups of 8: rejected from 0.15 on
    assert "names no release grpo-lint can tell" in found["GRPO102"]["message"]
    (target,) = report["summary"]["targets"]
    assert target["source"].startswith("requirements.txt:1 trl at git commit 019fc6dbaa03")
    assert target["version"] == "0.17.0" and target["release_known"] is False
    # Told the release, the verdicts are errors, and the removed key is one too.
    status, report = lint(tmp_path, monkeypatch, "--target", "trl==0.19.1", ".")
    assert status == 1 and codes(report) == ["GRPO002", "GRPO004", "GRPO102"]
    assert {d["severity"] for d in report["diagnostics"]} == {"error"}


@pytest.mark.parametrize("value", ["512", "int(sys.argv[1])"])
def test_a_key_written_with_a_value_not_known_yet_counts_for_the_release_it_fits(
    tmp_path, monkeypatch, uninstalled, value
):
    """`max_prompt_length=int(sys.argv[1])` writes the key as much as `max_prompt_length=512`: the release assumed is
    the newest it exists in (0.27.2), and that a fresh install lacks it is GRPO013, whatever its value."""
    call = f"GRPOConfig(output_dir='o', max_prompt_length={value}, num_generations=4, per_device_train_batch_size=4)"
    files = {"requirements.txt": "trl\n", "train.py": f"import sys\nfrom trl import GRPOConfig\n{call}\n"}
    status, report = lint(write(tmp_path, files), monkeypatch, ".")
    assert codes(report) == ["GRPO013"] and status == 0
    assert [t["version"] for t in report["summary"]["targets"]] == ["0.27.2"]


UV_LOCK = """\
version = 1
requires-python = ">=3.9"

[[package]]
name = "trl"
version = "0.24.0"
source = {{ registry = "https://pypi.org/simple" }}
resolution-markers = [
    "python_full_version < '3.10'",
]

[[package]]
name = "trl"
version = "1.2.0"
source = {{ registry = "https://pypi.org/simple" }}
resolution-markers = [
    "{newer}",
]
"""


@pytest.mark.parametrize(
    ("newer", "locked"),
    [
        ("python_full_version == '3.10.*'", ["1.2.0"]),
        ("python_full_version >= '3.10' and python_full_version < '3.12'", ["0.24.0", "1.2.0"]),
    ],
)
def test_a_lock_that_resolves_a_framework_per_python_range_locks_it_for_the_newer_pythons(tmp_path, newer, locked):
    """uv locks TRL 0.24.0 for Python < 3.10 and 1.2.0 for the Pythons after: a run today uses the latter. When every
    entry is bounded above, nothing tells them apart, and both stand."""
    statements = find_pins(write(tmp_path, {"uv.lock": UV_LOCK.format(newer=newer)}), ["uv.lock"])
    assert sorted(str(pin.version) for pin in statements.pins) == locked


MODAL_VERL = """\
import subprocess
import sys

import modal

image = modal.Image.debian_slim().pip_install(
    "vllm==0.7.2",
    "verl=={release}",
)


@modal.App("grpo").function(image=image, gpu="H100")
def train():
    cmd = [sys.executable, "-m", "verl.trainer.main_ppo", "algorithm.adv_estimator=grpo", "trainer.seed=1"]
    subprocess.run(cmd, check=True)
"""


@pytest.mark.parametrize(("release", "found"), [("0.7.0", {"GRPO002", "GRPO111"}), ("0.3.0.post1", {"GRPO002"})])
def test_the_release_a_modal_image_installs_is_the_files_own(tmp_path, monkeypatch, uninstalled, release, found):
    """`modal.Image...pip_install("verl==0.7.0")` is the environment the file's functions run in; a release older
    than any grpo-lint knows (0.3.0.post1) leaves only what no release accepts (`trainer.seed`)."""
    files = {"requirements.txt": "verl==0.9.1\n", "modal_train.py": MODAL_VERL.format(release=release)}
    _, report = lint(write(tmp_path, files), monkeypatch, ".")
    errors = {d["code"] for d in report["diagnostics"] if d["severity"] == "error"}
    assert found <= errors and (release == "0.7.0" or errors == found)
    (target,) = [t for t in report["summary"]["targets"] if t["framework"] == "verl"]
    assert target["release_known"] == (release == "0.7.0") and release in target["source"]


def test_target_newer_than_known_is_a_usage_error_and_between_releases_maps_below():
    with pytest.raises(versions.TargetError, match=r"newest TRL release grpo-lint knows is 1\.16\.0"):
        versions.parse_target("trl==9.0")
    assert versions.release_below("trl", Version("0.18.5")) == Version("0.18.2")
    assert versions.release_below("verl", Version("0.8.0.dev0")) == Version("0.7.1")
    result = CliRunner().invoke(main, ["--target", "trl==9.0", "x.yaml"])
    assert result.exit_code == 2 and "1.16.0" in result.output


# A copy of the framework inside the repository -------------------------------------------------

FORK_CONFIG = """\
data:
  train_batch_size: 64
  train_files: ~/data/train.parquet
actor_rollout_ref:
  actor:
    strategy: fsdp
    ppo_mini_batch_size: 16
    ppo_micro_batch_size_per_gpu: 2
    use_dynamic_bsz: false
    my_fork_option: 3
  rollout:
    name: vllm
    n: 4
    log_prob_micro_batch_size_per_gpu: 4
  ref:
    log_prob_micro_batch_size_per_gpu: 4
algorithm:
  adv_estimator: grpo
trainer:
  n_gpus_per_node: 8
  nnodes: 1
"""


def test_a_vendored_verl_is_the_schema_and_its_own_files_are_not_user_configs(tmp_path, monkeypatch, uninstalled):
    write(
        tmp_path,
        {
            "verl/__init__.py": "",
            "verl/trainer/main_ppo.py": "def main(): ...\n",
            "verl/version/version": "0.8.0.dev\n",
            "verl/trainer/config/_generated_ppo_trainer.yaml": FORK_CONFIG,
            "verl/trainer/config/broken.yaml": "actor_rollout_ref:\n  rollout:\n    n: 1\n    nn: 2\n",
            "examples/run_grpo.sh": (
                "python3 -m verl.trainer.main_ppo \\\n"
                "    actor_rollout_ref.actor.my_fork_option=5 \\\n"
                "    actor_rollout_ref.rollout.nn=8\n"
            ),
        },
    )
    _, report = lint(tmp_path, monkeypatch, ".")
    found = [(d["code"], d["key"]) for d in report["diagnostics"] if d["severity"] == "error"]
    # the fork's own key is known; the typo is judged against the fork's keys
    assert found == [("GRPO002", "actor_rollout_ref.rollout.nn")]
    assert "actor_rollout_ref.rollout.n" in report["diagnostics"][0]["message"]
    assert "part of the copy of verl in verl/" in notes(report)["verl/trainer/config/broken.yaml"]
    (target,) = report["summary"]["targets"]
    # 0.8.0.dev: between 0.7.1 and 0.8.0, so assumed as the newest of the two that has every key written
    assert target["version"] == "0.8.0" and "the copy of verl in verl/" in target["source"]
    assert target["release_known"] is False


def test_a_copy_nested_in_a_bundled_project_is_that_projects_and_the_shallowest_is_the_repositorys(
    tmp_path, monkeypatch, uninstalled
):
    """`verl/` is the repository's copy (0.6.1); `verl/third_party/proj/verl/` is a bundled project's own older copy
    (0.1), which sorts first by name. The repository's scripts run its own copy; the project's scripts, run from their
    project, run the project's."""
    run = "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=4\n"
    nested = "verl/third_party/proj"
    write(tmp_path, {
        "README.md": "x\n",
        "verl/__init__.py": "", "verl/trainer/main_ppo.py": "def main(): ...\n", "verl/version/version": "0.6.1\n",
        f"{nested}/verl/__init__.py": "", f"{nested}/verl/trainer/main_ppo.py": "def main(): ...\n",
        f"{nested}/verl/version/version": "0.1\n", "scripts/run.sh": run, f"{nested}/examples/run.sh": run,
    })  # fmt: skip
    _, report = lint(tmp_path, monkeypatch, ".")
    versions = {t["source"]: t["version"] for t in report["summary"]["targets"]}
    # (neither copy holds a config grpo-lint can read: each is said once, with its own version)
    assert versions == {"the copy of verl in verl/": "0.6.1", f"the copy of verl in {nested}/verl/": "0.4.0"}


def test_a_copy_older_than_any_known_release_keeps_only_release_independent_errors(tmp_path, monkeypatch, uninstalled):
    """Logic-RL and Search-R1 ship verl 0.1, which had no mini-batch assertion: what 0.4.0 (the oldest
    release grpo-lint knows) rejects is no error of it, while greedy sampling stays an error. A mini batch above the
    step is a warning that names both: the known releases stop, an older copy makes one update per step."""
    script = (
        "python3 -m verl.trainer.main_ppo data.train_batch_size=16 actor_rollout_ref.actor.ppo_mini_batch_size=64 "
        "actor_rollout_ref.rollout.top_k=1\n"
    )
    write(
        tmp_path,
        {
            "verl/__init__.py": "",
            "verl/trainer/main_ppo.py": "def main(): ...\n",
            "verl/version/version": "0.1\n",
            "verl/trainer/config/ppo_trainer.yaml": FORK_CONFIG,
            "scripts/train_grpo.sh": script,
        },
    )
    status, report = lint(tmp_path, monkeypatch, ".")
    found = {d["code"]: d for d in report["diagnostics"]}
    assert status == 1 and found["GRPO202"]["severity"] == "error"
    assert (
        found["GRPO109"]["severity"] == "warning" and "older than them may not check it" in found["GRPO109"]["message"]
    )
    (target,) = report["summary"]["targets"]
    assert "0.1, older than any release grpo-lint knows" in target["source"] and target["release_known"] is False
    # a mini batch of the copy's own default (its release not known): nothing is said
    write(tmp_path, {"scripts/train_grpo.sh": script.replace(" actor_rollout_ref.actor.ppo_mini_batch_size=64", "")})
    monkeypatch.chdir(tmp_path)
    shown = CliRunner().invoke(main, ["--isolated", "--verbose", "."]).output
    assert "GRPO109" not in shown.split("Not checked:")[0]


def test_a_copy_of_unknown_release_is_named_as_the_config_that_decides_and_one_file_sees_it(
    tmp_path, monkeypatch, uninstalled
):
    """Skywork-OR1 ships verl 0.1 whose config has trainer.val_before_train: `+` on it stops Hydra, and the
    message names the copy, not a release. Linting the one script from an unpacked repository's root (no
    .git) sees the same copy."""
    write(
        tmp_path,
        {
            "setup.py": "from setuptools import setup\nsetup(name='x')\n",
            "verl/__init__.py": "",
            "verl/trainer/main_ppo.py": "def main(): ...\n",
            "verl/version/version": "0.1\n",
            "verl/trainer/config/ppo_trainer.yaml": FORK_CONFIG + "  val_before_train: true\n",
            "examples/run.sh": "python3 -m verl.trainer.main_ppo +trainer.val_before_train=false\n",
        },
    )
    for paths in ([], ["examples/run.sh"]):
        _, report = lint(tmp_path, monkeypatch, *paths) if paths else lint(tmp_path, monkeypatch)
        (found,) = report["diagnostics"]
        assert found["code"] == "GRPO009", paths
        assert "the config of the verl copy in verl/ already has `trainer.val_before_train`" in found["message"]
    (tmp_path / "verl/trainer/config/ppo_trainer.yaml").write_text(FORK_CONFIG)
    _, report = lint(tmp_path, monkeypatch, "examples/run.sh")
    assert report["diagnostics"] == []


def test_a_recipe_of_another_trl_trainer_is_not_taken_for_grpo(tmp_path, monkeypatch, uninstalled):
    recipe = "model_name_or_path: m\nbeta: 0.1\nmax_prompt_length: 768\nloss_type: {loss}\n"
    write(
        tmp_path,
        {
            "requirements.txt": "trl==0.19.0\n",
            "recipes/dpo.yaml": recipe.format(loss="sigmoid"),
            "recipes/grpo.yaml": recipe.format(loss="dapx"),
        },
    )
    _, report = lint(tmp_path, monkeypatch)
    assert "another TRL trainer" in notes(report)["recipes/dpo.yaml"]
    assert codes(report, "dpo.yaml") == []
    # a GRPO loss misspelt is still a GRPO config, with its error
    assert codes(report, "grpo.yaml") == ["GRPO006"]
    write(tmp_path, {"recipes/grpo.yaml": recipe.format(loss="dr_grpo") + "use_vllm: true\n"})
    _, report = lint(tmp_path, monkeypatch)
    assert "another TRL trainer" not in notes(report)["recipes/grpo.yaml"]


GRPO_SCRIPT = "from trl import GRPOConfig\nargs = GRPOConfig(num_generations=8, max_prompt_length=512)\n"


def test_a_python_files_own_header_or_install_cells_state_its_release(tmp_path, monkeypatch, uninstalled):
    """A PEP 723 header (`uv run`, marimo) and the install cells nbconvert keeps as comments speak for that
    file alone, before the repository's requirements."""
    header = '# /// script\n# dependencies = [\n#     "trl==0.26.2",\n#     "peft",\n# ]\n# ///\n'
    converted = "# get_ipython().system('uv pip install --no-deps trl==0.22.2')\n"
    cell_magic = "# get_ipython().run_cell_magic('capture', '', 'import os\\n!pip install --no-deps trl==0.25.1\\n')\n"
    write(
        tmp_path,
        {
            "requirements.txt": "trl==0.28.0\n",
            "molab/header.py": header + GRPO_SCRIPT,
            "scripts/converted.py": converted + GRPO_SCRIPT,
            "scripts/magic.py": cell_magic + GRPO_SCRIPT,
            "scripts/plain.py": GRPO_SCRIPT,
        },
    )
    _, report = lint(tmp_path, monkeypatch)
    found = {Path(d["path"]).name: (d["code"], d["severity"]) for d in report["diagnostics"]}
    assert found == {"header.py": ("GRPO004", "warning"), "plain.py": ("GRPO004", "error")}
    sources = sorted(t["source"] for t in report["summary"]["targets"])
    assert any("molab/header.py:3 trl==0.26.2" in s for s in sources)
    assert any("scripts/converted.py:1 trl==0.22.2" in s for s in sources)
    assert any("scripts/magic.py:1 trl==0.25.1" in s for s in sources)


def test_a_notebook_whose_shell_lines_sit_in_blocks_is_read(tmp_path, monkeypatch, uninstalled):
    cells = [
        'import os\nif "COLAB_" not in "".join(os.environ.keys()):\n'
        "    !pip install unsloth \\\n        vllm\nelse:\n    pass",
        "!pip install --no-deps trl==0.28.0",
        GRPO_SCRIPT,
    ]
    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": c} for c in cells],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    write(tmp_path, {"train.ipynb": json.dumps(notebook)})
    _, report = lint(tmp_path, monkeypatch)
    (found,) = report["diagnostics"]
    assert (found["code"], found["cell"], found["line"]) == ("GRPO004", 3, 2)


def _notebook(*sources: str) -> str:
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": c} for c in sources]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


_TRAIN = (
    "import argparse\nfrom trl import GRPOConfig, GRPOTrainer\np = argparse.ArgumentParser()\n"
    "p.add_argument('--num-generations', type=int, default=8)\np.add_argument('--steps', type=int, default=1)\n"
    "a = p.parse_args()\nGRPOTrainer(model='m', args=GRPOConfig(output_dir='o', num_generations=a.num_generations))\n"
)


def test_a_notebooks_shell_lines_are_its_launch_script(tmp_path, monkeypatch, uninstalled):
    """`!python train.py \\` continued over lines (IPython joins them for the shell) and `%%bash` cells are launches."""
    steps = "N = 10\n!python train.py \\\n  --num-generations 1 \\\n  --steps {N}\n"
    bash = "%%bash\ncd .\npython train.py --num-generations 1 --steps 3\n"
    write(tmp_path, {"train.py": _TRAIN, "requirements.txt": "trl==1.16.0\n", "run.ipynb": _notebook("x = 1", steps)})
    status, report = lint(tmp_path, monkeypatch, "run.ipynb")
    (found,) = report["diagnostics"]
    assert status == 1 and (found["code"], found["cell"], found["line"], found["column"]) == ("GRPO101", 2, 3, 3)
    write(tmp_path, {"run.ipynb": _notebook(steps.replace("1 \\", "4 \\"), bash)})
    status, report = lint(tmp_path, monkeypatch, "run.ipynb")
    assert status == 1 and [(d["code"], d["cell"], d["line"]) for d in report["diagnostics"]] == [("GRPO101", 2, 3)]
    write(tmp_path, {"run.ipynb": _notebook(steps.replace("1 \\", "4 \\"))})
    status, report = lint(tmp_path, monkeypatch, "run.ipynb")
    assert status == 0 and [d for d in report["diagnostics"] if d["severity"] != "info"] == []


def test_a_python_value_in_a_shell_line_is_not_known_before_the_cell_runs(tmp_path, monkeypatch, uninstalled):
    write(tmp_path, {"train.py": _TRAIN, "requirements.txt": "trl==1.16.0\n"})
    write(tmp_path, {"run.ipynb": _notebook("G = 1\n!python train.py --num-generations {G}")})
    status, report = lint(tmp_path, monkeypatch, "run.ipynb")
    assert status == 0 and [d["code"] for d in report["diagnostics"]] == ["GRPO507"]  # not `{G}` taken as a value
    assert "--num-generations {G}" in run_cli("--isolated", "run.ipynb", cwd=tmp_path).stdout  # shown as written


def test_each_shell_line_of_a_notebook_starts_where_the_notebook_is(tmp_path, monkeypatch, uninstalled):
    """IPython runs each `!` line in a shell of its own: `!cd sub && ...` does not move the next line; `%cd sub` moves
    the notebook, and a `%%bash` cell is one shell."""
    launch = "accelerate launch --num_processes 1 -m trl.scripts.grpo --config configs/grpo.yaml"
    config = "model_name_or_path: m\nper_device_train_batch_size: {}\nnum_generations: 4\n"
    files = {"configs/grpo.yaml": config.format(3), "sub/configs/grpo.yaml": config.format(4)}
    write(tmp_path, {**files, "requirements.txt": "trl==1.16.0\n"})
    write(tmp_path, {"run.ipynb": _notebook("!cd sub && ls\n", f"!{launch}\n")})
    status, report = lint(tmp_path, monkeypatch, "run.ipynb")
    (error,) = report["diagnostics"]  # the root's config: 3 completions, groups of 4
    assert status == 1 and (error["code"], error["path"], error["cell"]) == ("GRPO102", "configs/grpo.yaml", None)
    write(tmp_path, {"run.ipynb": _notebook(f"!cd sub && {launch}\n")})  # the same line: in sub/
    assert lint(tmp_path, monkeypatch, "run.ipynb")[0] == 0
    write(tmp_path, {"run.ipynb": _notebook("%cd sub\n", f"!{launch}\n")})  # the notebook moves
    assert lint(tmp_path, monkeypatch, "run.ipynb")[0] == 0
    write(tmp_path, {"run.ipynb": _notebook(f"%%bash\ncd sub\n{launch}\n")})  # one shell for the cell
    assert lint(tmp_path, monkeypatch, "run.ipynb")[0] == 0


# A TRL launch of configs/grpo.yaml, relative to where it runs, and a config whose batch (3) holds no group of 4.
_CONFIG_LAUNCH = "accelerate launch --num_processes 1 -m trl.scripts.grpo --config configs/grpo.yaml\n"
_THREE_OF_FOUR = "model_name_or_path: m\nper_device_train_batch_size: 3\nnum_generations: 4\n"


def test_a_config_named_after_a_cd_is_looked_for_from_there(tmp_path, monkeypatch, uninstalled):
    config, launch = _THREE_OF_FOUR, _CONFIG_LAUNCH
    write(tmp_path, {"sub/configs/grpo.yaml": config, "run.sh": f"cd sub && {launch}"})
    write(tmp_path, {"requirements.txt": "trl==1.16.0\n"})
    status, report = lint(tmp_path, monkeypatch, "run.sh")
    assert status == 1 and codes(report) == ["GRPO102"]  # read from sub/: 3 completions, groups of 4
    write(tmp_path, {"run.sh": f"cd $WORK && {launch}"})  # where it runs is not shown: nothing said of the file
    status, report = lint(tmp_path, monkeypatch, "run.sh")
    assert status == 0 and codes(report) == []
    write(tmp_path, {"run.sh": launch})  # from the script's folder: not there, but the end of one file's path
    status, report = lint(tmp_path, monkeypatch, "run.sh")
    assert status == 1 and codes(report) == ["GRPO102"]  # (run from sub/, as that file's place says)
    write(tmp_path, {"other/configs/grpo.yaml": config})  # two files end so: which one runs is not shown
    status, report = lint(tmp_path, monkeypatch, "run.sh")
    assert status == 0 and codes(report) == []  # (and none is missing: the run may start beside either)


def test_a_cd_to_a_home_folder_is_not_a_folder_of_the_repository(tmp_path, monkeypatch, uninstalled):
    """`cd ~/checkout/sub` runs in the user's home: a config named after it is not looked for in a folder `~`."""
    config, launch = _THREE_OF_FOUR, _CONFIG_LAUNCH
    write(tmp_path, {"sub/configs/grpo.yaml": config, "run.sh": f"cd ~/elsewhere && {launch}"})
    write(tmp_path, {"requirements.txt": "trl==1.16.0\n"})
    status, report = lint(tmp_path, monkeypatch, "run.sh")
    assert status == 0 and codes(report) == []  # not "configs/grpo.yaml was not found"
    write(tmp_path, {"run.sh": f"cd ~/checkout/sub && {launch}"})  # its tail is a folder of the checkout
    status, report = lint(tmp_path, monkeypatch, "run.sh")
    assert status == 1 and codes(report) == ["GRPO102"]


def test_a_cd_through_the_checkouts_own_name_runs_there_and_a_missing_config_is_said(
    tmp_path, monkeypatch, uninstalled
):
    """`cd ~/work/<the checkout's name>/sub`: the run starts in the checkout's sub/, so a config not there is missing;
    through another folder's name where it runs stays not shown."""
    launch = _CONFIG_LAUNCH.replace("configs/grpo.yaml", "configs/gone.yaml")
    write(tmp_path, {"sub/configs/grpo.yaml": "num_generations: 4\n", "requirements.txt": "trl==1.16.0\n"})
    write(tmp_path, {"run.sh": f"cd ~/work/{tmp_path.name}/sub && {launch}"})
    _, report = lint(tmp_path, monkeypatch, "run.sh")
    (missing,) = report["diagnostics"]
    assert (missing["code"], missing["severity"]) == ("GRPO001", "error")  # (TrlParser opens it at start-up)
    assert "configs/gone.yaml" in missing["message"]
    write(tmp_path, {"run.sh": f"cd ~/work/other-checkout/sub && {launch}"})
    status, report = lint(tmp_path, monkeypatch, "run.sh")
    assert status == 0 and codes(report) == []


def test_a_script_run_by_an_interpreter_known_only_at_launch_is_a_launch(tmp_path, monkeypatch, uninstalled):
    """`"${ENV_PYTHON}" train.py --config cfg.yaml`, the interpreter set in a file the script sources."""
    script = (
        "from dataclasses import dataclass\nfrom trl import GRPOConfig, GRPOTrainer, TrlParser\n\n@dataclass\n"
        "class Args:\n    dataset_name: str = 'x'\n\nparser = TrlParser((Args, GRPOConfig))\n"
        "args, training_args = parser.parse_args_and_config()\n"
        "GRPOTrainer(model=args.dataset_name, args=training_args).train()\n"
    )
    files = {
        "train.py": script,
        "cfg.yaml": "num_generations: 4\nper_device_train_batch_size: 4\nnum_generatons: 3\n",
        "env.sh": 'ENV_PYTHON="$(pwd)/env/bin/python"\n',
        "run.sh": 'source env.sh\n"${ENV_PYTHON}" train.py --config cfg.yaml\n',
        "requirements.txt": "trl==1.16.0\n",
    }
    _, report = lint(write(tmp_path, files), monkeypatch)
    assert codes(report, "cfg.yaml") == ["GRPO002"] and notes(report)["cfg.yaml"] == "checked as part of ./run.sh"
    write(tmp_path, {"run.sh": 'source env.sh\n"${ENV_PYTHON}" tools/not_here.py --config cfg.yaml\n'})
    _, report = lint(tmp_path, monkeypatch)  # a script the repository does not hold: no launch shown
    assert notes(report)["run.sh"] == "no GRPO launch command"


def test_a_parser_given_a_tuple_bound_before_reads_those_classes(tmp_path, monkeypatch, uninstalled):
    """`dataclass_types = (Args, GRPOConfig)` then `TrlParser(dataclass_types)`, as TRL's own scripts build theirs."""
    script = (
        "from dataclasses import dataclass\nfrom trl import GRPOConfig, GRPOTrainer, TrlParser\n\n@dataclass\n"
        "class Args:\n    dataset_name: str = 'x'\n\ndef make_parser():\n"
        "    dataclass_types = (Args, GRPOConfig)\n    return TrlParser(dataclass_types)\n\n"
        "args, training_args = make_parser().parse_args_and_config()\n"
        "GRPOTrainer(model=args.dataset_name, args=training_args).train()\n"
    )
    files = {
        "train.py": script,
        "cfg.yaml": "dataset_name: d\nnum_generations: 4\nper_device_train_batch_size: 4\nnum_generatons: 3\n",
        "run.sh": "accelerate launch --num_processes 1 train.py --config cfg.yaml\n",
        "requirements.txt": "trl==1.16.0\n",
    }
    status, report = lint(write(tmp_path, files), monkeypatch)
    (unknown,) = [d for d in report["diagnostics"] if d["code"] == "GRPO002"]
    assert status == 1 and unknown["key"] == "num_generatons"
    assert {"kind": "parser", "basis": "shown"}.items() <= unknown["premises"][1].items()
    assert "TrlParser(dataclass_types)" in unknown["premises"][1]["text"]
    assert codes(report) == ["GRPO002"]  # dataset_name is Args's: known


def test_a_fork_whose_schema_cannot_be_read_is_said_once_and_its_keys_are_not_checked(
    tmp_path, monkeypatch, uninstalled
):
    write(
        tmp_path,
        {
            "verl/__init__.py": "",
            "verl/trainer/main_ppo.py": "",
            "verl/trainer/config.py": "class PPOConfig: ...\n",
            "examples/a.sh": "python3 -m verl.trainer.main_ppo worker.rollout.n=4 algorithm.adv_estimator=grpo\n",
            "examples/b.sh": "python3 -m verl.trainer.main_ppo worker.rollout.n=8 algorithm.adv_estimator=grpo\n",
        },
    )
    status, report = lint(tmp_path, monkeypatch, ".")
    assert [d["code"] for d in report["diagnostics"] if d["code"] in ("GRPO002", "GRPO004", "GRPO011")] == ["GRPO011"]
    assert status == 0


def test_files_of_a_framework_without_its_init_overlay_a_copy_the_repository_does_not_ship(
    tmp_path, monkeypatch, uninstalled
):
    """`src/verl/trainer/main_ppo.py` with no `src/verl/__init__.py`: Python imports an installed verl before such a
    folder, so the entry that runs is that copy's, with its config tree, not a tree missing beside these files."""
    entry = '@hydra.main(config_path="config", config_name="ppo_trainer", version_base=None)\ndef main(config): ...\n'
    files = {
        "src/verl/trainer/main_ppo.py": "import hydra\n" + entry,
        "scripts/run.sh": (
            "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=8 \\\n"
            "    actor_rollout_ref.actor.fsdp_config.grad_offload=False\n"
        ),
    }
    status, report = lint(write(tmp_path, files), monkeypatch, ".")
    assert codes(report) == ["GRPO011"] and status == 0
    (note,) = [d["message"] for d in report["diagnostics"]]
    assert "no __init__.py" in note and "overlay" in note
    # with its __init__.py the folder is the package that runs, and its config folder is missing: Hydra stops
    status, report = lint(write(tmp_path, {"src/verl/__init__.py": ""}), monkeypatch, ".")
    assert "GRPO001" in codes(report, "run.sh") and status == 1


def test_a_copy_without_init_run_under_the_repositorys_own_package_name_is_what_runs(
    tmp_path, monkeypatch, uninstalled
):
    """`python3 -m my_rm.verl.trainer.main_ppo` of `my_rm/verl/` (no `__init__.py` anywhere): no installed package is
    named `my_rm`, so its namespace folder is what runs, with its own config tree."""
    entry = "import hydra\nfrom verl.trainer.ppo.ray_trainer import RayPPOTrainer\n"
    entry += '@hydra.main(config_path="config", config_name="ppo_trainer", version_base=None)\n'
    entry += "def main(config):\n    RayPPOTrainer(config)\n"
    tree = "data:\n  train_batch_size: 8\nactor_rollout_ref:\n  rollout:\n    n: 4\n    name: vllm\n"
    tree += "    tensor_model_parallel_size: 1\nalgorithm:\n  adv_estimator: grpo\n"
    tree += "trainer:\n  default_local_dir: ckpt\n  nnodes: 1\n  n_gpus_per_node: 1\n"
    files = {
        "my_rm/verl/trainer/main_ppo.py": entry,
        "my_rm/verl/trainer/config/ppo_trainer.yaml": tree,
        "run.sh": "python3 -m my_rm.verl.trainer.main_ppo trainer.nnodes=1 default_local_dir=out\n",
    }
    status, report = lint(write(tmp_path, files), monkeypatch, ".")
    assert codes(report, "run.sh") == ["GRPO002"] and status == 1  # `default_local_dir` is `trainer.default_local_dir`
    write(tmp_path, {"run.sh": "python3 -m my_rm.verl.trainer.main_ppo trainer.default_local_dir=out\n"})
    assert codes(lint(tmp_path, monkeypatch, ".")[1], "run.sh") == []


def test_a_script_run_by_its_own_shebang_needs_the_executable_bit_git_stores(tmp_path, monkeypatch, uninstalled):
    """`./run_grpo.sh` (or `exec "$(dirname "$0")/run_grpo.sh"`) of a file git stores as 100644: Permission denied."""
    launch = (
        "accelerate launch --num_processes 2 -m trl.scripts.grpo --num_generations 4 --per_device_train_batch_size 4\n"
    )
    write(tmp_path, {"run_grpo.sh": launch, "smoke.sh": 'exec "$(dirname "$0")/run_grpo.sh" --max_steps 2\n'})
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    (tmp_path / "run_grpo.sh").chmod(0o644)
    status, report = lint(tmp_path, monkeypatch, ".")
    (denied,) = [d for d in report["diagnostics"] if d["code"] == "GRPO508"]
    assert denied["path"].endswith("smoke.sh") and "git stores it as 100644" in denied["message"] and status == 1
    subprocess.run(["git", "update-index", "--chmod=+x", "run_grpo.sh"], cwd=tmp_path, check=True)
    assert "GRPO508" not in codes(lint(tmp_path, monkeypatch, ".")[1])  # git's index decides (core.fileMode off)
    subprocess.run(["git", "update-index", "--chmod=-x", "run_grpo.sh"], cwd=tmp_path, check=True)
    write(tmp_path, {"smoke.sh": "bash run_grpo.sh --max_steps 2\n"})  # bash reads it: no bit needed
    assert "GRPO508" not in codes(lint(tmp_path, monkeypatch, ".")[1])


def test_a_generated_reference_config_no_run_reads_is_not_linted(tmp_path, monkeypatch, uninstalled):
    """verl's generator flattens a trainer config into `_generated_*.yaml` with a header that says it is only for
    reference and never used: its values are no run's."""
    header = (
        "# This reference configration yaml is automatically generated via 'scripts/generate_trainer_config.sh'\n"
        "# Do not modify this file directly.\n# The file is usually only for reference and never used.\n\n"
    )
    body = "algorithm:\n  adv_estimator: grpo\nactor_rollout_ref:\n  rollout:\n    n: 1\n"
    files = {"requirements.txt": "verl==0.7.0\n", "cfg/_generated_trainer.yaml": header + body}
    _status, report = lint(write(tmp_path, files), monkeypatch, ".")
    assert codes(report) == [] and "never used" in notes(report)["cfg/_generated_trainer.yaml"]
    write(tmp_path, {"cfg/_generated_trainer.yaml": body})  # the same values in a file that may be run
    assert codes(lint(tmp_path, monkeypatch, ".")[1]) == ["GRPO101"]


# Arguments the repository defines --------------------------------------------------------------


def test_fields_of_the_repositorys_own_dataclasses_are_known_keys(tmp_path, monkeypatch):
    write(
        tmp_path,
        {
            "src/proj/configs.py": (
                "import trl\nfrom dataclasses import dataclass, field\n\n@dataclass\n"
                "class GRPOConfig(trl.GRPOConfig):\n    chat_template: str | None = field(default=None)\n"
                "    system_prompt: str | None = None\n\n@dataclass\nclass Extra(GRPOConfig):\n"
                "    wandb_entity: str | None = None\n"
            ),
            "scripts/filter.py": (
                "from dataclasses import dataclass\nfrom trl import TrlParser\n\n@dataclass\n"
                "class PassRateArguments:\n    pass_rate_min: float = 0.1\n\n"
                "parser = TrlParser((PassRateArguments,))\n"
            ),
            "src/proj/grpo.py": (
                "from trl import GRPOTrainer, ModelConfig, ScriptArguments, TrlParser\n"
                "from proj.configs import Extra\n"
                "from scripts.filter import PassRateArguments\n\n"
                "parser = TrlParser((ScriptArguments, Extra, ModelConfig, PassRateArguments))\n"
            ),
            "scripts/__init__.py": "",
            "recipes/grpo.yaml": RECIPE.replace("torch_dtype", "dtype").replace("max_prompt_length: 512\n", "")
            + "chat_template: x\nsystem_prompt: y\nwandb_entity: z\npass_rate_min: 0.2\nnum_generatons: 4\n",
        },
    )
    _, report = lint(tmp_path, monkeypatch, "--target", "trl==1.16.0", ".")
    (typo,) = [d for d in report["diagnostics"] if d["code"] == "GRPO002"]
    assert typo["key"] == "num_generatons" and "num_generations" in typo["message"]
    # no launch names the recipe: the repository's one GRPO script is assumed to read it, and says so
    assert typo["severity"] == "warning" and "src/proj/grpo.py" in typo["message"]
    assert {"kind": "parser", "basis": "assumed"}.items() <= typo["premises"][1].items()
    monkeypatch.chdir(tmp_path)
    shown = CliRunner().invoke(main, ["--isolated", "--show", "--target", "trl==1.16.0", "."]).output
    assert "scripts/filter.py: PassRateArguments" in shown and "src/proj/configs.py: Extra" in shown


def test_the_example_scripts_of_a_shipped_trl_project_are_not_the_repos_scripts(tmp_path, monkeypatch, uninstalled):
    """A repository that ships TRL's whole project (`trl/` with its setup, `trl/trl/`, `trl/examples/`) and keeps its
    own configs beside it: TRL's example scripts read none of them, so they are not assumed to."""
    example = (
        "from dataclasses import dataclass\nfrom trl import GRPOConfig, GRPOTrainer, TrlParser\n\n"
        "@dataclass\nclass Args:\n    dataset_name: str = 'x'\n\n"
        "parser = TrlParser((Args, GRPOConfig))\n"
        "args, training_args = parser.parse_args_and_config()\n"
        "GRPOTrainer(model=args.dataset_name, args=training_args).train()\n"
    )
    files = {
        "trl/pyproject.toml": "[project]\nname = 'trl'\nversion = '0.19.0'\n",
        "trl/trl/__init__.py": (
            "__version__ = '0.19.0'\nfrom .trainer.grpo_config import GRPOConfig\n"
            "from .trainer.grpo_trainer import GRPOTrainer\nfrom .scripts.utils import TrlParser\n"
        ),
        "trl/trl/trainer/grpo_config.py": (
            "from dataclasses import dataclass, field\n\n@dataclass\nclass GRPOConfig:\n"
            "    num_generations: int = field(default=8)\n    per_device_train_batch_size: int = 8\n"
        ),
        "trl/trl/trainer/grpo_trainer.py": "class GRPOTrainer:\n    pass\n",
        "trl/trl/scripts/utils.py": "class TrlParser:\n    pass\n",
        "trl/examples/scripts/grpo_vlm.py": example,
        "trl/configs/mine.yaml": "num_generations: 4\nper_device_train_batch_size: 4\nmy_probe_count: 3\n",
    }
    write(tmp_path, files)
    _, report = lint(tmp_path, monkeypatch, ".")
    assert codes(report, "mine.yaml") == []  # no reader shown: its own keys are not called unused
    # the same script, the repository's own (outside the shipped project): it is assumed to read the config
    write(tmp_path, {"scripts/grpo_vlm.py": example})
    _, report = lint(tmp_path, monkeypatch, ".")
    (unknown,) = [d for d in report["diagnostics"] if d["path"].endswith("mine.yaml")]
    assert unknown["code"] == "GRPO002" and unknown["key"] == "my_probe_count"
    assert "scripts/grpo_vlm.py" in unknown["premises"][1]["text"] and "examples" not in unknown["premises"][1]["text"]


# Which launch runs which config ------------------------------------------------------------------

BROKEN_ON_7 = "num_generations: 8\nper_device_train_batch_size: 2\ngradient_accumulation_steps: 1\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_recipe_is_checked_with_the_world_size_of_the_script_that_launches_it(tmp_path, monkeypatch):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)  # pre-commit runs in a work tree
    write(
        tmp_path,
        {
            "recipes/grpo.yaml": BROKEN_ON_7,
            "scripts/train.sh": (
                "uv run accelerate launch --config_file recipes/zero2.yaml --num_processes=7 \\\n"
                "    src/proj/grpo.py --config recipes/grpo.yaml\n"
            ),
            "recipes/zero2.yaml": "distributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 8\n",
            "src/proj/grpo.py": (
                "from trl import GRPOConfig, GRPOTrainer, ModelConfig, ScriptArguments, TrlParser\n"
                "parser = TrlParser((ScriptArguments, GRPOConfig, ModelConfig))\n"
            ),
        },
    )
    status, report = lint(tmp_path, monkeypatch, "--target", "trl==1.16.0", ".")
    (error,) = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert (
        error["code"] == "GRPO102" and error["path"].endswith("recipes/grpo.yaml") and "7 processes" in error["message"]
    )
    assert notes(report)["recipes/grpo.yaml"] == "checked as part of ./scripts/train.sh"
    # A pre-commit run names only the changed recipe: it is still checked through the script.
    status, report = lint(tmp_path, monkeypatch, "--target", "trl==1.16.0", "--only-configs", "recipes/grpo.yaml")
    assert status == 1 and codes(report) == ["GRPO102"]
    # Alone, with no launcher, the count is unknown: no error, the valid counts instead.
    (tmp_path / "scripts/train.sh").unlink()
    status, report = lint(tmp_path, monkeypatch, "--target", "trl==1.16.0", "recipes/grpo.yaml")
    assert status == 0 and codes(report) == ["GRPO106"]
    assert "valid on every multiple of 4 up to 64" in report["diagnostics"][0]["message"]


def test_a_repository_whose_scripts_run_the_frameworks_program_uses_it(tmp_path, monkeypatch, uninstalled):
    """A config that only looks like TRL's is not judged in a repository that shows no TRL; a launch script that runs
    `trl grpo` shows it, even when the config it names is computed (and so this config is not linked to it)."""
    config = "model_name_or_path: Qwen/Qwen2.5-0.5B\nnum_processes: 2\nper_device_train_batch_size: 3\n"
    config += "num_generations: 4\n"
    write(tmp_path, {"recipes/grpo_small.yaml": config})
    status, report = lint(tmp_path, monkeypatch, ".")
    assert status == 0 and report["diagnostics"] == []
    assert notes(report)["recipes/grpo_small.yaml"] == (
        "looks like a TRL config, but the repository neither imports nor depends on TRL"
    )
    write(tmp_path, {"run.sh": 'NAME=$1\ntrl grpo --config "recipes/${NAME}.yaml"\n'})
    status, report = lint(tmp_path, monkeypatch, ".")
    assert status == 1 and "GRPO102" in codes(report, "recipes/grpo_small.yaml")


def test_a_file_named_like_verls_trainer_that_never_names_verl_is_the_repositorys_own(tmp_path, monkeypatch):
    trainer = "import torch\n\ndef main():\n    torch.manual_seed(0)\n\nif __name__ == '__main__':\n    main()\n"
    launch = "torchrun --nproc_per_node 8 main_ppo.py data.train_batch_size=3 actor_rollout_ref.rollout.n=1\n"
    write(tmp_path, {"main_ppo.py": trainer, "run.sh": launch})
    status, report = lint(tmp_path, monkeypatch, "--target", "verl==0.5.0", "run.sh")
    assert status == 0 and report["diagnostics"] == [] and notes(report)["run.sh"] == "no GRPO launch command"
    write(tmp_path, {"main_ppo.py": "from verl.trainer.main_ppo import main\n\nmain()\n"})  # verl's, run as its own
    status, report = lint(tmp_path, monkeypatch, "--target", "verl==0.5.0", "run.sh")
    assert status == 1 and "GRPO111" in codes(report)  # verl's checks: micro batch sizes not set


def test_a_relative_config_path_is_the_entry_files_folder_as_hydra_reads_it(tmp_path, monkeypatch):
    """`python3 -m verl.experimental.tq.main_ppo --config-path=config --config-name=tq`: Hydra looks for config/ beside
    main_ppo.py, not where the run starts; the base config found there gives the run its values."""
    entry = 'import hydra\n\n@hydra.main(config_path="config", config_name="ppo_trainer", version_base=None)\n'
    entry += "def main(config):\n    pass\n"
    base = "algorithm: {adv_estimator: grpo}\nactor_rollout_ref:\n  rollout: {n: 1}\n"
    files = {
        "verl/__init__.py": "", "verl/experimental/__init__.py": "", "verl/experimental/tq/__init__.py": "",
        "verl/experimental/tq/main_ppo.py": entry,
        "verl/experimental/tq/config/tq.yaml": base,
        "run.sh": "python3 -m verl.experimental.tq.main_ppo --config-path=config --config-name=tq trainer.nnodes=1\n",
    }  # fmt: skip
    write(tmp_path, files)
    status, report = lint(tmp_path, monkeypatch, "--target", "verl==0.7.0", "run.sh")
    assert codes(report) == ["GRPO101"]  # n: 1 in the base config: a group of one
    (tmp_path / "verl/experimental/tq/config/tq.yaml").unlink()  # not there: nothing rests on its values
    status, report = lint(tmp_path, monkeypatch, "--target", "verl==0.7.0", "run.sh")
    assert status == 0 and codes(report) == []


def test_scripts_that_run_no_grpo_are_left_alone(tmp_path, monkeypatch):
    write(
        tmp_path,
        {
            "dpo.sh": "NPROC_PER_NODE=3 swift rlhf --rlhf_type dpo --per_device_eval_batch_size 2\n",
            "sft.sh": "accelerate launch src/sft.py --config recipes/sft.yaml\n",
            "recipes/sft.yaml": "learning_rate: 1.0e-5\nper_device_train_batch_size: 3\n",
            "megatron.sh": "megatron rlhf --rlhf_type grpo --micro_batch_size 2 --global_batch_size 6\n",
            "ray.yaml": "rlhf_type: grpo\nuse_ray: true\nmicro_batch_size: 2\nglobal_batch_size: 16\n",
        },
    )
    status, report = lint(tmp_path, monkeypatch, "--target", "swift==4.6.0", ".")
    assert status == 0 and report["diagnostics"] == []
    found = notes(report)
    assert found["dpo.sh"].startswith("`swift rlhf` with rlhf_type dpo")
    assert "Megatron" in found["megatron.sh"] and "Megatron" in found["ray.yaml"]
    assert found["sft.sh"] == "line 1 runs recipes/sft.yaml, which is not a GRPO config"
    assert found["recipes/sft.yaml"] == "no GRPO key"


def test_a_job_runs_its_script_from_its_working_dir_and_an_unfound_script_keys_nothing(tmp_path, monkeypatch):
    trainer = (
        "from dataclasses import dataclass\nfrom trl import GRPOConfig, GRPOTrainer, TrlParser\n"
        "@dataclass\nclass ScriptArguments:\n    dataset_name: str = ''\n"
        "args, config = TrlParser((ScriptArguments, GRPOConfig)).parse_args_and_config()\n"
        "GRPOTrainer(model='m', args=config).train()\n"
    )
    generate = "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--model')\n"
    job = (
        "ray job submit --working-dir src/pkg -- python -u generate.py --model m --hf-dataset d \\\n"
        "    --num-generations 4 --temperature 0.6\n"
    )
    files = {"src/pkg/grpo.py": trainer, "src/pkg/generate.py": generate, "slurm/generate.slurm": job}
    status, report = lint(write(tmp_path, files), monkeypatch, "--target", "trl==0.22.2", ".")
    assert status == 0 and codes(report) == []
    assert notes(report)["slurm/generate.slurm"] == "launch script"  # read as a launch, and nothing to report
    # Without --working-dir, generate.py is found nowhere: the script that reads the flags is not known,
    # so none of them is called unknown (it is not assumed to be the repository's GRPO script).
    write(tmp_path, {"slurm/generate.slurm": job.replace("--working-dir src/pkg ", "")})
    status, report = lint(tmp_path, monkeypatch, "--target", "trl==0.22.2", ".")
    assert "GRPO002" not in codes(report)


def test_a_script_run_after_cd_is_found_there_from_its_own_projects_top(tmp_path, monkeypatch):
    trainer = "class MyGRPOTrainer:\n    def __init__(self, **kwargs):\n        pass\n"
    script = (
        "from trl import GRPOConfig, TrlParser\nfrom app.trainer import MyGRPOTrainer\n"
        "(config,) = TrlParser((GRPOConfig,)).parse_args_and_config()\nMyGRPOTrainer(args=config)\n"
    )
    launch = (
        "cd src/app\ntorchrun --nproc_per_node 4 src/train.py --per_device_train_batch_size 1 --num_generations 8\n"
    )
    files = {
        "old/project/src/app/src/train.py": script,
        "old/project/src/app/src/app/trainer.py": trainer,
        "old/project/scripts/run.sh": launch,
        "README.md": "A project of its own: walked whole.\n",
    }
    status, report = lint(write(tmp_path, files), monkeypatch, "--target", "trl==0.16.0", ".")
    assert status == 0 and codes(report, "run.sh") == []  # its own trainer (not TRL's GRPOTrainer) forms the groups
    # Without the `cd`, src/train.py is still the end of one file's path only: that file is the one run.
    write(tmp_path, {"old/project/scripts/run.sh": launch.replace("cd src/app\n", "")})
    status, report = lint(tmp_path, monkeypatch, "--target", "trl==0.16.0", ".")
    assert status == 0 and codes(report, "run.sh") == []
    # With a second file of that path elsewhere, which one runs is not shown: TRL's batch rule is applied (and fails).
    write(tmp_path, {"new/src/train.py": script})
    status, report = lint(tmp_path, monkeypatch, "--target", "trl==0.16.0", ".")
    assert status == 1 and codes(report, "run.sh") == ["GRPO102"]


def test_an_own_trainer_that_keeps_trls_batch_check_is_judged_by_its_arithmetic(tmp_path, monkeypatch):
    # VLM-R1 forks: the repository's own trainer keeps TRL 0.15-0.16's check of the global batch (processes x per-device
    # batch) while TRL 0.17.0 is pinned, whose own check multiplies by gradient accumulation too.
    check = (
        "        if self.num_generations not in possible_values:\n            raise ValueError(\n"
        '                f"The global train batch size ({num_processes} x {args.per_device_train_batch_size}) must be '
        'evenly "\n                f"divisible by the number of generations per prompt ({self.num_generations})."\n'
        "            )\n"
    )
    trainer = "class VLMGRPOTrainer:\n    def __init__(self, args):\n" + check
    script = (
        "from trl import GRPOConfig, TrlParser\nfrom mytrl.grpo_trainer import VLMGRPOTrainer\n"
        "(config,) = TrlParser((GRPOConfig,)).parse_args_and_config()\nVLMGRPOTrainer(args=config)\n"
    )
    launch = (
        "torchrun --nproc_per_node 2 train.py --per_device_train_batch_size 1 --gradient_accumulation_steps 4 "
        "--num_generations 4\n"
    )
    files = {"mytrl/grpo_trainer.py": trainer, "train.py": script, "run.sh": launch}
    _, report = lint(write(tmp_path, files), monkeypatch, "--target", "trl==0.17.0", ".")
    (found,) = [d for d in report["diagnostics"] if d["code"] == "GRPO102"]
    assert "global train batch 2 (2 processes x 1 per device)" in found["message"]
    assert "own VLMGRPOTrainer (its copy of TRL's check) rejects it" in found["message"]
    # Without the check in its code, its own trainer forms the groups its own way: nothing is said.
    write(tmp_path, {"mytrl/grpo_trainer.py": trainer.replace(check, "        pass\n")})
    _, report = lint(tmp_path, monkeypatch, "--target", "trl==0.17.0", ".")
    assert "GRPO102" not in codes(report)


def test_a_launch_runs_the_release_its_scripts_project_pins(tmp_path, monkeypatch):
    # Video-R1: src/scripts/run.sh does `cd src/r1-v` and runs src/open_r1/grpo.py, whose project pins trl==0.16.0 in
    # src/r1-v/setup.py; the scripts' own folders state nothing. The launched script's folders decide the release.
    script = (
        "from trl import GRPOConfig, GRPOTrainer, TrlParser\n"
        "(config,) = TrlParser((GRPOConfig,)).parse_args_and_config()\nGRPOTrainer(args=config)\n"
    )
    launch = (
        "cd src/r1-v\n"
        "torchrun --nproc_per_node 2 src/open_r1/grpo.py --per_device_train_batch_size 1 --num_generations 4\n"
    )
    files = {
        "src/r1-v/setup.py": "from setuptools import setup\nsetup(install_requires=['trl==0.16.0'])\n",
        "old/setup.py": "from setuptools import setup\nsetup(install_requires=['trl==0.14.0'])\n",
        "src/r1-v/src/open_r1/grpo.py": script,
        "src/scripts/run.sh": launch,
    }
    _, report = lint(write(tmp_path, files), monkeypatch, ".")
    (found,) = [d for d in report["diagnostics"] if d["code"] == "GRPO102"]
    assert "TRL 0.16.0 rejects it" in found["message"] and "global train batch size (2 x 1)" in found["message"]


def test_an_own_trainer_keeps_the_checks_its_code_still_makes(tmp_path, monkeypatch):
    # A copy of TRL's GRPOTrainer kept in the repository (open-r1 forks' src/open_r1/trl/) reads the config its own
    # way, but a check it keeps word for word still stops the run; TRL's GRPOConfig checks the batch from 0.18.0
    # whatever trainer the script builds.
    check = (
        "        if len(args.reward_weights) != len(reward_funcs):\n"
        "            raise ValueError(f'Number of reward weights must match number of reward '\n"
        "                             f'functions ({len(reward_funcs)})')\n"
    )
    trainer = "class GRPOTrainer:\n    def __init__(self, args, reward_funcs):\n" + check
    script = (
        "from trl import GRPOConfig, TrlParser\nfrom mytrl.grpo_trainer import GRPOTrainer\n"
        "(config,) = TrlParser((GRPOConfig,)).parse_args_and_config()\n"
        "GRPOTrainer(args=config, reward_funcs=[a, b, c])\n"
    )
    config = "per_device_train_batch_size: 4\nnum_generations: 4\nreward_funcs: [a, b, c]\nreward_weights: [1.0, 1.0]\n"
    launch = "accelerate launch --num_processes 2 train.py --config c.yaml\n"
    files = {"mytrl/grpo_trainer.py": trainer, "train.py": script, "c.yaml": config, "run.sh": launch}
    _, report = lint(write(tmp_path, files), monkeypatch, "--target", "trl==0.18.0", ".")
    assert codes(report, "c.yaml") == ["GRPO403"]
    # A trainer whose code does not make the check: what it does with the weights is its own.
    write(tmp_path, {"mytrl/grpo_trainer.py": trainer.replace(check, "        pass\n")})
    _, report = lint(tmp_path, monkeypatch, "--target", "trl==0.18.0", ".")
    assert "GRPO403" not in codes(report)
    # The batch: 2 x 4 = 8 completions in groups of 3. Its own trainer at 0.16.0 may split them its own way; TRL's
    # GRPOConfig at 0.18.0 stops the run before any trainer is built.
    write(tmp_path, {"c.yaml": "per_device_train_batch_size: 4\nnum_generations: 3\n"})
    _, report = lint(tmp_path, monkeypatch, "--target", "trl==0.16.0", ".")
    assert "GRPO102" not in codes(report)
    _, report = lint(tmp_path, monkeypatch, "--target", "trl==0.18.0", ".")
    assert "GRPO102" in codes(report, "c.yaml")


def test_a_script_named_from_a_folder_a_readme_cds_into_is_the_one_file_of_that_path(tmp_path, monkeypatch):
    # R1-V's scripts/run.sh names src/open_r1/grpo.py, which is src/r1-v/src/open_r1/grpo.py (its README says to
    # `cd src/r1-v` first): the script's parser reads the flags, and the run's problems are found.
    script = (
        "from dataclasses import dataclass\nfrom trl import GRPOConfig, ModelConfig, TrlParser\n"
        "@dataclass\nclass ScriptArguments:\n    dataset_name: str = ''\n"
        "parser = TrlParser((ScriptArguments, GRPOConfig, ModelConfig))\n"
        "script_args, training_args, model_args = parser.parse_args_and_config()\n"
    )
    launch = (
        "torchrun --nproc_per_node=2 src/open_r1/grpo.py \\\n"
        "    --dataset_name d --per_device_train_batch_size 1 --num_generations 2 --max_pixls 401408\n"
    )
    files = {"src/r1-v/src/open_r1/grpo.py": script, "scripts/run.sh": launch}
    status, report = lint(write(tmp_path, files), monkeypatch, "--target", "trl==0.16.0", ".")
    assert status == 1 and codes(report, "run.sh") == ["GRPO002"]  # --max_pixls: no class of the script has it
    # A bare file name is not looked for elsewhere: `grpo.py` alone could be any script.
    write(tmp_path, {"scripts/run.sh": launch.replace("src/open_r1/grpo.py", "grpo.py")})
    status, report = lint(tmp_path, monkeypatch, "--target", "trl==0.16.0", ".")
    assert "GRPO002" not in codes(report, "run.sh")


# The files a run reads ---------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_gitignore_is_honoured_and_data_files_are_never_read(tmp_path, monkeypatch):
    write(
        tmp_path,
        {
            ".gitignore": "outputs/\n",
            "outputs/run1/config.yaml": "num_generations: 1\n",
            "data/train.json": '[{"prompt": "num_generations: 1"}]' + " " * 10,
            "tokenizer.json": '{"num_generations": 1}',
            "recipes/grpo.yaml": "num_generations: 1\n",
        },
    )
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    _, report = lint(tmp_path, monkeypatch, "--target", "trl==1.16.0", ".")
    assert sorted({d["path"] for d in report["diagnostics"]}) == ["./recipes/grpo.yaml"]
    assert notes(report)["data/train.json"] == "a JSON list (a dataset), not a config"
    assert "tokenizer.json" not in notes(report) and "outputs/run1/config.yaml" not in notes(report)


# Reading scripts as bash does ----------------------------------------------------------------------


def test_unquoted_variables_split_into_words_and_branch_values_are_unknown():
    script = parse(
        'OVERRIDES="a.n=4\n  b.m=2"\nif [ "$X" = 1 ]; then\n  NAME=big\nelse\n  NAME=small\nfi\n'
        'python run.py $OVERRIDES "$OVERRIDES" --name $NAME\n',
        "run.sh",
    )
    words = script.commands[-1].words
    assert [w.text for w in words[2:4]] == ["a.n=4", "b.m=2"]
    assert words[4].text == "a.n=4\n  b.m=2"  # quoted: one word
    assert words[-1].unknown == ("NAME",)  # set in a branch: not known before launch


def test_python_code_for_an_experimental_trainer_is_not_judged_by_grpo_trainer_choices(tmp_path, monkeypatch):
    code = (
        "from trl import GRPOConfig\nfrom trl.experimental.gspo_token import GRPOTrainer\n\n"
        'args = GRPOConfig(num_generations=4, importance_sampling_level="sequence_token")\n'
    )
    write(tmp_path, {"train.py": code, "plain.py": code.replace("trl.experimental.gspo_token", "trl")})
    _, report = lint(tmp_path, monkeypatch, "--target", "trl==1.16.0", ".")
    assert [(d["code"], Path(d["path"]).name) for d in report["diagnostics"]] == [("GRPO006", "plain.py")]


# The visible corpus: real repositories with checked verdicts ------------------------------------


@pytest.mark.skipif(not (SHARED / "tools" / "corpus_check.py").is_file(), reason="../shared is not present")
def test_real_repositories_have_no_known_false_report_left():
    import sys

    done = subprocess.run(
        [sys.executable, str(SHARED / "tools" / "corpus_check.py"), f"{sys.executable} -m grpo_lint"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    summary = done.stdout.strip().splitlines()[-1]
    print(summary)
    assert summary.startswith("corpus: false still reported 0/"), done.stdout


def test_a_bare_mention_beside_a_pin_in_the_same_file_states_nothing_more(tmp_path):
    setup = (
        "_deps = ['trl==0.16.0', 'torch']\ndeps = {d.split('==')[0]: d for d in _deps}\n"
        "install_requires = [deps['trl'], deps['torch']]\n"
    )
    (pin,) = find_pins(write(tmp_path, {"setup.py": setup}), ["setup.py"]).pins
    assert pin.provenance == "setup.py:1 trl==0.16.0" and pin.shown
    # Alone, a bare name allows every release (assumed, never shown).
    (bare,) = find_pins(write(tmp_path, {"setup.py": "install_requires = ['trl']\n"}), ["setup.py"]).pins
    assert not bare.shown and len(bare.allows) > 10


def test_a_warning_that_holds_only_at_the_assumed_end_of_a_range_is_not_given(tmp_path, monkeypatch, uninstalled):
    script = (
        "from trl import GRPOConfig, GRPOTrainer, TrlParser\n"
        "(config,) = TrlParser((GRPOConfig,)).parse_args_and_config()\nGRPOTrainer(model='m', args=config).train()\n"
    )
    launch = "accelerate launch --num_processes 2 grpo.py --max_prompt_length 512 --num_generations 4\n"
    files = {"grpo.py": script, "run.sh": launch, "requirements.txt": "trl\n"}
    _status, report = lint(write(tmp_path, files), monkeypatch, ".")
    assert "GRPO004" not in codes(report)  # unused from TRL 0.26 on, used by every release before: not known
    write(tmp_path, {"requirements.txt": "trl==0.27.2\n"})
    _status, report = lint(tmp_path, monkeypatch, ".")
    (warning,) = [d for d in report["diagnostics"] if d["code"] == "GRPO004"]
    assert warning["severity"] == "warning" and "no longer used" in warning["message"]


def test_a_script_run_by_another_is_checked_with_the_variables_it_exports(tmp_path, monkeypatch):
    rlhf = (
        "NPROC_PER_NODE=$NPROC swift rlhf --rlhf_type grpo --model Qwen/Qwen2.5-7B \\\n"
        "    --per_device_train_batch_size $BATCH_SIZE --num_generations $NUM_GENERATIONS\n"
    )
    pipeline = "export NPROC=3\nexport BATCH_SIZE=2\nexport NUM_GENERATIONS=4\nbash train/rlhf.sh\n"
    files = {"train/rlhf.sh": rlhf, "pipeline.sh": pipeline, "requirements.txt": "ms-swift==3.8.0\n"}
    status, report = lint(write(tmp_path, files), monkeypatch, ".")
    (error,) = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert status == 1 and error["path"].endswith("train/rlhf.sh") and error["line"] == 2
    assert "pipeline.sh runs it at line 4, with the variables that script sets" in error["message"]
    assert notes(report)["pipeline.sh"] == "launch script"
    # Read alone, rlhf.sh's values are unknown: no error there; with a group size that fits, none at all.
    write(tmp_path, {"pipeline.sh": pipeline.replace("NUM_GENERATIONS=4", "NUM_GENERATIONS=3")})
    status, report = lint(tmp_path, monkeypatch, ".")
    assert status == 0 and [d for d in report["diagnostics"] if d["severity"] != "info"] == []


@pytest.mark.parametrize(
    "call",
    [
        "./train/rlhf.sh --num_generations 4",
        "train/rlhf.sh --num_generations 4",
        "bash -x train/rlhf.sh --num_generations 4",
        "sbatch --gres=gpu:3 -p gpu -J grpo --exclusive train/rlhf.sh --num_generations 4",
        "qsub train/rlhf.sh --num_generations 4",
    ],
)
def test_a_script_run_directly_or_through_a_queue_is_read_with_the_arguments_it_is_given(tmp_path, monkeypatch, call):
    """`./train/rlhf.sh ARGS` (its own shebang) and `sbatch [options] job.sh ARGS` run the script with ARGS as `$@`."""
    rlhf = '#!/bin/bash\naccelerate launch --num_processes 3 -m trl.scripts.grpo --per_device_train_batch_size 2 "$@"\n'
    files = {"train/rlhf.sh": rlhf, "submit.sh": call + "\n", "requirements.txt": "trl==0.20.0\n"}
    write(tmp_path, files)
    (tmp_path / "train/rlhf.sh").chmod(0o755)  # (run by its shebang, it must be executable: GRPO508 otherwise)
    status, report = lint(tmp_path, monkeypatch, ".")
    (error,) = [d for d in report["diagnostics"] if d["severity"] == "error"]  # 3 x 2 = 6 completions, groups of 4
    assert status == 1 and error["code"] == "GRPO102" and "submit.sh runs it at line 1" in error["message"]
    write(tmp_path, {"submit.sh": call.replace("--num_generations 4", "--num_generations 3") + "\n"})
    status, report = lint(tmp_path, monkeypatch, ".")
    assert status == 0 and [d for d in report["diagnostics"] if d["severity"] != "info"] == []


def test_a_command_string_is_no_script_run_with_arguments(tmp_path, monkeypatch):
    rlhf = 'accelerate launch --num_processes 3 -m trl.scripts.grpo --per_device_train_batch_size 2 "$@"\n'
    for call in (
        "sbatch --wrap 'train/rlhf.sh --num_generations 4'",
        "bash -c 'echo train/rlhf.sh' --num_generations 4",
    ):
        files = {"train/rlhf.sh": rlhf, "submit.sh": call + "\n", "requirements.txt": "trl==0.20.0\n"}
        _status, report = lint(write(tmp_path, files), monkeypatch, ".")
        assert not any("submit.sh runs it" in d["message"] for d in report["diagnostics"]), call


def test_a_tag_of_another_program_is_a_problem_only_in_a_grpo_config(tmp_path, monkeypatch):
    mkdocs = "site_name: docs\nmarkdown_extensions:\n  - emoji:\n      emoji_index: !!python/name:material.twemoji\n"
    files = {"mkdocs.yml": mkdocs, "grpo.yaml": "num_generations: 4\nper_device_train_batch_size: 4\n"}
    status, report = lint(write(tmp_path, files), monkeypatch, "--target", "trl==0.19.1", ".")
    assert status == 0 and codes(report) == []
    assert notes(report)["mkdocs.yml"] == "no GRPO key"  # passed over by its words, never parsed
    write(tmp_path, {"grpo.yaml": files["grpo.yaml"] + "learning_rate: !ENV LR\n"})
    status, report = lint(tmp_path, monkeypatch, "--target", "trl==0.19.1", ".")
    assert status == 1 and codes(report) == ["GRPO001"]  # yaml.safe_load, as TRL reads it, stops there too


def test_a_file_whose_only_grpo_keys_other_programs_share_is_not_a_trl_config(tmp_path, monkeypatch):
    task = (  # an lm-evaluation-harness task: generation_kwargs, and keys no trainer has
        "task: aime24\ndataset_path: simplescaling/aime24\noutput_type: generate_until\n"
        "doc_to_text: !function utils.doc_to_text\ndoc_to_target: answer\n"
        "generation_kwargs:\n  do_sample: false\n  temperature: 0\n"
    )
    recipe = "learning_rate: 1.0e-6\nper_device_train_batch_size: 2\ngeneration_kwargs:\n  temperature: 0\n"
    files = {"eval/tasks/aime.yaml": task, "requirements.txt": "trl==1.16.0\n", "train.py": "import trl\n"}
    status, report = lint(write(tmp_path, files), monkeypatch, ".")
    assert status == 0 and codes(report) == []
    assert notes(report)["eval/tasks/aime.yaml"] == "unreadable, and nothing in it looks like a GRPO config"
    # Among training arguments the same key is a TRL config's, and its greedy sampling is judged.
    write(tmp_path, {"recipes/grpo.yaml": recipe, "eval/tasks/aime.yaml": task.replace("!function ", "")})
    _status, report = lint(tmp_path, monkeypatch, ".")
    assert notes(report)["eval/tasks/aime.yaml"].startswith("only generation_kwargs of GRPO's keys")
    status_of = {Path(f["path"]).as_posix().removeprefix("./"): f["status"] for f in report["summary"]["files"]}
    assert status_of["recipes/grpo.yaml"] == "linted"


def test_a_pin_of_transformers_bounds_the_trl_releases_an_unpinned_trl_can_be(tmp_path, monkeypatch, uninstalled):
    config = "num_generations: 4\nper_device_train_batch_size: 4\nuse_vllm: true\nvllm_device: cuda:7\n"
    root = write(tmp_path, {"requirements.txt": "trl\ntorch\n", "grpo.yaml": config})
    # Unpinned: `vllm_device` ties the run to TRL < 0.18, and that is said.
    _status, report = lint(root, monkeypatch, "--world-size", "4", "grpo.yaml")
    assert codes(report) == ["GRPO013"]
    # transformers==4.49.0 admits no TRL past 0.17 (0.18 needs transformers>=4.50.0): the run is tied already.
    # A git commit of TRL names one release grpo-lint cannot tell, not every release: nothing to say either.
    write(root, {"requirements.txt": "trl @ git+https://github.com/huggingface/trl.git@0123456789abcdef\n"})
    _status, report = lint(root, monkeypatch, "--world-size", "4", "grpo.yaml")
    assert codes(report) == []
    write(root, {"requirements.txt": "trl\ntransformers==4.49.0\n"})
    _status, report = lint(root, monkeypatch, "--world-size", "4", "grpo.yaml")
    assert codes(report) == []
    (target,) = report["summary"]["targets"]
    assert target["version"] == "0.17.0"
    assert "bounded by requirements.txt:2 transformers==4.49.0" in target["source"]


def test_a_transformers_bound_keeps_the_releases_it_admits_and_never_overrides_a_pin(tmp_path):
    def chosen(files: dict[str, str], relative: str = "grpo.yaml"):
        root = write(tmp_path, files)
        return find_pins(root, sorted(files)).choose("trl", relative)[0]

    # a range that the bound does not narrow, and a bound every release meets: unchanged
    assert chosen({"requirements.txt": "trl>=0.19\ntransformers>=4.56\n"}).allows[0] == Version("0.19.0")
    # `<4.51`: 0.18.x still fits (4.50), 0.19 does not (4.51)
    pin = chosen({"requirements.txt": "trl>=0.15\ntransformers<4.51\n"})
    assert pin.version == Version("0.18.2") and pin.allows[0] == Version("0.15.0") and not pin.exact
    # `~=4.49.0` is 4.49.x: 0.17.0 is the newest TRL it installs with
    assert chosen({"requirements.txt": "trl\ntransformers~=4.49.0\n"}).version == Version("0.17.0")
    # an exact TRL pin is what it says, whatever transformers is pinned to
    assert chosen({"requirements.txt": "trl==0.20.0\ntransformers==4.49.0\n"}).version == Version("0.20.0")
    # a bound in a folder above the file speaks for it
    pin = chosen({"requirements.txt": "transformers==4.50.0\n", "sub/requirements.txt": "trl\n"}, "sub/grpo.yaml")
    assert pin.version == Version("0.18.2")
    # where nothing states TRL, it is installed apart from the pin (`pip install trl` brings the transformers it
    # needs): the pin bounds nothing
    assert chosen({"requirements.txt": "transformers==4.49.0\nnumpy\n"}) is None


def test_a_requirements_file_written_in_utf_16_states_its_pins(tmp_path):
    """`pip freeze > requirements.txt` in Windows PowerShell writes UTF-16 with a byte order mark."""
    text = "transformers==4.57.3\r\ntrl==0.26.2\r\n"
    for encoding in ("utf-16", "utf-16-be", "utf-8-sig"):
        bom = b"\xfe\xff" if encoding == "utf-16-be" else b""
        (tmp_path / "requirements.txt").write_bytes(bom + text.encode(encoding))
        pin = find_pins(tmp_path, ["requirements.txt"]).choose("trl", "grpo.py")[0]
        assert pin is not None and pin.version == Version("0.26.2") and pin.exact, encoding


@pytest.mark.parametrize(
    ("name", "stated"),
    [
        ("docs/requirements.train.lock", True),  # `pip freeze` output kept as .lock
        ("requirements-dev.lock", True),  # Rye's lock file, in pip's format
        ("requirements.lock", True),
        ("Pipfile.lock", False),  # JSON, not pip's format: not read as one
        ("package-lock.json", False),
    ],
)
def test_a_requirements_lock_file_states_its_pins(tmp_path, name, stated):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# generated\ntorch==2.5.1\ntrl==0.24.0\n")
    pin = find_pins(tmp_path, [name]).choose("trl", "grpo.py")[0]
    assert (pin is not None and pin.version == Version("0.24.0")) == stated


def test_a_singular_requirement_file_states_its_pins(tmp_path):
    (tmp_path / "requirement.txt").write_text("transformers==4.49.0\ntrl==0.16.1\n")
    pin = find_pins(tmp_path, ["requirement.txt"]).choose("trl", "grpo.py")[0]
    assert pin is not None and pin.version == Version("0.16.1")
    (tmp_path / "requirement_notes.md").write_text("trl==0.11.0\n")  # (not a requirements file)
    pin = find_pins(tmp_path, ["requirement_notes.md"]).choose("trl", "grpo.py")[0]
    assert pin is None


def test_a_notebook_install_command_continued_over_lines_states_its_pins(tmp_path):
    """`%pip install --upgrade \\` with one requirement per line below, as a notebook's install cell writes it."""
    import json

    cell = '%pip install --upgrade \\\n  "transformers==4.48.1" \\\n  "trl==0.14.0"\n\n%pip install "vllm==0.7.0"\n'
    notebook = {"cells": [{"cell_type": "code", "source": cell, "metadata": {}, "outputs": []}], "metadata": {},
                "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    (tmp_path / "grpo.ipynb").write_text(json.dumps(notebook))
    pin = find_pins(tmp_path, ["grpo.ipynb"]).choose("trl", "grpo.ipynb")[0]
    assert pin is not None and pin.version == Version("0.14.0") and "cell 1:1" in pin.provenance


def recorded_parses(monkeypatch) -> list[str]:
    """The files the positioned YAML/JSON parse reads from now on, as displayed, in order."""
    from grpo_lint.sources import yaml_reader

    parsed: list[str] = []
    real_parse = yaml_reader.parse
    monkeypatch.setattr(
        yaml_reader, "parse", lambda text, display, fmt: parsed.append(display) or real_parse(text, display, fmt)
    )
    return parsed


def test_another_tools_config_found_by_a_walk_is_passed_over_by_its_words_and_a_near_miss_is_not(
    tmp_path, monkeypatch, uninstalled
):
    """A walk finds thousands of other tools' configs in a large repository: one whose words hold no GRPO key, no
    verl section and fewer than two training arguments is skipped unparsed, as parsing it would conclude; a file
    whose only GRPO evidence is a misspelt key among training arguments is still parsed and reported."""
    write(tmp_path, {
        "requirements.txt": "trl==0.19.1\n",
        "tools/resnet.yaml": "model:\n  name: resnet50\n  depth: 4\ntrain:\n  epochs: 10\n  lr: 0.01\n",
        "tools/broken.yaml": "model: [unclosed\n",
        "runs/typo.yaml": "learning_rate: 1.0e-6\nper_device_train_batch_size: 4\nnum_generation: 4\n",
    })  # fmt: skip
    parsed = recorded_parses(monkeypatch)
    _, report = lint(tmp_path, monkeypatch)
    assert notes(report)["tools/resnet.yaml"] == "no GRPO key"
    assert notes(report)["tools/broken.yaml"] == "no GRPO key"
    assert not [p for p in parsed if "tools/" in p]  # passed over by their words: never parsed
    statuses = {Path(f["path"]).as_posix().removeprefix("./"): f["status"] for f in report["summary"]["files"]}
    assert statuses["runs/typo.yaml"] == "linted" and codes(report, "runs/typo.yaml")  # the near miss: parsed, judged
    assert "runs/typo.yaml" in [p.removeprefix("./") for p in parsed]
    lint(tmp_path, monkeypatch, "tools/resnet.yaml")  # named on the command line: judged as named, so parsed
    assert "tools/resnet.yaml" in [p.removeprefix("./") for p in parsed]


def test_a_found_json_of_results_is_judged_from_its_decoded_data_and_a_json_config_is_parsed(
    tmp_path, monkeypatch, uninstalled
):
    """A repository keeps megabytes of results and traces as JSON whose words name GRPO (run names, logged
    settings): such a file a walk finds is judged from json's decoder (its top-level keys hold no GRPO key), not
    parsed with positions; a JSON config of GRPO keys is parsed and reported, and one nested past the parse's
    guard is left to the parse (reported as unreadable, as its text looks like a GRPO config)."""
    import json

    trace = {"run": "grpo_seed42", "steps": [{"step": i, "num_generations": 8, "loss": 0.1} for i in range(3000)]}
    # more values than the parse composes (it would refuse it as unreadable, its words naming GRPO)
    history = {"run": "grpo_seed42", "log": [{"step": i, "num_generations": 8} for i in range(50_000)]}
    deep: object = "grpo"
    for _ in range(120):
        deep = [deep]
    write(tmp_path, {
        "requirements.txt": "trl==0.19.1\n",
        "results/trace.json": json.dumps(trace, indent=2),
        "results/name.json": json.dumps("grpo_seed42"),
        "results/history.json": json.dumps(history, separators=(",", ":")),
        "configs/grpo.json": json.dumps({"num_generations": 1, "per_device_train_batch_size": 4}),
        "configs/many.json": json.dumps(
            {"num_generations": 4, "per_device_train_batch_size": 4, "rows": list(range(250_000))}
        ),
        "configs/deep.json": json.dumps({"num_generations": deep}),
    })  # fmt: skip
    parsed = recorded_parses(monkeypatch)
    _, report = lint(tmp_path, monkeypatch)
    assert notes(report)["results/trace.json"] == "no GRPO key"
    assert notes(report)["results/name.json"] == "not a mapping"
    assert notes(report)["results/history.json"] == "no GRPO key, and more than 200,000 values"
    assert not [p for p in parsed if "results/" in p]  # decoded, never parsed with positions
    assert "GRPO101" in codes(report, "configs/grpo.json")  # a group of one
    assert codes(report, "configs/many.json") == ["GRPO001"]  # GRPO keys and too many values: the parse refuses it
    assert codes(report, "configs/deep.json") == ["GRPO001"]  # too deep: the parse's own report (unreadable)
    lint(tmp_path, monkeypatch, "results/trace.json")  # named on the command line: parsed and judged as named
    assert "results/trace.json" in [p.removeprefix("./") for p in parsed]


def test_a_framework_installed_after_the_project_itself_replaces_the_projects_pin(tmp_path, monkeypatch, uninstalled):
    """An install recipe that installs the project (its setup.py pins trl==0.18.0) and then TRL from git: the TRL
    that runs is the one installed last, and it brings the transformers it needs (the project's bound is gone)."""
    setup = "from setuptools import setup\nsetup(install_requires=['trl[vllm]==0.18.0', 'transformers==4.52.3'])\n"
    recipe = "model_name_or_path: m\nnum_generations: 4\nper_device_train_batch_size: 4\nloss_type: cispo\n"
    makefile = (
        'install:\n\tuv pip install -e ".[dev]" && \\\n\tuv pip install git+https://github.com/huggingface/trl.git\n'
    )
    root = write(tmp_path, {"setup.py": setup, "recipes/grpo.yaml": recipe, "train.py": "import trl\n"})
    _, report = lint(root, monkeypatch, "recipes/grpo.yaml")
    assert codes(report) == ["GRPO006"]  # TRL 0.18.0 has no cispo loss
    write(root, {"Makefile": makefile})
    _, report = lint(root, monkeypatch, "recipes/grpo.yaml")
    assert "GRPO006" not in codes(report)  # TRL from git (default branch): releases that have it
    assert any("Makefile:3 trl from git (default branch)" in t["source"] for t in report["summary"]["targets"])
    # The same line before the project's own install is replaced by it in turn: the pin decides again.
    write(
        root, {"Makefile": "install:\n\tpip install git+https://github.com/huggingface/trl.git\n\tpip install -e .\n"}
    )
    _, report = lint(root, monkeypatch, "recipes/grpo.yaml")
    assert codes(report) == ["GRPO006"]


def test_a_lock_file_past_a_megabyte_still_states_the_release(tmp_path, monkeypatch, uninstalled):
    """A project's uv.lock lists its whole environment and is often past a megabyte: it is still read, and its
    locked TRL is the release, over the range pyproject.toml allows."""
    filler = "".join(
        f'[[package]]\nname = "pkg{i}"\nversion = "1.0.{i}"\nsource = {{ registry = "x" }}\n\n' for i in range(20000)
    )
    lock = filler + '[[package]]\nname = "trl"\nversion = "0.19.1"\nsource = { registry = "x" }\n'
    assert len(lock) > 1024 * 1024
    root = write(tmp_path, {
        "pyproject.toml": '[project]\nname = "p"\ndependencies = ["trl>=0.19"]\n',
        "uv.lock": lock,
        "grpo.yaml": RECIPE,
    })  # fmt: skip
    _, report = lint(root, monkeypatch, "grpo.yaml")
    (target,) = report["summary"]["targets"]
    assert target["version"] == "0.19.1" and target["source"].startswith("uv.lock:")


def test_an_omegaconf_interpolation_is_computed_where_the_repositorys_own_loader_reads_the_file(
    tmp_path, monkeypatch, uninstalled
):
    """`max_completion_length: ${eval:"${model.max_seq_length} - ${.max_prompt_length}"}` in a Hydra config of the
    repository's own (a `# @package` header, `_target_`) is computed when OmegaConf loads it: not known before
    launch, so no type error; the same value in a config `trl grpo --config` reads is the text TRL's parser
    takes as written, which is no whole number (argparse: "invalid int value")."""
    value = 'max_completion_length: ${eval:"${model.max_seq_length} - ${.max_prompt_length}"}\n'
    hydra = "# @package _group_\n_target_: src.loop.TrainingLoop\nmax_prompt_length: 512\n"
    plain = "model_name_or_path: m\nmax_prompt_length: 512\n"
    write(tmp_path, {
        "requirements.txt": "trl==0.19.1\n",
        "train.py": "import trl\n",
        "conf/train/default.yaml": hydra + value + "num_generations: 8\nper_device_train_batch_size: 8\n",
        "recipes/grpo.yaml": plain + value + "num_generations: 8\nper_device_train_batch_size: 8\n",
        "recipes/found.yaml": plain + value + "num_generations: 8\nper_device_train_batch_size: 8\n",
        "run.sh": "trl grpo --config recipes/grpo.yaml\n",
    })  # fmt: skip
    _, report = lint(tmp_path, monkeypatch)
    assert codes(report, "conf/train/default.yaml") == []
    assert codes(report, "recipes/found.yaml") == []  # no launch shows which program reads it
    summary = {Path(f["path"]).as_posix().removeprefix("./"): f for f in report["summary"]["files"]}
    assert summary["conf/train/default.yaml"]["status"] == "linted"
    assert any(
        "`max_completion_length`: OmegaConf interpolations" in note
        for note in summary["conf/train/default.yaml"]["not_checked"]
    )
    assert codes(report, "recipes/grpo.yaml") == ["GRPO003"]  # read by TRL's own parser: the text as written


def test_trls_grpo_classes_imported_under_a_trl_before_grpo_stop_at_the_import(tmp_path, monkeypatch, uninstalled):
    """A repository that pins TRL 0.7.8 (in a setup script's install command) and trains with `from trl import
    GRPOConfig, GRPOTrainer`: GRPO arrived in TRL 0.14.0, so the import raises ImportError and no run starts."""
    train = "from trl import GRPOConfig, GRPOTrainer\n\nconfig = GRPOConfig(num_generations=4)\n"
    root = write(tmp_path, {"setup.sh": "pip install \\\n  trl==0.7.8 \\\n  peft\n", "train.py": train})
    _, report = lint(root, monkeypatch)
    (found,) = report["diagnostics"]
    assert (found["code"], found["path"], found["line"], found["column"]) == ("GRPO004", "./train.py", 1, 17)
    assert "setup.sh:2 trl==0.7.8" in found["message"]
    write(root, {"setup.sh": "pip install trl==0.14.0\n"})
    _, report = lint(root, monkeypatch)
    assert codes(report) == []
    write(root, {"setup.sh": "pip install trl==0.7.8\n", "train.py": "from trl import SFTTrainer\n"})
    _, report = lint(root, monkeypatch)
    assert codes(report) == []  # no GRPO class imported: another trainer's script


TRAINER_SCRIPT = """\
from trl import GRPOConfig, GRPOTrainer

config = GRPOConfig(output_dir="out", num_generations=4, per_device_train_batch_size=4)
trainer = GRPOTrainer(model="Qwen/Qwen2.5-0.5B", reward_funcs=[len], args=config)
trainer.train()
"""


@pytest.mark.parametrize(
    ("requirements", "stops"),
    [
        ("trl==0.24.0\ntransformers==5.6.0\n", True),
        ("trl==0.27.2\ntransformers>=5.1\n", True),
        ("trl>=0.20,<0.28\ntransformers==5.6.0\n", True),  # every release the range allows writes the attribute
        ("trl==0.28.0\ntransformers==5.6.0\n", False),  # TRL 0.28.0 no longer touches it
        ("trl==0.24.0\ntransformers==5.0.0\n", False),  # 5.0.0 still sets it on every model
        ("trl==0.24.0\ntransformers>=4.56\n", False),  # may be a 4.x
        ("trl==0.24.0\n", False),  # transformers not stated: pip installs what TRL allows, not known here
        ("trl>=0.24\ntransformers==5.6.0\n", False),  # may be 0.28.0 or later
    ],
)
def test_an_older_trl_under_transformers_from_5_1_stops_at_the_trainer(
    tmp_path, monkeypatch, uninstalled, requirements, stops
):
    """TRL 0.14.0-0.27.x write `model.warnings_issued[...]` in GRPOTrainer.__init__; transformers 5.1.0 removed it."""
    root = write(tmp_path, {"requirements.txt": requirements, "train.py": TRAINER_SCRIPT})
    _, report = lint(root, monkeypatch)
    found = [d for d in report["diagnostics"] if d["code"] == "GRPO004" and "warnings_issued" in d["message"]]
    assert [(d["line"], d["column"]) for d in found] == ([(4, 11)] if stops else [])
    if stops:
        # code that gives the model the attribute itself (as a fixed copy of such a script does) runs
        fixed = TRAINER_SCRIPT.replace("trainer =", "model.warnings_issued = {}\ntrainer =")
        write(root, {"train.py": fixed})
        _, report = lint(root, monkeypatch)
        assert not any("warnings_issued" in d["message"] for d in report["diagnostics"])


# A training script whose parser is TRL's (TrlParser over its own dataclass and GRPOConfig).
TRL_SCRIPT = (
    "from trl import GRPOConfig, TrlParser\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass S:\n"
    "    x: int = 1\n\n\nargs, config = TrlParser((S, GRPOConfig)).parse_args_and_config()\n"
)


def trl_launch(tmp_path: Path, monkeypatch, config: str, flags: str) -> tuple[Path, dict]:
    """A repository of TRL_SCRIPT as train.py, `config` as cfg.yaml and run.sh launching it on 2 processes, linted
    against TRL 0.18.0."""
    launch = f"accelerate launch --num_processes 2 train.py {flags}\n"
    root = write(tmp_path, {"train.py": TRL_SCRIPT, "cfg.yaml": config, "run.sh": launch})
    return root, lint(root, monkeypatch, "--target", "trl==0.18.0", ".")[1]


def test_a_key_given_twice_in_a_config_a_launch_names_is_reported_in_that_config(tmp_path, monkeypatch):
    """TrlParser loads the `--config` YAML with PyYAML, which keeps the last of two equal keys: said in the config a
    launch script names (checked as part of the script), unless a flag of the command sets the key anyway."""
    config = "num_generations: 4\nper_device_train_batch_size: 4\nmax_steps: 10\nmax_steps: 20\nbeta: 0.0\nbeta: 0.1\n"
    root, report = trl_launch(tmp_path, monkeypatch, config, "--config cfg.yaml --beta 0.2")
    (twice,) = [d for d in report["diagnostics"] if d["code"] == "GRPO007"]
    assert (twice["path"], twice["line"]) == ("cfg.yaml", 4) and "`max_steps` is set twice" in twice["message"]
    write(root, {"cfg.yaml": config.replace("max_steps: 10\n", "")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.18.0", ".")
    assert "GRPO007" not in codes(report)


def test_a_launch_whose_script_or_config_is_known_only_at_launch_is_said_so(tmp_path, monkeypatch):
    """open-r1's train.slurm runs `src/open_r1/$TASK.py --config recipes/$MODEL/$TASK/config_$SUFFIX.yaml` with the
    values of its arguments: the file is skipped as a launch whose run is not shown, not as a rollout server's."""
    slurm = (
        'TASK="$1"\nCONFIG_FILE=recipes/$TASK/config.yaml\nsrun --nodelist=$VLLM_NODE trl vllm-serve --model m &\n'
        'CMD="src/$TASK.py --config $CONFIG_FILE"\nsrun --nodes=1 bash -c "accelerate launch $CMD"\n'
    )
    runner = 'python "$RUNNER".py --seed 1\n'
    root = write(tmp_path, {"train.slurm": slurm, "run.sh": runner, "src/grpo.py": "print(1)\n"})
    _, report = lint(root, monkeypatch, "--target", "trl==0.18.0", ".")
    found = notes(report)
    assert found["train.slurm"] == (
        "the command of line 5 names its config as recipes/$1/config.yaml, a file known only at launch: "
        "which run it makes is not shown"
    )
    assert found["run.sh"].startswith("the command of line 1 runs $RUNNER.py, a script whose name is known only")
    write(root, {"train.slurm": slurm.replace('CMD="src/$TASK.py --config $CONFIG_FILE"\n', 'CMD=""\n')})
    _, report = lint(root, monkeypatch, "--target", "trl==0.18.0", ".")
    assert notes(report)["train.slurm"] == "starts only a rollout server"


@pytest.mark.parametrize("runner", ["exec ", "nohup ", "env MODE=rules ", "timeout -s INT 2h "])
def test_a_script_run_through_exec_or_another_runner_is_read_with_the_callers_variables(tmp_path, monkeypatch, runner):
    """`MODE=rules exec bash "$(dirname "$0")/_train.sh"` (a course's entry wrappers): the called script runs with the
    wrapper's variables, and its GRPO run is judged as the wrapper starts it."""
    called = 'N="${GROUP:-4}"\nswift rlhf --rlhf_type grpo --num_generations "$N" --per_device_train_batch_size 4\n'
    wrapper = f'GROUP=1 {runner}bash "$(dirname "$0")/_train.sh"\n'
    root = write(tmp_path, {"course/_train.sh": called, "course/train_one.sh": wrapper})
    _, report = lint(root, monkeypatch, "--target", "swift==4.6.0", "course/train_one.sh")
    assert "GRPO101" in codes(report)
    write(root, {"course/train_one.sh": wrapper.replace("GROUP=1", "GROUP=8")})
    _, report = lint(root, monkeypatch, "--target", "swift==4.6.0", "course/train_one.sh")
    assert "GRPO101" not in codes(report) and notes(report)["course/train_one.sh"] == "launch script"


def test_a_colocated_engine_setting_is_said_to_do_nothing_where_the_launch_leaves_server_mode(tmp_path, monkeypatch):
    """TRL 0.18's default mode is server: a launch that runs a config with `vllm_gpu_memory_utilization` and no mode
    leaves it unread (GRPO401); the same config launched with `--vllm_mode colocate` reads it."""
    config = "num_generations: 4\nper_device_train_batch_size: 4\nuse_vllm: true\nvllm_gpu_memory_utilization: 0.2\n"
    root, report = trl_launch(tmp_path, monkeypatch, config, "--config cfg.yaml")
    launch = "accelerate launch --num_processes 2 train.py --config cfg.yaml\n"
    (unread,) = [d for d in report["diagnostics"] if d["code"] == "GRPO401"]
    assert (unread["path"], unread["line"], unread["severity"]) == ("cfg.yaml", 4, "warning")
    write(root, {"run.sh": launch.replace("cfg.yaml", "cfg.yaml --vllm_mode colocate")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.18.0", ".")
    assert "GRPO401" not in codes(report)


def test_a_script_whose_own_argparse_defines_a_grpo_named_flag_is_not_a_grpo_run(tmp_path, monkeypatch):
    """`python3 ray_vllm_generate.py --num_generations 1` (a best-of-n sampling script of the repository, plain
    argparse, no TRL): the flag is the script's own, so no GRPO rule judges the command. A script whose parser is
    TRL's is judged."""
    sampler = (
        "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--num_generations', type=int)\n"
        "parser.add_argument('--model')\nargs = parser.parse_args()\n"
    )
    launch = "python3 generate.py --model m --num_generations 1\n"
    root = write(tmp_path, {"scripts/generate.py": sampler, "scripts/run.sh": launch})
    _, report = lint(root, monkeypatch, "--target", "trl==0.18.0", ".")
    assert codes(report) == [] and notes(report)["scripts/run.sh"] == "no GRPO launch command"
    write(root, {"scripts/generate.py": TRL_SCRIPT.replace("x: int = 1", "model: str = ''")})
    _, report = lint(root, monkeypatch, "--target", "trl==0.18.0", ".")
    assert "GRPO101" in codes(report)
