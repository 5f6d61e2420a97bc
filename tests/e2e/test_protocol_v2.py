"""End to end, protocol v2 with the tests' toy game on Discord (``tests/e2e/toy_cog.py``, run by
``python -m tests.e2e.toybot``), through the fake Discord:

* fair clocks: a prompt DM that Discord answers with 5xx for 10 s gets its deadline moved by
  about 10 s, the player sees the new deadline in it, and may answer after the old one;
* a reaction window closes at the first block, and a second blocker is told it closed;
* a turn of three actions runs on one clock: every action's prompt shows the same deadline.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .botproc import BotProcess
from .fake_discord import Channel, FakeDiscord, Message, User, World
from .players import answered, type_text

LaunchBot = Callable[..., Awaitable[BotProcess]]
COUNTDOWN = re.compile(r"<t:(\d+):R>")
SEND = "POST /channels/{channel_id}/messages"


async def start_toybot(launch_bot: LaunchBot) -> BotProcess:
    bot = await launch_bot(
        argv=[sys.executable, "-m", "tests.e2e.toybot"],
        env={"FLORAL_GUILD_READY_TIMEOUT": "0.1"},
    )
    await bot.wait_for_log("floral-host ready")
    return bot


async def toy_match(
    fake: FakeDiscord,
    world: World,
    players: list[User],
    config: dict[str, Any],
    channel: Channel | None = None,
    **timers: int,
) -> int:
    """A toy match set up by the moderator in ``channel`` (the world's by default)."""
    options: dict[str, object] = {f"player{n}": p for n, p in enumerate(players, start=1)}
    options |= {"config": json.dumps(config), **timers}
    ix = await fake.slash(world.mod, "toy setup", options, channel=channel or world.channel)
    reply = await ix.reply()
    found = re.search(r"Match \*\*(\d+)\*\*", reply.content)
    assert found and not reply.ephemeral, reply.content
    return int(found[1])


async def start(
    fake: FakeDiscord, world: World, match: int, channel: Channel | None = None
) -> None:
    options = {"match": f"m{match}"}
    ix = await fake.slash(world.mod, "toy start", options, channel=channel or world.channel)
    assert "is started" in (await ix.reply()).content


def choice_ids(message: Message) -> dict[str, str]:
    """A prompt's choice buttons: label -> custom id."""
    ids = {}
    for custom_id in message.custom_ids():
        label = message.component(custom_id).get("label")
        if isinstance(label, str) and custom_id.startswith("fx:"):
            ids[label] = custom_id
    return ids


async def prompt_to(
    fake: FakeDiscord, user: User, text: str, seen: int = 0, timeout: float = 10
) -> Message:
    """The next DM prompt to ``user`` whose text holds ``text``, after its first ``seen``;
    FakeDiscordError after ``timeout`` seconds."""

    def fits(message: Message) -> bool:
        return text in message.content and bool(choice_ids(message)) and not message.loading

    def the_one() -> Message | None:
        found = [m for m in fake.dms_to(user) if fits(m)]
        return found[seen] if len(found) > seen else None

    return await fake.wait_until(the_one, timeout=timeout, what=f"prompt {seen + 1} of {text!r}")


async def click(fake: FakeDiscord, user: User, prompt: Message, label: str) -> str:
    ix = await fake.click(user, prompt, choice_ids(prompt)[label])
    return answered(await ix.reply())


def deadline_of(prompt: Message) -> int:
    found = COUNTDOWN.search(prompt.content)
    assert found, prompt.content
    return int(found[1])


async def public_post(fake: FakeDiscord, world: World, text: str, timeout: float = 10) -> Message:
    return await fake.wait_for_message(
        lambda m: text in m.content, channel=world.channel, timeout=timeout
    )


async def test_a_prompt_dm_failing_for_10_s_has_its_deadline_moved_by_about_10_s(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot)
    window = 14
    match = await toy_match(fake, world, [world.alice, world.bob], {"rounds": 1}, window=window)
    await fake.wait_for_message(lambda m: "👋" in m.content, to=world.alice)
    outage = fake.fail(
        SEND, channel=fake.dm_channel(world.alice), status=503, times=None, seconds=10.0
    )
    opened = time.time()
    await start(fake, world, match)
    on_time = await prompt_to(fake, world.bob, "guess the hidden number")
    late = await prompt_to(fake, world.alice, "guess the hidden number", timeout=30)
    assert outage.hits >= 3  # tried again within seconds, not after a long backoff
    moved = deadline_of(late) - deadline_of(on_time)
    assert 9 <= moved <= 14, (moved, late.content)
    line = next(ln for ln in late.content.splitlines() if "reached you" in ln)
    assert re.search(r"reached you 1[0-3] s late, so your deadline moved by 1[0-3] s", line), line
    assert "Answer within" not in late.content  # the old deadline is not shown beside it

    typed = await type_text(fake, world.bob, "guess 3")  # the game's typed grammar, by DM
    assert typed.startswith("✅"), typed
    chat = await type_text(fake, world.bob, "good luck all")  # chat: not sent to the game
    assert chat.startswith("✖ That is not an answer to your prompt") and "Send one number" in chat
    while time.time() < opened + window + 1:  # past the deadline the prompt was committed with
        await asyncio.sleep(0.2)
    assert "locked" in await click(fake, world.alice, late, "4")  # still Alice's time
    await public_post(fake, world, "Game over")


async def test_a_reaction_window_closes_at_the_first_block(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot)
    players = [world.alice, world.bob, world.carol]
    config = {"rounds": 2, "blocks": True}
    match = await toy_match(fake, world, players, config, window=30, reaction_window=60)
    assert "Turns: 30 s; Blocks: 60 s." in fake.messages_in(world.channel)[-1].content
    await start(fake, world, match)

    guess = await prompt_to(fake, world.alice, "guess the hidden number")
    assert "locked" in await click(fake, world.alice, guess, "5")
    block_bob = await prompt_to(fake, world.bob, "P1 guesses 5. Block it?")
    block_carol = await prompt_to(fake, world.carol, "P1 guesses 5. Block it?")
    assert 50 <= deadline_of(block_carol) - time.time() <= 61  # the reaction_window's length
    assert "locked" in await click(fake, world.carol, block_carol, "Block P1")
    post = await public_post(fake, world, "blocks P1's guess")  # long before 60 s
    assert "P3 blocks P1's guess; no point." in post.content, post.content
    late = await click(fake, world.bob, block_bob, "Block P1")
    assert late.startswith("✖") and ("closed" in late or "expired" in late), late
    next_guess = await prompt_to(fake, world.bob, "Round 2: guess the hidden number")
    assert "locked" in await click(fake, world.bob, next_guess, "1")
    for user in (world.alice, world.carol):
        block = await prompt_to(fake, user, "P2 guesses 1. Block it?")
        assert "locked" in await click(fake, user, block, "Let it stand")
    await public_post(fake, world, "Game over")  # every seat let it stand: no wait either
    assert not any("blocks P2" in m.content for m in fake.messages_in(world.channel))
    public = "\n".join(m.content for m in fake.messages_in(world.channel))
    assert "secret number" not in public.lower()  # each seat's secret stays in its DMs


async def test_a_turn_of_three_actions_runs_on_one_clock(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_toybot(launch_bot)
    config = {"rounds": 1, "actions": 3, "turn_based": True}
    match = await toy_match(fake, world, [world.alice, world.bob], config, window=40)
    await start(fake, world, match)
    deadlines = []
    for action in (1, 2, 3):
        prompt = await prompt_to(fake, world.alice, f"(action {action} of 3)")
        deadlines.append(deadline_of(prompt))
        await asyncio.sleep(1.1)  # the clock runs on: a fresh window would end later
        assert "locked" in await click(fake, world.alice, prompt, "2")
    assert len(set(deadlines)) == 1, deadlines
    await public_post(fake, world, "Game over")
