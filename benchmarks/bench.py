"""Start-up and throughput figures quoted in the README (a benchmark, not a timed test).

    pip install .                         # a regular install, as pre-commit and CI do
    python benchmarks/bench.py            # cold start, 1,000 files, in-process lint
    python benchmarks/bench.py --trl      # also time building TRL's own GRPOConfig (needs trl)
    python benchmarks/bench.py --repos    # whole repositories: the corpus snapshots linted from their roots
    python benchmarks/bench.py --monorepo # a synthetic git repository of 10,000 files in 2,000 folders
    python benchmarks/bench.py --side-by-side  # the 21 older corpus repositories unpacked in one folder
    python benchmarks/bench.py --big      # inputs no one writes by hand: 100,000 flags, 30,000 keys, 3,000 launches

It times the `grpo-lint` console script of the running interpreter from a scratch directory, so the
installed package (with its byte code) is measured, not this source tree. An editable install adds
its import finder to every start; PYTHONDONTWRITEBYTECODE makes a source tree recompile on each run.
Medians of repeated runs on this machine; compare before and after touching the hot path.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

from corpus import REPOS, corpus_roots

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "trl" / "grpo_qwen_8gpu.yaml"
TRL_SNIPPET = (
    "from trl import GRPOConfig; GRPOConfig(output_dir='/tmp/b', bf16=False, use_cpu=True, report_to='none', "
    "per_device_train_batch_size=8, gradient_accumulation_steps=4, num_generations=16)"
)


def median_run(cmd: list[str], repeat: int, cwd: str, stdin: str = "") -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False, cwd=cwd, input=stdin.encode())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def after_an_edit(cmd: list[str], repeat: int, cwd: str, edited: Path) -> float:
    """The median time of `cmd` run right after a line is added to `edited` each time: an unchanged repository's
    kept output (grpo_lint.run_cache) does not answer, so the run lints everything again (its parse cache warm)."""
    times = []
    for round_ in range(repeat):
        with edited.open("a") as handle:
            handle.write(f"# edit {round_}\n")
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False, cwd=cwd)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def interleaved(commands: list[list[str]], repeat: int, cwd: str) -> list[float]:
    """The median time of each command, run in turn `repeat` times."""
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(repeat):
        for index, command in enumerate(commands):
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, check=False, cwd=cwd)
            times[index].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def main() -> None:
    # grpo-lint's parse cache (grpo_lint.sources.parse_cache) is kept in a folder of this run, never the user's: the
    # figures "with its cache" are of runs after the first, "without" of `--no-cache`.
    os.environ["GRPO_LINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="grpo-lint-bench-cache-")
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--trl", action="store_true", help="also time TRL's GRPOConfig")
    parser.add_argument("--repos", action="store_true", help="lint the ../shared corpus repositories from their roots")
    parser.add_argument("--monorepo", action="store_true", help="time a commit's two files, and `.`, in a monorepo")
    parser.add_argument(
        "--side-by-side", action="store_true", help="lint 21 corpus repositories unpacked in one folder"
    )
    parser.add_argument("--big", action="store_true", help="time the big generated inputs")
    args = parser.parse_args()
    py = sys.executable
    script = Path(py).with_name("grpo-lint")
    if not script.exists():
        sys.exit(f"no grpo-lint next to {py}: run `pip install .` in this environment first")

    with tempfile.TemporaryDirectory() as scratch:
        # Interleaved, so that a slow spell of the machine weighs on all three alike. The modules a cold TRL
        # YAML lint cannot do without: PyYAML, packaging (the release tables), json (the field lists),
        # pathlib, tomllib (the repository's pyproject.toml).
        alone = Path(scratch, "alone")
        alone.mkdir()
        (alone / "one.yaml").write_text(EXAMPLE.read_text())
        baseline, floor, cold, own = interleaved(
            [
                [py, "-c", "import yaml"],
                [py, "-c", "import yaml, packaging.version, json, pathlib, tomllib"],
                [str(script), str(EXAMPLE)],  # inside this project's git work tree: the workspace is read too
                [str(script), str(alone / "one.yaml")],  # a folder of its own
            ],
            args.repeat,
            scratch,
        )
        print(f"python -c 'import yaml'          {baseline * 1000:7.1f} ms")
        print(f"import of the dependencies alone {floor * 1000:7.1f} ms   ({floor / baseline:.2f}x import yaml)")
        print(f"grpo-lint one.yaml (cold, alone) {own * 1000:7.1f} ms   ({own / baseline:.2f}x import yaml)")
        print(f"grpo-lint one.yaml (cold, in git) {cold * 1000:6.1f} ms   ({cold / baseline:.2f}x import yaml)")

        configs = Path(scratch, "configs")
        configs.mkdir()
        text = EXAMPLE.read_text()
        for i in range(1000):
            (configs / f"config_{i:04d}.yaml").write_text(text.replace("seed: 42", f"seed: {i}"))
        many = median_run([str(script), str(configs)], max(3, args.repeat // 5), scratch)
        print(f"grpo-lint on 1,000 files         {many * 1000:7.1f} ms")

        if args.trl:
            trl = median_run([py, "-c", TRL_SNIPPET], max(3, args.repeat // 3), scratch)

    if args.repos:
        whole_repositories(str(script), max(3, args.repeat // 5))
    if args.monorepo:
        monorepo(str(script), args.repeat)
    if args.side_by_side:
        side_by_side(str(script), max(3, args.repeat // 5))
    if args.big:
        big_inputs(str(script), max(3, args.repeat // 5))

    from grpo_lint.engine import lint_text
    from grpo_lint.options import Options

    text = EXAMPLE.read_text()
    lint_text(text, "warm.yaml", Options())  # build the models once
    loops = 500
    per_call = timeit.timeit(lambda: lint_text(text, "x.yaml", Options()), number=loops) / loops
    print(f"in-process lint of one config    {per_call * 1e6:7.0f} us")

    from grpo_lint.versions import parse_target

    verl = Options(targets={"verl": parse_target("verl==0.9.1")})
    unknown = verl_yaml_with_unknown_keys(100)
    lint_text(unknown, "warm.yaml", verl)
    loops = 50
    per_call = timeit.timeit(lambda: lint_text(unknown, "v.yaml", verl), number=loops) / loops
    print(f"verl YAML with 100 unknown keys  {per_call * 1000:7.1f} ms   (in-process)")

    if args.trl:
        print(f"TRL GRPOConfig(...) (cold)       {trl * 1000:7.1f} ms   ({trl / cold:.0f}x grpo-lint)")


def verl_yaml_with_unknown_keys(count: int) -> str:
    """A verl Hydra config whose sections carry `count` keys verl does not have, half of them near
    misses of real keys: the "did you mean" path at its most expensive."""
    import yaml

    config: dict = {"algorithm": {"adv_estimator": "grpo"}, "actor_rollout_ref": {"rollout": {"n": 4}}}
    sections = [("actor_rollout_ref", "actor"), ("actor_rollout_ref", "rollout"), ("trainer",), ("data",)]
    near = ["ppo_mini_batch_sise", "temprature", "n_gpus_per_nod", "train_batch_sise"]
    for i in range(count):
        node = config
        for part in sections[i % len(sections)]:
            node = node.setdefault(part, {})
        node[f"{near[i % len(near)]}{i}" if i % 2 else f"custom_setting_{i}"] = i
    return yaml.safe_dump(config)


BARE_READ = """
import sys, yaml
for name in sys.stdin.read().splitlines():
    with open(name, "rb") as f:
        data = f.read()
    if name.endswith((".yaml", ".yml")):
        try:
            list(yaml.safe_load_all(data))
        except yaml.YAMLError:
            pass
