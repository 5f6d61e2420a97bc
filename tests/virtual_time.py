"""An event loop on virtual time: when it has nothing to do but wait for a timer, it jumps to the
timer instead of sleeping, so hours of matches (deadlines, paced answers, rate-limit waits) run
in the seconds their work takes.

Work in another thread (the SQLite store's connection thread, ``asyncio.to_thread``) takes no
virtual time, but the loop waits for it for real before moving the clock on, so a timer never
fires while a commit it should follow is still being made. A socket between two ends on this
same loop (a fake Discord and its client) is read before the clock moves: what one end wrote is
in the kernel at once.

Use ``run(coro)`` (like ``asyncio.run``) and ``epoch_clock(start)`` for the host's clock."""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any, TypeVar

import aiosqlite

from bot.store.sqlite import SqliteStore

T = TypeVar("T")


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0
        self.inflight = 0  # calls running in other threads
        selector = self._selector  # type: ignore[attr-defined]
        real_select = selector.select

        def select(timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
            ready = real_select(0)
            if ready or timeout == 0:
                return ready
            if self.inflight:  # a thread's answer comes: wait for it, the clock stands still
                return real_select(timeout)
            if timeout is None:  # nothing scheduled at all: only a thread or a socket can wake
                return real_select(None)
            self.now += timeout
            return []

        selector.select = select

    def time(self) -> float:
        return self.now

    def run_in_executor(
        self, executor: Executor | None, func: Callable[..., T], *args: Any
    ) -> asyncio.Future[T]:
        future = super().run_in_executor(executor, func, *args)
        self._track(future)
        return future

    def _track(self, future: asyncio.Future[Any]) -> None:
        self.inflight += 1
        future.add_done_callback(self._untrack)

    def _untrack(self, _: object) -> None:
        self.inflight -= 1


@contextmanager
def tracking_sqlite() -> Any:
    """aiosqlite's calls to its thread (its queue, its connecting) and the SQLite store's own
    (its lanes: ``SqliteStore._queue``) count as work in another thread: aiosqlite has no hook
    of its own. Untracked, the clock jumped to the next deadline while an answer's transaction
    was being made, and deadlines were met minutes late."""
    patched = {name: getattr(aiosqlite.Connection, name) for name in ("_execute", "_connect")}

    def tracked(original: Any) -> Any:
        async def call(self: aiosqlite.Connection, *args: Any, **kwargs: Any) -> Any:
            loop = asyncio.get_running_loop()
            if not isinstance(loop, VirtualTimeLoop):
                return await original(self, *args, **kwargs)
            loop.inflight += 1
            try:
                return await original(self, *args, **kwargs)
            finally:
                loop.inflight -= 1

        return call

    queue = SqliteStore._queue

    def queued(self: SqliteStore, call: Callable[[], T], lane: int) -> asyncio.Future[T]:
        """The store's own calls queued on the connection's lanes, around ``_execute``."""
        future = queue(self, call, lane)
        loop = asyncio.get_running_loop()
        if isinstance(loop, VirtualTimeLoop):
            loop._track(future)
        return future

    for name, original in patched.items():
        setattr(aiosqlite.Connection, name, tracked(original))
    SqliteStore._queue = queued  # type: ignore[method-assign]
    try:
        yield
    finally:
        for name, original in patched.items():
            setattr(aiosqlite.Connection, name, original)
        SqliteStore._queue = queue  # type: ignore[method-assign]


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on a new virtual-time loop."""
    loop = VirtualTimeLoop()
    try:
        with tracking_sqlite():
            return loop.run_until_complete(main)
    finally:
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()


def epoch_clock(start: float) -> Callable[[], float]:
    """A wall clock for the host: ``start`` plus the running loop's virtual seconds."""

    def clock() -> float:
        return start + asyncio.get_running_loop().time()

    return clock


class LoopTimers:
    """The host's ``Timers`` on the running loop's own timers (virtual time follows them)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._running = False
        self._handles: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self._running = True

    def stop(self) -> None:
        self._running = False
        for handle in self._handles.values():
            handle.cancel()
        self._handles.clear()

    def schedule(
        self, job_id: str, at: float, callback: Callable[[], Coroutine[Any, Any, None]]
    ) -> None:
        if not self._running:
            return
        self.cancel(job_id)
        loop = asyncio.get_running_loop()
        self._handles[job_id] = loop.call_later(
            max(0.0, at - self._clock()), self._fire, job_id, callback
        )

    def cancel(self, job_id: str) -> None:
        handle = self._handles.pop(job_id, None)
        if handle is not None:
            handle.cancel()

    def _fire(self, job_id: str, callback: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._handles.pop(job_id, None)
        task = asyncio.get_running_loop().create_task(callback())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
