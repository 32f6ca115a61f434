"""Launch scripts: the bash reader, every launcher's world size, linked configs, the GRPO5xx rules."""

from __future__ import annotations

import json
import os
import subprocess
import warnings
from pathlib import Path

import pytest

from grpo_lint.diagnostics import Severity
from grpo_lint.engine import lint_text
from grpo_lint.sources.shell import parse
from grpo_lint.workspace import build

from .conftest import ROOT, options_from, run_cli

TARGETS = "--target trl==1.16.0 --target swift==4.6.0"


# A training script of the repository's own that reads its flags and config file with TRL's TrlParser.
TRLPARSER_SCRIPT = (
    "from trl import GRPOConfig, GRPOTrainer, ModelConfig, ScriptArguments, TrlParser\n"
    "parser = TrlParser((ScriptArguments, GRPOConfig, ModelConfig))\n"
    "script_args, training_args, model_args = parser.parse_args_and_config()\n"
)


def script(text: str, args: str = TARGETS, name: str = "launch.sh", root: Path | None = None):
    """Lint a script's text; files it names are read only inside `root` (default: the current directory)."""
    workspace = build([str(root)], options_from(args)) if root is not None else None
    return lint_text(text, name, options_from(args), kind="shell", workspace=workspace)


def codes(text: str, args: str = TARGETS) -> list[str]:
    return sorted(d.code for d in script(text, args).diagnostics)


def world(text: str, args: str = TARGETS, root: Path | None = None):
    (plan,) = script(text, args, root=root).plans
    return plan.world_size


# The bash reader -------------------------------------------------------------------------------


def test_words_quotes_continuations_and_positions():
    parsed = parse('A=1 swift rlhf \\\n  --model "Qwen/Qwen 7B" \\\n  --x \'$A\' --y "$A"\n', "s.sh")
    (command,) = parsed.commands
    # As in bash, a VAR=value prefix is not yet set when the command's own words are expanded.
    assert [w.text for w in command.words] == ["swift", "rlhf", "--model", "Qwen/Qwen 7B", "--x", "$A", "--y", "$A"]
    assert command.words[5].known and command.words[7].unknown == ("A",)
    model = command.words[3]
    assert (model.span.line, model.span.column, model.span.end_column) == (2, 11, 25)
    assert command.env["A"].text == "1"


def test_variables_exports_defaults_arithmetic_and_unknowns():
    text = (
        "export NNODES=2\nLOCAL=4\nGPUS=${GPUS:-8}\nEMPTY=\nX=${EMPTY:-fallback}\n"
        "run --a $((GPUS*NNODES)) --b $LOCAL --c $(nproc) --d $UNSET --e $1 --f $X\n"
    )
    (command,) = parse(text, "s.sh").commands
    words = {w.text: w for w in command.words}
    expected = ["--a", "16", "--b", "4", "--c", "$(nproc)", "--d", "$UNSET", "--e", "$1", "--f", "fallback"]
    assert [w.text for w in command.words][1:] == expected
    assert words["$(nproc)"].unknown == ("$(nproc)",) and words["$UNSET"].unknown == ("UNSET",)
    assert set(command.env) == {"NNODES"}  # LOCAL was not exported


def test_separators_redirections_and_heredocs():
    text = "cd /x && echo a > log.txt 2>&1; cat <<EOF\nswift rlhf --not a command\nEOF\nnohup python t.py &\n"
    commands = parse(text, "s.sh").commands
    assert [[w.text for w in c.words] for c in commands] == [["cd", "/x"], ["echo", "a"], ["cat"], ["python", "t.py"]]


def test_comment_cut_off_is_found_only_when_flags_follow():
    cut = parse("swift rlhf \\\n  --a 1 \\\n  # --b 2 \\\n  --c 3\n", "s.sh")
    assert len(cut.cutoffs) == 1 and [w.text for w in cut.cutoffs[0].lost] == ["--c", "3"]
    assert cut.cutoffs[0].comment.line == 3
    trailing = parse("swift rlhf \\\n  --a 1\n# a note about the run\necho done\n", "s.sh")
    assert trailing.cutoffs == []


def words_of(text: str) -> list[list[str]]:
    return [[w.text for w in c.words] for c in parse(text, "s.sh").commands]


def test_quoted_and_nested_defaults_do_not_hide_the_rest_of_the_script():
    text = 'MODEL=${MODEL:-"${HOME}/models/x"}\nN=${A:-${B:-2}}\nrun --model "$MODEL" --n $N\n'
    (command,) = parse(text, "s.sh").commands
    assert [w.text for w in command.words] == ["run", "--model", "$HOME/models/x", "--n", "2"]
    assert command.words[2].unknown == ("HOME",) and command.words[4].known


def test_unquoted_variables_split_and_assignments_do_not():
    text = 'CONFIG="a.b=1 c.d=2"\nWHOLE=$CONFIG\nrun $CONFIG "$CONFIG" $WHOLE\n'
    assert words_of(text) == [["run", "a.b=1", "c.d=2", "a.b=1 c.d=2", "a.b=1", "c.d=2"]]
    assert words_of('EMPTY=\nrun --a $EMPTY --b ""\n') == [["run", "--a", "--b", ""]]


def test_bash_arrays_expand_to_their_elements():
    text = 'ARGS=(a.b=1 "c d" # a comment\n  e=$X)\nARGS+=(f)\nrun "${ARGS[@]}" ${#ARGS[@]} "${ARGS[1]}"\n'
    (command,) = parse(text, "s.sh").commands
    assert [w.text for w in command.words] == ["run", "a.b=1", "c d", "e=$X", "f", "4", "c d"]
    assert command.words[3].unknown == ("X",) and command.words[1].known


def test_an_array_element_appended_inside_an_if_is_the_only_word_not_known():
    text = 'ARGS=(a.b=1 c=$X)\nif [ -n "$Y" ]; then\n  ARGS+=(d.e=2)\nfi\nrun "${ARGS[@]}" ${ARGS[@]}\n'
    (command,) = parse(text, "s.sh").commands
    assert [w.text for w in command.words] == ["run", "a.b=1", "c=$X", "d.e=2", "a.b=1", "c=$X", "d.e=2"]
    assert [w.unknown for w in command.words[1:4]] == [(), ("X",), ("ARGS[2]",)]
    assert [w.unknown for w in command.words[4:]] == [(), ("X",), ("ARGS[2]",)]
    # the whole array rebuilt inside the `if`: every element is there only on that path
    (command,) = parse('if [ -n "$Y" ]; then\n  ARGS=(a.b=1)\nfi\nrun "${ARGS[@]}"\n', "s.sh").commands
    assert [w.unknown for w in command.words[1:]] == [("ARGS[0]",)]


def test_a_default_that_starts_with_a_tilde_is_the_home_folder_not_known_before_launch():
    text = 'DATA=${DATA:-~/data/train.parquet}\nrun data.train_files=$DATA b=${B:-~x} c=${C:-"~/q"}\n'
    (command,) = parse(text, "s.sh").commands
    assert [w.text for w in command.words] == ["run", "data.train_files=~/data/train.parquet", "b=~x", "c=~/q"]
    assert "~" in command.words[1].unknown  # bash expands `~/` in the default: the home folder
    assert command.words[2].known and command.words[3].known  # `~x` (a user's home) kept as written; quoted `~`


def test_a_callers_array_element_added_on_some_paths_stays_its_own_word_in_the_called_script():
    caller = 'P=(a.b=1)\nif [ -n "$Y" ]; then\n  P+=(d.e=2)\nfi\nexec bash base.sh "${P[@]}"\n'
    (call,) = parse(caller, "wrap.sh").commands
    passed = list(call.words[[w.text for w in call.words].index("base.sh") + 1 :])
    assert [(w.text, w.unknown) for w in passed] == [("a.b=1", ()), ("d.e=2", ("P[1]",))]
    (command,) = parse('run x=1 "$@"\n', "base.sh", arguments=passed).commands
    assert [(w.text, w.unknown) for w in command.words[1:]] == [("x=1", ()), ("a.b=1", ()), ("d.e=2", ("P[1]",))]


def test_arithmetic_is_bash_arithmetic_without_eval():
    assert words_of("A=6\nrun $((A * 2 ** 3 / 5)) $(( -7 / 2 )) $((1 << 70)) $((2 ** 2 ** 100)) $((1/0))\n") == [
        ["run", "9", "-3", "64", "1", "$((1/0))"]  # as bash 5 prints them
    ]
    assert words_of("run $((__import__('os')))\n") == [["run", "$((__import__('os')))"]]


def test_case_patterns_functions_tests_and_bash_c():
    text = (
        "case $MODE in\n  a|b) X=1 ;;\n  *) X=2 ;;\nesac\nf() { echo in; }\n"
        "[[ -n $X && -z $Y ]] && run --x $X\nbash -c 'swift rlhf --rlhf_type grpo'\n"
    )
    commands = parse(text, "s.sh").commands
    assert [[w.text for w in c.words] for c in commands] == [
        ["echo", "in"], ["run", "--x", "2"], ["bash", "-c", "swift rlhf --rlhf_type grpo"],
        ["swift", "rlhf", "--rlhf_type", "grpo"],
    ]  # fmt: skip
    assert commands[1].words[2].unknown == ("X",)  # set inside `case`: not known statically
    assert commands[3].inner and commands[3].line == 7


_FUNCTION = """run_train() {
  local model=$1
  NPROC_PER_NODE=$4 swift rlhf --rlhf_type grpo --model "$model" \\
      --num_generations "$2" --gradient_accumulation_steps "$3" --per_device_train_batch_size 1
}

"""


def test_a_functions_body_runs_with_the_arguments_of_each_call():
    calls = 'run_train Qwen/Qwen3-8B 8 8 2\nif [ -n "$FAST" ]; then run_train m 4 4 1; fi\n'
    parsed = parse(_FUNCTION + calls, "s.sh")
    runs = [(c.line, c.called_at, [w.text for w in c.words[-5:]], c.branch) for c in parsed.commands]
    assert runs == [
        (7, 0, ["run_train", "Qwen/Qwen3-8B", "8", "8", "2"], ()),
        (3, 7, ["8", "--gradient_accumulation_steps", "8", "--per_device_train_batch_size", "1"], ()),
        (8, 0, ["run_train", "m", "4", "4", "1"], ((1, 0),)),
        (3, 8, ["4", "--gradient_accumulation_steps", "4", "--per_device_train_batch_size", "1"], ((1, 0),)),
    ]  # fmt: skip
    assert parsed.commands[1].env["NPROC_PER_NODE"].text == "2" and parsed.commands[1].words[5].text == "Qwen/Qwen3-8B"
    # never called: its body is read as written, its arguments not known
    (alone,) = parse(_FUNCTION, "s.sh").commands
    assert alone.called_at == 0 and alone.words[7].unknown == ("$2",)


def test_a_call_that_breaks_the_groups_is_reported_at_the_body_naming_the_call_and_without_an_edit():
    broken = script(_FUNCTION + "run_train Qwen/Qwen3-8B 8 8 2 || run_train Qwen/Qwen3-8B 6 4 1\n")
    (error,) = [d for d in broken.diagnostics if d.severity is Severity.ERROR]
    assert error.code == "GRPO102" and error.span.line == 4  # 1 x 1 process x 4 steps = 4 completions, groups of 6
    assert "(the function as line 7 calls it: `run_train Qwen/Qwen3-8B 8 8 2 || run_train Qwen/Qwen3-8B 6 4 1`)" in (
        error.message
    )
    assert error.fixes == ()  # an edit of the body would change every call
    fine = script(_FUNCTION + "run_train Qwen/Qwen3-8B 8 8 2 || run_train Qwen/Qwen3-8B 4 4 1\n")
    assert [d.code for d in fine.diagnostics if d.severity is not Severity.INFO] == []
    twice = script(_FUNCTION + "run_train m 1 4 1\nrun_train m 1 8 1\n")  # the same finding from two calls: said once
    assert [(d.code, d.span.line) for d in twice.diagnostics if d.severity is Severity.ERROR] == [("GRPO101", 4)]
    bare = script(_FUNCTION.replace('"$2"', "1") + "run_train\n")  # a call without words is named by its own line
    assert "(the function as line 7 calls it: `run_train`)" in bare.diagnostics[0].message
    alone = script(_FUNCTION)  # no call: the values are not known, nothing is blamed
    assert {d.code for d in alone.diagnostics} == {"GRPO507"}


