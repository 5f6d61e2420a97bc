"""``/flasks setup|start``: Flaky Flasks matches, for moderators.

The rest of a match runs through the generic parts: ``/match ...``, ``/submit``, ``/look``, the
DM prompts (buttons and menus from the engine's choices: the setup layout, Hexes, Counters to
the players who can answer, the work window one command at a time, market sales and purchases,
offers and their answers) and the host's posts (each step's public events in the channel, with
the table at the start of every phase; hands by DM).

The ``options`` line sets the rules page's options (``docs/flaky-flasks.md``, Options),
separated by commas or semicolons::

    bargain=false, fume_decay=2, hand_size=6, work_window_s=90, seed=42

``name=value`` sets an option (a whole number, ``true``/``false`` or one of the option's
words). Names ignore case, spaces and dashes. ``rounds`` is the command's own option; so are
``window`` (every window but work and counter: setup, Hex, market, offer, reply) and
``reaction_window`` (a Counter). The work window's length is ``work_window_s`` (default 120).
``seed=<number>`` deals a chosen match again. A group's own content set is an attached JSON file
(``content_set``), in the format of ``games/flaky_flasks/house.json``.
"""

from __future__ import annotations

from collections.abc import Mapping

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.store import MatchRecord
from cogs import options
from cogs.common import match_autocomplete, moderator_only
from cogs.setup import create_match, players_text, refuse_setup, start_match, timer_lengths
from games.flaky_flasks.config import DEFAULTS
from games.flaky_flasks.content import read_content
from games.flaky_flasks.options import CONTENT_FIELD, parse_options
from games.protocol import JSON, ConfigError

GAME = "flaky-flasks"
TITLES = {
    "bargain": "bargaining",
    "prompt_mode": "Hex and Counter prompts to",
    "fume_decay": "fume decay",
    "hand_size": "hand size",
    "slots": "slots",
    "channel_length": "channel length",
    "river_size": "river size",
    "tableau_size": "tableau size",
}


def setup_config(
    options: str, rounds: int | None, window: int | None, reaction_window: int | None
) -> dict[str, JSON]:
    """The config of ``/flasks setup`` without its content set: the options line, the rounds
    and the window lengths as the rules' options (so an exported script says how long the
    windows were)."""
    config = parse_options(options)
    if rounds is not None:
        config["rounds"] = rounds
    if window is not None:
        config["window_s"] = window
    if reaction_window is not None:
        config["reaction_window_s"] = reaction_window
    return config


def content_from_bytes(data: bytes) -> JSON:
    """An attached content set file as JSON, checked against the format; ConfigError
    ``content_set`` (or ``content_set.<field>``) when it is too large, not UTF-8 text, not one
    JSON object or not a content set."""
    return options.json_file(data, CONTENT_FIELD, read_content)


async def read_content_set(attachment: discord.Attachment) -> JSON:
    """The attached file's content set, size-capped before it is downloaded."""
    return await options.read_json_file(attachment, CONTENT_FIELD, read_content)


# --- rendering ------------------------------------------------------------------------------


def options_text(config: Mapping[str, JSON]) -> str:
    """The options a config changes from the rules page's defaults, in words."""
    parts = []
    for key, title in TITLES.items():
        value = config.get(key, DEFAULTS[key])
        if value != DEFAULTS[key]:
            shown = ("on" if value else "off") if isinstance(value, bool) else str(value)
            parts.append(f"{title} {shown}")
    return f"Options: {', '.join(parts)}." if parts else "Options: the rules page's defaults."


def windows_text(config: Mapping[str, JSON]) -> str:
    """``"Windows: 60 s; work: 120 s; Counters: 20 s."``"""
    value = {k: config.get(k, DEFAULTS[k]) for k in ("window_s", "work_window_s")}
    react = config.get("reaction_window_s", DEFAULTS["reaction_window_s"])
    return f"Windows: {value['window_s']} s; work: {value['work_window_s']} s; Counters: {react} s."


def content_name(config: Mapping[str, JSON]) -> str:
    raw = config.get("content_set", "house")
    if raw == "house" or not isinstance(raw, dict):
        return "the house set"
    return f"{read_content(raw).name} (the moderator's own)"


def setup_text(record: MatchRecord, mentions: list[str]) -> str:
    config = record.config
    rounds = config.get("rounds", DEFAULTS["rounds"])
    seed = " Dealt from a chosen seed." if config.get("seed") is not None else ""
    return (
        f"⚗️ Match **{record.id}**: Flaky Flasks, {players_text(mentions)}. {rounds} rounds;"
        f" content: {content_name(config)}. {options_text(config)}{seed}"
        f" {windows_text(config)}"
        f" Your hand, board and prompts come by DM, where you answer too; the table is posted"
        f" here at each phase. Next: `/flasks start match:m{record.id}`."
    )


# --- commands -------------------------------------------------------------------------------


@app_commands.guild_only()
class FlakyFlasksCog(commands.GroupCog, group_name="flasks", group_description="Flaky Flasks"):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(description="Create a Flaky Flasks match (2-4 players) in this channel")
    @app_commands.describe(
        player1="The first player (P1)",
        player2="The second player (P2)",
        player3="A third player",
        player4="A fourth player",
        content_set="A group's own content set: a JSON file in the house set's format",
        rounds="Rounds: 12 (default), 9 or 6",
        options="Rules options, e.g. bargain=false, fume_decay=2, work_window_s=90, seed=42",
        window="Seconds for each setup, Hex, market, offer and reply answer (default 60)",
        reaction_window="Seconds to Counter (default 20)",
    )
    @app_commands.choices(
        rounds=[app_commands.Choice(name=str(n), value=n) for n in (12, 9, 6)],
    )
    @moderator_only()
    async def setup(
        self,
        interaction: discord.Interaction,
        player1: discord.Member,
        player2: discord.Member,
        player3: discord.Member | None = None,
        player4: discord.Member | None = None,
        content_set: discord.Attachment | None = None,
        rounds: int | None = None,
        options: str = "",
        window: app_commands.Range[int, 1, 3600] | None = None,
        reaction_window: app_commands.Range[int, 1, 3600] | None = None,
    ) -> None:
        members = [m for m in (player1, player2, player3, player4) if m]
        try:
            config = setup_config(options, rounds, window, reaction_window)
            if content_set is not None:  # at most 256 KB: read well within the 3 s to answer
                config[CONTENT_FIELD] = await read_content_set(content_set)
        except ConfigError as error:
            await refuse_setup(interaction, error)
            return
        await create_match(
            self.bot,
            interaction,
            GAME,
            members,
            config,
            setup_text,
            # the Counter window is the host's reaction timer; the others carry their own
            # length from the config (window_s, work_window_s)
            timers=timer_lengths(reaction_window=reaction_window),
        )

    @app_commands.command(description="Start the match: the first round begins")
    @app_commands.describe(match="The match")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def start(self, interaction: discord.Interaction, match: str) -> None:
        await start_match(self.bot, interaction, match, GAME)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(FlakyFlasksCog(bot))
