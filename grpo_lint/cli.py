"""The `grpo-lint` command: what a command line asks for, carried out.

Imports stay lazy: start-up time is the product in a pre-commit hook. click is imported only when it
reads the line (`grpo_lint.cli_flags` says when) or to report a usage error.
"""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False  # (typing is not imported before grpo_lint.early has started git)
if TYPE_CHECKING:
    from typing import Any


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
            raise _bad_parameter(problem, param_hint=flag)
    return frozenset(codes) if values else None


def lint_command(paths: tuple[str, ...], flags: dict[str, Any]) -> None:
    """Lint GRPO training configs (TRL, ms-swift, verl, OpenRLHF) for broken groups and silent sameness.

    PATHS are config files, launch scripts (*.sh) and Python training code, or directories
    (searched for *.yaml, *.yml, *.json, *.sh, *.py); `-` reads standard input. Exit status: 0 no
    errors, 1 errors found, 2 usage or settings error (or grpo-lint failed on a file: GRPO000).

    Also: `grpo-lint run [OPTIONS] -- COMMAND ...` (lint a launch command, then run it), `grpo-lint schema`
    (JSON Schemas for editors), `grpo-lint server` (the language server, extra `server`).
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

    if paths and "-" not in paths and not flags["diff_base"]:
        _list_ahead(paths)
    use_color = _use_color(flags["color"], flags["output_file"])
    cache = _run_cache(paths, flags, fmt, use_color)
    try:
        _lint_and_report(paths, flags, fmt, use_color, cache)
    finally:
        if cache is not None:
            from grpo_lint.run_cache import stop

            stop()


def _lint_and_report(paths: tuple[str, ...], flags: dict[str, Any], fmt: str, use_color: bool, cache: Any) -> None:
    options, fail_on, origins = _options(flags)
    if flags["show_settings"]:
        from grpo_lint.formatters.settings import render_settings

        _write(render_settings(options, fail_on, origins, fmt), flags["output_file"], False)
        return
    from grpo_lint.diagnostics import Severity

    if flags["fix"] or flags["diff"]:
        report = _fix(list(paths), options, flags, fail_on)
    else:
        report = _lint(list(paths), options, flags, cache)
    if cache is not None:
        from grpo_lint.run_cache import Replayed

        if isinstance(report, Replayed):  # the cache's answer for an unchanged repository
            _write(report.output, flags["output_file"], use_color)
            sys.exit(report.code)
    report.unsafe_fixes = flags["unsafe_fixes"]
    if flags["show"]:
        from grpo_lint.formatters.show import render_show

        output, code = render_show(report, fmt), 0
    else:
        if flags["statistics"]:
            from grpo_lint.formatters.statistics import render_statistics

            output = render_statistics(report, fmt)
        else:
            from grpo_lint.formatters import render

            output = render(report, fmt, use_color, flags["quiet"], flags["verbose"])
        code = report.exit_code(Severity.parse(fail_on))
        code = 0 if flags["exit_zero"] and code == 1 else code
    if cache is not None and not any(d.code == "GRPO000" for f in report.files for d in f.diagnostics):
        cache.store(output, code)  # (a run grpo-lint failed on is done again next time)
    _write(output, flags["output_file"], use_color)
    sys.exit(code)


def _run_cache(paths: tuple[str, ...], flags: dict[str, Any], fmt: str, use_color: bool) -> Any:
    """The cache of this command's output (grpo_lint.run_cache), recording from here on; None for a command that
    writes files, reads standard input or keeps no cache."""
    if not paths or "-" in paths or flags["fix"] or flags["diff"] or not any(os.path.isdir(p) for p in paths):
        return None  # (files named one by one, as pre-commit names them, are linted without listing the repository)
    folder = _cache_folder(flags)
    if folder is None:
        return None
    from grpo_lint import run_cache
    from grpo_lint.versions import DISTRIBUTIONS, installed_version

    installed = tuple(str(installed_version(name)) for name in DISTRIBUTIONS)
    given = tuple(sorted((name, repr(value)) for name, value in flags.items()))  # (every option, as parsed)
    parts = (run_cache.build_digest(), paths, given, os.getcwd(), fmt, use_color, installed, tuple(sys.path))
    return run_cache.begin(folder, parts)


def _check_combinations(flags: dict[str, Any], fmt: str) -> None:
    """A usage error for flags that do not apply together, instead of silently ignoring one."""
    modes = [name for name in ("explain", "list_rules", "show", "statistics", "show_settings") if flags[name]]
    if len(modes) > 1:
        shown = " and ".join("--" + m.replace("_", "-") for m in modes)
        raise _usage_error(f"{shown} cannot be combined: each prints its own report")
    if modes and modes[0] != "explain" and fmt in ("sarif", "github", "concise"):
        raise _usage_error(
            f"--format {fmt} applies to diagnostics; use text or json with --{modes[0].replace('_', '-')}"
        )
    fixing = [f"--{name}" for name in ("fix", "diff") if flags[name]]
    if fixing and modes:
        raise _usage_error(f"{fixing[0]} cannot be combined with --{modes[0].replace('_', '-')}")
    if flags["diff"] and not flags["fix"]:
        raise _usage_error("--diff shows what --fix would change: write --fix --diff")
    if flags["diff"] and flags["fmt"] not in (None, "text"):
        raise _usage_error("--fix --diff prints a unified diff; --format does not apply")


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
            raise _bad_parameter(f"{path}: no such file", param_hint="--config")
        if path is not None:
            try:
                settings = project_config.load(path).settings
            except project_config.ConfigError as exc:
                _echo(f"{exc}\n", sys.stderr)
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
            raise _bad_parameter(str(exc), param_hint="--target") from None
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
    # the command line lints on every CPU unless told otherwise; --show describes each run in full, which a forked
    # process does not send back (grpo_lint.forked)
    merged["jobs"] = 1 if flags["show"] else flags["jobs"] or 0
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
        raise _bad_parameter(f"{path}: {reason}", param_hint="--accelerate-config")
    world = accelerate_world(parsed)
    if world is None:
        raise _bad_parameter(f"{path} does not set num_processes", param_hint="--accelerate-config")
    return world


def _fix(paths: list[str], options: Any, flags: dict[str, Any], fail_on: str) -> Any:
    """--fix: lint, fix, lint again; the report of what is left. --fix --diff prints the diff and exits."""
    if "-" in paths:
        raise _usage_error("--fix edits files in place; it cannot fix standard input")
    from grpo_lint.diagnostics import Severity
    from grpo_lint.fixing import fix

    fixed = fix(lambda: _lint(paths, options, flags), flags["unsafe_fixes"])
    count = len(fixed.fixes)
    files = f"{len(fixed.texts)} file{'s' if len(fixed.texts) != 1 else ''}"
    if flags["diff"]:
        _write(fixed.diff(), flags["output_file"], False)
        left = len(fixed.report.diagnostics)
        _echo(f"Would fix {count} diagnostic{'s' if count != 1 else ''} in {files}; {left} would remain.\n", sys.stderr)
        code = fixed.report.exit_code(Severity.parse(fail_on))
        if code == 1 and flags["exit_zero"]:
            code = 0
        sys.exit(code if code == 2 or not fixed.texts else 1)  # 1: a file would change
    failed = fixed.write()
    if failed:
        _echo(f"error: could not write {', '.join(failed)}; nothing else was changed there\n", sys.stderr)
        sys.exit(2)
    fixed.report.fixed = fixed.fixes
    return fixed.report


def _list_ahead(paths: tuple[str, ...]) -> None:
    """Start git's file list of the paths' repository before the rest of grpo-lint loads (a pre-commit run in a
    large repository would otherwise wait for git's walk of the work tree after loading)."""
    from grpo_lint.workspace.files import list_ahead
    from grpo_lint.workspace.root import find_root

    root = find_root(list(paths))
    if (root / ".git").exists():
        list_ahead(root)
    from grpo_lint.early import stop_listings

    stop_listings()  # (started first thing for another folder: not this run's)


def _lint(paths: list[str], options: Any, flags: dict[str, Any], cache: Any = None) -> Any:
    from grpo_lint.sources import parse_cache

    parse_cache.use(_cache_folder(flags))
    try:
        return _lint_paths(paths, options, flags, cache)
    finally:
        parse_cache.save()
        parse_cache.use(None)


def _lint_paths(paths: list[str], options: Any, flags: dict[str, Any], cache: Any = None) -> Any:
    from grpo_lint.engine import Report, lint_bytes

    base = flags["diff_base"]
    if base:
        from grpo_lint.workspace.changes import GitError, changed_files
        from grpo_lint.workspace.files import lintable

        try:
            changed = changed_files(base, paths, lintable)
        except GitError as exc:
            raise _usage_error(str(exc)) from None
        return _lint_workspace(paths or ["."], options, changed, cache)
    if not paths:
        raise _usage_error("give at least one config file or directory (or - for standard input)")
    if "-" in paths:
        if len(paths) > 1:
            raise _usage_error("`-` (standard input) cannot be combined with other paths")
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
    return _lint_workspace(paths, options, None, cache)


def _lint_workspace(paths: list[str], options: Any, changed: list[str] | None, cache: Any) -> Any:
    """The paths' repository linted, or the run cache's answer when nothing the last identical run looked at has
    changed (grpo_lint.run_cache: looked up once the file list is known)."""
    from grpo_lint.engine import lint_workspace, workspace_for

    workspace = workspace_for(paths, options, changed)
    kept = cache.lookup(workspace) if cache is not None else None
    return kept if kept is not None else lint_workspace(workspace, options)


def _cache_folder(flags: dict[str, Any]) -> str | None:
    """The folder of the parse cache this run keeps (grpo_lint.sources.parse_cache), or None for none."""
    if flags["no_cache"] or os.environ.get("GRPO_LINT_NO_CACHE", "") not in ("", "0"):
        return None
    if flags["cache_dir"]:
        return str(flags["cache_dir"])
    from grpo_lint.sources.parse_cache import default_folder

    return default_folder()


def _explain(code: str) -> str:
    from grpo_lint.checks import all_rules
    from grpo_lint.frameworks.fields import closest
    from grpo_lint.rule_pages import page

    code = _rule_code(code.strip())
    rules = all_rules()
    text = page(code) if code in rules else None
    if text is None:
        hint = closest(code, list(rules))
        raise _bad_parameter(
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


def _write(text: str, output_file: str | None, color: bool) -> None:
    from grpo_lint.formatters import printable

    text = printable(text)
    if output_file:
        try:
            with open(output_file, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise _output_error(output_file, exc.strerror or str(exc)) from None
        return
    if color:
        import click

        click.echo(text, nl=False, color=True)
        return
    _echo(text, sys.stdout)


def _echo(text: str, stream: Any) -> None:
    """click.echo(text, nl=False, color=False) without importing click: terminal control sequences (a
    file's own text may carry them) removed as click removes them."""
    if "\x1b" in text:
        import re

        text = re.sub(r"\033\[[0-?]*[ -/]*[@-~]", "", text)
    if stream is None:
        return
    stream.write(text)
    stream.flush()


def _usage_error(message: str) -> Exception:
    import click

    return click.UsageError(message)


def _bad_parameter(message: str, param_hint: str) -> Exception:
    import click

    return click.BadParameter(message, param_hint=param_hint)


def _output_error(path: str, hint: str) -> Exception:
    """The -o file cannot be written: a usage problem (exit 2), not "errors found" (exit 1)."""
    import click

    error = click.FileError(path, hint=hint)
    error.exit_code = 2
    return error


def entry() -> None:
    """The console script: `grpo-lint run [OPTIONS] -- COMMAND ...`, `grpo-lint schema ...`, `grpo-lint server`,
    else the linter. A file or folder named `run` (or `schema`, `server`) is linted as before (for run: unless
    `--` shows that a command follows)."""
    args = sys.argv[1:]
    if args[:1] == ["run"] and ("--" in args or not os.path.exists("run")):
        from grpo_lint.run_command import run

        run.main(args=args[1:], prog_name="grpo-lint run")
        return
    if args[:1] == ["server"] and not os.path.exists("server"):
        _serve(args[1:])
        return
    if args[:1] == ["schema"] and not os.path.exists("schema"):
        from grpo_lint.json_schema import schema

        schema.main(args=args[1:], prog_name="grpo-lint schema")
        return
    from grpo_lint.cli_flags import plain_flags

    # A lint builds many small objects and almost no reference cycles, and the process ends with the run: with
    # CPython's default thresholds the cycle collector took a quarter of a whole repository's run and of a big
    # script's, for nothing (the peak memory of the corpus runs is the same without it; the hostile-input tests run
    # the command line under a memory limit). The language server, a long-lived process, keeps it.
    gc.disable()
    flags = plain_flags(args)
    if flags is not None:
        _run_plain(args, flags)
    click_command().main(args=args)


def console() -> None:
    """The `grpo-lint` console script (and `python -m grpo_lint`): `entry()`, then the process ends without tearing
    down what the run built (freeing a large repository's parsed files one by one took 0.4 s of a 3.8 s run). What
    it wrote is flushed first and the exit handlers run; the exit code is entry's. Before anything else loads, a lint
    of files in a git work tree starts git's listing of it (grpo_lint.early)."""
    from grpo_lint import early

    early.start_listing(sys.argv[1:])
    try:
        entry()
        code: object = 0
    except SystemExit as done:
        code = done.code
    finally:
        early.stop_listings()  # (one the run did not take)
    if (code is not None and not isinstance(code, int)) or sys.getprofile() is not None or sys.gettrace() is not None:
        raise SystemExit(code)  # a message to print, or a profiler or debugger that reports at exit: Python's exit
    import atexit

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left (`grpo-lint . | head`)
        code = code or 1
    except (OSError, ValueError):  # a closed or failing stream: Python's own exit reports it
        raise SystemExit(code) from None
    atexit._run_exitfuncs()
    os._exit(code or 0)


def _serve(args: list[str]) -> None:
    """`grpo-lint server`: the language server over stdio (the `server` extra installs pygls)."""
    if args and args[0] in ("-h", "--help"):
        _echo("usage: grpo-lint server\n\nA Language Server Protocol server over stdio: diagnostics, quick fixes and\n"
              "rule pages for the open YAML, JSON, shell, Python and notebook documents.\n", sys.stdout)  # fmt: skip
        return
    try:
        from grpo_lint.editor.server import main
    except ImportError as exc:
        _echo(f"grpo-lint server needs pygls ({exc}): pip install 'grpo-lint[server]'\n", sys.stderr)
        sys.exit(2)
    main()


def click_command() -> Any:
    """The click command (grpo_lint.cli_click), built once on first use: --help, completion, usage errors."""
    global _CLICK
    if _CLICK is None:
        from grpo_lint.cli_click import command

        _CLICK = command(lint_command)
    return _CLICK


_CLICK: Any = None


def _run_plain(args: list[str], flags: dict[str, Any]) -> None:
    """The lint of a plain line, read without click, ended as click's standalone mode ends a command.
    A usage error is raised before anything is printed or written (the flags that write files are not
    plain), so click reads the line again to print it with the usage text, exactly as it always does."""
    paths = flags.pop("paths")
    try:
        lint_command(paths, flags)
    except (EOFError, KeyboardInterrupt):
        _echo("\nAborted!\n", sys.stderr)
        sys.exit(1)
    except BrokenPipeError:  # `grpo-lint . | head`: the reader left; nothing more is written
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
    except Exception as exc:
        if type(exc).__module__.split(".")[0] != "click":
            raise
        click_command().main(args=args)
    sys.exit(0)


def __getattr__(name: str) -> Any:
    """`grpo_lint.cli.main`, the click command, built on first use."""
    if name == "main":
        return click_command()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
