"""``/toy setup|start``: the tests' toy game (``tests.bot.toy_game``) on Discord, built the way
every game's cog is: parse the game's options, then ``cogs.setup`` creates, announces and
starts the match, with a length for each timer kind the game declares (``window``,
``reaction_window``). Loaded only by ``tests/e2e/toybot.py``."""

from __future__ import annotations

import json

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.store import MatchRecord
from cogs.common import match_autocomplete, moderator_only, respond
from cogs.setup import create_match, players_text, start_match, timer_lengths, timers_text

GAME = "tests.bot.toy_game"


def announce(record: MatchRecord, mentions: list[str]) -> str:
    timers = timers_text(record, {"turn": "Turns", "reaction": "Blocks"})
    return (
        f"🎲 Match **{record.id}**: Toy Guess, {players_text(mentions)}. {timers}"
        f" Next: `/toy start match:m{record.id}`."
    )


@app_commands.guild_only()
class Toy(commands.GroupCog, group_name="toy", group_description="Toy Guess (tests)"):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(description="Create a Toy Guess match")
    @app_commands.describe(
        config="The toy game's config as JSON",
        window="Seconds of a turn window",
        reaction_window="Seconds of a block window",
    )
    @moderator_only()
    async def setup(
        self,
        interaction: discord.Interaction,
        player1: discord.Member,
        player2: discord.Member,
        player3: discord.Member | None = None,
        config: str = "{}",
        window: app_commands.Range[int, 1, 3600] | None = None,
        reaction_window: app_commands.Range[int, 1, 3600] | None = None,
    ) -> None:
        try:
            options = json.loads(config)
        except ValueError:
            options = None
        if not isinstance(options, dict):
            await respond(interaction, "✖ No match created. The config must be a JSON object.")
            return
        members = [m for m in (player1, player2, player3) if m is not None]
        timers = timer_lengths(window=window, reaction_window=reaction_window)
        await create_match(self.bot, interaction, GAME, members, options, announce, timers=timers)

    @app_commands.command(description="Start a Toy Guess match")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def start(self, interaction: discord.Interaction, match: str) -> None:
        await start_match(self.bot, interaction, match, GAME)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(Toy(bot))
