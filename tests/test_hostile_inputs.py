"""Hostile input: no traceback, hang, crash or runaway memory; valid output; nothing written.

The families below are what a hostile pull request (or a careless one) can put in front of grpo-lint:
tagged YAML values that PyYAML cannot build, numbers too long for Python's int(), nesting that would
crash the C parser, alias bombs, special files, names that are not UTF-8, bad settings, symlinks and
paths leading out of the repository. The CLI runs as a subprocess under a memory and time limit, over
the whole repository and over every file named on the command line, in every output format, twice.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grpo_lint.engine import guarded, lint_text
from grpo_lint.limits import MAX_DIGITS, MAX_FILE_BYTES, MAX_NESTING, MAX_SUGGESTED_KEYS, MAX_YAML_NODES
from grpo_lint.options import Options
from grpo_lint.sources.yaml_reader import read_text

from .conftest import clean_env, lint, run_cli

MEMORY = 1024 * 1024 * 1024  # 1 GB of address space for one grpo-lint run
TIMEOUT = 60

SWIFT = "swift rlhf --rlhf_type grpo --num_generations"
_ALIAS_BOMB = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)

# Each family: file name -> text. Real GRPO keys, so that the values reach the rules.
FAMILIES: dict[str, str] = {
    # YAML tags whose constructors raise
    "tag_int.yaml": "num_generations: !!int abc\n",
    "tag_float.yaml": "temperature: !!float xyz\n",
    "tag_bool.yaml": "use_vllm: !!bool maybe\n",
    "tag_timestamp.yaml": "seed: !!timestamp 2020-13-01\n",
    "tag_in_list.yaml": "reward_weights: [1, !!int x]\nnum_generations: 8\n",
    "tag_json.json": '{"num_generations": !!int abc}\n',
    "tag_hydra.sh": "python3 -m verl.trainer.main_ppo 'actor_rollout_ref.rollout.n=[!!int abc]'\n",
    "tag_bash.sh": "swift rlhf --rlhf_type grpo --num_generations '!!int abc'\n",
    # numbers past int()'s 4,300 digits, past float range, past any divisor search
    "huge_int.yaml": "num_generations: " + "9" * 5000 + "\n",
    "huge_int.json": '{"num_generations": ' + "9" * 5000 + "}\n",
    "huge_float_batch.yaml": "per_device_train_batch_size: " + "9" * 400 + "\nnum_generations: 7\n",
    "huge_hydra.sh": "python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=" + "9" * 5000 + "\n",
    "huge_world.sh": "NPROC_PER_NODE=" + "9" * 40 + " swift rlhf --rlhf_type grpo --num_generations 8\n",
    "huge_python.py": "from trl import GRPOConfig\nGRPOConfig(num_generations=" + "9" * 5000 + ")\n",
    # a hexadecimal literal has no digit limit in Python's parser: 0x + 5,000 digits is a valid int
    "huge_hex_python.py": "from trl import GRPOConfig\nGRPOConfig(num_generations=0x" + "f" * 5000 + ")\n",
    # batch sizes large enough that a search over candidate sizes would never end
    "huge_verl_batch.sh": (
        "python3 -m verl.trainer.main_ppo data.train_batch_size=" + "9" * 28 + " actor_rollout_ref.rollout.n=3 "
        "actor_rollout_ref.actor.ppo_mini_batch_size="
        + "7"
        * 27
        + " actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=5"
        " trainer.n_gpus_per_node=7\n"
    ),
    "huge_openrlhf_batch.sh": (
        "python3 -m openrlhf.cli.train_ppo_ray --advantage_estimator group_norm --rollout_batch_size "
        + "9" * 28
        + " --n_samples_per_prompt 7 --train_batch_size "
        + "8" * 27
        + "\n"
    ),
    # nesting
    "deep_flow.yaml": "a: " + "[" * 200_000 + "]" * 200_000 + "\n",  # SIGSEGV in libyaml unguarded
    "deep_block.yaml": "a:\n" + "- " * 50_000 + "x\n",
    "deep_map.yaml": "a: " + "{b: " * 5000 + "1" + "}" * 5000 + "\n",
    "deep.json": '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
    "deep_unary.py": "from trl import GRPOConfig\nGRPOConfig(num_generations=" + "-" * 30_000 + "1)\n",
    "deep_binop.py": "from trl import GRPOConfig\nx = " + "+".join(["a"] * 2500) + "\nGRPOConfig(num_generations=1)\n",
    "deep_hydra.sh": "python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.n=" + "[" * 5000 + "]" * 5000 + "\n",
    "deep_arith.sh": "N=$(( " + "(" * 5000 + "1" + ")" * 5000 + " ))\n" + SWIFT + " $N\n",
    "minus_chain.sh": "N=$(( " + "-" * 10_000 + "1 ))\n" + SWIFT + " $N\n",
    # unbounded work
    "alias_value.yaml": _ALIAS_BOMB + "num_generations: 8\n",
    "alias_key.yaml": _ALIAS_BOMB + "? *i\n: 1\nnum_generations: 8\n",
    "alias_self.yaml": "a: &a [1, *a]\nnum_generations: 8\n",
    "many_keys.yaml": "".join(f"unknown_key_{i}: {i}\n" for i in range(5_000)) + "num_generations: 8\n",
    "tower.sh": "N=$(( 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ))\n" + SWIFT + " $N\n",
    "doubling.sh": "A=x\n" + "A=$A$A\n" * 40 + "swift rlhf --rlhf_type grpo --num_generations 8 --temperature $A\n",
    "eval_like.sh": "N=$(( () ))\nM=$(( (1)(2) ))\nK=$(( 9**9**9 ))\n" + SWIFT + " $N$M$K\n",
    # text that must be escaped in every output format
    "surrogate.json": '{"\\udc80num": 1, "temperature": 0, "num_generations": 8}\n',
    "nan.yaml": "temperature: .nan\ntop_p: .inf\nnum_generations: 8\n",
    "hyphen_key.sh": "python3 -m verl.trainer.main_ppo '~actor_rollout_ref.rollout.n'\n",
    # output linear in the input: 20,000 continued lines of flat OpenRLHF flags (one fix with an edit each),
    # 20,000 unknown keys with a fix each
    "continued.sh": "python3 -m openrlhf.cli.train_ppo_ray \\\n"
    + "".join(f"  --{f} 1 \\\n" for f in ("micro_train_batch_size", "actor_num_gpus_per_node") * 10_000)
    + "  --n_samples_per_prompt 4\n",
    "continued_keys.sh": "trl grpo \\\n"
    + "".join(f"  --num_generation{i} 2 \\\n" for i in range(20_000))
    + "  --x 1\n",
}


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _cli(args: list[str], cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grpo_lint", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=TIMEOUT,
        preexec_fn=_limit,
        env=clean_env(),
    )


def _snapshot(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry below `folder` (not following symlinks): mode, size and modification time."""
    found = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            info = os.lstat(path)
            found[path] = (info.st_mode, info.st_size, info.st_mtime_ns)
    return found


