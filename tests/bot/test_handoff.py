"""DMs handed to the match's process (issue 22), on a real PostgreSQL: the process holding
shard 0 routes a DM to the shard of its match (a practice's is shard 0; a DM naming no match
goes with the user's latest active one, or stays when one of them is local); the process
leasing that shard takes each handed-over event once, by notification or by collecting it
later (it was not running when the DM came)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.database import open_store
from bot.handoff import HandOff
from bot.host import Host
from bot.shards import Shards
from bot.store.leases import ShardLeases
from bot.transport import Delivery
from tests import postgres
from tests.bot.toy_game import GAME

ON_1, ON_0 = (3 << 22) | 5, (4 << 22) | 5  # guilds on shards 1 and 0 of 2


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
    zero = HandOff(url, Shards((0,), 2), lambda *_: asyncio.sleep(0))
    await zero.start()
    try:
        assert await zero.route(101, on_one) == 1
        assert await zero.route(101, practice) is None  # a practice is shard 0's
        assert await zero.route(102, None) == 1  # its one active match
        assert await zero.route(101, None) is None  # one of its matches is local: stays
        assert await zero.route(999, None) is None  # no match: answered here
        assert await zero.route(101, 12345) is None  # no such match: refused here
        await new_match(host, ON_0, [102, 103])
        assert await zero.route(102, None) is None
    finally:
        await zero.close()
        await host.close()


async def test_each_handed_over_event_is_taken_once(url: str) -> None:
    got: list[dict[str, Any]] = []

    async def deliver(event: str, data: dict[str, Any]) -> None:
        got.append({"event": event, **data})

    zero = HandOff(url, Shards((0,), 2), deliver)
    await zero.start()
    await zero.forward(1, "MESSAGE_CREATE", {"n": 1})  # its process is not running yet
    one = HandOff(url, Shards((1,), 2), deliver)
    await one.start()
    await one.collect()
    await zero.forward(1, "INTERACTION_CREATE", {"n": 2})  # by notification
    async with asyncio.timeout(5):
        while len(got) < 2:
            await asyncio.sleep(0.01)
    await one.collect()  # nothing left: the notification took it
    await asyncio.sleep(0.1)
    assert sorted(item["n"] for item in got) == [1, 2]
    assert got[0] == {"event": "MESSAGE_CREATE", "n": 1}
    assert zero.received == 0 and one.received == 2
    await zero.close()
    await one.close()
