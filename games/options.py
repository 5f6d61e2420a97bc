"""A game's setup options line, as a moderator types it after the setup command (and as
``floral-host simulate`` and ``play`` take it with ``--options``): ``name=value`` pairs of the
game's rules options, separated by commas or semicolons; names ignore case, spaces and dashes.

Each game declares its options once (``OptionsSpec``, in its package, given to the registry as
``GameInfo.parse_options``); the values' ranges are then the engine's ``parse_config``'s to
check. Every error is a ``ConfigError`` naming the option, quoting bad input only as a short
excerpt.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from games.protocol import JSON, ConfigError
from games.text import excerpt

OPTIONS_FIELD = "options"
WORDS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
NONE = ("none", "null", "no_limit", "unlimited")  # a nullable option cleared (no turn limit)


@dataclass(frozen=True)
class OptionsSpec:
    """A game's options line: its true/false options (with ``bare_true`` a bare name switches
    one on), one-of-words options, whole-number options (with the range a refusal names, if
    any), the ones ``nullable`` words (``none``) clear, and the keys set elsewhere (key -> the
    refusal that says where)."""

    bools: tuple[str, ...] = ()
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    ints: Mapping[str, tuple[int, int] | None] = field(default_factory=dict)
    nullable: tuple[str, ...] = ()
    bare_true: bool = False
    elsewhere: Mapping[str, str] = field(default_factory=dict)
    order: tuple[str, ...] = ()  # how a refusal lists them (default: bools, choices, ints)

    @property
    def keys(self) -> tuple[str, ...]:
        return self.order or (*self.bools, *self.choices, *self.ints)


def set_by_command(options: Mapping[str, str]) -> dict[str, str]:
    """``elsewhere`` refusals for config keys the command's own options set (key -> option)."""
    return {
        key: f"{key} is set by the command's `{option}` option, not here"
        for key, option in options.items()
    }


def option_key(name: str) -> str:
    """``"Max Rounds"``, ``"max-rounds"`` -> ``"max_rounds"``."""
    return re.sub(r"[\s_-]+", "_", name.strip().casefold()).strip("_")


def parse_options(text: str, spec: OptionsSpec) -> dict[str, JSON]:
    """The config an options line sets; ConfigError names the option (or ``options``)."""
    config: dict[str, JSON] = {}
    for part in re.split(r"[,;\n]", text):
        if not part.strip():
            continue
        name, has_value, raw = part.partition("=")
        key = option_key(name)
        if key in spec.elsewhere:
            raise ConfigError(OPTIONS_FIELD, spec.elsewhere[key])
        if key not in spec.keys:
            known = ", ".join(spec.keys)
            raise ConfigError(
                OPTIONS_FIELD, f"{excerpt(name.strip())} is not an option; known: {known}"
            )
        if key in config:
            raise ConfigError(key, "given twice")
        value = raw.strip()
        if not has_value and spec.bare_true and key in spec.bools:
            config[key] = True
        elif not has_value:
            raise ConfigError(key, "needs a value: write it as name=value")
        elif not value:
            raise ConfigError(key, "needs a value after =")
        else:
            config[key] = option_value(key, value, spec)
    return config


def option_value(key: str, value: str, spec: OptionsSpec) -> JSON:
    """One option's text as its config value (the engine then checks its range)."""
    word = option_key(value)
    if key in spec.bools:
        if word not in WORDS:
            raise ConfigError(key, f"must be true or false, got {excerpt(value)}")
        return WORDS[word]
    if key in spec.choices:
        if word not in spec.choices[key]:
            known = ", ".join(spec.choices[key])
            raise ConfigError(key, f"must be one of {known}, got {excerpt(value)}")
        return word
    if key in spec.nullable and word in NONE:
        return None
    if not re.fullmatch(r"[0-9]{1,20}", value):
        span = spec.ints.get(key)
        shown = f" {span[0]} to {span[1]}" if span else ""
        raise ConfigError(key, f"must be a whole number{shown}, got {excerpt(value)}")
    return int(value)
