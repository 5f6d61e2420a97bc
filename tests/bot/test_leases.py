"""Shard leases on a real PostgreSQL (issue 22): an overlapping range is refused in one line
naming the holder; a dead holder's leases are waited for (at most a lease), a standby takes
over only expired ones; a process whose lease was taken over finds out at its next renewal;
an unsharded process and sharded ones exclude each other."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from bot.shards import Shards
from bot.store.leases import LeaseLost, Refused, ShardLeases
from bot.store.owner import owning
from tests import postgres

LEASE_S = 0.6


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
    taking = asyncio.create_task(standby.claim(Shards.every(3), standby=True))
    taken = await asyncio.wait_for(taking, LEASE_S * 4)
    assert taken == Shards((1,), 3)  # not shard 0 (alive), not shard 2 (nobody's yet)
    rows = {lease.shard: lease.holder for lease in await standby.leases()}
    assert rows == {0: "alive", 1: "standby"}
    await standby.release()
    await alive.release()


async def test_a_standby_waits_while_every_lease_is_renewed(url: str) -> None:
    alive, standby = leases(url, "alive"), leases(url, "standby")
    await alive.claim(Shards.every(2))
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(standby.claim(Shards.every(2), standby=True), LEASE_S * 2)
    await standby.release()
    await alive.release()


async def test_a_lease_taken_over_is_lost_at_the_next_renewal(url: str) -> None:
    lost: list[str] = []
    stalled = ShardLeases(url, "stalled", lease_s=LEASE_S, on_lost=lost.append)
    await stalled.claim(Shards((1,), 2))
    assert stalled._renewing is not None
    stalled._renewing.cancel()  # as a process frozen past its lease
    await asyncio.sleep(LEASE_S + 0.1)
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
