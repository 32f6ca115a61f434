"""verl (Hydra overrides and YAML) and OpenRLHF (train_ppo_ray flags): reading, versions and rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grpo_lint.diagnostics import Severity
from grpo_lint.engine import lint_text
from grpo_lint.sources.hydra_overrides import parse_value
from grpo_lint.versions import TargetError, parse_target

from .conftest import ROOT, lint, options_from, run_cli

VERL = "--target verl==0.9.1"
OLD_VERL = "--target verl==0.7.0"
ORL = "--target openrlhf==0.11.2"
FLAT_ORL = "--target openrlhf==0.10.1"

BASE = {
    "algorithm.adv_estimator": "grpo",
    "data.train_batch_size": "256",
    "actor_rollout_ref.actor.ppo_mini_batch_size": "64",
    "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu": "16",
    "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu": "32",
    "actor_rollout_ref.rollout.name": "vllm",
    "actor_rollout_ref.rollout.n": "8",
    "trainer.n_gpus_per_node": "8",
    "trainer.nnodes": "1",
}


def verl(*extra: str, drop: tuple[str, ...] = (), prelude: str = "", **changes: str) -> str:
    values = {k: changes.get(k.replace(".", "__"), v) for k, v in BASE.items() if k not in drop}
    lines = [f"{k}={v}" for k, v in values.items()] + list(extra)
    return prelude + "python3 -m verl.trainer.main_ppo \\\n" + " \\\n".join(f"    {line}" for line in lines) + "\n"


def verl_codes(script: str, args: str = VERL) -> list[str]:
    return sorted(d.code for d in lint(script, args, "launch.sh"))


ORL_BASE = {
    "--actor.num_nodes": "1",
    "--actor.num_gpus_per_node": "8",
    "--vllm.num_engines": "4",
    "--vllm.tensor_parallel_size": "2",
    "--train.colocate_all": "",
    "--algo.kl.init_coef": "1e-3",
    "--algo.advantage.estimator": "group_norm",
    "--rollout.n_samples_per_prompt": "8",
    "--rollout.batch_size": "128",
    "--rollout.micro_batch_size": "16",
    "--train.batch_size": "128",
    "--train.micro_batch_size": "8",
    "--reward.remote_url": "http://localhost:5000/get_reward",
}


def openrlhf(changes: dict[str, str] | None = None, drop: tuple[str, ...] = (), flat: bool = False) -> str:
    values = {**ORL_BASE, **(changes or {})}
    lines = [f"{k} {v}".rstrip() for k, v in values.items() if k not in drop]
    if flat:
        renames = {
            "--actor.num_nodes": "--actor_num_nodes", "--actor.num_gpus_per_node": "--actor_num_gpus_per_node",
            "--vllm.num_engines": "--vllm_num_engines", "--vllm.tensor_parallel_size": "--vllm_tensor_parallel_size",
            "--train.colocate_all": "--colocate_all_models", "--algo.kl.init_coef": "--init_kl_coef",
            "--algo.advantage.estimator": "--advantage_estimator",
            "--rollout.n_samples_per_prompt": "--n_samples_per_prompt", "--rollout.batch_size": "--rollout_batch_size",
            "--rollout.micro_batch_size": "--micro_rollout_batch_size", "--train.batch_size": "--train_batch_size",
            "--train.micro_batch_size": "--micro_train_batch_size", "--reward.remote_url": "--remote_rm_url",
        }  # fmt: skip
        lines = [
            " ".join([renames.get(line.split(" ")[0], line.split(" ")[0]), *line.split(" ")[1:]]) for line in lines
        ]
    return "python3 -m openrlhf.cli.train_ppo_ray \\\n" + " \\\n".join(f"   {line}" for line in lines) + "\n"


def orl_codes(script: str, args: str = ORL) -> list[str]:
    return sorted(d.code for d in lint(script, args, "launch.sh"))


# Reading --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("1024", 1024), ("1e-6", 1e-6), ("0.5", 0.5), ("True", True), ("false", False), ("null", None),
     ('["console","wandb"]', ["console", "wandb"]), ("vllm", "vllm"), ("'error'", "error"), ("-1", -1)],
)  # fmt: skip
def test_hydra_values_parse_like_hydra(text, value):
    assert parse_value(text) == value


def test_the_base_command_is_clean():
    assert verl_codes(verl()) == []
    assert verl_codes(verl(), OLD_VERL) == []


def test_unknown_override_is_an_error_with_the_closest_key():
    (diagnostic,) = lint(verl("actor_rollout_ref.rollout.temprature=0.7"), VERL, "launch.sh")
    assert diagnostic.code == "GRPO002" and diagnostic.severity.name == "ERROR"
    assert "actor_rollout_ref.rollout.temperature" in diagnostic.message
    assert "Could not override 'actor_rollout_ref.rollout.temprature'" in diagnostic.message
    assert diagnostic.fix == "`actor_rollout_ref.rollout.temperature=0.7`"
    assert (diagnostic.span.line, diagnostic.span.column) == (11, 5)


def test_a_key_in_the_wrong_section_is_suggested_in_the_right_one():
    (diagnostic,) = lint(verl("actor_rollout_ref.actor.temperature=0.7"), VERL, "launch.sh")
    assert "did you mean `actor_rollout_ref.rollout.temperature`" in diagnostic.message


def test_plus_adds_a_key_and_fails_only_on_an_existing_one():
    assert verl_codes(verl("+actor_rollout_ref.rollout.my_extra=1")) == []
    assert verl_codes(verl("++actor_rollout_ref.rollout.temperature=0.9")) == []
    assert verl_codes(verl("+actor_rollout_ref.rollout.temperature=0.9")) == ["GRPO009"]
    # Hydra appends over a null default.
    assert verl_codes(verl("+data.seed=1")) == []


def test_each_override_is_applied_in_turn_so_a_later_one_of_the_same_key_hides_no_failed_append():
    # (hydra-core 1.3.8: `+a=1 a=2` and `a=2 +a=1` fail when `a` has a value; `+a=1 a=2` over a null composes, and
    # `a=1 +a=2` fails there too, since the first override gave it a value)
    existing = "actor_rollout_ref.rollout.temperature"
    assert verl_codes(verl(f"+{existing}=0.9", f"{existing}=0.8")) == ["GRPO009"]
    assert verl_codes(verl(f"{existing}=0.8", f"+{existing}=0.9")) == ["GRPO009"]
    assert verl_codes(verl("+data.seed=1", "data.seed=2")) == []
    assert verl_codes(verl("data.seed=1", "+data.seed=2")) == ["GRPO009"]


def test_keys_follow_the_targeted_release():
    script = verl("trainer.use_legacy_worker_impl=disable")
    assert verl_codes(script, OLD_VERL) == []
    assert verl_codes(script, VERL) == ["GRPO004"]


def test_target_parses_verl_and_openrlhf():
    assert str(parse_target("verl==0.7.0")) == "verl 0.7.0"
    assert str(parse_target("openrlhf==0.10.1")) == "OpenRLHF 0.10.1"
    with pytest.raises(TargetError, match=r"from 0\.4\.0"):
        parse_target("verl==0.3.0")


def test_values_from_script_variables_and_unknown_ones():
    script = verl(prelude="N=1\n", actor_rollout_ref__rollout__n="$N")
    assert verl_codes(script) == ["GRPO101"]
    unknown = lint(verl(actor_rollout_ref__rollout__n="$1"), VERL, "launch.sh")
    assert [d.code for d in unknown] == ["GRPO507"]
    # An unknown value of a key no check reads is not worth a word; `$@` adds nothing.
    assert verl_codes(verl("data.train_files=$HOME/x.parquet", '"$@"')) == []


def test_a_bash_array_of_overrides_makes_missing_keys_unknowable():
    script = verl(
        "${EXTRA[@]}",
        drop=("actor_rollout_ref.rollout.name", "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu"),
    )
    assert verl_codes(script) == []
    assert verl_codes(script.replace(" \\\n    ${EXTRA[@]}", "")) == ["GRPO010", "GRPO111"]


def test_ray_job_submit_is_unwrapped():
    script = "ray job submit --address=http://x:8265 --runtime-env-json='{}' -- " + verl(
        actor_rollout_ref__rollout__n="1"
    )
    assert verl_codes(script) == ["GRPO101"]


def test_world_size_comes_from_the_trainer_keys():
    found = {d.code: d for d in lint(verl(trainer__n_gpus_per_node="3"), VERL, "launch.sh")}
    assert sorted(found) == ["GRPO108", "GRPO110", "GRPO402"]
    assert "infer_world_size: 2" in found["GRPO402"].message and "3 GPUs" in found["GRPO402"].message
    assert "minimal possible batch size (3)" in found["GRPO108"].message
    two_nodes = verl(trainer__n_gpus_per_node="3", trainer__nnodes="2")
    assert verl_codes(two_nodes) == ["GRPO108", "GRPO110"]  # 6 GPUs: 2048 and 512 responses do not split


def test_yaml_config_is_flattened_and_typos_are_warnings():
    text = (ROOT / "examples" / "verl" / "grpo_gsm8k.yaml").read_text()
    assert lint(text, VERL, "grpo.yaml") == []
    broken = text.replace("    temperature: 1.0", "    temprature: 1.0").replace("n: 8", "n: 1")
    found = {(d.code, d.severity.name, d.span.line) for d in lint(broken, VERL, "grpo.yaml")}
    assert found == {("GRPO002", "WARNING", 28), ("GRPO101", "WARNING", 27)}


def test_named_config_file_is_the_base_of_the_overrides(tmp_path):
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "mine.yaml").write_text(
        "defaults:\n  - ppo_trainer\n  - _self_\nmy_section:\n  flag: 1\nactor_rollout_ref:\n  rollout:\n    n: 1\n"
    )
    script = tmp_path / "run.sh"
    script.write_text(
        verl("my_section.flag=2", drop=("actor_rollout_ref.rollout.n",)).replace(
            "main_ppo \\", f"main_ppo --config-path={tmp_path / 'cfg'} --config-name=mine \\"
        )
    )
    result = run_cli(str(script), "--target", "verl==0.9.1", "--format", "json")
    found = json.loads(result.stdout)["diagnostics"]
    assert [(d["code"], d["path"].endswith("mine.yaml"), d["line"]) for d in found] == [("GRPO101", True, 8)]


# verl's batch rules across releases ----------------------------------------------------------


def test_per_gpu_mini_batch_legacy_workers_and_engine_workers():
    # 64 x 5 = 320 over 8 ranks = 40 per rank: micro 16 does not divide 40 (verl <= 0.7 asserts it).
    script = verl(actor_rollout_ref__rollout__n="5", data__train_batch_size="128")
    assert verl_codes(script, OLD_VERL) == ["GRPO110"]
    # GPUs per node not known before launch (`$SKYPILOT_NUM_GPUS_PER_NODE`): the ranks are not verl's default 8
    unknown = verl(actor_rollout_ref__rollout__n="5", data__train_batch_size="128", trainer__n_gpus_per_node="$GPUS")
    assert verl_codes(unknown, OLD_VERL) == ["GRPO507"]
    # the group size not known before launch (a bash array's element): verl's default n=1 is not the run's
    group = verl(
        actor_rollout_ref__rollout__n="$N",
        data__train_batch_size="128",
        actor_rollout_ref__actor__ppo_mini_batch_size="4",
    )
    assert verl_codes(group, OLD_VERL) == ["GRPO507"]
    assert verl_codes(group.replace("$N", "1"), OLD_VERL) == ["GRPO101", "GRPO110"]  # 4 x 1 over 8 ranks
    assert verl_codes(script, VERL) == []  # the engine workers (0.8+) only need an exact split
    # 10 x 4 = 40 over 16 ranks is not exact: an error from 0.8, a silent floor (warning) before.
    uneven = verl(
        "actor_rollout_ref.rollout.tensor_model_parallel_size=2",
        actor_rollout_ref__rollout__n="4",
        data__train_batch_size="40",
        actor_rollout_ref__actor__ppo_mini_batch_size="10",
        actor_rollout_ref__actor__ppo_micro_batch_size_per_gpu="1",
        trainer__nnodes="2",
    )
    (new,) = lint(uneven, VERL, "launch.sh")
    assert (new.code, new.severity.name) == ("GRPO110", "ERROR")
    assert "Got mini_batch_size=40 and self.engine.get_data_parallel_size()=16" in new.message
    (old,) = lint(uneven, OLD_VERL, "launch.sh")
    assert (old.code, old.severity.name) == ("GRPO110", "WARNING")


def test_train_batch_smaller_than_mini_batch_quotes_the_release():
    new = lint(verl(actor_rollout_ref__actor__ppo_mini_batch_size="512"), VERL, "launch.sh")
    assert [d.code for d in new] == ["GRPO109"]
    assert "train_batch_size (256) must be >= actor.ppo_mini_batch_size (512)" in new[0].message
    old = lint(verl(actor_rollout_ref__actor__ppo_mini_batch_size="512"), "--target verl==0.5.0", "launch.sh")
    assert "AssertionError" in old[0].message


def test_uneven_last_mini_batch_is_a_warning():
    (diagnostic,) = lint(verl(actor_rollout_ref__actor__ppo_mini_batch_size="96"), VERL, "launch.sh")
    assert (diagnostic.code, diagnostic.severity.name) == ("GRPO109", "WARNING")


def test_both_micro_batch_forms_and_ref_only_when_used():
    assert verl_codes(verl("actor_rollout_ref.actor.ppo_micro_batch_size=128")) == ["GRPO111"]
    kl = verl("actor_rollout_ref.actor.use_kl_loss=True")
    assert verl_codes(kl) == ["GRPO111"]
    assert (
        verl_codes(
            verl(
                "actor_rollout_ref.actor.use_kl_loss=True", "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=32"
            )
        )
        == []
    )
    assert (
        verl_codes(
            verl(
                "actor_rollout_ref.actor.use_dynamic_bsz=True",
                drop=("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",),
            )
        )
        == []
    )


def test_group_size_one_only_for_group_estimators():
    assert verl_codes(verl(actor_rollout_ref__rollout__n="1")) == ["GRPO101"]
    assert verl_codes(verl(actor_rollout_ref__rollout__n="1", algorithm__adv_estimator="reinforce_plus_plus")) == []
    (diagnostic,) = lint(verl(actor_rollout_ref__rollout__n="1"), VERL, "launch.sh")
    assert diagnostic.severity.name == "WARNING" and "raw score" in diagnostic.message


def test_another_trainer_with_a_group_of_one_is_left_to_its_own_grouping():
    """`verl.trainer.main_ppo_format` (Search-R1) forms groups from its own keys (rollout.n_agent): only
    the sampling rules apply, and the group rule must not fail on the missing native run."""
    text = "python3 -m verl.trainer.main_ppo_format algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n_agent=5\n"
    assert [(d.code, d.severity.name) for d in lint(text, VERL, "launch.sh")] == []
    hot = text.replace("n_agent=5", "n_agent=5 actor_rollout_ref.rollout.temperature=0")
    assert [d.code for d in lint(hot, VERL, "launch.sh")] == ["GRPO201"]


def test_greedy_sampling_without_a_group_relative_estimator_is_a_warning_unless_it_divides_by_zero():
    """PPO with a critic (gae) still has advantages when every sample is the same: greedy rollouts are a
    warning there; a temperature of 0 stays an error, since verl divides the logits by it."""

    def sampling(script: str) -> list:
        return [d for d in lint(script, VERL, "launch.sh") if d.code.startswith("GRPO2")]

    (greedy,) = sampling(verl("actor_rollout_ref.rollout.top_k=1", algorithm__adv_estimator="gae"))
    assert (greedy.code, greedy.severity.name) == ("GRPO202", "WARNING") and "explore nothing" in greedy.message
    (grouped,) = sampling(verl("actor_rollout_ref.rollout.top_k=1"))
    assert (grouped.code, grouped.severity.name) == ("GRPO202", "ERROR") and "every advantage is 0" in grouped.message
    (zero,) = sampling(verl("actor_rollout_ref.rollout.temperature=0", algorithm__adv_estimator="gae"))
    assert (zero.code, zero.severity.name) == ("GRPO201", "ERROR") and "inf/NaN" in zero.message
    orl = "python3 -m openrlhf.cli.train_ppo_ray --advantage_estimator gae --top_p 0 --pretrain m\n"
    (flat,) = [d for d in lint(orl, FLAT_ORL, "launch.sh") if d.code == "GRPO202"]
    assert flat.severity.name == "WARNING" and "--advantage_estimator gae" in flat.message


def test_sampling_rules_read_verl_keys():
    assert verl_codes(verl("actor_rollout_ref.rollout.temperature=0")) == ["GRPO201"]
    assert verl_codes(verl("actor_rollout_ref.rollout.top_k=1")) == ["GRPO202"]
    assert verl_codes(verl("actor_rollout_ref.rollout.do_sample=False")) == ["GRPO206"]
    hf = verl("actor_rollout_ref.rollout.do_sample=False", actor_rollout_ref__rollout__name="hf")
    assert verl_codes(hf, "--target verl==0.5.0") == ["GRPO202"]  # (the HF rollout, gone from 0.6.0, honours it)
    (fix,) = [d.fix for d in lint(verl("actor_rollout_ref.rollout.temperature=0"), VERL, "launch.sh")]
    assert fix == "actor_rollout_ref.rollout.temperature=1.0 (the default)"


# OpenRLHF -----------------------------------------------------------------------------------


def test_openrlhf_base_commands_are_clean_in_their_generation():
    assert orl_codes(openrlhf()) == []
    assert orl_codes(openrlhf(flat=True), FLAT_ORL) == []


def test_wrong_flag_generation_is_one_diagnostic_and_values_still_count():
    found = lint(openrlhf({"--rollout.n_samples_per_prompt": "1"}, flat=True), ORL, "launch.sh")
    assert sorted(d.code for d in found) == ["GRPO004", "GRPO101"]
    (generation,) = [d for d in found if d.code == "GRPO004"]
    assert "flat flags" in generation.message and "--target openrlhf==0.10.1" in generation.fix
    dotted_on_old = lint(openrlhf(), FLAT_ORL, "launch.sh")
    assert [d.code for d in dotted_on_old] == ["GRPO004"]


def test_group_estimators_by_release():
    dr = openrlhf({"--rollout.n_samples_per_prompt": "1", "--algo.advantage.estimator": "dr_grpo"})
    (error,) = lint(dr, ORL, "launch.sh")
    assert (error.code, error.severity.name) == ("GRPO101", "ERROR")
    assert '"dr_grpo requires n_samples_per_prompt > 1"' in error.message
    flat = openrlhf({"--rollout.n_samples_per_prompt": "1", "--algo.advantage.estimator": "dr_grpo"}, flat=True)
    (warning,) = lint(flat, FLAT_ORL, "launch.sh")
    assert (warning.code, warning.severity.name) == ("GRPO101", "WARNING")
    assert orl_codes(openrlhf({"--rollout.n_samples_per_prompt": "1", "--algo.advantage.estimator": "reinforce"})) == []


def test_argparse_abbreviations():
    assert orl_codes(openrlhf({"--rollout.n_samples": "1"}, drop=("--rollout.n_samples_per_prompt",))) == ["GRPO101"]
    (ambiguous,) = lint(openrlhf({"--rollout.m": "4"}), ORL, "launch.sh")
    assert ambiguous.code == "GRPO002" and "ambiguous option" in ambiguous.message
    (unknown,) = lint(openrlhf({"--rollout.n_samples_per_promt": "8"}), ORL, "launch.sh")
    assert "Did you mean `--rollout.n_samples_per_prompt`?" in unknown.message


def test_deepspeed_batch_rule_per_model_group():
    three = {"--actor.num_gpus_per_node": "3", "--vllm.num_engines": "3", "--vllm.tensor_parallel_size": "1",
             "--train.batch_size": "32", "--train.micro_batch_size": "1", "--rollout.batch_size": "12",
             "--rollout.micro_batch_size": "4"}  # fmt: skip
    (diagnostic,) = [d for d in lint(openrlhf(three), ORL, "launch.sh") if d.code == "GRPO112"]
    assert "32 != 1 * 10 * 3" in diagnostic.message
    assert "GRPO112" not in orl_codes(openrlhf({**three, "--train.batch_size": "24"}))
    # A reference model on its own GPUs is a DeepSpeed group of its own: 128 fits 2 GPUs, not 3.
    script = openrlhf({"--ref.num_gpus_per_node": "2"}).replace("   --train.colocate_all \\\n", "")
    assert "GRPO112" not in orl_codes(script)
    script = openrlhf({"--ref.num_gpus_per_node": "3"}).replace("   --train.colocate_all \\\n", "")
    assert orl_codes(script) == ["GRPO112"]


def test_rollout_batch_relations():
    too_few = openrlhf({"--rollout.micro_batch_size": "256"})
    assert orl_codes(too_few) == ["GRPO113"]
    oversample = openrlhf({"--rollout.vllm_generate_batch_size": "256"})
    assert orl_codes(oversample) == ["GRPO113"]
    assert orl_codes(openrlhf({"--rollout.vllm_generate_batch_size": "256", "--train.async_enable": ""})) == []
    leftover = lint(openrlhf({"--train.batch_size": "192", "--train.micro_batch_size": "8"}), ORL, "launch.sh")
    assert [(d.code, d.severity.name) for d in leftover] == [("GRPO113", "WARNING")]


def test_colocation_mismatches():
    assert orl_codes(openrlhf({"--vllm.num_engines": "8"})) == ["GRPO409"]
    assert orl_codes(openrlhf({"--ref.num_gpus_per_node": "4"})) == ["GRPO409"]
    # the actor's GPUs not known before launch: OpenRLHF's default 8 is not the run's, and no mismatch is said
    one_engine = {"--vllm.num_engines": "1", "--vllm.tensor_parallel_size": "1"}
    unknown = openrlhf(one_engine, drop=("--actor.num_gpus_per_node",))
    assert orl_codes(unknown) == ["GRPO409"]  # the default 8 GPUs, not written: a default the run keeps
    written = unknown.replace("--actor.num_nodes 1", "--actor.num_nodes 1 --actor.num_gpus_per_node $GPUS")
    assert "GRPO409" not in orl_codes(written)


def test_openrlhf_sampling_flags():
    assert orl_codes(openrlhf({"--rollout.temperature": "0"})) == ["GRPO201"]
    assert orl_codes(openrlhf({"--rollout.top_p": "0"})) == ["GRPO202"]


# The examples, as a user runs them -----------------------------------------------------------


def test_verl_and_openrlhf_examples_lint_as_documented():
    for clean in ("verl/run_qwen2-7b_grpo.sh", "verl/grpo_gsm8k.yaml", "openrlhf/train_grpo_ray_hybrid_engine.sh"):
        result = run_cli(str(ROOT / "examples" / clean), "--format", "json")
        assert result.returncode == 0, result.stdout + result.stderr
        # (nothing pins the framework here: GRPO013 may say which releases the flags tie the script to)
        assert [d for d in json.loads(result.stdout)["diagnostics"] if d["code"] != "GRPO013"] == []
    broken = run_cli(str(ROOT / "examples" / "verl" / "run_grpo_broken.sh"), "--format", "json")
    assert broken.returncode == 1
    found = sorted(d["code"] for d in json.loads(broken.stdout)["diagnostics"])
    assert found == ["GRPO002", "GRPO009", "GRPO101", "GRPO402"]
    flat = ROOT / "examples" / "openrlhf" / "train_grpo_flat_0.10.sh"
    old = run_cli(str(flat), "--target", "openrlhf==0.10.1", "--format", "json")
    assert old.returncode == 1 and [d["code"] for d in json.loads(old.stdout)["diagnostics"]] == ["GRPO112"]
    new = run_cli(str(flat), "--target", "openrlhf==0.11.2", "--format", "json")
    assert {d["code"] for d in json.loads(new.stdout)["diagnostics"]} == {"GRPO004", "GRPO112"}
    # Nothing pins OpenRLHF: the release is assumed, the newest whose flags the script writes (flat: 0.10.1);
    # the batch error holds from the oldest of those releases on, so it stays an error that says so.
    assumed = json.loads(run_cli(str(flat), "--format", "json").stdout)
    judged = [d for d in assumed["diagnostics"] if d["code"] != "GRPO013"]
    assert [(d["code"], d["severity"]) for d in judged] == [("GRPO112", "error")]
    assert "both ends of the OpenRLHF releases that fit this config" in judged[0]["message"]
    (tie,) = [d for d in assumed["diagnostics"] if d["code"] == "GRPO013"]  # flat flags: only up to 0.10.1
    assert tie["severity"] == "info" and "openrlhf<0.10.2" in tie["fix"]["message"]
    assert assumed["summary"]["targets"][0]["version"] == "0.10.1"


def test_framework_flag_accepts_verl_for_a_yaml_without_sections(tmp_path):
    config = tmp_path / "partial.yaml"
    config.write_text("actor_rollout_ref:\n  rollout:\n    n: 1\nalgorithm:\n  adv_estimator: grpo\n")
    result = run_cli(str(config), "--framework", "verl", "--format", "json")
    assert [d["code"] for d in json.loads(result.stdout)["diagnostics"]] == ["GRPO101"]
    assert result.returncode == 0  # a warning: verl accepts it


# verl YAML read as verl and Hydra read it -------------------------------------------------------

_BASE_YAML = """\
algorithm:
  adv_estimator: grpo
