"""The toy game with a bug: its ``submit`` raises on ``crash`` (an engine that fails on some
text, as Floral Extract once did on "³"). Loaded by module path to test what survives it."""

from __future__ import annotations

import dataclasses
from typing import Any

from games.protocol import Verdict
from tests.bot import toy_game
from tests.bot.toy_game import AGENTS, DEFAULT_AGENT, ToyGame, export_script, run_script


class FaultyGame(ToyGame):
    name = "tests.bot.faulty_game"

    def submit(self, state: Any, seat: int, raw: str) -> Verdict:
        if raw.strip() == "crash":
            raise ValueError("a bug in the engine")
        return toy_game.GAME.submit(state, seat, raw)


GAME = FaultyGame()
GAME_INFO = dataclasses.replace(toy_game.GAME_INFO, game=GAME)
__all__ = ["AGENTS", "DEFAULT_AGENT", "GAME", "GAME_INFO", "export_script", "run_script"]
