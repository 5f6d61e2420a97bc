"""Planting phases (rules §3, AMBIGUITY 11, 22, 24)."""

from __future__ import annotations

from .helpers import cast, plant, player, preset, trace


def test_first_valid_flower_goes_to_the_leftmost_empty_pot() -> None:
    [cp] = trace([plant("c", " h ")])
    assert cp["skipped"] is False
    assert cp["P1"] | {} == {
        "prompted": True, "rejected": [], "planted": "C", "planted_pot": 1,
        "pots": ["C:0", None, None],
    }  # fmt: skip
    assert cp["P2"]["planted"] == "H"


def test_both_players_may_plant_the_same_type() -> None:
    [cp] = trace([plant("W", "W")])
    assert cp["P1"]["pots"] == ["W:0", None, None]
    assert cp["P2"]["pots"] == ["W:0", None, None]


def test_a_bloomed_type_can_never_be_planted_again_and_the_gap_is_filled_first() -> None:
    # P1 has a Chrysanthemum in pot 2; its Hyacinth bloomed out of pot 1 earlier.
    start = preset(5, player(pots=[None, "C:3", None], planted=["H", "C"], blooms=1), player())
    [cp] = trace([plant(["H", "C", "x", "A"], None, before=6)], preset=start)
    assert cp["P1"]["rejected"] == ["H", "C", "A"]
    assert cp["P1"]["planted"] == "X"
    assert cp["P1"]["planted_pot"] == 1
    assert cp["P1"]["pots"] == ["X:0", "C:3", None]


def test_invalid_letters_are_refused_and_the_player_may_try_again() -> None:
    [cp] = trace([plant(["Q", "1", "", "CH", "a"], None)])
    assert cp["P1"]["rejected"] == ["Q", "1", "", "CH"]
    assert cp["P1"]["planted"] == "A"


def test_first_valid_submission_locks_unless_resubmission_is_allowed() -> None:
    [locked] = trace([plant(["C", "H"], None)])
    assert (locked["P1"]["planted"], locked["P1"]["rejected"]) == ("C", ["H"])
    [changed] = trace([plant(["C", "H"], None)], config={"allow_resubmit_after_valid": True})
    assert (changed["P1"]["planted"], changed["P1"]["rejected"]) == ("H", [])


def test_timeout_plants_nothing_and_keeps_pots_and_types_available() -> None:
    steps = [plant(None, "C")]
    steps += [cast(t, None, None) for t in range(1, 6)]
    steps.append(plant("C", None, before=6))
    first, *_, second = trace(steps)
    assert first["P1"] == {
        "prompted": True, "rejected": [], "planted": None, "planted_pot": None,
        "pots": [None, None, None],
    }  # fmt: skip
    assert second["P1"]["planted"] == "C"
    assert second["P1"]["planted_pot"] == 1


def test_a_player_with_no_empty_pot_is_not_prompted() -> None:
    full = player(pots=["C:1", "H:1", "W:1"], planted=["C", "H", "W"])
    [cp] = trace([plant("A", "X", before=6)], preset=preset(5, player(), full))
    assert cp["P2"]["prompted"] is False
    assert cp["P2"]["rejected"] == ["X"]
    assert cp["P2"]["planted"] is None
    assert cp["P1"]["planted"] == "A"


def test_a_player_who_planted_every_type_is_not_prompted() -> None:
    # AMBIGUITY 22 (a): empty pots but nothing left to plant means not eligible.
    done = player(planted=["A", "C", "H", "W", "X"], blooms=5)
    [cp] = trace([plant("W", "C", before=6)], preset=preset(5, done, player()))
    assert cp["P1"]["prompted"] is False
    assert cp["P1"]["rejected"] == ["W"]
    assert cp["P2"]["planted"] == "C"


def test_the_phase_is_skipped_when_nobody_can_plant() -> None:
    full = player(pots=["C:1", "H:1", "W:1"], planted=["C", "H", "W"])
    done = player(planted=["A", "C", "H", "W", "X"], blooms=5)
    planting, turn6 = trace(
        [plant("A", ["X", "TIMEOUT"], before=6), cast(6, "D", "X")], preset=preset(5, full, done)
    )
    assert planting["skipped"] is True
    assert planting["P1"]["prompted"] is False
    assert planting["P1"]["rejected"] == ["A"]
    assert planting["P2"]["rejected"] == ["X"]
    assert turn6["P1"]["cast"] == "D"


def test_a_skipped_phase_needs_no_step() -> None:
    full = player(pots=["C:1", "H:1", "W:1"], planted=["C", "H", "W"])
    [turn6] = trace([cast(6, "D", "X")], preset=preset(5, full, full))
    assert turn6["after"] == "T6"
