"""The Rematch button on a match's end post: the same players, game and settings, new secrets
(a new seed). A player of that match or a moderator presses it; the new match is set up for a
moderator to start, and the button goes away (one rematch per match)."""

from __future__ import annotations

import asyncio
import re

import discord
from discord.ext import commands

from bot.client import FloralBot
from bot.host import HostError
from bot.store import MatchRecord
from cogs.common import floral_bot, is_moderator_member, match_name, respond
from cogs.tables import set_up_text, start_command

_rematching = asyncio.Lock()  # two presses at once make one rematch


class RematchButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"fr:(?P<match>\d+)",
):
    def __init__(self, match_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Rematch",
                emoji="🔁",
                style=discord.ButtonStyle.primary,
                custom_id=f"fr:{match_id}",
            )
        )
        self.match_id = match_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
    ) -> RematchButton:
        return cls(int(match["match"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = floral_bot(interaction)
        async with _rematching:
            try:
                old = (await bot.host.status(self.match_id)).match
                _may_rematch(bot, interaction, old)
                record = await rematch(bot, old, interaction.user.id)
            except HostError as error:
                await respond(interaction, f"✖ {error}")
                return
            await interaction.response.edit_message(view=None)  # one rematch per match
        text = set_up_text(record, start_command(bot, record.game))
        await interaction.followup.send(f"🔁 Rematch of {match_name(old.id)}. {text}")


def _may_rematch(bot: FloralBot, interaction: discord.Interaction, old: MatchRecord) -> None:
    if old.status != "finished":
        raise HostError(f"Match {match_name(old.id)} is not finished.")
    if old.practice:
        raise HostError("A practice has no rematch: start a new one with `/practice`.")
    user = interaction.user
    if user.id not in old.players and not is_moderator_member(bot, user):
        raise HostError("Only the match's players or a moderator can ask for a rematch.")


async def rematch(bot: FloralBot, old: MatchRecord, by: int) -> MatchRecord:
    """The same game, players, settings and timers as ``old``; a new seed, and a new deal."""
    return await bot.host.create_match(
        old.game,
        guild_id=old.guild_id,
        channel_id=old.channel_id,
        players=list(old.players),
        names=list(old.names),
        moderators=list(dict.fromkeys([*old.moderators, by])),
        # a chosen deal (the games' ``seed`` option: tests, a moderator's replay) is dealt anew
        config={key: value for key, value in old.config.items() if key != "seed"},
        window_s=old.window_s,
        timers=old.timers or None,
    )


def end_view(match_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(RematchButton(match_id))
    return view


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    bot.add_dynamic_items(RematchButton)
    bot.views.end = end_view
