"""The worked examples of the rules page replay exactly: every listed checkpoint field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.flaky_flasks import run_script

DATA = Path(__file__).resolve().parents[2] / "data" / "flaky-flasks-examples.json"
EXAMPLES = json.loads(DATA.read_text("utf-8"))["examples"]


def differences(expected: Any, got: Any, path: str = "") -> list[str]:
    """Every listed field of ``expected`` that ``got`` does not match (a subset check for
    objects: the examples list only the fields they care about)."""
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return [f"{path}: expected an object, got {got!r}"]
        out = []
        for key, value in expected.items():
            if key not in got:
                out.append(f"{path}.{key}: missing")
            else:
                out += differences(value, got[key], f"{path}.{key}")
        return out
    return [] if expected == got else [f"{path}: expected {expected!r}, got {got!r}"]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_worked_example_replays_every_checkpoint(example: dict[str, Any]) -> None:
    trace = run_script(example)
    checkpoints = trace["checkpoints"]
    assert trace["format"] == "flaky-flasks-trace/1"
    assert len(checkpoints) == len(example["steps"])
    by_label = {c["after"]: c for c in checkpoints}
    for expected in example["expect"]:
        got = by_label[expected["after"]]
        assert differences(expected, got, expected["after"]) == []


def test_every_checkpoint_carries_every_key() -> None:
    keys = {
        "after", "step", "window", "prompted", "accepted", "rejected", "timeouts", "next",
        "next_prompted", "round", "first_player", "fumes", "dominant", "panels", "river",
        "tableau", "players", "game_over", "winners", "standings",
    }  # fmt: skip
    player = {
        "fame", "coins", "temp_coins", "charge", "hand", "deck", "discard", "slots",
        "channels", "spare", "cauldron", "potions", "sales", "jammed", "market_passed",
    }  # fmt: skip
    for example in EXAMPLES:
        for checkpoint in run_script(example)["checkpoints"]:
            assert set(checkpoint) == keys
            for seat in checkpoint["players"].values():
                assert set(seat) == player


def test_the_differences_check_is_not_vacuous() -> None:
    example = EXAMPLES[0]
    checkpoint = run_script(example)["checkpoints"][0]
    wrong = {"players": {"P1": {"cauldron": ["T2R"]}}}
    assert differences(wrong, checkpoint) != []
