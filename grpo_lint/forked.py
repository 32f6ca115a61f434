"""Work shared out between forked copies of this process: the command line's `--jobs`.

A whole repository's lint is mostly files that need nothing from one another's lint: each launch script
is read, followed into the code it runs and judged on its own, as is each config and each Python file.
`share_out` hands such items to `count` processes (this one and `count - 1` forked copies). The items are
dealt in chunks of neighbours (a folder's scripts run the same code, which one process then reads once)
from a queue every process draws from when it is free, so that one slow chunk does not hold the others
up. A copy sends back what it made, pickled; an item whose copy failed (killed, out of memory, a result
that does not pickle) is left out, and the caller does it itself: a run's output never depends on
whether, or how many, copies ran.

Only where `os.fork` is safe to use here (Linux), and only when asked: the command line asks for one
process per CPU unless `--jobs` says otherwise; the Python API (which may run inside a trainer, with
threads and a GPU context) and the editor's server work in their own process.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

MAX_PROCESSES = 8
_MAX_CHUNKS = 1024  # the queue holds 4 bytes per chunk, and must fit a pipe's buffer (4 KB here, 64 KB on Linux)


_AT_COPY_END: list[Callable[[], None]] = []


def at_copy_end(action: Callable[[], None]) -> None:
    """Have every forked copy do `action` when its work is done, before it sends what it made (grpo_lint.sources.
    parse_cache: what the copy read is kept for later runs). A failing action is ignored."""
    if action not in _AT_COPY_END:
        _AT_COPY_END.append(action)


_COPY_STATE: list[tuple[Callable[[], None], Callable[[], object], Callable[[object], None]]] = []


def share_copy_state(mark: Callable[[], None], collect: Callable[[], object], merge: Callable[[object], None]) -> None:
    """Have every forked copy send `collect()` back with its results, which this process hands to `merge` (what a
    copy looked at, for grpo_lint.run_cache); `mark()` is called here just before the copies are made (what they
    hold already need not come back)."""
    if all(state[1] is not collect for state in _COPY_STATE):
        _COPY_STATE.append((mark, collect, merge))


def processes(requested: int) -> int:
    """How many processes share the work: `requested` (0: one per CPU this process may use), at most
    MAX_PROCESSES; 1 where forking is not available or not safe."""
    if requested == 1 or not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return 1
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(requested or available, MAX_PROCESSES))


def share_out(
    items: Sequence[int],
    work: Callable[[int], T],
    count: int,
    portable: Callable[[T], T] | None = None,
    chunk: int = 8,
) -> dict[int, T]:
    """`work(item)` for the items, on `count` processes. What a copy made passes through `portable` (what is
    worth sending back) before it is pickled; what this process made is kept as it is. Items missing from the
    answer were taken by a copy that failed: the caller does them."""
    if count <= 1 or len(items) < 2:
        return {}
    import pickle  # here: not on the start of a run that forks nothing

    chunk = max(chunk, -(-len(items) // _MAX_CHUNKS))
    chunks = [items[start : start + chunk] for start in range(0, len(items), chunk)]
    taking, queue = os.pipe()
    try:
        os.write(queue, b"".join(number.to_bytes(4, "little") for number in range(len(chunks))))
    finally:
        os.close(queue)  # every process reads the chunk numbers until the queue is empty
    children: list[tuple[int, int]] = []
    for mark, _, _ in _COPY_STATE:
        mark()
    for _ in range(count - 1):
        reading, writing = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no more processes allowed: the others take this one's chunks
            os.close(reading)
            os.close(writing)
            break
        if pid == 0:  # the copy: work until the queue is empty, send, and leave without running any exit handler
            status = 1
            try:
                os.close(reading)
                made = {item: work(item) for item in _taken(taking, chunks)}
                for action in _AT_COPY_END:
                    with contextlib.suppress(Exception):
                        action()
                if portable is not None:
                    made = {item: portable(result) for item, result in made.items()}
                states = [collect() for _, collect, _ in _COPY_STATE]
                data = pickle.dumps((made, states), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(writing, "wb") as out:
                    out.write(data)
                status = 0
            finally:
                os._exit(status)
        os.close(writing)
        children.append((pid, reading))
    try:
        done = {item: work(item) for item in _taken(taking, chunks)}
    finally:
        os.close(taking)
        for pid, reading in children:  # (read before waiting: a copy blocks until its answer is read)
            with os.fdopen(reading, "rb") as incoming:
                data = incoming.read()
            _, status = os.waitpid(pid, 0)
            if status == 0:
                with contextlib.suppress(Exception):  # a broken answer: the caller does those items again
                    answer, states = pickle.loads(data)
                    done.update(answer)
                    for (_, _, merge), state in zip(_COPY_STATE, states, strict=False):
                        merge(state)
    return done


def _taken(queue: int, chunks: list[Sequence[int]]) -> Iterator[int]:
    """The items of the chunks this process takes from the queue: a chunk when the last one is done, until the
    queue is empty. (A read of 4 bytes from a pipe written in full before anyone reads is never split.)"""
    while True:
        number = os.read(queue, 4)
        if len(number) < 4:
            return
        yield from chunks[int.from_bytes(number, "little")]
