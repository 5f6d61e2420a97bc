"""Two ``floral-host run`` processes on one PostgreSQL (issue 22), against the fake Discord
sharding as Discord does: shards 0/2 and 1/2, a Floral Extract match in a guild on shard 1
whose DM answers (buttons and typed) arrive on shard 0 and are handed to the match's owner.

One match, played to the end, covers: a third process with an overlapping range refused in one
line naming the holder; kill -9 of the owner mid-window, a standby taking its shard over once
its lease expires (an answer pressed while nobody hosted the match is acknowledged once the
standby has it); kill -9 of the shard-0 process mid-window and its replacement (same range)
waiting for the dead one's lease. Nothing acknowledged is lost, nothing is posted twice."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator

import pytest

from tests import postgres

from .botproc import BotProcess
from .conftest import LaunchBot
from .fake_discord import FakeDiscord, Message, World
from .test_floral_host import (
    BOT_ENV,
    buttons,
    click_value,
    end_post,
    next_prompts,
    prompt_after,
    reveal_and_start,
    setup_match,
    step_of,
    type_answer,
)

DISCORD_GLOBAL_LIMIT = 50
LEASE_S = "2"  # a dead process's shards are free after two seconds


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """The match's guild is on shard 1 of 2."""
    server = FakeDiscord()
    server.global_limit = DISCORD_GLOBAL_LIMIT
    server.build_world(shard=(1, 2))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
    server.assert_clean()


@pytest.fixture
def database() -> AsyncIterator[str]:
    url = postgres.new_database()
    yield url
    postgres.drop_database(url)


def run(*args: str) -> list[str]:
    return [sys.executable, "-m", "bot", "run", *args]


async def launch_shard(
    launch_bot: LaunchBot, database: str, name: str, *args: str, ready: bool = True
) -> BotProcess:
    env = {**BOT_ENV, "FLORAL_DB": database, "FLORAL_LEASE_SECONDS": LEASE_S}
    bot = await launch_bot(run(*args), env=env, name=name, wait_ready=ready, timeout=30)
    if ready:
        await bot.wait_for_log("floral-host ready", timeout=30)
    return bot


async def answered_later(fake: FakeDiscord, world: World, prompt: Message) -> str:
    """Bob presses a button while the match has no host: deferred at once, answered later."""
    step, value = buttons(prompt)[0]
    custom_id = next(c for c in prompt.custom_ids() if c.endswith(f":{step}:{value}"))
    ix = await fake.click(world.bob, prompt, custom_id)
    assert await ix.response() == 5  # shard 0's process deferred it within Discord's 3 s
    reply = await ix.reply(timeout=30)
    assert reply.ephemeral
    return reply.content


async def dm_submit(fake: FakeDiscord, world: World, value: str) -> str:
    """Bob's ``/submit`` in his DMs: a command on shard 0, answered by the match's process."""
    ix = await fake.slash(world.bob, "submit", {"value": value}, channel=None)
    assert await ix.response() == 5
    reply = await ix.reply()
    assert reply.ephemeral
    return reply.content


async def test_two_processes_play_a_match_through_kills_and_a_standby(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot, database: str
) -> None:
    zero = await launch_shard(launch_bot, database, "zero", "--shards", "0", "--shard-count", "2")
    one = await launch_shard(launch_bot, database, "one", "--shards", "1", "--shard-count", "2")
    overlapping = await launch_bot(
        run("--shards", "0-1", "--shard-count", "2"),
        env={"FLORAL_DB": database},
        name="overlapping",
        expect_exit=True,
    )
    assert await overlapping.wait_exit() == 1
    refusal = [line.text for line in overlapping.lines if line.stream == "stderr"]
    assert len(refusal) == 1, refusal
    assert "shard 0 of 2 is held by floral-host run --shards 0/2 (pid" in refusal[0], refusal

    match = await setup_match(fake, world, window=60)
    await reveal_and_start(fake, world, match)
    alice = await prompt_after(fake, world.alice, 0)
    bob = await prompt_after(fake, world.bob, 0)
    # window 1: a DM button and a typed DM, both on shard 0, committed by the owner
    ack = await click_value(fake, world.alice, alice, 2)
    assert ack == "✅ Plant Hyacinth in pot 1 — locked for the planting before turn 1.", ack
    assert (await type_answer(fake, world.bob, bob, 0)).startswith("✅ Plant Azalea")
    assert fake.interactions[-1].callback_type == 5  # deferred by zero, answered by one

    # window 2: the owner dies after Alice's answer; a standby takes its shard over
    pair = await next_prompts(fake, world, step_of(alice))
    assert pair is not None
    alice, bob = pair
    standby = await launch_shard(
        launch_bot, database, "standby", "--standby", "--shard-count", "2", ready=False
    )
    await standby.wait_for_log("no expired lease to take over", timeout=30)
    assert (await click_value(fake, world.alice, alice)).startswith("✅")
    await one.kill()
    assert (await answered_later(fake, world, bob)).startswith("✅")
    await standby.wait_for_log(r"hosting the matches of shards 1/2")

    # window 3: the shard-0 process dies after Alice's answer; its replacement waits its lease
    pair = await next_prompts(fake, world, step_of(alice), timeout=30)
    assert pair is not None
    alice, bob = pair
    assert (await click_value(fake, world.alice, alice)).startswith("✅")
    await zero.kill()
    await zero.start()
    await zero.wait_for_log("floral-host ready", timeout=30)
    assert (await type_answer(fake, world.bob, bob, 1)).startswith("✅")

    pair = await next_prompts(fake, world, step_of(alice), timeout=30)
    while pair is not None:
        alice, bob = pair
        assert (await click_value(fake, world.alice, alice)).startswith("✅")
        assert (await dm_submit(fake, world, buttons(bob)[1][1])).startswith("✅")
        pair = await next_prompts(fake, world, step_of(alice), timeout=30)
    end = await end_post(fake, world)
    assert "wins" in end.content
    public = [m.content for m in fake.messages_in(world.channel)]
    for turn in (1, 2, 3):  # each turn resolved and posted once, whoever hosted it
        assert sum(f"Turn {turn}: P1 cast" in text for text in public) == 1, public
    assert sum("Game over" in text for text in public) == 1
    for player in (world.alice, world.bob):
        maps = [m for m in fake.dms_to(player) if "Your secret rune map" in m.content]
        assert len(maps) == 1
    assert fake.global_limited == 0 and fake.max_requests_per_second() <= DISCORD_GLOBAL_LIMIT