def test_a_function_that_shifts_its_arguments_hands_on_the_rest():
    text = 'run() {\n  local name=$1\n  shift\n  swift rlhf --rlhf_type grpo --output_dir "$name" "$@"\n}\n'
    text += "run a --num_generations 4\n"
    *_, called = parse(text, "s.sh").commands
    assert [w.text for w in called.words] == [
        "swift",
        "rlhf",
        "--rlhf_type",
        "grpo",
        "--output_dir",
        "a",
        "--num_generations",
        "4",
    ]
    looped = text.replace("  shift\n", "  while [ $# -gt 2 ]; do shift; done\n")  # how far is not known statically
    *_, called = parse(looped, "s.sh").commands
    assert called.words[-1].text == "$@" and called.words[-1].unknown == ("$@",)


def test_calls_are_read_again_only_within_a_bound():
    body = "f() {\n" + "  echo " + "x" * 2_000 + "\n" * 50 + "  swift rlhf --rlhf_type grpo --num_generations $1\n}\n"
    parsed = parse(body + "f 4\n" * 2_000, "s.sh")  # 2,000 calls of a 2 KB body: not 4 MB read again
    called = [c for c in parsed.commands if c.called_at]
    assert 0 < len(called) < 2 * 2_000
    deep = "".join(f"f{i}() {{ f{i + 1} $1; f{i + 1} $1; }}\n" for i in range(30))
    deep += "f30() { swift rlhf --num_generations $1; }\nf0 3\n"
    assert len(parse(deep, "s.sh").commands) < 5_000  # calls within calls (2^30 of them): a thousand are read


def test_a_command_tmux_starts_in_a_new_session_is_read_as_bash_c():
    launch = "accelerate launch --num_processes 2 -m trl.scripts.grpo --num_generations 3 --per_device_train_batch_size"
    text = f'tmux new-session -d -s train -c . "{launch} {{b}} --output_dir o"\n'
    assert codes(text.format(b=2)) == ["GRPO102"]  # 2 x 2 processes = 4 completions, groups of 3
    assert codes(text.format(b=3)) == []
    *_, inner = parse(text.format(b=2), "s.sh").commands
    assert inner.inner and inner.words[0].span.column == 36  # inside the string, at its place in the file
    assert parse(f'tmux send-keys -t train "{launch} 2" Enter\n', "s.sh").commands[-1].words[0].text == "tmux"


def test_a_string_over_several_lines_places_its_commands_at_the_string():
    """bash removes the `\\` continuations inside the quotes: where a word of the string stands is not known."""
    text = 'bash -c "swift rlhf --rlhf_type grpo \\\n  --num_generations 1"\n'
    *_, inner = parse(text, "s.sh").commands
    assert [w.text for w in inner.words][-2:] == ["--num_generations", "1"]
    assert {(w.span.line, w.span.column, w.span.end_line) for w in inner.words} == {(1, 9, 2)}
    one_line = parse('bash -c "swift rlhf --rlhf_type grpo --num_generations 1"\n', "s.sh").commands[-1]
    assert one_line.words[-1].span.column == 56  # on one line: at its own place


def test_a_bash_c_string_with_parts_not_known_before_launch_is_read_with_them_unknown():
    """`nohup bash -c "cd $REPO && $CMD"`: bash expands the string, then reads it as commands. CMD is the script's
    own; REPO and the run's EXTRA are not known, and stay unknown words of the commands read."""
    text = 'CMD="python train.py --num_generations 4 $EXTRA"\nnohup bash -c "cd $REPO && $CMD" > log 2>&1 &\n'
    commands = parse(text, "s.sh").commands
    inner = [c for c in commands if c.inner]
    assert [[w.text for w in c.words] for c in inner] == [
        ["cd", "$REPO"], ["python", "train.py", "--num_generations", "4", "$EXTRA"],
    ]  # fmt: skip
    assert inner[0].words[1].unknown == ("REPO",) and inner[1].words[4].unknown == ("EXTRA",)
    assert inner[1].words[3].known  # the script's own value


def test_a_bash_c_string_a_job_submitter_hands_on_is_read_as_commands():
    """`ray job submit --address=... -- bash -c "..."` (its lines continued with `\\` inside the quotes): the job runs
    the string as bash would; what a command only prints (`echo ... -- bash -c`) is no command."""
    job = (
        'ray job submit --address="http://$HEAD:8265" --runtime-env=env.yaml \\\n  -- bash -c "\n'
        "    python3 -m verl.trainer.main_ppo \\\\\n      algorithm.adv_estimator=grpo \\\\\n"
        '      actor_rollout_ref.rollout.n=1\n"\n'
    )
    inner = [c for c in parse(job, "s.sh").commands if c.inner]
    assert [w.text for w in inner[0].words] == [
        "python3", "-m", "verl.trainer.main_ppo", "algorithm.adv_estimator=grpo", "actor_rollout_ref.rollout.n=1",
    ]  # fmt: skip
    assert inner[0].line == 3
    assert "GRPO101" in codes(job, "--target verl==0.7.0")  # a group of one with the grpo estimator
    printed = job.replace("ray job submit", "echo ray job submit", 1).replace(" -- bash", " bash", 1)
    assert not [c for c in parse(printed, "s.sh").commands if c.inner]


def test_a_bash_c_string_after_a_task_starters_options_is_read_as_commands():
    """open-r1's train.slurm: `srun $SRUN_ARGS bash -c "$LAUNCHER $CMD"`, both variables the script's own. The words
    come from the variables, so each is placed at the string, not at a column its text does not have there."""
    text = (
        'LAUNCH="swift rlhf --rlhf_type grpo"\nARGS=" \\\n  --num_generations 1\n  "\n'
        'SRUN_ARGS="--wait=60 --nodes=1"\nsrun $SRUN_ARGS bash -c "$LAUNCH $ARGS" 2>&1\n'
    )
    inner = [c for c in parse(text, "s.sh").commands if c.inner]
    assert [w.text for w in inner[0].words] == ["swift", "rlhf", "--rlhf_type", "grpo", "--num_generations", "1"]
    assert {(w.span.line, w.span.column) for w in inner[0].words} == {(6, 25)}
    assert "GRPO101" in codes(text)
    assert "GRPO101" not in codes(text.replace("--num_generations 1", "--num_generations 4"))
    assert not [c for c in parse(text.replace("srun $SRUN_ARGS", "echo"), "s.sh").commands if c.inner]


def test_a_command_built_in_a_variable_and_run_by_eval_is_read():
    """`eval ${COMMAND}` (Logic-RL's curriculum scripts): bash joins eval's words and reads them as commands of the
    script itself, which sees every variable, exported or not."""
    text = (
        'BASE="algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=1"\nfor ppl in 3 4; do\n'
        '  COMMAND="python3 -m verl.trainer.main_ppo ${BASE} data.train_files=d/${ppl}.parquet $@"\n'
        "  eval ${COMMAND}\ndone\n"
    )
    (inner,) = [c for c in parse(text, "s.sh").commands if c.inner]
    assert [w.text for w in inner.words][:5] == [
        "python3", "-m", "verl.trainer.main_ppo", "algorithm.adv_estimator=grpo", "actor_rollout_ref.rollout.n=1",
    ]  # fmt: skip
    assert inner.line == 4 and inner.words[-1].unknown  # `$@`: the script's arguments
    assert "GRPO101" in codes(text, "--target verl==0.7.0")
    assert "GRPO101" not in codes(text.replace("rollout.n=1", "rollout.n=4"), "--target verl==0.7.0")


def test_cut_off_hydra_overrides_and_commands_with_their_environment_on_another_line():
    verl = "python3 -m verl.trainer.main_ppo \\\n  a.b=1 \\\n  # c.d=2 \\\n  # e.f=3 \\\n  trainer.nnodes=2\n"
    (cut,) = parse(verl, "s.sh").cutoffs
    assert [w.text for w in cut.lost] == ["trainer.nnodes=2"] and cut.command_line == 1
    swift = "NPROC_PER_NODE=4 \\\nswift rlhf \\\n  --a 1 \\\n  # --b 2 \\\n  --c 3\n"
    (cut,) = parse(swift, "s.sh").cutoffs
    assert cut.command_line == 2 and [w.text for w in cut.lost] == ["--c", "3"]
    # A comment after a finished command, then an ordinary command, is no cut-off.
    assert parse("run --a 1  # note\necho b=c\n", "s.sh").cutoffs == []


def test_an_empty_line_inside_a_continued_command_ends_it():
    text = (
        "swift rlhf \\\n  --rlhf_type grpo \\\n  --per_device_train_batch_size 4 \\\n\n"
        "  --num_generations 4 \\\n  --temperature 0.9\n"
    )
    cut = [d for d in script(text).diagnostics if d.code == "GRPO501"]
    assert [(d.span.line, d.span.column) for d in cut] == [(4, 1)]
    assert "--num_generations, --temperature on line 5" in cut[0].message
    assert "GRPO501" not in codes(text.replace(" \\\n\n", " \\\n"))
    # an empty line after a finished command, then another command: no cut
    assert "GRPO501" not in codes(text.replace("4 \\\n\n", "4\n\necho done\n"))
    # a stray `\` on a command's last line, then an empty line and the next command: no words are lost
    assert "GRPO501" not in codes(text.replace("\n\n  --num_generations", "\n\nswift rlhf --rlhf_type grpo \\\n  --x"))


def test_every_cut_of_a_continued_command_is_said_and_the_run_is_judged_as_written():
    """An empty line, then another one further down, and a space after a `\\`: each ends the command where bash
    reads it; the run is judged with every flag the author wrote (8 x 2 = 16 holds groups of 8), not with the
    defaults the cuts leave."""
    text = (
        "NPROC_PER_NODE=2 \\\nswift rlhf \\\n  --rlhf_type grpo \\\n\n  --per_device_train_batch_size 8 \\\n"
        "  --num_generations 8 \\\n\n  --temperature 0.9 \\ \n  --beta 0.01\n"
    )
    found = script(text).diagnostics
    cuts = [d for d in found if d.code == "GRPO501"]
    assert [(d.span.line, d.span.column) for d in cuts] == [(4, 1), (7, 1), (8, 21)]
    assert "--per_device_train_batch_size, --num_generations on line 5" in cuts[0].message
    assert "a space follows the `\\`" in cuts[2].message and "--beta on line 9" in cuts[2].message
    assert [d.code for d in found] == ["GRPO501"] * 3  # not GRPO102 on the default batch, nor a stray ` ` word
    wrong = text.replace("--num_generations 8", "--num_generations 5")
    group = next(d for d in script(wrong).diagnostics if d.code.startswith("GRPO1"))
    assert "with the words after the empty line 4 and the cuts below it" in group.message
    # a comment's cut, then a blank after the `\\` of the line it cut off: both said, the blank no value of the flag
    after_comment = (
        "swift rlhf --rlhf_type grpo --num_generations 4 --per_device_train_batch_size 4 \\\n  # --a 1 \\\n"
        "  --reward_model m1 m2 \\ \n  --reward_funcs format \\\n"
        "  --reward_weights 0.1 1 1\n"
    )
    found = script(after_comment).diagnostics
    assert [(d.code, d.span.line) for d in found] == [("GRPO501", 2), ("GRPO501", 3)]  # no GRPO403: 2 models + 1
    # a `\\\\` (an escaped backslash) then a blank at a line's end is no continuation at all
    assert parse("echo a \\\\ \n--x 1\n", "s.sh").commands[0].words[-1].text == "\\"
    assert "GRPO501" not in codes("swift rlhf --rlhf_type grpo --temperature 0.9 \\\\ \necho done\n")


