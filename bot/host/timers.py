"""The host's timers: one-shot jobs by id, at a time of the host's clock.

``SchedulerTimers`` runs them on APScheduler (the service); ``ManualTimers`` runs them only when
asked, at the clock's current time, so a test moves its clock instead of sleeping to a deadline.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from apscheduler.jobstores.base import JobLookupError  # type: ignore[import-untyped]
from apscheduler.schedulers.asyncio import AsyncIOScheduler  # type: ignore[import-untyped]

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


class SchedulerTimers:
    """Jobs on APScheduler's event-loop scheduler; ignored while stopped."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._scheduler: AsyncIOScheduler | None = None
        self._jobs: set[str] = set()  # ids of the jobs not yet run or cancelled

    def start(self) -> None:
        self._scheduler = AsyncIOScheduler(timezone=UTC)
        self._scheduler.start()

    def stop(self) -> None:
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)
            self._scheduler = None
        self._jobs.clear()

    def schedule(self, job_id: str, at: float, callback: Callback) -> None:
        if self._scheduler is None:
            return
        # the clock may be offset in tests: schedule by the delay it gives, not its epoch
        run_date = datetime.now(UTC) + timedelta(seconds=max(0.0, at - self._clock()))
        self._scheduler.add_job(
            self._run,
            "date",
            run_date=run_date,
            args=(job_id, callback),
            id=job_id,
            replace_existing=True,
            misfire_grace_time=None,
        )
        self._jobs.add(job_id)

    def cancel(self, job_id: str) -> None:
        if self._scheduler is None or job_id not in self._jobs:
            return  # most windows have no reminder: skip the scheduler's lookup error
        self._jobs.discard(job_id)
        with contextlib.suppress(JobLookupError):
            self._scheduler.remove_job(job_id)

    async def _run(self, job_id: str, callback: Callback) -> None:
        self._jobs.discard(job_id)
        await callback()


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


__all__ = ["Callback", "Clock", "ManualTimers", "SchedulerTimers", "Timers"]
