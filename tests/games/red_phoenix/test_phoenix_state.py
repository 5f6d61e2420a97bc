"""The state's declared shape (``games/red_phoenix/state.py``: the TypedDicts mypy checks every
lookup against) is the shape the engine really stores: over played matches, every dict holds
exactly its class's required keys and some of its optional ones, and nothing undeclared."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from games.red_phoenix import state as shapes
from games.red_phoenix.cards import house_raw, read_card_set
from games.red_phoenix.state import as_config

from .test_phoenix_names import ai_match

FRAMES = {
    "turn": shapes.TurnFrame,
    "exp": shapes.ExpFrame,
    "dmg": shapes.DamageFrame,
    "trade": shapes.TradeFrame,
    "discard": shapes.DiscardFrame,
}


def declared(shape: Any) -> tuple[set[str], set[str]]:
    """A TypedDict's required and optional keys, read from its annotations (Python 3.11 does
    not see ``NotRequired`` in postponed annotations)."""
    notes = {}
    for cls in reversed(shape.__mro__):
        notes.update(getattr(cls, "__annotations__", {}))
    optional = {
        k
        for k, v in notes.items()
        if getattr(v, "__forward_arg__", str(v)).startswith("NotRequired[")
    }
    return set(notes) - optional, optional


def mismatch(value: Any, shape: Any, where: str) -> list[str]:
    keys = set(value)
    required, optional = declared(shape)
    problems = [f"{where}: missing {sorted(required - keys)}"] if required - keys else []
    extra = keys - required - optional
    return problems + ([f"{where}: undeclared {sorted(extra)}"] if extra else [])


def check_game(g: Any) -> list[str]:
    problems = mismatch(g, shapes.Game, "game")
    problems += mismatch(g["rec"], shapes.Record, "rec")
    problems += mismatch(g["chance"], shapes.Chance, "chance")
    if g["pending"] is not None:
        problems += mismatch(g["pending"], shapes.Pending, "pending")
        assert g["pending"]["kind"] in get_args(shapes.WindowKind)
    for p in g["players"]:
        problems += mismatch(p, shapes.Player, "player")
        for exp in p["lab"]:
            problems += mismatch(exp, shapes.Experiment, "lab")
            assert exp["status"] in get_args(shapes.Status)
    for f in g["formulas"]:
        problems += mismatch(f, shapes.Formula, "formula")
    for m in g["monsters"]:
        problems += mismatch(m, shapes.Monster, "monster")
    for frame in g["stack"]:
        problems += mismatch(frame, FRAMES[frame["f"]], f"frame {frame['f']}")
        if frame["f"] == "trade":
            for side in ("give", "get"):
                problems += mismatch(frame[side], shapes.TradeSide, "trade side")
    return problems


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_the_declared_state_shape_is_the_stored_one(seats: int) -> None:
    kinds: set[str] = set()
    for seed in range(4):
        for state, _ in ai_match(seats, seed, {"max_rounds": 15}):
            assert check_game(state.g) == []
            kinds |= {frame["f"] for frame in state.g["stack"]}
            assert mismatch(state.config, shapes.Config, "config") == []
    assert {"turn", "exp"} <= kinds


def test_appendix_a_the_house_set_has_the_declared_card_set_shape() -> None:
    from games.red_phoenix import cards

    raw = read_card_set(__import__("json").loads(house_raw())).raw
    assert mismatch(raw, cards.CardSetJSON, "card set") == []
    for item in raw["ingredients"]:
        assert mismatch(item, cards.IngredientJSON, "ingredient") == []
    for method in raw["methods"]:
        assert mismatch(method, cards.MethodJSON, "method") == []
    for level in ("I", "II", "III"):
        for result in raw["results"][level]:
            assert mismatch(result, cards.ResultJSON, "result") == []
    assert as_config({"card_set": "house"})["card_set"] == "house"
