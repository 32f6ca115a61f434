"""Arbitrary input never crashes the linter or hangs it."""

from __future__ import annotations

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from grpo_lint.engine import guarded, lint_text
from grpo_lint.options import Options
from grpo_lint.patterns import lazy

KEYS = st.sampled_from([
    "num_generations", "per_device_train_batch_size", "gradient_accumulation_steps", "temperature",
    "top_p", "top_k", "generation_batch_size", "steps_per_generation", "num_processes", "use_vllm",
    "vllm_mode", "reward_funcs", "reward_weights", "generation_kwargs", "ENV", "rlhf_type", "scale_rewards",
    "eval_strategy", "per_device_eval_batch_size", "num_generations_eval", "vllm_server_host", "seed",
])  # fmt: skip
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.floats(allow_nan=True), st.text(max_size=12)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8) | KEYS, inner, max_size=3),
    max_leaves=8,
)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def never_fails(text: str, name: str, options: Options, kind: str | None = None):
    """Lint as a run lints a file, through the engine's guard: a bug of grpo-lint is GRPO000 there."""
    result = guarded(name, options, lint_text, text, name, options, kind)
    assert all(d.code != "GRPO000" for d in result.diagnostics), result.diagnostics
    return result


@FAST
@given(st.text(max_size=300))
def test_arbitrary_text_never_crashes(text):
    for framework in (None, "trl", "swift"):
        never_fails(text, "x.yaml", Options(framework=framework))


@FAST
@given(st.dictionaries(KEYS, VALUES, max_size=8), st.sampled_from([None, "trl", "swift"]), st.integers(1, 64))
def test_arbitrary_yaml_configs_never_crash(config, framework, world):
    text = yaml.safe_dump(config)
    for version in ("trl==0.14.0", "trl==0.18.0", "trl==1.16.0", "swift==3.2.0", "swift==3.5.1", "swift==4.6.0"):
        from grpo_lint.versions import parse_target

        target = parse_target(version)
        options = Options(targets={target.framework: target}, framework=framework, world_size=world)
        result = never_fails(text, "x.yaml", options)
        assert all(d.code.startswith("GRPO") for d in result.diagnostics)


def test_alias_bomb_is_refused_quickly():
    bomb = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    result = lint_text(bomb + "num_generations: 8\n", "x.yaml", Options())
    (refused,) = result.diagnostics
    assert refused.code == "GRPO001" and "alias expansion too large" in refused.message


SHELL_WORDS = st.sampled_from([
    "swift", "rlhf", "rollout", "trl", "grpo", "vllm-serve", "accelerate", "launch", "torchrun", "deepspeed",
    "python", "-m", "swift.cli.rlhf", "trl.scripts.grpo", "--num_generations", "--per_device_train_batch_size",
    "--num_processes", "--nproc_per_node", "--nnodes", "--num_gpus", "--config", "--temperature", "8", "0", "-1",
    "$X", "${Y:-2}", "$((X*2))", "$(nproc)", "'a b'", '"$Z"', "\\\n", "\n", "#", "# x \\\n", ";", "&&", "|", "&",
    "NPROC_PER_NODE=4", "CUDA_VISIBLE_DEVICES=0,1", "export", "X=3", "<<EOF", "EOF", ">", "2>&1", "`date`", "(", ")",
])  # fmt: skip


@FAST
@given(st.lists(SHELL_WORDS, max_size=40), st.text(max_size=60))
def test_arbitrary_launch_scripts_never_crash(words, noise):
    text = " ".join(words) + noise
    never_fails(text, "run.sh", Options(), kind="shell")


@FAST
@given(st.text(max_size=300))
def test_arbitrary_python_never_crashes(text):
    never_fails(text, "train.py", Options(), kind="python")
    never_fails("GRPOConfig(" + text + ")\n", "train.py", Options(), kind="python")


_NEVER = lazy(r"(?!)")  # matches nothing


@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(
        SHELL_WORDS
        | st.sampled_from(["A=(x y)", "B+=(z)", "[[", "]]", "10>", "10>(x)", "a<(b)", "a#b", "x\\", "{", "}"]),
        max_size=40,
    ),
    st.sampled_from([" ", "", "\t", "\\\n", "\r\n"]),
    st.text(alphabet=" \t\n;&|()<>'\"$`\\=#abc-_.0", max_size=40),
)
def test_the_plain_word_shortcut_reads_what_the_full_scanner_reads(words, separator, noise):
    """The shell reader takes a word of plain characters in one match: every script reads the same with
    that shortcut switched off."""
    import grpo_lint.sources.shell as shell

    text = separator.join(words) + noise
    fast = shell.parse(text, "run.sh")
    saved = shell._SIMPLE_WORD
    shell._SIMPLE_WORD = _NEVER
    try:
        slow = shell.parse(text, "run.sh")
    finally:
        shell._SIMPLE_WORD = saved
    assert fast == slow


