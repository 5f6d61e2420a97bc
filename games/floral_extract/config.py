"""Floral Extract's configuration: the options of rules §15, with the recommended defaults."""

from __future__ import annotations

import re
from collections.abc import Mapping

from games.protocol import JSON, ConfigError
from games.text import (
    MAX_DIGITS,
    OTHER_NUMERALS,
    checked_text,
    excerpt,
    field_name,
    has_other_numerals,
    read_number,
)

from . import books
from .rules import SEAT_NAMES

# key -> (default, allowed values or None for "checked below")
CHOICES: dict[str, tuple[JSON, tuple[JSON, ...]]] = {
    "initial_weather": ("sunny", ("sunny", "chilly", "rainy", "random")),
    "azalea_shrink_mode": ("sliding", ("sliding", "reset")),
    "guess_cost_mode": ("formula", ("formula", "prose")),
    "declaration_without_charge": ("reject", ("reject", "dud")),
    "allow_resubmit_after_valid": (False, (False, True)),
    "opponent_report_shows_empty_pots": (True, (True, False)),
    "advantage": ("P1", SEAT_NAMES),
}
DEFAULT_TIMEOUT_S = 60.0
MAX_TIMEOUT_S = 3600
DEFAULT_MAX_TURNS = 100
MAX_TURNS = 1000  # a house bound: a match of 100 turns is long (null: no limit at all)
# every whole-number option's range, as ``GameInfo.ranges`` declares it (the window takes
# fractions of a second too, above 0)
RANGES = {"max_turns": (1, MAX_TURNS), "submission_timeout_s": (1, MAX_TIMEOUT_S)}
MAX_PRESET_NAME = 60
# Keys a match script may set in its "config" object (the rules options).
SCRIPT_KEYS = frozenset(CHOICES) - {"advantage"} | {"max_turns"}
# The name of the preset a concrete spellbook came from, kept for display only.
PRESET_KEY = "spellbook_preset"
ALL_KEYS = frozenset(CHOICES) | {"max_turns", "submission_timeout_s", "spellbook", "maps"}
ALL_KEYS |= {PRESET_KEY}


def parse_config(raw: Mapping[str, JSON], allowed: frozenset[str] = ALL_KEYS) -> dict[str, JSON]:
    """Every option filled in and checked. A preset's name becomes its concrete spellbook here,
    so the stored config never depends on a preset file that may change later. Any other
    ``spellbook`` and ``maps`` pass through unchecked: the engine resolves them when the match
    is made (a random book needs the seed)."""
    if not isinstance(raw, Mapping):
        raise ConfigError("config", "must be an object")
    for key in raw:
        if key not in allowed:
            raise ConfigError(f"config.{field_name(key)}", "is not a Floral Extract option")
    config: dict[str, JSON] = {}
    for key, (default, allowed_values) in CHOICES.items():
        value = raw.get(key, default)
        if value not in allowed_values or isinstance(value, bool) != isinstance(default, bool):
            options = ", ".join(map(_show, allowed_values))
            raise ConfigError(f"config.{key}", f"must be one of {options}, got {_show(value)}")
        config[key] = value
    config["max_turns"] = _max_turns(raw.get("max_turns", DEFAULT_MAX_TURNS))
    config["submission_timeout_s"] = _timeout(raw.get("submission_timeout_s", DEFAULT_TIMEOUT_S))
    config["spellbook"], preset = _spellbook(raw)
    if preset is not None:
        config[PRESET_KEY] = preset
    if "maps" in raw:
        config["maps"] = raw["maps"]
    return config


def _spellbook(raw: Mapping[str, JSON]) -> tuple[JSON, str | None]:
    """The spellbook value and the preset it came from: a preset's name is read now (per-player
    books' too: ``P1 classic, P2 gentle``); a concrete book keeps the preset name given beside
    it (a text or ``random`` has none)."""
    value = raw.get("spellbook", "random")
    if isinstance(value, str):
        preset = books.preset_named(value)
        if preset is not None:
            return books.load_preset(preset).to_json(), preset
    seats = books.seat_presets(value)
    if seats:  # per-player books naming presets (AMBIGUITY 20): read now, as a shared one is
        named = ", ".join(f"{seat} {seats[seat]}" for seat in SEAT_NAMES if seat in seats)
        return _read_seat_presets(value, seats), named
    if isinstance(value, str):
        return value, None
    note = raw.get(PRESET_KEY)
    if note is not None:
        checked_text(note, f"config.{PRESET_KEY}", MAX_PRESET_NAME)
    return value, note


def _read_seat_presets(value: JSON, seats: Mapping[str, str]) -> JSON:
    """Per-player books with the presets they name read into books (text: every seat read; a
    JSON seat's other value as given, for the engine to resolve)."""
    if isinstance(value, str):
        return books.parse_text(value).to_json()
    assert isinstance(value, dict)
    return {
        seat: books.load_preset(seats[seat]).to_json() if seat in seats else value[seat]
        for seat in SEAT_NAMES
    }


def _show(value: JSON) -> str:
    return "true" if value is True else "false" if value is False else _plain(value)


def _plain(value: JSON) -> str:
    """A value as a moderator wrote it, unquoted, and short (``excerpt`` without quotes)."""
    return field_name(value, 60) if isinstance(value, str) else excerpt(value)


def _max_turns(value: JSON) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TURNS:
        raise ConfigError(
            "config.max_turns",
            f"must be a whole number from 1 to {MAX_TURNS}, or null, got {excerpt(value)}",
        )
    return value


def _timeout(value: JSON) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 < value <= MAX_TIMEOUT_S
    ):
        raise ConfigError(
            "config.submission_timeout_s",
            f"must be a number of seconds above 0, at most {MAX_TIMEOUT_S}, got {excerpt(value)}",
        )
    return float(value)


def parse_rules_text(text: str) -> dict[str, JSON]:
    """Rules options as a moderator types them: ``azalea_shrink_mode=reset, max_turns=60``.

    Values are read as true/false, null (no limit), whole numbers, or words; the options are
    checked by ``parse_config`` when the match is made.
    """
    rules: dict[str, JSON] = {}
    for part in filter(None, (p.strip() for p in re.split(r"[,;\n]", text))):
        key, sep, value = (s.strip() for s in part.partition("="))
        key = key.lower().replace("-", "_").replace(" ", "_")
        if key not in SCRIPT_KEYS:
            key = field_name(key)
        if not sep or not value:
            raise ConfigError(
                "rules", f"write option=value, e.g. max_turns=60 (got {excerpt(part)})"
            )
        if key not in SCRIPT_KEYS:
            known = ", ".join(sorted(SCRIPT_KEYS))
            raise ConfigError(f"rules.{key}", f"is not a rules option; the options are {known}")
        rules[key] = _rule_value(value, f"rules.{key}")
    return rules


def _rule_value(text: str, field: str) -> JSON:
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered in ("null", "none", "unlimited"):
        return None
    number = read_number(lowered)
    if number is not None:
        return number
    if lowered.isnumeric() or has_other_numerals(lowered):
        raise ConfigError(
            field, f"{OTHER_NUMERALS}, at most {MAX_DIGITS} of them, got {excerpt(text)}"
        )
    return lowered
