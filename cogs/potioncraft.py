"""``/potion setup|start``: Potioncraft matches, for moderators.

The rest of a match runs through the generic parts: ``/match ...``, ``/submit``, ``/look``, the
DM prompts (buttons and menus from the engine's choices: the draw, craft / spell / perk menus
holding only legal, complete answers, block and pair windows) and the host's posts (each turn's
table in the channel, the hand in the active player's DMs).

The ``options`` line sets the rules page's options (``docs/potioncraft.md``), separated by commas
or semicolons::

    potion_set=all18, win_check=end_of_turn, max_turns=40, reaction_wait_full

A bare name switches an on/off option on; ``name=value`` sets it (a whole number, ``true`` /
``false`` (also yes/no, on/off), a word of the option's choices, ``none`` for no turn limit).
Names ignore case, spaces and dashes. The timers are the command's own ``window`` (every turn
window) and ``reaction_window`` (block and pair windows) options. ``seed=<number>`` deals a
chosen match again.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.store import MatchRecord
from cogs.common import match_autocomplete, moderator_only
from cogs.setup import (
    create_match,
    players_text,
    refuse_setup,
    start_match,
    timer_lengths,
    timers_text,
)
from games.potioncraft.config import DEFAULTS, SECONDS
from games.potioncraft.options import parse_options
from games.protocol import JSON, ConfigError

GAME = "potioncraft"
TITLES = {
    "table_limit": "table limit",
    "potion_set": "potion set",
    "win_check": "win check",
    "hand_reset_deal": "Hand reset deals",
    "two_player_twist": "Twist of Fate with 2 players:",
    "chain_mode": "chained potions:",
    "max_turns": "turn limit",
    "foul_elixir_discards": "Foul Elixir discards",
    "max_actions": "actions per turn at most",
}
SWITCHES = {  # an on/off option as (on, off) words
    "draw_own_pile": ("you may draw from your own pile", "no drawing from your own pile"),
    "request_block_passes": ("a blocked Request passes on", "a blocked Request ends"),
    "reaction_wait_full": ("block windows run their full length", "block windows may end early"),
}


# --- rendering ------------------------------------------------------------------------------


def options_text(config: dict[str, JSON]) -> str:
    """The options a parsed config changes from the rules page's defaults, in words."""
    parts = []
    for key in DEFAULTS:
        value = config.get(key, DEFAULTS[key])
        if value == DEFAULTS[key] or key in SECONDS:
            continue
        if key in SWITCHES:
            parts.append(SWITCHES[key][0 if value else 1])
        elif value is None:
            parts.append(f"no {TITLES[key]}")
        else:
            parts.append(f"{TITLES[key]} {str(value).replace('_', ' ')}")
    return f"Options: {', '.join(parts)}." if parts else "Options: the rules page's defaults."


def setup_text(record: MatchRecord, mentions: list[str]) -> str:
    timers = timers_text(record, {"turn": "Turn windows", "reaction": "Block windows"})
    seed = " Dealt from a chosen seed." if record.config.get("seed") is not None else ""
    return (
        f"🧪 Match **{record.id}**: Potioncraft, {players_text(mentions)}."
        f" {options_text(record.config)}{seed} {timers} Your hand is shown only in your DMs,"
        f" where you answer too. Next: `/potion start match:m{record.id}`."
    )


# --- commands -------------------------------------------------------------------------------


@app_commands.guild_only()
class PotionCog(commands.GroupCog, group_name="potion", group_description="Potioncraft"):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(description="Create a Potioncraft match (2-6 players) in this channel")
    @app_commands.describe(
        player1="The first player (P1)",
        player2="The second player (P2)",
        player3="A third player",
        player4="A fourth player",
        player5="A fifth player",
        player6="A sixth player",
        options="Rules options, e.g. potion_set=all18, max_turns=40, reaction_wait_full",
        window="Seconds for each draw, action, discard (default 60)",
        reaction_window="Seconds to block a perk or pick a pair (default 20)",
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
        options: str = "",
        window: app_commands.Range[int, 1, 3600] | None = None,
        reaction_window: app_commands.Range[int, 1, 3600] | None = None,
    ) -> None:
        members = [m for m in (player1, player2, player3, player4, player5, player6) if m]
        try:
            config = setup_config(options, window, reaction_window)
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
            timers=timer_lengths(window=window, reaction_window=reaction_window),
        )

    @app_commands.command(description="Start the match: the first turn begins")
    @app_commands.describe(match="The match")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def start(self, interaction: discord.Interaction, match: str) -> None:
        await start_match(self.bot, interaction, match, GAME)


def setup_config(options: str, window: int | None, reaction_window: int | None) -> dict[str, JSON]:
    """The config of ``/potion setup``: the options line, and the timers as the rules' options
    (so an exported script says how long the windows were)."""
    config = parse_options(options)
    if window is not None:
        config["window_s"] = window
    if reaction_window is not None:
        config["reaction_s"] = reaction_window
    return config


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(PotionCog(bot))
