"""The command as a user runs it: a subprocess, its output and its exit code."""

from __future__ import annotations

import json

from .conftest import ROOT, clean_env, lint, run_cli

GOOD = "num_processes: 4\nper_device_train_batch_size: 8\nnum_generations: 8\n"
BAD = "num_processes: 4\nper_device_train_batch_size: 6\nnum_generations: 16\n"
ENV = clean_env()  # not the CI's environment: GITHUB_ACTIONS would change the output format


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_clean_config_exits_0(tmp_path):
    result = run_cli(write(tmp_path, "good.yaml", GOOD), "--target", "trl==1.16.0")
    assert result.returncode == 0, result.stdout
    assert "All checks passed" in result.stdout


def test_broken_groups_exit_1_with_position_and_fix(tmp_path):
    path = write(tmp_path, "bad.yaml", BAD)
    result = run_cli(path, "--target", "trl==1.16.0", env=ENV)
    assert result.returncode == 1
    assert f"{path}:3:1: error[GRPO102] generation batch 24 (6 per device x 4 processes x 1 gradient" in result.stdout
    assert "  3 | num_generations: 16" in result.stdout
    assert "fix: num_generations 4, 6, 8, 12 or 24; or run on 8, 16 or 24 processes" in result.stdout
    assert "\x1b[" not in result.stdout  # piped: no colour


def test_json_format(tmp_path):
    path = write(tmp_path, "bad.yaml", BAD)
    result = run_cli(path, "--target", "trl==1.16.0", "--format", "json")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    (diagnostic,) = data["diagnostics"]
    assert diagnostic["code"] == "GRPO102" and diagnostic["severity"] == "error"
    assert (diagnostic["line"], diagnostic["column"], diagnostic["key"]) == (3, 1, "num_generations")
    assert diagnostic["end_line"] == 3 and diagnostic["end_column"] == 16
    assert diagnostic["fix"]["message"].startswith("num_generations 4, 6, 8, 12 or 24")
    assert data["summary"]["errors"] == 1 and data["summary"]["files_checked"] == 1


def test_usage_errors_exit_2(tmp_path):
    path = write(tmp_path, "good.yaml", GOOD)
    assert run_cli().returncode == 2
    bad_target = run_cli(path, "--target", "trl=0.19")
    assert bad_target.returncode == 2 and "FRAMEWORK==VERSION" in bad_target.stderr
    assert run_cli(path, "--target", "trl==0.10.0").returncode == 2
    assert run_cli(path, "--world-size", "0").returncode == 2
    assert run_cli(path, "--select", "E501").returncode == 2
    assert "Traceback" not in bad_target.stderr


def test_select_ignore_and_fail_on(tmp_path):
    path = write(tmp_path, "c.yaml", BAD + "temperature: 0.1\n")
    assert run_cli(path, "--target", "trl==1.16.0", "--ignore", "GRPO102").returncode == 0
    assert run_cli(path, "--target", "trl==1.16.0", "--ignore", "GRPO102", "--fail-on", "warning").returncode == 1
    only = run_cli(path, "--target", "trl==1.16.0", "--select", "GRPO2", "--format", "json")
    assert {d["code"] for d in json.loads(only.stdout)["diagnostics"]} == {"GRPO205"}


def test_world_size_flag_overrides_the_file(tmp_path):
    path = write(tmp_path, "c.yaml", BAD)
    assert run_cli(path, "--target", "trl==1.16.0", "--world-size", "8").returncode == 0


def test_bad_inputs_are_diagnostics_not_tracebacks(tmp_path):
    binary = tmp_path / "model.json"
    binary.write_bytes(b"\x00\x01\x02binary")
    broken = write(tmp_path, "broken.yaml", "num_generations: 8\nreward_funcs: [a\n")
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("num_generations: 8 # caf\xe9\n".encode("latin-1"))
    directory = tmp_path / "configs.yaml"
    directory.mkdir()
    listing = write(tmp_path, "list.yaml", "- a\n- b\n")
    missing = str(tmp_path / "missing.yaml")
    result = run_cli(str(binary), broken, str(latin), listing, missing, "--format", "json")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    found = {(d["path"], d["code"], d["line"]) for d in json.loads(result.stdout)["diagnostics"]}
    assert (str(binary), "GRPO001", 1) in found
    assert (broken, "GRPO001", 3) in found
    assert (str(latin), "GRPO001", 1) in found
    assert (listing, "GRPO001", 1) in found
    assert (missing, "GRPO001", 1) in found
    # A directory is walked, even one whose name ends in .yaml.
    assert run_cli(str(directory)).returncode == 0


