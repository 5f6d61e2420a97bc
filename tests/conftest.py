"""Settings for every test process.

glibc's malloc raises its mmap threshold after a large block is freed, so the fuzz tests'
megabyte inputs end up in the heap, where freed memory stays with the process: one pytest
process grew past 4 GB. A fixed threshold keeps every block of 128 KiB or more in its own
mapping, returned to the system when freed (issue 18: no test process over 2 GB)."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import json
import os
import sys
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
LARGE_BLOCK = 128 * 1024

if sys.platform == "linux" and (libc_name := ctypes.util.find_library("c")):
    libc = ctypes.CDLL(libc_name)
    if hasattr(libc, "mallopt"):
        libc.mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK)
        libc.mallopt(M_TRIM_THRESHOLD, LARGE_BLOCK)


MEMORY_LIMIT = 2 * 1024**3  # bytes: no test process above it (issue 18)
_worker_peaks: list[int] = []


def _peak() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core and one more. Part of the suite's wall time is waiting
    (real processes, real deadlines of a few seconds, a PostgreSQL server), not CPU; measured
    on 2 cores with a warm cache, the whole suite took 247 s with 4 workers, 240 s with 5 and
    253 s with 6 (each worker collects every test, and more of them contend for the cores)."""
    return min(9, 2 * (os.cpu_count() or 1) + 1)


DURATIONS = Path(__file__).with_name("durations.json")
RECORDED_FROM_S = 1.0  # the tests worth placing; the rest keep their order after them
# A test on the CPU for less than this share of its time mostly waits (real deadlines, bot
# processes, a server); the others keep the cores busy
WAITING_SHARE = 0.2
# At most this share of the placed seconds wait: of 5 workers on 2 cores, 2 waiting and 3 working
# keep both cores busy. By length alone, the 5 longest (waiting e2e matches) started together
# and the cores sat 90 % idle for 15 s; by count, the long waiting tests piled up the same.
WAITING_AT_ONCE = 0.4
_durations: dict[str, list[float]] = {}  # test -> [wall seconds, CPU seconds]
CPU_AT_START = pytest.StashKey[float]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        action="store_true",
        help=f"write {DURATIONS.name}: this run's seconds of each test over {RECORDED_FROM_S:g} s",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist, one test at a time to a worker as it frees up (two queued), not chunks of
    a few hundred: with the longest tests first (below), no worker is left with a run of
    long tests at the end while the others sit idle."""
    if hasattr(config.option, "maxschedchunk") and config.option.maxschedchunk is None:
        config.option.maxschedchunk = 1


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    """Collecting imports every module and builds every test: objects that live as long as
    the process, which the collector's passes walked for nothing (2.5 s of CPU a worker, 1.4
    without). It waits meanwhile; then a pass frees what did die, and what is left is frozen,
    so no collection during the tests walks it again."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()
        gc.freeze()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In an xdist worker (each sorts its collection the same way, and the scheduler hands
    tests out in that order): the tests that took longest last time first, so the long ones
    start early and the short ones fill the gaps, with the waiting ones spread among the
    working ones. One process keeps pytest's order."""
    if "PYTEST_XDIST_WORKER" not in os.environ or not DURATIONS.exists():
        return
    items[:] = spread_out(items, json.loads(DURATIONS.read_text()))


def spread_out(items: list[pytest.Item], known: dict[str, list[float]]) -> list[pytest.Item]:
    """The recorded tests longest first, each place taken by the next waiting test while the
    waiting ones hold less than ``WAITING_AT_ONCE`` of the seconds placed before it, else by
    the next working one; then the others in their order."""
    timed = sorted(
        (item for item in items if item.nodeid in known), key=lambda item: -known[item.nodeid][0]
    )
    waiting: deque[pytest.Item] = deque()
    working: deque[pytest.Item] = deque()
    for item in timed:
        wall, cpu = known[item.nodeid]
        (waiting if cpu < WAITING_SHARE * wall else working).append(item)
    placed: list[pytest.Item] = []
    placed_s = waiting_s = 0.0
    while waiting or working:
        if waiting and (not working or waiting_s < WAITING_AT_ONCE * placed_s):
            placed.append(waiting.popleft())
            waiting_s += known[placed[-1].nodeid][0]
        else:
            placed.append(working.popleft())
        placed_s += known[placed[-1].nodeid][0]
    return placed + [item for item in items if item.nodeid not in known]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    item.stash[CPU_AT_START] = _cpu_s()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    """The teardown's report carries the test's CPU seconds (its bots' included) to the
    controller, which records them."""
    outcome = yield
    if call.when == "teardown" and CPU_AT_START in item.stash:
        outcome.get_result().user_properties.append(("cpu_s", _cpu_s() - item.stash[CPU_AT_START]))


def _cpu_s() -> float:
    import resource

    own, children = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    wall_cpu = _durations.setdefault(report.nodeid, [0.0, 0.0])
    wall_cpu[0] += report.duration
    wall_cpu[1] += sum(float(value) for key, value in report.user_properties if key == "cpu_s")


def _record_durations() -> None:
    """This run's tests replace their entries; the tests it did not run keep theirs."""
    known: dict[str, list[float]] = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    kept = {test: times for test, times in known.items() if test not in _durations}
    ran = {
        test: [round(wall, 1), round(cpu, 1)]
        for test, (wall, cpu) in _durations.items()
        if wall >= RECORDED_FROM_S
    }
    lines = [
        f"{json.dumps(test)}: {json.dumps(times)}" for test, times in sorted((kept | ran).items())
    ]
    DURATIONS.write_text("{\n" + ",\n".join(lines) + "\n}\n")  # a test a line: short diffs


def pytest_testnodedown(node: Any, error: object) -> None:
    """An xdist worker ended: keep its peak for the check at the end of the run."""
    _worker_peaks.append(int(node.workeroutput.get("peak_rss", 0)))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a test process (this one, or any xdist worker) grew past the limit."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller checks
        workeroutput["peak_rss"] = _peak()
        return
    if session.config.getoption("record_durations"):
        _record_durations()
    peak = max([_peak(), *_worker_peaks])
    if peak > MEMORY_LIMIT:
        print(f"\na test process peaked at {peak / 1024**3:.1f} GiB, above 2 GiB")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """The store's backend: "sqlite", unless the test is run per backend (tests/bot/conftest.py
    runs each test of the host and the store on "sqlite" and on "postgresql")."""
    name: str = getattr(request, "param", "sqlite")
    return name


@pytest.fixture
def database(backend: str, tmp_path: Path) -> Iterator[str]:
    """A new database of the backend: an SQLite file's path, or the URL of a new database on
    the test run's PostgreSQL server (tests/postgres.py)."""
    if backend == "sqlite":
        yield str(tmp_path / "host.db")
        return
    from tests import postgres

    url = postgres.new_database()
    yield url
    postgres.drop_database(url)
