"""Who is told what, when (rules §12, AMBIGUITY 23-25)."""

from __future__ import annotations

import re
from typing import Any

from games.floral_extract import GAME
from games.floral_extract.script import apply_preset
from games.protocol import MODERATORS, PUBLIC, Event, Setup

from .helpers import CLASSIC, MAPS, new_state, player, preset

MAP_PAIR = re.compile(r"\b([A-HS-Z]) ?= ?([0-7])\b")


def start_events() -> list[Event]:
    _, events = GAME.new_match(
        __import__("games.protocol", fromlist=["Setup"]).Setup(
            {"spellbook": CLASSIC, "maps": MAPS}, 2, 1
        )
    )
    return events


def test_each_seat_alone_gets_its_map_and_moderators_get_both() -> None:
    events = start_events()
    maps = [e for e in events if e.kind == "rune_map"]
    assert [e.audience.seat for e in maps] == [0, 1]
    assert maps[0].data["map"] == MAPS["P1"] and "A=3" in maps[0].text and "S=6" not in maps[0].text
    public = [e for e in events if e.audience == PUBLIC]
    assert all(not MAP_PAIR.search(e.text) for e in public)
    assert all("map" not in e.data and "maps" not in e.data for e in public)
    assert "set 3 {1,2,3}" in public[0].text  # the spellbook is public
    setup = next(e for e in events if e.audience == MODERATORS)
    assert setup.data["maps"] == MAPS


def test_the_public_post_of_a_planting_phase_names_nobody_and_no_flower() -> None:
    state = new_state()
    _, events = GAME.resolve(state, {0: "C"})
    public = " ".join(e.text for e in events if e.audience == PUBLIC)
    assert "Chrysanthemum" not in public and "P1" not in public and "P2" not in public
    private = next(e for e in events if e.audience.seat == 0)
    assert private.text.startswith("You planted Chrysanthemum in pot 1.")
    timed_out = next(e for e in events if e.audience.seat == 1)
    assert timed_out.text.startswith("Time ran out: nothing planted.")


def test_the_turn_post_shows_symbols_and_points_but_no_identities() -> None:
    state = new_state()
    state, _ = GAME.resolve(state, {0: "C", 1: "H"})
    state, events = GAME.resolve(state, {0: "C", 1: "V"})
    public = next(e for e in events if e.kind == "turn")
    assert public.text == "Turn 1: P1 cast C, P2 cast V. Points: P1 0 – P2 0."
    assert public.data == {
        "turn": 1,
        "casts": {"P1": "C", "P2": "V"},
        "declarations": [],
        "points": [0, 0],
    }


def test_a_player_learns_own_identity_spells_and_stages_never_the_weather() -> None:
    state = new_state()
    state, _ = GAME.resolve(state, {0: "C", 1: "H"})
    for p1, p2 in [("D", "S"), ("F", "S"), ("A", "S")]:  # 1, 2, 3: Water and Weather -> Rainy
        state, events = GAME.resolve(state, {0: p1, 1: p2})
    mine = next(e for e in events if e.kind == "turn_private" and e.audience.seat == 0)
    theirs = next(e for e in events if e.kind == "turn_private" and e.audience.seat == 1)
    assert mine.text == (
        "Turn 3: You cast A (3). Spells: Water pots 1–3; Weather → Rainy. "
        "Garden: pot 1: Chrysanthemum 5/30 (+3) · pot 2: empty · pot 3: empty."
    )  # +1, +2 watered by the rain
    assert "weather" not in theirs.data and not re.search("(?i)rain|sun|chill", theirs.text)
    assert "Hyacinth 4/15" in theirs.text  # stopped by the rain it was never told about


