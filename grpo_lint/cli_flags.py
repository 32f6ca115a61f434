"""The flags of `grpo-lint`, written once as data, and the reader of a plain command line.

click builds the command from this table (`grpo_lint.cli_click`), with its help, its usage errors and
its shell completion. Importing click costs about as much as importing PyYAML (30 ms with click 8.5:
`inspect`, `uuid`, `datetime`), and a pre-commit hook starts grpo-lint on every commit with a command
line as plain as `grpo-lint --force-exclude --only-configs a.yaml b.sh`. `plain_flags` reads such a
line without click and gives exactly the values click would give; any line it is not sure of (help,
an unknown or misspelt flag, a value click would refuse, a flag whose handling writes files) is left to
click, which then reads all of it. tests/test_cli_flags.py compares the two on generated lines.
"""

from __future__ import annotations

import os
import stat

from grpo_lint.limits import MAX_WORLD_SIZE

FORMATS = ("text", "concise", "json", "sarif", "github")
FRAMEWORKS = ("trl", "swift", "verl", "openrlhf")
SEVERITIES = ("error", "warning", "info")
COLORS = ("auto", "always", "never")


class Flag:
    """One option of the command. `kind`: "flag" (no value), "text", "int" (1..MAX_WORLD_SIZE),
    "choice" (one of `choices`), "file" (a path that must not be a folder). `plain`: the line may be read
    without click when it carries this option (False for options whose handling writes files, where an
    error found late would need the whole run again)."""

    __slots__ = ("choices", "default", "dest", "help", "kind", "metavar", "multiple", "names", "plain")

    def __init__(
        self,
        names: tuple[str, ...],
        dest: str,
        kind: str,
        help: str,
        *,
        choices: tuple[str, ...] = (),
        multiple: bool = False,
        default: str | None = None,
        metavar: str | None = None,
        plain: bool = True,
    ) -> None:
        self.names, self.dest, self.kind, self.help = names, dest, kind, help
        self.choices, self.multiple, self.default, self.metavar, self.plain = choices, multiple, default, metavar, plain

    def unset(self) -> object:
        """The value click gives when the option is not on the line."""
        if self.kind == "flag":
            return False
        return () if self.multiple else self.default


FLAGS: tuple[Flag, ...] = (
    Flag(
        ("--target",),
        "targets",
        "text",
        "Framework version to check against, e.g. trl==0.19.1 or swift==3.5.0 (repeatable). "
        "Default: the installed version, else the newest known (TRL 1.16.0, ms-swift 4.6.0).",
        multiple=True,
        metavar="FRAMEWORK==VERSION",
    ),
    Flag(("--world-size",), "world_size", "int", "Number of training processes."),
    Flag(
        ("--accelerate-config",),
        "accelerate_config",
        "file",
        "An accelerate config whose num_processes is the world size of the configs linted with it.",
    ),
    Flag(
        ("--framework",),
        "framework",
        "choice",
        "Treat every file as a config of this framework instead of detecting it.",
        choices=FRAMEWORKS,
    ),
    Flag(
        ("--output-format", "--format"),
        "fmt",
        "choice",
        "Output format (concise: one line per diagnostic). Default: github when GITHUB_ACTIONS is set, else text.",
        choices=FORMATS,
    ),
    Flag(("-o", "--output-file"), "output_file", "file", "Write the output to this file.", plain=False),
    Flag(("--select",), "select", "text", "Only these codes, prefixes or rule names.", multiple=True, metavar="CODES"),
    Flag(("--ignore",), "ignore", "text", "Skip these codes, prefixes or rule names.", multiple=True, metavar="CODES"),
    Flag(("--extra-keys",), "extra_keys", "text", "Keys your own script defines.", multiple=True, metavar="KEYS"),
    Flag(
        ("--fail-on",),
        "fail_on",
        "choice",
        "Lowest severity that makes the exit code 1.  [default: error]",
        choices=SEVERITIES,
    ),
    Flag(("--exit-zero",), "exit_zero", "flag", "Exit 0 even when diagnostics are found (2 still means usage)."),
    Flag(
        ("--color",),
        "color",
        "choice",
        "auto: colour on a terminal, unless NO_COLOR is set non-empty or TERM=dumb; FORCE_COLOR forces it.",
        choices=COLORS,
        default="auto",
    ),
    Flag(
        ("--config",),
        "config_path",
        "file",
        "Settings file (pyproject.toml with [tool.grpo-lint], or .grpo-lint.toml). Default: the nearest one.",
    ),
    Flag(
        ("-j", "--jobs"),
        "jobs",
        "int",
        "Processes that parse Python files at once. Default: one per CPU; 1: this process alone.",
    ),
    Flag(
        ("--no-cache",),
        "no_cache",
        "flag",
        "Read every Python file again instead of loading what an earlier run read it as (GRPO_LINT_NO_CACHE=1 too).",
    ),
    Flag(
        ("--cache-dir",),
        "cache_dir",
        "text",
        "Where what Python files were read as is kept between runs. Default: $GRPO_LINT_CACHE_DIR, else "
        "$XDG_CACHE_HOME/grpo-lint or ~/.cache/grpo-lint (never inside the repository).",
        metavar="DIR",
    ),
    Flag(("--isolated",), "isolated", "flag", "Ignore every settings file."),
    Flag(("--force-exclude",), "force_exclude", "flag", "Apply `exclude` to files named on the command line too."),
    Flag(
        ("--only-configs",),
        "only_configs",
        "flag",
        "Skip named files that are not GRPO configs, as a directory walk does (for pre-commit).",
    ),
    Flag(
        ("--changed-since",),
        "diff_base",
        "text",
        "Lint only the files changed since this git revision (configs are checked through their launch scripts).",
        metavar="REV",
    ),
    Flag(
        ("--fix",),
        "fix",
        "flag",
        "Apply the safe mechanical fixes in place (renamed keys, typos, 2 -> 2.0), then report what is left.",
        plain=False,
    ),
    Flag(
        ("--unsafe-fixes",),
        "unsafe_fixes",
        "flag",
        "Also apply (with --fix) or count as fixable the fixes that change the run, e.g. a batch size "
        "that makes groups whole.",
    ),
    Flag(("--diff",), "diff", "flag", "With --fix: print the fixes as a unified diff and write nothing."),
    Flag(
        ("--stdin-filename",), "stdin_filename", "text", "The name to report for `-` (standard input).", metavar="NAME"
    ),
    Flag(("--show",), "show", "flag", "Print what each config means for the run, without judging it."),
    Flag(("--statistics",), "statistics", "flag", "Print how often each rule fired instead of the diagnostics."),
    Flag(
        ("--show-settings",),
        "show_settings",
        "flag",
        "Print the settings this run uses, each with where it came from (a flag, the settings file, the default).",
    ),
    Flag(("--explain",), "explain", "text", "Print the page of a rule and exit.", metavar="CODE"),
    Flag(("--list-rules",), "list_rules", "flag", "Print every rule and exit."),
    Flag(("-q", "--quiet"), "quiet", "flag", "Print diagnostics only, no summary line."),
    Flag(
        ("-v", "--verbose"),
        "verbose",
        "flag",
        "Also say what was not checked and why: skipped files, and rules whose premises the repository does not show.",
    ),
)

