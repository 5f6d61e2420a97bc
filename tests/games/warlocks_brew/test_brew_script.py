"""Match scripts and traces: the written format, errors naming the field, export and replay."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from games import registry
from games.protocol import Accepted, ConfigError, Setup
from games.warlocks_brew import AGENTS, GAME, export_script, run_script

TRACE_KEYS = {
    "auction", "card", "bids", "rejected", "timeouts", "winner", "removed", "returned",
    "hands", "fronts", "brews", "deck_left", "game_over", "winners",
}  # fmt: skip
BASE: dict[str, Any] = {
    "format": "warlocks-brew-script/1",
    "players": ["A", "B", "C"],
    "deck": ["Toadstool", "Bat Wing", "Eye of Newt"],
    "steps": [{"bids": {"A": ["5"], "B": ["x", "3"], "C": ["TIMEOUT", "4"]}}],
}


def test_checkpoint_has_exactly_the_written_keys() -> None:
    checkpoint = run_script(BASE)["checkpoints"][0]
    assert set(checkpoint) == TRACE_KEYS
    assert checkpoint == {
        "auction": 1,
        "card": "Toadstool",
        "bids": {"A": 5, "B": 3, "C": 1},
        "rejected": {"A": [], "B": ["x"], "C": ["4"]},  # after TIMEOUT the window is closed
        "timeouts": ["C"],
        "winner": "A",
        "removed": False,
        "returned": [],
        "hands": {"A": [1, 2, 3, 4], "B": [1, 2, 3, 4, 5], "C": [1, 2, 3, 4, 5]},
        "fronts": {"A": [5], "B": [], "C": []},
        "brews": {"A": {"Toadstool": 1}, "B": {}, "C": {}},
        "deck_left": 2,
        "game_over": False,
        "winners": [],
    }


def test_attempts_after_a_valid_bid_are_rejected() -> None:
    script = copy.deepcopy(BASE)
    script["steps"] = [{"bids": {"A": ["2", "5"], "B": ["3"], "C": ["4"]}}]
    checkpoint = run_script(script)["checkpoints"][0]
    assert checkpoint["bids"]["A"] == 2 and checkpoint["rejected"]["A"] == ["5"]


def test_seed_builds_the_deck_when_there_is_none() -> None:
    script = {"format": "warlocks-brew-script/1", "players": ["A", "B"], "seed": 12, "steps": []}
    assert run_script(script) == {"format": "warlocks-brew-trace/1", "checkpoints": []}
    script["steps"] = [{"bids": {"A": ["1"], "B": ["2"]}}]
    state, _ = GAME.new_match(Setup({}, 2, 12, ["A", "B"]))
    assert run_script(script)["checkpoints"][0]["card"] == state.card


def test_variant_and_config_sections() -> None:
    script = {
        "format": "warlocks-brew-script/1",
        "players": ["A", "B", "C"],
        "seed": 3,
        "variants": {"limited_supply": 2, "small_selection": ["Wolfsbane"]},
        "config": {"no_unique": "rebid", "types": 6},
        "steps": [{"bids": {}}],
    }
    checkpoint = run_script(script)["checkpoints"][0]
    assert checkpoint["deck_left"] == 5 * 3 - 1
    assert checkpoint["round"] == 1  # the rebid option adds its keys


def test_utter_darkness_script_with_declaration_and_last_call() -> None:
    script = {
        "format": "warlocks-brew-script/1",
        "players": ["A", "B", "C"],
        "deck": ["Toadstool", "Bat Wing"],
        "variants": {"utter_darkness": True},
        "steps": [
            {"bids": {"A": ["5"], "B": ["1"], "C": ["1"]}},
            {"bids": {"A": ["1"], "B": ["declare"], "C": ["2"]}},
            {"declare": {"A": ["pass"], "C": ["maybe", "declare"]}},
        ],
    }
    first, second, last = run_script(script)["checkpoints"]
    assert first["declared"] == {} and first["eliminated"] == []
    assert second["declared"] == {"B": "wrong"} and second["eliminated"] == ["B"]
    assert second["bids"] == {"A": 1, "B": None, "C": 2} and second["winner"] == "C"
    assert last["card"] is None and last["rejected"]["C"] == ["maybe"]
    assert last["declared"] == {"C": "wrong"} and last["winners"] == ["A"]
    assert last["game_over"] is True


def _broken(**changes: Any) -> dict[str, Any]:
    script = copy.deepcopy(BASE)
    for key, value in changes.items():
        if value is None:
            script.pop(key)
        else:
            script[key] = value
    return script


@pytest.mark.parametrize(
    ("script", "field"),
    [
        ([], "script"),
        (_broken(format="floral-extract-script/1"), "format"),
        (_broken(format=None), "format"),
        (_broken(players=None), "players"),
        (_broken(players=["A"]), "players"),
        (_broken(players=["A", "A", "B"]), "players"),
        (_broken(players=list("ABCDEFG")), "players"),
        (_broken(extra=1), "extra"),
        (_broken(variants={"limited_supply": 9}), "variants.limited_supply"),
        (_broken(variants={"no_unique": "rebid"}), "variants.no_unique"),
        (_broken(variants={"storefront_disaster": 18}), "variants.storefront_disaster"),
        (_broken(variants=[]), "variants"),
        (_broken(config={"no_unique": "coin flip"}), "config.no_unique"),
        (_broken(config={"broke_buyers": True}), "config.broke_buyers"),
        (_broken(deck=[]), "deck"),
        (_broken(deck=["Toadstool", "Unicorn"]), "deck[1]"),
        (_broken(deck=["Toadstool"] * 6), "deck"),
        (_broken(deck=["Wolfsbane"], variants={"small_selection": ["Wolfsbane"]}), "deck[0]"),
        (_broken(deck=None), "seed"),
        (_broken(deck=None, seed="12"), "seed"),
        (_broken(steps={}), "steps"),
        (_broken(steps=[["5"]]), "steps[0]"),
        (_broken(steps=[{"bid": {}}]), "steps[0]"),
        (_broken(steps=[{"bids": {"Z": ["1"]}}]), "steps[0].bids.Z"),
        (_broken(steps=[{"bids": {"A": "5"}}]), "steps[0].bids.A"),
        (_broken(steps=[{"bids": {"A": [5]}}]), "steps[0].bids.A"),
        (_broken(steps=[{"bids": []}]), "steps[0].bids"),
        (_broken(deck=["Toadstool"], steps=[{"bids": {}}, {"bids": {}}]), "steps[1]"),
    ],
)
def test_malformed_scripts_name_the_field(script: Any, field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        run_script(script)
    assert caught.value.field == field


def _played_windows(
    config: dict[str, Any], seats: int, seed: int
) -> tuple[list[dict[int, list[str]]], Any]:
    """A whole match between agents, with some refused attempts, as the host would log it
    (the seats named as the export names them: a deal names its partner)."""
    state, _ = GAME.new_match(Setup(config, seats, seed, [f"Seat {i}" for i in range(seats)]))
    rng = random.Random(seed)
    agents = [AGENTS["normal"](i, random.Random(i)) for i in range(seats)]
    windows = []
    while GAME.outcome(state) is None:
        window: dict[int, list[str]] = {}
        moves: dict[int, Any] = {}
        for request in GAME.requests(state):
            attempts = ["nine"] if rng.random() < 0.2 else []
            if rng.random() < 0.1:
                window[request.seat] = attempts  # no valid answer: timeout
                moves[request.seat] = None
                continue
            raw = agents[request.seat].act(request, GAME.view(state, request.seat))
            verdict = GAME.submit(state, request.seat, raw)
            assert isinstance(verdict, Accepted)
            window[request.seat] = [*attempts, raw]
            moves[request.seat] = verdict.move
        windows.append(window)
        state, events = GAME.resolve(state, moves)
        for event in events:
            for seat, agent in enumerate(agents):
                if event.audience.kind == "public" or event.audience.seat == seat:
                    agent.observe(event)
    return windows, state


@pytest.mark.parametrize(
    ("config", "seats"),
    [
        ({}, 3),
        ({}, 2),
        ({"no_unique": "rebid", "storefront_disaster": 3}, 5),
        ({"utter_darkness": True, "broke_buyers": True}, 4),
        ({"magic_infused": 6}, 3),  # G2: the deck names the effects; Cursed choices are steps
        ({"magic_infused": 4, "deal_window": 30}, 4),  # A7: every deal answer is a step
        ({"deal_window": 20, "vision_of_blindness": True, "magic_infused": 6}, 3),
    ],
)
def test_export_then_replay_reproduces_the_match(config: dict[str, Any], seats: int) -> None:
    names = [f"Seat {i}" for i in range(seats)]
    for seed in range(5):
        windows, final = _played_windows(config, seats, seed)
        script = json.loads(json.dumps(export_script(config, seed, names, windows)))
        assert len(script["steps"]) == len(windows)
        trace = registry.get("warlocks-brew").run_script(script)
        last = trace["checkpoints"][-1]
        assert last["game_over"] is True
        assert last["winners"] == [names[i] for i in final.winners]
        assert last["hands"] == {names[i]: s.hand for i, s in enumerate(final.seats)}
        assert last["brews"] == {names[i]: s.brew_counts() for i, s in enumerate(final.seats)}
        without_deck = {k: v for k, v in script.items() if k != "deck"}
        assert run_script(without_deck) == trace  # the seed alone rebuilds the same deck


def test_registry_exposes_the_game() -> None:
    info = registry.get("warlocks-brew")
    assert info.game is GAME and info.default_agent == "normal"
    assert set(info.agents) == {"random", "easy", "normal", "hard"}
