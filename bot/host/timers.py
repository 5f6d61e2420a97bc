"""The host's timers: one-shot jobs by id, at a time of the host's clock.

``LoopTimers`` runs them on the event loop's timers (the service); ``ManualTimers`` runs them
only when asked, at the clock's current time, so a test moves its clock instead of sleeping to a
deadline.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

Clock = Callable[[], float]
Callback = Callable[[], Coroutine[Any, Any, None]]


class Timers(Protocol):
    def start(self) -> None:
        """Begin running jobs (the host's start)."""

    def stop(self) -> None:
        """Drop every job and run none until started again (the host's close)."""

    def schedule(self, job_id: str, at: float, callback: Callback) -> None:
        """Run ``callback`` once at clock time ``at``, replacing a job of the same id."""

    def cancel(self, job_id: str) -> None:
        """Forget the job if it has not run yet."""


class LoopTimers:
    """Jobs on the event loop's own timers (``loop.call_at``); ignored while stopped.

    One timer handle per job, no thread and no scheduler of its own: arming a deadline costs
    a heap push, and a job runs in a task of its own however late it falls due (a job that is
    still running never holds up the next one of its id)."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._running = False
        self._jobs: dict[str, asyncio.TimerHandle] = {}  # not yet run nor cancelled
        self._tasks: set[asyncio.Task[None]] = set()  # jobs running (kept from the GC)

    def start(self) -> None:
        self._running = True

    def stop(self) -> None:
        self._running = False
        for handle in self._jobs.values():
            handle.cancel()
        self._jobs.clear()

    def schedule(self, job_id: str, at: float, callback: Callback) -> None:
        if not self._running:
            return
        loop = asyncio.get_running_loop()
        # the clock may be offset in tests: schedule by the delay it gives, not its epoch
        when = loop.time() + max(0.0, at - self._clock())
        old = self._jobs.pop(job_id, None)
        if old is not None:
            old.cancel()
        self._jobs[job_id] = loop.call_at(when, self._run, job_id, callback)

    def cancel(self, job_id: str) -> None:
        handle = self._jobs.pop(job_id, None)
        if handle is not None:
            handle.cancel()

    def _run(self, job_id: str, callback: Callback) -> None:
        del self._jobs[job_id]
        task = asyncio.create_task(callback())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class ManualTimers:
    """Jobs that run when the test calls ``run_due`` or ``advance``, never on their own."""

    def __init__(self, clock: Clock, advance_clock: Callable[[float], None] | None = None) -> None:
        self._clock = clock
        self._advance_clock = advance_clock
        self._running = False
        self.jobs: dict[str, tuple[float, Callback]] = {}

    def start(self) -> None:
        self._running = True

    def stop(self) -> None:
        self._running = False
        self.jobs.clear()

    def schedule(self, job_id: str, at: float, callback: Callback) -> None:
        if self._running:
            self.jobs[job_id] = (at, callback)

    def cancel(self, job_id: str) -> None:
        self.jobs.pop(job_id, None)

    def due_at(self, job_id: str) -> float | None:
        job = self.jobs.get(job_id)
        return job[0] if job is not None else None

    async def run_due(self) -> int:
        """Run the jobs due by the clock, earliest first (also those they schedule); how many."""
        ran = 0
        while True:
            now = self._clock()
            due = sorted((at, job_id) for job_id, (at, _) in self.jobs.items() if at <= now)
            if not due:
                return ran
            _, callback = self.jobs.pop(due[0][1])
            await callback()
            ran += 1

    async def advance(self, seconds: float) -> int:
        """Move the clock forward (with the ``advance_clock`` given) and run what fell due."""
        assert self._advance_clock is not None, "ManualTimers was given no advance_clock"
        self._advance_clock(seconds)
        return await self.run_due()


__all__ = ["Callback", "Clock", "LoopTimers", "ManualTimers", "Timers"]
