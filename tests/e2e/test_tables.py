"""End to end: an open table filled by two Join presses, then started by a moderator, through
the real ``floral-host run`` and the fake Discord; a table left open a day expires."""

from __future__ import annotations

import sqlite3

from .fake_discord import FakeDiscord, Message, User, World
from .test_floral_host import LaunchBot, moderator, start_bot


async def press(fake: FakeDiscord, user: User, post: Message, action: str) -> str:
    """Press Join or Leave; the refusal's text, or "" when the table's post was updated."""
    custom_id = next(c for c in post.custom_ids() if c.startswith(f"ft:{action}:"))
    ix = await fake.click(user, post, custom_id)
    answer = await ix.reply()
    return answer.content if answer.ephemeral else ""


async def test_an_open_table_filled_by_two_joins_then_started(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    bot = await start_bot(launch_bot)
    options = {"game": "warlocks-brew"}
    ix = await fake.slash(world.carol, "table open", options, channel=world.channel)
    post = await ix.reply()
    assert not post.ephemeral and "**Table 1: Warlock's Brew**, 2 seats" in post.content
    assert await press(fake, world.alice, post, "join") == ""
    assert "1. Alice\n2. —" in post.content
    await bot.restart()  # the buttons outlive the process
    await bot.wait_for_log("floral-host ready")
    refused = await press(fake, world.bob, post, "leave")
    assert refused == "✖ You have no seat at this table." and "2. —" in post.content
    assert await press(fake, world.bob, post, "join") == ""
    assert "1. Alice\n2. Bob\nFull: match m1 is set up" in post.content and not post.custom_ids()
    assert "`/brew start match:m1`" in post.content
    set_up = await fake.wait_for_message(
        lambda m: "Match m1 is set up" in m.content, channel=world.channel
    )
    assert f"<@{world.alice.id}> and <@{world.bob.id}>" in set_up.content
    hello = await fake.wait_for_message(lambda m: "👋" in m.content, to=world.bob)
    tail = "against Alice. Your prompts will come here. It starts when a moderator starts it."
    assert hello.content.endswith(tail), hello.content
    assert "started" in await moderator(fake, world, "brew start", match="m1")
    await fake.wait_for_message(lambda m: "It starts now" in m.content, channel=world.channel)


async def test_with_the_setting_the_opener_starts_the_full_table(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot, FLORAL_OPENER_STARTS="true")
    options = {"game": "warlocks-brew"}
    ix = await fake.slash(world.carol, "table open", options, channel=world.channel)
    post = await ix.reply()
    for user in (world.alice, world.bob):
        assert await press(fake, user, post, "join") == ""
    assert "or its opener with **Start**" in post.content
    hello = await fake.wait_for_message(lambda m: "👋" in m.content, to=world.alice)
    assert hello.content.startswith("👋 You are Alice in match 1, Warlock's Brew, against Bob.")
    assert "It starts when the table's opener presses its Start button" in hello.content
    refused = await press(fake, world.alice, post, "start")  # a player, not the opener
    assert refused == "✖ Only the table's opener or a moderator can start its match."
    assert await press(fake, world.carol, post, "start") == ""
    assert not post.custom_ids()
    await fake.wait_for_message(lambda m: "It starts now" in m.content, channel=world.channel)


async def test_every_games_group_opens_a_table_of_that_game(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    for group in ("floral", "brew", "potion", "phoenix", "flasks"):
        assert fake.command(f"{group} open")["name"] == "open"  # synced for every game
    ix = await fake.slash(world.alice, "potion open", {"seats": 3}, channel=world.channel)
    post = await ix.reply()
    assert not post.ephemeral and "**Table 1: Potioncraft**, 3 seats" in post.content
    assert await press(fake, world.bob, post, "join") == ""
    assert "1. Bob\n2. —\n3. —" in post.content


async def test_a_table_not_full_after_a_day_expires_and_its_post_says_so(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """The bot was down when the table's day ran out: at start, its post is edited to say it
    expired, and its buttons go."""
    bot = await start_bot(launch_bot)
    ix = await fake.slash(
        world.carol, "table open", {"game": "warlocks-brew"}, channel=world.channel
    )
    post = await ix.reply()
    fresh = await (await fake.slash(world.bob, "brew open", {}, channel=world.channel)).reply()
    assert await press(fake, world.alice, post, "join") == ""
    await bot.terminate()
    with sqlite3.connect(bot.env["FLORAL_DB"]) as db:  # the first table opened 24 h ago
        db.execute("UPDATE tables SET created_at = created_at - 86400 WHERE id = 1")
    db.close()
    await bot.start()
    await fake.wait_until(lambda: "expired" in post.content, what="the post edited")
    assert "**Table 1: Warlock's Brew**" in post.content and "1. Alice\n2. —" in post.content
    assert post.content.endswith(
        "⌛ Table 1 has expired: its seats were not all taken within 24 hours."
        " Open a new one with `/table open`."
    )
    assert not post.custom_ids()
    assert "expired" not in fresh.content and fresh.custom_ids()  # the other table is open
    assert await press(fake, world.alice, fresh, "join") == ""
