"""``/floral setup|spellbook|reveal|start``: Floral Extract matches, for moderators."""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.store import MatchRecord
from cogs.common import (
    game_match,
    match_autocomplete,
    match_name,
    moderator_only,
    respond,
    respond_text,
    warnings_text,
)
from cogs.setup import create_match, start_match, timer_lengths
from games.floral_extract import books, render
from games.floral_extract.config import PRESET_KEY, parse_rules_text
from games.floral_extract.engine import resolve_spellbook
from games.protocol import JSON

GAME = "floral-extract"
RANDOM = "random"


async def spellbook_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    current = current.strip().lower()
    names = [RANDOM, *books.preset_names()]
    found = [name for name in names if current in name]
    choices = []
    for name in found[:25]:
        label = name if name == RANDOM else f"{name}: {books.preset_description(name)}"
        choices.append(app_commands.Choice(name=label[:100], value=name))
    return choices


def book_json(record: MatchRecord) -> JSON:
    """The match's concrete spellbook (a random one is drawn from the match seed)."""
    return resolve_spellbook(record.config["spellbook"], record.seed)


def preset_note(record: MatchRecord) -> str:
    """``, preset gentle`` when the match's book was a preset's at setup, else nothing."""
    name = record.config.get(PRESET_KEY)
    return f", preset {name}" if isinstance(name, str) else ""


def setup_text(record: MatchRecord, mentions: list[str]) -> str:
    name = match_name(record.id)
    return (
        f"🌸 Match **{record.id}**: Floral Extract, {mentions[0]} (P1) vs {mentions[1]} (P2)."
        " I am sending each player a hello by DM; prompts come there. Next:"
        f" `/floral reveal match:{name}`, then `/floral start match:{name}`."
    )


@app_commands.guild_only()
class FloralExtract(commands.GroupCog, group_name="floral", group_description="Floral Extract"):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(description="Create a Floral Extract match in this channel")
    @app_commands.describe(
        player1="The first player (P1)",
        player2="The second player (P2)",
        advantage="Who wins a perfect tie (default P1)",
        spellbook="random (default), a preset name, or a spellbook text",
        window="Seconds to answer each prompt (default 60)",
        rules="Rules options, e.g. azalea_shrink_mode=reset, max_turns=60 (see the docs)",
    )
    @app_commands.autocomplete(spellbook=spellbook_autocomplete)
    @moderator_only()
    async def setup(
        self,
        interaction: discord.Interaction,
        player1: discord.Member,
        player2: discord.Member,
        advantage: Literal["P1", "P2"] = "P1",
        spellbook: str = RANDOM,
        window: app_commands.Range[int, 1, 3600] | None = None,
        rules: str = "",
    ) -> None:
        config: dict[str, JSON] = {"advantage": advantage, "spellbook": spellbook.strip()}
        if self.bot.settings.max_turns is not None:
            config["max_turns"] = self.bot.settings.max_turns
        config.update(parse_rules_text(rules))
        record = await create_match(
            self.bot,
            interaction,
            GAME,
            [player1, player2],
            config,
            setup_text,
            timers=timer_lengths(window=window),
        )
        if record is not None:
            await self._warn(interaction, record)

    async def _warn(self, interaction: discord.Interaction, record: MatchRecord) -> None:
        """Tell the moderator alone what looks wrong in the spellbook (it is secret until the
        reveal): a spell that can never fire, or fires almost every turn."""
        found = books.check(books.from_json(book_json(record)))
        if found:
            await interaction.followup.send(
                warnings_text("⚠ Spellbook check (only you see this):", found), ephemeral=True
            )

    @app_commands.command(description="Show (ephemeral) or replace the spellbook before the reveal")
    @app_commands.describe(match="The match", text="A new spellbook: a preset name or text")
    @app_commands.autocomplete(match=match_autocomplete)
    @app_commands.autocomplete(text=spellbook_autocomplete)
    @moderator_only()
    async def spellbook(
        self, interaction: discord.Interaction, match: str, text: str | None = None
    ) -> None:
        record = await game_match(interaction, match, GAME)
        if text is not None:
            record = await self.bot.host.configure(
                record.id, {**record.config, "spellbook": text.strip()}, by=interaction.user.id
            )
        book = book_json(record)
        head = "Spellbook replaced." if text is not None else "The spellbook:"
        await respond_text(
            interaction,
            f"{head} (match {match_name(record.id)}{preset_note(record)})",
            render.spellbook_text(book),
            f"spellbook-{match_name(record.id)}.txt",
        )
        if text is not None:
            await self._warn(interaction, record)

    @app_commands.command(description="Post the spellbook publicly")
    @app_commands.describe(match="The match")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def reveal(self, interaction: discord.Interaction, match: str) -> None:
        record = await game_match(interaction, match, GAME)
        await self.bot.host.reveal(record.id, by=interaction.user.id)
        await respond(interaction, f"The spellbook of match {match_name(record.id)} is revealed.")

    @app_commands.command(description="DM each player their rune map and open the first window")
    @app_commands.describe(match="The match")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def start(self, interaction: discord.Interaction, match: str) -> None:
        await start_match(self.bot, interaction, match, GAME)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(FloralExtract(bot))
