"""Whether two builds of grpo-lint report the same diagnostics on the corpus repositories: for a change
meant only to make grpo-lint faster.

    python benchmarks/same_diagnostics.py OLD_SOURCE_TREE [NEW_SOURCE_TREE]

Each tree is a checkout of grpo-lint (`git worktree add /tmp/old <rev>`); both run with this interpreter
(which has grpo-lint's dependencies), `--isolated --format json .` from the root of each snapshot in
../shared/corpus/repos. Prints every diagnostic one build gives and the other does not; exits 1 if any.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from corpus import corpus_roots

ROOT = Path(__file__).resolve().parent.parent


def diagnostics(tree: Path, root: Path) -> set[tuple]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-m", "grpo_lint", "--isolated", "--format", "json", "."],
        capture_output=True,
        cwd=root,
        env=env,
        check=False,
    )
    found = json.loads(done.stdout)["diagnostics"]
    return {(d["code"], d["severity"], d["path"], d["line"], d["column"], d["message"]) for d in found}


def main() -> int:
    old = Path(sys.argv[1]).resolve()
    new = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else ROOT
    differ = 0
    for name, root in corpus_roots():
        before, after = diagnostics(old, root), diagnostics(new, root)
        for what, items in (("only before", before - after), ("only after", after - before)):
            for item in sorted(items):
                differ += 1
                print(f"{name}: {what}: {item[0]} {item[1]} {item[2]}:{item[3]}:{item[4]} {item[5][:160]}")
        print(f"{name}: {len(before)} before, {len(after)} after", file=sys.stderr)
    print(f"{differ} diagnostics differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
