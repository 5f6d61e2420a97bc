"""Faults the host must outlive: a database locked by another process or a full disk at a
deadline, and a frozen process. A match never gets stuck, nothing resolves twice, and an answer
is never acknowledged unless it is saved."""

from __future__ import annotations

import contextlib
import json
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import pytest

from bot.host import Host
from bot.store import Change, WriteFailed
from bot.store.sqlite import SqliteStore
from bot.transport import Delivery
from tests.bot.conftest import PLAYERS, HostEnv, eventually
from tests.bot.test_simulate import ROOT


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Another process's connection holding the write lock until the block ends."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


async def short_busy_timeout(host: Host) -> None:
    """The store gives up on a lock after 50 ms instead of 5 s (keeps the test short)."""
    assert isinstance(host.store, SqliteStore)
    await host.store._db.execute("PRAGMA busy_timeout=50")


async def fill_the_disk(host: Host) -> None:
    """A real SQLITE_FULL: the database may not grow by a page, and its outbox's last page is
    full, so every resolution (which always posts) fails to commit."""
    assert isinstance(host.store, SqliteStore)
    db = host.store._db
    await db.execute("VACUUM")  # no free pages left to reuse
    pages = next(iter(await db.execute_fetchall("PRAGMA page_count")))[0]
    await db.execute(f"PRAGMA max_page_count={pages}")
    with contextlib.suppress(sqlite3.OperationalError):  # "database or disk is full"
        while True:  # tiny rows of no match (already sent) fill the outbox's last page
            await db.execute(
                "INSERT INTO outbox (match_id, audience, text, payload, status, created_at)"
                " VALUES (0, 'public', '', '{}', 'sent', 0)"
            )


async def free_the_disk(host: Host) -> None:
    assert isinstance(host.store, SqliteStore)
    await host.store._db.execute("PRAGMA max_page_count=1073741823")


@pytest.mark.sqlite_only  # SQLite's locks and full disk; PostgreSQL's faults: test_store_postgres
async def test_a_lock_held_across_the_deadline_delays_the_resolution_only(
    env: HostEnv, caplog: pytest.LogCaptureFixture
) -> None:
    env.options["write_retry_s"] = 0.05
    host = await env.reopen()
    await short_busy_timeout(host)
    record = await env.new_match(window_s=0.3, config={"rounds": 2})
    assert (await host.submit(record.id, PLAYERS[0], "3")).accepted
    # P2 has its prompt (a deadline never passes over a prompt still on its way)
    await eventually(lambda: any("request" in d.payload for d in env.transport.to("seat1")))
    with locked(env.path):
        # acknowledged all the same: the answers' journal holds it till the database takes it
        assert (await host.submit(record.id, PLAYERS[1], "4")).accepted
        # the deadline passes and its resolution fails on the lock, more than once
        await eventually(lambda: caplog.text.count("step 1 resolution failed") >= 2)
        assert (await host.store.steps(record.id))[-1].step == 0
    await eventually(lambda: host.stats.turns == 1)  # resolved shortly after the release
    for user in PLAYERS:
        assert (await host.submit(record.id, user, "5")).accepted
    await host.wait_over(record.id)
    await host.wait_idle()

    steps = await host.store.steps(record.id)
    assert [s.step for s in steps] == [0, 1, 2]
    assert steps[1].moves == {0: 3, 1: 4}  # the answer taken under the lock is in it
    logged = [(a.step, a.seat, a.raw) for a in await host.store.attempts(record.id)]
    assert logged.count((1, 1, "4")) == 1  # written again once the lock was gone, once
    assert steps[2].moves == {0: 5, 1: 5}
    turns = [d for d in env.transport.to("public", record.id) if d.payload["kind"] == "turn"]
    assert [d.payload["step"] for d in turns] == [1, 2]  # each step announced once


