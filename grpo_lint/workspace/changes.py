"""--changed-since BASE: the config files that changed since a git revision (plus new, untracked ones)."""

from __future__ import annotations

from collections.abc import Callable

from grpo_lint.limits import MAX_FILE_BYTES
from grpo_lint.workspace.git import GitError, git, names, worktree_changes

__all__ = ["GitError", "changed_files"]


def changed_files(base: str, paths: list[str], wanted: Callable[[str], bool] | None = None) -> list[str]:
    """Files under `paths` (relative to the current directory) that differ from `base` or are new.

    Deleted files are left out; renamed and copied files count under their new name. Only the index is
    compared with `base` (git reads no work-tree file); unstaged edits are found by hashing the files
    `wanted` accepts (see grpo_lint.workspace.git), so no filter or driver of the repository runs.
    """
    if base.startswith("-"):
        raise GitError(f"{base!r} is not a git revision")  # never let it become an option of git
    scope = ["--", *(paths or ["."])]
    # -z: names as they are (git otherwise quotes names with tabs or non-ASCII characters).
    staged = git(
        ["diff", "--cached", "-z", "--name-only", "--relative", "--no-ext-diff", "--no-textconv",
         "--diff-filter=ACMR", base, *scope],
        timeout=60,
    )  # fmt: skip
    untracked = git(["ls-files", "-z", "--others", "--exclude-standard", *scope], timeout=60)
    edited = worktree_changes(scope[1:], wanted or (lambda name: True), MAX_FILE_BYTES)
    return sorted(set(names(staged)) | set(names(untracked)) | set(edited))