actor_rollout_ref:
  actor:
    ppo_mini_batch_size: 32
    ppo_micro_batch_size_per_gpu: 4
  rollout:
    name: vllm
    n: 4
    log_prob_micro_batch_size_per_gpu: 4
  ref:
    log_prob_micro_batch_size_per_gpu: 4
"""


def yaml_diagnostics(extra: str, target: str = "--target verl==0.9.1"):
    return lint(_BASE_YAML + extra, target, "verl.yaml")


def test_target_keys_free_form_mappings_and_named_entries_are_valid():
    extra = (
        "  _target_: verl.workers.config.ActorRolloutRefConfig\n"
        "  model:\n    override_config:\n      attention_dropout: 0.1\n"
        "data:\n  train_files: [a.parquet, b.parquet]\n  val_files: null\n"
        "  apply_chat_template_kwargs:\n    enable_thinking: false\n"
        "distillation:\n  teacher_models:\n    my_teacher:\n      model_path: /models/t\n"
    )
    assert [d.code for d in yaml_diagnostics(extra)] == []


def test_a_near_miss_in_a_yaml_file_names_the_key_and_other_additions_are_one_info():
    found = yaml_diagnostics("trainer:\n  n_gpus_per_nod: 8\n  my_own_setting: 3\n  my_other: 4\n")
    near, added = sorted(found, key=lambda d: d.severity, reverse=True)
    assert (near.code, near.severity.label) == ("GRPO002", "warning")
    assert "did you mean `trainer.n_gpus_per_node`" in near.message and "nothing reads it" not in near.message
    assert (added.code, added.severity.label) == ("GRPO002", "info")
    assert "`trainer.my_own_setting`, `trainer.my_other` are not in verl 0.9.1" in added.message


def test_no_suggestion_from_another_component():
    (added,) = yaml_diagnostics("critic:\n  temperature: 0.7\n")  # rollout.temperature is the actor's
    assert added.severity.label == "info" and "did you mean" not in added.message


def test_a_moved_key_names_its_new_place():
    text = (
        "python3 -m verl.trainer.main_ppo --config-name=ppo_megatron_trainer algorithm.adv_estimator=grpo "
        "actor_rollout_ref.rollout.n=4 actor_rollout_ref.actor.router_replay.mode=disabled\n"
    )
    (moved,) = [d for d in lint(text, VERL, "launch.sh") if d.code == "GRPO004"]
    assert "it is now `actor_rollout_ref.actor.megatron.router_replay.mode`" in moved.message


def test_interpolations_are_followed_or_reported_as_unknown():
    extra = "data:\n  train_batch_size: ${oc.env:BS,60}\ntrainer:\n  nnodes: 1\n  n_gpus_per_node: ${trainer.nnodes}\n"
    found = yaml_diagnostics(extra)
    deferred = [d for d in found if d.code == "GRPO507"]
    assert [d.key for d in deferred] == ["data.train_batch_size"]
    assert not any(d.code == "GRPO003" for d in found)  # never "must be a whole number"
    # `${trainer.nnodes}` is followed: one GPU, so rollout.n=1 is the group problem it is.
    assert yaml_diagnostics("trainer:\n  nnodes: 1\n") == []
    group = lint(_BASE_YAML.replace("n: 4", "n: ${trainer.nnodes}") + "trainer:\n  nnodes: 1\n", VERL, "v.yaml")
    assert [d.code for d in group] == ["GRPO101"]


def test_rollout_modes_verl_warns_about_are_warnings():
    text = _BASE_YAML.replace("    n: 4\n", "    n: 4\n    mode: async_envloop\n")
    (warning,) = lint(text, VERL, "v.yaml")
    assert (warning.code, warning.severity.label) == ("GRPO006", "warning")
    (error,) = lint(text.replace("async_envloop", "sync"), VERL, "v.yaml")
    assert (error.code, error.severity.label) == ("GRPO006", "error")


def test_invalid_group_size_fix_never_proposes_a_group_of_one():
    # verl's default rollout.n is 1, itself no group (GRPO101): GRPO003 must not propose it.
    found = [d for d in lint(verl(actor_rollout_ref__rollout__n="0"), VERL, "launch.sh") if d.code == "GRPO003"]
    assert len(found) == 1
    assert found[0].fix.startswith("actor_rollout_ref.rollout.n=8")
    # A key whose default is valid still proposes the default, written as this file writes keys.
    found = [d for d in lint(verl("data.max_prompt_length=abc"), VERL, "launch.sh") if d.code == "GRPO003"]
    assert found and found[0].fix == "data.max_prompt_length=512 (the default)"


def test_openrlhf_removed_switch_names_its_new_flag():
    # 0.11.2 replaced the IS-correction switch by a level (off/token/seq): the fix turns it on.
    script = openrlhf({"--algo.advantage.is_correction_enable": ""})
    found = [d for d in lint(script, ORL, "launch.sh") if d.code == "GRPO004"]
    assert len(found) == 1
    assert "It is now `--algo.advantage.is_correction_level`" in found[0].message
    assert found[0].fix == "`--algo.advantage.is_correction_level token`"
    # In 0.11.1 the switch exists: no report.
    assert not [d for d in lint(script, "--target openrlhf==0.11.1", "launch.sh") if d.code == "GRPO004"]


def test_generate_batch_size_is_read_only_from_0_10():
    # 0.8.1-0.9.10 parse --vllm_generate_batch_size but no code reads it: a warning, never "stops".
    script = openrlhf({"--vllm_generate_batch_size": "256"}, flat=True)
    (old,) = [d for d in lint(script, "--target openrlhf==0.9.10", "launch.sh") if d.code == "GRPO113"]
    assert old.severity is Severity.WARNING and "has no effect" in old.message
    # 0.10.0 on: the samples generator reads it, and train_ppo_ray asserts --async_train for over-sampling.
    (new,) = [d for d in lint(script, FLAT_ORL, "launch.sh") if d.code == "GRPO113"]
    assert new.severity is Severity.ERROR and "requires --async_train" in new.message


def test_verl_loss_agg_mode_choices_by_release():
    # Checked at start-up in every release (0.4-0.5 RayPPOTrainer assert, 0.6+ ActorConfig); token-sum from 0.9.0.
    assert "GRPO006" in verl_codes(verl("actor_rollout_ref.actor.loss_agg_mode=sample-mean"))
    assert "GRPO006" in verl_codes(verl("actor_rollout_ref.actor.loss_agg_mode=token-sum"), "--target verl==0.8.0")
    assert "GRPO006" not in verl_codes(verl("actor_rollout_ref.actor.loss_agg_mode=token-sum"))
    assert "GRPO006" not in verl_codes(verl("actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-mean"), OLD_VERL)


def test_verl_actor_strategy_choices():
    # Before 0.8.0 main_ppo picks the actor's legacy workers by it: fsdp/fsdp2 or megatron, else NotImplementedError.
    for target in (OLD_VERL, "--target verl==0.4.0", "--target verl==0.7.1"):
        assert "GRPO006" in verl_codes(verl("actor_rollout_ref.actor.strategy=deepspeed"), target)
        assert "GRPO006" not in verl_codes(verl("actor_rollout_ref.actor.strategy=fsdp2"), target)
    # 0.8.0 on: the model-engine workers run every backend (veomni too)
    assert "GRPO006" not in verl_codes(verl("actor_rollout_ref.actor.strategy=veomni"), VERL)
    # 0.7.x: the new engine workers (use_legacy_worker_impl=disable) do not read it there
    new_engine = verl("actor_rollout_ref.actor.strategy=veomni", "trainer.use_legacy_worker_impl=disable")
    assert "GRPO006" not in verl_codes(new_engine, "--target verl==0.7.1")
    assert "GRPO006" in verl_codes(new_engine, "--target verl==0.6.1")
    # a recipe's trainer picks its workers its own way
    recipe = verl("actor_rollout_ref.actor.strategy=deepspeed", "actor_rollout_ref.rollout.temperature=0")
    recipe = recipe.replace("verl.trainer.main_ppo", "recipe.dapo.main_dapo")
    assert verl_codes(recipe, OLD_VERL) == ["GRPO201"]  # read as verl (its sampling judged), its strategy not


def test_verl_advantage_estimator_choices_by_release(tmp_path):
    """The estimators a release registers: another name stops the run (`dapo` is a reward manager, no estimator)."""
    assert "GRPO006" in verl_codes(verl(algorithm__adv_estimator="dapo"))
    assert "GRPO006" not in verl_codes(verl(algorithm__adv_estimator="grpo"))
    assert "GRPO006" in verl_codes(verl(algorithm__adv_estimator="gdpo"), "--target verl==0.7.0")  # from 0.7.1
    assert "GRPO006" not in verl_codes(verl(algorithm__adv_estimator="gdpo"), "--target verl==0.7.1")
    assert "GRPO006" in verl_codes(verl(algorithm__adv_estimator="gpg"), "--target verl==0.4.1")  # from 0.5.0
    # a recipe's trainer may register its own
    recipe = verl(algorithm__adv_estimator="dapo").replace("verl.trainer.main_ppo", "recipe.dapo.main_dapo")
    assert "GRPO006" not in verl_codes(recipe)
    # an estimator the repository registers itself (`@register_adv_est("length_grpo")`) is its own
    before, after = _registering(
        tmp_path,
        verl(algorithm__adv_estimator="length_grpo"),
        'from verl.trainer.ppo.core_algos import register_adv_est\n\n\n@register_adv_est("length_grpo")\n'
        "def length_grpo(token_level_rewards, response_mask, index, config=None):\n    ...\n",
    )
    assert "GRPO006" in before
    assert "GRPO006" not in after


def _registering(root: Path, launch: str, module: str) -> tuple[list[str], list[str]]:
    """The codes of a verl 0.9.1 repository's launch before and after it adds a Python module (one that registers a
    name the launch uses)."""
    (root / "requirements.txt").write_text("verl==0.9.1\n")
    (root / "run.sh").write_text(launch)
    found = []
    for added in (False, True):
        if added:
            (root / "registers.py").write_text(module)
        report = json.loads(run_cli("--isolated", "--format", "json", ".", cwd=root).stdout)
        found.append([d["code"] for d in report["diagnostics"]])
    return found[0], found[1]


def test_verl_rollout_engine_choices_by_release():
    """The rollout engines a release builds: the HF rollout is gone from 0.6.0, TensorRT-LLM came in 0.7.1."""
    assert "GRPO006" in verl_codes(verl(actor_rollout_ref__rollout__name="hf"), "--target verl==0.7.1")
    assert "GRPO006" in verl_codes(verl(actor_rollout_ref__rollout__name="hf"), "--target verl==0.6.0")
    assert "GRPO006" not in verl_codes(verl(actor_rollout_ref__rollout__name="hf"), "--target verl==0.5.0")
    assert "GRPO006" not in verl_codes(verl(actor_rollout_ref__rollout__name="vllm"), "--target verl==0.7.1")
    assert "GRPO006" in verl_codes(verl(actor_rollout_ref__rollout__name="trtllm"), "--target verl==0.7.0")
    assert "GRPO006" not in verl_codes(verl(actor_rollout_ref__rollout__name="trtllm"), "--target verl==0.9.1")
    assert "GRPO006" in verl_codes(verl(actor_rollout_ref__rollout__name="sglang_async"), "--target verl==0.5.0")
    # a recipe's trainer builds its own workers, which may take other engines
    recipe = verl(actor_rollout_ref__rollout__name="hf").replace("verl.trainer.main_ppo", "recipe.dapo.main_dapo")
    assert "GRPO006" not in verl_codes(recipe, "--target verl==0.7.1")


def test_a_rollout_engine_the_repository_registers_is_its_own(tmp_path):
    """verl-omni adds `_ROLLOUT_REGISTRY[("vllm_omni", "async")] = ...`: the run knows the name."""
    before, after = _registering(
        tmp_path,
        verl(actor_rollout_ref__rollout__name="vllm_omni"),
        "from verl.workers.rollout.base import _ROLLOUT_REGISTRY\n\n"
        '_ROLLOUT_REGISTRY[("vllm_omni", "async")] = "verl.workers.rollout.vllm_rollout.ServerAdapter"\n',
    )
    assert "GRPO006" in before
    assert "GRPO006" not in after


def test_verl_on_policy_distillation_without_task_rewards_needs_no_group():
    """distillation.enabled with use_task_rewards false: verl 0.8.0+ sets the policy loss to 0, the student learns the
    teacher's tokens, and a group of one wastes nothing."""
    single = verl(actor_rollout_ref__rollout__n="1")
    assert "GRPO101" in verl_codes(single)
    distilled = verl(
        "distillation.enabled=True",
        "distillation.distillation_loss.use_task_rewards=False",
        actor_rollout_ref__rollout__n="1",
    )
    assert "GRPO101" not in verl_codes(distilled)
    # with the task rewards kept, the advantages are trained on: a group of one still has none
    assert "GRPO101" in verl_codes(distilled.replace("use_task_rewards=False", "use_task_rewards=True"))


