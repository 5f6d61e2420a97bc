"""Actions of players that the end-to-end tests of every game share."""

from __future__ import annotations

import re

from .fake_discord import FakeDiscord, Message, User, World

# a prompt component's id: fx:[menu kind:]MATCH:STEP...
PROMPT_ID = re.compile(r"^fx:(?:[A-Za-z][A-Za-z0-9_-]*:)?(\d+):(\d+)")


async def type_text(fake: FakeDiscord, user: User, text: str) -> str:
    """Type ``text`` in the DM with the bot; its answer (an acknowledgement or a refusal)."""
    mark = fake.mark()
    await fake.dm_text(user, text)
    reply = await fake.wait_for_message(
        lambda m: m.content.startswith(("✅", "✖")), to=user, after=mark
    )
    return reply.content


def answered(reply: Message) -> str:
    """A click's reply: the ephemeral acknowledgement, or in the DMs the acknowledgement
    carrying what the seat is sent next (its next prompt, its results), which stays there like
    them; its text."""
    assert reply.ephemeral or (reply.guild_id is None and "\n" in reply.content), reply.content
    return reply.content


async def slash_submit(fake: FakeDiscord, user: User, world: World, value: str) -> str:
    """``/submit value`` in the match channel; the ephemeral answer."""
    ix = await fake.slash(user, "submit", {"value": value}, channel=world.channel)
    reply = await ix.reply()
    assert reply.ephemeral
    return reply.content


async def moderator_says(
    fake: FakeDiscord, world: World, command: str, **options: object
) -> Message:
    """A moderator's slash command in the match channel; the bot's reply."""
    ix = await fake.slash(world.mod, command, dict(options), channel=world.channel)
    return await ix.reply()


def prompt_step(message: Message) -> int | None:
    """The window step a prompt's components answer (None: no prompt components)."""
    for custom_id in message.custom_ids():
        found = PROMPT_ID.match(custom_id)
        if found:
            return int(found[2])
    return None


async def next_prompt(fake: FakeDiscord, user: User, floor: int, timeout: float = 15) -> Message:
    """The first DM prompt to ``user`` for a window after step ``floor``."""

    def fits(message: Message) -> bool:
        step = prompt_step(message)
        return step is not None and step > floor

    return await fake.wait_for_message(fits, to=user, timeout=timeout)
