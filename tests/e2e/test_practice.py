"""End to end: ``/practice`` through the real bot process and the fake Discord: a player alone
plays a whole match against the AI in their DMs, with no moderator."""

from __future__ import annotations

from .fake_discord import FakeDiscord, World
from .test_protocol_v2 import LaunchBot, click, prompt_to, start_toybot

TOY = "tests.bot.toy_game"


async def test_a_practice_match_against_the_ai_to_its_end(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot)
    options = {"game": TOY, "opponents": 2}
    ix = await fake.slash(world.alice, "practice", options, channel=world.channel)
    reply = await ix.reply()
    assert reply.ephemeral and "Practice match m1 of Toy Guess against 2 AI" in reply.content
    again = await (await fake.slash(world.alice, "practice", {"game": TOY})).reply()
    assert "already have a practice match, m1" in again.content
    for round_ in (1, 2, 3):
        prompt = await prompt_to(fake, world.alice, f"Round {round_}: guess the hidden number")
        assert "locked" in await click(fake, world.alice, prompt, "4")
    over = await fake.wait_for_message(
        lambda m: "Game over" in m.content, to=world.alice, timeout=20
    )
    assert "P1 4" in over.content and "P3 " in over.content  # the AI players played each round
    assert not fake.messages_in(world.channel)[1:]  # nothing of it in the server's channel
    assert not fake.messages_in(world.mod_log)
