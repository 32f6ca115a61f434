"""The `grpo-lint` command. Imports stay lazy: start-up time is the product in a pre-commit hook."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from grpo_lint import __version__
from grpo_lint.limits import MAX_WORLD_SIZE

_FORMATS = ("text", "concise", "json", "sarif", "github")


def _print_version(ctx: click.Context, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from grpo_lint.versions import DISPLAY, FIRST_GRPO, NEWEST_KNOWN

    tables = ", ".join(f"{DISPLAY[f]} {FIRST_GRPO[f]}-{NEWEST_KNOWN[f]}" for f in DISPLAY)
    click.echo(f"grpo-lint {__version__} (knows {tables})")
    ctx.exit()


def _rule_code(text: str) -> str:
    """A rule's code from its code or its name (`partial-groups` -> GRPO102); other text as given."""
    if text.upper().startswith("GRPO"):
        return text.upper()
    from grpo_lint.checks import all_rules

    by_name = {rule.name: code for code, rule in all_rules().items()}
    return by_name.get(text.lower(), text.upper())


def _codes(values: tuple[str, ...], flag: str) -> frozenset[str] | None:
    """Codes, prefixes or rule names from repeatable, comma-separated flags; None when not given."""
    from grpo_lint.project_config import code_problem

    codes = {_rule_code(c.strip()) for v in values for c in v.split(",") if c.strip()}
    for code in codes:
        problem = code_problem(code)
        if problem:
            raise click.BadParameter(problem, param_hint=flag)
    return frozenset(codes) if values else None


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
@click.option("--world-size", type=click.IntRange(min=1, max=MAX_WORLD_SIZE), help="Number of training processes.")
@click.option(
    "--accelerate-config",
    type=click.Path(dir_okay=False),
    help="An accelerate config whose num_processes is the world size of the configs linted with it.",
)
@click.option(
    "--framework",
    type=click.Choice(["trl", "swift", "verl", "openrlhf"]),
    help="Treat every file as a config of this framework instead of detecting it.",
)
@click.option(
    "--output-format",
    "--format",
    "fmt",
    type=click.Choice(_FORMATS),
    help="Output format (concise: one line per diagnostic). Default: github when GITHUB_ACTIONS is set, else text.",
)
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), help="Write the output to this file.")
@click.option("--select", multiple=True, metavar="CODES", help="Only these codes, prefixes or rule names.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these codes, prefixes or rule names.")
@click.option("--extra-keys", multiple=True, metavar="KEYS", help="Keys your own script defines.")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    help="Lowest severity that makes the exit code 1.  [default: error]",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when diagnostics are found (2 still means usage).")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="auto: colour on a terminal, unless NO_COLOR is set non-empty or TERM=dumb; FORCE_COLOR forces it.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="Settings file (pyproject.toml with [tool.grpo-lint], or .grpo-lint.toml). Default: the nearest one.",
)
@click.option("--isolated", is_flag=True, help="Ignore every settings file.")
@click.option("--force-exclude", is_flag=True, help="Apply `exclude` to files named on the command line too.")
@click.option(
    "--only-configs",
    is_flag=True,
    help="Skip named files that are not GRPO configs, as a directory walk does (for pre-commit).",
)
@click.option(
    "--changed-since",
    "diff_base",
    metavar="REV",
    help="Lint only the files changed since this git revision (configs are checked through their launch scripts).",
)
@click.option(
    "--fix",
    is_flag=True,
    help="Apply the safe mechanical fixes in place (renamed keys, typos, 2 -> 2.0), then report what is left.",
)
@click.option(
    "--unsafe-fixes",
    is_flag=True,
    help="Also apply (with --fix) or count as fixable the fixes that change the run, e.g. a batch size "
    "that makes groups whole.",
)
@click.option("--diff", is_flag=True, help="With --fix: print the fixes as a unified diff and write nothing.")
@click.option("--stdin-filename", metavar="NAME", help="The name to report for `-` (standard input).")
@click.option("--show", is_flag=True, help="Print what each config means for the run, without judging it.")
@click.option("--statistics", is_flag=True, help="Print how often each rule fired instead of the diagnostics.")
@click.option(
    "--show-settings",
    is_flag=True,
    help="Print the settings this run uses, each with where it came from (a flag, the settings file, the default).",
)
@click.option("--explain", metavar="CODE", help="Print the page of a rule and exit.")
@click.option("--list-rules", is_flag=True, help="Print every rule and exit.")
@click.option("-q", "--quiet", is_flag=True, help="Print diagnostics only, no summary line.")
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Also say what was not checked and why: skipped files, and rules whose premises the repository does not show.",
)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, param, value: _print_version(ctx, value),
    help="Show the version and the framework releases grpo-lint knows, and exit.",
)
def main(paths: tuple[str, ...], **flags: Any) -> None:
    """Lint GRPO training configs (TRL, ms-swift, verl, OpenRLHF) for broken groups and silent sameness.

    PATHS are config files, launch scripts (*.sh) and Python training code, or directories
    (searched for *.yaml, *.yml, *.json, *.sh, *.py); `-` reads standard input. Exit status: 0 no
    errors, 1 errors found, 2 usage or settings error (or grpo-lint failed on a file: GRPO000).
    """
    fmt = flags["fmt"] or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    _check_combinations(flags, fmt)
    if flags["explain"]:
        _write(_explain(flags["explain"]), flags["output_file"], False)
        return
    if flags["list_rules"]:
        from grpo_lint.formatters.rule_list import render_rule_list

        _write(render_rule_list(fmt), flags["output_file"], False)
        return

    options, fail_on, origins = _options(flags)
    if flags["show_settings"]:
        from grpo_lint.formatters.settings import render_settings

        _write(render_settings(options, fail_on, origins, fmt), flags["output_file"], False)
        return
    from grpo_lint.diagnostics import Severity

    use_color = _use_color(flags["color"], flags["output_file"])
    if flags["fix"] or flags["diff"]:
        report = _fix(list(paths), options, flags, fail_on)
    else:
        report = _lint(list(paths), options, flags)
    report.unsafe_fixes = flags["unsafe_fixes"]
    if flags["show"]:
        from grpo_lint.formatters.show import render_show

        _write(render_show(report, fmt), flags["output_file"], use_color)
        return
    if flags["statistics"]:
        from grpo_lint.formatters.statistics import render_statistics

        output = render_statistics(report, fmt)
    else:
        from grpo_lint.formatters import render

        output = render(report, fmt, use_color, flags["quiet"], flags["verbose"])
    _write(output, flags["output_file"], use_color)
    code = report.exit_code(Severity.parse(fail_on))
    sys.exit(0 if flags["exit_zero"] and code == 1 else code)


