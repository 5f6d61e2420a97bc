"""What every game's ``/<game> setup`` and ``/<game> start`` share: one way to create a match
from a moderator's command (timers per kind, refusals in one line, the public announcement, the
log-channel warning) and to start it. A game's cog parses its own options into a config and
words its announcement; everything else is here, so a new game's cog stays thin.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence

import discord

from bot.client import FloralBot
from bot.host import HostError
from bot.store import MatchRecord
from cogs.common import (
    game_match,
    match_name,
    people_only,
    respond,
    warn_log_channel_readers,
)
from games import registry
from games.protocol import JSON, ConfigError
from games.text import names_text

log = logging.getLogger(__name__)

# the setup option that sets each timer kind's length (a game offers those it declares)
TIMER_OPTIONS = {"turn": "window", "reaction": "reaction_window"}

Announce = Callable[[MatchRecord, list[str]], str]
"""The public setup post: the record and the players' mentions, in seat order."""


def timer_lengths(**options: int | None) -> dict[str, float]:
    """The timer kinds a setup command's options set (``window=30, reaction_window=None``)."""
    kinds = {option: kind for kind, option in TIMER_OPTIONS.items()}
    return {kinds[name]: float(value) for name, value in options.items() if value is not None}


def timers_text(record: MatchRecord, names: Mapping[str, str]) -> str:
    """``"Turns: 60 s; Reactions: 20 s."``: the match's window length of each kind named (the
    turn's is ``window_s``, else the game's declared default)."""
    lengths = {**registry.load(record.game).timers, **record.timers}
    if record.window_s is not None:
        lengths["turn"] = record.window_s
    parts = [f"{label}: {lengths[kind]:g} s" for kind, label in names.items() if kind in lengths]
    return f"{'; '.join(parts)}." if parts else ""


def refusal(error: ConfigError | HostError) -> str:
    """A refused setup in one line: the options line as a whole, one option, or the host's."""
    if isinstance(error, ConfigError) and error.field == "options":
        return f"Bad options: {error.message}."
    if isinstance(error, ConfigError):
        return f"Bad option `{error.field}`: {error.message}."
    return str(error)


async def refuse_setup(
    interaction: discord.Interaction,
    error: ConfigError | HostError,
    explain: Callable[[ConfigError | HostError], str] = refusal,
) -> None:
    """A setup command's refusal: one ephemeral line, nothing created."""
    await respond(interaction, f"✖ No match created. {explain(error)}")


async def create_match(
    bot: FloralBot,
    interaction: discord.Interaction,
    game: str,
    members: Sequence[discord.Member],
    config: Mapping[str, JSON],
    announce: Announce,
    *,
    timers: Mapping[str, float] | None = None,
    explain: Callable[[ConfigError | HostError], str] = refusal,
) -> MatchRecord | None:
    """Create the match and announce it in the channel; a refusal (bad option, not people,
    a timer the game lacks) is one ephemeral line and creates nothing (None)."""
    assert interaction.guild_id is not None and interaction.channel_id is not None
    try:
        people_only(list(members))
        record = await bot.host.create_match(
            game,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            players=[member.id for member in members],
            names=[member.display_name for member in members],
            moderators=[interaction.user.id],
            config=config,
            timers=timers or None,
        )
    except (ConfigError, HostError) as error:
        await refuse_setup(interaction, error, explain)
        return None
    log.info(
        "%s match %d created by %s in channel %s",
        game,
        record.id,
        interaction.user.id,
        record.channel_id,
    )
    await respond(
        interaction,
        announce(record, [member.mention for member in members]),
        ephemeral=False,
        allowed_mentions=discord.AllowedMentions(users=False),
    )
    await warn_log_channel_readers(interaction, list(members))
    return record


async def start_match(
    bot: FloralBot, interaction: discord.Interaction, match: str, game: str
) -> MatchRecord:
    """``/<game> start``: the match named, of this game, started by the asker."""
    record = await game_match(interaction, match, game)
    record = await bot.host.start_match(record.id, by=interaction.user.id)
    await respond(interaction, f"Match {match_name(record.id)} is started.")
    return record


def players_text(mentions: Sequence[str]) -> str:
    """``"@a (P1), @b (P2) and @c (P3)"``."""
    return names_text([f"{mention} (P{seat + 1})" for seat, mention in enumerate(mentions)])
