"""``launch_bot`` / ``BotProcess`` run a bot subprocess against the fake (here: minibot.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .conftest import LaunchBot
from .fake_discord import FakeDiscord, FakeDiscordError, World

MINIBOT = [sys.executable, str(Path(__file__).with_name("minibot.py"))]


async def test_start_kill_restart_and_old_buttons(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    bot = await launch_bot(MINIBOT)
    await bot.wait_for_log(r"minibot ready")
    pong = await (await fake.slash(world.alice, "ping", channel=world.channel)).reply()
    assert pong.content == f"pong (pid {bot.pid})"
    post = await (await fake.slash(world.mod, "buttons", channel=world.channel)).reply()
    first_pid = bot.pid

    await bot.restart()  # SIGKILL, then start again and wait for the new IDENTIFY
    assert bot.starts == 2 and bot.pid != first_pid and fake.identifies == 2
    tapped = await (await fake.click(world.carol, post, "mini:tap:7")).reply()
    assert tapped.content == f"tapped 7 (pid {bot.pid})" and tapped.ephemeral
    assert (await fake.slash(world.bob, "ping")).user is world.bob  # global command, in DMs
    await fake.drop_gateway()  # the subprocess resumes its session too
    await fake.wait_for_resume()
    assert (await (await fake.slash(world.bob, "ping")).reply()).content.startswith("pong")
    assert fake.syncs == 2 and fake.identifies == 2 and bot.errors == []


async def test_error_lines_are_failures(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    bot = await launch_bot(MINIBOT)
    await (await fake.slash(world.alice, "boom", channel=world.channel)).reply()
    line = await bot.wait_for_log(r"boom requested")
    assert "ERROR" in line and bot.errors == [line]
    bot.allow_errors(r"boom requested")  # an expected error: excused, the test passes
    assert bot.errors == []


async def test_unexpected_exit_aborts_waits(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    bot = await launch_bot(MINIBOT)
    ix = await fake.slash(world.alice, "die", channel=world.channel)
    with pytest.raises(FakeDiscordError, match="exited unexpectedly with 3"):
        await ix.reply(timeout=10)
    assert bot.returncode == 3
    (failure,) = fake.take_failures()
    assert "exited unexpectedly" in failure


async def test_bad_token_exits(fake: FakeDiscord, launch_bot: LaunchBot) -> None:
    bot = await launch_bot(
        MINIBOT, env={"DISCORD_TOKEN": "wrong"}, wait_ready=False, expect_exit=True
    )
    assert await bot.wait_exit() != 0
    assert "LoginFailure: Improper token" in bot.output()
    assert bot.take_errors() == ["Traceback (most recent call last):"] * 2
    assert fake.take_failures() == ["GET /users/@me: missing or wrong Authorization header"]
