"""The buttons of a match's end post. In a server, Rematch: the same players, game and settings,
new secrets (a new seed); a player of that match or a moderator presses it, and the new match is
set up for a moderator to start. In a practice (in DMs), Practice again: the same game, level and
opponents, started at once.

Once: a match has one rematch, claimed in the transaction that stores it (``rematch_of``): a
second press, at once or later, after a restart too, is refused naming it, and the button goes.
A Rematch whose players include one who has left the server is refused, naming them."""

from __future__ import annotations

import asyncio
import logging
import re

import discord
from discord.ext import commands

from bot.client import FloralBot
from bot.host import ClaimTaken, HostError
from bot.practice import practice_again
from bot.store import MatchRecord
from bot.transport import Delivery
from cogs.common import floral_bot, is_moderator_member, match_name, respond
from cogs.tables import set_up_text, start_command
from games.text import names_text

log = logging.getLogger(__name__)


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
        try:
            old = (await bot.host.status(self.match_id)).match
            _may_rematch(bot, interaction, old)
            await interaction.response.defer(thinking=True, ephemeral=True)  # members to ask
            await _all_still_members(interaction, old)
            record = await rematch(bot, old, interaction.user.id)
        except ClaimTaken as taken:
            await _button_gone(interaction, f"✖ {taken}")
            return
        except HostError as error:
            await respond(interaction, f"✖ {error}")
            return
        await _button_gone(interaction, f"🔁 Match {match_name(record.id)} is set up.")
        text = set_up_text(record, start_command(bot, record.game))
        await interaction.followup.send(f"🔁 Rematch of {match_name(old.id)}. {text}")


class PracticeAgainButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"fp:(?P<match>\d+)",
):
    """A practice's end post: the same practice again (game, level, opponents), once."""

    def __init__(self, match_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Practice again",
                emoji="🎯",
                style=discord.ButtonStyle.primary,
                custom_id=f"fp:{match_id}",
            )
        )
        self.match_id = match_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
    ) -> PracticeAgainButton:
        return cls(int(match["match"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = floral_bot(interaction)
        user = interaction.user
        try:
            old = (await bot.host.status(self.match_id)).match
            asked = practice_again(old, user.id)
            await interaction.response.defer(thinking=True, ephemeral=True)  # a match to start
            record = await bot.practice.start(
                asked, user.id, old.names[0], old.channel_id, again=old.id
            )
        except ClaimTaken as taken:
            await _button_gone(interaction, f"✖ {taken}")
            return
        except HostError as error:
            await respond(interaction, f"✖ {error}")
            return
        await _button_gone(
            interaction, f"🎯 Practice match {match_name(record.id)} has started: again, here."
        )


def _may_rematch(bot: FloralBot, interaction: discord.Interaction, old: MatchRecord) -> None:
    if old.status != "finished":
        raise HostError(f"Match {match_name(old.id)} is not finished.")
    if old.practice:
        raise HostError("A practice has no rematch: start a new one with `/practice`.")
    user = interaction.user
    if user.id not in old.players and not is_moderator_member(bot, user):
        raise HostError("Only the match's players or a moderator can ask for a rematch.")


async def _all_still_members(interaction: discord.Interaction, old: MatchRecord) -> None:
    """HostError naming the players who have left the server (the bot sees no member list
    without the members intent: it asks Discord)."""
    guild = interaction.guild
    if guild is None:
        return

    async def gone(user_id: int) -> bool:
        if guild.get_member(user_id) is not None:
            return False
        try:
            await guild.fetch_member(user_id)
        except discord.NotFound:
            return True
        return False

    left = await asyncio.gather(*(gone(user_id) for user_id in old.players))
    names = [name for name, out in zip(old.names, left, strict=True) if out]
    if names:
        verb = "has" if len(names) == 1 else "have"
        raise HostError(
            f"{names_text(names)} {verb} left the server: no rematch without them. Set a new"
            " match up instead."
        )


async def _button_gone(interaction: discord.Interaction, text: str) -> None:
    """Take the end post's button away (the match's one rematch is taken), and tell the
    presser ``text``."""
    message = interaction.message
    if message is not None:
        try:
            await message.edit(view=None)
        except discord.HTTPException as error:  # it stays; a later press is refused all the same
            log.warning("the button of message %s could not be taken away: %s", message.id, error)
    await respond(interaction, text)


async def rematch(bot: FloralBot, old: MatchRecord, by: int) -> MatchRecord:
    """The same game, players, settings and timers as ``old``; a new seed, and a new deal. The
    match's one rematch: HostError (ClaimTaken) if it has one."""
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
        rematch_of=old.id,
    )


def end_view(delivery: Delivery) -> discord.ui.View:
    """Rematch under a server's end post; Practice again under a practice's (in DMs)."""
    view = discord.ui.View(timeout=None)
    in_server = delivery.guild_id != 0  # a match outside a server is a practice
    button = RematchButton if in_server else PracticeAgainButton
    view.add_item(button(delivery.match_id))
    return view


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    bot.add_dynamic_items(RematchButton, PracticeAgainButton)
    bot.views.end = end_view