def _check_output(done: subprocess.CompletedProcess, fmt: str) -> None:
    stderr = done.stderr.decode("utf-8")  # every output is valid UTF-8
    stdout = done.stdout.decode("utf-8")
    assert done.returncode in (0, 1, 2), stderr[-2000:]
    assert "Traceback" not in stderr, stderr[-2000:]
    if fmt != "sarif":  # SARIF lists every rule, GRPO000 too, in its driver
        assert "GRPO000" not in stdout, stdout[:2000]
    if fmt in ("json", "sarif"):
        data = json.loads(stdout, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))
        if fmt == "sarif":
            assert "GRPO000" not in {r["ruleId"] for r in data["runs"][0]["results"]}
            for result in data["runs"][0]["results"]:
                for location in result["locations"]:
                    region = location["physicalLocation"]["region"]
                    end = (region.get("endLine", region["startLine"]), region.get("endColumn", 0))
                    assert end >= (region["startLine"], region.get("startColumn", 0)), region


@pytest.fixture(scope="module")
def hostile_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("hostile")
    (base / "secret.yaml").write_text("SECRET_OUTSIDE_KEY: 1\nnum_generations: 6\n")
    repo = base / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    for name, text in FAMILIES.items():
        (repo / name).write_text(text, encoding="utf-8", errors="surrogatepass")
    (repo / "outside.sh").write_text(
        "trl grpo --config /etc/hostname\ntrl grpo --config ../secret.yaml\ntrl grpo --config ../../x.yaml\n"
    )
    os.symlink(base / "secret.yaml", repo / "link_out.yaml")
    os.symlink("/dev/zero", repo / "zero.yaml")
    os.mkfifo(repo / "fifo.yaml")
    os.mkdir(repo / "folder.yaml")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(repo / "socket.yaml"))
    (repo / os.fsdecode(b"name\xff.yaml")).write_text("temperature: 0\nnum_generations: 8\n")
    (repo / "tab\tname.yaml").write_text("temperature: 0\nnum_generations: 8\n")
    (repo / "binary.yaml").write_bytes(b"\x00\x01\x02num_generations: 8")
    (repo / "latin1.yaml").write_bytes("temperature: 0  # caf\xe9\n".encode("latin-1"))
    deep = repo / "deep"
    deep.mkdir()
    cwd = os.getcwd()
    os.chdir(deep)
    try:
        for _ in range(300):
            os.mkdir("d")
            os.chdir("d")
        Path("x.yaml").write_text("num_generations: 1\n")
    finally:
        os.chdir(cwd)
    os.symlink(".", repo / "loop")
    return repo


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_every_hostile_input_gets_a_diagnostic_never_a_crash(hostile_repo, fmt):
    before = _snapshot(hostile_repo.parent)
    # link_out.yaml leads out of the repository: named, the user asks for it; walked, it is not read.
    named = sorted(n for n in os.listdir(hostile_repo) if n not in ("deep", "loop", ".git", "link_out.yaml"))
    runs = {
        "walk": ["--format", fmt, "--target", "trl==1.16.0", "."],
        "named": ["--format", fmt, *named],
    }
    for how, args in runs.items():
        first = _cli(args, hostile_repo)
        _check_output(first, fmt)
        second = _cli(args, hostile_repo)
        assert second.stdout == first.stdout, f"{how}: the same input gave another output"
        assert b"SECRET_OUTSIDE_KEY" not in first.stdout + first.stderr  # nothing read from outside
    assert _snapshot(hostile_repo.parent) == before  # nothing created, changed or removed


