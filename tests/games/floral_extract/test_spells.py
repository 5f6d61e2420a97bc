"""Basic spells, stall and sabotage (rules §5-§7, AMBIGUITY 2, 9, 13, 19, 21)."""

from __future__ import annotations

from typing import Any

import pytest

from games.floral_extract import GAME
from games.floral_extract.rules import Flower

from .helpers import CLASSIC, NEVER, QUIET, cast, casts, new_state, plant, player, preset, trace

P1_IDS = {0: "B", 1: "D", 2: "F", 3: "A", 4: "H", 5: "C", 6: "G", 7: "E"}


def p1_runs(*identities: int) -> list[Any]:
    """P1 casts these identities from turn 1 while P2 casts its 1 (X) and 2 (T) in turn."""
    steps: list[Any] = [plant(None, None)]
    for turn, identity in enumerate(identities, start=1):
        if turn == 6:
            steps.append(plant(None, None, before=6))
        steps.append(cast(turn, str(identity), "T" if turn % 2 else "X"))
    return steps


def spells(identities: tuple[int, ...], book: Any = CLASSIC, **kw: Any) -> list[list[str]]:
    checkpoints = trace(p1_runs(*identities), book=book, **kw)
    return [cp["P1"]["spells"] for cp in checkpoints if cp["after"].startswith("T")]


def test_set_allows_repeats_and_spell_x_follows_the_turn() -> None:
    assert spells((1, 1, 1, 1)) == [[], [], ["WATER:3"], ["WATER:1"]]


def test_a_window_needs_n_non_stall_runes() -> None:
    book = dict(QUIET, water={"type": "set", "n": 5, "set": [1, 2, 3]})
    assert spells((1, 2, 0, 3, 1, 2), book=book)[-1] == ["WATER:3"]
    assert spells((1, 2, 0, 3, 1), book=book)[-1] == []


def test_sum_is_inclusive_at_both_ends() -> None:
    fert = {"type": "sum", "n": 3, "lo": 19, "hi": 21}
    book = dict(QUIET, fertilize=fert)
    assert spells((6, 6, 7), book=book)[-1] == ["FERTILIZE:3"]
    assert spells((7, 7, 7), book=book)[-1] == ["FERTILIZE:3"]
    assert spells((7, 6, 5), book=book)[-1] == []


def test_chain_reads_from_the_oldest_rune_to_the_newest() -> None:
    up = dict(QUIET, weather={"type": "chain", "n": 3, "ops": ["<", "<="]})
    assert spells((1, 2, 2), book=up)[-1] == ["WEATHER:3"]
    assert spells((2, 2, 1), book=up)[-1] == []
    down = dict(QUIET, weather={"type": "chain", "n": 4, "ops": [">", "=", ">="]})
    assert spells((5, 3, 3, 3), book=down)[-1] == ["WEATHER:1"]
    assert spells((3, 3, 3, 6), book=down)[-1] == []


def test_every_spell_a_cast_completes_triggers() -> None:
    book = {
        "water": {"type": "set", "n": 3, "set": [5, 6, 7]},
        "fertilize": {"type": "sum", "n": 3, "lo": 18, "hi": 18},
        "weather": {"type": "chain", "n": 3, "ops": ["<", "<"]},
    }
    assert spells((5, 6, 7), book=book)[-1] == ["WATER:3", "FERTILIZE:3", "WEATHER:3"]


def test_any_condition_of_a_spell_triggers_it() -> None:
    water = [NEVER, {"type": "set", "n": 3, "set": [4, 5, 6]}]
    assert spells((4, 5, 4), book=dict(QUIET, water=water))[-1] == ["WATER:3"]


def test_per_player_spellbooks() -> None:
    split = {"P1": dict(QUIET, water={"type": "set", "n": 3, "set": [1, 2, 3]}), "P2": QUIET}
    checkpoints = trace(p1_runs(1, 2, 1), book=split)
    assert checkpoints[-1]["P1"]["spells"] == ["WATER:3"]
    assert checkpoints[-1]["P2"]["spells"] == []  # P2 cast 1, 2, 1 too: X T X


