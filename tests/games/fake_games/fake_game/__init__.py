"""A third game that bot/ has never heard of: the toy game under another name, script format
and cog. tests/games/test_registry.py adds this folder's parent to ``games.__path__``, as if
the package sat in ``games/``, to show that registering it changes nothing in bot/."""

from __future__ import annotations

import dataclasses

from tests.bot import toy_game


class FakeGame(toy_game.ToyGame):
    name = "fake-game"
    title = "Fake Game"


GAME = FakeGame()
GAME_INFO = dataclasses.replace(
    toy_game.GAME_INFO,
    game=GAME,
    script_formats=("fake-game-script/1",),
    cog="cogs.fake_game",
    timers={"turn": 30.0},
)
