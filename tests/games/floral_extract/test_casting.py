"""Casting input, validity and the timeout default (rules §4, AMBIGUITY 10-12)."""

from __future__ import annotations

import pytest

from games.floral_extract import GAME
from games.protocol import Accepted, Refused

from .helpers import QUIET, cast, casts, new_state, plant, player, preset, trace


def test_digits_and_letters_of_any_case_with_spaces_are_read() -> None:
    _, t1, t2, t3 = trace(
        [plant(None, None), cast(1, "5", "x"), cast(2, " c ", "6"), cast(3, "e", " 0")]
    )
    assert (t1["P1"]["cast"], t1["P1"]["identity"]) == ("C", 5)
    assert (t1["P2"]["cast"], t1["P2"]["identity"]) == ("X", 1)
    assert (t2["P1"]["cast"], t2["P2"]["cast"]) == ("C", "S")
    assert (t3["P1"]["cast"], t3["P2"]["cast"]) == ("E", "U")


@pytest.mark.parametrize("bad", ["8", "10", "I", "R", "", "  ", "AB", "!", "é"])
def test_anything_else_is_refused_and_the_window_times_out(bad: str) -> None:
    _, t1 = trace([plant(None, None), cast(1, [bad, "TIMEOUT"], "1")])
    assert t1["P1"]["rejected"] == [bad]
    assert t1["P1"]["timeout"] is True
    assert t1["P1"]["cast"] == "B"  # identity 0


def test_refusals_say_what_to_send() -> None:
    state = new_state()
    state, _ = GAME.resolve(state, {})
    verdict = GAME.submit(state, 0, "Q")
    assert isinstance(verdict, Refused)
    assert "A–H" in verdict.reason and "0–7" in verdict.reason
    accepted = GAME.submit(state, 1, "7")
    assert accepted == Accepted("V", "Cast V (7)")


def test_a_second_stall_in_a_row_is_refused_across_a_planting_phase() -> None:
    steps = [plant(None, None), *casts(1, [("1", "1")] * 4), cast(5, "0", "1")]
    steps += [plant(None, None, before=6), cast(6, ["0", "b", "TIMEOUT"], "1")]
    turn6 = trace(steps)[-1]
    assert turn6["P1"]["rejected"] == ["0", "b"]
    assert turn6["P1"]["timeout"] is True
    assert (turn6["P1"]["cast"], turn6["P1"]["identity"]) == ("D", 1)


def test_a_declaration_between_two_stalls_makes_the_second_legal() -> None:
    # AMBIGUITY 10 (a): "in a row" means the immediately preceding cast.
    start = preset(1, player(charge=1, blooms=1, history=["0"]), player())
    t2, t3 = trace([cast(2, "S", "1"), cast(3, "0", "1")], preset=start, book=QUIET)
    assert t2["P1"]["spells"] == ["DECLARE:S:incorrect"]
    assert t3["P1"]["rejected"] == []
    assert t3["P1"]["spells"] == ["STALL"]


def test_timeout_casts_zero_or_one_after_a_zero() -> None:
    _, t1, t2, t3 = trace(
        [plant(None, None), cast(1, None, "0"), cast(2, None, "1"), cast(3, "3", None)]
    )
    assert [t1["P1"]["identity"], t2["P1"]["identity"]] == [0, 1]
    assert t1["P1"]["timeout"] and t2["P1"]["timeout"] and not t3["P1"]["timeout"]
    assert t3["P2"]["identity"] == 0  # after P2's 1, a zero again


def test_first_valid_cast_locks_unless_resubmission_is_allowed() -> None:
    _, locked = trace([plant(None, None), cast(1, ["1", "2"], "1")])
    assert (locked["P1"]["identity"], locked["P1"]["rejected"]) == (1, ["2"])
    _, changed = trace(
        [plant(None, None), cast(1, ["1", "x", "2"], "1")],
        config={"allow_resubmit_after_valid": True},
    )
    assert (changed["P1"]["identity"], changed["P1"]["rejected"]) == (2, ["x"])


def test_attempts_after_the_window_closed_are_refused() -> None:
    _, t1 = trace([plant(None, None), cast(1, ["TIMEOUT", "3"], "1")])
    assert t1["P1"]["rejected"] == ["3"]
    assert t1["P1"]["timeout"] is True


def test_a_declaration_without_a_charge_is_refused_by_default() -> None:
    _, t1 = trace([plant(None, None), cast(1, ["S", "TIMEOUT"], "1")])
    assert t1["P1"]["rejected"] == ["S"]
    state = new_state()
    state, _ = GAME.resolve(state, {})
    verdict = GAME.submit(state, 0, "S")
    assert isinstance(verdict, Refused) and "charge" in verdict.reason


def test_dud_mode_accepts_a_chargeless_declaration_that_only_breaks_windows() -> None:
    # 1, 2, dud, 3 fires nothing: the dud broke the window; Y is unchanged.
    dud = {"declaration_without_charge": "dud"}
    steps = [plant(None, None), *casts(1, [("1", "1"), ("2", "1"), ("S", "1"), ("3", "1")])]
    _, _, _, t3, t4 = trace(steps, config=dud)
    assert t3["P1"]["spells"] == ["DECLARE:S:dud"]
    assert t3["P1"]["wrong_since_correct"] == 0
    assert t3["P1"]["points"] == 0
    assert t4["P1"]["spells"] == []
    _, _, _, _t3b, t4b = trace(
        [plant(None, None), *casts(1, [("1", "1"), ("2", "1"), ("0", "1"), ("3", "1")])]
    )
    assert t4b["P1"]["spells"] == ["WATER:1", "WEATHER:1"]  # the same runes around a stall


def test_a_finished_match_accepts_nothing() -> None:
    state = new_state({"max_turns": 1})
    state, _ = GAME.resolve(state, {})
    state, _ = GAME.resolve(state, {})
    assert state.phase == "over"
    assert GAME.requests(state) == []
    assert isinstance(GAME.submit(state, 0, "A"), Refused)
    with pytest.raises(ValueError):
        GAME.resolve(state, {})


def test_resolve_refuses_an_illegal_move_instead_of_playing_it() -> None:
    state = new_state()
    state, _ = GAME.resolve(state, {})
    before = GAME.dump(state)
    with pytest.raises(ValueError):
        GAME.resolve(state, {0: "S", 1: "X"})
    assert GAME.dump(state) == before
