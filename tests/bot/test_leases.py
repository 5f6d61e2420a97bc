"""Shard leases on a real PostgreSQL (issue 22): an overlapping range is refused in one line
naming the holder; a dead holder's leases are waited for (at most a lease), a standby takes
over only expired ones; a process whose lease was taken over finds out at its next renewal, or
at once when it writes about one of its matches: its writes are fenced, so its late deadline
resolves nothing and the new holder resolves the window once; an unsharded process and sharded
ones exclude each other."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from contextvars import ContextVar
from typing import Any

import asyncpg
import pytest
from asyncpg.connection import Connection

from bot.database import open_store
from bot.host import Host
from bot.host.submissions import NOT_SAVED
from bot.host.timers import ManualTimers
from bot.shards import Shards
from bot.store.common import LEASES_TABLE, SqlStore
from bot.store.leases import LeaseLost, Refused, ShardLeases
from bot.store.owner import owning
from tests import postgres
from tests.bot.conftest import OffsetClock, RecordingTransport
from tests.bot.toy_game import GAME

LEASE_S = 0.6
# while a test counts them: the statements its task (and the tasks it starts) sent
SENT: ContextVar[list[int] | None] = ContextVar("test_sent", default=None)


@contextlib.contextmanager
def counting_statements() -> Iterator[list[int]]:
    """The statements this task sends PostgreSQL meanwhile (each asyncpg connection call; they
    do not call each other): one round trip each, its statement once prepared."""
    sent = [0]
    names = ("execute", "executemany", "fetch", "fetchval", "fetchrow")
    originals = {name: getattr(Connection, name) for name in names}

    def counted(send: Any) -> Any:
        async def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            counter = SENT.get()
            if counter is not None:
                counter[0] += 1
            return await send(self, *args, **kwargs)

        return call

    for name, send in originals.items():
        setattr(Connection, name, counted(send))
    marked = SENT.set(sent)
    try:
        yield sent
    finally:
        SENT.reset(marked)
        for name, send in originals.items():
            setattr(Connection, name, send)


@pytest.fixture
async def url() -> AsyncIterator[str]:
    url = postgres.new_database()
    yield url
    postgres.drop_database(url)


def leases(url: str, name: str) -> ShardLeases:
    return ShardLeases(url, name, lease_s=LEASE_S)


async def die(process: ShardLeases) -> None:
    """As kill -9: the renewals stop and the session ends, the rows stay."""
    assert process._renewing is not None
    process._renewing.cancel()
    await process.close()


async def fenced_host(url: str, leases: ShardLeases) -> tuple[Host, ManualTimers]:
    """A sharded process's host (its timers run when the test moves its clock)."""
    store = await open_store(url)
    assert isinstance(store, SqlStore)
    store.fence = leases.fence()
    clock = OffsetClock()
    clock.freeze()
    timers = ManualTimers(clock, clock.advance)
    assert leases.shards is not None
    host = Host(store, RecordingTransport(), clock=clock, timers=timers, shards=leases.shards)
    await host.start()
    return host, timers


async def expire_leases(url: str, holder: str | None = None) -> None:
    """As a process frozen past its lease (``holder``'s, or every one): the expiry passes
    unrenewed, without waiting for it."""
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(
            f"UPDATE {LEASES_TABLE} SET expires_at = clock_timestamp() - interval '1 second'"
            " WHERE $1::text IS NULL OR holder = $1::text",
            holder,
        )
    finally:
        await connection.close()


async def test_an_overlapping_range_is_refused_naming_the_holder(url: str) -> None:
    first, second, third = leases(url, "first A"), leases(url, "second B"), leases(url, "C")
    await first.claim(Shards.span(0, 1, 4))
    try:
        with pytest.raises(Refused) as refused:
            await second.claim(Shards.span(1, 2, 4))
        message = str(refused.value)
        assert "shard 1 of 4 is held by first A" in message and "\n" not in message
        assert (await third.claim(Shards.span(2, 3, 4))).ids == (2, 3)  # no overlap: fine
        with pytest.raises(Refused, match="shard 0 of 4 is held by first A"):
            await second.claim(Shards.span(0, 0, 2))  # another count: every server moves
    finally:
        await first.release()
        await second.release()
        await third.release()
    again = leases(url, "again")
    assert (await again.claim(Shards.span(0, 3, 4))).text == "0-3/4"  # released: free at once
    await again.release()


async def test_a_dead_holders_leases_are_waited_for_then_taken(url: str) -> None:
    dead, replacement = leases(url, "dead"), leases(url, "replacement")
    await dead.claim(Shards.span(0, 1, 2))
    await die(dead)
    started = time.monotonic()
    await replacement.claim(Shards.span(0, 1, 2))  # not refused: its holder is gone
    waited = time.monotonic() - started
    assert 0.2 < waited < LEASE_S + 1.0
    await replacement.release()


async def test_a_standby_takes_only_expired_leases(url: str) -> None:
    alive, dead, standby = leases(url, "alive"), leases(url, "dead"), leases(url, "standby")
    await alive.claim(Shards((0,), 3))
    await dead.claim(Shards((1,), 3))
    await die(dead)
    await expire_leases(url, "dead")  # its lease ran out
    taken = await asyncio.wait_for(standby.claim(Shards.every(3), standby=True), LEASE_S * 4)
    assert taken == Shards((1,), 3)  # not shard 0 (alive), not shard 2 (nobody's yet)
    rows = {lease.shard: lease.holder for lease in await standby.leases()}
    assert rows == {0: "alive", 1: "standby"}
    await standby.release()
    await alive.release()