def test_each_family_is_reported_where_it_is(hostile_repo):
    """Not just "no crash": the right diagnostic, at a position, for the families that have one."""
    done = _cli(["--format", "json", *FAMILIES], hostile_repo)
    by_file: dict[str, list[dict]] = {}
    for d in json.loads(done.stdout)["diagnostics"]:
        by_file.setdefault(d["path"], []).append(d)
    expected = {
        "tag_int.yaml": ("GRPO001", "not a valid !!int"),
        "tag_bool.yaml": ("GRPO001", "not a valid !!bool"),
        "tag_timestamp.yaml": ("GRPO001", "!!timestamp"),
        "huge_int.yaml": ("GRPO003", "out of range"),
        "huge_int.json": ("GRPO003", "out of range"),
        "huge_hydra.sh": ("GRPO003", "out of range"),
        "deep_flow.yaml": ("GRPO001", f"nests deeper than {MAX_NESTING} levels"),
        "deep_block.yaml": ("GRPO001", f"nests deeper than {MAX_NESTING} levels"),
        "deep.json": ("GRPO001", f"nests deeper than {MAX_NESTING} levels"),
        "deep_unary.py": ("GRPO001", "nest too deeply"),
        "alias_value.yaml": ("GRPO001", "alias expansion too large"),
        "alias_key.yaml": ("GRPO001", "alias expansion too large"),
        "alias_self.yaml": ("GRPO001", "contains it"),
        "deep_binop.py": ("GRPO101", "num_generations 1"),  # deep but valid Python: linted
    }
    for name, (code, text) in expected.items():
        found = [d for d in by_file.get(name, []) if d["code"] == code]
        assert found and text in found[0]["message"], (name, by_file.get(name))
        assert found[0]["line"] >= 1
    # A message quotes at most a clipped form of a 5,000-digit value.
    assert all(len(d["message"]) < 1000 for d in by_file["huge_int.yaml"])