def test_directories_skip_files_that_are_not_grpo_configs(tmp_path):
    (tmp_path / "sub").mkdir()
    write(tmp_path, "sub/workflow.yml", "on: push\njobs: {}\n")
    write(tmp_path, "package.json", '{"name": "x"}')
    write(tmp_path, "list.yaml", "- 1\n")
    write(tmp_path, "accelerate.yaml", "distributed_type: MULTI_GPU\nnum_processes: 8\n")
    write(tmp_path, "sub/bad.yaml", BAD)
    result = run_cli(str(tmp_path), "--target", "trl==1.16.0", "--format", "json")
    data = json.loads(result.stdout)
    assert result.returncode == 1
    assert {d["code"] for d in data["diagnostics"]} == {"GRPO102"}
    assert data["summary"]["files_checked"] == 1 and data["summary"]["files_skipped"] == 4


def test_examples_directory_lints_as_documented():
    good = run_cli(str(ROOT / "examples" / "trl" / "grpo_qwen_8gpu.yaml"))
    assert good.returncode == 0, good.stdout
    bad = run_cli(str(ROOT / "examples" / "trl" / "broken_groups.yaml"), "--format", "json")
    assert bad.returncode == 1
    assert {d["code"] for d in json.loads(bad.stdout)["diagnostics"]} >= {"GRPO102", "GRPO201"}


def test_color_when_forced(tmp_path):
    result = run_cli(write(tmp_path, "bad.yaml", BAD), "--color", "always")
    assert "\x1b[" in result.stdout


def test_version_and_help():
    assert run_cli("--version").stdout.startswith("grpo-lint 0.1.0 (knows TRL 0.14.0-1.16.0, ms-swift")
    assert "--world-size" in run_cli("--help").stdout


WANDB_RECORD = """wandb_version: 1

_wandb:
  desc: null
  value:
    cli_version: 0.16.6
num_generations:
  desc: null
  value: 8
per_device_train_batch_size:
  desc: null
  value: 8
temperature:
  desc: null
  value: {temperature}
vocab_size:
  value: 151936
"""


def test_wandb_run_config_values_are_unwrapped():
    # A W&B run's config.yaml wraps each value as {desc, value}: the value is judged under its key.
    found = lint(WANDB_RECORD.format(temperature="0.0"))
    assert [(d.code, d.span.line) for d in found] == [("GRPO201", 13)]
    # The record also lists the model's config (vocab_size): no unknown-key reports for a record.
    assert lint(WANDB_RECORD.format(temperature="0.9")) == []
    # Without the W&B markers the same mapping is a config with a wrong type, as before.
    plain = WANDB_RECORD.split("num_generations:", 1)[1]
    assert "GRPO003" in {d.code for d in lint("num_generations:" + plain.format(temperature="0.0"))}


def test_swift_json_config_numbers_written_as_text_before_4_1():
    # ms-swift 3.x-4.0 read a positional JSON config with parse_json_file, which keeps "8" a string.
    text = '{"rlhf_type": "grpo", "num_generations": "8", "per_device_train_batch_size": 8}\n'
    old = [d for d in lint(text, "--target swift==3.8.0 --world-size 8", "c.json") if d.code == "GRPO003"]
    assert len(old) == 1 and "parse_json_file" in old[0].message and old[0].fix == '"num_generations": 8'
    # 4.1+ turns the file into command-line text, which argparse converts.
    assert [d.code for d in lint(text, "--target swift==4.6.0 --world-size 8", "c.json")] == []


