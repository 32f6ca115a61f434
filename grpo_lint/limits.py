"""Every bound grpo-lint puts on its input, in one place (the README's "Safety" section lists them).

A linter runs on text it did not write: a pull request's files, a CI runner's standard input. Each
bound below turns an input that would otherwise exhaust memory, time or the interpreter's stack
into a GRPO001 diagnostic with a position. The readers of each kind of text hold the bounds that
only they need (sources/shell.py: bash expansions; sources/hydra_grammar.py: override nesting).
"""

from __future__ import annotations

# Bytes read from one file or from standard input. A GRPO config is a few KB; the largest real
# ones (a full verl ppo_trainer.yaml) are under 100 KB. Larger input is "too large to be a config".
MAX_FILE_BYTES = 10 * 1024 * 1024

# Nesting of YAML/JSON collections, TOML tables and Python expressions. Real configs nest 3-6
# levels; PyYAML's C composer recurses once per level (a SIGSEGV past ~10,000) and Python's json
# and ast raise RecursionError, so deeper text is refused before it reaches them.
MAX_NESTING = 100

# Nodes a YAML document may expand to through anchors and aliases (`a: &a [*b, *b, ...]`): each
# alias counts the size of what it repeats, so an alias bomb is refused before it is built.
MAX_YAML_NODES = 200_000

# Digits of an integer. No batch size, seed or step count needs more than 30; a longer number
# (Python refuses to convert past 4,300 digits, and float arithmetic overflows past 308) is
# reported as out of range (GRPO003) and left out of the arithmetic.
MAX_DIGITS = 30

# Keys of one config for which "did you mean" candidates are searched; past this the file is not
# a hand-written config and unknown keys are reported without suggestions.
MAX_SUGGESTED_KEYS = 100

# Processes of one run (--world-size, settings, launcher variables): more is no real cluster.
MAX_WORLD_SIZE = 1_048_576

# Characters of a key or value quoted in a message: longer text is shortened in the middle to
# CLIP characters from its start and CLIP / 2 from its end, so output stays readable and bounded.
CLIP = 60
# Bytes of a launch script read to find the configs it names, or run by another script (`bash x.sh`);
# larger files are not launch scripts. Bytes of a Python module read for its argument classes, imports
# and seeding helpers (the largest real trainer modules are a few hundred KB).
MAX_SCRIPT_BYTES = 1024 * 1024
MAX_PYTHON_BYTES = 2 * 1024 * 1024

MAX_MESSAGE = 4_000  # characters of one message or fix after that; the rest is cut
# Parts of the written tail of a path through a folder not shown (`cd $ROOT/exgrpo/verl/`,
# `/workspace/project/scripts/x.sh`) looked for in the checkout: a path of thousands of parts costs its last few.
MAX_PATH_TAIL = 16
