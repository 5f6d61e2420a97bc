"""The guessing spell, declarations, points and the end (rules §6.4-§6.5, §11, AMB 14-18, 26)."""

from __future__ import annotations

from typing import Any

import pytest

from games.floral_extract import GAME

from .helpers import QUIET, cast, new_state, player, preset, trace

FULL = {"pots": ["C:0", "W:0", "C:0"], "planted": ["C", "W"]}  # slow growers: no bloom, no planting


def run(
    p1_attempts: list[str], config: dict[str, Any] | None = None, turns: int = 1, **p1: Any
) -> Any:
    """P1 (with a full garden plus ``p1`` fields) casts these from turn ``turns + 1``; P2 idles."""
    start = preset(turns, player(**{**FULL, **p1}), player(**FULL))
    steps = [cast(turns + 1 + i, a, None) for i, a in enumerate(p1_attempts)]
    return [cp["P1"] for cp in trace(steps, preset=start, book=QUIET, config=config)]


def guessed(checkpoints: list[Any]) -> list[bool]:
    return ["GUESS" in cp["spells"] for cp in checkpoints]


def test_six_different_runes_counting_stalls_give_a_charge() -> None:
    result = run(["0", "1", "2", "3", "4", "5", "6"], blooms=1)
    assert guessed(result) == [False] * 5 + [True, False]
    assert [cp["charge"] for cp in result] == [0] * 5 + [1, 1]


def test_no_charge_without_more_blooms_than_points() -> None:
    assert not any(guessed(run(["0", "1", "2", "3", "4", "5"], blooms=0)))
    pairs = [["S", 6]]
    assert not any(
        guessed(
            run(
                ["0", "1", "2", "3", "4", "5"],
                blooms=1,
                points=1,
                correct_pairs=pairs,
                score_turns=[1],
            )
        )
    )


def test_a_repeat_breaks_the_guessing_window() -> None:
    assert guessed(run(["0", "1", "2", "3", "3", "4", "5", "6", "7"], blooms=1))[-1] is False
    assert guessed(run(["0", "1", "2", "3", "3", "4", "5", "6", "7", "1"], blooms=1))[-1] is True


def test_the_guessing_spell_is_evaluated_on_a_stall() -> None:
    result = run(["1", "2", "3", "4", "5", "0"], blooms=1)
    assert result[-1]["spells"] == ["STALL", "GUESS"]


def test_a_declaration_breaks_the_guessing_window() -> None:
    dud = {"declaration_without_charge": "dud"}
    result = run(["1", "2", "S", "3", "4", "5", "6", "7"], config=dud, blooms=1)
    assert not any(guessed(result))
    assert guessed(run(["1", "2", "S", "3", "4", "5", "6", "7", "0"], config=dud, blooms=1))[-1]


def test_a_held_charge_is_not_recharged_or_reported() -> None:
    result = run(["0", "1", "2", "3", "4", "5"], blooms=2, charge=1)
    assert not any(guessed(result))
    assert result[-1]["charge"] == 1


def test_access_is_checked_before_this_turns_bloom_but_earlier_casts_count() -> None:
    # AMBIGUITY 17: the Hyacinth blooms at the end of the turn the 6th rune is cast.
    garden = {
        "pots": ["H:13", "C:0", "W:0"],
        "planted": ["H", "C", "W"],
        "history": ["1", "2", "3", "4", "5"],
    }
    first, second = run(["6", "7"], **garden)
    assert first["bloomed_pots"] == [1]
    assert "GUESS" not in first["spells"]
    assert "GUESS" in second["spells"]  # window 2..7 includes casts made before the bloom


def test_an_incorrect_declaration_lowers_the_cost_to_a_floor_of_one() -> None:
    result = run(["S", "1", "2", "3", "4", "5"], blooms=1, charge=1, history=["1"])
    assert result[0]["spells"] == ["DECLARE:S:incorrect"]
    assert (result[0]["wrong_since_correct"], result[0]["guess_cost"]) == (1, 5)
    assert guessed(result) == [False, False, False, False, False, True]
    floor = run(["0"], blooms=1, wrong_since_correct=7)
    assert floor[0]["guess_cost"] == 1
    assert floor[0]["spells"] == ["STALL", "GUESS"]


