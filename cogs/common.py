"""Helpers the cogs share: who is a moderator, match-id autocompletion, acknowledgements."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, cast

import discord
from discord import app_commands

from bot.host import HostError, SubmitResult
from bot.store import MatchRecord

if TYPE_CHECKING:
    from bot.client import FloralBot

T = TypeVar("T")


def floral_bot(interaction: discord.Interaction) -> FloralBot:
    return cast("FloralBot", interaction.client)


class NotModerator(app_commands.CheckFailure):
    def __init__(self) -> None:
        super().__init__("Only moderators (Manage Server or the moderator role) can do that.")


def is_moderator_member(bot: FloralBot, user: discord.User | discord.Member) -> bool:
    if not isinstance(user, discord.Member):
        return False
    if user.guild_permissions.manage_guild:
        return True
    wanted = bot.settings.moderator_role
    if not wanted:
        return False
    return any(str(role.id) == wanted or role.name == wanted for role in user.roles)


def moderator_only() -> Callable[[T], T]:
    """An app-command check: Manage Server, or the MODERATOR_ROLE (a name or an id)."""

    async def predicate(interaction: discord.Interaction) -> bool:
        member = interaction.user
        if isinstance(member, discord.Member) and interaction.permissions.manage_guild:
            return True
        if is_moderator_member(floral_bot(interaction), member):
            return True
        raise NotModerator()

    return app_commands.check(predicate)


def people_only(members: list[discord.Member]) -> None:
    """Seats are for people: a bot cannot read its DMs or answer a prompt."""
    bots = [member.display_name for member in members if member.bot]
    if bots:
        raise HostError(f"Players must be people, not bots: {', '.join(bots)}.")


def guild_only_match(interaction: discord.Interaction, record: MatchRecord) -> None:
    """A moderator may only act on the matches of this guild."""
    if interaction.guild_id is not None and record.guild_id != interaction.guild_id:
        raise HostError(f"Match {record.id} belongs to another server.")


def match_label(record: MatchRecord) -> str:
    return f"{record.id}: {' vs '.join(record.names)} ({record.status})"[:100]


async def match_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[int]]:
    """Active matches of this guild (or, in DMs, the asker's), best first."""
    bot = floral_bot(interaction)
    records = await bot.host.list_matches(interaction.guild_id, active_only=True)
    if interaction.guild_id is None:
        records = [r for r in records if interaction.user.id in r.players]
    current = current.strip().lower()
    found = [r for r in records if current in match_label(r).lower()]
    found.sort(key=lambda r: (r.channel_id != interaction.channel_id, -r.id))
    return [app_commands.Choice(name=match_label(r), value=r.id) for r in found[:25]]


async def channel_match(interaction: discord.Interaction, match: int | None) -> int:
    """The match named, or the one active match in this channel."""
    if match is not None:
        return match
    bot = floral_bot(interaction)
    records = await bot.host.list_matches(interaction.guild_id, active_only=True)
    here = [r for r in records if r.channel_id == interaction.channel_id]
    if len(here) == 1:
        return here[0].id
    if not here:
        raise HostError("There is no active match in this channel; give the match id.")
    raise HostError("Several matches run in this channel; give the match id.")


def ack_text(result: SubmitResult) -> str:
    """The acknowledgement of an accepted answer: "Cast C (5) locked for turn 7."."""
    if result.occasion:
        return f"✅ {result.text} locked for {result.occasion}."
    return f"✅ {result.text.rstrip('.')} — locked (match {result.match_id})."


def refusal_text(result: SubmitResult) -> str:
    return f"✖ {result.text}"
