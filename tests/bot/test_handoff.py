"""DMs handed to the match's process (issue 22), on a real PostgreSQL: the process holding
shard 0 routes a DM to the shard of its match (a practice's is shard 0; a DM naming no match
goes with the user's latest active one); the process
leasing that shard takes each handed-over event once, by notification or by collecting it
later (it was not running when the DM came); a row claimed by a process that died before it was
done is handled by the shard's next owner, once; an answer handled again after its first
handler committed it is acknowledged again, never written twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from bot.database import open_store
from bot.handoff import ANSWERED, STALE_CLAIM_S, HandOff
from bot.host import Host
from bot.host.submissions import REDELIVERED
from bot.shards import Shards
from bot.store.common import INBOUND_TABLE
from bot.store.leases import ShardLeases
from bot.transport import Delivery
from games.moves import ALREADY_ANSWERED
from tests import postgres
from tests.bot.conftest import HostEnv
from tests.bot.test_leases import counting_statements, die, fenced_host
from tests.bot.toy_game import GAME

ON_1, ON_0 = (3 << 22) | 5, (4 << 22) | 5  # guilds on shards 1 and 0 of 2
ZERO, ONE = Shards((0,), 2), Shards((1,), 2)
LEASE_S = 0.5


class Quiet:
    async def send(self, delivery: Delivery) -> None:
        pass


@pytest.fixture
async def url() -> AsyncIterator[str]:
    url = postgres.new_database()
    leases = ShardLeases(url, "test")  # the first sharded process makes the shared tables
    await leases.claim(Shards((0,), 1))
    await leases.release()
    yield url
    postgres.drop_database(url)


async def new_match(host: Host, guild: int, players: list[int], practice: bool = False) -> int:
    record = await host.create_match(
        GAME, guild_id=guild, channel_id=1, players=players, practice=practice
    )
    return record.id


async def test_a_dm_is_routed_to_its_matchs_shard(url: str) -> None:
    host = Host(await open_store(url), Quiet())
    on_one = await new_match(host, ON_1, [101, 102])
    practice = await new_match(host, 0, [101, 5], practice=True)
    zero = HandOff(url, ZERO, "zero", lambda *_: asyncio.sleep(0))
    await zero.start()
    try:
        assert await zero.route(101, on_one) == 1
        assert await zero.route(101, practice) is None  # a practice is shard 0's
        assert await zero.route(102, None) == 1  # its one active match
        assert await zero.route(101, None) is None  # its latest, the practice, is local
        assert await zero.elsewhere(101) == [on_one]  # the matches other processes host
        assert await zero.route(999, None) is None  # no match: answered here
        assert await zero.route(101, 12345) is None  # no such match: refused here
        await new_match(host, ON_0, [102, 103])
        assert await zero.route(102, None) is None
    finally:
        await zero.close()
        await host.close()


async def test_each_handed_over_event_is_taken_once(url: str) -> None:
    got: list[dict[str, Any]] = []

    async def deliver(event: str, data: dict[str, Any], again: bool) -> None:
        got.append({"event": event, **data})

    leases = ShardLeases(url, "one")
    await leases.claim(ONE)
    zero = HandOff(url, ZERO, "zero", deliver)
    await zero.start()
    await zero.forward(1, "MESSAGE_CREATE", {"n": 1})  # its process is not running yet
    one = HandOff(url, ONE, leases.owner, deliver)
    await one.start()
    await one.collect()
    await zero.forward(1, "INTERACTION_CREATE", {"n": 2})  # by notification
    async with asyncio.timeout(5):
        while len(got) < 2 or await waiting(url):
            await asyncio.sleep(0.01)
    await one.collect()  # nothing left: the notification took it
    await one.close()
    assert sorted(item["n"] for item in got) == [1, 2]
    assert got[0] == {"event": "MESSAGE_CREATE", "n": 1}
    assert zero.received == 0 and one.received == 2
    await zero.close()
    await leases.release()


async def waiting(url: str) -> int:
    """The rows of the hand-off table (handled rows are deleted)."""
    connection = await asyncpg.connect(url)
    try:
        return int(await connection.fetchval(f"SELECT count(*) FROM {INBOUND_TABLE}"))
    finally:
        await connection.close()


class DiesAfterClaiming(HandOff):
    """As kill -9 between a row's claim and its handling."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.claimed_one = asyncio.Event()

    def claimed(self, row_id: int) -> None:
        self.claimed_one.set()
        raise asyncio.CancelledError  # the process is gone: nothing after the claim runs


async def test_a_row_claimed_by_a_process_that_died_is_handled_once_by_the_next_owner(
    url: str,
) -> None:
    got: list[tuple[int, bool]] = []

    async def deliver(event: str, data: dict[str, Any], again: bool) -> None:
        got.append((data["n"], again))

    dead = ShardLeases(url, "dead", lease_s=LEASE_S)
    await dead.claim(ONE)
    dying = DiesAfterClaiming(url, ONE, dead.owner, deliver)
    await dying.start()
    zero = HandOff(url, ZERO, "zero", deliver)
    await zero.start()
    await zero.forward(1, "INTERACTION_CREATE", {"n": 1})
    await asyncio.wait_for(dying.claimed_one.wait(), 5)
    for owner in (dead.owner, "no lease holder"):
        again = HandOff(url, ONE, owner, deliver)
        await again.start()
        await again.collect()  # claimed by a live holder: not taken again; none by a stranger
        await again.close()
    await dying.close()
    await die(dead)
    assert got == [] and await waiting(url) == 1

    replacement = ShardLeases(url, "replacement", lease_s=LEASE_S)
    await replacement.claim(ONE)  # once the dead one's lease expired
    one = HandOff(url, ONE, replacement.owner, deliver)
    await one.start()
    await one.collect()
    await one.collect()
    await one.close()  # its handlers done
    assert got == [(1, True)]  # handled once, knowing it is handed over again
    assert await waiting(url) == 0
    await zero.close()
    await replacement.release()