def test_verl_real_train_batch_check_ignores_dynamic_bsz_before_0_6():
    # 256 x 5 = 1280 responses over 24 GPUs: 0.4-0.5 assert it even with use_dynamic_bsz; 0.6+ skip it then.
    script = verl(
        "actor_rollout_ref.actor.use_dynamic_bsz=true", actor_rollout_ref__rollout__n="5", trainer__n_gpus_per_node="24"
    )
    assert "GRPO108" in verl_codes(script, "--target verl==0.5.0")
    assert "GRPO108" not in verl_codes(script, "--target verl==0.6.0")


def test_verl_deprecated_global_micro_batch():
    # actor.ppo_micro_batch_size (deprecated, global): divides the mini batch, and x Ulysses size covers the GPUs.
    drop = ("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",)
    good = verl("actor_rollout_ref.actor.ppo_micro_batch_size=16", drop=drop)
    assert "GRPO111" not in verl_codes(good)
    uneven = [d for d in lint(verl("actor_rollout_ref.actor.ppo_micro_batch_size=24", drop=drop), VERL, "launch.sh")]
    assert any(d.code == "GRPO111" and "must be divisible by ppo_micro_batch_size (24)" in d.message for d in uneven)
    few = [d for d in lint(verl("actor_rollout_ref.actor.ppo_micro_batch_size=4", drop=drop), OLD_VERL, "launch.sh")]
    assert any(d.code == "GRPO111" and "must be >= n_gpus (8)" in d.message for d in few)
    # Ulysses size 2: 4 x 2 covers 8 GPUs.
    ulysses = verl(
        "actor_rollout_ref.actor.ppo_micro_batch_size=4",
        "actor_rollout_ref.actor.ulysses_sequence_parallel_size=2",
        "actor_rollout_ref.model.use_remove_padding=true",
        drop=drop,
    )
    assert "GRPO111" not in verl_codes(ulysses)


