"""The rules page's worked examples (a copy in tests/data): every checkpoint they list, and
every ``alt`` re-run with its config overrides."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.potioncraft import run_script

EXAMPLES = json.loads(
    (Path(__file__).resolve().parents[2] / "data" / "potioncraft-examples.json").read_text()
)["examples"]


def _compare(checkpoints: list[dict[str, Any]], expected: dict[str, Any], where: str) -> None:
    got = checkpoints[expected["after"] - 1]
    for key, value in expected.items():
        if key == "alt":
            continue
        if isinstance(value, dict) and key not in ("pending", "revealed") and value:
            for sub, item in value.items():
                assert got[key][sub] == item, f"{where} after {expected['after']}: {key}.{sub}"
        else:
            assert got[key] == value, f"{where} after {expected['after']}: {key}"


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_worked_example_replays_every_checkpoint(example: dict[str, Any]) -> None:
    trace = run_script(example)
    checkpoints = trace["checkpoints"]
    assert trace["format"] == "potioncraft-trace/1"
    assert len(checkpoints) == len(example["steps"])
    for expected in example["expect"]:
        _compare(checkpoints, expected, example["id"])
        for alt in expected.get("alt", []):
            again = run_script(
                {**example, "config": {**example.get("config", {}), **alt["config"]}}
            )
            _compare(
                again["checkpoints"],
                {"after": expected["after"], **{k: v for k, v in alt.items() if k != "config"}},
                f"{example['id']} alt",
            )
