"""End to end: the Rematch button of an end post sets the same match up again, once."""

from __future__ import annotations

from .fake_discord import FakeDiscord, World
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