async def test_a_standby_waits_while_every_lease_is_renewed(url: str) -> None:
    alive, standby = leases(url, "alive"), leases(url, "standby")
    await alive.claim(Shards.every(2))
    with pytest.raises(TimeoutError):  # unrenewed, the lease would have ended a third before
        await asyncio.wait_for(standby.claim(Shards.every(2), standby=True), LEASE_S * 1.5)
    await standby.release()
    await alive.release()


async def test_a_lease_taken_over_is_lost_at_the_next_renewal(url: str) -> None:
    lost: list[str] = []
    stalled = ShardLeases(url, "stalled", lease_s=LEASE_S, on_lost=lost.append)
    await stalled.claim(Shards((1,), 2))
    assert stalled._renewing is not None
    stalled._renewing.cancel()  # as a process frozen past its lease
    await expire_leases(url)
    standby = leases(url, "standby")
    assert (await standby.claim(Shards.every(2), standby=True)).ids == (1,)
    with pytest.raises(LeaseLost, match=r"shards \[1\] expired or were taken over"):
        await stalled.renew()
    await standby.release()
    await stalled.release()


async def test_unsharded_and_sharded_processes_exclude_each_other(url: str) -> None:
    sharded = leases(url, "floral-host run --shards 0/2")
    await sharded.claim(Shards((0,), 2))
    with pytest.raises(Exception, match="in use by floral-host run --shards 0/2"):
        async with owning(url, "floral-host run"):
            pass
    await sharded.release()
    async with owning(url, "floral-host run (unsharded)"):
        with pytest.raises(Refused, match="which runs unsharded"):
            await leases(url, "late").claim(Shards((1,), 2))


async def test_a_process_taken_over_writes_nothing_and_stops_at_once(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Frozen past its lease, the process is taken over by a standby, which hosts its match
    and acknowledges an answer. Thawed, its late deadline resolves nothing and an answer to it
    is not saved (its writes are fenced); it finds it lost its lease at once, long before its
    next renewal. The standby resolves the window once, with the answer it acknowledged; the
    window's conditional close refuses the stale one's resolution even unfenced."""
    lost: list[str] = []
    stale = ShardLeases(url, "stale", lease_s=60, on_lost=lost.append)  # renewed every 20 s
    await stale.claim(Shards.every(1))
    stale_host, stale_timers = await fenced_host(url, stale)
    record = await stale_host.create_match(
        GAME, guild_id=1, channel_id=2, players=(101, 102), seed=7
    )
    await stale_host.start_match(record.id)
    await expire_leases(url)
    standby = ShardLeases(url, "standby", lease_s=60)
    assert (await standby.claim(Shards.every(1), standby=True)).ids == (0,)
    new_host, _ = await fenced_host(url, standby)
    assert (await new_host.submit(record.id, 101, "5")).accepted

    started = time.monotonic()
    await stale_timers.advance(61)  # its deadline, met late
    refused = await stale_host.submit(record.id, 102, "3")
    assert not refused.accepted and refused.text == NOT_SAVED
    async with asyncio.timeout(5):
        while not lost:
            await asyncio.sleep(0.01)
    assert time.monotonic() - started < 5  # not at its next renewal, 20 s on
    assert lost == ["shard leases lost: shards [0] expired or were taken over"]
    caplog.clear()  # that error is the process telling it stops
    assert [step.kind for step in await new_host.store.steps(record.id)] == ["start"]

    assert (await new_host.submit(record.id, 102, "3")).accepted  # all in: resolved
    await new_host.wait_idle()
    steps = await new_host.store.steps(record.id)
    resolved = [step for step in steps if step.kind == "resolve"]
    assert len(resolved) == 1 and resolved[0].moves == {0: 5, 1: 3}, resolved
    store = stale_host.store
    assert isinstance(store, SqlStore)
    store.fence = None  # the last line of defence alone: a window resolves once
    await stale_host._close_window(record.id, 1, "deadline")  # its window 1, open as it knows
    assert "match 1 step 1 was already resolved" in caplog.text
    assert [step.kind for step in await new_host.store.steps(record.id)] == ["start", "resolve"]
    await stale_host.close()
    await new_host.close()
    await stale.release()
    await standby.release()


async def test_a_fenced_answer_costs_two_round_trips_as_an_unfenced_one(url: str) -> None:
    """An answer's commit on a sharded process: its fence goes with the transaction's first
    statement (a failing fence fails the write: the test above), and the connection goes back
    to its pool without a reset query. Two round trips: the move, then its log and COMMIT."""
    process = leases(url, "one")
    await process.claim(Shards.every(1))
    host, _ = await fenced_host(url, process)
    record = await host.create_match(GAME, guild_id=1, channel_id=2, players=(101, 102), seed=7)
    await host.start_match(record.id)
    with counting_statements() as sent:
        assert (await host.submit(record.id, 101, "5")).accepted
    assert sent == [2]
    await host.close()
    await process.release()
