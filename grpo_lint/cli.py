"""The `grpo-lint` command. Imports stay lazy: start-up time is the product in a pre-commit hook."""

from __future__ import annotations

import os
import sys

import click

from grpo_lint import __version__


def _codes(values: tuple[str, ...]) -> frozenset[str]:
    codes = {c.strip().upper() for v in values for c in v.split(",") if c.strip()}
    for code in codes:
        if not code.startswith("GRPO"):
            raise click.BadParameter(f"{code!r} is not a rule code (e.g. GRPO102 or GRPO1)")
    return frozenset(codes)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--target",
    "targets",
    multiple=True,
    metavar="FRAMEWORK==VERSION",
    help="Framework version to check against, e.g. trl==0.19.1 or swift==3.5.0 (repeatable). "
    "Default: the installed version, else the newest known (TRL 1.16.0, ms-swift 4.6.0).",
)
@click.option("--world-size", type=click.IntRange(min=1), help="Number of training processes.")
@click.option(
    "--framework",
    type=click.Choice(["trl", "swift"]),
    help="Treat every file as a config of this framework instead of detecting it.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--select", multiple=True, metavar="CODES", help="Only these codes or prefixes.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these codes or prefixes.")
@click.option("--extra-keys", multiple=True, metavar="KEYS", help="Keys your own script defines.")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    default="error",
    show_default=True,
    help="Lowest severity that makes the exit code 1.",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="auto: colour on a terminal unless NO_COLOR is set.",
)
@click.version_option(__version__, prog_name="grpo-lint")
def main(
    paths: tuple[str, ...],
    targets: tuple[str, ...],
    world_size: int | None,
    framework: str | None,
    fmt: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    extra_keys: tuple[str, ...],
    fail_on: str,
    color: str,
) -> None:
    """Lint GRPO training configs (TRL, ms-swift) for broken groups and silent sameness.

    PATHS are config files or directories (searched for *.yaml, *.yml, *.json).
    Exit status: 0 no errors, 1 errors found, 2 usage error.
    """
    from grpo_lint.diagnostics import Severity
    from grpo_lint.engine import lint_paths
    from grpo_lint.formatters import render
    from grpo_lint.options import Options
    from grpo_lint.versions import TargetError, parse_target

    if not paths:
        raise click.UsageError("give at least one config file or directory")
    parsed = {}
    for text in targets:
        try:
            target = parse_target(text)
        except TargetError as exc:
            raise click.BadParameter(str(exc), param_hint="--target") from None
        parsed[target.framework] = target
    options = Options(
        targets=parsed,
        world_size=world_size,
        framework=framework,
        select=_codes(select),
        ignore=_codes(ignore),
        extra_keys=frozenset(k.strip() for v in extra_keys for k in v.split(",") if k.strip()),
    )
    report = lint_paths(list(paths), options)
    use_color = color == "always" or (color == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ)
    click.echo(render(report, fmt, use_color), nl=False, color=use_color)
    sys.exit(report.exit_code(Severity.parse(fail_on)))
