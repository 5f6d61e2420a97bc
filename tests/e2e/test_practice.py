"""End to end: ``/practice`` through the real bot process and the fake Discord: a player alone
plays a whole match against the AI in their DMs, with no moderator."""

from __future__ import annotations

import asyncio

from .fake_discord import FakeDiscord, Message, World
from .players import type_text
from .test_protocol_v2 import LaunchBot, click, prompt_to, start, start_toybot, toy_match

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


async def practice_over(fake: FakeDiscord, world: World) -> Message:
    """Alice's one-round practice against one AI, played to its end: its end post."""
    options = {"game": TOY, "opponents": 1}
    ix = await fake.slash(world.alice, "practice", options, channel=world.channel)
    assert "has started in your DMs" in (await ix.reply()).content
    prompt = await prompt_to(fake, world.alice, "Round 1: guess the hidden number")
    assert "locked" in await click(fake, world.alice, prompt, "4")
    await fake.wait_for_message(lambda m: "Round 2: guess" in m.content, to=world.alice)
    assert "left match" in (await (await fake.slash(world.alice, "match end", {})).reply()).content
    return await fake.wait_for_message(lambda m: "Game over" in m.content, to=world.alice)


async def test_a_practice_is_left_from_a_server_and_played_again_from_its_end_post(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot)
    ix = await fake.slash(world.alice, "practice", {"game": TOY}, channel=world.channel)
    assert "Practice match m1" in (await ix.reply()).content
    await prompt_to(fake, world.alice, "Round 1: guess the hidden number")
    left = await (await fake.slash(world.alice, "match leave", {}, channel=world.channel)).reply()
    assert left.content == "You left match m1 (finished).", left.content  # from a server
    end = await fake.wait_for_message(lambda m: "Game over" in m.content, to=world.alice)
    assert end.custom_ids() == ["fp:1"]  # Practice again, never a Rematch that refuses
    assert end.component("fp:1")["label"] == "Practice again"
    presses = await asyncio.gather(*(fake.click(world.alice, end, "fp:1") for _ in range(2)))
    answers = [(await press.reply()).content for press in presses]
    assert "🎯 Practice match m2 has started: again, here." in answers, answers
    refused = next(answer for answer in answers if answer.startswith("✖"))
    assert "m2" in refused, answers  # already played again, or one practice at a time
    await fake.settle()
    assert not end.custom_ids()
    await prompt_to(fake, world.alice, "Round 1: guess the hidden number", seen=1)
    named = await fake.slash(world.alice, "match leave", {"match": "m2"}, channel=world.channel)
    assert (await named.reply()).content == "You left match m2 (finished)."


async def test_typed_answers_go_to_the_one_match_they_answer_or_ask_which(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """Alice plays a real match (numbers 0 to 3) and a practice (0 to 9) at once: a typed 2
    answers either, so one short menu asks which; 7 answers only the practice; a DM /submit
    routes the same way."""
    await start_toybot(launch_bot)
    real = await toy_match(fake, world, [world.alice, world.bob], {"max": 3}, window=120)
    await start(fake, world, real)
    await prompt_to(fake, world.alice, "Round 1: guess the hidden number")
    options = {"game": TOY, "opponents": 1}
    ix = await fake.slash(world.alice, "practice", options, channel=world.channel)
    assert "Practice match m2" in (await ix.reply()).content
    await prompt_to(fake, world.alice, "Round 1: guess the hidden number", seen=1)

    mark = fake.mark()
    await fake.dm_text(world.alice, "2")
    which = await fake.wait_for_message(lambda m: "which one" in m.content, to=world.alice)
    assert which.content == "Your answer '2' fits prompts in several matches: which one is it for?"
    assert which.seq > mark
    labels = {which.component(c)["label"]: c for c in which.custom_ids()}
    assert labels["m1 · Toy Guess"] == "fa:1:1:2" and len(labels) == 2, labels
    assert labels["m2 · Toy Guess (practice)"].startswith("fa:2:")
    chosen = await (await fake.click(world.alice, which, labels["m1 · Toy Guess"])).reply()
    assert chosen.content.startswith("✅") and "2" in chosen.content, chosen.content

    typed = await type_text(fake, world.alice, "7")  # only the practice takes a 7
    assert typed.startswith("✅") and typed.endswith("\n↳ m2 · Toy Guess (practice)"), typed
    ix = await fake.slash(world.alice, "submit", {"value": "9"})  # by DM: the practice's
    assert "\n↳ m2 · Toy Guess (practice)" in (await ix.reply()).content
    ix = await fake.slash(world.alice, "submit", {"value": "x"})
    refused = (await ix.reply()).content
    assert refused.startswith("✖ That answers none of your prompts:\n• m1 · Toy Guess: ")
    assert "\n• m2 · Toy Guess (practice): " in refused
