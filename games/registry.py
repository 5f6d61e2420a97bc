"""The games this host knows, loaded on first use so a command pays only for what it runs."""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from games.protocol import Agent, Game

AgentFactory = Callable[[int, random.Random], Agent]
"""Builds the agent for a seat, with its own RNG."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    game: Game[Any]
    agents: Mapping[str, AgentFactory]
    default_agent: str
    # run_script(script) -> trace; raises ConfigError naming the field of a malformed script
    run_script: Callable[[Any], Any]
    # export_script(config, seed, names, windows) -> script; windows: one mapping per resolved
    # window, seat -> that seat's raw attempts in arrival order
    export_script: Callable[[Any, int, Any, Any], Any]


# Each module exposes GAME, AGENTS, DEFAULT_AGENT, run_script and export_script.
_MODULES = {
    "floral-extract": "games.floral_extract",
    "warlocks-brew": "games.warlocks_brew",
}


def names() -> list[str]:
    return list(_MODULES)


def get(name: str) -> GameInfo:
    """The game called ``name``; KeyError with the known names if there is none."""
    if name not in _MODULES:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(_MODULES)}")
    module = importlib.import_module(_MODULES[name])
    return GameInfo(
        module.GAME, module.AGENTS, module.DEFAULT_AGENT, module.run_script, module.export_script
    )
