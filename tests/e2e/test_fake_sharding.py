"""The fake Discord shards as Discord does (issue 22): IDENTIFY's ``shard`` picks the guilds a
session gets, guild events go to the guild's shard alone, DMs and DM interactions to shard 0
alone; one global rate limit counts every session's requests of a token together."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest

from .fake_discord import FakeDiscord

Frame = dict[str, Any]


class RawShard:
    """A bare gateway client: IDENTIFY with a shard, then collects every dispatch."""

    def __init__(self, fake: FakeDiscord, shard: list[int]) -> None:
        self.fake, self.shard = fake, shard
        self.events: list[Frame] = []

    async def connect(self, http: aiohttp.ClientSession) -> None:
        self.ws = await http.ws_connect(f"{self.fake.gateway_url}?v=10&encoding=json")
        await self.ws.receive_json()  # HELLO
        identify = {"token": self.fake.token, "intents": 1 | 512 | 4096, "shard": self.shard}
        await self.ws.send_json({"op": 2, "d": identify})
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            self.events.append(json.loads(msg.data))

    def got(self, event: str) -> list[Frame]:
        return [frame["d"] for frame in self.events if frame.get("t") == event]


async def until(check: Callable[[], bool]) -> None:
    async with asyncio.timeout(5):
        while not check():
            await asyncio.sleep(0.01)


@pytest.fixture
async def sharded_fake() -> AsyncIterator[FakeDiscord]:
    fake = FakeDiscord()
    fake.build_world(shard=(1, 2))
    fake.add_guild("On zero", shard=(0, 2))
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()


async def test_guilds_go_to_their_shard_and_dms_to_shard_0(sharded_fake: FakeDiscord) -> None:
    fake = sharded_fake
    assert fake.world is not None
    world = fake.world
    zero, one = RawShard(fake, [0, 2]), RawShard(fake, [1, 2])
    async with aiohttp.ClientSession() as http:
        await zero.connect(http)
        await one.connect(http)
        await until(lambda: len(zero.got("GUILD_CREATE")) + len(one.got("GUILD_CREATE")) == 2)
        assert [g["name"] for g in zero.got("GUILD_CREATE")] == ["On zero"]
        assert [g["name"] for g in one.got("GUILD_CREATE")] == ["Floral Test"]
        assert one.got("READY")[0]["shard"] == [1, 2]
        assert [g["id"] for g in one.got("READY")[0]["guilds"]] == [str(world.guild.id)]

        await fake.dm_text(world.alice, "C")
        await fake.say(world.alice, world.channel, "hello")
        await until(lambda: bool(zero.got("MESSAGE_CREATE") and one.got("MESSAGE_CREATE")))
        assert [m.get("guild_id") for m in zero.got("MESSAGE_CREATE")] == [None]
        assert [m["guild_id"] for m in one.got("MESSAGE_CREATE")] == [str(world.guild.id)]
        for raw in (zero, one):
            await raw.ws.close()
            raw.reader.cancel()


async def test_an_invalid_shard_is_closed_with_4010(sharded_fake: FakeDiscord) -> None:
    raw = RawShard(sharded_fake, [2, 2])
    async with aiohttp.ClientSession() as http:
        await raw.connect(http)
        await raw.reader
        assert raw.ws.close_code == 4010
    assert sharded_fake.failures == ["gateway: IDENTIFY with an invalid shard [2, 2]"]
    sharded_fake.failures.clear()


async def test_one_global_rate_limit_per_token(sharded_fake: FakeDiscord) -> None:
    fake = sharded_fake
    fake.global_limit = 5
    headers = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession() as http:

        async def get() -> int:
            async with http.get(f"{fake.api_base}/users/@me", headers=headers) as response:
                return response.status

        statuses = [await get() for _ in range(7)]  # as two processes would, one token
    assert statuses == [200] * 5 + [429] * 2
    assert fake.global_limited == 2
    assert fake.max_requests_per_second() == 5
