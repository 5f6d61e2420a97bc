"""Actions of players that the end-to-end tests of every game share."""

from __future__ import annotations

from .fake_discord import FakeDiscord, User, World


async def type_text(fake: FakeDiscord, user: User, text: str) -> str:
    """Type ``text`` in the DM with the bot; its answer (an acknowledgement or a refusal)."""
    mark = fake.mark()
    await fake.dm_text(user, text)
    reply = await fake.wait_for_message(
        lambda m: m.content.startswith(("✅", "✖")), to=user, after=mark
    )
    return reply.content


async def slash_submit(fake: FakeDiscord, user: User, world: World, value: str) -> str:
    """``/submit value`` in the match channel; the ephemeral answer."""
    ix = await fake.slash(user, "submit", {"value": value}, channel=world.channel)
    reply = await ix.reply()
    assert reply.ephemeral
    return reply.content
