"""Potioncraft rules options (``potioncraft.md`` §16): defaults, checks, and the one host
extension ``max_actions``.

``max_actions`` [host extension] caps the main-phase actions of one turn (default 40): after that
many actions the main phase ends as if ``end`` were sent. The rules put no bound on a turn
(Summon from Beyond can take back a spell that takes back the first one, forever), and a hosted
match must end.

``seed`` [host extension, optional, no default] fixes the match's randomness (the deal, the start
player, every random card) to this number instead of the host's own seed: a moderator can deal
the same match again (a tournament, a bug report), and a test can choose its situations. A
config without it is unchanged; the match still replays bit for bit from its config.
"""

from __future__ import annotations

from collections.abc import Mapping

from games.protocol import JSON, ConfigError
from games.text import excerpt, field_name

MIN_SEATS, MAX_SEATS = 2, 6
HAND_SIZE = 9  # §2: cards dealt to each player
MAX_WINDOW_S = 24 * 3600.0

DEFAULTS: dict[str, JSON] = {
    "window_s": 60,
    "reaction_s": 20,
    "table_limit": 9,
    "potion_set": "standard",
    "win_check": "immediate",
    "draw_own_pile": True,
    "hand_reset_deal": "same",
    "request_block_passes": True,
    "two_player_twist": "reverse",
    "chain_mode": "exact4",
    "max_turns": 200,
    "foul_elixir_discards": 2,
    "reaction_wait_full": False,
    "max_actions": 40,
}
CHOICES: dict[str, tuple[str, ...]] = {
    "potion_set": ("standard", "all18"),
    "win_check": ("immediate", "end_of_turn"),
    "hand_reset_deal": ("same", "full"),
    "two_player_twist": ("reverse", "skip"),
    "chain_mode": ("exact4", "no_substitution"),
}
BOOLEANS = ("draw_own_pile", "request_block_passes", "reaction_wait_full")
INTEGERS: dict[str, tuple[int, int]] = {
    "table_limit": (0, 99),
    "foul_elixir_discards": (0, 99),
    "max_actions": (1, 1000),
    "max_turns": (1, 100_000),
}
SECONDS = ("window_s", "reaction_s")
SEED_BITS = 63
# every whole-number option's range, as ``GameInfo.ranges`` declares it (the window lengths
# take fractions of a second too; ``max_turns`` also takes null: no limit)
RANGES = {**INTEGERS, **{key: (1, int(MAX_WINDOW_S)) for key in SECONDS}}
RANGES["seed"] = (0, 2**SEED_BITS - 1)
RULE_KEYS = tuple(DEFAULTS)
KNOWN_KEYS = (*RULE_KEYS, "seed")


def check_seats(seats: int) -> None:
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ConfigError("seats", f"Potioncraft needs {MIN_SEATS} to {MAX_SEATS} players")


def parse_config(raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
    """Defaults filled in and every value checked; ConfigError names the bad field."""
    if not isinstance(raw, Mapping):
        raise ConfigError("config", "must be an object")
    for key in raw:
        if key not in KNOWN_KEYS:
            raise ConfigError(field_name(key), f"unknown option; known: {', '.join(KNOWN_KEYS)}")
    config = dict(DEFAULTS)
    for key, value in raw.items():
        config[key] = _value(str(key), value)
    return config


def match_seed(config: Mapping[str, JSON], seed: int) -> int:
    """The seed a match draws from: the config's ``seed`` when it sets one, else the host's."""
    value = config.get("seed")
    return value if isinstance(value, int) and not isinstance(value, bool) else seed


def _value(key: str, value: JSON) -> JSON:
    if key == "seed":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**SEED_BITS:
            raise ConfigError(
                key, f"must be a whole number 0 to 2**{SEED_BITS} - 1, got {excerpt(value)}"
            )
        return value
    if key in CHOICES:
        if not isinstance(value, str) or value not in CHOICES[key]:
            raise ConfigError(
                key, f"must be one of {', '.join(CHOICES[key])}, got {excerpt(value)}"
            )
        return value
    if key in BOOLEANS:
        if not isinstance(value, bool):
            raise ConfigError(key, f"must be true or false, got {excerpt(value)}")
        return value
    if key in SECONDS:
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            raise ConfigError(key, f"must be a number of seconds, got {excerpt(value)}")
        if not 1 <= value <= MAX_WINDOW_S:
            raise ConfigError(
                key, f"must be 1 to {int(MAX_WINDOW_S)} seconds, got {excerpt(value)}"
            )
        return value
    low, high = INTEGERS[key]
    if key == "max_turns" and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        extra = " or null" if key == "max_turns" else ""
        raise ConfigError(
            key, f"must be a whole number {low} to {high}{extra}, got {excerpt(value)}"
        )
    return value
