"""How a command-line process ends: on a signal or a closed output, quietly and with its store
closed.

``run_command`` runs a command's coroutine with SIGINT (Ctrl-C) and SIGTERM cancelling it, so
its ``finally`` blocks close the host and the store, and turns the way it ended into the exit
code: 130 after SIGINT, 143 after SIGTERM (128 + the signal, as a shell reports it), 141 when
its output was closed (``simulate | head``; 128 + SIGPIPE), else what the coroutine returned.
A second signal while the first is being handled ends the process at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

# the collector of a long-running host: the youngest generation as Python's default; a middle
# collection after 3 young ones (Python's: 10), so each walks a third of the objects (at 1,200
# matches 2.6 ms instead of 6.1 on average, 9 instead of 17 at p99: its pause, not its total,
# is what an answer waits for); a full one after 3,333 middle ones (as often as Python's 10 x
# 1,000 young ones before)
GC_MIDDLE_AFTER = 3
GC_FULL_AFTER = 3333

EXIT_SIGINT = 128 + signal.SIGINT
EXIT_SIGTERM = 128 + signal.SIGTERM
EXIT_OUTPUT_CLOSED = 128 + signal.SIGPIPE
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

Stop = Callable[[int], None]
"""Ends the command with this exit code (its coroutine is cancelled and cleans up)."""


def run_command(main: Callable[[Stop], Coroutine[Any, Any, int]]) -> int:
    """Run ``main(stop)`` to completion or until a signal or ``stop``; the exit code."""
    code = asyncio.run(_guarded(main))
    if code == EXIT_OUTPUT_CLOSED:
        silence_stdout()
    return code


async def _guarded(main: Callable[[Stop], Coroutine[Any, Any, int]]) -> int:
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    stopping: list[int] = []

    def stop(code: int) -> None:
        if stopping:
            return
        stopping.append(code)
        task.cancel()

    def on_signal(signum: int) -> None:
        if stopping:  # a second Ctrl-C: the user does not want to wait for the cleanup
            os._exit(128 + signum)
        stop(128 + signum)

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        return await main(stop)
    except asyncio.CancelledError:
        if not stopping:
            raise
        return stopping[0]
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)


def is_closed_output(error: BaseException) -> bool:
    """The reader of our output went away (a pipe closed, a terminal hung up)."""
    return isinstance(error, BrokenPipeError | ConnectionResetError)


def silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's last flush into a closed pipe does
    not print an error (the recipe in the Python docs for SIGPIPE)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


@contextlib.contextmanager
def imports_uncollected() -> Iterator[None]:
    """A command's imports (~0.3 s at its start) make objects that live as long as the process:
    the collections they set off walk them all and free next to nothing (~35 ms of CPU a
    start). The collector waits while they run; then they are frozen, and no later
    collection walks them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def tune_gc() -> None:
    """Keep the collector's pauses off the host's latency (call once the host has started).

    A full collection walks every object the process holds: with 1,200 live matches, about 0.2 s
    of the event loop, ten times in 30 s (Python's default thresholds, the matches' states and
    messages churning through the oldest generation), and every answer or deadline meanwhile
    waits. Full collections come rarer (``GC_FULL_AFTER``; the youngest generation, where a
    task's or an exception's cycles die, is collected as before), middle ones smaller and more
    often (``GC_MIDDLE_AFTER``), and what start loaded (the modules, the games' content, the
    active matches) is frozen: no collection walks it again."""
    young, _, _ = gc.get_threshold()
    gc.set_threshold(young, GC_MIDDLE_AFTER, GC_FULL_AFTER)
    gc.freeze()