def test_openrlhf_reference_colocation_compares_nodes_and_gpus_per_node():
    # train_ppo_ray asserts actor.num_nodes == ref.num_nodes and the same GPUs per node: 2 x 4 != 1 x 8.
    same_total = openrlhf({"--ref.num_nodes": "2", "--ref.num_gpus_per_node": "4"})
    found = [d for d in lint(same_total, ORL, "launch.sh") if d.code == "GRPO409"]
    assert len(found) == 1 and "2 x 4" in found[0].message
    assert not [d for d in lint(openrlhf({"--ref.num_gpus_per_node": "8"}), ORL, "launch.sh") if d.code == "GRPO409"]


def test_openrlhf_prefix_next_to_the_full_flag_is_accepted_and_the_last_wins():
    # argparse (allow_abbrev) maps both to one destination; the value written last is the one used.
    prefix_last = openrlhf({"--rollout.n_samples": "1"})  # written after --rollout.n_samples_per_prompt 8
    codes = [d.code for d in lint(prefix_last, ORL, "launch.sh")]
    assert "GRPO002" not in codes and "GRPO101" in codes  # n = 1 now, with group_norm
    assert [d.code for d in lint(openrlhf({"--rollout.n_samples": "8"}), ORL, "launch.sh")] == []


NO_VLLM = ("--vllm.num_engines", "--vllm.tensor_parallel_size", "--train.colocate_all")


