"""Script formats: version 2 marks a window's end with null, which no player text can forge;
version 1 scripts (the string "TIMEOUT") are still read as before."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from games import registry
from games.protocol import ConfigError, Setup
from games.scripts import read_attempts, script_version

DATA = Path(__file__).parents[1] / "data"
EX1 = json.loads((DATA / "floral-extract-examples.json").read_text())["examples"][0]
BREW = json.loads((DATA / "warlocks-brew" / "scenarios.json").read_text())[0]["script"]


def test_every_game_reads_both_versions_and_exports_the_newest() -> None:
    for name in registry.names():
        info = registry.get(name)
        assert info.script_formats == (f"{name}-script/1", f"{name}-script/2")
        assert info.replay_script is not None
    assert registry.by_script_format()["floral-extract-script/2"] == "floral-extract"


def test_version_1_reads_the_string_timeout_as_the_window_closing() -> None:
    assert read_attempts(["x", "TIMEOUT", "3"], "f", 1) == ["x", None, "3"]
    assert read_attempts(["x", "TIMEOUT", None, "3"], "f", 2) == ["x", "TIMEOUT", None, "3"]
    with pytest.raises(ConfigError) as caught:
        read_attempts(["x", 3], "steps[0].P1", 2)
    assert caught.value.field == "steps[0].P1"


def test_an_unknown_version_names_the_format_field() -> None:
    with pytest.raises(ConfigError) as caught:
        script_version({"format": "floral-extract-script/3"}, "floral-extract")
    assert caught.value.field == "format" and "script/2" in caught.value.message


def floral(version: int, p1: list[Any]) -> dict[str, Any]:
    """EX1 up to its first cast, P1 sending ``p1`` on turn 1."""
    script: dict[str, Any] = copy.deepcopy(EX1)
    script["format"] = f"floral-extract-script/{version}"
    script["steps"] = script["steps"][:2]
    script["steps"][1]["submit"]["P1"] = p1
    return script


def test_floral_extract_typed_timeout_is_an_attempt_in_version_2() -> None:
    """A player who types TIMEOUT and then casts D (identity 1) cast D."""
    run = registry.get("floral-extract").run_script
    turn = run(floral(2, ["TIMEOUT", "D"]))["checkpoints"][1]["P1"]
    assert (turn["cast"], turn["timeout"], turn["rejected"]) == ("D", False, ["TIMEOUT"])
    closed = run(floral(2, [None, "D"]))["checkpoints"][1]["P1"]
    assert (closed["cast"], closed["timeout"], closed["rejected"]) == ("B", True, ["D"])
    legacy = run(floral(1, ["TIMEOUT", "D"]))["checkpoints"][1]["P1"]
    assert (legacy["timeout"], legacy["rejected"]) == (True, ["D"])  # as version 1 always read


def brew(version: int, bids: list[Any]) -> dict[str, Any]:
    script: dict[str, Any] = copy.deepcopy(BREW)
    script["format"] = f"warlocks-brew-script/{version}"
    script["steps"][0]["bids"]["C"] = bids
    return script


def test_warlocks_brew_typed_timeout_is_an_attempt_in_version_2() -> None:
    run = registry.get("warlocks-brew").run_script
    point = run(brew(2, ["TIMEOUT", "3"]))["checkpoints"][0]
    assert (point["bids"]["C"], point["rejected"]["C"], point["timeouts"]) == (3, ["TIMEOUT"], [])
    closed = run(brew(2, [None, "3"]))["checkpoints"][0]
    assert (closed["rejected"]["C"], closed["timeouts"]) == (["3"], ["C"])
    legacy = run(brew(1, ["TIMEOUT", "3"]))["checkpoints"][0]
    assert (legacy["rejected"]["C"], legacy["timeouts"]) == (["3"], ["C"])


@pytest.mark.parametrize("name", registry.names())
def test_an_export_of_typed_timeouts_replays_the_same_moves(name: str) -> None:
    """Every seat types TIMEOUT before each real answer; the export replays every move."""
    info = registry.get(name)
    game = info.game
    seats = game.min_seats
    state, _ = game.new_match(Setup({}, seats, 3))
    agents = [info.agents["random"](seat, random.Random(seat)) for seat in range(seats)]
    windows: list[dict[int, list[str]]] = []
    played: list[dict[int, Any]] = []
    while game.requests(state) and len(windows) < 12:
        window: dict[int, list[str]] = {}
        moves: dict[int, Any] = {}
        for request in game.requests(state):
            answer = agents[request.seat].act(request, game.view(state, request.seat))
            window[request.seat] = ["TIMEOUT", answer]
            moves[request.seat] = game.submit(state, request.seat, answer).move  # type: ignore[union-attr]
        state, _ = game.resolve(state, moves)
        windows.append(window)
        played.append(moves)
    names = [f"P{seat + 1}" for seat in range(seats)]
    script = json.loads(json.dumps(info.export_script({}, 3, names, windows)))
    assert script["format"].endswith("/2")
    assert info.replay_script is not None
    replayed = [
        {s: m for s, m in step.moves.items() if m is not None}
        for step in info.replay_script(script)
    ]
    assert replayed == played
