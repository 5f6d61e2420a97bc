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

import json
import re

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import FloralBot
from bot.host import HostError
from bot.store import MatchRecord
from cogs.common import (
    game_match,
    match_autocomplete,
    match_name,
    moderator_only,
    respond,
    respond_text,
)
from cogs.setup import create_match, players_text, refusal, start_match, timer_lengths, timers_text
from games.protocol import JSON, ConfigError
from games.red_phoenix.cards import card_set_of
from games.red_phoenix.config import CHOICE_OPTIONS, INT_OPTIONS
from games.red_phoenix.render import card_set_text
from games.text import excerpt

GAME = "red-phoenix"
OPTIONS_FIELD = "options"
CARD_SET_FIELD = "card_set"
CARD_SET_BYTES = 256 * 1024  # a card set file larger than this is refused unread
TIMER_OPTION = {"window_s": "window", "reaction_window_s": "reaction_window"}
OPTION_KEYS = (
    *(k for k in INT_OPTIONS if k not in TIMER_OPTION),
    *CHOICE_OPTIONS,
    "seed",
)
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


# --- the options line -----------------------------------------------------------------------


def option_key(name: str) -> str:
    """``"Max Rounds"``, ``"max-rounds"`` -> ``"max_rounds"``."""
    return re.sub(r"[\s_-]+", "_", name.strip().casefold()).strip("_")


def parse_options(text: str) -> dict[str, JSON]:
    """The config an options line sets; ConfigError names the option (or ``options``). The
    engine's ``parse_config`` then checks each value's range."""
    config: dict[str, JSON] = {}
    for part in re.split(r"[,;\n]", text):
        if not part.strip():
            continue
        name, has_value, raw = part.partition("=")
        key = option_key(name)
        if key in TIMER_OPTION:
            raise ConfigError(
                OPTIONS_FIELD,
                f"{key} is set by the command's `{TIMER_OPTION[key]}` option, not here",
            )
        if key == CARD_SET_FIELD:
            raise ConfigError(OPTIONS_FIELD, "a card set is given as an attached JSON file")
        if key not in OPTION_KEYS:
            known = ", ".join(OPTION_KEYS)
            raise ConfigError(
                OPTIONS_FIELD, f"{excerpt(name.strip())} is not an option; known: {known}"
            )
        if key in config:
            raise ConfigError(key, "given twice")
        value = raw.strip()
        if not has_value or not value:
            raise ConfigError(key, "needs a value: write it as name=value")
        config[key] = option_value(key, value)
    return config


def option_value(key: str, value: str) -> JSON:
    """One option's text as its config value."""
    if key in CHOICE_OPTIONS:
        word = option_key(value)
        if word not in CHOICE_OPTIONS[key]:
            raise ConfigError(
                key, f"must be one of {', '.join(CHOICE_OPTIONS[key])}, got {excerpt(value)}"
            )
        return word
    if not re.fullmatch(r"[0-9]{1,20}", value):
        raise ConfigError(key, f"must be a whole number, got {excerpt(value)}")
    return int(value)


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
    if len(data) > CARD_SET_BYTES:
        raise ConfigError(
            CARD_SET_FIELD, f"the file has {len(data)} bytes; at most {CARD_SET_BYTES} are read"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(CARD_SET_FIELD, "the file is not UTF-8 text") from None
    try:
        value = json.loads(text)
    except ValueError as error:
        where = getattr(error, "lineno", None)
        at = f" (line {where})" if where is not None else ""
        raise ConfigError(CARD_SET_FIELD, f"the file is not valid JSON{at}") from None
    if not isinstance(value, dict):
        raise ConfigError(CARD_SET_FIELD, "the file must hold one JSON object")
    return value


async def read_card_set(attachment: discord.Attachment) -> JSON:
    """The attached file's card set, size-capped before it is downloaded."""
    if attachment.size > CARD_SET_BYTES:
        raise ConfigError(
            CARD_SET_FIELD,
            f"the file has {attachment.size} bytes; at most {CARD_SET_BYTES} are read",
        )
    try:
        data = await attachment.read()
    except (discord.HTTPException, discord.NotFound):
        raise ConfigError(CARD_SET_FIELD, "the file could not be downloaded") from None
    return card_set_from_bytes(data)


# --- rendering ------------------------------------------------------------------------------


def options_text(config: dict[str, JSON]) -> str:
    """The options a config changes from the rules page's defaults, in words."""
    defaults = {
        **{k: d for k, (d, _) in INT_OPTIONS.items()},
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
            await respond(interaction, f"✖ No match created. {explain(error)}")
            return
        await create_match(
            self.bot,
            interaction,
            GAME,
            members,
            config,
            setup_text,
            timers=timer_lengths(window=window, reaction_window=reaction_window),
            explain=explain,
        )

    @app_commands.command(description="This match's card set: ingredients, items, methods, results")
    @app_commands.describe(match="The match")
    @app_commands.autocomplete(match=match_autocomplete)
    async def cards(self, interaction: discord.Interaction, match: str) -> None:
        record = await game_match(interaction, match, GAME)
        cards = card_set_of(record.config.get("card_set", "house"))
        await respond_text(
            interaction,
            f"The card set of match {match_name(record.id)}: {cards.name}",
            card_set_text(cards),
            f"card-set-{match_name(record.id)}.txt",
        )

    @app_commands.command(description="Start the match: the first turn begins")
    @app_commands.describe(match="The match")
    @app_commands.autocomplete(match=match_autocomplete)
    @moderator_only()
    async def start(self, interaction: discord.Interaction, match: str) -> None:
        await start_match(self.bot, interaction, match, GAME)


def explain(error: ConfigError | HostError) -> str:
    if isinstance(error, ConfigError) and error.field == OPTIONS_FIELD:
        return f"Bad options: {error.message}."
    return refusal(error)


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    await bot.add_cog(RedPhoenixCog(bot))
