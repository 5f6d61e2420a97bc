"""End to end: the Rematch button of an end post sets the same match up again, once, and only
with players still in the server."""

from __future__ import annotations

import asyncio

from .fake_discord import FakeDiscord, Message, World
from .test_floral_host import LaunchBot, moderator, start_bot


async def test_a_rematch_from_the_end_post(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    options = {"player1": world.alice, "player2": world.bob, "window": 30}
    await (await fake.slash(world.mod, "brew setup", options, channel=world.channel)).reply()
    assert "started" in await moderator(fake, world, "brew start", match="m1")
    assert "ended" in (await moderator(fake, world, "match end", match="m1")).lower()
    end = await fake.wait_for_message(
        lambda m: any(c.startswith("fr:") for c in m.custom_ids()), channel=world.channel
    )
    assert end.custom_ids() == ["fr:1"]

    refused = await (await fake.click(world.carol, end, "fr:1")).reply()  # not a player
    assert refused.ephemeral and "Only the match's players or a moderator" in refused.content
    await fake.click(world.alice, end, "fr:1")
    set_up = await fake.wait_for_message(
        lambda m: "Rematch of m1" in m.content, channel=world.channel
    )
    assert "Match m2 is set up" in set_up.content and "`/brew start match:m2`" in set_up.content
    assert not end.custom_ids()  # one rematch per match
    assert "started" in await moderator(fake, world, "brew start", match="m2")
    await fake.wait_for_message(
        lambda m: "Match 2" in m.content and "It starts now" in m.content, channel=world.channel
    )


async def ended_match(fake: FakeDiscord, world: World) -> Message:
    """A Warlock's Brew match of Alice and Bob, ended by a moderator: its end post."""
    options = {"player1": world.alice, "player2": world.bob, "window": 30}
    await (await fake.slash(world.mod, "brew setup", options, channel=world.channel)).reply()
    assert "started" in await moderator(fake, world, "brew start", match="m1")
    assert "ended" in (await moderator(fake, world, "match end", match="m1")).lower()
    return await fake.wait_for_message(lambda m: "fr:1" in m.custom_ids(), channel=world.channel)


async def test_two_presses_of_rematch_at_once_set_up_one_rematch(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    end = await ended_match(fake, world)
    presses = await asyncio.gather(
        fake.click(world.alice, end, "fr:1"), fake.click(world.bob, end, "fr:1")
    )
    answers = sorted([(await ix.reply()).content for ix in presses])
    assert answers == ["✖ Match m1 already has its rematch, m2.", "🔁 Match m2 is set up."]
    await fake.wait_for_message(lambda m: "Rematch of m1" in m.content, channel=world.channel)
    await fake.settle()
    assert not end.custom_ids()
    listed = await moderator(fake, world, "match list")
    assert "m2:" in listed and "m3" not in listed


async def test_a_rematch_is_recorded_a_press_after_a_restart_is_refused(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """The end post could not be edited (its button stays): pressed again after a restart,
    it is refused by what the database recorded, and then it goes."""
    bot = await start_bot(launch_bot)
    end = await ended_match(fake, world)
    edit = "PATCH /channels/{channel_id}/messages/{message_id}"
    fake.fail(edit, status=403, code=50001, message="Missing Access", where={"message_id": end})
    first = await (await fake.click(world.alice, end, "fr:1")).reply()
    assert first.content == "🔁 Match m2 is set up." and end.custom_ids() == ["fr:1"]
    await bot.restart()
    await bot.wait_for_log("floral-host ready")
    again = await (await fake.click(world.bob, end, "fr:1")).reply()
    assert again.content == "✖ Match m1 already has its rematch, m2."
    await fake.settle()
    assert not end.custom_ids()
    assert "m3" not in await moderator(fake, world, "match list")


async def test_a_rematch_with_a_player_who_left_the_server_is_refused_naming_them(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    end = await ended_match(fake, world)
    await fake.remove_member(world.guild, world.bob)
    refused = await (await fake.click(world.alice, end, "fr:1")).reply()
    assert refused.ephemeral and refused.content == (
        "✖ Bob has left the server: no rematch without them. Set a new match up instead."
    )
    assert end.custom_ids() == ["fr:1"]  # the others may come back: the button stays
    listed = await moderator(fake, world, "match list")
    assert "m2" not in listed
