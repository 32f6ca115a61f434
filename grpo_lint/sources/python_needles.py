"""Which Python files are worth parsing: a byte-level test of the words every rule needs to see.

Parsing is most of what a repository's lint costs (a large trainer module takes longer to parse than a
whole folder of YAML), so a file is parsed only when some rule could report on it:

- a GRPO name: a `GRPOConfig(...)` call is linted like a config, a GRPO trainer class may skip its seeding;
- a sampler (`DistributedSampler`, TRL's `RepeatSampler`): GRPO303 and GRPO305;
- a seed in code that runs on several processes or in a trainer class: GRPO301, GRPO302 and GRPO203
  report a seed only where `distributed` holds (one of the names, strings or modules below) or inside a
  trainer subclass (a base whose name holds `Trainer` or `GRPO`).

A test file (by its path) is read for its GRPOConfig calls only: the seeding rules leave tests alone, since
a test seeds on purpose. grpo_lint.sources.python_code decides `distributed` and `is_test` from the same
lists, after parsing; this test only ever lets through more than the rules read.
"""

from __future__ import annotations

DISTRIBUTED_NAMES = frozenset({
    "init_process_group", "Accelerator", "DistributedDataParallel", "DDP", "DistributedSampler",
    "get_rank", "get_world_size", "PartialState", "initialize",
})  # fmt: skip
DISTRIBUTED_STRINGS = frozenset({"LOCAL_RANK", "RANK", "WORLD_SIZE"})
DISTRIBUTED_MODULES = ("accelerate", "torch.distributed", "deepspeed")
SAMPLERS = ("DistributedSampler", "RepeatSampler", "RepeatRandomSampler")
# Where a seed can matter: any of these words in the text (a base class named *Trainer, or a sign of
# several processes). "RANK" covers "LOCAL_RANK".
_SEED_CONTEXT = ("Trainer", "RANK", "WORLD_SIZE", *DISTRIBUTED_NAMES, *DISTRIBUTED_MODULES)


def is_test_path(path: str) -> bool:
    """A test module by its name or folder (`test_x.py`, `x_test.py`, `tests/...`)."""
    normal = "/" + path.replace("\\", "/")
    name = normal.rsplit("/", 1)[-1]
    return name.startswith("test_") or name.endswith("_test.py") or "/tests/" in normal


# A program a Python file may start with a GRPO run's command line (grpo_lint.sources.python_launches).
_LAUNCHED = ("main_ppo", "train_ppo_ray", "trl.scripts", "swift", "trl grpo", "accelerate")


def not_worth_parsing(text: str, path: str, framework_code: bool = False) -> str | None:
    """Why no rule could report on this Python file (it is then not parsed), or None to parse it.
    `framework_code`: the file is part of a framework's copy, which only the seeding rules judge (its GRPOConfig
    calls and launches are the framework's own), so a GRPO name there counts only as a trainer's: for a deleted
    `__init__` (GRPO302) or a seed inside it."""
    grpo = "GRPO" in text
    if framework_code:
        if grpo and "__init__" in text and "del " in text:
            return None
    elif grpo or (("subprocess" in text or "os.system" in text) and any(word in text for word in _LAUNCHED)):
        return None
    if is_test_path(path):
        return "not parsed: a test file that names nothing GRPO (tests are read for GRPOConfig calls only)"
    if "Sampler" in text:
        return None
    if "seed" not in text:
        if framework_code:
            return "not parsed: part of a framework's copy, with no sampler, no seed and no trainer's deleted __init__"
        return "not parsed: it names nothing GRPO, no sampler and no seed"
    if grpo or any(word in text for word in _SEED_CONTEXT):
        return None
    return "not parsed: its seeds run in one process outside any trainer (no GRPO name, sampler or sign of ranks)"
