"""--explain, --list-rules, --show, --statistics, standard input, --diff and --only-configs."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from grpo_lint.checks import all_rules

from .conftest import ROOT, run_cli

GOOD = "num_processes: 4\nper_device_train_batch_size: 8\nnum_generations: 8\n"
BAD = "num_processes: 4\nper_device_train_batch_size: 6\nnum_generations: 16\ntemperature: 0.2\n"


def test_explain_prints_the_rule_page():
    result = run_cli("--explain", "grpo201")
    assert result.returncode == 0
    assert result.stdout == (ROOT / "rules" / "GRPO201.md").read_text()
    typo = run_cli("--explain", "GRPO21")
    assert typo.returncode == 2 and "is not a rule; did you mean GRPO201?" in typo.stderr


def test_list_rules_text_and_json():
    text = run_cli("--list-rules")
    assert text.returncode == 0
    rows = [line.split() for line in text.stdout.splitlines()]
    assert [row[0] for row in rows if row[0] != "*"] == list(all_rules())
    # A severity that depends on the version or the layout is starred, with when on the next line.
    at = next(i for i, row in enumerate(rows) if row[0] == "GRPO203")
    assert rows[at][2] == "error*"
    assert (
        " ".join(rows[at + 1])
        == "* error only with colocated vLLM (one engine for all requests); warning in server mode and in code"
    )
    data = json.loads(run_cli("--list-rules", "--format", "json").stdout)
    assert {r["code"]: r["severity"] for r in data}["GRPO205"] == "warning"
    assert all(set(r) == {"code", "name", "severity", "severity_varies", "summary"} for r in data)
    assert {r["code"]: r["severity_varies"] for r in data}["GRPO205"] is None


def test_show_explains_the_run_without_judging_it(tmp_path):
    (tmp_path / "bad.yaml").write_text(BAD + "seed: 7\n")
    result = run_cli("bad.yaml", "--show", "--target", "trl==1.16.0", cwd=tmp_path)
    assert result.returncode == 0  # it describes; it does not fail
    out = result.stdout
    assert "TRL 1.16.0  [--target]" in out
    assert "world size             4  [num_processes, line 1]" in out
    assert "generation batch       24 completions per generation round" in out
    assert "prompts per round      not a whole number" in out
    assert "temperature          0.2  [temperature, line 4]" in out
    assert "seed                   7  [seed, line 5]" in out
    assert "valid process counts   every multiple of 8 up to 64" in out
    data = json.loads(run_cli("bad.yaml", "--show", "--format", "json", "--world-size", "8", cwd=tmp_path).stdout)
    (run,) = data["runs"]
    assert run["world_size"] == {"value": 8, "from": "--world-size"}
    assert (run["generation_batch"], run["prompts_per_generation"]) == (48, 3)
    assert run["completions_per_optimizer_step"] == 48
    assert run["sampling"]["top_p"] == {"value": 1.0, "from": "default"}


def test_show_older_trl_and_swift(tmp_path):
    (tmp_path / "old.yaml").write_text(GOOD + "gradient_accumulation_steps: 2\n")
    # TRL 0.16 reads no num_processes from the YAML (only `trl grpo` 0.29+ passes it on): the count is given.
    args = ("old.yaml", "--show", "--format", "json", "--target", "trl==0.16.0", "--world-size", "4")
    data = json.loads(run_cli(*args, cwd=tmp_path).stdout)
    run = data["runs"][0]
    assert run["whole_groups_required_of"] == "processes x per-device batch" and run["whole_groups_batch"] == 32
    swift = ROOT / "examples" / "swift" / "grpo_colocate_4gpu.yaml"
    run = json.loads(run_cli(str(swift), "--show", "--format", "json").stdout)["runs"][0]
    assert run["framework"] == "ms-swift" and run["world_size"]["from"].startswith("ENV.NPROC_PER_NODE")


def test_statistics(tmp_path):
    (tmp_path / "a.yaml").write_text(BAD)
    (tmp_path / "b.yaml").write_text(BAD)
    result = run_cli(".", "--statistics", "--target", "trl==1.16.0", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "2  GRPO102  error    partial-groups",
        "2  GRPO205  warning  low-diversity-sampling",
    ]
    data = json.loads(run_cli(".", "--statistics", "--format", "json", "--target", "trl==1.16.0", cwd=tmp_path).stdout)
    assert data[0] == {"code": "GRPO102", "name": "partial-groups", "severity": "error", "count": 2}


def test_standard_input():
    result = run_cli("-", "--stdin-filename", "recipes/run.yaml", "--target", "trl==1.16.0", stdin=BAD)
    assert result.returncode == 1 and "recipes/run.yaml:3:1: error[GRPO102]" in result.stdout
    anonymous = run_cli("-", "--target", "trl==1.16.0", stdin=GOOD)
    assert anonymous.returncode == 0
    binary = run_cli("-", stdin=b"\x00\x01\x02")
    assert binary.returncode == 1 and "-:1:1: error[GRPO001]" in binary.stdout.decode()
    mixed = run_cli("-", "x.yaml", stdin=GOOD)
    assert mixed.returncode == 2


def test_only_configs_skips_yaml_that_is_not_ours(tmp_path):
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    (tmp_path / "helm.yaml").write_text("a: {{ .Values.x }}\n  b: [\n")
    (tmp_path / "broken_grpo.yaml").write_text("num_generations: [8\n")
    named = ["list.yaml", "helm.yaml", "broken_grpo.yaml"]
    plain = run_cli(*named, cwd=tmp_path)
    assert plain.stdout.count("GRPO001") == 3
    hooked = run_cli(*named, "--only-configs", cwd=tmp_path)
    assert hooked.stdout.count("GRPO001") == 1 and "broken_grpo.yaml:2:1: error[GRPO001]" in hooked.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_lints_only_changed_configs(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    (tmp_path / "old.yaml").write_text(BAD)
    (tmp_path / "same.yaml").write_text(BAD)
    git("add", ".")
    git("commit", "-qm", "base")
    (tmp_path / "old.yaml").write_text(BAD.replace("16", "12"))
    (tmp_path / "new.yaml").write_text(BAD)
    (tmp_path / "notes.txt").write_text("num_generations: 1\n")
    result = run_cli("--changed-since", "HEAD", "--format", "json", "--target", "trl==1.16.0", cwd=tmp_path)
    files = [f["path"] for f in json.loads(result.stdout)["summary"]["files"]]
    assert files == ["new.yaml", "old.yaml"]
    # `--diff REV`, the old name, is gone: --diff now shows what --fix would change.
    old_name = run_cli("--diff", "HEAD", "--format", "json", "--target", "trl==1.16.0", cwd=tmp_path)
    assert old_name.returncode == 2 and "--fix --diff" in old_name.stderr
    bad_rev = run_cli("--changed-since", "no-such-rev", cwd=tmp_path)
    assert bad_rev.returncode == 2 and "git diff" in bad_rev.stderr
    option_like = run_cli("--changed-since=--output=x", cwd=tmp_path)
    assert option_like.returncode == 2 and "not a git revision" in option_like.stderr
    assert not (tmp_path / "x").exists()


def test_show_speaks_verl_and_openrlhf():
    verl = json.loads(run_cli("--show", "--format", "json", "examples/verl/run_qwen2-7b_grpo.sh").stdout)["runs"][0]
    assert (verl["prompts_per_step"], verl["responses_per_step"], verl["per_gpu_mini_batch"]) == (1024, 5120, 160)
    script = "examples/openrlhf/train_grpo_ray_hybrid_engine.sh"
    orl = json.loads(run_cli("--show", "--format", "json", script).stdout)["runs"][0]
    assert (orl["samples_per_rollout"], orl["optimizer_steps_per_rollout"]) == (1024, 8)
    text = run_cli("--show", "examples/verl/run_qwen2-7b_grpo.sh").stdout
    assert "responses per step   5120" in text and "per-device batch" not in text  # no TRL rows of None


def test_show_of_a_verl_run_never_shows_a_default_it_does_not_know(tmp_path):
    """Overrides built at run time (`${OVERRIDES}` holds a `$(...)`): the group size, sampling and GPUs are not known,
    and a trainer of the entry's own shows no batch arithmetic, never TRL's rows."""
    base = "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=4 {more}\n"
    (tmp_path / "run.sh").write_text(base.format(more=""))
    text = run_cli("--isolated", "--target", "verl==0.6.1", "--show", "run.sh", cwd=tmp_path).stdout
    assert "group size           4  [actor_rollout_ref.rollout.n" in text
    (tmp_path / "run.sh").write_text("OVERRIDES=$(python3 make_overrides.py)\n" + base.format(more="$OVERRIDES"))
    text = run_cli("--isolated", "--target", "verl==0.6.1", "--show", "run.sh", cwd=tmp_path).stdout
    assert "group size           4" in text  # written: known
    assert "temperature        not known before launch" in text and "GPUs                 not known" in text
    (tmp_path / "run.sh").write_text(base.replace("verl.trainer.main_ppo", "recipe.dapo.main_dapo").format(more=""))
    text = run_cli("--isolated", "--target", "verl==0.6.1", "--show", "run.sh", cwd=tmp_path).stdout
    assert "batch arithmetic" in text and "per-device batch" not in text


def test_show_settings_says_where_each_setting_came_from(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.grpo-lint]\ntarget = ["trl==0.19.1"]\nignore = ["GRPO205"]\nfail-on = "warning"\n'
    )
    done = run_cli("--show-settings", "--world-size", "4", "--fail-on", "error", cwd=tmp_path)
    assert done.returncode == 0
    rows = {line.split("  ")[0].strip(): line for line in done.stdout.splitlines()}
    assert rows["settings file"].endswith("[nearest to the current directory]")
    assert "0.19.1" in rows["target trl"] and rows["target trl"].endswith("pyproject.toml]")
    assert "GRPO205" in rows["ignore"] and rows["ignore"].endswith("pyproject.toml]")
    assert " 4  [--world-size]" in rows["world-size"]
    assert " error  [--fail-on]" in rows["fail-on"]  # the flag beats the file
    assert rows["select"].endswith("all rules  [default]")
    data = json.loads(run_cli("--show-settings", "--isolated", "--format", "json", cwd=tmp_path).stdout)
    by_name = {row["setting"]: row for row in data}
    assert by_name["settings file"] == {"setting": "settings file", "value": "none", "from": "--isolated"}
    assert by_name["ignore"]["value"] == [] and by_name["ignore"]["from"] == "default"
    both = run_cli("--show-settings", "--statistics", ".", cwd=tmp_path)
    assert both.returncode == 2 and "cannot be combined" in both.stderr