def test_an_ms_swift_reward_function_registered_nowhere_stops_the_trainer(tmp_path):
    """`--reward_funcs my_reward`: neither built in nor registered by a plugin (`orms['my_reward'] = ...`)."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    run = (
        "NPROC_PER_NODE=2 swift rlhf --rlhf_type grpo --model m --dataset d --num_generations 4 \\\n"
        "  --per_device_train_batch_size 4 --external_plugins plugin/rewards.py --reward_funcs my_reward format\n"
    )
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "rewards.py").write_text(
        "from swift.plugin import ORM, orms\n\nclass Other(ORM):\n    pass\n"
    )
    (tmp_path / "run.sh").write_text(run)
    args = ("run.sh", "--isolated", "--format", "json", "--target", "swift==3.10.0")
    found = json.loads(run_cli(*args, cwd=tmp_path).stdout)["diagnostics"]
    assert [(d["code"], d["severity"]) for d in found] == [("GRPO006", "error")]  # `format` is built in
    assert "reward_function my_reward is not implemented in swift.plugin" in found[0]["message"]
    (tmp_path / "plugin" / "rewards.py").write_text(
        "from swift.plugin import ORM, orms\n\nclass Mine(ORM):\n    pass\n\norms['my_reward'] = Mine\n"
    )
    assert json.loads(run_cli(*args, cwd=tmp_path).stdout)["diagnostics"] == []
    # a plugin the repository does not hold may register anything
    (tmp_path / "run.sh").write_text(run.replace("plugin/rewards.py", "/opt/plugins/rewards.py").replace("my_", "x_"))
    assert json.loads(run_cli(*args, cwd=tmp_path).stdout)["diagnostics"] == []


def test_a_script_run_under_pdb_is_the_launch(tmp_path):
    run = "python -u -m pdb swift/cli/rlhf.py --rlhf_type grpo --num_generations 2 --per_device_train_batch_size 1\n"
    (tmp_path / "run.sh").write_text(run)
    found = json.loads(run_cli("run.sh", "--format", "json", "--target", "swift==3.10.0", cwd=tmp_path).stdout)
    assert [d["code"] for d in found["diagnostics"]] == ["GRPO102"]  # 1 process x 1 is no whole group of 2
    assert "ms-swift 3.10.0 rejects it" in found["diagnostics"][0]["message"]  # swift's rlhf.py, not a TRL script


def test_cut_off_is_reported_and_batch_findings_say_what_they_assume():
    text = (
        "NPROC_PER_NODE=4 \\\nswift rlhf \\\n  --rlhf_type grpo \\\n  --per_device_train_batch_size 3 \\\n"
        "  # --num_generations 4 \\\n  --num_generations 6\n"
    )
    found = {d.code: d for d in script(text).diagnostics}
    assert "GRPO501" in found and found["GRPO501"].span.line == 5
    assert "--num_generations" in found["GRPO501"].message
    # The run is judged as written, the words after the comment included: 3 x 4 = 12 holds groups of 6, so
    # the cut is the one problem (as bash runs it, num_generations would be its default, 8).
    assert list(found) == ["GRPO501"]
    broken = text.replace("--num_generations 6", "--num_generations 5")
    group = next(d for d in script(broken).diagnostics if d.code.startswith("GRPO1"))
    assert "--num_generations 5" in group.message and "with the words after the comment on line 5" in group.message
    fixed = text.replace("  # --num_generations 4 \\\n", "")
    assert [d.code for d in script(fixed).diagnostics] == []


def test_unknown_values_name_what_the_script_wrote():
    text = 'if [ -n "$BIG" ]; then N=8; else N=4; fi\nswift rlhf --rlhf_type grpo --num_generations ${N}\n'
    (info,) = [d for d in script(text).diagnostics if d.code == "GRPO507"]
    assert info.message.startswith("`${N}` depends on N")


# World size from each launcher -----------------------------------------------------------------

GRPO = "--rlhf_type grpo --per_device_train_batch_size 8 --num_generations 8"
TRL = "--per_device_train_batch_size 8 --num_generations 8"


@pytest.mark.parametrize(
    ("line", "size", "key"),
    [
        (f"NPROC_PER_NODE=4 NNODES=2 swift rlhf {GRPO}", 8, "NPROC_PER_NODE"),
        (f"export NPROC_PER_NODE=6\nswift rlhf {GRPO}", 6, "NPROC_PER_NODE"),
        (f"NNODES=3 swift rlhf {GRPO}", 3, "NNODES"),
        (f"swift rlhf {GRPO}", 1, None),
        (f"NPROC_PER_NODE=4 python -m swift.cli.rlhf {GRPO}", 1, None),
        (f"accelerate launch --num_processes 7 -m trl.scripts.grpo {TRL}", 7, "--num_processes"),
        (f"accelerate launch --num_processes=12 --num_machines 2 train.py {TRL}", 12, "--num_processes"),
        (f"CUDA_VISIBLE_DEVICES=0,1,2 accelerate launch --multi_gpu train.py {TRL}", 3, "CUDA_VISIBLE_DEVICES"),
        (f"torchrun --nproc_per_node 8 --nnodes 2 trl/scripts/grpo.py {TRL}", 16, "--nproc_per_node"),
        (f"torchrun --nproc-per-node=4 -m trl.scripts.grpo {TRL}", 4, "--nproc_per_node"),
        (f"CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node gpu train.py {TRL}", 2, "--nproc_per_node"),
        (f"python -m torch.distributed.run --nproc_per_node 2 train.py {TRL}", 2, "--nproc_per_node"),
        (f"deepspeed --num_gpus 4 --num_nodes 2 train.py {TRL}", 8, "--num_gpus"),
        (f"deepspeed --include localhost:0,1,2 train.py {TRL}", 3, "--include"),
        (f"CUDA_VISIBLE_DEVICES=0,1,2,3 deepspeed train.py {TRL}", 4, "CUDA_VISIBLE_DEVICES"),
        (f"python train_grpo.py {TRL}", 1, None),
        (f"trl grpo --num_processes 4 {TRL}", 4, "--num_processes"),
    ],
)
def test_world_size_of_each_launcher(line, size, key):
    setting = world(line + "\n")
    assert setting.value == size
    assert setting.key == key


def test_accelerate_config_file_gives_the_world_size(tmp_path):
    (tmp_path / "zero2.yaml").write_text("distributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 6\n")
    text = f"accelerate launch --config_file {tmp_path / 'zero2.yaml'} -m trl.scripts.grpo {TRL}\n"
    setting = world(text, root=tmp_path)
    assert setting.value == 6 and "num_processes: 6" in setting.origin
    overridden = world(text.replace("--config_file", "--num_processes 2 --config_file"), root=tmp_path)
    assert overridden.value == 2  # flags beat the YAML, as in accelerate


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (f"torchrun --nnodes 1:4 --nproc_per_node 8 train.py {TRL}", "elastic"),
        (f"NPROC_PER_NODE=$GPUS swift rlhf {GRPO}", "depends on GPUS"),
        (f"accelerate launch train.py {TRL}", "every visible GPU"),
    ],
)
def test_unknown_world_size_is_said_not_guessed(line, reason):
    # 8 per device, groups of 8: valid on any count, so nothing is said and nothing is guessed.
    assert [d.code for d in script(line + "\n").diagnostics if d.code.startswith("GRPO10")] == []
    # Groups of 6: valid on multiples of 3 only; an info says so (never an error for a guessed count).
    diagnostics = script(line.replace("--num_generations 8", "--num_generations 6") + "\n").diagnostics
    (unknown,) = [d for d in diagnostics if d.code == "GRPO106"]
    assert reason in unknown.message and unknown.severity is Severity.INFO
    assert "valid on every multiple of 3 up to 64" in unknown.message
    assert not [d for d in diagnostics if d.code == "GRPO102"]


def test_partly_known_world_size_is_a_multiple_of_the_processes_per_node():
    line = (
        "torchrun --nproc_per_node=8 --nnodes=$WORLD_SIZE train.py --per_device_train_batch_size 3 --num_generations 6"
    )
    diagnostics = script(line + "\n").diagnostics
    assert [d.code for d in diagnostics if d.code in ("GRPO102", "GRPO106")] == []  # 8k x 3 holds groups of 6
    diagnostics = script(line.replace("--num_generations 6", "--num_generations 9") + "\n").diagnostics
    (unknown,) = [d for d in diagnostics if d.code == "GRPO106"]
    assert "a multiple of 8 processes" in unknown.message and "valid on 24 and 48 processes" in unknown.message


def test_world_size_flag_beats_the_launcher():
    assert world(f"NPROC_PER_NODE=4 swift rlhf {GRPO}\n", TARGETS + " --world-size 3").value == 3


# Flags, values and positions ---------------------------------------------------------------------


def test_diagnostics_point_at_the_flag_in_the_script():
    text = "NPROC_PER_NODE=4 swift rlhf \\\n    --rlhf_type grpo \\\n    --num_generations 16 \\\n    --temperature 0\n"
    diagnostics = {d.code: d for d in script(text).diagnostics}
    assert set(diagnostics) == {"GRPO102", "GRPO201"}
    group = diagnostics["GRPO102"]
    assert (group.span.line, group.span.column, group.key) == (3, 5, "--num_generations")
    assert "--num_generations 16" in group.message
    assert diagnostics["GRPO201"].span.line == 4


def test_flag_forms_lists_switches_and_negative_numbers():
    text = (
        "NPROC_PER_NODE=2 swift rlhf --rlhf_type=grpo --reward_funcs accuracy format --reward_weights 1.0 "
        "--use_vllm --vllm_mode colocate --top_k -1 --num_generations 4 --per_device_train_batch_size 2\n"
    )
    result = script(text)
    assert [d.code for d in result.diagnostics if d.code != "GRPO403"] == []
    (plan,) = result.plans
    assert plan.value("reward_funcs") == ["accuracy", "format"] and plan.value("use_vllm") is True
    assert plan.value("top_k") == -1
    # Two reward functions, one weight: the framework rejects it.
    assert [d.code for d in result.diagnostics] == ["GRPO403"]


def test_a_gym_environments_reward_is_one_more_weight_from_ms_swift_4_3():
    """`--use_gym_env true` with vLLM appends `gym_reward` to the rewards the weights are compared with (ms-swift
    4.3.0 on); 4.2 compares them with the reward functions only. In server mode without the flag, the rollout
    server decides, so either count stands."""
    text = (
        "NPROC_PER_NODE=2 swift rlhf --rlhf_type grpo --reward_funcs accuracy format --reward_weights 1 1 0.5 "
        "--use_gym_env true --gym_env my_env --use_vllm true --vllm_mode colocate --num_generations 4\n"
    )

    def weights(text: str, target: str) -> list[str]:
        return [d.message for d in script(text, f"--target swift=={target}").diagnostics if d.code == "GRPO403"]

    assert weights(text, "4.6.0") == []
    assert weights(text, "4.3.0") == []
    (older,) = weights(text, "4.2.0")
    assert "3 weights but there are 2 reward sources" in older
    (off,) = weights(text.replace("--use_gym_env true", "--use_gym_env false"), "4.6.0")
    assert "there are 2 reward sources" in off
    assert weights(text.replace("--use_vllm true", "--use_vllm false"), "4.6.0") != []  # no vLLM: no gym env
    server = text.replace("--use_gym_env true ", "").replace("colocate", "server")
    assert weights(server, "4.6.0") == [] and weights(server.replace(" 0.5", ""), "4.6.0") == []
    (four,) = weights(text.replace(" 0.5", " 0.5 2"), "4.6.0")
    assert "there are 3 reward sources (2 in --reward_funcs + 1 from use_gym_env's reward)" in four


def test_unresolved_values_are_reported_once_and_not_validated():
    result = script(
        "NPROC_PER_NODE=4 swift rlhf --rlhf_type grpo --num_generations $N --per_device_train_batch_size 8\n"
    )
    assert [d.code for d in result.diagnostics] == ["GRPO507"]
    assert "depends on N" in result.diagnostics[0].message


def test_a_group_size_not_known_before_launch_blames_no_default():
    """6 x 2 = 12 holds no group of the default 8, but the script sets the group size itself, to `$N`."""
    text = "NPROC_PER_NODE=2 swift rlhf --rlhf_type grpo --num_generations $N --per_device_train_batch_size 6 {}\n"
    assert [d.code for d in script(text.format("")).diagnostics] == ["GRPO507"]
    assert "are not made" in script(text.format("")).diagnostics[0].message
    # a removed flag is still reported whatever its value
    removed = script(text.format("--tensor_parallel_size $TP"), "--target swift==3.10.0").diagnostics
    assert sorted(d.code for d in removed) == ["GRPO004", "GRPO507", "GRPO507"]


def test_unknown_flag_with_did_you_mean():
    found = script(f"NPROC_PER_NODE=2 swift rlhf {GRPO} --temprature 0.9\n").diagnostics
    (unknown,) = found
    assert unknown.code == "GRPO002" and "temperature" in unknown.message


# Config files named by the script ----------------------------------------------------------------


def test_trl_config_file_is_linted_with_the_script_world_size_and_flags_win(tmp_path):
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("per_device_train_batch_size: 4\nnum_generations: 6\ntemperature: 0.0\n")
    text = f"accelerate launch --num_processes 3 -m trl.scripts.grpo --config {recipe} --temperature 0.9\n"
    result = script(text, root=tmp_path)
    # 4 x 3 = 12 is a multiple of 6; the file's temperature 0 is overridden by the flag.
    assert result.diagnostics == []
    broken = script(text.replace("--num_processes 3", "--num_processes 4"), root=tmp_path)
    (group,) = broken.diagnostics
    assert group.code == "GRPO102" and group.path == str(recipe) and group.span.line == 2
    assert str(recipe) in broken.sources


def test_swift_positional_config_and_env_block(tmp_path):
    config = tmp_path / "grpo.yaml"
    config.write_text(
        "ENV:\n  NPROC_PER_NODE: 3\nrlhf_type: grpo\nper_device_train_batch_size: 2\nnum_generations: 6\n"
    )
    assert script(f"swift rlhf {config}\n", root=tmp_path).plans[0].world_size.value == 3
    # NPROC_PER_NODE in the shell beats the file's ENV (ms-swift >= 4.3: the environment wins).
    result = script(f"NPROC_PER_NODE=2 swift rlhf {config} --num_generations 8\n", root=tmp_path)
    assert result.plans[0].world_size.value == 2
    assert [d.code for d in result.diagnostics] == ["GRPO102"]  # 2 x 2 = 4 holds no group of 8


def test_swift_config_flag_before_4_1_overrides_the_command_line(tmp_path):
    config = tmp_path / "grpo.yaml"
    config.write_text("rlhf_type: grpo\nnum_generations: 3\n")
    text = f"NPROC_PER_NODE=4 swift rlhf --config {config} --num_generations 8 --per_device_train_batch_size 2\n"
    # ms-swift 3.10-4.0 appends the YAML after the flags: num_generations 3 wins, 8 % 3 != 0.
    old = script(text, "--target swift==4.0.0", root=tmp_path)
    assert [(d.code, d.path) for d in old.diagnostics] == [("GRPO102", str(config))]
    # From 4.1 `--config` is no argument at all.
    assert "GRPO002" in [d.code for d in script(text, "--target swift==4.6.0", root=tmp_path).diagnostics]


def test_missing_config_file_is_said(tmp_path):
    result = script(f"trl grpo --num_processes 1 --config {tmp_path / 'nope.yaml'} {TRL}\n")
    (missing,) = result.diagnostics
    assert missing.code == "GRPO001" and "is in no folder the run may start in" in missing.message
    assert missing.severity is Severity.ERROR  # (TRL's grpo script opens it: FileNotFoundError)


def test_a_config_named_by_a_script_is_not_linted_twice(tmp_path):
    (tmp_path / "recipe.yaml").write_text("per_device_train_batch_size: 4\nnum_generations: 6\n")
    (tmp_path / "run.sh").write_text("accelerate launch --num_processes 3 -m trl.scripts.grpo --config recipe.yaml\n")
    result = run_cli(".", "--format", "json", "--target", "trl==1.16.0", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert result.returncode == 0 and data["diagnostics"] == []
    notes = {f["path"]: f["note"] for f in data["summary"]["files"]}
    assert notes["./recipe.yaml"] == "checked as part of ./run.sh"


def test_suppression_in_a_script():
    text = "NPROC_PER_NODE=4 swift rlhf --rlhf_type grpo \\\n    --num_generations 8 \\\n    --temperature 0.1\n"
    assert codes(text) == ["GRPO102", "GRPO205"]
    assert codes(text.replace("0.1\n", "0.1  # grpo-lint: ignore[GRPO205] smoke test\n")) == ["GRPO102"]
    assert codes("# grpo-lint: file-ignore[GRPO205, GRPO102]\n" + text) == []


# GRPO5xx beyond the rule pages -----------------------------------------------------------------


def test_device_map_ratio_not_whole():
    found = script(f"CUDA_VISIBLE_DEVICES=0,1,2,3 NPROC_PER_NODE=6 swift rlhf {GRPO}\n").diagnostics
    (ratio,) = [d for d in found if d.code == "GRPO502"]
    assert '"n_gpu: 4, local_world_size: 6"' in ratio.message


def test_device_map_with_vllm_before_3_6_is_not_checked_by_swift():
    # 3.1-3.5 set USE_FAST_INFERENCE for GRPO with vLLM; is_mp() then returns before its assert.
    text = f"CUDA_VISIBLE_DEVICES=0,1,2,3 NPROC_PER_NODE=2 swift rlhf {GRPO} --use_vllm true\n"
    assert not [d for d in script(text, "--target swift==3.5.0").diagnostics if d.code == "GRPO502"]
    assert [d for d in script(text, "--target swift==3.6.0").diagnostics if d.code == "GRPO502"]
    # ms-swift's own 3.4 example: 8 GPUs, 7 training processes, one GPU left for vLLM.
    seven = f"CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 NPROC_PER_NODE=7 swift rlhf {GRPO} --use_vllm true\n"
    assert not [d for d in script(seven, "--target swift==3.4.0").diagnostics if d.code == "GRPO502"]
    assert [d for d in script(seven, "--target swift==3.6.0").diagnostics if d.code == "GRPO502"]
    # Without vLLM the ratio is asserted in every release.
    plain = seven.replace(" --use_vllm true", "")
    assert [d for d in script(plain, "--target swift==3.4.0").diagnostics if d.code == "GRPO502"]


def test_overlap_when_the_trainer_sets_no_devices():
    text = (
        "CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model m &\n" + f"accelerate launch --num_processes 4 train.py {TRL}\n"
    )
    assert "GRPO504" in codes(text)
    separate = text.replace("--model m", "--model m").replace("=0 trl", "=7 trl")
    assert "GRPO504" not in codes(separate)


def test_trl_server_capacity():
    assert codes("CUDA_VISIBLE_DEVICES=0,1 trl vllm-serve --model m --tensor_parallel_size 2 --data_parallel_size 2\n")
    assert not codes(
        "CUDA_VISIBLE_DEVICES=0,1,2,3 trl vllm-serve --model m --tensor_parallel_size 2 --data_parallel_size 2\n"
    )


def test_plain_python_with_several_gpus():
    assert "GRPO503" in codes(f"CUDA_VISIBLE_DEVICES=0,1 python train_grpo.py {TRL}\n")
    assert "GRPO503" not in codes(f"CUDA_VISIBLE_DEVICES=0 python train_grpo.py {TRL}\n")


def test_plain_python_of_a_repositorys_own_trainer_drives_its_gpus_itself(tmp_path):
    """A script whose GRPOTrainer is the repository's own class (not TRL's) may use several GPUs from one process
    (`--device cuda:0 --device2 cuda:1`, vLLM): a plain `python` bypasses no launcher there."""
    trainer = "class GRPOTrainer:\n    def __init__(self, model):\n        self.model = model\n"
    train = "from training.trainer import GRPOTrainer\n\nGRPOTrainer(model='m').train()\n"
    (tmp_path / "training").mkdir()
    (tmp_path / "training" / "__init__.py").write_text("")
    (tmp_path / "training" / "trainer.py").write_text(trainer)
    (tmp_path / "run_rl.py").write_text(train)
    run = "CUDA_VISIBLE_DEVICES=0,1 python run_rl.py --device cuda:0 --device2 cuda:1\n"
    assert "GRPO503" not in {d.code for d in script(run, root=tmp_path).diagnostics}
    (tmp_path / "run_rl.py").write_text(train.replace("training.trainer", "trl"))
    assert "GRPO503" in {d.code for d in script(run, root=tmp_path).diagnostics}


def test_accelerate_config_named_with_configs_sets_their_world_size(tmp_path):
    (tmp_path / "acc.yaml").write_text("distributed_type: MULTI_GPU\nnum_machines: 1\nnum_processes: 3\n")
    (tmp_path / "cfg.yaml").write_text("per_device_train_batch_size: 2\nnum_generations: 4\n")
    together = run_cli("acc.yaml", "cfg.yaml", "--format", "json", "--target", "trl==1.16.0", cwd=tmp_path)
    (group,) = json.loads(together.stdout)["diagnostics"]
    assert group["code"] == "GRPO102" and "3 processes" in group["message"]
    flag = run_cli("cfg.yaml", "--accelerate-config", "acc.yaml", "--format", "json", cwd=tmp_path)
    assert [d["code"] for d in json.loads(flag.stdout)["diagnostics"]] == ["GRPO102"]
    bad = run_cli("cfg.yaml", "--accelerate-config", "cfg.yaml", cwd=tmp_path)
    assert bad.returncode == 2 and "not an accelerate config" in bad.stderr


def test_accelerate_gpu_ids():
    text = "distributed_type: MULTI_GPU\nnum_machines: 1\nnum_processes: 4\ngpu_ids: 0,1\n"
    result = lint_text(text, "acc.yaml", options_from(TARGETS))
    assert [d.code for d in result.diagnostics] == ["GRPO506"]
    fine = lint_text(text.replace("0,1", "0,1,2,3"), "acc.yaml", options_from(TARGETS))
    assert fine.diagnostics == [] and fine.status == "skipped"


def test_a_deepspeed_config_the_repository_does_not_hold_stops_accelerate(tmp_path):
    """accelerate's DeepSpeed plugin opens `deepspeed_config_file` in every process at start-up."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    config = (
        "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 2\n"
        "deepspeed_config:\n  deepspeed_config_file: configs/ds_stage2.json\n  zero3_init_flag: false\n"
    )
    (tmp_path / "accel.yaml").write_text(config)
    # No file of the repository names it (a leftover of a DPO folder): no run shown uses it, nothing is said.
    assert json.loads(run_cli(".", "--isolated", "--format", "json", cwd=tmp_path).stdout)["diagnostics"] == []
    (tmp_path / "README.md").write_text("accelerate launch --config_file accel.yaml -m trl.scripts.grpo ...\n")
    found = json.loads(run_cli(".", "--isolated", "--format", "json", cwd=tmp_path).stdout)["diagnostics"]
    assert [(d["code"], d["severity"], d["line"], d["column"]) for d in found] == [("GRPO001", "warning", 6, 3)]
    assert "configs/ds_stage2.json" in found[0]["message"] and "Expected a string path" in found[0]["message"]
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "ds_stage2.json").write_text('{"zero_optimization": {"stage": 2}}\n')
    assert json.loads(run_cli(".", "--isolated", "--format", "json", cwd=tmp_path).stdout)["diagnostics"] == []
    # a path not written out is not judged
    (tmp_path / "accel.yaml").write_text(config.replace("configs/ds_stage2.json", "$HOME/ds.json"))
    assert json.loads(run_cli(".", "--isolated", "--format", "json", cwd=tmp_path).stdout)["diagnostics"] == []