def test_openrlhf_settings_that_need_vllm_engines():
    # train_ppo_ray: `assert args.vllm_num_engines > 0, "Only support --packing_samples with vLLM."` (0.8.1-0.11.2);
    # --ring_attn_size > 1 and --use_dynamic_batch turn packing on from 0.9.0.
    packing = [d for d in lint(openrlhf({"--ds.packing_samples": ""}, drop=NO_VLLM), ORL, "launch.sh")]
    assert [d.code for d in packing] == ["GRPO401"] and "Only support" in packing[0].message
    ring = lint(openrlhf({"--ds.ring_attn_size": "2"}, drop=NO_VLLM), ORL, "launch.sh")
    assert "GRPO401" in [d.code for d in ring]
    assert "GRPO401" not in [d.code for d in lint(openrlhf({"--ds.packing_samples": ""}), ORL, "launch.sh")]
    # 0.9.8-0.10.x: no vLLM engine at all fails after the models load (max_len unset); 0.11.0 fixed it.
    plain = openrlhf(drop=NO_VLLM)
    assert [d.code for d in lint(plain, "--target openrlhf==0.10.2", "launch.sh")] == ["GRPO401"]
    assert [d.code for d in lint(plain, ORL, "launch.sh")] == []


def test_verl_before_0_5_splits_the_prompts_before_repeating_them():
    # 100 prompts x 8 = 800 responses divide over 8 GPUs, but 0.4 chunks the 100 prompts first.
    script = verl(data__train_batch_size="100", actor_rollout_ref__actor__ppo_mini_batch_size="50")
    old = [d for d in lint(script, "--target verl==0.4.1", "launch.sh") if d.code == "GRPO108"]
    assert len(old) == 1 and "only support equal chunk" in old[0].message
    assert "GRPO108" not in verl_codes(script, "--target verl==0.5.0")


