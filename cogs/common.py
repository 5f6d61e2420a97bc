"""Helpers the cogs share: who is a moderator, which matches the asker may see, match ids as
shown (``m12``) and their autocompletion, acknowledgements, and replies that always fit Discord."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import discord
from discord import app_commands

from bot.discord_transport import MESSAGE_LIMIT, fit
from bot.host import HostError, SubmitResult
from bot.ids import parse_match_id
from bot.store import ACTIVE_STATUSES, MatchRecord
from games import registry
from games.text import names_text

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

    setattr(predicate, MODERATOR_MARK, True)  # /help tells moderators' commands apart
    return app_commands.check(predicate)


MODERATOR_MARK = "floral_moderator_only"


def for_moderators(command: app_commands.Command[Any, ..., Any]) -> bool:
    """Whether ``command`` has the ``moderator_only`` check."""
    return any(getattr(check, MODERATOR_MARK, False) for check in command.checks)


def people_only(members: list[discord.Member]) -> None:
    """Seats are for people: a bot cannot read its DMs or answer a prompt."""
    bots = [member.display_name for member in members if member.bot]
    if bots:
        raise HostError(f"Players must be people, not bots: {names_text(bots)}.")


def guild_only_match(interaction: discord.Interaction, record: MatchRecord) -> None:
    """A moderator may only act on the matches of this guild."""
    if interaction.guild_id is not None and record.guild_id != interaction.guild_id:
        raise HostError(f"Match {match_name(record.id)} belongs to another server.")


async def game_match(interaction: discord.Interaction, match: str, game: str) -> MatchRecord:
    """The match a game's command group acts on: one of this guild, and of that game (a
    Warlock's Brew match has no spellbook for ``/floral spellbook`` to show)."""
    record = (await floral_bot(interaction).host.status(match_id_option(match))).match
    guild_only_match(interaction, record)
    if record.game != game:
        title = registry.load(game).game.title
        raise HostError(f"Match {match_name(record.id)} is not a {title} match.")
    return record


def visible_match(interaction: discord.Interaction, record: MatchRecord) -> None:
    """What a match id may show the asker: in a server, only that server's matches; in DMs,
    only the matches the asker plays in."""
    guild_only_match(interaction, record)
    if interaction.guild_id is None and interaction.user.id not in record.players:
        raise HostError(f"You do not play in match {match_name(record.id)}.")


def seated_while_active(user_id: int, record: MatchRecord) -> bool:
    """Whether ``user_id`` plays in this match before it is over: then no moderator view of
    its secrets (the export, the moderator log) is for them, moderator or not."""
    return user_id in record.players and record.status in ACTIVE_STATUSES


def match_name(match_id: int) -> str:
    """A match id as the bot shows it (and as every ``match`` option accepts it)."""
    return f"m{match_id}"


def match_id_option(text: str) -> int:
    """A ``match`` option's value: ``m12`` or ``12``; HostError in one line otherwise."""
    try:
        return parse_match_id(text)
    except ValueError as error:
        raise HostError(f"{str(error)[:1].upper()}{str(error)[1:]}.") from None


def match_label(record: MatchRecord) -> str:
    label = f"{match_name(record.id)}: {' vs '.join(record.names)} ({record.status})"
    return label if len(label) <= 100 else label[:99] + "…"


