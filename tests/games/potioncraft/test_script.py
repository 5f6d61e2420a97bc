"""The script format (potioncraft-script.md): malformed scripts are refused naming the field;
exports replay the live match; fuzzed input never escapes as an exception."""

from __future__ import annotations

import json
import random
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.moves import play_window
from games.potioncraft import GAME, export_script, replay_script, run_script
from games.potioncraft.agents import AGENTS
from games.protocol import Accepted, ConfigError, Refused, Setup
from games.scripts import Leave

from .helpers import DRAW, script, state_after, step

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def refused_field(**changes: Any) -> str:
    with pytest.raises(ConfigError) as caught:
        run_script(script(**changes))
    assert "\n" not in str(caught.value)
    return caught.value.field


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"hands": {"P1": ["Dragon Scale"]}}, "hands.P1[0]"),
        ({"main_deck": ["Bat Wing"] * 5}, "hands"),
        ({"potion_decks": {"Maleficia": ["Mirror Dew"], "Benedicta": [], "Fortuna": []}},
         "potion_decks.Maleficia[0]"),
        ({"config": {"colour": "red"}}, "config.colour"),
        ({"config": {"max_turns": 0}}, "config.max_turns"),
        ({"players": ["P1", "p1"]}, "players"),
        ({"players": ["P1"]}, "players"),
        ({"steps": [step("main", P1=["end"])]}, "steps[0].window"),
        ({"steps": [step("draw", random=["Bat Wing"], P1=["deck"])]}, "steps[0].random"),
        ({"hands": {"P1": ["Venom Brew (Fortuna)"], "P2": ["Amethyst"]},
          "steps": [DRAW, step("main", P1=["play Venom Brew (Fortuna) on P2"])]},
         "steps[1].random"),
        ({"hands": {"P1": ["Venom Brew (Fortuna)"], "P2": ["Amethyst"]},
          "steps": [DRAW, step("main", P1=["play Venom Brew (Fortuna) on P2"],
                               random=["Bat Wing"])]},
         "steps[1].random"),
        ({"preset": {"seal": "Fire"}}, "preset.seal"),
        ({"preset": {"potions": {"P9": []}}}, "preset.potions.P9"),
        ({"format": "warlocks-brew-script/1"}, "format"),
        ({"flavour": 1}, "flavour"),
        ({"config": {"max_turns": 1}, "steps": [DRAW, step("main", P1=["end"]), DRAW]},
         "steps[2]"),
    ],
)  # fmt: skip
def test_a_malformed_script_is_refused_naming_the_field(
    changes: dict[str, Any], field: str
) -> None:
    assert refused_field(**changes) == field


def test_a_version_2_script_reads_null_as_the_window_closing() -> None:
    data = script(format="potioncraft-script/2", steps=[step("draw", P1=[None, "pile P2"])])
    first = run_script(data)["checkpoints"][0]
    assert first["timeouts"] == ["P1"] and first["rejected"]["P1"] == ["pile P2"]


def test_a_leave_step_puts_the_hand_on_the_pile_and_skips_the_seat() -> None:
    data = script(
        hands={"P2": ["Amethyst"]}, steps=[DRAW, {"leave": "P2"}, step("main", P1=["end"])]
    )
    points = run_script(data)["checkpoints"]
    assert points[1]["left"] == "P2" and points[1]["piles"]["P2"] == ["Amethyst"]
    assert points[2]["active"] == "P3"


def test_a_leave_with_two_players_makes_the_other_win() -> None:
    data = script(players=["P1", "P2"], steps=[{"leave": "P1"}])
    end = run_script(data)["checkpoints"][-1]
    assert end["game_over"] and end["winners"] == ["P2"]


def test_the_active_player_leaving_passes_the_turn() -> None:
    data = script(steps=[DRAW, {"leave": "P1"}])
    end = run_script(data)["checkpoints"][-1]
    assert end["active"] == "P2" and end["pending"]["window"] == "draw"


def live(
    seed: int, seats: int, config: dict[str, Any]
) -> tuple[list[Any], list[dict[int, list[str]] | Leave]]:
    """A match of agents with junk; the states after each window and the windows' attempts."""
    state, _ = GAME.new_match(Setup(GAME.parse_config(config, seats), seats, seed))
    agents = [
        AGENTS["normal" if s % 2 else "random"](s, random.Random(seed + s)) for s in range(seats)
    ]
    rng, states, windows = random.Random(seed), [], []
    while GAME.requests(state) and len(windows) < 400:
        if rng.random() < 0.01 and len(state.in_play()) > 2:
            seat = rng.choice(GAME.requests(state)).seat
            state, _ = GAME.leave(state, seat)
            windows.append(Leave(seat))
            states.append(state)
            continue
        attempts = {}
        for request in GAME.requests(state):
            answer = agents[request.seat].act(request, GAME.view(state, request.seat))
            attempts[request.seat] = ["junk"] * rng.randint(0, 1) + [answer]
        moves = play_window(GAME.requests(state), attempts, partial(GAME.submit, state)).moves
        state, _ = GAME.resolve(state, moves)
        windows.append(attempts)
        states.append(state)
    return states, windows


@pytest.mark.parametrize("seed", range(6))
def test_an_export_replays_the_live_match_state_for_state(seed: int) -> None:
    config = {"max_turns": 30, "potion_set": "all18" if seed % 2 else "standard"}
    states, windows = live(seed, 2 + seed % 4, config)
    exported = json.loads(
        json.dumps(export_script(config, seed, [f"P{i + 1}" for i in range(2 + seed % 4)], windows))
    )
    replayed = list(replay_script(exported))
    assert len(replayed) == len(states)
    for again, state in zip(replayed, states, strict=True):
        assert GAME.dump(again.state) == json.loads(json.dumps(GAME.dump(state)))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_submit_never_raises_and_never_changes_the_state(text: str) -> None:
    state = state_after(hands={"P1": ["Amethyst", "Hex Seal (Fortuna)"]}, steps=[DRAW])
    before = json.dumps(GAME.dump(state))
    verdict = GAME.submit(state, 0, text)
    assert isinstance(verdict, Accepted | Refused)
    assert json.dumps(GAME.dump(state)) == before


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["players", "hands", "main_deck", "potion_decks", "config",
                                        "preset", "random", "steps", "start", "seed"]),
                       JSON_VALUES, max_size=6))  # fmt: skip
def test_a_fuzzed_script_is_a_config_error_or_a_trace(changes: dict[str, Any]) -> None:
    data = script()
    data.update(changes)
    try:
        run_script(data)
    except ConfigError as error:
        assert error.field