def test_verl_mini_batch_above_the_step_under_dynamic_batching_is_a_warning():
    script = verl("actor_rollout_ref.actor.use_dynamic_bsz=true", actor_rollout_ref__actor__ppo_mini_batch_size="512")
    (found,) = [d for d in lint(script, VERL, "launch.sh") if d.code == "GRPO109"]
    assert found.severity is Severity.WARNING and "one optimizer update per step" in found.message
    assert "GRPO109" in verl_codes(verl(actor_rollout_ref__actor__ppo_mini_batch_size="512"))  # the error, asserted


def test_openrlhf_placement_must_fit_the_ray_cluster_the_script_starts():
    # Not colocated: actor 8 + reference 8 + vLLM 4 x 2 = 24 GPUs; a cluster of 8 never schedules them.
    separate = openrlhf().replace("   --train.colocate_all \\\n", "")
    prelude = "ray start --head --node-ip-address 0.0.0.0 --num-gpus 8\n"
    found = [d for d in lint(prelude + separate, ORL, "launch.sh") if d.code == "GRPO505"]
    assert len(found) == 1 and "asks Ray for 24 GPUs" in found[0].message and found[0].severity is Severity.WARNING
    assert not [d for d in lint(prelude + openrlhf(), ORL, "launch.sh") if d.code == "GRPO505"]  # colocated: 8
    joined = prelude + "ray start --address 10.0.0.1:6379 --num-gpus 8\n" + separate
    assert not [d for d in lint(joined, ORL, "launch.sh") if d.code == "GRPO505"]  # another node joins


