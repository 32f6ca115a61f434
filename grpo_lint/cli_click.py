"""The `grpo-lint` click command, built from the table of flags in `grpo_lint.cli_flags`.

Imported only when click reads the line: `--help`, `--version`, a usage error, shell completion, a line
`plain_flags` leaves to click, or a program that imports `grpo_lint.cli.main` to call it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from grpo_lint import __version__
from grpo_lint.cli_flags import FLAGS, Flag
from grpo_lint.limits import MAX_WORLD_SIZE


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from grpo_lint.versions import DISPLAY, FIRST_GRPO, NEWEST_KNOWN

    tables = ", ".join(f"{DISPLAY[f]} {FIRST_GRPO[f]}-{NEWEST_KNOWN[f]}" for f in DISPLAY)
    click.echo(f"grpo-lint {__version__} (knows {tables})")
    ctx.exit()


def _option(flag: Flag) -> Any:
    kwargs: dict[str, Any] = {"help": flag.help, "multiple": flag.multiple}
    if flag.kind == "flag":
        kwargs["is_flag"] = True
    elif flag.kind == "int":
        kwargs["type"] = click.IntRange(min=1, max=MAX_WORLD_SIZE)
    elif flag.kind == "choice":
        kwargs["type"] = click.Choice(flag.choices)
    elif flag.kind == "file":
        kwargs["type"] = click.Path(dir_okay=False)
    if flag.default is not None:
        kwargs.update(default=flag.default, show_default=True)
    if flag.metavar:
        kwargs["metavar"] = flag.metavar
    return click.option(*flag.names, flag.dest, **kwargs)


def command(lint_command: Callable[[tuple[str, ...], dict[str, Any]], None]) -> click.Command:
    """The click command around `lint_command` (grpo_lint.cli hands it in: this module imports no command)."""

    def main(paths: tuple[str, ...], **flags: Any) -> None:
        lint_command(paths, flags)

    main.__doc__ = lint_command.__doc__
    main = click.option(
        "--version",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_print_version,
        help="Show the version and the framework releases grpo-lint knows, and exit.",
    )(main)
    for flag in reversed(FLAGS):  # decorators apply inside out: the table's order is the help's order
        main = _option(flag)(main)
    main = click.argument("paths", nargs=-1, type=click.Path())(main)
    return click.command(name="grpo-lint", context_settings={"help_option_names": ["-h", "--help"]})(main)
