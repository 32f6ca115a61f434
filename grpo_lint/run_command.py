"""`grpo-lint run -- COMMAND ...`: lint a launch command as it is about to run, then run it.

The command is read exactly as a line of a launch script (every launcher grpo-lint knows), with the
environment the command will inherit (`CUDA_VISIBLE_DEVICES`, `NPROC_PER_NODE`, `WORLD_SIZE`, ...) written
in front of it, so that what the script reader would leave open is known here. When the report has no
error the command replaces this process (`os.execvp`, unchanged arguments and environment); `--force`
runs it anyway. The user asks for this command to run: it is the one program grpo-lint starts besides git.
"""

from __future__ import annotations

import os
import shlex
import sys

import click

# What the launchers read from the environment to decide how many processes run where.
_LAUNCH_ENV = (
    "CUDA_VISIBLE_DEVICES", "NPROC_PER_NODE", "NNODES", "NODE_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE",
    "MASTER_ADDR", "MASTER_PORT", "SLURM_NNODES", "SLURM_NTASKS", "SLURM_GPUS_ON_NODE",
)  # fmt: skip


def script_for(command: list[str], environ: dict[str, str]) -> str:
    """The command as a one-line launch script, with the launch environment exported before it."""
    exports = [f"export {name}={shlex.quote(environ[name])}" for name in _LAUNCH_ENV if name in environ]
    return "\n".join([*exports, shlex.join(command)]) + "\n"


@click.command(
    context_settings={"help_option_names": ["-h", "--help"], "ignore_unknown_options": True},
    help="Lint COMMAND as a launch script line, then run it when there is no error.",
)
@click.option("--force", is_flag=True, help="Run the command even when grpo-lint finds errors.")
@click.option("--target", "targets", multiple=True, metavar="FRAMEWORK==VERSION", help="As for grpo-lint.")
@click.option("--world-size", type=click.IntRange(min=1), help="As for grpo-lint.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default="error", show_default=True)
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def run(command: tuple[str, ...], force: bool, targets: tuple[str, ...], world_size: int | None, fail_on: str) -> None:
    from grpo_lint.diagnostics import Severity
    from grpo_lint.engine import lint_text
    from grpo_lint.formatters.text import render_text
    from grpo_lint.options import Options
    from grpo_lint.results import Report
    from grpo_lint.versions import TargetError, parse_target
    from grpo_lint.workspace import build

    words = list(command[1:] if command and command[0] == "--" else command)
    if not words:
        raise click.UsageError("give the command to run after --")
    parsed = {}
    for text in targets:
        try:
            target = parse_target(text)
        except TargetError as exc:
            raise click.BadParameter(str(exc), param_hint="--target") from None
        parsed[target.framework] = target
    options = Options(targets=parsed, world_size=world_size)
    workspace = build(["."], options)
    result = lint_text(script_for(words, dict(os.environ)), "<command>.sh", options, kind="shell", workspace=workspace)
    report = Report([result], workspace)
    failing = report.exit_code(Severity.parse(fail_on)) != 0
    if result.diagnostics:
        click.echo(render_text(report), err=True, nl=False)
    if failing and not force:
        click.echo("grpo-lint: not running the command (errors above); --force runs it anyway", err=True)
        sys.exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvp(words[0], words)
    except OSError as exc:
        click.echo(f"grpo-lint: cannot run {words[0]}: {exc.strerror or exc}", err=True)
        sys.exit(127 if isinstance(exc, FileNotFoundError) else 126)