def test_an_unquoted_value_with_a_space_is_two_words_and_the_message_says_so():
    """lmm-r1's train_sokoban.sh: MODEL_CPK_NAME="ckpt name" and `--save_path $SAVE_PATH/$MODEL_CPK_NAME`
    give argparse a stray `name`."""
    flags = {"--save_path": "/ckpts/$NAME", "--ckpt_path": '"/ckpts/$NAME"'}
    script = 'NAME="ckpt name"\n' + openrlhf(flags, flat=True)
    (split,) = [d for d in lint(script, FLAT_ORL, "launch.sh") if d.code == "GRPO003"]
    assert split.key == "--save_path" and "passes 2 words" in split.message
    assert '"unrecognized arguments: name"' in split.message and '"$VAR"' in split.fix
    # A flag that takes several values is not a split.
    assert "GRPO003" not in orl_codes(openrlhf({"--actor.eps_clip_low_high": "0.2 0.28"}))


def test_greedy_validation_with_several_samples_and_its_neighbours():
    assert verl_codes(verl("actor_rollout_ref.rollout.val_kwargs.n=4")) == ["GRPO207"]
    sampled = verl("actor_rollout_ref.rollout.val_kwargs.n=4", "actor_rollout_ref.rollout.val_kwargs.do_sample=True",
                   "actor_rollout_ref.rollout.val_kwargs.temperature=0.6")  # fmt: skip
    assert verl_codes(sampled) == []
    assert verl_codes(verl("actor_rollout_ref.rollout.val_kwargs.n=1")) == []  # one greedy sample is what it asks


def test_sequence_parallel_needs_padding_removed_and_without_it_nothing_is_said():
    padded = "actor_rollout_ref.model.use_remove_padding=False"
    assert verl_codes(verl("actor_rollout_ref.actor.ulysses_sequence_parallel_size=2", padded)) == ["GRPO410"]
    assert verl_codes(verl("actor_rollout_ref.actor.ulysses_sequence_parallel_size=1", padded)) == []
    removed = "actor_rollout_ref.model.use_remove_padding=True"
    assert verl_codes(verl("actor_rollout_ref.actor.ulysses_sequence_parallel_size=2", removed)) == []


