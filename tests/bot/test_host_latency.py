"""What keeps the host's latency flat under load (issue 20, ``bench/host_load.py --mix all``):
deadlines on the event loop's own timers, SQLite's lanes (an answer first, then a match's
change, then the rest) and the collector's rare full collections."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Iterator

import pytest

from bot.host.timers import Callback, LoopTimers
from bot.process import GC_FULL_AFTER, GC_MIDDLE_AFTER, imports_uncollected, tune_gc
from bot.store.sqlite import ANSWERS, CHANGES, REST, _Lanes

TICK_S = 0.02


async def test_a_job_runs_once_at_its_time_and_the_last_schedule_of_an_id_wins() -> None:
    timers = LoopTimers(time.time)
    timers.start()
    ran: list[str] = []

    def job(name: str) -> Callback:
        async def run() -> None:
            ran.append(name)

        return run

    timers.schedule("deadline:1", time.time() + TICK_S, job("first"))
    timers.schedule("deadline:1", time.time() + 2 * TICK_S, job("moved"))  # replaces it
    timers.schedule("remind:1", time.time() + TICK_S, job("reminder"))
    timers.cancel("remind:1")
    timers.schedule("deadline:2", time.time() - 5.0, job("overdue"))  # runs however late
    await asyncio.sleep(4 * TICK_S)
    assert ran == ["overdue", "moved"]
    timers.cancel("deadline:1")  # run already: nothing to forget, no error


async def test_a_job_runs_while_the_last_run_of_its_id_is_still_going() -> None:
    """APScheduler skipped such a job ("maximum number of running instances reached"); a
    deadline then waited for the sweep, seconds late."""
    timers = LoopTimers(time.time)
    timers.start()
    started: list[int] = []
    release = asyncio.Event()

    def job(number: int) -> Callback:
        async def run() -> None:
            started.append(number)
            await release.wait()

        return run

    timers.schedule("deadline:1", time.time(), job(1))
    await asyncio.sleep(TICK_S)
    timers.schedule("deadline:1", time.time(), job(2))
    await asyncio.sleep(TICK_S)
    assert started == [1, 2]
    release.set()
    await asyncio.sleep(0)


async def test_stopped_timers_run_nothing() -> None:
    timers = LoopTimers(time.time)
    ran: list[int] = []

    async def job() -> None:
        ran.append(1)

    timers.schedule("deadline:1", time.time(), job)  # not started: ignored
    timers.start()
    timers.schedule("deadline:2", time.time() + TICK_S, job)
    timers.stop()  # drops it
    await asyncio.sleep(2 * TICK_S)
    assert ran == []


def test_the_connection_thread_takes_an_answer_then_a_change_then_the_rest() -> None:
    lanes = _Lanes()
    lanes.put_nowait((None, lambda: "outbox read"))  # aiosqlite's own calls: the rest
    lanes.put((None, lambda: "outbox record"), REST)
    lanes.put((None, lambda: "resolution"), CHANGES)
    lanes.put((None, lambda: "answer 1"), ANSWERS)
    lanes.put((None, lambda: "answer 2"), ANSWERS)
    taken = [lanes.get()[1]() for _ in range(5)]
    assert taken == ["answer 1", "answer 2", "resolution", "outbox read", "outbox record"]


@pytest.fixture
def collector() -> Iterator[None]:
    thresholds = gc.get_threshold()  # (what a test freezes stays frozen, as after collection)
    yield
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("collector")
def test_tune_gc_makes_full_collections_rare_and_freezes_what_is_loaded() -> None:
    young, middle, full = gc.get_threshold()
    tune_gc()
    assert gc.get_threshold() == (young, GC_MIDDLE_AFTER, GC_FULL_AFTER)
    # middle collections smaller; full ones rarer: more young collections between two full
    # ones than with Python's thresholds
    assert middle > GC_MIDDLE_AFTER
    assert middle * full < GC_MIDDLE_AFTER * GC_FULL_AFTER
    assert gc.get_freeze_count() > 0


@pytest.mark.usefixtures("collector")
def test_a_commands_imports_run_uncollected_and_stay_frozen() -> None:
    collections, frozen = gc.get_stats()[0]["collections"], gc.get_freeze_count()
    with imports_uncollected():
        assert not gc.isenabled()
        loaded = [[n] for n in range(10_000)]  # enough allocations to set off collections
        assert gc.get_stats()[0]["collections"] == collections
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(loaded)
    gc.disable()
    try:  # a command started with the collector off leaves it off
        with imports_uncollected():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