def test_special_files_are_not_opened(hostile_repo):
    done = _cli(["--format", "json", "fifo.yaml", "zero.yaml", "socket.yaml", "folder.yaml"], hostile_repo)
    messages = {d["path"]: d["message"] for d in json.loads(done.stdout)["diagnostics"]}
    assert "FIFO" in messages["fifo.yaml"]
    assert "character device" in messages["zero.yaml"]
    assert "socket" in messages["socket.yaml"]
    assert "folder.yaml" not in messages  # a folder is walked, whatever its name

    # git lists no FIFO or socket; a walk without git sees them and skips them without opening them.
    plain = hostile_repo.parent / "plain"
    plain.mkdir(exist_ok=True)
    if not (plain / "fifo.yaml").exists():
        os.mkfifo(plain / "fifo.yaml")
        os.symlink("/dev/zero", plain / "zero.yaml")
        (plain / "c.yaml").write_text("num_generations: 8\n")
    walked = json.loads(_cli(["--format", "json", "--show", "."], plain).stdout)
    skipped = {s["path"]: s["reason"] for s in walked["skipped"]}
    assert "not a regular file" in skipped["./fifo.yaml"]
    assert "leads outside the repository" in skipped["./zero.yaml"]  # /dev/zero: never opened


def test_names_that_are_not_utf8_in_every_format(hostile_repo):
    name = os.fsdecode(b"name\xff.yaml")
    text = _cli([name], hostile_repo).stdout.decode("utf-8")
    assert "name\\udcff.yaml:1:1: error[GRPO201]" in text
    sarif = json.loads(_cli(["--format", "sarif", name], hostile_repo).stdout)
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "name%FF.yaml"
    )


def test_standard_input_is_bounded():
    big = b"a: 1\n" * (MAX_FILE_BYTES // 5 + 1)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "grpo_lint", "-"], input=big, capture_output=True, timeout=TIMEOUT, preexec_fn=_limit
    )
    assert done.returncode == 1 and b"too large to be a config" in done.stdout
    assert time.monotonic() - started < 20


def test_bad_settings_are_usage_errors(tmp_path):
    (tmp_path / "c.yaml").write_text("num_generations: 8\n")
    cases = {
        "[tool.grpo-lint]\nworld-size = " + "9" * 5000 + "\n": "too long to read",
        "[tool.grpo-lint]\nworld-size = 1048577\n": "in [1, 1048576]",
        "[tool.grpo-lint]\nselect = " + "[" * 2000 + "]" * 2000 + "\n": "nests deeper",
        "tool = 5\n": "`tool` must be a table",
        "[tool]\ngrpo-lint = 5\n": "must be a table",
    }
    for text, message in cases.items():
        (tmp_path / "pyproject.toml").write_text(text)
        done = run_cli("--config", "pyproject.toml", "c.yaml", cwd=tmp_path)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert message in done.stderr, (text[:40], done.stderr)


def test_unwritable_output_file_exits_2(tmp_path):
    (tmp_path / "c.yaml").write_text("num_generations: 8\n")
    done = run_cli("-o", str(tmp_path / "missing" / "out.txt"), "c.yaml", cwd=tmp_path)
    assert done.returncode == 2 and "Could not open file" in done.stderr


def test_no_argument_becomes_a_git_option(tmp_path):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "c.yaml").write_text("num_generations: 8\n")
    for value in ("--output=pwned", "-opwned", "--exec=touch pwned"):
        done = run_cli(f"--changed-since={value}", ".", cwd=tmp_path)
        assert done.returncode == 2 and "not a git revision" in done.stderr
        assert run_cli(f"--diff={value}", ".", cwd=tmp_path).returncode == 2  # a flag: it takes no value
    assert not list(tmp_path.glob("pwned*"))


