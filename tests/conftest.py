"""Settings for every test process.

glibc's malloc raises its mmap threshold after a large block is freed, so the fuzz tests'
megabyte inputs end up in the heap, where freed memory stays with the process: one pytest
process grew past 4 GB. A fixed threshold keeps every block of 128 KiB or more in its own
mapping, returned to the system when freed (issue 18: no test process over 2 GB)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
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
    """``-n auto``: two workers a core. Most of the suite's wall time is waiting (real
    processes, real deadlines of a few seconds, a PostgreSQL server), not CPU: measured, the
    tests' own CPU is about a third of their summed wall time."""
    return min(8, 2 * (os.cpu_count() or 1))


def pytest_testnodedown(node: Any, error: object) -> None:
    """An xdist worker ended: keep its peak for the check at the end of the run."""
    _worker_peaks.append(int(node.workeroutput.get("peak_rss", 0)))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a test process (this one, or any xdist worker) grew past the limit."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller checks
        workeroutput["peak_rss"] = _peak()
        return
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
