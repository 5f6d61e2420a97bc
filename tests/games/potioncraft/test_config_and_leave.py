"""§16 options as parse_config checks them; the host's end and a player leaving mid-window."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.potioncraft import GAME
from games.protocol import ConfigError

from .helpers import DRAW, state_after, step


def test_s16_defaults() -> None:
    config = GAME.parse_config({}, 4)
    assert config["window_s"] == 60 and config["reaction_s"] == 20 and config["table_limit"] == 9
    assert config["potion_set"] == "standard" and config["win_check"] == "immediate"
    assert config["draw_own_pile"] is True and config["hand_reset_deal"] == "same"
    assert config["request_block_passes"] is True and config["two_player_twist"] == "reverse"
    assert config["chain_mode"] == "exact4" and config["max_turns"] == 200
    assert config["foul_elixir_discards"] == 2 and config["reaction_wait_full"] is False
    assert GAME.parse_config({"max_turns": None}, 2)["max_turns"] is None


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"potion_set": "all15"}, "potion_set"),
        ({"win_check": True}, "win_check"),
        ({"draw_own_pile": "yes"}, "draw_own_pile"),
        ({"max_turns": 0}, "max_turns"),
        ({"max_turns": 1.5}, "max_turns"),
        ({"foul_elixir_discards": -1}, "foul_elixir_discards"),
        ({"window_s": float("nan")}, "window_s"),
        ({"reaction_s": 0}, "reaction_s"),
        ({"table_limit": True}, "table_limit"),
        ({"variant": 1}, "variant"),
    ],
)
def test_s16_a_bad_option_is_refused_naming_it(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        GAME.parse_config(raw, 3)
    assert caught.value.field == field


def test_seats_are_two_to_six() -> None:
    with pytest.raises(ConfigError):
        GAME.parse_config({}, 7)
    with pytest.raises(ConfigError):
        GAME.parse_config({}, 1)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(max_size=12), st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=3),
    max_leaves=8), max_size=4))  # fmt: skip
def test_parse_config_refuses_junk_with_a_config_error(raw: dict[str, Any]) -> None:
    try:
        GAME.parse_config(raw, 3)
    except ConfigError as error:
        assert error.field


def test_s3_2_the_moderator_end_ranks_the_players() -> None:
    state = state_after(preset={"potions": {"P2": ["Wispwine"]}})
    ended, events = GAME.end(state, "moderator")
    outcome = GAME.outcome(ended)
    assert outcome is not None and outcome.winners == (1,) and GAME.requests(ended) == []
    assert any("ended" in event.text for event in events)


def test_leave_a_hand_reset_target_drops_out_of_the_window() -> None:
    state = state_after(
        hands={"P1": ["Amethyst"], "P2": ["Hex Seal (Benedicta)"], "P3": ["Bat Wing"]},
        preset={"potions": {"P1": ["Silence of the Grave"]}},
        steps=[DRAW, step("main", P1=["perk Silence of the Grave"])],
    )
    after, _ = GAME.leave(state, 1)
    assert after.out[1] and after.piles[1] == ["Hex Seal (Benedicta)"] and after.hands[1] == []
    assert after.pending == {"window": "main", "seats": [0]}
    assert [len(hand) for hand in after.hands] == [2, 0, 1]  # the others were dealt again
    assert len(after.drawn) == 1  # the one shuffle of the fold


def test_leave_the_request_holder_passes_the_request_on() -> None:
    state = state_after(
        players=["P1", "P2", "P3", "P4"],
        hands={"P2": ["Amethyst", "Hex Seal (Fortuna)"], "P3": ["Amethyst"]},
        preset={"potions": {"P1": ["Wispwine"]}},
        steps=[DRAW, step("main", P1=["perk Wispwine ask Amethyst"])],
    )
    after, _ = GAME.leave(state, 1)
    assert after.hands[2] == [] and "Amethyst" in after.hands[0]
    assert after.pending == {"window": "main", "seats": [0]}


def test_leave_the_pair_target_answers_by_default_first() -> None:
    wager = ["Coffin Nails", "Eye of Newt", "Spider Silk", "Nightshade"]
    state = state_after(
        hands={"P1": ["Thief's Gamble (Fortuna)", *wager],
               "P2": ["Amethyst", "Amethyst", "Bat Wing", "Bat Wing"]},
        preset={"potions": {"P2": ["Wispwine"]}},
        steps=[DRAW, step("main", P1=["play Thief's Gamble (Fortuna) on P2 steal Wispwine wager "
                                      + ", ".join(wager)])],
    )  # fmt: skip
    after, _ = GAME.leave(state, 1)
    assert [o.name for o in after.potions[0]] == ["Wispwine"]
    assert after.piles[1] == ["Amethyst", "Amethyst", "Bat Wing", "Bat Wing"]


def test_leave_is_refused_for_a_seat_already_out() -> None:
    after, _ = GAME.leave(state_after(), 2)
    with pytest.raises(ValueError):
        GAME.leave(after, 2)