def test_changed_files_with_tabs_and_non_ascii_names(tmp_path):
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    (tmp_path / "base.yaml").write_text("num_generations: 8\n")
    git("add", ".")
    git("commit", "-qm", "base")
    for name in ("tab\tname.yaml", "café.yaml", "new line\n.yaml"):
        (tmp_path / name).write_text("temperature: 0\nnum_generations: 8\n")
    done = run_cli("--changed-since", "HEAD", "--format", "json", cwd=tmp_path)
    paths = {f["path"] for f in json.loads(done.stdout)["summary"]["files"]}
    assert paths == {"tab\tname.yaml", "café.yaml", "new line\n.yaml"}


def test_a_file_git_lists_but_the_work_tree_lacks_is_skipped_not_unreadable(tmp_path):
    """`git rm` not yet committed, or a file deleted by hand: `git ls-files --cached` still lists it. A dangling
    symlink has no file behind it either. Neither is a config that cannot be read; a file named on the command
    line that does not exist still is."""

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    for name in ("kept.yaml", "gone.yaml", "gone.ipynb"):
        (tmp_path / name).write_text("temperature: 0\nnum_generations: 8\n" if name.endswith(".yaml") else "{}")
    git("add", ".")
    git("commit", "-qm", "base")
    (tmp_path / "gone.yaml").unlink()
    (tmp_path / "gone.ipynb").unlink()
    (tmp_path / "dangling.yaml").symlink_to("nowhere.yaml")
    done = run_cli("--format", "json", "--target", "trl==1.16.0", ".", cwd=tmp_path)
    report = json.loads(done.stdout)
    assert {d["path"] for d in report["diagnostics"] if d["severity"] == "error"} == {"./kept.yaml"}
    notes = {f["path"].removeprefix("./"): f["note"] for f in report["summary"]["files"]}
    assert "deleted" in notes["gone.yaml"] and "deleted" in notes["gone.ipynb"]
    assert "symlink to a file that does not exist" in notes["dangling.yaml"]
    named = run_cli("--format", "json", "gone.yaml", cwd=tmp_path)
    assert named.returncode == 1 and json.loads(named.stdout)["diagnostics"][0]["code"] == "GRPO001"


# --- each bound, just under and just over --------------------------------------------------------


def _codes(text: str, name: str = "config.yaml", args: str = "--target trl==1.16.0 --world-size 8") -> set[str]:
    return {d.code for d in lint(text, args, name)}


def test_file_size_bound(tmp_path):
    body = "num_generations: 8\nper_device_train_batch_size: 8\n"
    under = tmp_path / "under.yaml"
    under.write_text(body + "#" * (MAX_FILE_BYTES - len(body) - 1) + "\n")
    over = tmp_path / "over.yaml"
    over.write_text(body + "#" * (MAX_FILE_BYTES - len(body)) + "\n")
    assert under.stat().st_size == MAX_FILE_BYTES and over.stat().st_size == MAX_FILE_BYTES + 1
    done = run_cli("--format", "json", "--world-size", "8", "under.yaml", "over.yaml", cwd=tmp_path)
    found = {d["path"]: d["message"] for d in json.loads(done.stdout)["diagnostics"]}
    assert "under.yaml" not in found
    assert "too large to be a config" in found["over.yaml"]


def test_nesting_bound():
    def flow(depth: int) -> str:
        return "num_generations: 8\nx: " + "[" * depth + "]" * depth + "\n"

    def block(depth: int) -> str:
        nested = "".join("  " * i + f"k{i}:\n" for i in range(1, depth))
        return "num_generations: 8\nx:\n" + nested + "  " * depth + "v: 1\n"

    for text in (flow, block):
        under = read_text(text(MAX_NESTING - 1), "c.yaml")
        assert not isinstance(under, tuple), under
        over = read_text(text(MAX_NESTING + 1), "c.yaml")
        assert isinstance(over, tuple) and "nests deeper" in over.message
    # Brackets inside strings and comments do not count.
    quoted = 'num_generations: 8\nprompt: "' + "[" * 500 + '"\n# ' + "{" * 500 + "\n"
    assert not isinstance(read_text(quoted, "c.yaml"), tuple)