def test_a_stall_is_transparent_and_never_re_fires_a_window() -> None:
    # 1, 2, 0, 3 completes [1, 2, 3] on the 3; the stall itself evaluates nothing (AMB 9).
    assert spells((1, 2, 3, 0, 0 + 1)) == [[], [], ["WATER:3", "WEATHER:3"], ["STALL"], ["WATER:2"]]
    assert spells((1, 2, 0, 3)) == [[], [], ["STALL"], ["WATER:1", "WEATHER:1"]]


def test_spells_on_empty_pots_are_still_cast_and_reported() -> None:
    final = trace(p1_runs(1, 2, 3))[-1]["P1"]
    assert final["spells"] == ["WATER:3", "WEATHER:3"]
    assert final["pots"] == [None, None, None]
    assert final["watered"] == [None, None, None]


def test_weather_applies_on_the_turn_it_is_cast_and_persists() -> None:
    steps = [
        plant("H", "H"),
        *casts(1, [("1", "X"), ("2", "X"), ("3", "X"), ("1", "X"), ("1", "X")]),
    ]
    checkpoints = trace(steps)
    assert [cp["weather"] for cp in checkpoints[1:]] == [
        "sunny",
        "sunny",
        "rainy",
        "rainy",
        "rainy",
    ]
    # Hyacinths grow 2 a turn in the sun and stop in the rain, from turn 3 on, in both gardens.
    assert [cp["P2"]["pots"][0] for cp in checkpoints[1:]] == ["H:2", "H:4", "H:4", "H:4", "H:4"]


@pytest.mark.parametrize("weather", ["sunny", "chilly", "rainy"])
def test_initial_weather_option(weather: str) -> None:
    [cp] = trace([plant(None, None)], config={"initial_weather": weather})
    assert cp["weather"] == weather


def test_random_initial_weather_comes_from_the_seed() -> None:
    seen = {new_state({"initial_weather": "random"}, seed=s).weather for s in range(40)}
    assert seen == {1, 2, 3}
    again = [new_state({"initial_weather": "random"}, seed=s).weather for s in range(10)]
    assert again == [new_state({"initial_weather": "random"}, seed=s).weather for s in range(10)]


def test_water_and_fertilize_reach_pots_up_to_and_at_x() -> None:
    book = {
        "water": {"type": "set", "n": 3, "set": [4, 6, 7]},
        "fertilize": {"type": "set", "n": 3, "set": [4, 5, 7]},
        "weather": NEVER,
    }
    garden = player(pots=["C:0", "W:2", "C:0"], planted=["C", "W"], history=["4", "4"])
    # The turn-5 cast of a third 4 (X = 2) waters pots 1-2 and fertilizes pot 2 (and 4 + 4
    # sabotages the opponent's empty pot 1).
    [cp] = trace([cast(5, "4", "1")], preset=preset(4, garden, player()), book=book)
    assert cp["P1"]["spells"] == ["WATER:2", "FERTILIZE:2", "SABOTAGE:1"]
    assert cp["P1"]["watered"] == [True, True, False]
    assert cp["P1"]["fertilized"] == [False, True, False]
    assert cp["P1"]["pots"] == ["C:3", "W:3", "C:1"]


# --- sabotage --------------------------------------------------------------------------------


def sabotage_game(
    p1: list[str], weather: str = "sunny", config: dict[str, Any] | None = None
) -> Any:
    """P2 has Chrysanthemums in all three pots; P1 casts ``p1`` from turn 1."""
    garden = player(pots=["C:0", "C:0", "C:0"], planted=["C"])
    start = preset(0, player(pots=["H:0", "H:0", "H:0"], planted=["H"]), garden, weather)
    steps = casts(1, [(a, "X" if i % 2 else "T") for i, a in enumerate(p1)])
    return trace(steps, preset=start, book=QUIET, config=config)


@pytest.mark.parametrize(
    ("pair", "pot"),
    [(("1", "7"), 1), (("4", "4"), 1), (("6", "2"), 1), (("3", "7"), 2), (("5", "5"), 2),
     (("5", "7"), 3), (("6", "6"), 3)],
)  # fmt: skip
def test_sabotage_pairs_hit_the_opponent_pot(pair: tuple[str, str], pot: int) -> None:
    second = sabotage_game(list(pair))[1]
    assert second["P1"]["spells"] == [f"SABOTAGE:{pot}"]
    assert second["P2"]["sabotaged"] == [p == pot for p in (1, 2, 3)]