async def test_a_claim_older_than_its_bound_is_taken_again(url: str) -> None:
    """A handler that never ended (its process still leases the shard): after STALE_CLAIM_S
    the row is claimed again, by that process too."""
    got: list[tuple[int, bool]] = []

    async def deliver(event: str, data: dict[str, Any], again: bool) -> None:
        got.append((data["n"], again))

    leases = ShardLeases(url, "one")
    await leases.claim(ONE)
    stuck = DiesAfterClaiming(url, ONE, leases.owner, deliver)  # as a handler that hangs
    await stuck.start()
    await stuck.forward(1, "INTERACTION_CREATE", {"n": 1})
    await asyncio.wait_for(stuck.claimed_one.wait(), 5)
    await stuck.close()
    one = HandOff(url, ONE, leases.owner, deliver)
    await one.start()
    await one.collect()
    assert got == []  # claimed a moment ago
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(
            f"UPDATE {INBOUND_TABLE} SET claimed_at = claimed_at - make_interval(secs => $1)",
            STALE_CLAIM_S + 1,
        )
    finally:
        await connection.close()
    await one.collect()
    await one.close()
    assert got == [(1, True)] and await waiting(url) == 0
    await leases.release()


@pytest.mark.sqlite_only
async def test_an_answer_handled_again_after_its_commit_is_acknowledged_not_written_twice(
    env: HostEnv,
) -> None:
    """Its first handler committed it and died before its row was deleted: the next owner
    handles it again and the host knows it for the seat's standing move."""
    record = await env.new_match()
    first = await env.host.submit(record.id, 101, "5")
    marked = REDELIVERED.set(True)
    try:
        again = await env.host.submit(record.id, 101, "5")
        other = await env.host.submit(record.id, 101, "6")  # another answer: as always
    finally:
        REDELIVERED.reset(marked)
    assert first.accepted and again == first
    assert not other.accepted and other.text == ALREADY_ANSWERED
    raws = [attempt.raw for attempt in await env.host.store.attempts(record.id)]
    assert raws == ["5", "6"]  # the answer once; the other one refused and logged as ever


class DiesBeforeDone(HandOff):
    """As kill -9 between a row's handling (an answer committed, the player answered) and its
    deletion."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.handled_rows = 0

    async def handled(self, row_id: int) -> None:
        self.handled_rows += 1
        raise asyncio.CancelledError  # the process is gone: its row stays


async def test_a_row_whose_answer_committed_is_handed_over_again_marked_answered(
    url: str,
) -> None:
    """The attempt's commit marks the row it answers, in the same transaction: the next owner
    knows the answer is saved (it never submits it again, say for the next window); a row
    whose handler committed nothing is handed over again unmarked."""
    dead = ShardLeases(url, "dead", lease_s=LEASE_S)
    await dead.claim(ONE)
    host, _ = await fenced_host(url, dead)
    match_id = await new_match(host, ON_1, [101, 102])
    await host.start_match(match_id)

    async def answer(event: str, data: dict[str, Any], again: bool) -> None:
        if data["n"] == 1:
            assert (await host.submit(match_id, 101, "5")).accepted

    dying = DiesBeforeDone(url, ONE, dead.owner, answer)
    await dying.start()
    zero = HandOff(url, ZERO, "zero", answer)
    await zero.start()
    for n in (1, 2):
        await zero.forward(1, "MESSAGE_CREATE", {"n": n})
    async with asyncio.timeout(5):
        while dying.handled_rows < 2:
            await asyncio.sleep(0.01)
    await dying.close()
    await host.close()
    await die(dead)

    got: list[tuple[int, bool, bool]] = []

    async def again(event: str, data: dict[str, Any], again: bool) -> None:
        got.append((data["n"], again, bool(data.get(ANSWERED))))

    replacement = ShardLeases(url, "replacement", lease_s=LEASE_S)
    await replacement.claim(ONE)
    one = HandOff(url, ONE, replacement.owner, again)
    await one.start()
    await one.collect()
    await one.close()
    assert sorted(got) == [(1, True, True), (2, True, False)]
    await zero.close()
    await replacement.release()


async def test_a_matchs_shard_is_routed_by_once_read(url: str) -> None:
    """A button names its match: shard 0 reads the match's shard once (a match never changes
    server), then routes its DMs without a query."""
    host = Host(await open_store(url), Quiet())
    on_one = await new_match(host, ON_1, [101, 102])
    zero = HandOff(url, ZERO, "zero", lambda *_: asyncio.sleep(0))
    await zero.start()
    try:
        assert await zero.route(101, on_one) == 1
        with counting_statements() as sent:
            assert await zero.route(102, on_one) == 1
            assert await zero.route(101, None) == 1  # naming none: its latest, read
        assert sent == [1]
    finally:
        await zero.close()
        await host.close()
