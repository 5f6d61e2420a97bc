"""The options of rules page §16, checked; ConfigError names the key."""

from __future__ import annotations

from collections.abc import Mapping

from games.protocol import JSON, ConfigError
from games.text import excerpt, field_name

from .cards import card_set_of, read_card_set

MIN_SEATS, MAX_SEATS = 2, 5
DEFAULT_WINDOW_S = 60
DEFAULT_REACTION_S = 30
MAX_WINDOW_S = 3600

# key -> (default, minimum, maximum). The rules page (§16) sets only the minimums; the maximums
# are house bounds no real match comes near, so that no option makes a prompt, a state or a
# step unbounded (``ap_per_turn`` is the number of ``take`` buttons).
INT_OPTIONS: dict[str, tuple[int, int, int]] = {
    "starting_health": (10, 1, 99),
    "starting_coins": (2, 0, 99),
    "ap_per_turn": (3, 1, 10),
    "coins_per_ap": (3, 1, 10),
    "hand_limit": (7, 1, 30),
    "formula_markers": (10, 1, 20),
    "monster_attacks": (2, 0, 10),
    "max_trade_offers": (2, 0, 10),
    "max_rounds": (60, 1, 200),
    "window_s": (DEFAULT_WINDOW_S, 1, MAX_WINDOW_S),
    "reaction_window_s": (DEFAULT_REACTION_S, 1, MAX_WINDOW_S),
}
CHOICE_OPTIONS: dict[str, tuple[str, ...]] = {  # key -> (default, alternatives...)
    "action_timeout": ("take_coins", "end"),
    "simple_failure": ("market", "nothing"),
    "consolation_rule": ("no_card", "no_success"),
}
OPTION_KEYS = ("card_set", "seed", *INT_OPTIONS, *CHOICE_OPTIONS)
SEED_BITS = 63
# every whole-number option's range, as ``GameInfo.ranges`` declares it
RANGES = {key: (low, high) for key, (_, low, high) in INT_OPTIONS.items()}
RANGES["seed"] = (0, 2**SEED_BITS - 1)


def match_seed(config: Mapping[str, JSON], seed: int) -> int:
    """The seed a match draws from: the config's ``seed`` when it sets one (a moderator's
    chosen deal), else the host's."""
    value = config.get("seed")
    return value if isinstance(value, int) and not isinstance(value, bool) else seed


def check_seats(seats: int) -> None:
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ConfigError(
            "seats", f"Red Phoenix takes {MIN_SEATS} to {MAX_SEATS} players, got {seats}"
        )


def parse_config(raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
    """Defaults filled in, every value checked (§16)."""
    if not isinstance(raw, Mapping):
        raise ConfigError("config", "must be an object")
    check_seats(seats)
    for key in raw:
        if key not in OPTION_KEYS:
            raise ConfigError(field_name(key), "unknown option")
    config: dict[str, JSON] = {}
    card_set = raw.get("card_set", "house")
    if card_set != "house":
        read_card_set(card_set, "card_set")  # refuses a bad set, naming the field
    config["card_set"] = card_set
    if "seed" in raw:
        seed = raw["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**SEED_BITS:
            raise ConfigError(
                "seed", f"must be a whole number from 0 below 2**{SEED_BITS}, got {excerpt(seed)}"
            )
        config["seed"] = seed
    for key, (default, low, high) in INT_OPTIONS.items():
        value = raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(
                key, f"must be a whole number from {low} to {high}, got {excerpt(value)}"
            )
        config[key] = value
    for key, allowed in CHOICE_OPTIONS.items():
        value = raw.get(key, allowed[0])
        if value not in allowed:
            raise ConfigError(
                key, f"must be one of {', '.join(map(repr, allowed))}, got {excerpt(value)}"
            )
        config[key] = value
    card_set_of(card_set)
    return config
