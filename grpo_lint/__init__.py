"""grpo-lint: a static validator for GRPO training configurations.

    import grpo_lint
    grpo_lint.check(training_args).raise_for_errors()

The public names are loaded on first use, so that `import grpo_lint` costs no more than the CLI's start.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (not `typing`'s: importing typing would delay the console script's start, grpo_lint.early)

__version__ = "0.1.0"
__all__ = ["ConfigError", "Report", "__version__", "check"]

if TYPE_CHECKING:
    from typing import Any

    from grpo_lint.api import ConfigError, Report, check


def __getattr__(name: str) -> Any:
    if name in ("check", "Report", "ConfigError"):
        from grpo_lint import api

        return getattr(api, name)
    raise AttributeError(f"module 'grpo_lint' has no attribute {name!r}")
