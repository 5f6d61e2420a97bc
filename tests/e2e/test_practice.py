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
    levels = await fake.autocomplete(
        world.alice, "practice", {"game": TOY, "level": ""}, focused="level"
    )
    assert [(c["value"], c["name"]) for c in levels] == [
        ("easy", "easy: random-ish: legal moves with a little sense"),
        ("normal", "normal: a fair fight for someone who knows the rules (the default)"),
        ("hard", "hard: the strongest AI"),
    ]
    options = {"game": TOY, "opponents": 2}
    ix = await fake.slash(world.alice, "practice", options, channel=world.channel)
    reply = await ix.reply()
    assert reply.ephemeral and "Practice match m1 of Toy Guess against 2 AI" in reply.content
    assert "AI players (normal)" in reply.content  # the default level
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


async def test_a_practice_over_a_slow_connection_tells_results_before_the_next_prompt(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """In a practice the match's posts and the player's prompts share their DM channel: they
    arrive in the order they happened, and the first prompt, which waits behind the hello and
    the start post (each 2 s on this connection), is not called late."""
    await start_toybot(launch_bot)
    fake.slow("POST /channels/{channel_id}/messages", 2.1, channel=fake.dm_channel(world.alice))
    options = {"game": TOY, "opponents": 1, "level": "easy"}
    ix = await fake.slash(world.alice, "practice", options, channel=world.channel)
    assert "against 1 AI player (easy)" in (await ix.reply(timeout=15)).content
    first = await prompt_to(fake, world.alice, "Round 1: guess the hidden number", timeout=30)
    assert "late" not in first.content, first.content
    assert "locked" in await click(fake, world.alice, first, "4")
    await prompt_to(fake, world.alice, "Round 2: guess the hidden number", timeout=30)
    texts = [m.content for m in fake.dms_to(world.alice)]
    starts = ("👋", "▶ Match", "🃏", "✅", "Round 1: target", "You played 4.\nRound 2: guess")
    found = [[n for n, text in enumerate(texts) if text.startswith(s)] for s in starts]
    assert [len(at) for at in found] == [1] * len(starts), texts
    assert [at[0] for at in found] == sorted(at[0] for at in found), texts  # in order
    assert "It starts at once." in texts[0]
    assert not [text for text in texts if "reached you" in text]
