"""``/brew setup|start``: Warlock's Brew matches, for moderators.

The rest of a match runs through the generic parts: ``/match ...``, ``/submit``, the DM prompts
(one button per coin in hand, from the engine's request choices) and the host's posts.

The ``variants`` option is one line of setup options, each a flat config key of the engine
(``docs/warlocks-brew.md``), separated by commas or semicolons::

    broke_buyers, limited_supply=4, small_selection=Toadstool+Wolfsbane, no_unique=rebid
    magic_infused=6, deal_window=30

A bare name switches an option on; ``name=value`` sets it (numbers, ``true``/``false``, a word).
The list options (``small_selection``, ``impotent_ingredient``) take ingredient types joined by
``+``, ``/`` or ``|``; a bare ingredient name after a list option is added to that list too, so
``small_selection=Toadstool, Wolfsbane`` reads as expected. Names ignore case, spaces and dashes.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.host import HostError
from bot.store import MatchRecord
from cogs.common import match_autocomplete, moderator_only
from cogs.setup import (
    create_match,
    players_text,
    refusal,
    refuse_setup,
    start_match,
    timer_lengths,
)
from games.protocol import JSON, ConfigError
from games.warlocks_brew.config import type_counts
from games.warlocks_brew.options import parse_variants
from games.warlocks_brew.render import VARIANT_NAMES

GAME = "warlocks-brew"
DEFAULT_WINDOW = 45
UNITS = {"magic_infused": "effect cards", "deal_window": "s after each auction"}


# --- rendering ------------------------------------------------------------------------------


def options_text(config: dict[str, JSON]) -> str:
    """The variants and deck a parsed config sets, in words."""
    parts = []
    for key, title in VARIANT_NAMES.items():
        value = config.get(key)
        if not value:
            continue
        if isinstance(value, list):
            parts.append(f"{title} ({', '.join(map(str, value))})")
        elif value is True:
            parts.append(title)
        elif key in UNITS:
            parts.append(f"{title} ({value} {UNITS[key]})")
        else:
            parts.append(f"{title} {value}")
    if config.get("no_unique") == "rebid":
        parts.append("rebid when no bid is unique")
    deck = sum(type_counts(config).values())
    deck -= int(config["storefront_disaster"]) + int(config["snakeoil_salesman"])
    variants = ", ".join(parts) if parts else "none"
    return f"Variants: {variants}. Deck: {deck} cards."


def setup_text(record: MatchRecord, mentions: list[str]) -> str:
    players = players_text(mentions)
    window = record.window_s or record.config.get("window", DEFAULT_WINDOW)
    return (
        f"🧪 Match **{record.id}**: Warlock's Brew, {players}. {options_text(record.config)}"
        f" Bids close after {float(window):g} s. I am sending each player a hello by DM; bids"
        f" are made there. Next: `/brew start match:m{record.id}`."
    )


# --- commands -------------------------------------------------------------------------------


@app_commands.guild_only()
class WarlocksBrew(commands.GroupCog, group_name="brew", group_description="Warlock's Brew"):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(description="Create a Warlock's Brew match (2-6 players) in this channel")
    @app_commands.describe(
        player1="The first player (P1)",
        player2="The second player (P2)",
        player3="A third player",
        player4="A fourth player",
        player5="A fifth player",
        player6="A sixth player",
        variants="Options, e.g. broke_buyers, magic_infused=3, deal_window=30, limited_supply=1",
        window="Seconds to bid in each auction (default 45)",
    )
    @moderator_only()
    async def setup(
        self,
        interaction: discord.Interaction,
        player1: discord.Member,
        player2: discord.Member,
        player3: discord.Member | None = None,
        player4: discord.Member | None = None,
        player5: discord.Member | None = None,
        player6: discord.Member | None = None,
        variants: str = "",
        window: app_commands.Range[int, 1, 3600] | None = None,
    ) -> None:
        members = [m for m in (player1, player2, player3, player4, player5, player6) if m]
        try:
            config = parse_variants(variants)
        except ConfigError as error:
            await refuse_setup(interaction, error, _refusal)
            return
        config["window"] = window if window is not None else DEFAULT_WINDOW
        await create_match(
            self.bot,
            interaction,
            GAME,
            members,
            config,
            setup_text,
            timers=timer_lengths(window=window),
            explain=_refusal,
        )

    @app_commands.command(description="Start the match: the first ingredient is revealed")
    @app_commands.describe(match="The match")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def start(self, interaction: discord.Interaction, match: str) -> None:
        await start_match(self.bot, interaction, match, GAME)


def _refusal(error: ConfigError | HostError) -> str:
    if isinstance(error, ConfigError) and error.field == "variants":
        return f"Bad variants: {error.message}."
    return refusal(error)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(WarlocksBrew(bot))