@pytest.mark.sqlite_only  # SQLite's locks and full disk; PostgreSQL's faults: test_store_postgres
async def test_the_sweep_closes_a_window_whose_resolution_gave_up(
    env: HostEnv, caplog: pytest.LogCaptureFixture
) -> None:
    env.options.update(write_tries=1, sweep_s=0.2)  # no retries: only the sweep can close it
    host = await env.reopen()
    await short_busy_timeout(host)
    record = await env.new_match(window_s=0.2, config={"rounds": 1})
    assert (await host.submit(record.id, PLAYERS[1], "8")).accepted
    # P1 has its prompt (a deadline never passes over a prompt still on its way)
    await eventually(lambda: any("request" in d.payload for d in env.transport.to("seat0")))
    with locked(env.path):
        await eventually(lambda: "step 1 resolution failed 1 times, giving up" in caplog.text)
    await host.wait_over(record.id)

    assert "past its deadline; closing it" in caplog.text
    steps = await host.store.steps(record.id)
    assert [s.step for s in steps] == [0, 1]
    assert steps[1].moves == {0: None, 1: 8}


@pytest.mark.sqlite_only  # SQLite's locks and full disk; PostgreSQL's faults: test_store_postgres
async def test_a_full_disk_at_the_deadline_and_the_match_goes_on_once_freed(
    env: HostEnv, caplog: pytest.LogCaptureFixture
) -> None:
    env.options["write_retry_s"] = 0.05
    host = await env.reopen()
    record = await env.new_match(window_s=0.3, config={"rounds": 2})
    assert (await host.submit(record.id, PLAYERS[0], "2")).accepted
    await host.wait_idle()
    await fill_the_disk(host)
    await eventually(lambda: "database or disk is full" in caplog.text)
    await eventually(lambda: caplog.text.count("step 1 resolution failed") >= 2)
    assert (await host.store.steps(record.id))[-1].step == 0
    await free_the_disk(host)
    await host.wait_over(record.id)
    await host.wait_idle()

    steps = await host.store.steps(record.id)
    assert [s.step for s in steps] == [0, 1, 2]
    assert steps[1].moves == {0: 2, 1: None}
    turns = [d for d in env.transport.to("public", record.id) if d.payload["kind"] == "turn"]
    assert [d.payload["step"] for d in turns] == [1, 2]


async def test_a_stalled_host_reopens_the_window_with_grace_and_says_so(env: HostEnv) -> None:
    env.options.update(stall_s=0.5, reminder_s=0.07, grace_s=30)
    host = await env.reopen()
    record = await env.new_match(window_s=0.3, config={"rounds": 1})
    assert (await host.submit(record.id, PLAYERS[0], "6")).accepted
    time.sleep(1.2)  # the event loop is frozen (SIGSTOP, a paused VM) past the deadline
    stalled_at = env.clock()
    await eventually(lambda: host.stats.reopened == 1)
    await host.wait_idle()

    assert (await host.store.steps(record.id))[-1].step == 0  # no default was applied
    window = await host.store.open_window(record.id)
    assert window is not None and stalled_at + 30 <= window.deadline < stalled_at + 31
    told = [d for d in env.transport.sent if d.payload["kind"] == "reopened"]
    assert sorted(str(d.audience) for d in told) == ["public", "seat0", "seat1"]
    assert all("stalled" in d.text for d in told)
    assert by_audience(told)["seat1"].payload["request"]["deadline"] == window.deadline
    # the reminder due during the stall would have come with no time left: not sent
    assert not [d for d in env.transport.sent if d.payload["kind"] == "reminder"]

    assert (await host.submit(record.id, PLAYERS[1], "4")).accepted
    await host.wait_over(record.id)
    assert (await host.store.steps(record.id))[1].moves == {0: 6, 1: 4}


