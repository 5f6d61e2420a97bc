"""A restart after an hour of downtime with 1,000 live matches, through the fake Discord with
Discord's global limit on: every expired window reopens, the re-prompts go out at Discord's pace
(never a 429), before the channel posts, and each window's grace counts from when its prompt
reached its player, so nobody is defaulted on a prompt they had not received.

It runs on virtual time (``tests.virtual_time``): the minutes the backlog takes at 50 requests
a second pass in the seconds the work takes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import discord

from bot.database import open_store
from bot.discord_transport import DiscordTransport
from bot.host import Host
from bot.pacing import LocalBudget, pace
from bot.transport import Delivery
from cogs.prompts import prompt_view
from tests import virtual_time
from tests.bot.toy_game import GAME

from .fake_discord import FakeDiscord, point_discord_py_at

MATCHES = 1000
GRACE_S = 15.0
DOWNTIME_S = 3600.0
EPOCH = 1_800_000_000.0
LATE_ALLOWANCE_S = 2.0  # the host's default: a prompt this late or less moves no deadline


class Quiet:
    """The transport before the stop: every message delivered, nowhere."""

    async def send(self, delivery: Delivery) -> None:
        return None


async def live_matches(db: Path, fake: FakeDiscord) -> dict[int, tuple[int, ...]]:
    """1,000 running one-round matches of the toy game, each in its channel, their prompts
    delivered; the players' DM channels known (stored, as a running bot stores them)."""
    assert fake.world is not None
    clock = virtual_time.epoch_clock(EPOCH)
    store = await open_store(db)
    host = Host(store, Quiet(), clock=clock, timers=virtual_time.LoopTimers(clock))
    await host.start()
    players: dict[int, tuple[int, ...]] = {}
    for n in range(MATCHES):
        channel = fake.add_channel(fake.world.guild, f"match-{n}")
        seats = (fake.add_user(f"p{n}a"), fake.add_user(f"p{n}b"))
        for user in seats:
            await store.set_dm_channel(user.id, fake.dm_channel(user).id)
        record = await host.create_match(
            GAME,
            guild_id=fake.world.guild.id,
            channel_id=channel.id,
            players=[user.id for user in seats],
            config={"rounds": 1},
            window_s=60,
            seed=n,
        )
        await host.start_match(record.id)
        players[record.id] = record.players
    await host.wait_idle()
    await host.close()
    return players


async def restart(db: Path) -> tuple[FakeDiscord, dict[int, tuple[int, ...]], dict[int, float]]:
    """The matches, the stop, an hour, the start; when each match's reopened window closed
    (on the fake's clock)."""
    fake = FakeDiscord()
    fake.build_world()
    fake.global_limit = 50
    await fake.start()
    try:
        players = await live_matches(db, fake)
        with point_discord_py_at(fake):
            return fake, players, await after_downtime(db, fake, players)
    finally:
        await fake.stop()


async def no_picture(delivery: Delivery) -> None:
    return None


async def after_downtime(
    db: Path, fake: FakeDiscord, players: dict[int, tuple[int, ...]]
) -> dict[int, float]:
    loop = asyncio.get_running_loop()
    clock = virtual_time.epoch_clock(EPOCH + DOWNTIME_S)
    client = discord.Client(intents=discord.Intents.none())
    await client.login(fake.token)
    pace(client, LocalBudget())
    store = await open_store(db)
    # without pictures: 1,000 end cards are 30 s of drawing on the CPU, and none is looked at here
    transport = DiscordTransport(client, prompt_view, lambda delivery: None, pictures=no_picture)
    host = Host(
        store,
        transport,
        clock=clock,
        timers=virtual_time.LoopTimers(clock),
        grace_s=GRACE_S,
        delivery_batch=64,
    )
    client.host = host  # type: ignore[attr-defined]  # the transport finds the store there
    await host.start()
    await asyncio.gather(*(host.wait_over(match_id) for match_id in players))
    await host.wait_idle()  # the posts too
    records = {match_id: await store.get_match(match_id) for match_id in players}
    closed = {  # on the fake's clock
        match_id: record.ended_at - clock() + loop.time()
        for match_id, record in records.items()
        if record is not None and record.ended_at is not None
    }
    await host.close()
    await client.close()
    return closed


def sent_at(fake: FakeDiscord, *texts: str) -> dict[int, float]:
    """When the message holding ``texts`` was posted, by channel (one a channel)."""
    found: dict[int, float] = {}
    for request in fake.requests_matching("POST /channels/{channel_id}/messages"):
        content = str((request.body or {}).get("content"))
        if request.status == 200 and all(text in content for text in texts):
            channel = int(request.params["channel_id"])
            assert channel not in found, content
            found[channel] = request.time
    return found


def test_a_thousand_matches_restart_at_discords_pace_prompts_first_with_fair_graces(
    tmp_path: Path,
) -> None:
    fake, players, closed = virtual_time.run(restart(tmp_path / "host.db"))
    assert fake.global_limited == 0 and fake.max_requests_per_second() <= 50
    prompts = sent_at(fake, "The host restarted", ":R>")  # the prompt and its countdown
    notices = sent_at(fake, "The host restarted")
    dm_of = {user: channel.id for user, channel in fake.dm_channels.items()}
    reopened = [prompts[dm_of[user]] for seats in players.values() for user in seats]
    public = [at for channel, at in notices.items() if channel not in dm_of.values()]
    assert len(reopened) == 2 * MATCHES and len(public) == MATCHES
    assert max(reopened) - min(reopened) > 2 * GRACE_S  # the backlog outlasts the grace
    assert max(reopened) < min(public)  # every prompt before any post
    for match_id, seats in players.items():  # the grace from the later of its two prompts
        last_prompt = max(prompts[dm_of[user]] for user in seats)
        # (a prompt within the allowance of its commit keeps its deadline, as always)
        assert closed[match_id] >= last_prompt + GRACE_S - LATE_ALLOWANCE_S, match_id
