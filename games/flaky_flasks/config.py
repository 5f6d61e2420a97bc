"""Options (rules page §16), the content set choice (§11) and the unlock schedule (§2.4)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from games.protocol import JSON, ConfigError
from games.text import excerpt, field_name

from .content import HOUSE, Content, read_content
from .state import Config

MAX_WINDOW_S = 24 * 3600
# key -> (default, low, high) for whole numbers; bools and choices below
INT_OPTIONS: dict[str, tuple[int, int, int]] = {
    "fume_decay": (1, 0, 5),
    "hand_size": (5, 1, 10),
    "slots": (4, 1, 8),
    "channel_length": (3, 1, 6),
    "river_size": (4, 1, 8),
    "tableau_size": (3, 1, 8),
    "window_s": (60, 1, MAX_WINDOW_S),
    "work_window_s": (120, 1, MAX_WINDOW_S),
    "reaction_window_s": (20, 1, MAX_WINDOW_S),
}
DEFAULTS: dict[str, JSON] = {
    "rounds": 12,
    "bargain": True,
    "prompt_mode": "eligible",
    **{key: spec[0] for key, spec in INT_OPTIONS.items()},
    "content_set": "house",
}
RULE_KEYS = tuple(DEFAULTS)
SEED_BITS = 63  # the optional ``seed`` option: a moderator's chosen deal (not in DEFAULTS)
ROUNDS = (6, 9, 12)
# every whole-number option's range, as ``GameInfo.ranges`` declares it (``rounds``: 6, 9, 12)
RANGES = {key: (low, high) for key, (_, low, high) in INT_OPTIONS.items()}
RANGES |= {"rounds": (min(ROUNDS), max(ROUNDS)), "seed": (0, 2**SEED_BITS - 1)}
TIMING_KEYS = ("window_s", "work_window_s", "reaction_window_s")


@dataclass(frozen=True, slots=True)
class Schedule:
    """§2.4: when tiers and panels unlock, and the Bargain rounds."""

    tier2: int  # cards + tiles unlock after this round
    tier3: int
    panels2: tuple[int, ...]  # one panel revealed after each listed round
    panels3: tuple[int, ...]
    bargain_last: int


SCHEDULES = {
    12: Schedule(4, 8, (4, 5, 6), (8, 9, 10), 8),
    9: Schedule(3, 6, (3, 4, 5), (6, 7, 8), 6),
    6: Schedule(2, 4, (2, 2, 3), (4, 4, 5), 4),
}


def parse_config(raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
    """Defaults filled in and every value checked; ConfigError names the bad field."""
    if not isinstance(raw, Mapping):
        raise ConfigError("config", "must be an object")
    for key in raw:
        if key not in DEFAULTS and key != "seed":
            raise ConfigError(field_name(key), "unknown option")
    if not 2 <= seats <= 4:
        raise ConfigError("players", f"Flaky Flasks is for 2 to 4 players, not {seats}")
    config = {**DEFAULTS, **raw}
    rounds = config["rounds"]
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds not in SCHEDULES:
        raise ConfigError("rounds", f"must be 6, 9 or 12, got {excerpt(rounds)}")
    if not isinstance(config["bargain"], bool):
        raise ConfigError("bargain", f"must be true or false, got {excerpt(config['bargain'])}")
    if not isinstance(config["prompt_mode"], str) or config["prompt_mode"] not in (
        "eligible",
        "all",
    ):
        raise ConfigError(
            "prompt_mode", f"must be eligible or all, got {excerpt(config['prompt_mode'])}"
        )
    for key, (_, low, high) in INT_OPTIONS.items():
        value = config[key]
        if isinstance(value, float) and value.is_integer() and key in TIMING_KEYS:
            value = config[key] = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(key, f"must be a whole number {low}..{high}, got {excerpt(value)}")
    if "seed" in config:
        seed = config["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**SEED_BITS:
            raise ConfigError(
                "seed", f"must be a whole number from 0 below 2**{SEED_BITS}, got {excerpt(seed)}"
            )
    content = config["content_set"]
    if content != "house":
        if isinstance(content, str):
            raise ConfigError(
                "content_set", f'must be "house" or a content set object, got {excerpt(content)}'
            )
        read_content(content)  # raises naming content_set.<field>
        config["content_set"] = json.loads(json.dumps(content))
    return config


def typed(config: Mapping[str, JSON]) -> Config:
    """A config ``parse_config`` filled in and checked, as the type it is."""
    return cast(Config, config)


def match_seed(config: Mapping[str, JSON], seed: int) -> int:
    """The seed a match draws from: the config's ``seed`` when it sets one (a moderator's
    chosen deal), else the host's."""
    value = config.get("seed")
    return value if isinstance(value, int) and not isinstance(value, bool) else seed


def content_key(config: Mapping[str, JSON]) -> str:
    raw = config["content_set"]
    if raw == "house":
        return "house"
    return hashlib.sha256(json.dumps(raw, sort_keys=True).encode()).hexdigest()[:16]


_CACHE: dict[str, Content] = {"house": HOUSE}


def content_for(config: Mapping[str, JSON], key: str) -> Content:
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) > 64:
            _CACHE.clear()
            _CACHE["house"] = HOUSE
        found = _CACHE[key] = read_content(config["content_set"])
    return found