# The examples ------------------------------------------------------------------------------------


def test_launch_examples_lint_as_documented():
    examples = ROOT / "examples" / "launch"
    args = ["--target", "trl==1.16.0", "--target", "swift==4.6.0", "--format", "json"]
    for clean in ("swift_server_mode_8gpu.sh", "trl_vllm_server_accelerate.sh", "deepspeed_single_node.sh"):
        result = run_cli(str(examples / clean), *args)
        assert result.returncode == 0, (clean, result.stdout)
    broken = json.loads(run_cli(str(examples / "swift_colocate_broken.sh"), *args).stdout)
    assert sorted(d["code"] for d in broken["diagnostics"]) == ["GRPO102", "GRPO501", "GRPO502"]
    multinode = json.loads(run_cli(str(examples / "torchrun_multinode.sh"), *args).stdout)
    assert [d["code"] for d in multinode["diagnostics"]] == ["GRPO102"]
    assert "16 processes" in multinode["diagnostics"][0]["message"]


# A script cut short, the commands bash would read from it, and the quote left open (line, column, quote).
TRUNCATED = [
    ("cat <<", [["cat"]], None),
    ("cat << ", [["cat"]], None),
    ("echo >", [["echo"]], None),
    ("run 2>", [["run"]], None),
    ("x 2", [["x", "2"]], None),
    ('a "unterminated', [["a", "unterminated"]], (1, 3, '"')),
    ("b 'open", [["b", "open"]], (1, 3, "'")),
    ("$(", [["$("]], None),
    ("${", [["${}"]], None),
]


