"""``/practice game [level] [opponents]``: a player alone against the built-in AI players, in
their DMs, with no moderator (``bot/practice.py``). One practice at a time, never rated. The
levels are every game's: ``easy``, ``normal`` (the default) and ``hard``."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.practice import LEVELS, practice_levels, practice_setup
from cogs.common import match_name, respond
from cogs.help import game_autocomplete
from games import registry


async def level_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    game = getattr(interaction.namespace, "game", None)
    if not isinstance(game, str) or game not in registry.names():
        return []
    info = registry.get(game)
    return [
        app_commands.Choice(name=f"{level}: {LEVELS.get(level, 'an AI level')}"[:100], value=level)
        for level in practice_levels(info)
        if current.lower() in level
    ][:25]


class Practice(commands.Cog):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot

    @app_commands.command(description="Practice a game against the AI, in your DMs")
    @app_commands.describe(
        game="The game",
        level="easy, normal (the default) or hard",
        opponents="How many AI players (default: the fewest the game takes)",
    )
    @app_commands.autocomplete(game=game_autocomplete, level=level_autocomplete)
    async def practice(
        self,
        interaction: discord.Interaction,
        game: str,
        level: str | None = None,
        opponents: app_commands.Range[int, 1, 9] | None = None,
    ) -> None:
        asked = practice_setup(game, level, opponents)
        if not interaction.response.is_done():  # done: another process deferred it (bot.handoff)
            await interaction.response.defer(ephemeral=True, thinking=True)  # a DM to open
        dm = await interaction.user.create_dm()
        record = await self.bot.practice.start(
            asked, interaction.user.id, interaction.user.display_name, dm.id
        )
        await respond(
            interaction,
            f"🎯 Practice match {match_name(record.id)} of {asked.info.title} against"
            f" {asked.opponents} AI player{'s' if asked.opponents > 1 else ''} ({asked.level})"
            " has started in your DMs. It is never rated; `/match leave` ends it.",
        )


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(Practice(bot))