def test_alias_expansion_bound():
    def aliased(count: int) -> str:
        return "base: &b [1]\nrefs: [" + ", ".join(["*b"] * count) + "]\nnum_generations: 8\n"

    # Each alias of a one-item list counts 2 nodes; the rest of the document a handful.
    assert not isinstance(read_text(aliased(MAX_YAML_NODES // 2 - 20), "c.yaml"), tuple)
    over = read_text(aliased(MAX_YAML_NODES // 2 + 1), "c.yaml")
    assert isinstance(over, tuple) and "alias expansion too large" in over.message


def test_digit_bound():
    under = "9" * MAX_DIGITS
    assert _codes(f"num_generations: 8\nper_device_train_batch_size: 8\nmax_steps: {under}\n") == set()
    over = lint(f"num_generations: 8\nper_device_train_batch_size: 8\nmax_steps: {under}9\n")
    assert [(d.code, "out of range" in d.message) for d in over] == [("GRPO003", True)]


def test_suggestion_bound():
    keys = "".join(f"unrelated_{i}: 1\n" for i in range(MAX_SUGGESTED_KEYS - 1))
    under = lint(keys + "temperatur: 0.9\nnum_generations: 8\n")
    assert any("did you mean `temperature`" in d.message for d in under)
    over = lint(keys + "another: 1\ntemperatur: 0.9\nnum_generations: 8\n")
    assert not any("did you mean" in d.message for d in over)


def test_world_size_bound(tmp_path):
    (tmp_path / "c.yaml").write_text("num_generations: 8\nper_device_train_batch_size: 8\n")
    assert run_cli("--world-size", "1048576", "c.yaml", cwd=tmp_path).returncode == 0
    over = run_cli("--world-size", "1048577", "c.yaml", cwd=tmp_path)
    assert over.returncode == 2 and "1<=x<=1048576" in over.stderr


def test_an_internal_failure_is_grpo000_and_exit_2(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import grpo_lint.lint
    from grpo_lint.cli import main

    (tmp_path / "a.yaml").write_text("num_generations: 8\n")
    (tmp_path / "b.yaml").write_text("temperature: 0\nnum_generations: 8\n")

    def broken(*args, **kwargs):
        if str(args[1]).endswith("a.yaml"):
            raise KeyError("boom")
        return original(*args, **kwargs)

    original = grpo_lint.lint.lint_config
    monkeypatch.setattr("grpo_lint.engine.lint_config", broken)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--format", "json", "a.yaml", "b.yaml"])
    assert result.exit_code == 2
    found = {d["path"]: d for d in json.loads(result.output)["diagnostics"]}
    assert found["a.yaml"]["code"] == "GRPO000" and "KeyError" in found["a.yaml"]["message"]
    assert found["b.yaml"]["code"] == "GRPO201"  # the other file is still linted


# --- generated inputs ---------------------------------------------------------------------------

FRAGMENTS = st.sampled_from([
    "num_generations: ", "temperature: ", "top_k: ", "per_device_train_batch_size: ", "seed: ", "a: ", "- ",
    "[", "]", "{", "}", ",", ":", "&a ", "*a", "!!int ", "!!float ", "!!bool ", "!!timestamp ", "!!binary ",
    "!!python/object ", "? ", "|", ">", '"', "'", "#", "\n", "  ", "\t", "0", "1", "-1", "9" * 40, ".nan",
    "1e999", "2020-13-01", "\\udc80", "<<: *a", "---", "...", "%YAML 1.1", "%TAG ! x", "\x00", "\ufeff",
])  # fmt: skip
SHELL_FRAGMENTS = st.sampled_from([
    "swift rlhf --rlhf_type grpo ", "python3 -m verl.trainer.main_ppo ", "--num_generations ", "$((", "))",
    "${A:-", "}", "$(", ")", "A=", "A+=(", '"', "'", "\\\n", "# ", "\n", "2**", "(", "-", "9" * 30, "[", "]",
    "actor_rollout_ref.rollout.n=", "~", "+", "++", "bash -c '", "case x in", "esac", "<<EOF\n", "EOF\n",
])  # fmt: skip
CASES = 150


def _run_generated(parts: list[str], name: str) -> None:
    text = "".join(parts)
    for framework in (None, "trl", "swift", "verl"):
        options = Options(framework=framework)
        # through the engine's guard, as a run lints a file: a bug would be GRPO000 there (lint_text raises instead)
        result = guarded(name, options, lint_text, text, name, options)
        assert all(d.code != "GRPO000" for d in result.diagnostics), result.diagnostics
        for d in result.diagnostics:
            json.dumps(d._asdict(), allow_nan=False)


@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(FRAGMENTS, max_size=60), st.sampled_from(["c.yaml", "c.json"]))
def test_generated_yaml_never_fails(parts, name):
    _run_generated(parts, name)


@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(SHELL_FRAGMENTS, max_size=60))
def test_generated_scripts_never_fail(parts):
    _run_generated(parts, "run.sh")


@pytest.mark.fuzz
def test_long_fuzz_run(request):
    """`pytest -m fuzz --fuzz-budget=600`: the generated families for as long as the budget allows."""
    budget = request.config.getoption("--fuzz-budget")
    deadline = time.monotonic() + budget
    runs = 0
    while time.monotonic() < deadline:
        for strategy, name in ((st.lists(FRAGMENTS, max_size=200), "c.yaml"), (st.lists(SHELL_FRAGMENTS), "r.sh")):
            _run_generated(strategy.example(), name)
            runs += 1
    assert runs > 0


def test_bash_and_hydra_bounds():
    from grpo_lint.sources.hydra_grammar import _MAX_DEPTH, TOO_DEEP, override_error
    from grpo_lint.sources.shell import _MAX_NESTING, _MAX_VALUE, parse

    def last_word(text: str):
        return parse(text, "s.sh").commands[-1].words[-1]

    # One variable's value: up to _MAX_VALUE characters is known, one more is unknown (never built).
    assert last_word(f'A={"x" * _MAX_VALUE}\ncmd --x "$A"\n').known
    assert not last_word(f'A={"x" * (_MAX_VALUE + 1)}\ncmd --x "$A"\n').known

    def nested(depth: int) -> str:
        text = "1"
        for level in range(depth):
            text = f"${{A{level}:-{text}}}"
        return f"cmd --x {text}\n"

    assert last_word(nested(_MAX_NESTING)).text == "1"
    assert not last_word(nested(_MAX_NESTING + 1)).known
    # Hydra: a list nested _MAX_DEPTH deep is checked; one more level is not (an info, since Hydra itself
    # parses a few hundred levels: grpo-lint's bound is no error of the config).
    assert override_error("a.b=" + "[" * _MAX_DEPTH + "]" * _MAX_DEPTH) is None
    assert override_error("a.b=" + "[" * (_MAX_DEPTH + 1) + "]" * (_MAX_DEPTH + 1))[0] == TOO_DEEP
    deep = "python3 -m verl.trainer.main_ppo a.b=" + "[" * (_MAX_DEPTH + 1) + "]" * (_MAX_DEPTH + 1) + "\n"
    (note,) = [d for d in lint(deep, "--target verl==0.9.1", "run.sh") if d.code == "GRPO001"]
    assert note.severity.label == "info"


def test_a_cd_of_many_folders_and_many_cuts_stay_linear(tmp_path):
    """`cd $ROOT/a/a/.../a` of 100,000 folders, a folder name of 5,000 characters, a script named through such paths,
    and 20,000 flag lines each cut from the last by an empty line: each part is looked at a bounded number of times (a
    tail of at most MAX_PATH_TAIL parts; a cut followed once), and a name the system refuses is no file or folder."""
    (tmp_path / "a").mkdir()
    deep = "cd $ROOT/" + "a/" * 100_000 + "\npython3 -m verl.trainer.main_ppo trainer.x=1\n"
    cuts = "swift rlhf --rlhf_type grpo \\\n" + "".join(f"\n  --flag{i} 1 \\\n" for i in range(20_000)) + "\n  --x 1\n"
    long = "cd $ROOT/" + "a" * 5_000 + "/b\npython3 -m verl.trainer.main_ppo trainer.x=1\n"  # a name too long to stat
    # (a script named through another machine's checkout, `/x/.../train.py`, looked for by the same tails)
    named = "python /x/" + "a" * 5_000 + "/train.py --num_generations 3\npython /x/" + "a/" * 50_000 + "t.py\n"
    for name, text in (("deep.sh", deep), ("cuts.sh", cuts), ("long.sh", long), ("named.sh", named)):
        (tmp_path / name).write_text(text)
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "grpo_lint", "--isolated", "-q", name], cwd=tmp_path, capture_output=True,
            timeout=TIMEOUT, preexec_fn=_limit,
        )  # fmt: skip
        assert done.returncode in (0, 1) and "GRPO000" not in done.stdout.decode(), name
        assert time.perf_counter() - started < 20, name


def test_commands_in_the_repositorys_git_config_never_run(tmp_path):
    """A tree handed over with its .git names commands (file-system monitor, clean and process filters,
    an external diff, text conversion, a pager, hooks): grpo-lint's own calls to git run none of them, for
    a whole-repository run, --changed-since and the pre-commit hook's named files."""
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    (repo / "a.yaml").write_text("num_generations: 1\n")
    (repo / "launch.sh").write_text("trl grpo --config a.yaml\n")
    git("add", ".")
    git("commit", "-qm", "base")
    ran = tmp_path / "ran"
    ran.mkdir()
    marker = f"touch {ran}/"
    commands = {
        "core.fsmonitor": f"{marker}fsmonitor; false",
        "filter.evil.clean": f"{marker}clean; cat",
        "filter.evil.smudge": f"{marker}smudge; cat",
        "filter.evil.process": f"{marker}process",
        "filter.evil.required": "true",
        "diff.evil.textconv": f"{marker}textconv; cat",
        "diff.evil.command": f"{marker}diffdriver",
        "diff.external": f"{marker}external",
        "core.pager": f"{marker}pager; cat",
        "core.hooksPath": str(tmp_path / "hooks"),
    }
    for key, value in commands.items():
        git("config", key, value)
    (tmp_path / "hooks").mkdir()
    for hook in ("post-index-change", "pre-commit", "post-checkout", "reference-transaction"):
        (tmp_path / "hooks" / hook).write_text(f"#!/bin/sh\n{marker}hook-{hook}\n")
        (tmp_path / "hooks" / hook).chmod(0o755)
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    (repo / "a.yaml").write_text("num_generations: 1\ntemperature: 0.0\n")  # changed in the work tree only
    (repo / "new.yaml").write_text("num_generations: 1\n")  # untracked
    runs = {
        "walk": ["--format", "json", "."],
        "changed": ["--format", "json", "--changed-since", "HEAD"],
        "pre-commit": ["--format", "json", "--only-configs", "a.yaml", "launch.sh"],
    }
    for how, args in runs.items():
        done = _cli(args, repo)
        assert done.returncode == 1, (how, done.stderr[-2000:])
        codes = {d["code"] for d in json.loads(done.stdout)["diagnostics"]}
        assert "GRPO101" in codes, how
        assert not list(ran.iterdir()), f"{how}: ran {sorted(p.name for p in ran.iterdir())}"
    changed = {f["path"] for f in json.loads(_cli(runs["changed"], repo).stdout)["summary"]["files"]}
    assert {"a.yaml", "new.yaml"} <= changed and "launch.sh" not in changed  # the edit is still found
    # the same configuration does run them for git itself: the test would notice a harmless setup
    subprocess.run(["git", "diff", "HEAD"], cwd=repo, capture_output=True, check=False)
    assert list(ran.iterdir())