@pytest.mark.parametrize(
    ("mode", "points", "wrong", "cost"),
    [("formula", 0, 0, 6), ("prose", 0, 0, 6), ("formula", 2, 0, 4), ("prose", 2, 0, 5),
     ("formula", 1, 2, 3), ("prose", 1, 2, 3), ("prose", 3, 5, 1)],
)  # fmt: skip
def test_guess_cost_modes(mode: str, points: int, wrong: int, cost: int) -> None:
    pairs = [["S", 6], ["T", 2], ["U", 0]][:points]
    fields = dict(points=points, correct_pairs=pairs, score_turns=[1] * points)
    [cp] = run(["7"], {"guess_cost_mode": mode}, wrong_since_correct=wrong, **fields)
    assert cp["guess_cost"] == cost


# --- declarations ----------------------------------------------------------------------------


def test_a_correct_declaration_scores_and_resets_the_wrong_count() -> None:
    [cp] = run(["X"], blooms=1, charge=1, wrong_since_correct=2, history=["1"])
    assert cp["spells"] == ["DECLARE:X:correct"]
    assert cp["declaration"] == {"symbol": "X", "correct": True}
    assert (cp["points"], cp["wrong_since_correct"], cp["charge"], cp["guess_cost"]) == (1, 0, 0, 5)
    assert cp["identity"] is None and cp["cast"] == "X"


def test_the_previous_rune_may_be_a_stall() -> None:
    [cp] = run(["U"], blooms=1, charge=1, history=["3", "0"])  # U is P2's 0
    assert cp["spells"] == ["DECLARE:U:correct"]


def test_re_guessing_a_found_pair_is_incorrect_and_uses_the_charge() -> None:
    found = dict(points=1, correct_pairs=[["X", 1]], score_turns=[1], blooms=2, charge=1)
    [cp] = run(["X"], history=["1"], **found)
    assert cp["spells"] == ["DECLARE:X:incorrect"]
    assert (cp["points"], cp["wrong_since_correct"], cp["charge"]) == (1, 1, 0)


def test_a_declaration_casts_no_other_spell() -> None:
    # 1 then 7 would sabotage; declaring instead triggers nothing but the declaration.
    [cp] = run(["V"], blooms=2, charge=1, history=["1", "2", "3", "4", "5"])
    assert cp["spells"] == ["DECLARE:V:incorrect"]


def test_only_a_correct_declaration_reveals_the_translation() -> None:
    start = preset(
        1,
        player(**FULL, blooms=1, charge=1, history=["1"]),
        player(**FULL, blooms=1, charge=1, history=["2"]),
    )
    state = new_state({"spellbook": QUIET})
    from games.floral_extract.script import apply_preset

    apply_preset(state, start)
    state, events = GAME.resolve(state, {0: "X", 1: "A"})  # X = 1: right; A = 3, not 2
    public = next(e for e in events if e.kind == "turn")
    assert "P1 declared X: correct, X = 1." in public.text
    assert "P2 declared A: incorrect." in public.text
    assert public.data["declarations"] == [
        {"seat": "P1", "symbol": "X", "correct": True, "identity": 1},
        {"seat": "P2", "symbol": "A", "correct": False},
    ]


# --- winning ---------------------------------------------------------------------------------


def scorer(turns: list[int], previous: str, **more: Any) -> dict[str, Any]:
    pairs = [["S", 6], ["T", 2], ["U", 0], ["V", 7]][: len(turns)]
    if previous in "ABCDEFGH":  # P2 guessing P1's symbols
        pairs = [["A", 3], ["B", 0], ["C", 5], ["E", 7]][: len(turns)]
    return player(
        **FULL,
        points=len(turns),
        correct_pairs=pairs,
        score_turns=turns,
        blooms=4,
        charge=1,
        **more,
    )


