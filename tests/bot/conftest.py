"""Host fixtures: a real database, the real scheduler (or manual timers on a frozen clock), a
transport that records what it sends.

Every test that takes ``env``, ``manual_env`` or ``database`` runs on both backends: an SQLite
file, and a database of its own on the test run's PostgreSQL server (``tests.postgres``). A test
of what only SQLite has (its files, locks and pragmas) is marked ``sqlite_only``."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.database import open_store
from bot.host import Host
from bot.host.timers import ManualTimers
from bot.store import MatchRecord
from bot.transport import Delivery
from tests.bot.toy_game import GAME

BACKENDS = ("sqlite", "postgresql")
PLAYERS = (101, 102)
MODERATOR = 900
GUILD, CHANNEL = 1, 2


class OffsetClock:
    """Real time plus an offset the test can move forward (downtime, waiting); ``freeze``
    stops it so time arithmetic can be checked exactly (only ``advance`` moves it then)."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.frozen: float | None = None

    def __call__(self) -> float:
        return self.frozen if self.frozen is not None else time.time() + self.offset

    def freeze(self) -> float:
        self.frozen = self()
        return self.frozen

    def advance(self, seconds: float) -> None:
        if self.frozen is not None:
            self.frozen += seconds
        self.offset += seconds


@dataclass
class RecordingTransport:
    sent: list[Delivery] = field(default_factory=list)
    # audience key -> exceptions to raise, one per send, before sending works
    failures: dict[str, list[Exception]] = field(default_factory=dict)
    attempts: list[Delivery] = field(default_factory=list)
    # audience key -> an event the next send to it waits for (a 429 wait inside the send)
    stalls: dict[str, asyncio.Event] = field(default_factory=dict)
    # audience key -> when Discord says the next send to it was first posted (a resend after a
    # crash that its nonce dropped)
    posted_at: dict[str, float] = field(default_factory=dict)

    async def send(self, delivery: Delivery) -> float | None:
        self.attempts.append(delivery)
        queue = self.failures.get(str(delivery.audience))
        if queue:
            raise queue.pop(0)
        stall = self.stalls.pop(str(delivery.audience), None)
        if stall is not None:
            await stall.wait()
        self.sent.append(delivery)
        return self.posted_at.pop(str(delivery.audience), None)

    def to(self, audience: str, match_id: int | None = None) -> list[Delivery]:
        return [
            d for d in self.sent if str(d.audience) == audience and match_id in (None, d.match_id)
        ]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: a test of what only the SQLite store has")
    config.addinivalue_line("markers", "postgres_only: a test of what only PostgreSQL has")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Each test that uses a database runs once per backend (SQLite only where marked)."""
    if "backend" in metafunc.fixturenames:
        marked = metafunc.definition.get_closest_marker
        backends = [
            name
            for name in BACKENDS
            if not marked("sqlite_only" if name == "postgresql" else "postgres_only")
        ]
        metafunc.parametrize("backend", backends, indirect=True)


@dataclass
class HostEnv:
    target: str  # the database: an SQLite file's path or a PostgreSQL URL
    clock: OffsetClock
    transport: RecordingTransport
    host: Host
    options: dict[str, Any]
    timers: ManualTimers | None = None  # the ``manual_env`` fixture's: time moves by advance

    @property
    def path(self) -> Path:
        """The SQLite file (tests marked ``sqlite_only``)."""
        return Path(self.target)

    async def advance(self, seconds: float) -> None:
        """Move the frozen clock, run the timers that fell due and what they started."""
        assert self.timers is not None, "only the manual_env fixture has manual timers"
        await self.host.wait_idle()  # what was committed reaches the players before time moves
        await self.timers.advance(seconds)
        await self.host.wait_idle()

    async def reopen(self) -> Host:
        """Close the host (as a stop would) and start a new one on the same file."""
        await self.host.close()
        self.host = await start_host(self.target, self.transport, self.clock, **self.options)
        return self.host

    async def new_match(self, start: bool = True, **kwargs: Any) -> MatchRecord:
        options: dict[str, Any] = {
            "guild_id": GUILD,
            "channel_id": CHANNEL,
            "players": PLAYERS,
            "moderators": (MODERATOR,),
            "seed": 7,
        }
        options.update(kwargs)
        record = await self.host.create_match(GAME, **options)
        if start:
            record = await self.host.start_match(record.id)
        return record


async def start_host(
    target: str | Path, transport: RecordingTransport, clock: OffsetClock, **options: Any
) -> Host:
    store = await open_store(target)
    host = Host(store, transport, clock=clock, **options)
    await host.start()
    return host


@pytest.fixture
async def env(database: str) -> AsyncIterator[HostEnv]:
    clock, transport = OffsetClock(), RecordingTransport()
    options: dict[str, Any] = {"grace_s": 15.0, "reminder_s": 15.0, "retry_base_s": 0.01}
    host = await start_host(database, transport, clock, **options)
    environment = HostEnv(database, clock, transport, host, options)
    yield environment
    await environment.host.close()


@pytest.fixture
async def manual_env(database: str) -> AsyncIterator[HostEnv]:
    """Like ``env``, but the clock stands still and deadlines and reminders run only when the
    test advances it: no test sleeps to wait for a timer."""
    clock, transport = OffsetClock(), RecordingTransport()
    clock.freeze()
    timers = ManualTimers(clock, clock.advance)
    options: dict[str, Any] = {
        "grace_s": 15.0,
        "reminder_s": 15.0,
        "retry_base_s": 0.01,
        "timers": timers,
    }
    host = await start_host(database, transport, clock, **options)
    environment = HostEnv(database, clock, transport, host, options, timers)
    yield environment
    await environment.host.close()


async def eventually(predicate: Callable[[], bool], limit_s: float = 10.0) -> None:
    """Wait until ``predicate`` holds; the limit only stops a broken test from hanging."""
    deadline = time.monotonic() + limit_s
    while not predicate():
        assert time.monotonic() < deadline, "condition never became true"
        await asyncio.sleep(0.005)


@pytest.fixture(autouse=True)
def no_errors_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Job and task failures are only logged: make them fail the test."""
    caplog.set_level(logging.WARNING)
    yield
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