def test_a_json_number_with_an_exponent_is_a_number_and_swifts_own_record_is_not_judged_by_type():
    # YAML 1.1 reads 1e-06 (an exponent without a dot or sign) as text; JSON, and so the framework, as a number.
    text = '{"rlhf_type": "grpo", "learning_rate": 1e-06, "adam_epsilon": 1E-8, "per_device_train_batch_size": 8}\n'
    assert [d.code for d in lint(text, "--target swift==3.8.0 --world-size 8", "c.json")] == []
    quoted = text.replace("1e-06", '"1e-06"')
    assert [d.code for d in lint(quoted, "--target swift==3.8.0 --world-size 8", "c.json")] == ["GRPO003"]
    # args.json, written by ms-swift after its __post_init__ (`init_weights: 'true'` became true): its own record
    record = '{"rlhf_type": "grpo", "init_weights": true, "num_generations": 8, "per_device_train_batch_size": 8}\n'
    assert [d.code for d in lint(record, "--target swift==3.8.0 --world-size 8", "run/args.json")] == []
    assert [d.code for d in lint(record, "--target swift==3.8.0 --world-size 8", "mine.json")] == ["GRPO003"]


def test_conventions_users_expect(tmp_path):
    (tmp_path / "bad.yaml").write_text("num_generations: 3\nper_device_train_batch_size: 4\ntemperature: 0\n")
    base = ("--target", "trl==1.16.0", "--world-size", "2")
    concise = run_cli("bad.yaml", "--output-format", "concise", *base, cwd=tmp_path)
    lines = concise.stdout.splitlines()
    assert concise.returncode == 1 and lines[0].startswith("bad.yaml:1:1: error[GRPO102] ") and len(lines) == 4
    assert lines[-1] == "1 more with --fix --unsafe-fixes (they change what the run does)."
    # Rule names wherever codes go; --exit-zero keeps findings from failing the step.
    named = run_cli("bad.yaml", "--format", "concise", "--select", "greedy-temperature", *base, cwd=tmp_path)
    assert [line.split()[1] for line in named.stdout.splitlines()[:-1]] == ["error[GRPO201]"]
    assert run_cli("bad.yaml", "--exit-zero", *base, cwd=tmp_path).returncode == 0
    assert run_cli("--explain", "partial-groups").stdout.startswith("# GRPO102 partial-groups")
    # Flags that do not apply together are a usage error, not silently ignored.
    for args in (("--list-rules", "--format", "sarif"), ("--statistics", "--show", "bad.yaml")):
        done = run_cli(*args, cwd=tmp_path)
        assert done.returncode == 2 and "Error:" in done.stderr


def test_colour_follows_the_environment(monkeypatch):
    from grpo_lint.cli import _use_color

    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert _use_color("auto", None) is True  # FORCE_COLOR wins, even over NO_COLOR
    monkeypatch.setenv("NO_COLOR", "1")
    assert _use_color("auto", None) is True and _use_color("never", None) is False
    monkeypatch.delenv("FORCE_COLOR")
    assert _use_color("auto", None) is False and _use_color("always", None) is True
    monkeypatch.setenv("NO_COLOR", "")  # set but empty counts for nothing; pytest's stdout is no terminal
    monkeypatch.setenv("TERM", "dumb")
    assert _use_color("auto", None) is False


def test_verbose_says_why_a_python_file_was_not_parsed_or_found_nothing(tmp_path):
    (tmp_path / "README.md").write_text("a project\n")
    (tmp_path / "plot.py").write_text("print('a plot')\n")
    (tmp_path / "single.py").write_text("import torch\ntorch.manual_seed(1)\n")
    (tmp_path / "train.py").write_text("import os, torch\ntorch.manual_seed(1 + int(os.environ['RANK']))\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_data.py").write_text("import torch.distributed\ntorch.manual_seed(0)\n")
    done = run_cli("--verbose", "--isolated", ".", cwd=tmp_path)
    assert done.returncode == 0
    assert "plot.py: skipped: not parsed: it names nothing GRPO, no sampler and no seed" in done.stdout
    assert "single.py: skipped: not parsed: its seeds run in one process outside any trainer" in done.stdout
    assert "test_data.py: skipped: not parsed: a test file that names nothing GRPO" in done.stdout
    assert "train.py: skipped: no GRPOConfig call and no seeding problem" in done.stdout  # parsed, nothing found
