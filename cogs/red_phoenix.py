"""``/phoenix setup|start|cards``: Red Phoenix of the Alchemists matches, for moderators.

The rest of a match runs through the generic parts: ``/match ...``, ``/submit``, ``/look``, the
DM prompts (buttons and menus from the engine's choices: coins to take, market cards to buy,
experiments, items, formulas, trades, then the keep, ward, trade-answer and discard windows that
reach only the players concerned) and the host's posts (each step's public events in the channel,
with the table at the start of every turn; hands and private results by DM).

The ``options`` line sets the rules page's options (``docs/red-phoenix.md``, Options), separated
by commas or semicolons::

    starting_health=6, max_rounds=12, simple_failure=nothing, seed=42

``name=value`` sets an option (a whole number or one of the option's words). Names ignore case,
spaces and dashes. The window lengths are the command's own ``window`` (each action, keep and
end-of-turn discard) and ``reaction_window`` (ward, trade answer, a trade's discard) options.
``seed=<number>`` deals a chosen match again. A group's own card set is an attached JSON file
(``card_set``), in the format of ``games/red_phoenix/house.json``.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.store import MatchRecord
from cogs import options
from cogs.common import (
    game_match,
    match_autocomplete,
    match_name,
    moderator_only,
    respond_text,
)
from cogs.setup import (
    create_match,
    players_text,
    refuse_setup,
    start_match,
    timer_lengths,
    timers_text,
)
from games.protocol import JSON, ConfigError
from games.red_phoenix.cards import card_set_of
from games.red_phoenix.config import CHOICE_OPTIONS, INT_OPTIONS
from games.red_phoenix.options import CARD_SET_FIELD, parse_options
from games.red_phoenix.reference import reference_text

GAME = "red-phoenix"
TITLES = {
    "starting_health": "starting Health",
    "starting_coins": "starting coins",
    "ap_per_turn": "AP per turn",
    "coins_per_ap": "coins per AP",
    "hand_limit": "hand limit",
    "formula_markers": "formula markers",
    "monster_attacks": "monster attacks",
    "max_trade_offers": "trade offers per turn",
    "max_rounds": "round limit",
    "action_timeout": "on an action's time-out",
    "simple_failure": "simple failure gives",
    "consolation_rule": "consolation",
}


def setup_config(options: str, window: int | None, reaction_window: int | None) -> dict[str, JSON]:
    """The config of ``/phoenix setup`` without its card set: the options line, and the timers
    as the rules' options (so an exported script says how long the windows were)."""
    config = parse_options(options)
    if window is not None:
        config["window_s"] = window
    if reaction_window is not None:
        config["reaction_window_s"] = reaction_window
    return config


def card_set_from_bytes(data: bytes) -> JSON:
    """An attached card set file as JSON (the engine then checks it against the format);
    ConfigError ``card_set`` when it is too large, not UTF-8 text or not one JSON object."""
    return options.json_file(data, CARD_SET_FIELD)


async def read_card_set(attachment: discord.Attachment) -> JSON:
    """The attached file's card set, size-capped before it is downloaded."""
    return await options.read_json_file(attachment, CARD_SET_FIELD)


# --- rendering ------------------------------------------------------------------------------


def options_text(config: dict[str, JSON]) -> str:
    """The options a config changes from the rules page's defaults, in words."""
    defaults = {
        **{k: d for k, (d, _, _) in INT_OPTIONS.items()},
        **{k: v[0] for k, v in CHOICE_OPTIONS.items()},
    }
    parts = []
    for key, title in TITLES.items():
        value = config.get(key, defaults[key])
        if value != defaults[key]:
            parts.append(f"{title} {str(value).replace('_', ' ')}")
    return f"Options: {', '.join(parts)}." if parts else "Options: the rules page's defaults."


def setup_text(record: MatchRecord, mentions: list[str]) -> str:
    timers = timers_text(record, {"turn": "Action windows", "reaction": "Reaction windows"})
    cards = card_set_of(record.config.get("card_set", "house"))
    own = " (the moderator's own)" if record.config.get("card_set", "house") != "house" else ""
    seed = " Dealt from a chosen seed." if record.config.get("seed") is not None else ""
    return (
        f"🔥 Match **{record.id}**: Red Phoenix of the Alchemists, {players_text(mentions)}."
        f" Card set: {cards.name}{own}. {options_text(record.config)}{seed} {timers}"
        f" Your turns, your hand and your private results come by DM, where you answer too."
        f" Next: `/phoenix start match:m{record.id}`."
    )


# --- commands -------------------------------------------------------------------------------


@app_commands.guild_only()
class RedPhoenixCog(
    commands.GroupCog, group_name="phoenix", group_description="Red Phoenix of the Alchemists"
):
    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot
        super().__init__()

    @app_commands.command(description="Create a Red Phoenix match (2-5 players) in this channel")
    @app_commands.describe(
        player1="The first player (P1)",
        player2="The second player (P2)",
        player3="A third player",
        player4="A fourth player",
        player5="A fifth player",
        card_set="A group's own card set: a JSON file in the house set's format",
        options="Rules options, e.g. starting_health=8, max_rounds=20, seed=42",
        window="Seconds for each action, keep and discard (default 60)",
        reaction_window="Seconds to ward or answer a trade (default 30)",
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
        card_set: discord.Attachment | None = None,
        options: str = "",
        window: app_commands.Range[int, 1, 3600] | None = None,
        reaction_window: app_commands.Range[int, 1, 3600] | None = None,
    ) -> None:
        members = [m for m in (player1, player2, player3, player4, player5) if m]
        try:
            config = setup_config(options, window, reaction_window)
            if card_set is not None:  # at most 256 KB: read well within the 3 s to answer
                config[CARD_SET_FIELD] = await read_card_set(card_set)
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

    @app_commands.command(
        description="This match's cards by name: ingredients, items, methods, results"
    )
    @app_commands.describe(match="The match")
    @app_commands.autocomplete(match=match_autocomplete)
    async def cards(self, interaction: discord.Interaction, match: str) -> None:
        record = await game_match(interaction, match, GAME)
        cards = card_set_of(record.config.get("card_set", "house"))
        await respond_text(
            interaction,
            f"The card set of match {match_name(record.id)}: {cards.name}",
            reference_text(record.config),
            f"card-set-{match_name(record.id)}.txt",
        )

    @app_commands.command(description="Start the match: the first turn begins")
    @app_commands.describe(match="The match")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def start(self, interaction: discord.Interaction, match: str) -> None:
        await start_match(self.bot, interaction, match, GAME)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(RedPhoenixCog(bot))
