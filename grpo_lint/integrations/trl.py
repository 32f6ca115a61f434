"""A guard inside TRL's trainer: the static checks with the job's real world size before the first
generation, and a watch over the metrics TRL logs for groups that have all collapsed.

    from grpo_lint.integrations.trl import GRPOLintCallback
    trainer.add_callback(GRPOLintCallback())

transformers is imported here, so only by a process that trains with it; grpo-lint itself never does.
"""

from __future__ import annotations

import logging
from typing import Any

from transformers import TrainerCallback

from grpo_lint.api import ConfigError, Report, check
from grpo_lint.diagnostics import Severity

logger = logging.getLogger("grpo_lint")

# What makes every completion of a group the same, as grpo-lint's rules know them (rule codes in brackets).
STATIC_CAUSES = (
    "greedy sampling: temperature <= 0, top_k 1, top_p 0, do_sample false (GRPO201, GRPO202)",
    "a fixed sampling seed sent with every request (GRPO203)",
    "every rank seeded with the same constant, or set_seed without device_specific=True (GRPO301, GRPO302)",
    "a known duplicate-completion bug of the installed version (GRPO304)",
    "a reward that cannot tell the completions of a prompt apart (constant, or saturated for every completion)",
)


class GroupCollapse(RuntimeError):
    """Every group's rewards had zero spread for `patience` logging steps in a row."""


class GRPOLintCallback(TrainerCallback):
    """Lint the trainer's arguments when training starts, and watch for collapsed groups.

    - `fail_on`: "error" raises grpo_lint.ConfigError when the config has an error ("warning": also on
      warnings; None: only log).
    - `on_collapse`: "stop" ends training (control.should_training_stop) and `raise_on_collapse` also
      raises GroupCollapse; "warn" only logs. A step has collapsed when every group's rewards have zero
      spread: `frac_reward_zero_std` is 1 (or `reward_std` is 0 where the fraction is not logged).
    - `patience`: how many logging steps in a row must collapse before it acts.
    """

    def __init__(
        self,
        *,
        fail_on: str | None = "error",
        on_collapse: str = "stop",
        patience: int = 3,
        raise_on_collapse: bool = False,
    ) -> None:
        if on_collapse not in ("stop", "warn"):
            raise ValueError(f"on_collapse must be 'stop' or 'warn', not {on_collapse!r}")
        if fail_on not in ("error", "warning", None):
            raise ValueError(f"fail_on must be 'error', 'warning' or None, not {fail_on!r}")
        self.fail_on = fail_on
        self.on_collapse = on_collapse
        self.patience = max(int(patience), 1)
        self.raise_on_collapse = raise_on_collapse
        self.report: Report | None = None
        self.collapsed_steps = 0
        self.collapsed = False

    # --- the static checks, with the real world size ---------------------------------------------

    def on_init_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._lint(args)

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._lint(args)

    def _lint(self, args: Any) -> None:
        if self.report is not None:
            return
        world = getattr(args, "world_size", None)
        self.report = check(args, world_size=world if isinstance(world, int) and world > 0 else None)
        threshold = {"error": Severity.ERROR, "warning": Severity.WARNING}.get(self.fail_on or "")
        failing = [d for d in self.report.diagnostics if threshold is not None and d.severity >= threshold]
        for diagnostic in self.report.diagnostics:
            if diagnostic not in failing:
                logger.warning("grpo-lint %s[%s] %s", diagnostic.severity.label, diagnostic.code, diagnostic.message)
        if failing:
            raise ConfigError(self.report)

    # --- the watch over the logged metrics -------------------------------------------------------

    def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kwargs: Any) -> None:
        if not logs or self.collapsed:
            return
        fraction = logs.get("frac_reward_zero_std")
        spread = logs.get("reward_std")
        if fraction is None and spread is None:
            return  # not a GRPO training log (evaluation, the final summary)
        collapsed = float(fraction) >= 1.0 if fraction is not None else float(spread) == 0.0
        self.collapsed_steps = self.collapsed_steps + 1 if collapsed else 0
        if self.collapsed_steps < self.patience:
            return
        self.collapsed = True
        message = self.collapse_message(state)
        logger.error(message)
        if self.on_collapse == "stop":
            control.should_training_stop = True
            if self.raise_on_collapse:
                raise GroupCollapse(message)

    def collapse_message(self, state: Any) -> str:
        step = getattr(state, "global_step", "?")
        found = [
            f"  {d.code} {d.message}"
            for d in (self.report.diagnostics if self.report is not None else [])
            if d.code.startswith(("GRPO2", "GRPO3"))
        ]
        lines = [
            f"grpo-lint: every group had identical rewards for {self.collapsed_steps} logging steps in a row (up to "
            f"step {step}): every advantage is 0, so loss and KL are 0 and nothing is learned.",
            "Causes grpo-lint checks statically:",
            *(f"  - {cause}" for cause in STATIC_CAUSES),
            "In this run's config: "
            + (
                "\n" + "\n".join(found)
                if found
                else "none of them was found; look at the "
                "reward functions and at per-request seeds of the generation server."
            ),
        ]
        return "\n".join(lines)
