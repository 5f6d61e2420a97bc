"""A ``{"leave": NAME}`` step of a match script: replayed by each game's runner, refused with
the field named when it names nobody, comes after the end, or names a player already out."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from games import registry
from games.protocol import ConfigError

DATA = Path(__file__).parents[1] / "data"
FLORAL = json.loads((DATA / "floral-extract-examples.json").read_text())["examples"][0]
SCRIPT_KEYS = ("format", "advantage", "maps", "spellbook", "config")
BREW = json.loads((DATA / "warlocks-brew" / "scenarios.json").read_text())[0]["script"]


def with_steps(script: Any, steps: list[Any]) -> Any:
    changed = copy.deepcopy(script)
    changed["format"] = changed["format"].replace("/1", "/2")
    changed["steps"] = steps
    changed.pop("expected", None)
    return changed


def floral() -> Any:
    return {key: FLORAL[key] for key in SCRIPT_KEYS} | {"steps": []}


def test_floral_extract_a_leave_gives_the_other_player_the_win() -> None:
    trace = registry.get("floral-extract").run_script(with_steps(floral(), [{"leave": "P1"}]))
    (checkpoint,) = trace["checkpoints"]
    assert checkpoint["left"] == "P1" and checkpoint["after"] == "leave P1"
    assert checkpoint["game_over"] and checkpoint["winner"] == "P2"


def test_warlocks_brew_a_leave_puts_the_player_out_and_the_card_is_bid_again() -> None:
    steps = [{"leave": "D"}, {"bids": {"A": ["5"], "B": ["5"], "C": ["3"]}}]
    trace = registry.get("warlocks-brew").run_script(with_steps(BREW, steps))
    left, bids = trace["checkpoints"]
    assert left["left"] == "D" and left["hands"]["D"] == [] and not left["game_over"]
    assert bids["card"] == left["card"] and bids["bids"]["D"] is None
    assert bids["winner"] == "C"


@pytest.mark.parametrize(
    ("game", "steps", "field", "words"),
    [
        ("floral-extract", [{"leave": "P3"}], "steps[0].leave", "name a player"),
        ("floral-extract", [{"leave": "P1", "phase": "plant"}], "steps[0].leave", "only key"),
        ("floral-extract", [{"leave": "P1"}, {"leave": "P2"}], "steps[1]", "after the end"),
        ("warlocks-brew", [{"leave": "D"}, {"leave": "D"}], "steps[1].leave", "not in the match"),
        ("warlocks-brew", [{"leave": n} for n in "ABCD"], "steps[3]", "already over"),
    ],
)
def test_a_bad_leave_step_names_its_field(
    game: str, steps: list[Any], field: str, words: str
) -> None:
    script = with_steps(floral() if game == "floral-extract" else BREW, steps)
    with pytest.raises(ConfigError) as caught:
        registry.get(game).run_script(script)
    assert caught.value.field == field and words in caught.value.message, caught.value