@pytest.mark.sqlite_only  # SQLite's locks and full disk; PostgreSQL's faults: test_store_postgres
async def test_a_window_expired_while_the_database_was_locked_at_start_still_reopens(
    env: HostEnv, caplog: pytest.LogCaptureFixture
) -> None:
    env.options["write_retry_s"] = 0.05
    record = await env.new_match(window_s=30)
    await env.host.close()
    env.clock.advance(60)
    store = await SqliteStore.open(env.path)
    await store._db.execute("PRAGMA busy_timeout=50")
    host = Host(store, env.transport, clock=env.clock, **env.options)
    env.host = host
    with locked(env.path):
        await host.start()  # starts anyway; the reopening is retried
        await eventually(lambda: "reopening failed" in caplog.text)
    await eventually(lambda: host.stats.reopened == 1)
    await host.wait_idle()
    told = [d for d in env.transport.sent if d.payload["kind"] == "reopened"]
    assert sorted(str(d.audience) for d in told) == ["public", "seat0", "seat1"]
    assert "restarted" in told[0].text
    window = await host.store.open_window(record.id)
    assert window is not None and window.deadline > env.clock()


def by_audience(deliveries: list[Delivery]) -> dict[str, Delivery]:
    return {str(d.audience): d for d in deliveries}


def test_a_process_stopped_past_the_deadline_reopens_the_window(tmp_path: Path) -> None:
    """A real SIGSTOP of a host process, then SIGCONT: no default is applied, the players are
    told the host stalled, and the reminder due meanwhile is not sent."""
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "tests.bot.stalled_host", str(tmp_path / "h.db")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    lines = LineReader(process)
    try:
        lines.until(lambda seen: seen[-1] == "ready")
        process.send_signal(signal.SIGSTOP)
        time.sleep(2.5)  # past the 1 s window and the 0.5 s stall threshold
        process.send_signal(signal.SIGCONT)
        told = lines.until(lambda seen: sum('"reopened"' in line for line in seen) == 3)
    finally:
        process.kill()
        process.wait()
    sent = [json.loads(line) for line in told if line.startswith("{")]
    kinds = [message["kind"] for message in sent]
    assert "turn" not in kinds and "reminder" not in kinds
    reopened = [message for message in sent if message["kind"] == "reopened"]
    assert sorted(message["audience"] for message in reopened) == ["public", "seat0", "seat1"]
    assert all("stalled" in message["text"] for message in reopened)


class LineReader:
    """A process's output lines, read by a thread so that waiting for one can time out."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._lines: queue.Queue[str | None] = queue.Queue()
        stream = process.stdout
        assert stream is not None
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def until(self, done: Callable[[list[str]], bool], limit_s: float = 20.0) -> list[str]:
        """Lines read until ``done`` holds for them; the limit only stops a broken test."""
        lines: list[str] = []
        while not lines or not done(lines):
            line = self._lines.get(timeout=limit_s)
            assert line is not None, f"the process ended after {lines}"
            lines.append(line)
        return lines


async def test_a_resolution_that_committed_though_its_answer_was_lost_goes_on_once(
    env: HostEnv, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The connection lost just as a resolution committed, the server not asked in time: the
    host retries, the store refuses (the window is closed), and the match goes on from what
    was stored, neither frozen on the old window nor resolved twice."""
    store = env.host.store
    apply = store.apply
    lost: list[int] = []

    async def apply_and_lose_the_answer(change: Change) -> bool:
        applied = await apply(change)
        if change.new_step is not None and not lost:
            lost.append(change.new_step.step)
            raise WriteFailed("connection was closed in the middle of operation")
        return applied

    monkeypatch.setattr(store, "apply", apply_and_lose_the_answer)
    record = await env.new_match(config={"rounds": 2})
    for user in PLAYERS:
        assert (await env.host.submit(record.id, user, "3")).accepted
    await eventually(lambda: "already resolved: the stored match goes on" in caplog.text)
    await env.host.wait_idle()
    for user in PLAYERS:  # round 2 on the stored match
        assert (await env.host.submit(record.id, user, "4")).accepted, user
    await eventually(lambda: record.id not in env.host.active_match_ids())
    finished = await store.get_match(record.id)
    assert lost == [1] and finished is not None and finished.status == "finished"
    steps = await store.steps(record.id)
    assert [s.step for s in steps] == list(range(len(steps)))
    turns = [d for d in env.transport.to("public", record.id) if d.payload["kind"] == "turn"]
    assert len(turns) == len({d.payload["step"] for d in turns})  # none announced twice
