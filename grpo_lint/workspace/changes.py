"""--changed-since BASE: the config files that changed since a git revision (plus new, untracked ones)."""

from __future__ import annotations

import subprocess


class GitError(Exception):
    """git is missing, this is not a repository, or the revision does not exist."""


def changed_files(base: str, paths: list[str]) -> list[str]:
    """Files under `paths` (relative to the current directory) that differ from `base` or are new.

    Deleted files are left out; renamed and copied files count under their new name.
    """
    if base.startswith("-"):
        raise GitError(f"{base!r} is not a git revision")  # never let it become an option of git
    scope = ["--", *(paths or ["."])]
    # -z: names as they are (git otherwise quotes names with tabs or non-ASCII characters).
    changed = _git(["diff", "-z", "--name-only", "--relative", "--diff-filter=ACMR", base, *scope])
    untracked = _git(["ls-files", "-z", "--others", "--exclude-standard", *scope])
    return sorted(set(changed) | set(untracked))


def _git(args: list[str]) -> list[str]:
    try:
        done = subprocess.run(["git", *args], capture_output=True, check=False, timeout=60)
    except FileNotFoundError:
        raise GitError("--changed-since needs git, which is not on PATH") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} did not finish within 60 s") from None
    if done.returncode:
        error = done.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git {' '.join(args[:2])} failed: {error or done.returncode}")
    return [name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name]
