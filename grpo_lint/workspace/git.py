"""The one way grpo-lint runs git: fixed arguments, and every command a repository's own configuration
could make git run switched off.

A repository handed to grpo-lint may come with its `.git/config` (an archive, a shared work directory, a
checkout another CI step prepared), and git runs commands named there: `core.fsmonitor` on every look at
the work tree, clean filters and `process` filters when it hashes work-tree files, external diff drivers,
text conversion and a pager when it shows a diff, hooks. grpo-lint asks git only for lists of names, in
ways that read no work-tree content, and overrides each of those settings on the command line (`-c`
wins over every configuration file):

- `git ls-files` (the file list; `--others` for new files): reads the index and the directory, never
  file contents, so no filter runs; the file-system monitor is switched off.
- `git ls-files --stage -- PATH` (the mode git stores one file with, for a script a launch runs by its own
  shebang): reads the index only; the path follows `--` and `--literal-pathspecs` reads it as a name, never
  as an option or a pathspec's magic.
- `git diff --cached --name-only REV` (what changed up to the index, for `--changed-since`): compares two
  trees of git's object store, never the work tree. Work-tree edits not yet staged are found by hashing
  the files here (`worktree_changes`), so no clean filter of the repository runs for them either.

The environment keeps git from prompting, paging or writing the index opportunistically.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from grpo_lint.early import GIT_TIMEOUT, git_command, git_environment
from grpo_lint.sources.document import ReadProblem
from grpo_lint.sources.reading import read_file
from grpo_lint.workspace.process import Running, start

# The settings that switch off the commands git would run, the environment and the timeout are grpo_lint.early's,
# which starts the file list before the rest of grpo-lint loads.


class GitError(Exception):
    """git is missing, this is not a repository, the revision does not exist, or git did not finish."""


def git(args: list[str], cwd: Path | str | None = None, timeout: float = GIT_TIMEOUT) -> bytes:
    """git's standard output for `args` (fixed words of grpo-lint's, never text from the repository in
    an option's place), run in `cwd` with the repository's commands switched off."""
    return start_git(args, cwd, timeout).output()


class PendingGit:
    """A git command started ahead of the moment its output is needed (it runs while grpo-lint loads)."""

    def __init__(self, args: list[str], running: Running | None, error: str | None) -> None:
        self.args = args
        self._running = running
        self._error = error

    def output(self) -> bytes:
        """Its standard output; GitError when it could not start, failed or did not finish in time."""
        if self._running is None:
            raise GitError(self._error or "git did not run")
        try:
            done = self._running.finish()
        except FileNotFoundError:  # (subprocess, as on Windows, starts it only now)
            raise GitError("git is not on PATH") from None
        except TimeoutError:
            raise GitError(f"git {self.args[0]} did not finish within {self._running.timeout:g} s") from None
        except OSError as exc:
            raise GitError(f"git could not be started: {exc}") from None
        if done.returncode:
            error = done.stderr.decode("utf-8", "replace").strip()
            raise GitError(f"git {' '.join(self.args[:2])} failed: {error or done.returncode}")
        return done.stdout

    def abandon(self) -> None:
        """Not wanted after all: stopped (its output is not collected)."""
        if self._running is not None:
            self._running.abandon()
            self._running, self._error = None, f"git {self.args[0]} was stopped before its output was read"


def start_git(args: list[str], cwd: Path | str | None = None, timeout: float = GIT_TIMEOUT) -> PendingGit:
    """`git args` started in `cwd` (see `git`); its output is collected by `output()`."""
    command = git_command(None if cwd is None else str(cwd), args)
    try:
        return PendingGit(args, start(command, git_environment(), timeout), None)
    except FileNotFoundError:
        return PendingGit(args, None, "git is not on PATH")
    except OSError as exc:
        return PendingGit(args, None, f"git could not be started: {exc}")


def index_mode(folder: Path, relative: str) -> str | None:
    """The mode git's index stores `relative` (below `folder`) with, `100755` or `100644`; None when git is
    missing, the folder is in no work tree or git does not track the file."""
    try:
        output = git(["--literal-pathspecs", "ls-files", "--stage", "-z", "--", relative], cwd=folder)
    except GitError:
        return None
    first = output.split(b"\0", 1)[0]
    mode = first.split(b" ", 1)[0].decode("ascii", "replace")
    return mode if first and mode.isdigit() else None


def names(output: bytes) -> list[str]:
    """NUL-separated names (`-z`), as they are on disk."""
    return [name for name in output.decode("utf-8", "surrogateescape").split("\0") if name]


def worktree_changes(scope: list[str], wanted: Callable[[str], bool], limit: int) -> list[str]:
    """Tracked files under `scope` whose work-tree content differs from the index, found by hashing them
    here as git hashes a blob (so no clean filter of the repository runs). Only files `wanted(name)`
    accepts are read, each up to `limit` bytes; a larger or unreadable one counts as changed. Names are
    relative to the current directory, as `git ls-files` prints them."""
    changed = []
    for entry in git(["ls-files", "-z", "--stage", "--", *scope]).split(b"\0"):
        if not entry:
            continue
        meta, _, raw = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) != 3 or fields[0] not in (b"100644", b"100755"):
            continue  # symlinks and submodules are never linted through their target
        name = raw.decode("utf-8", "surrogateescape")
        if not wanted(name):
            continue
        digest = fields[1].decode("ascii")
        if not os.path.lexists(name):
            continue  # deleted in the work tree: nothing to lint
        data = read_file(name, limit)  # regular files only: a FIFO put in a file's place is never opened
        if isinstance(data, ReadProblem) or _blob_id(data, len(digest)) != digest:
            changed.append(name)
    return changed


def _blob_id(data: bytes, length: int) -> str:
    import hashlib  # only for --changed-since (loading OpenSSL costs a few ms at every start)

    algorithm = hashlib.sha256 if length == 64 else hashlib.sha1
    return algorithm(b"blob %d\0" % len(data) + data).hexdigest()