"""


def whole_repositories(script: str, repeat: int) -> None:
    """`grpo-lint .` at the root of each snapshot (ms-swift, verl, ...), as a user runs it, against a
    bare read of the same files (every file grpo-lint looked at, from its JSON summary) with the YAML
    ones parsed by `yaml.safe_load_all`, each in a fresh interpreter."""
    import json

    if not REPOS.is_dir():
        print("no ../shared/corpus/repos: whole-repository figures skipped")
        return
    total_lint = total_bare = 0.0
    count = 0
    for name, root in corpus_roots():
        report = subprocess.run(
            [script, "--isolated", "--format", "json", "."], capture_output=True, cwd=root, check=False
        )
        looked_at = [f["path"] for f in json.loads(report.stdout)["summary"]["files"]]
        took = median_run([script, "--isolated", "-q", "."], repeat, str(root))
        bare = median_run([sys.executable, "-c", BARE_READ], repeat, str(root), "\n".join(looked_at))
        total_lint += took
        total_bare += bare
        count += 1
        print(
            f"grpo-lint . in {name:<40} {took * 1000:7.0f} ms   bare read {bare * 1000:5.0f} ms"
            f"   ({len(looked_at)} files read)"
        )
    print(
        f"all {count} repositories: grpo-lint {total_lint:.2f} s, bare read + YAML parse "
        f"{total_bare:.2f} s   ({total_lint / total_bare:.1f}x)"
    )


def monorepo(script: str, repeat: int) -> None:
    """What pre-commit pays in a large repository: `grpo-lint two/changed.yaml files.sh` (the two files a commit
    touches) in the monorepo and in a repository of their own, against `import yaml`; and `grpo-lint .` over the
    whole monorepo against one interpreter that reads and parses the same tree with PyYAML's C loader."""
    import monorepo as synthetic

    with tempfile.TemporaryDirectory() as scratch:
        big = synthetic.build(Path(scratch, "mono"))
        alone = synthetic.small(Path(scratch, "alone"))
        files = list(synthetic.CHANGED)
        in_big, in_alone, baseline = [], [], []
        for _ in range(repeat):  # interleaved: a slow spell of the machine weighs on all three alike
            for where, into in ((big, in_big), (alone, in_alone)):
                start = time.perf_counter()
                subprocess.run([script, *files], capture_output=True, check=False, cwd=where)
                into.append(time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import yaml"], capture_output=True, check=False)
            baseline.append(time.perf_counter() - start)
        big_t, alone_t, yaml_t = (statistics.median(t) for t in (in_big, in_alone, baseline))
        size = f"{synthetic.FOLDERS:,} folders, {5 * synthetic.FOLDERS:,} files"
        print(f"monorepo ({size}), `grpo-lint {' '.join(files)}`:")
        ratios = f"{big_t / alone_t:.2f}x alone, {big_t / yaml_t:.2f}x import yaml"
        print(f"  in the monorepo                {big_t * 1000:7.1f} ms   ({ratios})")
        print(f"  in a repository of their own   {alone_t * 1000:7.1f} ms   ({alone_t / yaml_t:.2f}x import yaml)")
        print(f"  python -c 'import yaml'        {yaml_t * 1000:7.1f} ms")
        rounds = max(3, repeat // 5)
        command = [script, "--isolated", "-q", "."]
        uncached = median_run([script, "--isolated", "--no-cache", "-q", "."], rounds, str(big))
        whole = median_run(command, rounds + 1, str(big))  # (the first run makes the caches)
        edited = after_an_edit(command, rounds, str(big), big / files[-1])
        floor = median_run([sys.executable, "-c", synthetic.C_FLOOR], rounds, str(big))
        print(f"  grpo-lint . (whole monorepo)   {whole * 1000:7.0f} ms   ({whole / floor:.1f}x the C-loader floor)")
        print(f"    after one file is edited     {edited * 1000:7.0f} ms   ({edited / floor:.1f}x)")
        print(f"    without its caches           {uncached * 1000:7.0f} ms   ({uncached / floor:.1f}x)")
        print(f"  C-loader floor (read + parse)  {floor * 1000:7.0f} ms")


def side_by_side(script: str, repeat: int) -> None:
    """`grpo-lint --isolated .` over the 21 older corpus repositories (the first 21 of COMMITS.tsv) unpacked side by
    side in one folder, against the C-loader floor there (one interpreter reading every shell and Python file and
    parsing every YAML and JSON file with PyYAML's C loader)."""
    import monorepo as synthetic

    if not REPOS.is_dir():
        print("no ../shared/corpus/repos: the side-by-side figure is skipped")
        return
    names = [line.split("\t")[0] for line in (REPOS / "COMMITS.tsv").read_text().splitlines() if line.strip()][:21]
    with tempfile.TemporaryDirectory() as scratch:
        import tarfile

        for name in names:
            with tarfile.open(REPOS / f"{name}.tar.gz") as tar:
                tar.extractall(scratch, filter="data")
        command = [script, "--isolated", "-q", "."]
        uncached = median_run([script, "--isolated", "--no-cache", "-q", "."], repeat, scratch)
        first = median_run(command, 1, scratch)  # (the caches are empty: they are made here)
        lint = median_run(command, repeat, scratch)
        edited = after_an_edit(command, repeat, scratch, next(Path(scratch).glob("*/examples/**/*.sh")))
        floor = median_run([sys.executable, "-c", synthetic.C_FLOOR], repeat, scratch)
    print(f"21 corpus repositories side by side: grpo-lint . {lint:.2f} s unchanged ({lint / floor:.1f}x), "
          f"{edited:.2f} s after one script is edited ({edited / floor:.1f}x), {uncached:.2f} s without the caches "
          f"({uncached / floor:.1f}x), {first:.2f} s making them; C-loader floor {floor:.2f} s")  # fmt: skip


def big_inputs(script: str, repeat: int) -> None:
    """Inputs no one writes by hand, each linted as a file of its own: the whole run's time, every diagnostic
    rendered."""
    flags = ("micro_train_batch_size", "actor_num_gpus_per_node")
    inputs = {
        "100,000 continued lines of unknown TRL flags (100,000 diagnostics)": (
            "run.sh",
            "trl grpo \\\n" + "".join(f"  --num_generation{i} 2 \\\n" for i in range(100_000)) + "  --x 1\n",
        ),
        "100,000 continued lines of OpenRLHF flags": (
            "run.sh",
            "python3 -m openrlhf.cli.train_ppo_ray \\\n"
            + "".join(f"  --{f} 1 \\\n" for f in flags * 50_000)
            + "  --n_samples_per_prompt 4\n",
        ),
        "30,000 unknown keys in a YAML config": (
            "config.yaml",
            "".join(f"unknown_key_{i}: {i}\n" for i in range(30_000)) + "num_generations: 8\n",
        ),
        "3,000 launches in one script": (
            "run.sh",
            "".join(
                f"accelerate launch --num_processes 4 -m trl.scripts.grpo --num_generations {i % 7 + 1} "
                "--per_device_train_batch_size 3\n"
                for i in range(3_000)
            ),
        ),
    }
    for label, (name, text) in inputs.items():
        with tempfile.TemporaryDirectory() as scratch:
            Path(scratch, name).write_text(text)
            took = median_run([script, "--isolated", name], repeat, scratch)
        print(f"{label:<66} {took:5.2f} s")


if __name__ == "__main__":
    main()