def _check_combinations(flags: dict[str, Any], fmt: str) -> None:
    """A usage error for flags that do not apply together, instead of silently ignoring one."""
    modes = [name for name in ("explain", "list_rules", "show", "statistics", "show_settings") if flags[name]]
    if len(modes) > 1:
        shown = " and ".join("--" + m.replace("_", "-") for m in modes)
        raise click.UsageError(f"{shown} cannot be combined: each prints its own report")
    if modes and modes[0] != "explain" and fmt in ("sarif", "github", "concise"):
        raise click.UsageError(
            f"--format {fmt} applies to diagnostics; use text or json with --{modes[0].replace('_', '-')}"
        )
    fixing = [f"--{name}" for name in ("fix", "diff") if flags[name]]
    if fixing and modes:
        raise click.UsageError(f"{fixing[0]} cannot be combined with --{modes[0].replace('_', '-')}")
    if flags["diff"] and not flags["fix"]:
        raise click.UsageError("--diff shows what --fix would change: write --fix --diff")
    if flags["diff"] and flags["fmt"] not in (None, "text"):
        raise click.UsageError("--fix --diff prints a unified diff; --format does not apply")


def _options(flags: dict[str, Any]) -> tuple[Any, str, dict[str, str]]:
    """Command-line flags laid over the settings file: a flag that is given wins. Also where each
    setting came from (for --show-settings)."""
    from pathlib import Path

    from grpo_lint import project_config
    from grpo_lint.options import Options
    from grpo_lint.versions import TargetError, parse_target

    settings: dict[str, Any] = {}
    origins: dict[str, str] = {}
    if flags["isolated"]:
        origins["settings file"], origins["settings source"] = "none", "--isolated"
    else:
        path = Path(flags["config_path"]) if flags["config_path"] else project_config.find(Path.cwd())
        if flags["config_path"] and not path.is_file():
            raise click.BadParameter(f"{path}: no such file", param_hint="--config")
        if path is not None:
            try:
                settings = project_config.load(path).settings
            except project_config.ConfigError as exc:
                click.echo(f"{exc}", err=True)
                sys.exit(2)
            origins["settings file"] = str(path)
            origins["settings source"] = "--config" if flags["config_path"] else "nearest to the current directory"
            origins.update(dict.fromkeys(settings, str(path)))
            origins.update({f"target:{name}": str(path) for name in settings.get("targets", {})})

    targets = dict(settings.get("targets", {}))
    for text in flags["targets"]:
        try:
            target = parse_target(text)
        except TargetError as exc:
            raise click.BadParameter(str(exc), param_hint="--target") from None
        targets[target.framework] = target
        origins[f"target:{target.framework}"] = "--target"
    given = {
        "world_size": flags["world_size"],
        "framework": flags["framework"],
        "select": _codes(flags["select"], "--select"),
        "ignore": _codes(flags["ignore"], "--ignore"),
        "extra_keys": frozenset(k.strip() for v in flags["extra_keys"] for k in v.split(",") if k.strip())
        if flags["extra_keys"]
        else None,
    }
    merged = {name: value for name, value in settings.items() if name in Options._fields}
    merged.update({name: value for name, value in given.items() if value is not None})
    origins.update({name: "--" + name.replace("_", "-") for name, value in given.items() if value is not None})
    merged["targets"] = targets
    if flags["accelerate_config"] and flags["world_size"] is None:
        merged["accelerate"] = _accelerate_world(flags["accelerate_config"])
        origins["world_size"] = f"--accelerate-config {flags['accelerate_config']}"
    merged["force_exclude"] = flags["force_exclude"]
    merged["only_configs"] = flags["only_configs"]
    fail_on = flags["fail_on"] or settings.get("fail_on", "error")
    if flags["fail_on"]:
        origins["fail_on"] = "--fail-on"
    for name in ("force_exclude", "only_configs"):
        if flags[name]:
            origins[name] = "--" + name.replace("_", "-")
    return Options(**merged), fail_on, origins


