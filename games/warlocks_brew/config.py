"""Warlock's Brew setup: the config options, their defaults and checks, and the deck they build.

Every option of ``shared/rules/warlocks-brew.md`` is one flat key, so a config is a small JSON
object the host can store and show. House defaults are marked [HOUSE] in the rules page.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.protocol import JSON, ConfigError
from games.text import OTHER_NUMERALS, excerpt, field_name, has_other_numerals

INGREDIENTS = (
    "Eye of Newt",
    "Bat Wing",
    "Toadstool",
    "Mandrake Root",
    "Raven Feather",
    "Wolfsbane",
    "Nightshade",  # the 7th and 8th types exist only for the `types` option (G1)
    "Dragon Scale",
)
MIN_TYPES, MAX_TYPES = 4, len(INGREDIENTS)
MIN_COPIES, MAX_COPIES = 4, 6
TRIPLE = 3
COIN_RETURN_AT = 3  # A2: three (or more) coins in front all go back to hand
MAX_WINDOW_S = 24 * 3600.0
NO_UNIQUE_MODES = ("remove", "rebid")

VARIANT_KEYS = (
    "two_players",
    "broke_buyers",
    "limited_supply",
    "small_selection",
    "impotent_ingredient",
    "storefront_disaster",
    "snakeoil_salesman",
    "vision_of_blindness",
    "utter_darkness",
    "magic_infused",
    "deal_window",
)
RULE_KEYS = ("window", "types", "copies", "no_unique")
MAX_EFFECTS = 6  # G2: k in 0..6, one card per effect of the table
DEFAULT_DEAL_WINDOW_S = 30  # A7: a bare ``deal_window`` switches it on for this long
MAX_DEAL_WINDOW_S = 600
# every whole-number option's range, as ``GameInfo.ranges`` declares it: the most any config
# accepts (A8: a setup must leave some type able to reach three copies, so fewer types or
# copies allow less); the window takes fractions of a second too, above 0
_MOST_SPARE = MAX_TYPES * (MAX_COPIES - (TRIPLE - 1))  # copies past the second, at most
RANGES = {
    "window": (1, int(MAX_WINDOW_S)),
    "types": (MIN_TYPES, MAX_TYPES),
    "copies": (MIN_COPIES, MAX_COPIES),
    "limited_supply": (0, MAX_COPIES - TRIPLE),
    "storefront_disaster": (0, _MOST_SPARE - 1),
    "snakeoil_salesman": (0, _MOST_SPARE - 1),
    "magic_infused": (0, MAX_EFFECTS),
    "deal_window": (0, MAX_DEAL_WINDOW_S),
}
DEFAULT_WINDOW_S = 45  # the bid window, in seconds
UNSUPPORTED = {"deals": "the Deal Window is the deal_window option, e.g. deal_window=30"}


def parse_config(raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
    """Defaults filled in and every value checked; ConfigError names the bad field."""
    if not isinstance(raw, Mapping):
        raise ConfigError("config", "must be an object")
    for key in raw:
        if key in UNSUPPORTED:
            raise ConfigError(key, UNSUPPORTED[key])
        if key not in RULE_KEYS and key not in VARIANT_KEYS:
            raise ConfigError(field_name(key), "unknown option")
    types = _int(raw, "types", 6, MIN_TYPES, MAX_TYPES)
    copies = _int(raw, "copies", 5, MIN_COPIES, MAX_COPIES)
    in_play = INGREDIENTS[:types]
    config: dict[str, JSON] = {
        "window": _window(raw),
        "types": types,
        "copies": copies,
        "no_unique": _choice(raw, "no_unique", NO_UNIQUE_MODES),
        "two_players": _bool(raw, "two_players", seats == 2),
        "broke_buyers": _bool(raw, "broke_buyers", False),
        "limited_supply": _int(raw, "limited_supply", 0, 0, copies),
        "small_selection": _types(raw, "small_selection", in_play),
        "impotent_ingredient": _types(raw, "impotent_ingredient", in_play),
        "storefront_disaster": _int(raw, "storefront_disaster", 0, 0, types * copies),
        "snakeoil_salesman": _int(raw, "snakeoil_salesman", 0, 0, types * copies),
        "vision_of_blindness": _bool(raw, "vision_of_blindness", False),
        "utter_darkness": _bool(raw, "utter_darkness", False),
        "magic_infused": _int(raw, "magic_infused", 0, 0, MAX_EFFECTS),
        "deal_window": _deal_window(raw),
    }
    _check_combination(config, seats)
    _check_reachable(config)
    _check_infusable(config)
    return config


def coin_values(config: Mapping[str, JSON]) -> list[int]:
    """The coins each player is dealt: 1-5, or 1-4 with Broke Buyers."""
    return list(range(1, 5 if config["broke_buyers"] else 6))


def types_in_play(config: Mapping[str, JSON]) -> list[str]:
    removed = set(config["small_selection"])
    return [name for name in INGREDIENTS[: config["types"]] if name not in removed]


def type_counts(config: Mapping[str, JSON]) -> dict[str, int]:
    """Copies of each type left after the setup removals that are not random."""
    impotent = set(config["impotent_ingredient"])
    per_type = config["copies"] - config["limited_supply"]
    return {
        name: max(0, per_type - (TRIPLE if name in impotent else 0))
        for name in types_in_play(config)
    }


def build_deck(
    config: Mapping[str, JSON], rng: random.Random
) -> tuple[list[str], list[str], list[str]]:
    """The shuffled deck (top first), the Storefront cards set aside and the Snakeoil ones."""
    deck = [name for name, count in type_counts(config).items() for _ in range(count)]
    rng.shuffle(deck)
    storefront = int(config["storefront_disaster"])
    snakeoil = int(config["snakeoil_salesman"])
    # The shuffle is already random, so the top cards are a random pick.
    visible, hidden = deck[:storefront], deck[storefront : storefront + snakeoil]
    return deck[storefront + snakeoil :], visible, hidden


def canonical_type(text: str, in_play: list[str] | tuple[str, ...]) -> str | None:
    """The ingredient called ``text`` (any case, spaces trimmed), if it is in play."""
    wanted = " ".join(text.split()).casefold()
    return next((name for name in in_play if name.casefold() == wanted), None)


def _check_combination(config: dict[str, JSON], seats: int) -> None:
    if config["two_players"] and seats != 2:
        raise ConfigError("two_players", f"needs exactly 2 players, not {seats}")
    if config["vision_of_blindness"] and config["utter_darkness"]:
        raise ConfigError(
            "utter_darkness", "choose Vision of Blindness or Utter Darkness, not both"
        )
    overlap = set(config["small_selection"]) & set(config["impotent_ingredient"])
    if overlap:
        raise ConfigError(
            "impotent_ingredient", f"{sorted(overlap)[0]} is already removed by small_selection"
        )


def _check_reachable(config: dict[str, JSON]) -> None:
    """A8: refuse a setup in which no type can reach three copies.

    Random removals are refused when *some* draw of them could leave every type below three:
    a setup is checked once, before any card is drawn.
    """
    counts = type_counts(config)
    spare = sum(max(0, count - (TRIPLE - 1)) for count in counts.values())
    if spare == 0:
        raise ConfigError(
            _deterministic_culprit(config), "no ingredient type can reach three copies"
        )
    random_removed = config["storefront_disaster"] + config["snakeoil_salesman"]
    if random_removed >= spare:
        field = "snakeoil_salesman" if config["snakeoil_salesman"] else "storefront_disaster"
        raise ConfigError(
            field,
            f"removing {random_removed} random cards could leave no type with three copies "
            f"(at most {spare - 1} with these options)",
        )


def deck_size(config: Mapping[str, JSON]) -> int:
    """Cards in the deck once the setup has set its cards aside."""
    aside = int(config["storefront_disaster"]) + int(config["snakeoil_salesman"])
    return sum(type_counts(config).values()) - aside


def _check_infusable(config: dict[str, JSON]) -> None:
    """G2: each effect goes on a card of its own."""
    size = deck_size(config)
    if config["magic_infused"] > size:
        raise ConfigError(
            "magic_infused", f"must be at most {size}: the deck has {size} cards with these options"
        )


def _deal_window(raw: Mapping[str, JSON]) -> int:
    """A7: seconds of the Deal Window between auctions; 0 is off, ``true`` the default."""
    value = raw.get("deal_window", 0)
    if value is True:
        return DEFAULT_DEAL_WINDOW_S
    if value is False:
        return 0
    return _int(raw, "deal_window", 0, 0, MAX_DEAL_WINDOW_S)


def _deterministic_culprit(config: dict[str, JSON]) -> str:
    if config["copies"] - config["limited_supply"] < TRIPLE:
        return "limited_supply"
    if config["impotent_ingredient"]:
        return "impotent_ingredient"
    return "small_selection"


def _int(raw: Mapping[str, JSON], key: str, default: int, low: int, high: int) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        odd = isinstance(value, str) and has_other_numerals(value)
        hint = f" ({OTHER_NUMERALS})" if odd else ""
        raise ConfigError(key, f"must be a whole number from {low} to {high}{hint}")
    if not low <= value <= high:
        raise ConfigError(key, f"must be from {low} to {high}, not {excerpt(value)}")
    return value


def _bool(raw: Mapping[str, JSON], key: str, default: bool) -> bool:
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise ConfigError(key, "must be true or false")
    return value


def _choice(raw: Mapping[str, JSON], key: str, options: tuple[str, ...]) -> str:
    value = raw.get(key, options[0])
    if not isinstance(value, str) or value not in options:
        raise ConfigError(key, f"must be one of {', '.join(options)}")
    return str(value)


def _window(raw: Mapping[str, JSON]) -> float | int:
    value = raw.get("window", DEFAULT_WINDOW_S)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError("window", "must be a number of seconds")
    if not 0 < value <= MAX_WINDOW_S:
        raise ConfigError("window", f"must be more than 0 and at most {MAX_WINDOW_S:g} seconds")
    return value


def _types(raw: Mapping[str, JSON], key: str, in_play: tuple[str, ...]) -> list[str]:
    value: Any = raw.get(key, [])
    if isinstance(value, str) or not isinstance(value, list):
        raise ConfigError(key, "must be a list of ingredient types")
    names: list[str] = []
    for item in value:
        name = canonical_type(item, in_play) if isinstance(item, str) else None
        if name is None:
            raise ConfigError(key, f"{excerpt(item)} is not a type in play ({', '.join(in_play)})")
        if name in names:
            raise ConfigError(key, f"{name} is listed twice")
        names.append(name)
    return names
