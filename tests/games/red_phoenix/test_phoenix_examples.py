"""Every worked example of the rules page replays and meets every checkpoint (and each ``alt``
config re-run), and the trace has one checkpoint per step with every field."""

from __future__ import annotations

import json

import pytest

from games.red_phoenix.script import run_script

from .helpers import examples, mismatches, script_of

EXAMPLES = examples()
FIELDS = {
    "after",
    "seat",
    "kind",
    "move",
    "rejected",
    "timeout",
    "drawn",
    "turn",
    "active",
    "ap",
    "boost",
    "players",
    "market",
    "supply",
    "decks",
    "discards",
    "formulas",
    "monsters",
    "pending",
    "game_over",
    "winners",
    "end_reason",
}
SEAT_FIELDS = {
    "alive",
    "health",
    "coins",
    "hand",
    "hand_size",
    "knows",
    "markers_free",
    "used",
    "lab",
    "turns",
}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_s12_worked_example_replays_to_every_checkpoint(example: dict[str, object]) -> None:
    data = script_of(example)
    trace = run_script(data)
    checkpoints = trace["checkpoints"]
    assert trace["format"] == "red-phoenix-trace/1"
    assert len(checkpoints) == len(data["steps"])  # type: ignore[arg-type]
    json.dumps(trace)  # plain JSON
    for expect in example["expect"]:  # type: ignore[attr-defined]
        got = checkpoints[expect["after"] - 1]
        assert mismatches(expect, got, f"after {expect['after']}") == []
        for alt in expect.get("alt", []):
            again = dict(data)
            again["config"] = {**data.get("config", {}), **alt["config"]}  # type: ignore[dict-item]
            other = run_script(again)["checkpoints"][expect["after"] - 1]
            wanted = {k: v for k, v in alt.items() if k != "config"}
            assert mismatches(wanted, other, f"alt after {expect['after']}") == []


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_trace_checkpoints_hold_every_field(example: dict[str, object]) -> None:
    for checkpoint in run_script(script_of(example))["checkpoints"]:
        assert set(checkpoint) >= FIELDS
        for entry in checkpoint["players"].values():
            assert set(entry) >= SEAT_FIELDS
            assert entry["hand_size"] == len(entry["hand"])
            assert entry["hand"] == sorted(entry["hand"])


def test_the_examples_copy_has_five_examples() -> None:
    assert [e["id"] for e in EXAMPLES] == ["EX1", "EX2", "EX3", "EX4", "EX5"]
