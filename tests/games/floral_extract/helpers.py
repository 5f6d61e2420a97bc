"""Builders for Floral Extract scripts, so each rule test states only what it is about."""

from __future__ import annotations

from typing import Any

from games.floral_extract import GAME, run_script
from games.floral_extract.state import State
from games.protocol import Setup

# The maps and spellbook of the worked examples.
MAPS = {
    "P1": {"A": 3, "B": 0, "C": 5, "D": 1, "E": 7, "F": 2, "G": 6, "H": 4},
    "P2": {"S": 6, "T": 2, "U": 0, "V": 7, "W": 4, "X": 1, "Y": 5, "Z": 3},
}
CLASSIC = {
    "water": {"type": "set", "n": 3, "set": [1, 2, 3]},
    "fertilize": {"type": "sum", "n": 3, "lo": 19, "hi": 21},
    "weather": {"type": "chain", "n": 3, "ops": ["<", "<"]},
}
# A book that never fires on the runes these tests use (identity 7 is never in a window
# three times in a row), so a test can isolate one spell.
NEVER = {"type": "set", "n": 5, "set": [7, 6, 5]}
QUIET = {"water": NEVER, "fertilize": NEVER, "weather": NEVER}

Attempts = str | list[str]


def _list(value: Attempts | None) -> list[str]:
    if value is None:
        return ["TIMEOUT"]
    return [value] if isinstance(value, str) else list(value)


def plant(p1: Attempts | None, p2: Attempts | None, before: int = 1) -> dict[str, Any]:
    return {"phase": "plant", "before_turn": before, "submit": {"P1": _list(p1), "P2": _list(p2)}}


def cast(turn: int, p1: Attempts | None, p2: Attempts | None) -> dict[str, Any]:
    return {"phase": "cast", "turn": turn, "submit": {"P1": _list(p1), "P2": _list(p2)}}


def casts(first_turn: int, pairs: list[tuple[Attempts | None, Attempts | None]]) -> list[Any]:
    return [cast(first_turn + i, a, b) for i, (a, b) in enumerate(pairs)]


def script(
    steps: list[dict[str, Any]],
    *,
    book: Any = CLASSIC,
    config: dict[str, Any] | None = None,
    preset: dict[str, Any] | None = None,
    advantage: str = "P1",
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "format": "floral-extract-script/1",
        "advantage": advantage,
        "maps": MAPS,
        "spellbook": book,
        "config": config or {},
        "steps": steps,
    }
    if preset is not None:
        result["preset"] = preset
    return result


def trace(steps: list[dict[str, Any]], **kwargs: Any) -> list[dict[str, Any]]:
    """The checkpoints of a script built from ``steps``."""
    checkpoints: list[dict[str, Any]] = run_script(script(steps, **kwargs))["checkpoints"]
    return checkpoints


def player(**fields: Any) -> dict[str, Any]:
    """A preset player: empty garden, nothing planted, unless told otherwise."""
    base: dict[str, Any] = {
        "pots": [None, None, None],
        "planted": [],
        "blooms": 0,
        "points": 0,
        "wrong_since_correct": 0,
        "charge": 0,
        "correct_pairs": [],
        "score_turns": [],
        "history": [],
    }
    base.update(fields)
    return base


def preset(turns: int, p1: dict[str, Any], p2: dict[str, Any], weather: str = "sunny") -> Any:
    return {"turns_completed": turns, "weather": weather, "players": {"P1": p1, "P2": p2}}


def new_state(config: dict[str, Any] | None = None, seed: int = 7) -> State:
    merged = {"spellbook": CLASSIC, "maps": MAPS, **(config or {})}
    state, _ = GAME.new_match(Setup(merged, 2, seed))
    return state