def _accelerate_world(path: str) -> Any:
    from pathlib import Path

    from grpo_lint.engine import accelerate_world
    from grpo_lint.launch.accelerate import is_accelerate_config
    from grpo_lint.sources import yaml_reader
    from grpo_lint.sources.document import Document

    parsed = yaml_reader.read(Path(path), path)
    if not isinstance(parsed, Document) or not is_accelerate_config(parsed):
        reason = (
            parsed.message if parsed is not None and not isinstance(parsed, Document) else "not an accelerate config"
        )
        raise click.BadParameter(f"{path}: {reason}", param_hint="--accelerate-config")
    world = accelerate_world(parsed)
    if world is None:
        raise click.BadParameter(f"{path} does not set num_processes", param_hint="--accelerate-config")
    return world


def _fix(paths: list[str], options: Any, flags: dict[str, Any], fail_on: str) -> Any:
    """--fix: lint, fix, lint again; the report of what is left. --fix --diff prints the diff and exits."""
    if "-" in paths:
        raise click.UsageError("--fix edits files in place; it cannot fix standard input")
    from grpo_lint.diagnostics import Severity
    from grpo_lint.fixing import fix

    fixed = fix(lambda: _lint(paths, options, flags), flags["unsafe_fixes"])
    count = len(fixed.fixes)
    files = f"{len(fixed.texts)} file{'s' if len(fixed.texts) != 1 else ''}"
    if flags["diff"]:
        _write(fixed.diff(), flags["output_file"], False)
        left = len(fixed.report.diagnostics)
        click.echo(
            f"Would fix {count} diagnostic{'s' if count != 1 else ''} in {files}; {left} would remain.", err=True
        )
        code = fixed.report.exit_code(Severity.parse(fail_on))
        if code == 1 and flags["exit_zero"]:
            code = 0
        sys.exit(code if code == 2 or not fixed.texts else 1)  # 1: a file would change
    failed = fixed.write()
    if failed:
        click.echo(f"error: could not write {', '.join(failed)}; nothing else was changed there", err=True)
        sys.exit(2)
    fixed.report.fixed = fixed.fixes
    return fixed.report


