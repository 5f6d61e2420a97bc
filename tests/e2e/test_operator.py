"""End to end, what an operator sees: ``/about`` (version, uptime, matches hosted), the invite
URL's permissions (Embed Links among them: every match post carries a card), and a warning at
start naming each permission the bot lacks in a channel where a match is under way."""

from __future__ import annotations

import re

from bot import version

from .fake_discord import FakeDiscord, World
from .fake_discord.base import Perm
from .test_floral_host import LaunchBot, moderator, start_bot


async def test_about_says_the_version_the_uptime_and_the_matches_hosted(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    options = {"player1": world.alice, "player2": world.bob}
    await (await fake.slash(world.mod, "brew setup", options, channel=world.channel)).reply()
    reply = await (await fake.slash(world.alice, "about", {}, channel=world.channel)).reply()
    assert reply.ephemeral
    assert f"floral-host {version()}" in reply.content
    assert re.search(r"Up for \d+ min; 1 match under way, 1 hosted in all\.", reply.content)


async def test_the_invite_asks_for_embed_links_and_threads_when_used(
    fake: FakeDiscord, launch_bot: LaunchBot
) -> None:
    plain = await start_bot(launch_bot)
    threads = await start_bot(launch_bot, FLORAL_THREADS="true")
    for bot, permissions in ((plain, 52224), (threads, 309237697536)):
        (invite,) = [line.text for line in bot.lines if "invite URL" in line.text]
        assert invite.endswith(f"&scope=bot+applications.commands&permissions={permissions}")
    assert 52224 & Perm.EMBED_LINKS


async def test_a_missing_permission_in_a_match_channel_is_named_at_start(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    bot = await start_bot(launch_bot)
    options = {"player1": world.alice, "player2": world.bob, "window": 600}
    await (await fake.slash(world.mod, "brew setup", options, channel=world.channel)).reply()
    assert "started" in await moderator(fake, world, "brew start", match="m1")
    await bot.kill()
    fake.set_overwrite(world.channel, fake.bot_user, deny=Perm.EMBED_LINKS | Perm.ATTACH_FILES)
    await bot.start()
    line = await bot.wait_for_log("missing permissions")
    assert f"#{world.channel.name} ({world.channel.id})" in line
    assert line.endswith("Embed Links, Attach Files")
