"""End to end: ``/match leave`` and ``/match kick`` in a two-seat Floral Extract match, through
the real ``floral-host run`` process and the fake Discord."""

from __future__ import annotations

from .fake_discord import FakeDiscord, World
from .test_floral_host import (
    LaunchBot,
    end_post,
    moderator,
    prompt_after,
    reveal_and_start,
    setup_match,
    start_bot,
)


async def test_a_player_leaves_by_dm_and_the_other_wins(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    match = await setup_match(fake, world, window=30)
    await reveal_and_start(fake, world, match)
    await prompt_after(fake, world.alice, 0)

    ix = await fake.slash(world.carol, "match leave", {}, channel=world.channel)
    refused = await ix.reply()
    assert refused.ephemeral and "You do not play in match" in refused.content, refused.content

    ix = await fake.slash(world.bob, "match leave", {})  # by DM: his one running match
    reply = await ix.reply()
    assert reply.ephemeral and reply.content == f"You left match m{match} (finished).", reply
    post = await end_post(fake, world)
    assert "P1 wins (P2 left)" in post.content, post.content
    left = [m for m in fake.messages_in(world.channel) if f"Match {match}: Bob left." in m.content]
    assert left, "the channel was not told"

    again = await fake.slash(world.bob, "match leave", {"match": f"m{match}"})
    assert "is over" in (await again.reply()).content


async def test_a_moderator_kicks_a_player_and_the_other_wins(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    match = await setup_match(fake, world, window=30)
    await reveal_and_start(fake, world, match)
    await prompt_after(fake, world.alice, 0)

    ix = await fake.slash(world.bob, "match kick", {"player": world.alice}, channel=world.channel)
    assert "moderator" in (await ix.reply()).content.lower()
    missing = await moderator(fake, world, "match kick", player=world.carol)
    assert "does not play in match" in missing, missing

    removed = await moderator(fake, world, "match kick", player=world.alice)
    assert "is removed from match" in removed, removed
    post = await end_post(fake, world)
    assert "P2 wins (P1 left)" in post.content, post.content
    assert any(
        "Alice is removed by a moderator" in m.content for m in fake.messages_in(world.channel)
    )


async def test_a_moderator_who_plays_may_not_kick_end_or_abort_their_rated_match(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    """A moderator in a seat of a rated match may not decide it (kick the opponent, end or
    abort it); another moderator can."""
    await start_bot(launch_bot)
    options = {"player1": world.mod, "player2": world.alice, "window": 30}
    ix = await fake.slash(world.helper, "floral setup", options, channel=world.channel)
    assert "Match **1**" in (await ix.reply()).content
    for command in ("floral reveal", "floral start"):
        ix = await fake.slash(world.helper, command, {"match": "m1"}, channel=world.channel)
        await ix.reply()
    await prompt_after(fake, world.mod, 0)
    for what, command, extra in (
        ("kick a player from", "match kick", {"player": world.alice}),
        ("end", "match end", {}),
        ("abort", "match abort", {}),
    ):
        refused = await moderator(fake, world, command, **extra)
        assert refused == (
            f"You play in match m1: another moderator can {what} it (a moderator who plays"
            " never decides their own rated match)."
        ), refused
    assert "running" in await moderator(fake, world, "match status")
    ix = await fake.slash(
        world.helper, "match kick", {"player": world.alice}, channel=world.channel
    )
    assert "Alice is removed from match m1" in (await ix.reply()).content
    post = await end_post(fake, world)
    assert "P1 wins (P2 left)" in post.content, post.content
