"""End to end: with ``FLORAL_THREADS``, a match's first post stays in the channel and starts a
thread there, where every later post of the match goes, across a restart too."""

from __future__ import annotations

from .fake_discord import FakeDiscord, World
from .test_floral_host import LaunchBot, moderator, start_bot


async def test_a_matchs_posts_go_to_its_thread(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    bot = await start_bot(launch_bot, FLORAL_THREADS="true")
    options = {"player1": world.alice, "player2": world.bob, "window": 3}
    await (await fake.slash(world.mod, "brew setup", options, channel=world.channel)).reply()
    assert "started" in await moderator(fake, world, "brew start", match="m1")
    start = await fake.wait_for_message(
        lambda m: "It starts now" in m.content, channel=world.channel
    )
    thread = await fake.wait_until(lambda: fake.threads.thread_of(start.id), what="the thread")
    assert thread.name == "Match m1: Warlock's Brew" and thread.parent_id == world.channel.id
    # nobody bids: the windows time out, and each auction's post goes to the thread
    await fake.wait_for_message(lambda m: "Auction 1," in m.content, channel=thread, timeout=15)
    await bot.restart()
    await bot.wait_for_log("floral-host ready")
    await fake.wait_for_message(lambda m: "Auction 2," in m.content, channel=thread, timeout=15)
    in_channel = [m.content for m in fake.messages_in(world.channel)]
    assert not any("Auction 1," in text or "Auction 2," in text for text in in_channel)
