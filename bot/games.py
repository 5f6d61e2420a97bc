"""Find a game by the key stored with its matches: a registry name, or a module path.

A module path (``tests.bot.toy_game``) names a module that exposes what a registry game module
does (GAME, AGENTS, DEFAULT_AGENT, run_script, export_script). It lets tests and experiments run
through the command line without being registered.
"""

from __future__ import annotations

import importlib

from games import registry
from games.registry import GameInfo


def load_game_info(key: str) -> GameInfo:
    if key in registry.names():
        return registry.get(key)
    if "." not in key:
        raise KeyError(f"unknown game {key!r}; known: {', '.join(registry.names())}")
    try:
        module = importlib.import_module(key)
    except ImportError as error:
        raise KeyError(f"unknown game {key!r}: {error}") from None
    return registry.from_module(module)