@pytest.mark.parametrize("pair", [("1", "6"), ("2", "7"), ("7", "6")])
def test_other_sums_do_not_sabotage(pair: tuple[str, str]) -> None:
    assert sabotage_game(list(pair))[1]["P1"]["spells"] == []


def test_sabotage_cancels_rain_and_fertilizer_for_one_turn() -> None:
    t1, t2, t3 = sabotage_game(["1", "7", "2"], weather="rainy")
    assert t1["P2"]["pots"] == ["C:3", "C:3", "C:3"]
    assert t2["P2"]["watered"] == [False, True, True]
    assert t2["P2"]["pots"] == ["C:4", "C:6", "C:6"]
    assert t3["P2"]["sabotaged"] == [False, False, False]


def test_sabotage_skips_stalls_but_not_declarations() -> None:
    assert sabotage_game(["1", "0", "7"])[2]["P1"]["spells"] == ["SABOTAGE:1"]
    dud = {"declaration_without_charge": "dud"}
    assert sabotage_game(["1", "S", "7"], config=dud)[2]["P1"]["spells"] == []


def test_the_first_rune_cannot_sabotage_and_an_empty_pot_takes_no_harm() -> None:
    start = preset(
        1,
        player(pots=["H:0", None, None], planted=["H"]),
        player(pots=["C:0", None, None], planted=["C"]),
    )
    t1, t2 = trace(casts(2, [("7", "7"), ("5", "5")]), preset=start, book=QUIET)
    assert t1["P1"]["spells"] == []
    assert t2["P1"]["spells"] == ["SABOTAGE:3"]
    assert t2["P2"]["sabotaged"] == [False, None, None]


def test_both_players_may_sabotage_each_other_and_only_the_caster_is_told() -> None:
    start = preset(
        1,
        player(pots=["C:0", None, None], planted=["C"]),
        player(pots=["C:0", None, None], planted=["C"]),
    )
    state = GAME.load(GAME.dump(new_state({"spellbook": QUIET})))
    from games.floral_extract.script import apply_preset

    apply_preset(state, start)
    state, _ = GAME.resolve(state, {0: "D", 1: "X"})  # 1 and 1
    state, events = GAME.resolve(state, {0: "E", 1: "V"})  # 7 and 7: both sabotage pot 1
    full = next(e for e in events if e.kind == "turn_full").data
    assert full["P1"]["sabotaged"] == [True, None, None]
    assert full["P2"]["sabotaged"] == [True, None, None]
    for seat in (0, 1):
        private = next(e for e in events if e.kind == "turn_private" and e.audience.seat == seat)
        assert private.data["spells"] == ["SABOTAGE:1"]
        assert "Sabotage opponent pot 1" in private.text
        assert private.text.count("abotage") == 1  # told of its own, never of the opponent's


def test_a_xanthium_under_rain_meets_rainy_and_dry_only_when_sabotaged() -> None:
    # AMBIGUITY 8: the combination uses the final flags, after rain and sabotage.
    start = preset(
        1,
        player(pots=["H:0", None, None], planted=["H"]),
        player(pots=["W:0", None, None], planted=["W"]),
        weather="rainy",
    )
    state = new_state({"spellbook": QUIET})
    from games.floral_extract.script import apply_preset

    apply_preset(state, start)
    state.players[1].pots[0] = Flower("X")  # a preset cannot hold one: set it up by hand
    stages = []
    # P1 casts 1, then 7 (1 + 7 sabotages pot 1), then 1 (7 + 1: again), then 1 (no sabotage)
    for p1 in ("D", "E", "D", "D"):
        state, _ = GAME.resolve(state, {0: p1, 1: "X"})
        flower = state.players[1].pots[0]
        assert flower is not None
        stages.append(flower.stage)
    # rainy+watered: new; rainy+dry by sabotage: new; the same again: old; rainy+watered: old
    assert stages == [1, 2, 2, 2]