@pytest.mark.parametrize(("text", "commands", "unclosed"), TRUNCATED)
def test_truncated_input_ends(text, commands, unclosed):
    """Found by the fuzz test: a redirection at the very end of a script once looped forever. The reader ends,
    keeps the words before the cut (a redirection with no target drops nothing else) and says which quote is open."""
    script = parse(text, "s.sh")
    assert [[word.text for word in command.words] for command in script.commands] == commands
    assert script.unclosed == unclosed


def test_fixes_are_written_in_the_script_spelling():
    (greedy,) = [d for d in script(f"NPROC_PER_NODE=2 swift rlhf {GRPO} --temperature 0\n").diagnostics]
    assert greedy.code == "GRPO201" and greedy.fix == "--temperature 0.9 (the default)"
    python = lint_text("GRPOConfig(temperature=0.0)\n", "t.py", options_from(TARGETS + " --world-size 8"))
    (greedy,) = [d for d in python.diagnostics if d.code == "GRPO201"]
    assert greedy.fix == "temperature=1.0 (the default)"


def test_swift_flags_written_as_a_unique_prefix_are_accepted_and_ambiguous_ones_are_not():
    base = "NPROC_PER_NODE=2 swift rlhf --rlhf_type grpo --per_device_train_batch_size 4 --num_generations 8"
    assert codes(f"{base} --remove_unused_column false\n") == []
    assert codes(f"{base} --max 10\n") == ["GRPO002"]


