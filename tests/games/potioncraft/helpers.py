"""Small scripts for the rules tests: a 3-seat table, P1 to play, short decks."""

from __future__ import annotations

from typing import Any

from games.potioncraft import GAME, replay_script, run_script
from games.potioncraft.state import State
from games.protocol import Accepted, Refused

FILLER = ["Pumpkin Guts", "Bat Wing", "Amethyst", "Starflower", "Nightshade", "Spider Silk"]
DECKS = {
    "Maleficia": ["Severance Draught"],
    "Benedicta": ["Mirror Dew"],
    "Fortuna": ["Oracle's Dew"],
}


def script(**changes: Any) -> dict[str, Any]:
    players = changes.pop("players", ["P1", "P2", "P3"])
    base: dict[str, Any] = {
        "format": "potioncraft-script/1",
        "players": players,
        "hands": {p: [] for p in players},
        "main_deck": list(FILLER),
        "potion_decks": {k: list(v) for k, v in DECKS.items()},
        "steps": [],
    }
    hands = changes.pop("hands", {})
    base["hands"].update(hands)
    base.update(changes)
    return base


def step(window: str, random: list[Any] | None = None, **attempts: list[str]) -> dict[str, Any]:
    data: dict[str, Any] = {"window": window, "attempts": attempts}
    if random is not None:
        data["random"] = random
    return data


def trace(**changes: Any) -> list[dict[str, Any]]:
    checkpoints: list[dict[str, Any]] = run_script(script(**changes))["checkpoints"]
    return checkpoints


def last(**changes: Any) -> dict[str, Any]:
    return trace(**changes)[-1]


def state_after(**changes: Any) -> State:
    """The state once every step has resolved (the setup's state with no steps)."""
    from games.potioncraft.script import start

    steps = list(replay_script(script(**changes)))
    if steps:
        result: State = steps[-1].state
        return result
    return start(script(**changes))[0]


def accepted(state: State, seat: int, text: str) -> str:
    verdict = GAME.submit(state, seat, text)
    assert isinstance(verdict, Accepted), verdict
    return str(verdict.move)


def refused(state: State, seat: int, text: str) -> str:
    verdict = GAME.submit(state, seat, text)
    assert isinstance(verdict, Refused), verdict
    return verdict.reason


DRAW = step("draw", P1=["deck"])
