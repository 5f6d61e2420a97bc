"""End to end: `/help` and `/rules` through the real `floral-host run` and the fake Discord."""

from __future__ import annotations

from .fake_discord import FakeDiscord, World
from .test_floral_host import LaunchBot, start_bot


async def test_help_shows_moderators_their_commands_and_players_theirs(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    player = await (await fake.slash(world.alice, "help", {}, channel=world.channel)).reply()
    assert player.ephemeral and "Floral Extract" in player.content
    assert "Warlock's Brew" in player.content
    assert "`/look`" in player.content and "`/rules`" in player.content
    assert "For moderators" not in player.content and "setup" not in player.content
    moderator = await (await fake.slash(world.mod, "help", {}, channel=world.channel)).reply()
    assert "**For moderators**" in moderator.content
    assert "• `/floral` setup · spellbook · reveal · start: Floral Extract" in moderator.content
    assert "characters cut" not in moderator.content  # every command fits, with every game
    for group in ("/potion", "/phoenix", "/flasks", "/table", "/practice", "/stats"):
        assert f"`{group}`" in moderator.content, group
    in_dm = await (await fake.slash(world.bob, "help", {})).reply()
    assert "**For everyone**" in in_dm.content and "For moderators" not in in_dm.content


async def test_rules_pages_through_a_games_rules_page(
    fake: FakeDiscord, world: World, launch_bot: LaunchBot
) -> None:
    await start_bot(launch_bot)
    overview = await (
        await fake.slash(world.alice, "rules", {"game": "warlocks-brew"}, channel=world.channel)
    ).reply()
    assert overview.ephemeral and overview.content.startswith("📖 **Warlock's Brew: Overview**")
    options = {"game": "floral-extract", "section": "Spells", "page": 2}
    page = await (await fake.slash(world.bob, "rules", options)).reply()  # in DMs too
    assert page.content.startswith("📖 **Floral Extract: Spells** (Reference) (page 2 of")
    wrong = await (await fake.slash(world.bob, "rules", {"game": "chess"})).reply()
    assert wrong.content.startswith("✖ There is no game 'chess'")