def final(
    p1: dict[str, Any], p2: dict[str, Any], moves: tuple[str, str], advantage: str = "P1"
) -> Any:
    start = preset(10, p1, p2)
    [cp] = trace([cast(11, moves[0], moves[1])], preset=start, book=QUIET, advantage=advantage)
    return cp


def test_both_at_four_on_one_turn_goes_back_in_time() -> None:
    # After turn 10 and 9 both have 3; after turn 8 P2 leads (P1 scored on 2, 4, 9; P2 on 3, 5, 8).
    p1 = scorer([2, 4, 9], "S", history=["4"])  # W = 4: correct
    p2 = scorer([3, 5, 8], "A", history=["6"])  # G = 6: correct
    cp = final(p1, p2, ("W", "G"))
    assert (cp["P1"]["points"], cp["P2"]["points"]) == (4, 4)
    assert (cp["game_over"], cp["winner"]) == (True, "P2")


def test_a_perfect_tie_goes_to_the_advantage_player() -> None:
    # With P2 holding the advantage, P2 owns A-H; the maps follow the alphabets.
    p1 = scorer([2, 4, 9], "A", history=["6"])
    p2 = scorer([2, 4, 9], "S", history=["4"])
    start = preset(10, p1, p2)
    maps = {"P1": {"S": 6, "T": 2, "U": 0, "V": 7, "W": 4, "X": 1, "Y": 5, "Z": 3},
            "P2": {"A": 3, "B": 0, "C": 5, "D": 1, "E": 7, "F": 2, "G": 6, "H": 4}}  # fmt: skip
    from games.floral_extract import run_script

    from .helpers import script

    body = script([cast(11, "G", "W")], preset=start, book=QUIET, advantage="P2")
    body["maps"] = maps
    [cp] = run_script(body)["checkpoints"]
    assert (cp["P1"]["points"], cp["P2"]["points"]) == (4, 4)
    assert cp["winner"] == "P2"


def test_one_point_per_turn_and_four_points_win_at_once() -> None:
    p1 = scorer([2, 4, 9], "S", history=["4"])
    cp = final(p1, player(**FULL), ("W", "1"))
    assert (cp["game_over"], cp["winner"], cp["P1"]["points"]) == (True, "P1", 4)


def test_the_turn_limit_ends_the_match() -> None:
    state = new_state({"max_turns": 3})
    state, _ = GAME.resolve(state, {})
    for _ in range(3):
        assert GAME.outcome(state) is None
        state, events = GAME.resolve(state, {})
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,)  # 0-0: the advantage player
    assert "turn limit" in outcome.reason
    over = next(e for e in events if e.kind == "game_over")
    assert "A=3" in over.text and "S=6" in over.text  # both maps at the end


def test_the_turn_limit_goes_to_more_points_then_back_in_time() -> None:
    ahead = run(
        ["1"], {"max_turns": 2}, turns=1, points=1, correct_pairs=[["S", 6]], score_turns=[1]
    )
    assert ahead[0]["points"] == 1
    start = preset(
        1, player(**FULL), player(**FULL, points=1, correct_pairs=[["A", 3]], score_turns=[1])
    )
    [cp] = trace([cast(2, "1", "1")], preset=start, book=QUIET, config={"max_turns": 2})
    assert cp["winner"] == "P2"


def test_unlimited_turns_never_end_by_themselves() -> None:
    state = new_state({"max_turns": None})
    for _ in range(130):
        state, _ = GAME.resolve(state, {})
    assert state.phase != "over"


def test_a_host_end_uses_points_then_history_then_advantage() -> None:
    state = new_state()
    state, _ = GAME.resolve(state, {})
    state.players[1].points = 1
    state.players[1].score_turns = [1]
    ended, events = GAME.end(state, "ended by host")
    outcome = GAME.outcome(ended)
    assert outcome is not None and outcome.winners == (1,)
    assert outcome.reason.startswith("ended by host")
    assert GAME.outcome(state) is None  # the original state is untouched
    assert [e.kind for e in events] == ["game_over"]
