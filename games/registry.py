"""The games this host knows, loaded on first use so a command pays only for what it runs."""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from games.protocol import Agent, Game
from games.scripts import ScriptStep
from games.text import excerpt

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
    # replay_script(script) -> the script step by step (moves, events, state, checkpoint), for
    # the audit's export check and replay's summary; None for a game without one
    replay_script: Callable[[Any], Iterator[ScriptStep]] | None = None
    # the "format" values its run_script reads (games/scripts.py)
    script_formats: tuple[str, ...] = ()


# Each module exposes GAME, AGENTS, DEFAULT_AGENT, run_script and export_script, and may expose
# replay_script and SCRIPT_FORMATS.
_MODULES = {
    "floral-extract": "games.floral_extract",
    "warlocks-brew": "games.warlocks_brew",
}


def names() -> list[str]:
    return list(_MODULES)


def get(name: str) -> GameInfo:
    """The game called ``name``; KeyError with the known names if there is none."""
    if name not in _MODULES:
        raise KeyError(f"unknown game {excerpt(name)}; known: {', '.join(_MODULES)}")
    return from_module(importlib.import_module(_MODULES[name]))


def from_module(module: ModuleType) -> GameInfo:
    """The GameInfo a game module exposes."""
    return GameInfo(
        module.GAME,
        module.AGENTS,
        module.DEFAULT_AGENT,
        module.run_script,
        module.export_script,
        getattr(module, "replay_script", None),
        tuple(getattr(module, "SCRIPT_FORMATS", ())),
    )


def by_script_format() -> dict[str, str]:
    """Each script format a registered game reads -> that game's name."""
    return {fmt: name for name in names() for fmt in get(name).script_formats}
