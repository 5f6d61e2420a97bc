"""The five flowers, blooming and the stage floor (rules §9-§10, AMBIGUITY 4-8)."""

from __future__ import annotations

import pytest

from games.floral_extract.rules import BLOOM_AT, CHILLY, RAINY, SUNNY, Flower

from .helpers import QUIET, cast, player, preset, trace


def grow(
    code: str, turns: list[tuple[int, bool, bool]], stage: int = 0, sliding: bool = True
) -> list[int]:
    """The stages after each turn of (weather, watered, fertilized)."""
    flower = Flower(code, stage)
    stages = []
    for weather, watered, fertilized in turns:
        flower.grow(weather, watered, fertilized, sliding)
        stages.append(flower.stage)
    return stages


DRY = (SUNNY, False, False)
WET = (SUNNY, True, False)
COLD = (CHILLY, False, False)
RAIN = (RAINY, True, False)


def test_bloom_thresholds() -> None:
    assert BLOOM_AT == {"A": 8, "C": 30, "H": 15, "W": 7, "X": 6}


# --- Azalea ----------------------------------------------------------------------------------


def test_azalea_grows_one_a_turn_unless_chilly() -> None:
    assert grow("A", [DRY, DRY, WET, DRY]) == [1, 2, 3, 4]


def test_azalea_watered_twice_in_a_row_does_not_grow() -> None:
    # A new Azalea's "previous turn" was not watered, so its first watered turn grows.
    assert grow("A", [WET, WET, DRY, WET]) == [1, 1, 2, 3]


def test_azalea_shrinks_on_every_second_non_growth_turn_sliding() -> None:
    # chilly, chilly, chilly: no growth each turn; -1 from the 2nd on (AMBIGUITY 5 a).
    assert grow("A", [COLD, COLD, COLD, COLD], stage=5) == [5, 4, 3, 2]


def test_azalea_shrinks_every_other_non_growth_turn_in_reset_mode() -> None:
    assert grow("A", [COLD, COLD, COLD, COLD], stage=5, sliding=False) == [5, 4, 4, 3]


def test_azalea_under_continuous_rain_stops_then_shrinks() -> None:
    # rain counts as watering: from the 2nd rainy turn it is watered twice in a row
    assert grow("A", [RAIN, RAIN, RAIN, RAIN, (RAINY, False, False)], stage=3) == [4, 4, 3, 2, 3]


def test_azalea_stage_never_goes_below_zero() -> None:
    assert grow("A", [COLD, COLD, COLD]) == [0, 0, 0]


# --- Chrysanthemum, Hyacinth -----------------------------------------------------------------


def test_chrysanthemum_one_plus_two_watered_plus_three_fertilized() -> None:
    turns = [DRY, WET, (SUNNY, False, True), (SUNNY, True, True), COLD, (CHILLY, True, True)]
    assert grow("C", turns) == [1, 4, 8, 14, 15, 21]


def test_hyacinth_follows_the_weather_only() -> None:
    turns = [DRY, (SUNNY, True, True), RAIN, (CHILLY, True, True), COLD, COLD, COLD, COLD, COLD]
    assert grow("H", turns) == [2, 4, 4, 3, 2, 1, 0, 0, 0]


# --- Wisteria --------------------------------------------------------------------------------


def test_wisteria_needs_water_on_even_stages_and_fertilizer_on_multiples_of_three() -> None:
    assert grow("W", [DRY, DRY, DRY]) == [1, 2, 2]  # 2 needs water
    assert grow("W", [WET, WET, WET], stage=1) == [2, 3, 3]  # 3 needs fertilizer
    assert grow("W", [(SUNNY, False, True)], stage=3) == [4]
    assert grow("W", [DRY, WET, DRY], stage=4) == [4, 5, 6]
    assert grow("W", [WET, (SUNNY, False, True), (SUNNY, True, True)], stage=6) == [6, 6, 7]


def test_wisteria_stage_zero_is_free_and_chilly_stops_it() -> None:
    assert grow("W", [DRY]) == [1]
    assert grow("W", [(CHILLY, True, True)] * 2, stage=5) == [5, 5]


# --- Xanthium --------------------------------------------------------------------------------


def test_xanthium_grows_once_for_each_new_combination() -> None:
    assert grow("X", [DRY, DRY, WET, WET, (SUNNY, True, True), RAIN, COLD, COLD]) == [
        1, 1, 2, 2, 3, 4, 5, 5,
    ]  # fmt: skip


def test_xanthium_has_twelve_combinations() -> None:
    combos = [
        (w, a, b) for w in (SUNNY, CHILLY, RAINY) for a in (False, True) for b in (False, True)
    ]
    assert grow("X", combos + combos) == list(range(1, 13)) + [12] * 12


# --- blooming --------------------------------------------------------------------------------


@pytest.mark.parametrize(("code", "stage"), [("C", 29), ("H", 14), ("W", 6)])
def test_a_flower_blooms_at_its_threshold_and_leaves_its_pot(code: str, stage: int) -> None:
    # Turn 2 (X = 2): the third rune of 1, 2, 3 waters pots 1-2 and fertilizes pot 2.
    grow_all = {"type": "set", "n": 3, "set": [1, 2, 3]}
    book = dict(QUIET, water=grow_all, fertilize=grow_all)
    garden = player(pots=[None, f"{code}:{stage}", None], planted=[code], history=["1", "2"])
    [cp] = trace([cast(2, "3", "1")], preset=preset(1, garden, player()), book=book)
    assert cp["P1"]["bloomed_pots"] == [2]
    assert cp["P1"]["pots"] == [None, None, None]
    assert cp["P1"]["blooms"] == 1
    assert cp["P1"]["watered"][1] is True  # a bloomed flower still shows its flags


def test_a_chrysanthemum_may_overshoot_and_still_blooms_once() -> None:
    flower = Flower("C", 27)
    flower.grow(SUNNY, True, True, True)
    assert flower.stage == 33 and flower.bloomed