def test_a_config_outside_the_repository_is_not_read(tmp_path):
    # A script may name any path; grpo-lint reads only files inside the linted tree, so a pull
    # request cannot make it print a file of the CI runner (issue: hardening, part two).
    outside = tmp_path / "secret.yaml"
    outside.write_text("SECRET_TOKEN_abc: 1\nnum_generations: 6\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "inside.yaml").write_text("num_generations: 6\n")
    os.symlink(outside, repo / "link.yaml")
    for named in (str(outside), "../secret.yaml", "link.yaml"):
        text = f"accelerate launch --num_processes 4 -m trl.scripts.grpo --config {named} {TRL}\n"
        result = script(text, root=repo)
        (note,) = [d for d in result.diagnostics if d.code == "GRPO001"]
        assert note.severity is Severity.INFO and "outside the repository" in note.message
        assert "SECRET" not in json.dumps([d._asdict() for d in result.diagnostics]) and not result.sources
    # The same script naming a file inside the tree reads it.
    inside = script(f"accelerate launch --num_processes 4 -m trl.scripts.grpo --config inside.yaml {TRL}\n", root=repo)
    assert list(inside.sources) and not [d for d in inside.diagnostics if d.code == "GRPO001"]
    # A walk does not follow the symlink out of the repository either.
    walked = run_cli(".", "--format", "json", "--target", "trl==1.16.0", cwd=repo)
    assert "SECRET" not in walked.stdout and walked.returncode in (0, 1)


@pytest.mark.parametrize(
    ("command", "version", "severity", "text"),
    [
        ("trl grpo", "0.20.0", Severity.ERROR, "Unknown arguments from config file"),
        ("trl grpo", "0.24.0", Severity.WARNING, "ignores it silently"),
        ("trl grpo", "1.16.0", Severity.ERROR, "unrecognized arguments: --my_flag"),
        ("accelerate launch --num_processes 2 -m trl.scripts.grpo", "0.21.0", Severity.ERROR, "Unknown arguments"),
        ("accelerate launch --num_processes 2 -m trl.scripts.grpo", "1.16.0", Severity.WARNING, "ignores it"),
        ("accelerate launch --num_processes 2 train.py", "1.16.0", Severity.ERROR, "Unknown arguments from config"),
        ("accelerate launch --num_processes 2 train.py", "0.16.0", Severity.WARNING, "before 0.19 drops config keys"),
    ],
)
def test_trl_unknown_config_keys_follow_the_program_that_reads_them(tmp_path, command, version, severity, text):
    # TrlParser (trl/scripts/utils.py) stops on unknown config keys from 0.19 on unless asked not to; TRL's own
    # grpo script asks from 0.22, so it drops them; `trl grpo` 0.29+ hands them to `accelerate launch`, which stops.
    # A script of the repository's own is read: its parser's classes are the keys it accepts.
    (tmp_path / "c.yaml").write_text("per_device_train_batch_size: 8\nnum_generations: 8\nmy_flag: 1\n")
    (tmp_path / "train.py").write_text(TRLPARSER_SCRIPT)
    result = script(f"{command} --config c.yaml\n", f"--target trl=={version}", root=tmp_path)
    (unknown,) = [d for d in result.diagnostics if d.code == "GRPO002"]
    assert unknown.severity is severity and text in unknown.message


@pytest.mark.parametrize(
    ("version", "severity", "text"),
    [("0.18.0", Severity.WARNING, "drops a key it does not know"), ("0.20.0", Severity.ERROR, "stops on a key")],
)
def test_a_removed_key_is_what_the_parser_makes_of_any_unknown_key(tmp_path, version, severity, text):
    # `vllm_device` left GRPOConfig in TRL 0.18.0. A script's own TrlParser drops a config key no class has before
    # 0.19 (a warning: the value is not used) and stops on it from 0.19 (an error), as for GRPO002.
    (tmp_path / "c.yaml").write_text("per_device_train_batch_size: 8\nnum_generations: 8\nvllm_device: cuda:1\n")
    (tmp_path / "train.py").write_text(TRLPARSER_SCRIPT)
    result = script(
        "accelerate launch --num_processes 2 train.py --config c.yaml\n", f"--target trl=={version}", root=tmp_path
    )
    (removed,) = [d for d in result.diagnostics if d.code == "GRPO004"]
    assert removed.severity is severity and text in removed.message and "train.py:2 TrlParser" in removed.message


def test_a_script_whose_parser_cannot_be_followed_has_no_unknown_keys(tmp_path):
    """A class grpo-lint cannot resolve (from a package it does not know, made at run time, or a script
    that is not in the repository) leaves the key set unknown: no key is called unknown, and the
    verbose output says so."""
    (tmp_path / "c.yaml").write_text("per_device_train_batch_size: 8\nnum_generations: 8\nmy_flag: 1\n")
    (tmp_path / "train.py").write_text(
        "from trl import GRPOConfig, TrlParser\nfrom somewhere_else import MyArgs\n"
        "parser = TrlParser((MyArgs, GRPOConfig))\n"
    )
    for runs in ("train.py", "missing.py"):
        result = script(f"accelerate launch --num_processes 2 {runs} --config c.yaml\n", root=tmp_path)
        assert [d.code for d in result.diagnostics if d.code == "GRPO002"] == []
        assert any("GRPO002: not checked: the keys the file may hold are not known" in u for u in result.unchecked)
    # The same script, its classes all resolved through a module of the repository, judges the key.
    (tmp_path / "somewhere_else.py").write_text(
        "from dataclasses import dataclass\n@dataclass\nclass MyArgs:\n    a: int = 1\n"
    )
    result = script("accelerate launch --num_processes 2 train.py --config c.yaml\n", root=tmp_path)
    assert [d.key for d in result.diagnostics if d.code == "GRPO002"] == ["my_flag"]


def test_trl_yaml_num_processes_is_read_only_by_trl_grpo_from_0_29(tmp_path):
    config = "num_processes: 3\nper_device_train_batch_size: 8\nnum_generations: 6\n"
    new = lint_text(config, "c.yaml", options_from("--target trl==1.16.0"))
    assert new.plans[0].world_size.value == 3 and not new.diagnostics  # 8 x 3 = 24 holds groups of 6
    old = lint_text(config, "c.yaml", options_from("--target trl==0.20.0"))
    assert not old.plans[0].world_size.key  # not the world size: nothing passes it to the launcher
    assert [d.code for d in old.diagnostics if d.code.startswith("GRPO00")] == ["GRPO002"]


def test_trl_grpo_builds_the_config_in_its_own_process_first(tmp_path):
    # TRL 1.0+ `trl grpo` parses GRPOConfig in the launcher (world size 1): 2 per device x 4 processes
    # holds groups of 8, but 2 x 1 does not, and it stops there (reproduced with GRPOConfig on 1 process).
    (tmp_path / "c.yaml").write_text("num_processes: 4\nper_device_train_batch_size: 2\nnum_generations: 8\n")
    cli = script("trl grpo --config c.yaml\n", "--target trl==1.16.0", root=tmp_path)
    (found,) = [d for d in cli.diagnostics if d.code == "GRPO102"]
    assert "world size is 1" in found.message and "generation_batch_size: 8" in found.fix
    # The same config through accelerate and TRL's script, or `trl grpo` before 1.0, is valid.
    accelerate = script("accelerate launch --num_processes 4 -m trl.scripts.grpo --config c.yaml\n", root=tmp_path)
    assert not [d for d in accelerate.diagnostics if d.code == "GRPO102"]
    old = script("trl grpo --config c.yaml\n", "--target trl==0.29.0", root=tmp_path)
    assert not [d for d in old.diagnostics if d.code == "GRPO102"]
    # With generation_batch_size written, the launcher's check holds too.
    (tmp_path / "c.yaml").write_text(
        "num_processes: 4\nper_device_train_batch_size: 2\nnum_generations: 8\ngeneration_batch_size: 8\n"
    )
    assert not [d for d in script("trl grpo --config c.yaml\n", root=tmp_path).diagnostics if d.code == "GRPO102"]


def test_an_unknown_command_output_is_one_word_when_split():
    # NOW=$(date +%Y%m%d): bash splits the date it prints (no blank), not the command line written for it.
    text = "NOW=$(date +%Y%m%d)\nNAME=run-${NOW}\ncmd trainer.experiment_name=$NAME x=1\n"
    (command,) = parse(text, "s.sh").commands
    assert [w.text for w in command.words] == ["cmd", "trainer.experiment_name=run-$(date +%Y%m%d)", "x=1"]
    # A known value with blanks is still split, as bash does.
    (split,) = parse('ARGS="a=1 b=2"\ncmd $ARGS\n', "s.sh").commands
    assert [w.text for w in split.words] == ["cmd", "a=1", "b=2"]


def test_no_overlap_across_machines():
    server = "CUDA_VISIBLE_DEVICES=0,1 trl vllm-serve --model m &\n"
    trainer = f"CUDA_VISIBLE_DEVICES=0,1 accelerate launch --num_processes 2 train.py {TRL}"
    assert "GRPO504" in codes(server + trainer + "\n")
    # One command per node: the arms of `if NODE_RANK` never run on the same machine.
    per_node = f'if [ "$NODE_RANK" = 0 ]; then\n  {server}else\n  {trainer}\nfi\n'
    assert "GRPO504" not in codes(per_node)
    # The trainer talks to a server on another host.
    assert "GRPO504" not in codes(server + trainer + " --vllm_server_host 10.0.0.2\n")
    assert "GRPO504" in codes(server + trainer + " --vllm_server_host 127.0.0.1\n")
    # Steps `srun` starts run where SLURM places them (open-r1's train.slurm: the server on a node of its own).
    assert "GRPO504" not in codes("srun --nodes=1 --nodelist=$VLLM_NODE " + server + "srun " + trainer + "\n")
    assert "GRPO504" not in codes(server + "srun --nodes=1 bash -c 'accelerate launch train.py'\n")


def test_overlap_message_quotes_the_framework_that_runs():
    server = "CUDA_VISIBLE_DEVICES=0 swift rollout --model m &\n"
    trainer = f"CUDA_VISIBLE_DEVICES=0,1 NPROC_PER_NODE=2 swift rlhf {GRPO} --use_vllm true --vllm_mode server\n"
    (found,) = [d for d in script(server + trainer).diagnostics if d.code == "GRPO504"]
    assert "TRL" not in found.message and "out of GPU memory" in found.message


def test_a_trainer_without_grpo_flags_beside_a_server():
    # TRL server mode: the trainer's config is in a file, so its line has no GRPO flag; it is still the trainer.
    server = "CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model m &\n"
    for trainer in ("accelerate launch train.py --config cfg.yaml\n", "python train.py\n"):
        (found,) = [d for d in script(server + trainer).diagnostics if d.code == "GRPO504"]
        assert "uses" in found.message and "0" in found.message
    assert "GRPO504" not in codes(server + "CUDA_VISIBLE_DEVICES=1,2 accelerate launch train.py\n")
    assert "GRPO504" not in codes("python prepare.py\n" + server)  # before the server started
    assert "GRPO504" not in codes(server.replace(" &", "") + "python train.py\n")  # a foreground server


def test_trl_0_14_vllm_device_auto_needs_a_gpu_after_the_training_ones():
    line = "CUDA_VISIBLE_DEVICES=0,1,2,3 accelerate launch --num_processes {} -m trl.scripts.grpo "
    line += f"{TRL} --use_vllm true\n"
    (found,) = [d for d in script(line.format(4), "--target trl==0.14.0").diagnostics if d.code == "GRPO505"]
    assert "cuda:4" in found.message and found.fix.startswith("--num_processes 3")
    assert not [d for d in script(line.format(3), "--target trl==0.14.0").diagnostics if d.code == "GRPO505"]
    assert not [d for d in script(line.format(4), "--target trl==0.16.0").diagnostics if d.code == "GRPO505"]


def test_plain_command_line_values_are_read_as_pydantic_reads_them_without_it():
    import subprocess
    import sys

    from grpo_lint.frameworks.schema import Schema
    from grpo_lint.frameworks.trl.fields import trl_table
    from grpo_lint.versions import parse_target

    schema = Schema(trl_table(), parse_target("trl==1.16.0").version)
    words = {"num_generations": "8", "temperature": "0.7", "learning_rate": "1e-6", "bf16": "true", "seed": "42"}
    fast, problems = schema.validate(words)
    assert problems == [] and fast == {k: getattr(schema.model.model_validate(words), k) for k in words}
    # a word that is not plainly a number goes to pydantic, which says what is wrong
    assert [p.key for p in schema.validate({"num_generations": "8x"})[1]] == ["num_generations"]
    script = (
        "import sys\nfrom grpo_lint.engine import lint_text\nfrom grpo_lint.options import Options\n"
        "lint_text('accelerate launch --num_processes 2 grpo.py --num_generations 4 --temperature 0.9 "
        "--per_device_train_batch_size 2\\n', 'run.sh', Options(), kind='shell')\n"
        "print('pydantic' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_number_in_a_string_field_is_read_as_pydantic_reads_it_without_it():
    """A copy of verl may record `optim.lr` as a string (its YAML says `lr: 1e-6`, which YAML reads as one);
    a float written there is what pydantic's coerce_numbers_to_str makes it, and pydantic is not needed."""
    import subprocess
    import sys

    from packaging.version import Version

    from grpo_lint.frameworks.fields import FieldTable, spec
    from grpo_lint.frameworks.schema import Schema

    key = "actor_rollout_ref.actor.optim.lr"
    schema = Schema(FieldTable("verl", {key: spec(key, "str?")}), Version("0.4.0"))
    for value in (1e-06, 2e-5, 3, 1.0, 10**20):
        fast, problems = schema.validate({key: value})
        assert problems == [] and fast == {key: schema.model.model_validate({key: value}).model_dump()[key]}
    assert schema.validate({key: True})[1]  # a bool is no number here: pydantic refuses it
    script = (
        "import sys\nfrom packaging.version import Version\n"
        "from grpo_lint.frameworks.fields import FieldTable, spec\nfrom grpo_lint.frameworks.schema import Schema\n"
        f"schema = Schema(FieldTable('verl', {{{key!r}: spec({key!r}, 'str?')}}), Version('0.4.0'))\n"
        f"assert schema.validate({{{key!r}: 1e-06}}) == ({{{key!r}: '1e-06'}}, [])\n"
        "print('pydantic' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# Config files a script writes from a here-document ----------------------------------------------


def test_the_reader_keeps_the_files_a_script_writes_from_here_documents():
    text = (
        "cat > a.yaml << 'EOF'\nx: 1\nEOF\n"  # quoted delimiter: written as is
        "cat <<EOF > b.yaml\ny: $Y\nEOF\n"  # bash expands $Y: not known before the run
        "tee c.yaml d.yaml <<-END\n\tz: 2\n\tEND\n"  # <<- strips the leading tabs
        "python - <<EOF > out.txt\nprint(1)\nEOF\n"  # the program's output, not the here-document
        "echo hi > log.txt\n"
    )
    written = parse(text, "s.sh").written_files
    assert [(w.path.text, w.line, w.command_line, w.expanded, w.text) for w in written] == [
        ("a.yaml", 2, 1, False, "x: 1\n"),
        ("b.yaml", 5, 4, True, "y: $Y\n"),
        ("c.yaml", 8, 7, False, "z: 2\n"),
        ("d.yaml", 8, 7, False, "z: 2\n"),
    ]
    assert [c.words[0].text for c in parse(text, "s.sh").commands] == ["cat", "cat", "tee", "python", "echo"]


def test_a_config_the_script_writes_before_the_launch_is_the_runs_config(tmp_path):
    heredoc = (
        "mkdir -p configs\ncat > configs/run.yaml << 'EOF'\nnum_generations: {n}\nper_device_train_batch_size: 3\nEOF\n"
    )
    launch = "accelerate launch --num_processes 1 -m trl.scripts.grpo --config configs/run.yaml\n"
    (tmp_path / "requirements.txt").write_text("trl==0.20.0\n")
    (tmp_path / "run.sh").write_text(heredoc.format(n=4) + launch)
    report = json.loads(run_cli("--isolated", "--format", "json", "run.sh", cwd=tmp_path).stdout)
    (error,) = [d for d in report["diagnostics"] if d["severity"] == "error"]
    # at the here-document's line in the script: 3 completions per round, groups of 4
    assert (error["code"], error["path"], error["line"]) == ("GRPO102", "run.sh", 3)
    (tmp_path / "run.sh").write_text(heredoc.format(n=3) + launch)
    report = json.loads(run_cli("--isolated", "--format", "json", "run.sh", cwd=tmp_path).stdout)
    assert [d for d in report["diagnostics"] if d["severity"] != "info"] == []
    # written after the launch (or with $VARS bash fills in): not the run's config, and not blamed
    (tmp_path / "run.sh").write_text(launch + heredoc.format(n=4))
    report = json.loads(run_cli("--isolated", "--format", "json", "run.sh", cwd=tmp_path).stdout)
    assert [d["code"] for d in report["diagnostics"] if d["severity"] == "error"] == []
    expanded = heredoc.replace("'EOF'", "EOF").format(n="$N")
    (tmp_path / "run.sh").write_text("N=4\n" + expanded + launch)
    report = json.loads(run_cli("--isolated", "--format", "json", "run.sh", cwd=tmp_path).stdout)
    assert [d["code"] for d in report["diagnostics"] if d["severity"] == "error"] == []


def test_two_launches_of_one_config_report_its_problem_once(tmp_path):
    (tmp_path / "requirements.txt").write_text("trl==0.20.0\n")
    (tmp_path / "c.yaml").write_text("num_generations: 8\nper_device_train_batch_size: 3\n")
    launch = "accelerate launch --num_processes 1 -m trl.scripts.grpo --config c.yaml{more}\n"
    (tmp_path / "run.sh").write_text(launch.format(more="") + launch.format(more=" --seed 3"))
    report = json.loads(run_cli("--isolated", "--format", "json", ".", cwd=tmp_path).stdout)
    assert [(d["path"], d["line"], d["code"]) for d in report["diagnostics"]] == [("c.yaml", 1, "GRPO102")]
    # a different problem at the same place is still said
    (tmp_path / "run.sh").write_text(launch.format(more="") + launch.format(more=" --per_device_train_batch_size 5"))
    report = json.loads(run_cli("--isolated", "--format", "json", ".", cwd=tmp_path).stdout)
    assert len([d for d in report["diagnostics"] if d["code"] == "GRPO102"]) == 2


def test_a_python_program_the_script_gives_python_as_a_here_document_is_read_as_python(tmp_path):
    program = (
        "from trl import GRPOConfig, GRPOTrainer\n"
        'cfg = GRPOConfig(output_dir="o", num_generations=4, per_device_train_batch_size=4, temperature={t})\n'
        'GRPOTrainer(model="m", args=cfg).train()\n'
    )
    (tmp_path / "requirements.txt").write_text("trl==0.20.0\n")
    run = "#!/bin/bash\nset -e\npython3 - << 'EOF'\n{program}EOF\n"
    (tmp_path / "run.sh").write_text(run.format(program=program.format(t="0.0")))
    report = json.loads(run_cli("--isolated", "--format", "json", "run.sh", cwd=tmp_path).stdout)
    (greedy,) = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert (greedy["code"], greedy["path"], greedy["line"]) == ("GRPO201", "run.sh", 5)  # the script's own line
    (tmp_path / "run.sh").write_text(run.format(program=program.format(t="0.9")))
    report = json.loads(run_cli("--isolated", "--format", "json", "run.sh", cwd=tmp_path).stdout)
    assert [d for d in report["diagnostics"] if d["severity"] != "info"] == []
    assert report["summary"]["files"][0]["status"] == "linted"
    # bash fills `$T` in first: what the program says is not known before the run
    expanded = run.replace("'EOF'", "EOF").format(program=program.format(t="$T"))
    (tmp_path / "run.sh").write_text("T=0.0\n" + expanded)
    report = json.loads(run_cli("--isolated", "--format", "json", "run.sh", cwd=tmp_path).stdout)
    assert [d for d in report["diagnostics"] if d["severity"] == "error"] == []
    # `<<-` takes the tabs off: the problem is said, with no edit at a column that is not the script's
    batch = program.replace("per_device_train_batch_size=4", "per_device_train_batch_size=3")
    (tmp_path / "run.sh").write_text(run.format(program=batch.format(t="0.9")))
    report = json.loads(run_cli("--isolated", "--format", "json", "--world-size", "1", "run.sh", cwd=tmp_path).stdout)
    (batch_error,) = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert batch_error["code"] == "GRPO102" and batch_error["fix"]["edits"]  # an edit of the script's line
    tabbed = "python3 - <<- 'EOF'\n" + "".join("\t" + line + "\n" for line in batch.format(t="0.9").splitlines())
    (tmp_path / "run.sh").write_text(tabbed + "\tEOF\n")
    report = json.loads(run_cli("--isolated", "--format", "json", "--world-size", "1", "run.sh", cwd=tmp_path).stdout)
    (batch_error,) = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert batch_error["code"] == "GRPO102" and batch_error["fix"]["edits"] == []


SKY_TASK = """\
resources:
  accelerators: H100:8
num_nodes: 2
setup: pip install verl==0.7.0
run: |
  if [ "$SKYPILOT_NODE_RANK" == "0" ]; then
    python3 -m verl.trainer.main_ppo \\
      algorithm.adv_estimator=grpo \\
      actor_rollout_ref.rollout.n={n}
  fi
"""


def test_the_run_commands_of_a_skypilot_task_are_a_launch_script_at_their_lines(tmp_path):
    """`run: |` of a SkyPilot task (`sky launch task.yaml`) is the bash every node runs: its launches are linted, each
    diagnostic at its line and column of the YAML file."""
    (tmp_path / "task.yaml").write_text(SKY_TASK.format(n=1))
    found = run_cli("--isolated", "--target", "verl==0.7.0", "--format", "json", "task.yaml", cwd=tmp_path)
    (group,) = [d for d in json.loads(found.stdout)["diagnostics"] if d["code"] == "GRPO101"]
    assert (group["line"], group["column"]) == (9, 7)
    (tmp_path / "task.yaml").write_text(SKY_TASK.format(n=8))
    found = run_cli("--isolated", "--target", "verl==0.7.0", "--format", "json", "task.yaml", cwd=tmp_path)
    assert "GRPO101" not in [d["code"] for d in json.loads(found.stdout)["diagnostics"]]
    # a `run:` key of a file that is no task (no resources, nodes, setup, ...) is no script
    (tmp_path / "other.yaml").write_text("run: |\n  python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=1\n")
    found = run_cli("--isolated", "--target", "verl==0.7.0", "--format", "json", "other.yaml", cwd=tmp_path)
    assert json.loads(found.stdout)["diagnostics"] == []


def test_a_command_srun_or_mpirun_starts_once_per_task_has_no_known_process_count():
    """`srun --ntasks=4 python -m trl.scripts.grpo ...` starts the command once per task: the copies form one run of
    4 processes when the job's environment maps SLURM's task ids to RANK, or 4 runs of one process each when it does
    not. The command shows neither, so no verdict rests on the one process of a plain `python` command."""
    flags = "--num_generations 8 --per_device_train_batch_size 2 --gradient_accumulation_steps 1\n"
    plain = "python -m trl.scripts.grpo " + flags
    assert "GRPO102" in codes(plain)  # one process: a generation batch of 2 holds no group of 8
    for starter in ("srun --ntasks=4 ", "mpirun -np 4 ", "nohup srun "):
        found = codes(starter + plain)
        assert "GRPO102" not in found and "GRPO106" in found, starter
    assert "GRPO102" in codes("nohup " + plain)  # a wrapper that starts it once


def test_a_variable_read_under_set_u_before_its_default_stops_the_script():
    """`set -euo pipefail`, then `NAME=${NAME:-run_${BACKEND}}` on a line above `BACKEND=${BACKEND:-vllm}`: bash
    expands `$BACKEND` while it is unset and exits ("BACKEND: unbound variable") before the launch below."""
    launch = "swift rlhf --rlhf_type grpo --num_generations 4 --per_device_train_batch_size 4 --run_name $NAME\n"
    text = "set -xeuo pipefail\nNAME=${NAME:-run_${BACKEND}_x}\nBACKEND=${BACKEND:-vllm}\n" + launch
    found = [d for d in script(text).diagnostics if d.code == "GRPO508"]
    assert [(d.span.line, d.span.column) for d in found] == [(2, 18)] and "BACKEND: unbound variable" in found[
        0
    ].message
    # the default first: fine; no `set -u`: fine; `${BACKEND:-}`: fine; a read inside a function: not judged
    fixed = "set -xeuo pipefail\nBACKEND=${BACKEND:-vllm}\nNAME=${NAME:-run_${BACKEND}_x}\n" + launch
    assert "GRPO508" not in codes(fixed)
    assert "GRPO508" not in codes(text.replace("set -xeuo pipefail", "set -xeo pipefail"))
    assert "GRPO508" not in codes(text.replace("run_${BACKEND}_x", "run_${BACKEND:-}_x"))
    assert "GRPO508" not in codes(text.replace("set -xeuo pipefail\n", "set -u\nf() { echo $BACKEND; }\n"))
    assert "GRPO508" not in codes(text.replace("set -xeuo pipefail\n", "set -u\nset +u\n"))
    # a variable the script never defaults is the caller's to export: not judged
    assert "GRPO508" not in codes(text.replace("BACKEND=${BACKEND:-vllm}\n", ""))


def test_an_unquoted_array_keeps_each_elements_unknown_part_with_its_own_word():
    """`${A[@]}` unquoted: an element through a folder not shown (`$(realpath "$D/..")/x.py`, blanks in its written
    text) is one word, and the literal elements beside it stay known (the batch checks read them)."""
    from grpo_lint.sources.shell import parse

    script = parse(
        'D="$(realpath "$(dirname "$0")/..")"\nA=(\n  --agent $D/a.py\n\n  --n 8\n)\npython x.py ${A[@]}\n', "x.sh"
    )
    words = [(w.text, bool(w.unknown)) for w in script.commands[-1].words]
    assert words == [
        ("python", False), ("x.py", False), ("--agent", False), ('$(realpath "$(dirname "$0")/..")/a.py', True),
        ("--n", False), ("8", False),
    ]  # fmt: skip


SERVER_THEN_TRAINING = """\
CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model Qwen/Qwen2.5-0.5B --port 8000{end}

CUDA_VISIBLE_DEVICES=1,2 accelerate launch --num_processes 2 train.py \\
    --use_vllm true --vllm_mode server --num_generations 4 --per_device_train_batch_size 4
"""


@pytest.mark.parametrize(
    ("end", "name", "blocks"),
    [
        ("", "scripts/run.sh", True),  # the shell waits for the server: the training never starts
        (" &", "scripts/run.sh", False),
        (" > server.log 2>&1 &", "scripts/run.sh", False),
        ("", "examples/run.sh", False),  # a documentation script: steps for shells of their own
    ],
)
def test_a_rollout_server_in_the_foreground_holds_the_training_back(end, name, blocks):
    found = [
        d for d in script(SERVER_THEN_TRAINING.format(end=end), name=name).diagnostics if "foreground" in d.message
    ]
    assert [(d.code, d.span.line, d.span.column) for d in found] == ([("GRPO508", 1, 24)] if blocks else [])


def test_a_foreground_server_without_a_training_after_it_or_in_another_arm_is_not_judged():
    alone = "CUDA_VISIBLE_DEVICES=0 trl vllm-serve --model Qwen/Qwen2.5-0.5B\n"
    assert not any("foreground" in d.message for d in script(alone, name="scripts/serve.sh").diagnostics)
    arms = (
        'if [ "$1" = serve ]; then\n  trl vllm-serve --model Qwen/Qwen2.5-0.5B\nelse\n'
        "  accelerate launch --num_processes 2 train.py --num_generations 4 --per_device_train_batch_size 4\nfi\n"
    )
    assert not any("foreground" in d.message for d in script(arms, name="scripts/run.sh").diagnostics)
    # a file of runs to copy one by one: a training, then a server and another training
    notes = (
        "accelerate launch --num_processes 2 train.py --num_generations 4 --per_device_train_batch_size 4\n\n"
        + SERVER_THEN_TRAINING.format(end="")
    )
    assert not any("foreground" in d.message for d in script(notes, name="scripts/run.sh").diagnostics)


VERL_GRPO_RUN = "python3 -m verl.trainer.main_ppo algorithm.adv_estimator=grpo actor_rollout_ref.rollout.n=8 "


def verl_messages(code: str, words: str, target: str) -> list[str]:
    """The messages of one rule for a verl GRPO launch with these overrides, at this release."""
    return [d.message for d in script(VERL_GRPO_RUN + words + "\n", f"--target {target}").diagnostics if d.code == code]


def test_critic_settings_of_a_run_whose_estimator_builds_no_critic_do_nothing():
    """verl builds a critic only for gae (or with critic.enable=true, 0.6 on): GRPO015 says a GRPO run's critic.*
    settings do nothing, but not critic.strategy (main_ppo reads it anyway) nor a key another key interpolates."""
    base = VERL_GRPO_RUN

    def found(words: str, target: str = "verl==0.9.1") -> list[str]:
        return verl_messages("GRPO015", words, target)

    (message,) = found("critic.optim.lr=1e-5 critic.model.path=m")
    assert message.startswith(
        "`critic.optim.lr` and 1 more critic setting have no effect: algorithm.adv_estimator grpo"
    )
    assert len(found("critic.optim.lr=1e-5", "verl==0.4.1")) == 1
    assert found("critic.optim.lr=1e-5 critic.enable=true") == []  # a critic is built after all
    assert len(found("critic.optim.lr=1e-5 critic.enable=null")) == 1  # (null: the estimator decides)
    assert found("critic.strategy=fsdp2") == []
    assert found("critic.forward_max_token_len_per_gpu=8192") == []  # reward_model's takes it (0.4 on)
    assert [d.code for d in script(base.replace("grpo", "gae") + "critic.optim.lr=1e-5\n", "--target verl==0.9.1")
            .diagnostics if d.code == "GRPO015"] == []  # fmt: skip


def test_kl_controller_settings_of_a_run_with_no_kl_penalty_in_the_reward_do_nothing():
    """verl reads algorithm.kl_ctrl.* only to put a KL penalty in the reward: from 0.4.0 only with
    use_kl_in_reward=true; a verl 0.1 copy (TinyZero's) only with the actor's KL loss off (GRPO016)."""

    def found(words: str, target: str = "verl==0.9.1") -> list[str]:
        return verl_messages("GRPO016", words, target)

    (message,) = found("actor_rollout_ref.actor.use_kl_loss=true algorithm.kl_ctrl.kl_coef=0.01")
    assert message.startswith(
        "`algorithm.kl_ctrl.kl_coef` has no effect: algorithm.use_kl_in_reward (default) is false"
    )
    assert "the actor's loss (actor_rollout_ref.actor.kl_loss_coef)" in message
    assert len(found("algorithm.kl_ctrl.kl_coef=0.01 algorithm.kl_penalty=abs", "verl==0.4.1")) == 1
    assert found("algorithm.use_kl_in_reward=true algorithm.kl_ctrl.kl_coef=0.01") == []  # the penalty is applied
    assert found("algorithm.kl_ctrl.kl_coef=0.0") == []  # (0 says there is no penalty: nothing is lost)
    assert found("algorithm.kl_ctrl.kl_coef=0.0 algorithm.kl_ctrl.target_kl=0.0") == []  # (nor do its other settings)
    assert found("algorithm.use_kl_in_reward=$KL algorithm.kl_ctrl.kl_coef=0.01") == []  # known only at launch


def test_bounds_are_only_those_something_enforces(tmp_path):
    # transformers checks warmup_ratio in TrainingArguments.__post_init__; nothing checks num_train_epochs (max_steps
    # overrides it), max_steps, max_grad_norm or data_seed: a value below 0 there starts the run.
    base = "per_device_train_batch_size: 8\nnum_generations: 8\n"
    (tmp_path / "ok.yaml").write_text(base + "num_train_epochs: -1\nmax_steps: 500\nmax_grad_norm: -1\ndata_seed: -3\n")
    (tmp_path / "bad.yaml").write_text(base + "warmup_ratio: 1.5\n")
    for name, expected in (("ok.yaml", []), ("bad.yaml", ["GRPO003"])):
        result = script(
            f"accelerate launch --num_processes 2 -m trl.scripts.grpo --config {name}\n",
            "--target trl==0.18.0",
            root=tmp_path,
        )
        assert [d.code for d in result.diagnostics if d.code == "GRPO003"] == expected


def test_a_missing_config_stops_a_run_whose_trlparser_opens_it(tmp_path):
    # TrlParser.parse_args_and_config opens `--config` at start-up: a file in no folder the run may start in stops it.
    launch = "accelerate launch --num_processes 2 {program} --config recipes/missing.yaml --num_generations 2\n"
    result = script(launch.format(program="-m trl.scripts.grpo"), "--target trl==0.18.0", root=tmp_path)
    (missing,) = [d for d in result.diagnostics if d.code == "GRPO001"]
    assert missing.severity is Severity.ERROR and "FileNotFoundError" in missing.message
    # A script whose own parser reads the flags and is no TrlParser may do anything with the name: only a warning.
    (tmp_path / "train.py").write_text(
        "import argparse\nfrom trl import GRPOConfig, GRPOTrainer\n"
        "parser = argparse.ArgumentParser()\nparser.add_argument('--config')\n"
        "parser.add_argument('--num_generations')\n"
        "args = parser.parse_args()\nGRPOTrainer(args=GRPOConfig(num_generations=int(args.num_generations)))\n"
    )
    result = script(launch.format(program="train.py"), "--target trl==0.18.0", root=tmp_path)
    assert [d.severity for d in result.diagnostics if d.code == "GRPO001"] == [Severity.WARNING]


def test_a_field_of_an_unrelated_scripts_class_is_not_a_key_of_the_shown_parser(tmp_path):
    # open-r1 forks: `dataset_split` is a field of scripts/compute_pass_rate.py's own class, not of any class grpo.py's
    # TrlParser has; the config grpo.py reads drops it (TrlParser before 0.19).
    (tmp_path / "c.yaml").write_text("per_device_train_batch_size: 8\nnum_generations: 8\ndataset_split: train\n")
    (tmp_path / "train.py").write_text(TRLPARSER_SCRIPT)
    (tmp_path / "other.py").write_text(
        "from dataclasses import dataclass\nfrom transformers import HfArgumentParser\n"
        "@dataclass\nclass PassRateArgs:\n    dataset_split: str = 'train'\n"
        "(args,) = HfArgumentParser(PassRateArgs).parse_args_into_dataclasses()\n"
    )
    result = script(
        "accelerate launch --num_processes 2 train.py --config c.yaml\n", "--target trl==0.18.0", root=tmp_path
    )
    (dropped,) = [d for d in result.diagnostics if d.code == "GRPO002"]
    assert dropped.severity is Severity.WARNING and "`dataset_split`" in dropped.message
    # The same key in a class of the script's own parser is its key.
    (tmp_path / "train.py").write_text(
        "from dataclasses import dataclass\nfrom trl import GRPOConfig, ModelConfig, TrlParser\n"
        "@dataclass\nclass Args:\n    dataset_split: str = 'train'\n"
        "parser = TrlParser((Args, GRPOConfig, ModelConfig))\n"
    )
    result = script(
        "accelerate launch --num_processes 2 train.py --config c.yaml\n", "--target trl==0.18.0", root=tmp_path
    )
    assert [d.code for d in result.diagnostics if d.code == "GRPO002"] == []


def test_a_flag_left_without_its_value_stops_the_parser():
    # argparse (HfArgumentParser, OpenRLHF's flags): a field that takes a value, followed by another flag or by an
    # unquoted variable the script sets to nothing, stops at start-up ("expected one argument"); a switch takes none.
    run = "accelerate launch --num_processes 2 -m trl.scripts.grpo --dataset_name {value} --num_generations 2 --bf16\n"

    def found(text: str) -> list[tuple[int, str]]:
        result = script(text, "--target trl==0.18.0")
        return [(d.span.line, d.key) for d in result.diagnostics if d.code == "GRPO003"]

    assert found(run.format(value="")) == [(1, "--dataset_name")]
    assert found('DATA=""\n' + run.format(value="$DATA")) == [(2, "--dataset_name")]
    assert found(run.format(value="trl-lib/tldr")) == []
    assert found(run.format(value="${DATA:-}")) == []  # (the caller may export DATA)
    assert found(run.format(value="$1")) == []  # (a script's argument)
    assert found(run.format(value="trl-lib/tldr").replace("--bf16", "--gradient_checkpointing")) == []  # switches


def test_a_flag_of_the_scripts_own_class_left_without_its_value_stops_the_parser(tmp_path):
    # VLM-R1: `image_folders=""` ... `--image_folders $image_folders`, a `str` field of the script's own class.
    (tmp_path / "train.py").write_text(
        "from dataclasses import dataclass, field\nfrom typing import Optional\n"
        "from trl import GRPOConfig, ModelConfig, TrlParser\n"
        "@dataclass\nclass Args:\n    image_folders: str = field(default=None)\n    sizes: Optional[list[int]] = None\n"
        "    freeze_vision: bool = False\n"
        "parser = TrlParser((Args, GRPOConfig, ModelConfig))\n"
    )
    run = 'image_folders=""\ntorchrun --nproc_per_node 2 train.py --num_generations 2 {flags}\n'

    def found(flags: str) -> list[tuple[str, str]]:
        result = script(run.format(flags=flags), "--target trl==0.18.0", root=tmp_path)
        return [(d.key, d.message.split('"')[1]) for d in result.diagnostics if d.code == "GRPO003"]

    assert found("--image_folders $image_folders --freeze_vision") == [
        ("--image_folders", "error: argument --image_folders: expected one argument")
    ]
    assert found("--sizes --freeze_vision") == [("--sizes", "error: argument --sizes: expected at least one argument")]
    assert found("--image_folders /data --freeze_vision --sizes 1 2") == []


def test_a_backslash_before_a_blank_is_said_and_words_after_a_cut_are_marked():
    # `\  # note`: the `\` escapes the space (a word of its own, which Hydra cannot parse) and the `#` after it starts a
    # comment that cuts the command (GRPO501); `\<TAB># note` further down makes `<TAB>#` a word. Those later words are
    # found by reading the command as written: said so.
    text = (
        "python3 -m verl.trainer.main_ppo \\\n"
        "    algorithm.adv_estimator=grpo \\  # the estimator\n"
        "    actor_rollout_ref.rollout.n=4 \\\n"
        "    actor_rollout_ref.model.use_remove_padding=True \\\t# note\n"
    )
    found = {(d.code, d.span.line): d for d in script(text, "--target verl==0.7.1").diagnostics}
    first, later = found[("GRPO001", 2)], found[("GRPO001", 4)]
    assert "escapes the blank after it, not the line's end" in first.message and "end the line" in (first.fix or "")
    assert "with the words after the comment on line 2" in later.message
    assert "with the words after the comment" not in first.message
    assert ("GRPO501", 2) in found


def test_a_deepspeed_file_the_training_arguments_cannot_open_stops_the_run(tmp_path):
    # TrainingArguments.__post_init__ opens `--deepspeed` as JSON (accelerate's HfDeepSpeedConfig): a path in no folder
    # the run may start in, or an accelerate YAML given in its place, stops the run; ms-swift's own names are no paths.
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "ds.json").write_text('{"zero_optimization": {"stage": 2}}\n')
    (tmp_path / "configs" / "acc.yaml").write_text("distributed_type: DEEPSPEED\nnum_processes: 2\n")
    run = "accelerate launch --num_processes 2 -m trl.scripts.grpo --num_generations 2 --deepspeed {path}\n"

    def found(text: str, target: str = "trl==0.18.0") -> list[str]:
        result = script(text, f"--target {target}", root=tmp_path)
        return [d.message.split(":")[0] for d in result.diagnostics if d.code == "GRPO001"]

    assert found(run.format(path="configs/zero2.json")) == [
        "the DeepSpeed config configs/zero2.json is in no folder the run may start in"
    ]
    assert found(run.format(path="configs/acc.yaml")) == [
        "the DeepSpeed config configs/acc.yaml is YAML (an accelerate config?)"
    ]
    assert found(run.format(path="configs/ds.json")) == []
    assert found(run.format(path="$DS_CONFIG")) == []  # (known at launch)
    swift = "NPROC_PER_NODE=2 swift rlhf --rlhf_type grpo --num_generations 2 --deepspeed zero2\n"
    assert found(swift, "swift==3.10.0") == []


def test_a_required_flag_nothing_gives_stops_the_parser(tmp_path):
    # HfArgumentParser makes a field with no default a required flag: TRL's ScriptArguments.dataset_name before 0.18.0,
    # and a field of the script's own class; a `--config` file may give it (TrlParser makes it a default).
    (tmp_path / "train.py").write_text(
        "from dataclasses import dataclass, field\n"
        "from trl import GRPOConfig, ModelConfig, ScriptArguments, TrlParser\n"
        "@dataclass\nclass Args(ScriptArguments):\n    image_root: str = field(metadata={'help': 'images'})\n"
        "parser = TrlParser((Args, GRPOConfig, ModelConfig))\n"
    )
    (tmp_path / "c.yaml").write_text("dataset_name: d\nimage_root: /data\n")
    run = "torchrun --nproc_per_node 2 train.py --num_generations 2 {flags}\n"

    def found(flags: str, target: str = "trl==0.17.0") -> list[str]:
        result = script(run.format(flags=flags), f"--target {target}", root=tmp_path)
        return [d.message.split(" (")[0] for d in result.diagnostics if d.code == "GRPO010"]

    assert found("") == [
        "--dataset_name, --image_root are required by train.py:6 TrlParser((Args, GRPOConfig, ModelConfig))"
    ]
    assert found("--image_root /data") == [
        "--dataset_name is required by train.py:6 TrlParser((Args, GRPOConfig, ModelConfig))"
    ]
    assert found("--image_root /data", "trl==0.18.0") == []  # (dataset_name: Optional, default None, from 0.18.0)
    assert found("--image_root /data --dataset_name d") == []
    assert found("--config c.yaml") == []
    assert found("$EXTRA_ARGS") == []  # (the words of a variable may give them)


def test_a_module_the_launched_script_imports_at_once_that_does_not_compile(tmp_path):
    # IANNXANG/VLM-R1: every entry imports vlm_modules, whose qwen_module.py has an indentation error: Python stops
    # before the run starts. An import under `try` (or inside a function) is not made at once: not judged.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from .broken import helper\n")
    (tmp_path / "pkg" / "broken.py").write_text("def helper():\nreturn 1\n")
    (tmp_path / "train.py").write_text(
        "from pkg import helper\nfrom trl import GRPOConfig, TrlParser\n"
        "(config,) = TrlParser((GRPOConfig,)).parse_args_and_config()\n"
    )
    (tmp_path / "pkg" / "escapes.py").write_text(
        "import re\nDIGITS = re.compile('\\d+')\n"
    )  # (compiles, with a warning)
    (tmp_path / "pkg" / "__init__.py").write_text("from .escapes import DIGITS\nfrom .broken import helper\n")
    run = "accelerate launch --num_processes 2 train.py --num_generations 2\n"
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        result = script(run, "--target trl==0.18.0", root=tmp_path)
    assert [str(w.message) for w in said] == []  # (what Python's compiler warns of in the user's code is not printed)
    (found,) = [d for d in result.diagnostics if d.code == "GRPO508"]
    assert (
        "imports at once `pkg/__init__.py` -> `pkg/broken.py`, which does not compile (pkg/broken.py:2" in found.message
    )
    (tmp_path / "train.py").write_text(
        "try:\n    from pkg import helper\nexcept Exception:\n    helper = None\n"
        "from trl import GRPOConfig, TrlParser\n(config,) = TrlParser((GRPOConfig,)).parse_args_and_config()\n"
    )
    assert [d for d in script(run, "--target trl==0.18.0", root=tmp_path).diagnostics if d.code == "GRPO508"] == []
