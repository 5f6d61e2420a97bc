"""The five worked examples of the rules page, kept as fixtures inside the project."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.floral_extract import run_script

EXAMPLES = json.loads(
    (Path(__file__).parents[2] / "data" / "floral-extract-examples.json").read_text()
)["examples"]


def mismatches(expected: Any, got: Any, path: str) -> list[str]:
    """Every field of ``expected`` that ``got`` does not match (only listed fields count)."""
    if isinstance(expected, dict):
        found = []
        for key, value in expected.items():
            if key not in got:
                found.append(f"{path}.{key} is missing")
            else:
                found += mismatches(value, got[key], f"{path}.{key}")
        return found
    return [] if expected == got else [f"{path}: expected {expected!r}, got {got!r}"]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_worked_example(example: dict[str, Any]) -> None:
    trace = run_script(example)
    assert trace["format"] == "floral-extract-trace/1"
    checkpoints = {c["after"]: c for c in trace["checkpoints"]}
    assert len(trace["checkpoints"]) == len(example["steps"])
    problems = []
    for expected in example["expect"]:
        problems += mismatches(expected, checkpoints[expected["after"]], expected["after"])
    assert problems == []


KEYS_COMMON = {"after", "weather", "game_over", "winner", "skipped", "P1", "P2"}
KEYS_CAST = {
    "cast", "identity", "rejected", "timeout", "spells", "pots", "watered", "fertilized",
    "sabotaged", "bloomed_pots", "blooms", "points", "charge", "wrong_since_correct",
    "guess_cost", "declaration", "opponent_report",
}  # fmt: skip
KEYS_PLANT = {"prompted", "rejected", "planted", "planted_pot", "pots"}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_every_checkpoint_carries_every_field(example: dict[str, Any]) -> None:
    for checkpoint in run_script(example)["checkpoints"]:
        assert set(checkpoint) == KEYS_COMMON
        expected = KEYS_PLANT if checkpoint["after"].startswith("plant@") else KEYS_CAST
        assert set(checkpoint["P1"]) == expected
        assert set(checkpoint["P2"]) == expected
