"""End to end: a game's command group given a match of another game says so in one line (it used
to answer "something went wrong"), and changes nothing; the spellbook names its preset."""

from __future__ import annotations

import re

from .fake_discord import FakeDiscord, World
from .test_floral_host import LaunchBot, moderator, start_bot


async def public_setup(fake: FakeDiscord, world: World, command: str, **options: object) -> int:
    ix = await fake.slash(world.mod, command, dict(options), channel=world.channel)
    reply = await ix.reply()
    found = re.search(r"Match \*\*(\d+)\*\*", reply.content)
    assert not reply.ephemeral and found, reply.content
    return int(found[1])


async def test_a_game_command_on_another_games_match_is_refused(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    players = {"player1": world.alice, "player2": world.bob}
    brew = await public_setup(fake, world, "brew setup", **players)
    floral = await public_setup(fake, world, "floral setup", **players, spellbook="classic")

    not_floral = f"Match m{brew} is not a Floral Extract match."
    for command, options in [
        ("floral spellbook", {}),
        ("floral spellbook", {"text": "gentle"}),
        ("floral reveal", {}),
        ("floral start", {}),
    ]:
        assert await moderator(fake, world, command, match=f"m{brew}", **options) == not_floral
    not_brew = f"Match m{floral} is not a Warlock's Brew match."
    assert await moderator(fake, world, "brew start", match=f"m{floral}") == not_brew

    # Nothing changed: both matches are still in setup and start with their own commands.
    shown = await moderator(fake, world, "floral spellbook", match=f"m{floral}")
    assert shown.startswith(f"The spellbook: (match m{floral}, preset classic)"), shown
    assert "water: set 3 {1,2,3}" in shown
    assert await moderator(fake, world, "brew start", match=f"m{brew}") == (
        f"Match m{brew} is started."
    )
    assert "revealed" in await moderator(fake, world, "floral reveal", match=f"m{floral}")
    assert "started" in await moderator(fake, world, "floral start", match=f"m{floral}")
