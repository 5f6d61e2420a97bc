"""Two ``floral-host run`` processes on one PostgreSQL (issue 22), against the fake Discord
sharding as Discord does: shards 0/2 and 1/2, a Floral Extract match in a guild on shard 1
whose DM answers (buttons and typed) arrive on shard 0 and are handed to the match's owner.

One match, played to the end, covers: a third process with an overlapping range refused in one
line naming the holder; kill -9 of the owner mid-window, a standby taking its shard over once
its lease expires (an answer pressed while nobody hosted the match is acknowledged once the
standby has it); kill -9 of the shard-0 process mid-window and its replacement (same range)
waiting for the dead one's lease. Nothing acknowledged is lost, nothing is posted twice."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.store.common import INBOUND_TABLE
from tests import postgres

from .botproc import BotProcess
from .conftest import LaunchBot
from .fake_discord import Channel, FakeDiscord, Message, Perm, World
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
from .test_protocol_v2 import choice_ids, prompt_to, start, toy_match

DISCORD_GLOBAL_LIMIT = 50
LEASE_S = "1"  # a dead process's shards are free after a second (renewed every third)
# with a standby waiting: a live process loses its shards only if frozen a whole second
STANDBY_LEASE_S = "1.5"


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
    """A database of its own; a test takes it before ``launch_bot``, so its processes are
    stopped before it is dropped (dropping it ends their connections: errors)."""
    url = postgres.new_database()
    yield url
    postgres.drop_database(url)


def run(*args: str) -> list[str]:
    return [sys.executable, "-m", "bot", "run", *args]


def toybot(*args: str) -> list[str]:
    """``run`` with the toy game (``tests.e2e.toybot``)."""
    return [sys.executable, "-m", "tests.e2e.toybot", *args]


async def launch_shard(
    launch_bot: LaunchBot,
    database: str,
    name: str,
    *args: str,
    ready: bool = True,
    argv: list[str] | None = None,
    env: dict[str, str] | None = None,
    dies: bool = False,
) -> BotProcess:
    env = {**BOT_ENV, "FLORAL_DB": database, "FLORAL_LEASE_SECONDS": LEASE_S, **(env or {})}
    bot = await launch_bot(
        argv or run(*args), env=env, name=name, wait_ready=ready, timeout=30, expect_exit=dies
    )
    if ready:
        await bot.wait_for_log("floral-host ready", timeout=30)
    return bot


async def attempts_of(database: str, match_id: int, user_id: int) -> list[str]:
    connection = await asyncpg.connect(database)
    try:
        rows = await connection.fetch(
            "SELECT raw FROM attempts WHERE match_id = $1 AND user_id = $2 ORDER BY id",
            match_id,
            user_id,
        )
    finally:
        await connection.close()
    return [row[0] for row in rows]


async def names_of(database: str, match_id: int) -> list[str]:
    connection = await asyncpg.connect(database)
    try:
        names = await connection.fetchval("SELECT names FROM matches WHERE id = $1", match_id)
    finally:
        await connection.close()
    return list(json.loads(names))


async def all_handed_over(database: str) -> None:
    """Every DM handed over is done (its inbound row deleted)."""
    connection = await asyncpg.connect(database)
    try:
        async with asyncio.timeout(30):
            while await connection.fetchval(f"SELECT count(*) FROM {INBOUND_TABLE}"):
                await asyncio.sleep(0.05)
    finally:
        await connection.close()


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
    fake: FakeDiscord, world: World, database: str, launch_bot: LaunchBot
) -> None:
    lease = {"FLORAL_LEASE_SECONDS": STANDBY_LEASE_S}
    zero, one = await asyncio.gather(
        launch_shard(
            launch_bot, database, "zero", "--shards", "0", "--shard-count", "2", env=lease
        ),
        launch_shard(launch_bot, database, "one", "--shards", "1", "--shard-count", "2", env=lease),
    )
    overlapping, match = await asyncio.gather(
        launch_bot(
            run("--shards", "0-1", "--shard-count", "2"),
            env={"FLORAL_DB": database},
            name="overlapping",
            expect_exit=True,
            wait_ready=False,
        ),
        setup_match(fake, world, window=60),
    )
    assert await overlapping.wait_exit() == 1
    refusal = [line.text for line in overlapping.lines if line.stream == "stderr"]
    assert len(refusal) == 1, refusal
    assert "shard 0 of 2 is held by floral-host run --shards 0/2 (pid" in refusal[0], refusal

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
        launch_bot, database, "standby", "--standby", "--shard-count", "2", ready=False, env=lease
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


def guild_on_shard_0(fake: FakeDiscord, world: World) -> Channel:
    """A second server, on shard 0, where the moderator runs matches Alice and Carol play."""
    guild = fake.add_guild("Zero Test", world.owner, shard=(0, 2))
    channel = fake.add_channel(guild, "floral")
    fake.add_member(guild, world.mod, [fake.add_role(guild, "Moderator", Perm.MANAGE_GUILD)])
    for player in (world.alice, world.carol):
        fake.add_member(guild, player)
    return channel


async def test_dms_reach_their_match_across_processes_even_through_crashes(
    fake: FakeDiscord, world: World, database: str, launch_bot: LaunchBot
) -> None:
    """Toy matches m1 (Alice and Bob, 0-9) on shard 1 and m2 (Alice and Carol, 0-3) on shard
    0. Bob's button press is handed to m1's process, which dies (SIGKILL) right after claiming
    it. Alice's typed 7, which reaches shard 0's process, goes to the match whose game takes
    it (m1). m1's next process commits both and answers both, then dies before it is done: the
    one after it answers neither again and commits nothing twice. Alice's typed DMs go to the
    match whose game takes them (m1's process answers for m1), else one menu asks which; a DM
    /submit that neither takes names both reasons. A practice started in a server on shard 1
    is shard 0's, names Bob as that server does, and is left from there."""
    zero_channel = guild_on_shard_0(fake, world)
    shard_0, shard_1 = ("--shards", "0"), ("--shards", "1")
    count = ("--shard-count", "2")
    zero, one = await asyncio.gather(
        launch_shard(launch_bot, database, "zero", argv=toybot(*shard_0, *count)),
        launch_shard(
            launch_bot,
            database,
            "one",
            argv=toybot(*shard_1, *count),
            env={"TOYBOT_DIE_AFTER_CLAIM": "1"},
            dies=True,
        ),
    )
    m1 = await toy_match(fake, world, [world.alice, world.bob], {"max": 9}, window=120)
    await start(fake, world, m1)
    m2 = await toy_match(fake, world, [world.alice, world.carol], {"max": 3}, zero_channel)
    await start(fake, world, m2, zero_channel)

    prompt = await prompt_to(fake, world.bob, "Round 1: guess the hidden number")
    # both of Alice's prompts before one dies: it may not have sent her m1 prompt yet
    await prompt_to(fake, world.alice, "Round 1: guess", seen=1)
    ix = await fake.click(world.bob, prompt, choice_ids(prompt)["4"])
    assert await ix.response() == 5  # deferred by zero, handed to one
    assert await one.wait_exit() == -9  # it claimed the press, then was killed
    assert await attempts_of(database, m1, world.bob.id) == []
    mark = fake.mark()
    await fake.dm_text(world.alice, "7")  # only m1 takes a 7: handed over, waiting for a host
    again = await launch_shard(
        launch_bot,
        database,
        "one again",
        argv=toybot(*shard_1, *count),
        env={"TOYBOT_DIE_BEFORE_DONE": "2"},
        ready=False,
        dies=True,
    )
    assert await again.wait_exit(timeout=30) == -9  # it answered both, then was killed
    reply = await ix.reply()
    assert reply.ephemeral and reply.content.startswith("✅ "), reply.content
    await launch_shard(launch_bot, database, "one third", argv=toybot(*shard_1, *count))
    await all_handed_over(database)
    await fake.settle()
    assert [m.content for m in ix.followups] == [reply.content]  # answered once
    assert await attempts_of(database, m1, world.bob.id) == ["4"]  # committed once
    acks = [m.content for m in fake.dms_to(world.alice) if m.seq > mark and "✅" in m.content]
    assert len(acks) == 1, acks  # its second reply dropped (the nonce)
    acknowledged, label = acks[0].split("\n")[:2]
    assert acknowledged.startswith("✅ ") and label == f"↳ m{m1} · Toy Guess", acks
    await prompt_to(fake, world.alice, "Round 2: guess")  # m1 resolved its first round
    assert await attempts_of(database, m1, world.alice.id) == ["7"]  # not for round 2 too
    mark = fake.mark()
    await fake.dm_text(world.alice, "2")  # either takes a 2: zero asks which
    which = await fake.wait_for_message(lambda m: "which one" in m.content, to=world.alice)
    assert which.seq > mark
    labels = {which.component(c)["label"]: c for c in which.custom_ids()}
    assert set(labels) == {f"m{m1} · Toy Guess", f"m{m2} · Toy Guess"}, labels
    chosen = await (await fake.click(world.alice, which, labels[f"m{m1} · Toy Guess"])).reply()
    assert chosen.content.startswith("✅ ") and "2" in chosen.content, chosen.content
    assert await attempts_of(database, m1, world.alice.id) == ["7", "2"]
    ix = await fake.slash(world.alice, "submit", {"value": "x"})
    refused = (await ix.reply()).content
    assert refused.startswith(f"✖ That answers none of your prompts:\n• m{m1} · Toy Guess: ")
    assert f"\n• m{m2} · Toy Guess: " in refused, refused

    # a practice started in a server of shard 1 is shard 0's: one hands the command to zero
    world.guild.nicks[world.bob.id] = "Bobby Tables"
    options = {"game": "tests.bot.toy_game", "opponents": 1}
    ix = await fake.slash(world.bob, "practice", options, channel=world.channel)
    assert await ix.response() == 5
    started = (await ix.reply(timeout=10)).content
    assert "has started in your DMs" in started, started
    practice = int(started.split("Practice match m")[1].split()[0])
    assert (await names_of(database, practice))[0] == "Bobby Tables"  # as the server names him
    prompt = await prompt_to(fake, world.bob, "Round 1: guess", seen=1)
    assert (
        await (await fake.click(world.bob, prompt, choice_ids(prompt)["1"])).reply()
    ).content.startswith("✅ ")
    # and left from there: one hands /match leave to zero, which hosts the practice
    named = {"match": f"m{practice}"}
    ix = await fake.slash(world.bob, "match leave", named, channel=world.channel)
    assert (await ix.reply(timeout=10)).content == f"You left match m{practice} (finished)."
    assert zero.running
