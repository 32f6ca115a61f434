"""--fix, --unsafe-fixes and --fix --diff: what is changed, what is kept, and what is never touched."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from grpo_lint.diagnostics import Diagnostic, Severity
from grpo_lint.fixing import fix
from grpo_lint.results import FileResult, Report
from grpo_lint.sources.reading import read_file

from .conftest import lint, run_cli

TRL = ("--target", "trl==1.16.0")

# Every safe fix in one file, beside comments, blank lines and odd spacing that must survive.
YAML = """\
# GRPO run, see docs/run.md
num_generation:   8    # the group
temperature: 2         # sampling

scale_rewards: "true"
per_device_train_batch_size: 4
num_processes: 2
"""
YAML_FIXED = """\
# GRPO run, see docs/run.md
num_generations:   8    # the group
temperature: 2.0         # sampling

scale_rewards: "group"
per_device_train_batch_size: 4
num_processes: 2
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_safe_fixes_edit_only_their_spans(tmp_path):
    path = write(tmp_path, "grpo.yaml", YAML)
    before = run_cli("grpo.yaml", *TRL, cwd=tmp_path)
    assert before.returncode == 1
    assert before.stdout.count("] [*] ") == 3 and "\n[*] 3 fixable with --fix.\n" in before.stdout
    done = run_cli("grpo.yaml", "--fix", *TRL, cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    assert path.read_text() == YAML_FIXED
    assert "Fixed 3 diagnostics in 1 file." in done.stdout and "All checks passed" in done.stdout
    again = run_cli("grpo.yaml", "--fix", *TRL, cwd=tmp_path)
    assert again.returncode == 0 and "Fixed" not in again.stdout and path.read_text() == YAML_FIXED


@pytest.mark.parametrize(
    ("name", "text", "fixed"),
    [
        (
            "c.json",
            '{"num_generation": 8, "temperature": 2, "per_device_train_batch_size": 4, "num_processes": 2}\n',
            '{"num_generations": 8, "temperature": 2.0, "per_device_train_batch_size": 4, "num_processes": 2}\n',
        ),
        (
            "train.py",
            "from trl import GRPOConfig\nargs = GRPOConfig(num_generation=8, temperature=2, scale_rewards='false')\n",
            "from trl import GRPOConfig\nargs = GRPOConfig(num_generations=8, temperature=2.0, scale_rewards='none')\n",
        ),
        (
            "run.sh",
            "accelerate launch --num_processes 2 -m trl.scripts.grpo --num_generation 8 \\\n"
            "    --per_device_train_batch_size=4 --scale_rewards true\n",
            "accelerate launch --num_processes 2 -m trl.scripts.grpo --num_generations 8 \\\n"
            "    --per_device_train_batch_size=4 --scale_rewards group\n",
        ),
        (
            "verl.sh",
            "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo +data.train_batch_size=16 \\\n"
            "  actor_rollout_ref.rollout.n=4 actor_rollout_ref.rollout.temprature=1.0\n",
            "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_batch_size=16 \\\n"
            "  actor_rollout_ref.rollout.n=4 actor_rollout_ref.rollout.temperature=1.0\n",
        ),
    ],
)
def test_each_format_is_fixed_as_it_is_written(tmp_path, name, text, fixed):
    path = write(tmp_path, name, text)
    run_cli(name, "--fix", "--world-size", "2", *TRL, cwd=tmp_path)
    assert path.read_text() == fixed


def test_renamed_keys_and_flags_of_the_target_version(tmp_path):
    trl = write(tmp_path, "trl.yaml", "num_generations: 8\nvllm_max_model_len: 2048\nuse_liger_loss: true\n")
    run_cli("trl.yaml", "--fix", "--world-size", "8", *TRL, cwd=tmp_path)
    assert trl.read_text() == "num_generations: 8\nvllm_max_model_length: 2048\nuse_liger_kernel: true\n"
    # A replacement whose values mean something else is never a rename: vllm_device -> vllm_mode.
    swift = write(
        tmp_path, "swift.yaml", "rlhf_type: grpo\nnum_generations: 8\ntensor_parallel_size: 2\nvllm_device: auto\n"
    )
    done = run_cli("swift.yaml", "--fix", "--world-size", "8", "--target", "swift==3.10.0", cwd=tmp_path)
    assert swift.read_text() == "rlhf_type: grpo\nnum_generations: 8\nvllm_tensor_parallel_size: 2\nvllm_device: auto\n"
    assert done.returncode == 1 and "vllm_device" in done.stdout
    # A successor that arrives after the target release is no rename there: TRL 0.18.0 removed
    # vllm_max_model_len, and vllm_max_model_length only came in 0.26.0.
    early = write(tmp_path, "early.yaml", "num_generations: 8\nvllm_max_model_len: 2048\n")
    done = run_cli("early.yaml", "--fix", "--world-size", "8", "--target", "trl==0.18.0", cwd=tmp_path)
    assert early.read_text() == "num_generations: 8\nvllm_max_model_len: 2048\n"
    assert "its successor `vllm_max_model_length` only arrives in TRL 0.26.0" in done.stdout
    assert "upgrade to TRL >= 0.26.0 and set `vllm_max_model_length`" in done.stdout
    # OpenRLHF 0.10.1 flags rewritten for 0.11.2 in one fix.
    script = write(
        tmp_path,
        "ppo.sh",
        "ray job submit -- python3 -m openrlhf.cli.train_ppo_ray --n_samples_per_prompt 8 "
        "--advantage_estimator group_norm --rollout_batch_size 16 --train_batch_size 64\n",
    )
    run_cli("ppo.sh", "--fix", "--target", "openrlhf==0.11.2", cwd=tmp_path)
    assert script.read_text() == (
        "ray job submit -- python3 -m openrlhf.cli.train_ppo_ray --rollout.n_samples_per_prompt 8 "
        "--algo.advantage.estimator group_norm --rollout.batch_size 16 --train.batch_size 64\n"
    )


def test_no_fix_when_the_suggestion_is_not_the_only_one(tmp_path):
    # per_device_batch_size is as close to the train as to the eval batch size: which one was meant?
    text = "num_generations: 8\nper_device_batch_size: 4\n"
    [typo] = [d for d in lint(text) if d.code == "GRPO002"]
    assert typo.fixes == ()
    # Nor when the suggested key is already set (the rename would write it twice).
    [typo] = [d for d in lint("num_generation: 8\nnum_generations: 8\n") if d.code == "GRPO002"]
    assert typo.fixes == ()
    # Nor when the value as written is not of the suggested field's kind: `dataset_configs: [train]` renamed would
    # be `dataset_config` (a string) given a list.
    [typo] = [d for d in lint("num_generations: 8\ndataset_configs:\n- train\n") if d.code == "GRPO002"]
    assert typo.fixes == () and "did you mean `dataset_config`" in typo.message
    [typo] = [d for d in lint("num_generations: 8\ndataset_configs: train\n") if d.code == "GRPO002"]
    [(edit,)] = [f.edits for f in typo.fixes]
    assert (edit.old, edit.new) == ("dataset_configs", "dataset_config")


def test_diff_writes_nothing_and_applies_with_git(tmp_path):
    path = write(tmp_path, "grpo.yaml", YAML)
    done = run_cli("grpo.yaml", "--fix", "--diff", *TRL, cwd=tmp_path)
    assert done.returncode == 1  # a file would change
    assert path.read_text() == YAML
    assert done.stdout.startswith("--- a/grpo.yaml\n+++ b/grpo.yaml\n")
    assert "\n-temperature: 2         # sampling\n" in done.stdout
    assert "\n+temperature: 2.0         # sampling\n" in done.stdout
    assert "Would fix 3 diagnostics in 1 file; 0 would remain." in done.stderr
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply"], cwd=tmp_path, input=done.stdout, text=True, check=True)
    assert path.read_text() == YAML_FIXED
    clean = run_cli("grpo.yaml", "--fix", "--diff", *TRL, cwd=tmp_path)
    assert clean.returncode == 0 and clean.stdout == ""


def test_unsafe_fixes_make_every_group_whole(tmp_path):
    text = "num_generations: 8\nper_device_train_batch_size: 3\nnum_processes: 2\n"
    path = write(tmp_path, "grpo.yaml", text)
    safe = run_cli("grpo.yaml", "--fix", *TRL, cwd=tmp_path)
    assert safe.returncode == 1 and path.read_text() == text  # a batch change is never made unasked
    assert "1 more with --fix --unsafe-fixes" in safe.stdout
    marked = run_cli("grpo.yaml", "--unsafe-fixes", *TRL, cwd=tmp_path)
    assert "error[GRPO102] [*]" in marked.stdout
    done = run_cli("grpo.yaml", "--fix", "--unsafe-fixes", *TRL, cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    assert path.read_text() == "num_generations: 8\nper_device_train_batch_size: 4\nnum_processes: 2\n"


def test_unsafe_fixes_that_depend_on_each_other_are_applied_in_turn(tmp_path):
    # Fixing the step (15 -> 16 prompts, the nearest whole split) changes what the mini batch must divide:
    # the mini-batch fix proposed for 15 (15) would leave a ragged last mini batch of 16, so it is
    # refused, proposed again for 16 and applied in the next round.
    script = (
        "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo data.train_batch_size=15 \\\n"
        "  actor_rollout_ref.rollout.n=5 actor_rollout_ref.rollout.name=vllm \\\n"
        "  actor_rollout_ref.actor.ppo_mini_batch_size=32 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \\\n"
        "  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=2 \\\n"
        "  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=2 trainer.n_gpus_per_node=4 trainer.nnodes=1\n"
    )
    path = write(tmp_path, "run.sh", script)
    assert run_cli("run.sh", "--target", "verl==0.9.1", cwd=tmp_path).returncode == 1
    done = run_cli("run.sh", "--fix", "--unsafe-fixes", "--target", "verl==0.9.1", cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    fixed = path.read_text()
    assert "data.train_batch_size=16 " in fixed and "ppo_mini_batch_size=16 " in fixed


def _lint_counter(path: Path) -> Report:
    """A stand-in linter: one GRPO102 per `bad` word, one GRPO003 per `worse`; reads through the overlay."""
    data = read_file(path)
    assert isinstance(data, bytes)
    diagnostics = []
    for number, line in enumerate(data.decode().splitlines(), 1):
        for word, code in (("bad", "GRPO102"), ("worse", "GRPO003")):
            if word in line:
                diagnostics.append(Diagnostic(code, Severity.ERROR, word, str(path)))
        if "bad" in line:
            from grpo_lint.diagnostics import Edit, Fix, Span

            column = line.index("bad") + 1
            span = Span(number, column, number, column + 3, str(path))
            harmful = Fix("worse", (Edit(span, "bad", "worse"),), "unsafe")
            good = Fix("good", (Edit(span, "bad", "good"),), "unsafe")
            diagnostics[-1] = diagnostics[-1]._replace(fixes=(harmful, good))
    return Report([FileResult(str(path), "linted", diagnostics, data.decode())])


def test_a_fix_that_makes_another_rule_fire_is_never_kept(tmp_path):
    path = write(tmp_path, "c.txt", "a: bad\n")
    fixed = fix(lambda: _lint_counter(path), unsafe=True)
    assert fixed.texts == {str(path): "a: good\n"}  # the first alternative, "worse", was tried and refused
    assert [f.title for _, f in fixed.fixes] == ["good"] and fixed.report.diagnostics == []
    assert path.read_text() == "a: bad\n"  # nothing is written before Fixed.write()
    assert fix(lambda: _lint_counter(path), unsafe=False).texts == {}  # unsafe fixes need --unsafe-fixes


def test_byte_order_mark_and_crlf_survive(tmp_path):
    path = tmp_path / "grpo.yaml"
    path.write_bytes("\ufeffnum_generations: 8\r\ntemperature: 2\r\nper_device_train_batch_size: 4\r\n".encode())
    run_cli("grpo.yaml", "--fix", "--world-size", "2", *TRL, cwd=tmp_path)
    assert (
        path.read_bytes()
        == "\ufeffnum_generations: 8\r\ntemperature: 2.0\r\nper_device_train_batch_size: 4\r\n".encode()
    )


def test_a_config_named_by_a_script_is_fixed_in_its_own_file(tmp_path):
    (tmp_path / "configs").mkdir()
    config = write(tmp_path, "configs/grpo.yaml", "num_generation: 8\nper_device_train_batch_size: 4\n")
    script = "accelerate launch --num_processes 2 -m trl.scripts.grpo --config configs/grpo.yaml\n"
    write(tmp_path, "train.sh", script)
    done = run_cli(".", "--fix", *TRL, cwd=tmp_path)
    assert config.read_text() == "num_generations: 8\nper_device_train_batch_size: 4\n", done.stdout
    assert (tmp_path / "train.sh").read_text() == script


def test_json_and_sarif_describe_the_fix(tmp_path):
    write(tmp_path, "grpo.yaml", "num_generation: 8\nper_device_train_batch_size: 3\nnum_processes: 2\n")
    data = json.loads(run_cli("grpo.yaml", "--format", "json", *TRL, cwd=tmp_path).stdout)
    by_code = {d["code"]: d for d in data["diagnostics"]}
    rename = by_code["GRPO002"]["fix"]
    assert rename["applicability"] == "safe" and rename["applied_by_fix"] is True
    assert rename["edits"] == [
        {"path": "grpo.yaml", "line": 1, "column": 1, "end_line": 1, "end_column": 15, "content": "num_generations"}
    ]
    batch = by_code["GRPO102"]["fix"]
    assert batch["applicability"] == "unsafe" and batch["applied_by_fix"] is False
    assert batch["edits"][0]["content"] == "4" and batch["message"].startswith("num_generations")
    assert data["summary"]["fixable"] == 1 and data["summary"]["fixable_unsafe"] == 1
    sarif = json.loads(run_cli("grpo.yaml", "--format", "sarif", *TRL, cwd=tmp_path).stdout)
    [result] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "GRPO002"]
    [change] = result["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"] == {"uri": "grpo.yaml", "uriBaseId": "%SRCROOT%"}
    assert change["replacements"][0]["insertedContent"] == {"text": "num_generations"}


def test_fix_usage_errors(tmp_path):
    write(tmp_path, "grpo.yaml", "num_generations: 8\n")
    for args in (
        ("--fix", "-"),
        ("--diff", "grpo.yaml"),
        ("--fix", "--show", "grpo.yaml"),
        ("--fix", "--diff", "--format", "json", "grpo.yaml"),
    ):
        done = run_cli(*args, cwd=tmp_path, stdin="num_generations: 8\n")
        assert done.returncode == 2 and "Error" in done.stderr, args


def test_a_file_replaced_before_writing_is_not_written(tmp_path):
    path = write(tmp_path, "c.txt", "a: bad\n")
    fixed = fix(lambda: _lint_counter(path), unsafe=True)
    path.unlink()
    path.mkdir()  # no longer a regular file: never opened for writing
    assert fixed.write() == [str(path)]


def test_a_file_that_cannot_be_written_exits_2(tmp_path):
    if shutil.which("id") and subprocess.run(["id", "-u"], capture_output=True, text=True).stdout.strip() == "0":
        pytest.skip("root writes read-only files")
    path = write(tmp_path, "grpo.yaml", YAML)
    path.chmod(0o444)
    try:
        done = run_cli("grpo.yaml", "--fix", *TRL, cwd=tmp_path)
    finally:
        path.chmod(0o644)
    assert done.returncode == 2 and "could not write grpo.yaml" in done.stderr
    assert path.read_text() == YAML
