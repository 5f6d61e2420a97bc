"""End to end, the messages people read, through the real bot (with the tests' toy game) and
the strict fake Discord: a prompt says its deadline once, a reminder is one line and the
prompt's own buttons still answer after it."""

from __future__ import annotations

import re
import sys

from .botproc import BotProcess
from .fake_discord import FakeDiscord, World
from .test_protocol_v2 import (
    COUNTDOWN,
    LaunchBot,
    click,
    prompt_to,
    public_post,
    start,
    toy_match,
)


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


async def test_the_seats_card_rides_on_turn_posts_and_a_mid_turn_post_is_text_alone(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot)
    config = {"rounds": 1, "actions": 2}  # one round (turn) of two windows
    match = await toy_match(fake, world, [world.alice, world.bob], config, window=30)
    await start(fake, world, match)
    post = await public_post(fake, world, "It starts now")
    (card,) = post.embeds
    fields = [(f["name"], f["value"]) for f in card["fields"]]
    assert fields[:2] == [("Alice", "P1 · 0 points"), ("Bob", "P2 · 0 points")], fields
    assert fields[2][0] == "⏳ Closes" and card["footer"]["text"] == f"Toy Guess · match m{match}"
    for action in (1, 2):
        for user in (world.alice, world.bob):
            prompt = await prompt_to(fake, user, f"(action {action} of 2)")
            assert "locked" in await click(fake, user, prompt, "3")
    mid_turn = await public_post(fake, world, "action 1 of 2 done")
    assert not mid_turn.embeds and not mid_turn.components  # text alone
    end = await public_post(fake, world, "Game over")
    values = [f["value"] for f in end.embeds[0]["fields"]]
    assert values == ["P1 · 1 point · 🏆 wins", "P2 · 1 point · 🏆 wins"], values
