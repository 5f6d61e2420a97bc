"""The worked scenarios of the rules page (§5) and further decided rules, as match scripts.

Each fixture in tests/data/warlocks-brew/scenarios.json lists only the checkpoint fields it checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.warlocks_brew import run_script

FIXTURES = Path(__file__).parents[2] / "data" / "warlocks-brew" / "scenarios.json"
SCENARIOS: list[dict[str, Any]] = json.loads(FIXTURES.read_text())


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_scenario(scenario: dict[str, Any]) -> None:
    trace = run_script(scenario["script"])
    assert trace["format"] == "warlocks-brew-trace/1"
    assert len(trace["checkpoints"]) == len(scenario["script"]["steps"])
    for expected in scenario["expect"]:
        checkpoint = trace["checkpoints"][expected["step"]]
        for key, value in expected.items():
            if key != "step":
                assert checkpoint[key] == value, f"step {expected['step']}: {key}"


def test_every_rules_page_scenario_is_covered() -> None:
    names = {s["name"] for s in SCENARIOS}
    assert {"T1", "T1b", "T2", "T2b", "T3", "T3b", "T4", "T4b", "T5", "T6", "T7"} <= names
