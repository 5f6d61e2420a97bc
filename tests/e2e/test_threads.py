"""End to end: with ``FLORAL_THREADS``, a match's first post stays in the channel and starts a
thread there, where every later post of the match goes, across a restart too. A thread that is
deleted, or that Discord refuses to start, leaves the match in its channel, said once."""

from __future__ import annotations

from .fake_discord import FakeDiscord, Message, Perm, World
from .test_floral_host import LaunchBot, moderator, start_bot

START_THREAD = "POST /channels/{channel_id}/messages/{message_id}/threads"


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


async def brew_match_in_a_thread(fake: FakeDiscord, world: World, window: int = 3) -> Message:
    """A Warlock's Brew match of Alice and Bob, started: its start post."""
    options = {"player1": world.alice, "player2": world.bob, "window": window}
    await (await fake.slash(world.mod, "brew setup", options, channel=world.channel)).reply()
    assert "started" in await moderator(fake, world, "brew start", match="m1")
    return await fake.wait_for_message(
        lambda m: "It starts now" in m.content, channel=world.channel
    )


async def test_a_deleted_thread_sends_the_match_back_to_its_channel_and_says_so(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot, FLORAL_THREADS="true")
    start = await brew_match_in_a_thread(fake, world)
    thread = await fake.wait_until(lambda: fake.threads.thread_of(start.id), what="the thread")
    await fake.wait_for_message(lambda m: "Auction 1," in m.content, channel=thread, timeout=15)
    await fake.threads.delete(thread)  # a moderator deletes it
    told = await fake.wait_for_message(
        lambda m: "thread of match m1 is gone" in m.content, channel=world.channel, timeout=15
    )
    assert told.content == (
        "⚠ The thread of match m1 is gone (404 Unknown Channel): its posts come here from now on."
    )
    await fake.wait_for_message(lambda m: "Auction" in m.content, channel=world.channel, after=told)
    assert "ended" in (await moderator(fake, world, "match end", match="m1")).lower()
    end = await fake.wait_for_message(
        lambda m: "Game over" in m.content, channel=world.channel, after=told
    )
    assert end.custom_ids() == ["fr:1"]  # the end post and its Rematch button reach the players
    await fake.settle()
    gone = [m for m in fake.messages_in(world.channel) if "is gone" in m.content]
    assert len(gone) == 1  # said once


async def test_a_refused_thread_is_asked_for_once_and_the_moderators_told_why(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """The bot may not create threads in the channel: the first post asks once, Discord says
    403 Missing Permissions, and every post of the match stays in the channel; the moderator
    log says why. /match status in the channel finds the match."""
    fake.set_overwrite(world.channel, fake.bot_user, deny=Perm.CREATE_PUBLIC_THREADS)
    bot = await start_bot(launch_bot, FLORAL_THREADS="true")
    await brew_match_in_a_thread(fake, world)
    told = await fake.wait_for_message(
        lambda m: "cannot start a thread" in m.content, channel=world.mod_log
    )
    assert told.content.startswith(
        f"⚠ I cannot start a thread for match m1 in <#{world.channel.id}>: Discord refused"
        " (403 Missing Permissions). Its posts stay in the channel."
    )
    for auction in ("Auction 1,", "Auction 2,"):
        await fake.wait_for_message(
            lambda m, a=auction: a in m.content, channel=world.channel, timeout=15
        )
    await bot.restart()  # decided once: a restart does not ask again
    await bot.wait_for_log("floral-host ready")
    await fake.wait_for_message(
        lambda m: "Auction 3," in m.content, channel=world.channel, timeout=15
    )
    assert len(fake.requests_matching(START_THREAD)) == 1
    assert "m1" in await moderator(fake, world, "match status")


async def test_match_status_in_a_matchs_thread_finds_that_match(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot, FLORAL_THREADS="true")
    start = await brew_match_in_a_thread(fake, world, window=60)
    thread = await fake.wait_until(lambda: fake.threads.thread_of(start.id), what="the thread")
    ix = await fake.slash(world.alice, "match status", {}, channel=thread)
    status = await ix.reply()
    assert status.ephemeral and status.content.startswith("**Match m1** · Warlock's Brew"), status
