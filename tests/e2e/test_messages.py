"""End to end, the messages people read, through the real bot (with the tests' toy game) and
the strict fake Discord: a prompt says its deadline once, a reminder is one line and the
prompt's own buttons still answer after it."""

from __future__ import annotations

import re
import sys

from .botproc import BotProcess
from .fake_discord import FakeDiscord, World
from .test_protocol_v2 import COUNTDOWN, LaunchBot, click, prompt_to, start, toy_match


async def start_toybot(launch_bot: LaunchBot, **env: str) -> BotProcess:
    bot = await launch_bot(
        argv=[sys.executable, "-m", "tests.e2e.toybot"],
        env={"FLORAL_GUILD_READY_TIMEOUT": "0.1", **env},
    )
    await bot.wait_for_log("floral-host ready")
    return bot


async def test_a_prompt_says_its_deadline_once_and_a_reminder_is_one_line(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot, FLORAL_REMINDER_SECONDS="2")
    match = await toy_match(fake, world, [world.alice, world.bob], {"rounds": 1}, window=8)
    await start(fake, world, match)
    prompt = await prompt_to(fake, world.alice, "guess the hidden number")
    seen = prompt.text()  # the content, its embeds and its buttons
    assert len(COUNTDOWN.findall(seen)) == 1 and seen.count("⏳") == 1, seen
    assert prompt.content.splitlines()[-1].startswith("⏳ Answer <t:")
    assert "Answer within" not in seen and "⌛" not in seen and not prompt.embeds
    assert "Choices:" not in seen  # the buttons show them
    reminder = await fake.wait_for_message(
        lambda m: m.content.startswith("⏰"), to=world.alice, timeout=10
    )
    assert re.fullmatch(rf"⏰ \d\.\d s left to answer in match {match}\.", reminder.content)
    assert not reminder.custom_ids() and not reminder.embeds
    ack = await click(fake, world.alice, prompt, "4")  # the prompt still answers
    assert ack == f"✅ You guess 4 — locked (match {match}).", ack  # what it accepted