def _lint(paths: list[str], options: Any, flags: dict[str, Any]) -> Any:
    from grpo_lint.engine import Report, lint_bytes, lint_paths

    base = flags["diff_base"]
    if base:
        from grpo_lint.workspace.changes import GitError, changed_files
        from grpo_lint.workspace.files import lintable

        try:
            changed = changed_files(base, paths, lintable)
        except GitError as exc:
            raise click.UsageError(str(exc)) from None
        return lint_paths(paths or ["."], options, changed)
    if not paths:
        raise click.UsageError("give at least one config file or directory (or - for standard input)")
    if "-" in paths:
        if len(paths) > 1:
            raise click.UsageError("`-` (standard input) cannot be combined with other paths")
        from grpo_lint.workspace import build

        name = flags["stdin_filename"] or "-"
        workspace = build([os.path.dirname(name) or "."] if name != "-" else ["."], options)
        from grpo_lint.lint import finish, unreadable
        from grpo_lint.sources.document import ReadProblem
        from grpo_lint.sources.reading import read_stream

        data = read_stream(sys.stdin.buffer)
        if isinstance(data, ReadProblem):
            return Report([finish(unreadable(name, data, options), options)])
        from grpo_lint.engine import guarded

        return Report([guarded(name, options, lint_bytes, data, name, options, workspace)])
    return lint_paths(paths, options)


def _explain(code: str) -> str:
    from grpo_lint.checks import all_rules
    from grpo_lint.frameworks.fields import closest
    from grpo_lint.rule_pages import page

    code = _rule_code(code.strip())
    rules = all_rules()
    text = page(code) if code in rules else None
    if text is None:
        hint = closest(code, list(rules))
        raise click.BadParameter(
            f"{code!r} is not a rule" + (f"; did you mean {hint}?" if hint else " (see --list-rules)"),
            param_hint="--explain",
        )
    return text if text.endswith("\n") else text + "\n"


def _use_color(color: str, output_file: str | None) -> bool:
    if color == "always":
        return True
    if color == "never" or output_file:
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


class _OutputError(click.FileError):
    """The -o file cannot be written: a usage problem (exit 2), not "errors found" (exit 1)."""

    exit_code = 2


def _write(text: str, output_file: str | None, color: bool) -> None:
    from grpo_lint.formatters import printable

    text = printable(text)
    if output_file:
        try:
            with open(output_file, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise _OutputError(output_file, hint=exc.strerror or str(exc)) from None
        return
    click.echo(text, nl=False, color=color)


def entry() -> None:
    """The console script: `grpo-lint run [OPTIONS] -- COMMAND ...`, `grpo-lint schema ...`, else the
    linter. A file or folder named `run` (or `schema`) is linted as before (for run: unless `--` shows
    that a command follows)."""
    args = sys.argv[1:]
    if args[:1] == ["run"] and ("--" in args or not os.path.exists("run")):
        from grpo_lint.run_command import run

        run.main(args=args[1:], prog_name="grpo-lint run")
        return
    if args[:1] == ["schema"] and not os.path.exists("schema"):
        from grpo_lint.json_schema import schema

        schema.main(args=args[1:], prog_name="grpo-lint schema")
        return
    main()