def test_every_fifth_turn_reports_the_opponents_stages_per_pot() -> None:
    state = new_state()
    state, _ = GAME.resolve(state, {0: "C", 1: "H"})
    for _ in range(5):
        state, events = GAME.resolve(state, {})
    report = next(e for e in events if e.kind == "turn_private" and e.audience.seat == 0)
    assert report.data["opponent_report"] == [10, None, None]
    assert "Opponent's garden: pot 1: 10, pot 2: empty, pot 3: empty." in report.text
    assert "Hyacinth" not in report.text  # types stay hidden


def test_the_report_can_hide_empty_pots() -> None:
    state = new_state({"opponent_report_shows_empty_pots": False})
    state, _ = GAME.resolve(state, {0: "C", 1: "H"})
    for _ in range(5):
        state, events = GAME.resolve(state, {})
    report = next(e for e in events if e.kind == "turn_private" and e.audience.seat == 0)
    assert "Opponent's garden: 10." in report.text
    assert report.data["opponent_report"] == [10]


def test_players_are_told_the_rule_options_in_force() -> None:
    _, events = GAME.new_match(
        Setup({"spellbook": CLASSIC, "max_turns": 40, "guess_cost_mode": "prose"}, 2, 1)
    )
    start = next(e for e in events if e.kind == "match_start")
    assert start.data["rules"]["max_turns"] == 40
    assert "The match ends after turn 40." in start.text
    assert "the next one needs 5 different runes in a row again" in start.text


def test_no_report_between_fifth_turns() -> None:
    state = new_state()
    state, _ = GAME.resolve(state, {})
    state, events = GAME.resolve(state, {})
    assert all(e.data.get("opponent_report") is None for e in events if e.kind == "turn_private")


def test_views_hold_only_the_seats_own_secrets() -> None:
    state = new_state()
    state, _ = GAME.resolve(state, {0: "C", 1: "H"})
    mine: Any = GAME.view(state, 0)
    assert mine["map"] == MAPS["P1"]
    assert mine["pots"][0] == {"flower": "C", "stage": 0, "bloom_at": 30}
    assert not any(MAP_PAIR.search(str(v)) for k, v in mine.items() if k != "map")
    assert "S" not in str(mine["map"])
    public: Any = GAME.view(state, None)
    assert "map" not in public and "pots" not in public and "weather" not in public


def test_the_end_post_reveals_both_maps() -> None:
    start = preset(
        10,
        player(pots=["C:0", None, None], planted=["C"], points=3, blooms=4, charge=1,
               correct_pairs=[["S", 6], ["T", 2], ["U", 0]], score_turns=[2, 4, 6], history=["4"]),
        player(pots=["C:0", None, None], planted=["C"]),
    )  # fmt: skip
    state = new_state()
    apply_preset(state, start)
    state.phase = "cast"
    state, events = GAME.resolve(state, {0: "W"})
    over = next(e for e in events if e.kind == "game_over")
    assert over.audience == PUBLIC
    assert over.data["winner"] == "P1" and over.data["maps"] == MAPS
    assert "P1 wins (4 points)" in over.text


def test_describe_shows_the_public_side_and_only_the_askers_secrets() -> None:
    state = new_state()
    state, _ = GAME.resolve(state, {0: "C", 1: "H"})
    state, _ = GAME.resolve(state, {0: "D", 1: "X"})
    public = GAME.describe(state, None)
    assert public.startswith(
        "Turn 2 (X is 2: Water reaches pots 1–2, Fertilize pot 2, Weather makes it chilly).\n"
        "Points: P1 0 – P2 0.\nSpellbook:\n• Water (waters your pots 1 to X) when set 3 {1,2,3}"
    )
    assert not MAP_PAIR.search(public) and "Chrysanthemum" not in public
    mine = GAME.describe(state, 0)
    assert "Your rune map: A=3 B=0" in mine and "S=6" not in mine
    assert "pot 1: Chrysanthemum 1/30" in mine and "Hyacinth" not in mine
    assert "Your last casts: D = 1" in mine
    assert "Your spellbook:\n• Water (waters your pots 1 to X) when set 3 {1,2,3}" in mine