_BY_NAME = {name: flag for flag in FLAGS for name in flag.names}


def plain_flags(args: list[str]) -> dict[str, object] | None:
    """The values click would pass for `args` (`paths` and one entry per flag), or None when the line
    is not plain and click must read it. Never a value click would refuse: every doubt returns None."""
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return None  # click's shell completion
    values: dict[str, object] = {flag.dest: flag.unset() for flag in FLAGS}
    paths: list[str] = []
    index, count = 0, len(args)
    while index < count:
        arg = args[index]
        index += 1
        if arg == "--":
            paths.extend(args[index:])
            break
        if arg[:1] != "-" or arg == "-":
            paths.append(arg)
            continue
        name, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        flag = _BY_NAME.get(name)
        if flag is None or not flag.plain:
            return None
        if flag.kind == "flag":
            if equals:
                return None
            values[flag.dest] = True
            continue
        if not equals:
            if index == count:
                return None
            value = args[index]
            index += 1
        converted = _value(flag, value)
        if converted is None:
            return None
        if flag.multiple:
            values[flag.dest] = (*values[flag.dest], converted)  # type: ignore[misc]
        else:
            values[flag.dest] = converted
    if not all(_path_ok(path, dir_okay=True) for path in paths):
        return None
    values["paths"] = tuple(paths)
    return values


def _value(flag: Flag, value: str) -> object | None:
    """The value converted as click converts it, or None when click might refuse it or read it otherwise."""
    if value[:1] == "-" and value != "-":
        return None  # click reads some of these as the next option
    if flag.kind == "text":
        return value
    if flag.kind == "choice":
        return value if value in flag.choices else None
    if flag.kind == "int":
        try:
            number = int(value)
        except ValueError:
            return None
        return number if 1 <= number <= MAX_WORLD_SIZE else None
    return value if _path_ok(value, dir_okay=False) else None


def _path_ok(path: str, dir_okay: bool) -> bool:
    """What `click.Path(dir_okay=...)` checks: a path that does not exist passes; one that exists must
    be readable, and not a folder when folders are not allowed."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True
    except ValueError:
        return False  # a NUL in the name: click's own handling decides
    if not dir_okay and stat.S_ISDIR(mode):
        return False
    return os.access(path, os.R_OK)
