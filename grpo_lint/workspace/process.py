"""Run a program to its end and collect what it prints: the only way grpo-lint starts one (git).

On POSIX this is `os.posix_spawnp` and a `poll` loop rather than `subprocess`: importing subprocess
(with threading, signal, selectors and locale) costs a cold `grpo-lint one.yaml` about 5 ms, more
than the `git ls-files` it would run on a small repository, and start-up is what a pre-commit hook
pays on every commit. Elsewhere (Windows), and where the standard descriptors are not all open,
subprocess runs it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

from grpo_lint.early import kill, spawn
from grpo_lint.records import Record


class Finished(Record):
    """A program's exit code and everything it wrote to its standard output and error."""

    returncode: int
    stdout: bytes
    stderr: bytes


def run(command: list[str], env: Mapping[str, str], timeout: float) -> Finished:
    """`command` (its first word looked up on PATH) with no standard input, until it exits.

    Raises FileNotFoundError when the program is not found, TimeoutError when it has not finished
    within `timeout` seconds (it is then killed), and OSError when it cannot be started.
    """
    return start(command, env, timeout).finish()


def start(command: list[str], env: Mapping[str, str], timeout: float) -> Running:
    """`command` started now, to be collected with `finish()` (its output is read then); raises as `run` does
    when it cannot be started. The deadline counts from now."""
    return Running(command, env, timeout, spawn(command, env, timeout))


class Running:
    """A started program (or, where spawning is not available, one to run with subprocess at `finish`)."""

    def __init__(
        self, command: list[str], env: Mapping[str, str], timeout: float, spawned: tuple[int, int, int, float] | None
    ) -> None:
        self.command = command
        self.env = env
        self.timeout = timeout
        self._spawned = spawned
        self._done: Finished | None = None

    def finish(self) -> Finished:
        """Everything it writes, once it has exited (raises TimeoutError past the deadline, the program killed)."""
        if self._done is None:
            if self._spawned is None:
                self._done = _run_subprocess(self.command, self.env, self.timeout)
            else:
                self._done = _collect(self.command[0], self.timeout, *self._spawned)
                self._spawned = None
        return self._done

    def abandon(self) -> None:
        """Not wanted after all: killed and reaped, its pipes closed."""
        if self._spawned is not None:
            pid, out_read, err_read, _deadline = self._spawned
            self._spawned = None
            kill(pid)
            os.close(out_read)
            os.close(err_read)


def _collect(name: str, timeout: float, pid: int, out_read: int, err_read: int, deadline: float) -> Finished:
    import select

    chunks: dict[int, list[bytes]] = {out_read: [], err_read: []}
    try:
        poller = select.poll()
        for fd in chunks:
            poller.register(fd, select.POLLIN)
        still_open = len(chunks)
        while still_open:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{name} did not finish within {timeout:g} s")
            for fd, _event in poller.poll(int(left * 1000) + 1):
                data = os.read(fd, 65536)
                if data:
                    chunks[fd].append(data)
                else:
                    poller.unregister(fd)
                    still_open -= 1
        returncode = _wait(pid, deadline, name, timeout)
    except BaseException:
        kill(pid)
        raise
    finally:
        os.close(out_read)
        os.close(err_read)
    return Finished(returncode, b"".join(chunks[out_read]), b"".join(chunks[err_read]))


def _wait(pid: int, deadline: float, name: str, timeout: float) -> int:
    """The exit code of a child that has closed its outputs (so it is ending), waited for up to `deadline`."""
    pause = 0.0005
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() >= deadline:
            raise TimeoutError(f"{name} did not finish within {timeout:g} s")
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _run_subprocess(command: list[str], env: Mapping[str, str], timeout: float) -> Finished:
    import subprocess

    try:
        done = subprocess.run(
            command, capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout, check=False, env=dict(env)
        )
    except subprocess.TimeoutExpired:
        raise TimeoutError(f"{command[0]} did not finish within {timeout:g} s") from None
    return Finished(done.returncode, done.stdout, done.stderr)