def _sole_match_scoring_every_candidate(word: str, candidates: list[str], cutoff: float = 0.8, margin: float = 0.05):
    import difflib

    scored = sorted(
        ((difflib.SequenceMatcher(None, word, c).ratio(), c) for c in set(candidates) if c != word), reverse=True
    )
    if not scored or scored[0][0] < cutoff or (len(scored) > 1 and scored[1][0] > scored[0][0] - margin):
        return None
    return scored[0][1]


MISSPELT = st.builds(
    lambda key, cuts: "".join(c for i, c in enumerate(key) if i not in cuts) + "s" * (len(cuts) % 2),
    KEYS,
    st.sets(st.integers(0, 25), max_size=3),
)


@settings(max_examples=400, deadline=None)
@given(MISSPELT | st.text("abcdeginoprstu_", max_size=20), st.lists(KEYS | MISSPELT, min_size=1, max_size=12))
def test_the_sole_match_skips_only_candidates_that_cannot_change_it(word, candidates):
    """`sole_match` scores in full only the candidates whose upper bounds reach its floor: the answer is the one
    scoring every candidate gives."""
    from grpo_lint.frameworks.fields import sole_match

    assert sole_match(word, candidates) == _sole_match_scoring_every_candidate(word, candidates)


OTHER_WORDS = st.sampled_from([
    "model", "name", "epochs", "lr", "batch", "depth", "learning_rate", "seed", "output_dir", "bf16", "trainer",
    "data", "num_generation", "numgenerations", "per_device_train_batch_size", "logging_steps", "foo", "rollout",
    "actor_rollout_ref", "distributed_type", "train_iters", "max_steps", "top_p", "GRPO", "Num_Generations",
])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(OTHER_WORDS | KEYS, VALUES | st.dictionaries(OTHER_WORDS, SCALARS, max_size=3), max_size=6))
def test_a_config_passed_over_by_its_words_is_one_detect_skips(config):
    """What a walk passes over unparsed (`may_be_detected` false) is a file `detect` finds no framework in."""
    from grpo_lint.frameworks.detect import detect, may_be_detected
    from grpo_lint.sources.document import Document
    from grpo_lint.sources.yaml_reader import read_text

    text = yaml.safe_dump(config)
    parsed = read_text(text, "found.yaml")
    if not may_be_detected(text):
        assert not isinstance(parsed, Document) or detect(parsed).framework is None, text


JSON_WORDS = OTHER_WORDS | KEYS | st.sampled_from(["wandb_version", "_wandb", "compute_environment", "rlhf_type"])
JSON_VALUES = st.recursive(
    SCALARS | st.just("grpo"),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(JSON_WORDS, inner, max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(JSON_WORDS, JSON_VALUES, max_size=6) | st.lists(JSON_VALUES, max_size=3) | SCALARS)
@example({"rlhf_type": float("inf")})  # `Infinity` to the parse, inf to json: the note quotes the file's spelling
@example({"rlhf_type": 1e5})
@example({"rlhf_type": "dpo"})
def test_a_found_json_file_skipped_from_its_decoded_data_is_one_the_positioned_parse_skips(data):
    """What `found_json_skip` concludes from json's decoder is what the positioned parse and `detect` conclude:
    the same note for a file that is no GRPO config (None leaves the file to the parse)."""
    import json

    from grpo_lint.frameworks.detect import detect, found_json_skip
    from grpo_lint.launch.accelerate import is_accelerate_config
    from grpo_lint.sources.document import Document
    from grpo_lint.sources.yaml_reader import read_text

    text = json.dumps(data, indent=2)
    reason = found_json_skip(text)
    parsed = read_text(text, "found.json")
    if not isinstance(parsed, Document):
        assert reason in (None, "not a mapping"), text
        if reason is not None:
            assert parsed is not None and parsed.message.startswith("top level is"), text
        return
    if reason is not None:
        assert not is_accelerate_config(parsed) and not parsed.record, text
        assert detect(parsed) == (None, reason), text


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(["verl", "trl", "a b", "x", "main_ppo.py", "rlhf.py", "grpo_config.pyx"]), max_size=3
        ).map(lambda parts: "/".join(parts)),
        max_size=25,
    ).map(lambda names: sorted({n for n in names if n}))
)
def test_the_files_named_like_a_copys_markers_are_found_by_one_search_each(files):
    from grpo_lint.workspace import forks

    one_by_one = [name for name in files if name.rpartition("/")[2] in forks._MARKER_NAMES]
    assert forks._named_like_markers(files) == one_by_one
