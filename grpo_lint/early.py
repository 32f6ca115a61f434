"""git's file list started first thing, before grpo-lint loads: in a large repository the listing (git walks every
folder for new files) takes longer than the rest of a pre-commit run's start, so it runs while Python imports.

This module imports nothing of grpo-lint's and nothing of the standard library beyond what the interpreter has
loaded at start-up (`os`, `sys`): anything heavier would delay the start it exists for. It also holds what every
git command of grpo-lint shares (grpo_lint.workspace.git): the settings that switch off the commands a
repository's configuration could make git run, and the environment.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# Settings that name commands git would run for these calls, each switched off. (An empty core.fsmonitor means
# "off" both for git before 2.36, where it is a hook path, and after, a boolean.) The untracked cache stays off:
# git would write it into the index.
GIT_OFF = (
    "core.fsmonitor=",
    f"core.hooksPath={os.devnull}",
    "core.pager=cat",
    "diff.external=",
    "core.untrackedCache=false",
)
GIT_TIMEOUT = 20.0  # seconds; a configuration that makes git wait (an include of a FIFO) ends here
LISTING = ("ls-files", "-z", "--cached", "--others", "--exclude-standard")

# Listings started here, by the absolute folder they list: (command, (pid, stdout, stderr, deadline)).
_STARTED: dict[str, tuple[list[str], tuple[int, int, int, float]]] = {}


def git_environment() -> dict[str, str]:
    """The environment git runs in: no prompt, no pager, no optional lock (git would refresh the index)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER")}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0", GIT_PAGER="cat", PAGER="cat")
    return env


def git_command(folder: str | None, args: tuple[str, ...] | list[str]) -> list[str]:
    """`git args` run in `folder` (absolute: a folder named `-x` never reads as an option) with those settings."""
    command = ["git", "--no-pager"]
    if folder is not None:
        command += ["-C", os.path.abspath(folder)]
    for setting in GIT_OFF:
        command += ["-c", setting]
    return [*command, *args]


def spawn(command: list[str], env: Mapping[str, str], timeout: float) -> tuple[int, int, int, float] | None:
    """`command` started with `os.posix_spawnp`, no standard input, its outputs in two pipes: (pid, stdout, stderr,
    deadline). None where that is not available (Windows) or a standard descriptor is closed; raises
    FileNotFoundError or OSError when it cannot be started."""
    import time

    if not hasattr(os, "posix_spawnp"):
        return None
    deadline = time.monotonic() + timeout
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    null = os.open(os.devnull, os.O_RDONLY)
    if min(out_write, err_write, null) <= 2:  # a standard descriptor was closed: dup2 onto itself would fail
        for fd in (out_read, out_write, err_read, err_write, null):
            os.close(fd)
        return None
    try:
        # The pipes are not inheritable: the child keeps only the copies dup2 puts on 0, 1 and 2.
        actions = [
            (os.POSIX_SPAWN_DUP2, null, 0),
            (os.POSIX_SPAWN_DUP2, out_write, 1),
            (os.POSIX_SPAWN_DUP2, err_write, 2),
        ]
        pid = os.posix_spawnp(command[0], command, dict(env), file_actions=actions)
    except BaseException:
        os.close(out_read)
        os.close(err_read)
        raise
    finally:
        for fd in (out_write, err_write, null):
            os.close(fd)
    return pid, out_read, err_read, deadline


def start_listing(args: list[str]) -> None:
    """For a plain lint of files in a git work tree (`grpo-lint a.yaml b.sh`, as pre-commit runs it), start git's
    listing of that work tree now. Anything else (a subcommand, a line click has to read, standard input,
    `--changed-since`, no `.git` above the paths) starts nothing; a listing the run does not take is stopped."""
    if not args or args[0] in ("run", "server", "schema") or not hasattr(os, "posix_spawnp"):
        return
    from grpo_lint.cli_flags import plain_flags

    flags = plain_flags(args)
    if flags is None or flags["diff_base"] or flags["explain"] or flags["list_rules"] or flags["show_settings"]:
        return
    paths = flags["paths"]
    if not paths or "-" in paths:
        return
    folder = git_root([str(path) for path in paths])  # type: ignore[attr-defined]
    if folder is None or folder in _STARTED:
        return
    command = git_command(folder, LISTING)
    try:
        spawned = spawn(command, git_environment(), GIT_TIMEOUT)
    except OSError:  # (git not on PATH: the listing started later says so)
        return
    if spawned is not None:
        _STARTED[folder] = (command, spawned)


def common_folder(paths: list[str]) -> str:
    """The folder the paths (files or folders) have in common, absolute; the first one's on different drives."""
    folders = []
    for raw in paths or ["."]:
        absolute = os.path.abspath(raw)
        folders.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
    try:
        return os.path.commonpath(folders)
    except ValueError:  # paths on different drives
        return folders[0]


def git_root(paths: list[str]) -> str | None:
    """The nearest folder above the paths' common folder that holds `.git`, or None (grpo_lint.workspace.root)."""
    folder = common_folder(paths)
    while not os.path.exists(os.path.join(folder, ".git")):
        above = os.path.dirname(folder)
        if above == folder:
            return None
        folder = above
    return folder


def take_listing(folder: str, command: list[str]) -> tuple[int, int, int, float] | None:
    """The listing started here for `folder`, when it is the same command; it is then the caller's to collect."""
    found = _STARTED.get(folder)
    if found is None or found[0] != command:
        return None
    del _STARTED[folder]
    return found[1]


def stop_listings() -> None:
    """Stop the listings nobody took (killed and reaped, their pipes closed)."""
    while _STARTED:
        _command, (pid, out_read, err_read, _deadline) = _STARTED.popitem()[1]
        kill(pid)
        os.close(out_read)
        os.close(err_read)


def kill(pid: int) -> None:
    """A spawned program killed and reaped (nothing when it is gone already)."""
    import contextlib
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return  # already reaped
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
