"""Find a game by the key stored with its matches: a registry name, or a module path.

A module path (``tests.bot.toy_game``) names a module that declares a ``GAME_INFO`` as a
registered game's package does. It lets tests and experiments run through the command line
without being registered.
"""

from __future__ import annotations

from games import registry
from games.registry import GameInfo


def load_game_info(key: str) -> GameInfo:
    return registry.load(key)