async def match_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Active matches of this guild (or, in DMs, the asker's), best first, valued ``m12``."""
    bot = floral_bot(interaction)
    records = await bot.host.list_matches(interaction.guild_id, active_only=True)
    if interaction.guild_id is None:
        records = [r for r in records if interaction.user.id in r.players]
    current = current.strip().lower()
    found = [r for r in records if current in match_label(r).lower()]
    found.sort(key=lambda r: (r.channel_id != interaction.channel_id, -r.id))
    return [app_commands.Choice(name=match_label(r), value=match_name(r.id)) for r in found[:25]]


async def matches_here(interaction: discord.Interaction) -> list[MatchRecord]:
    """The active matches of this channel; in a thread, the match whose thread it is
    (``FLORAL_THREADS``)."""
    bot = floral_bot(interaction)
    records = await bot.host.list_matches(interaction.guild_id, active_only=True)
    channel = interaction.channel
    if not isinstance(channel, discord.Thread):
        return [r for r in records if r.channel_id == interaction.channel_id]
    store = bot.host.store
    return [
        r
        for r in records
        if r.channel_id == channel.parent_id and await store.thread_of(r.id) == channel.id
    ]


async def channel_match(interaction: discord.Interaction, match: str | None) -> int:
    """The match named, or the one active match in this channel (or whose thread this is)."""
    if match is not None:
        return match_id_option(match)
    here = await matches_here(interaction)
    if len(here) == 1:
        return here[0].id
    if not here:
        raise HostError("There is no active match in this channel; give the match id.")
    raise HostError("Several matches run in this channel; give the match id.")


# --- replies: each fits Discord's limits, whatever it quotes ----------------------------------


async def respond(
    interaction: discord.Interaction, text: str, *, ephemeral: bool = True, **kwargs: Any
) -> None:
    """Answer the interaction (or follow up if it is answered), cut to fit one message."""
    if interaction.response.is_done():
        await interaction.followup.send(fit(text), ephemeral=ephemeral, **kwargs)
    else:
        await interaction.response.send_message(fit(text), ephemeral=ephemeral, **kwargs)


async def update_message(interaction: discord.Interaction, **changes: Any) -> None:
    """Edit the message whose component was pressed (a page turn); a press another process
    deferred already (``bot.handoff``) edits it through the interaction's webhook."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**changes)
    else:
        await interaction.response.edit_message(**changes)


def custom_id_of(data: Any) -> str:
    """A raw component interaction's custom id ("" for anything else)."""
    inner = data.get("data") if data.get("type") == 3 else None
    return str(inner.get("custom_id", "")) if isinstance(inner, dict) else ""


async def respond_text(
    interaction: discord.Interaction, head: str, body: str, filename: str
) -> None:
    """``head`` and ``body`` in a code block when they fit one message, else ``head`` with the
    body attached as a text file (ephemeral either way)."""
    inline = f"{head}\n```\n{body}\n```"
    if len(inline) <= MESSAGE_LIMIT:
        await respond(interaction, inline)
        return
    attached = discord.File(io.BytesIO(body.encode()), filename=filename)
    await respond(interaction, f"{head} (long: attached as {filename})", file=attached)


def warnings_text(title: str, warnings: list[str]) -> str:
    return fit(title + "\n" + "\n".join(f"• {w}" for w in warnings))


def log_channel_readers(
    interaction: discord.Interaction, players: list[discord.Member]
) -> list[discord.Member]:
    """The players who can read the moderator log channel (it shows every seat's secrets)."""
    guild = interaction.guild
    channel_id = floral_bot(interaction).log_channel_in(guild.id) if guild else None
    channel = guild.get_channel(channel_id) if guild and channel_id else None
    if channel is None or isinstance(channel, discord.CategoryChannel):
        return []
    return [p for p in players if channel.permissions_for(p).read_messages]


async def warn_log_channel_readers(
    interaction: discord.Interaction, players: list[discord.Member]
) -> None:
    """Tell the moderator alone when a player can read the moderator log channel."""
    readers = log_channel_readers(interaction, players)
    if not readers:
        return
    await interaction.followup.send(
        fit(log_readers_text([member.display_name for member in readers])), ephemeral=True
    )


def log_readers_text(names: list[str]) -> str:
    return (
        f"⚠ {names_text(names)} can read the moderator log channel, which shows every player's"
        " secrets each turn (only you see this). Hide it from the players (channel permissions)"
        " before the start."
    )


def ack_text(result: SubmitResult) -> str:
    """What an accepted answer locked in, by the engine's summary, and for which occasion:
    "✅ Cast C (5) — locked for turn 7."; a revisable answer may still change."""
    what = result.text.strip().rstrip(".") or "Your answer"
    if result.revisable:
        until = f" for {result.occasion}" if result.occasion else f" in match {result.match_id}"
        return f"✅ {what} — your answer{until}; you can change it until the deadline."
    if result.occasion:
        return f"✅ {what} — locked for {result.occasion}."
    return f"✅ {what} — locked (match {result.match_id})."


def refusal_text(result: SubmitResult) -> str:
    return f"✖ {result.text}"
