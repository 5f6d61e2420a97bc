"""Warlock's Brew options as a moderator types them: ``broke_buyers, limited_supply=4,
small_selection=Toadstool+Bat Wing``. Values are only read here; ``parse_config`` checks them."""

from __future__ import annotations

import re

from games.protocol import JSON, ConfigError
from games.text import excerpt, read_number

from .config import INGREDIENTS, RULE_KEYS, UNSUPPORTED, VARIANT_KEYS, canonical_type

LIST_KEYS = ("small_selection", "impotent_ingredient")
OPTION_KEYS = tuple(key for key in (*VARIANT_KEYS, *RULE_KEYS) if key != "window")
_ITEM_SEPARATORS = re.compile(r"[,;\n]")
_LIST_SEPARATORS = re.compile(r"[+/|]")
_TRUE = ("true", "yes", "on")
_FALSE = ("false", "no", "off")


def option_key(text: str) -> str:
    """``"Limited Supply"`` and ``"limited-supply"`` both name ``limited_supply``."""
    return re.sub(r"[\s\-]+", "_", text.strip().casefold())


def parse_variants(text: str) -> dict[str, JSON]:
    """The raw config a variants line asks for; ConfigError("variants", ...) if unreadable.

    Values are only read here; the engine's ``parse_config`` checks them (ranges, types in
    play, combinations) and names the option at fault.
    """
    raw: dict[str, JSON] = {}
    last_list: str | None = None
    for item in (part.strip() for part in _ITEM_SEPARATORS.split(text)):
        if not item:
            continue
        name, has_value, value = item.partition("=")
        key = option_key(name)
        if not has_value and key not in OPTION_KEYS and key not in UNSUPPORTED:
            if last_list is not None and canonical_type(item, INGREDIENTS) is not None:
                target = raw[last_list]
                assert isinstance(target, list)
                target.append(item)
                continue
            raise ConfigError("variants", f"{excerpt(item)} is not an option; {_known()}")
        if key == "window":
            raise ConfigError("variants", "set the window with the window option")
        if key in UNSUPPORTED:
            raise ConfigError(key, UNSUPPORTED[key])
        if key not in OPTION_KEYS:
            raise ConfigError("variants", f"{excerpt(name.strip())} is not an option; {_known()}")
        if key in raw:
            raise ConfigError(key, "is given twice")
        value = value.strip()
        if has_value and not value:
            raise ConfigError(key, "needs a value after '='")
        raw[key] = _value(key, value if has_value else None)
        last_list = key if key in LIST_KEYS else None
    return raw


def _value(key: str, text: str | None) -> JSON:
    if key in LIST_KEYS:
        if text is None:
            raise ConfigError(key, "name the ingredient types, e.g. small_selection=Toadstool")
        return [part.strip() for part in _LIST_SEPARATORS.split(text) if part.strip()]
    if text is None:
        return True
    number = read_number(text.removeprefix("-"))  # ASCII digits only: the games' one reading
    if number is not None:
        return -number if text.startswith("-") else number
    lowered = text.casefold()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    return lowered


def _known() -> str:
    return "known: " + ", ".join(OPTION_KEYS)
