"""Start-up and throughput figures quoted in the README (a benchmark, not a timed test).

    python benchmarks/bench.py            # cold start, 1,000 files, in-process lint
    python benchmarks/bench.py --trl      # also time building TRL's own GRPOConfig (needs trl)

Medians of repeated runs on this machine; compare before and after touching the hot path.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "trl" / "grpo_qwen_8gpu.yaml"
TRL_SNIPPET = (
    "from trl import GRPOConfig; GRPOConfig(output_dir='/tmp/b', bf16=False, use_cpu=True, report_to='none', "
    "per_device_train_batch_size=8, gradient_accumulation_steps=4, num_generations=16)"
)


def median_run(cmd: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--trl", action="store_true", help="also time TRL's GRPOConfig")
    args = parser.parse_args()
    py = sys.executable

    baseline = median_run([py, "-c", "import yaml"], args.repeat)
    cold = median_run([py, "-m", "grpo_lint", str(EXAMPLE)], args.repeat)
    print(f"python -c 'import yaml'          {baseline * 1000:7.1f} ms")
    print(f"grpo-lint one.yaml (cold)        {cold * 1000:7.1f} ms   ({cold / baseline:.2f}x import yaml)")

    with tempfile.TemporaryDirectory() as tmp:
        text = EXAMPLE.read_text()
        for i in range(1000):
            Path(tmp, f"config_{i:04d}.yaml").write_text(text.replace("seed: 42", f"seed: {i}"))
        many = median_run([py, "-m", "grpo_lint", tmp], max(3, args.repeat // 5))
    print(f"grpo-lint on 1,000 files         {many * 1000:7.1f} ms")

    sys.path.insert(0, str(ROOT))
    from grpo_lint.engine import lint_text
    from grpo_lint.options import Options

    text = EXAMPLE.read_text()
    lint_text(text, "warm.yaml", Options())  # build the models once
    loops = 500
    per_call = timeit.timeit(lambda: lint_text(text, "x.yaml", Options()), number=loops) / loops
    print(f"in-process lint of one config    {per_call * 1e6:7.0f} us")

    if args.trl:
        trl = median_run([py, "-c", TRL_SNIPPET], max(3, args.repeat // 3))
        print(f"TRL GRPOConfig(...) (cold)       {trl * 1000:7.1f} ms   ({trl / cold:.0f}x grpo-lint)")


if __name__ == "__main__":
    main()