def test_megatron_parallel_sizes_must_divide_the_gpus():
    megatron = "--config-name=ppo_megatron_trainer"
    tp3 = verl(megatron, "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=3")
    assert "GRPO411" in verl_codes(tp3)
    tp4 = verl(megatron, "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=4")
    assert "GRPO411" not in verl_codes(tp4)  # 8 GPUs hold two groups of 4


def test_a_verl_file_no_launch_reads_names_no_default_of_its_reader(tmp_path):
    """A YAML with verl's sections that no launch names and whose keys are mostly another program's (a record of a
    run, a wrapper's profile: `provenance:`, its own `actor:`): what it leaves unset is not known, so no verdict names
    verl's default (its mini batch of 256 against a train batch of 64). An overlay of verl's own keys is judged
    against verl's defaults; a value a record writes is judged too."""
    record = (
        "schema_version: 1\nprofile_name: run-a\nprovenance:\n  source_file: run.sh\n  sha256: abc\n"
        "environment:\n  HYDRA_FULL_ERROR: 1\n"
        "algorithm:\n  adv_estimator: grpo\ndata:\n  train_batch_size: 64\nactor:\n  lr: 1e-6\n"
        "  ppo_mini_batch_size: 16\ntrainer:\n  n_gpus_per_node: 8\n"
    )
    (tmp_path / "requirements.txt").write_text("verl==0.4.0\n")
    (tmp_path / "run.yaml").write_text(record)
    report = json.loads(run_cli("--isolated", "--format", "json", ".", cwd=tmp_path).stdout)
    assert [d for d in report["diagnostics"] if d["severity"] != "info"] == []
    (linted,) = report["summary"]["files"]
    assert "GRPO109: not checked: the program that reads the file is not shown" in " ".join(linted["not_checked"])
    written = record.replace("data:\n", "actor_rollout_ref:\n  actor:\n    ppo_mini_batch_size: 128\ndata:\n")
    (tmp_path / "run.yaml").write_text(written)
    report = json.loads(run_cli("--isolated", "--format", "json", ".", cwd=tmp_path).stdout)
    assert [d["code"] for d in report["diagnostics"] if d["severity"] == "error"] == ["GRPO109"]
    # an overlay of verl's own keys (a dataset's `data:` block layered onto ppo_trainer), or a file whose Hydra
    # defaults list builds on verl's trainer config: verl's defaults stay, and the default mini batch breaks the step
    overlay = "data:\n  train_batch_size: 32\n  max_prompt_length: 4096\nactor_rollout_ref:\n  rollout:\n    n: 2\n"
    for config in (overlay, "defaults:\n  - ppo_trainer\n  - _self_\n" + record):
        (tmp_path / "run.yaml").write_text(config)
        report = json.loads(run_cli("--isolated", "--format", "json", ".", cwd=tmp_path).stdout)
        (error,) = [d for d in report["diagnostics"] if d["severity"] == "error"]
        assert error["code"] == "GRPO109" and "ppo_mini_batch_size (default) 256" in error["message"], config


def test_a_base_config_not_known_before_launch_is_said_not_checked():
    """`--config-path="$CONFIG_PATH"` (set by a script the launch sources): its keys are not known, no key is called
    unknown, and --verbose says why instead of passing the launch in silence."""
    script = 'python3 -m verl.trainer.main_ppo --config-path="$CONFIG_PATH" --config-name=mine trainer.typo_key=1\n'
    result = lint_text(script, "launch.sh", options_from(VERL), kind="shell")
    assert "GRPO002" not in [d.code for d in result.diagnostics]
    assert any("--config-path $CONFIG_PATH is not known before launch" in line for line in result.unchecked)
    plain = lint_text(
        script.replace(' --config-path="$CONFIG_PATH" --config-name=mine', ""), "l.sh", options_from(VERL)
    )
    assert "GRPO002" in [d.code for d in plain.diagnostics] and not any("config-path" in u for u in plain.unchecked)


def test_an_array_element_added_on_some_paths_only_leaves_the_others_known():
    """`EXTRA=(model_engine=megatron)` then `EXTRA+=(...)` inside an `if`: the first element is there whatever path
    ran, the appended one only on some. The known element is read as written (here a key verl's tree lacks, which
    stops the run); the appended one is a word not known before launch, and does not make the others unknown
    (verl's own examples build their overrides this way)."""
    prelude = 'EXTRA=(\n    actor_rollout_ref.actor.no_such_key=1\n)\nif [ "$DEVICE" = npu ]; then\n'
    prelude += "    EXTRA+=(\n        actor_rollout_ref.rollout.enforce_eager=False\n    )\nfi\n"
    script = verl('"${EXTRA[@]}"', prelude=prelude)
    assert verl_codes(script) == ["GRPO002"]  # the known element's key: Hydra's "Could not override"
    fine = script.replace("actor_rollout_ref.actor.no_such_key=1", "actor_rollout_ref.actor.entropy_coeff=0")
    assert verl_codes(fine) == []
    # an element set on some paths only may be missing, and so may its key: no verdict rests on it
    unset = script.replace("actor_rollout_ref.rollout.enforce_eager=False", "actor_rollout_ref.rollout.no_key=1")
    assert verl_codes(unset.replace("actor_rollout_ref.actor.no_such_key=1", "trainer.total_epochs=1")) == []


def test_a_verdict_on_a_setting_the_launch_does_not_write_points_at_the_launch_command():
    """No rollout name (GRPO010) and no micro batches (GRPO111), in a command on line 3 that writes none of the keys
    the verdicts rest on: they point at that command (an editor underlines it), not at the script's first line."""
    script = "set -e\nexport HYDRA_FULL_ERROR=1\npython3 -m verl.trainer.main_ppo trainer.experiment_name=x\n"
    found = lint(script, VERL, "launch.sh")
    assert {d.code for d in found} == {"GRPO010", "GRPO111"}
    assert {(d.span.line, d.span.column) for d in found} == {(3, 1)}


def test_a_group_of_one_in_verls_fully_async_trainer():
    """verl's fully async trainer samples rollout.n responses per prompt as the main trainer does: n=1 written with
    a group estimator is a group of one (the other batch rules are its own and stay unjudged)."""
    script = verl(actor_rollout_ref__rollout__n="1").replace(
        "verl.trainer.main_ppo", "verl.experimental.fully_async_policy.fully_async_main"
    )
    found = [d for d in lint(script, VERL, "launch.sh") if d.code == "GRPO101"]
    assert [(d.severity.name, "fully_async_main" in d.message) for d in found] == [("WARNING", True)]
    assert [
        d for d in lint(script.replace("rollout.n=1", "rollout.n=4"), VERL, "launch.sh") if d.code == "GRPO101"
    ] == []
    recipe = script.replace("verl.experimental.fully_async_policy.fully_async_main", "recipe.dapo.main_dapo")
    assert [d for d in lint(recipe, VERL, "launch.sh") if d.code == "GRPO101"] == []  # a recipe's own groups
