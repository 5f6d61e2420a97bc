"""What a player reads where they decide: the spellbook in words (start post, /look, /view,
a prompt's help, the match's reference), each flower's needs when planting, and what each rune
would complete when casting (rules §6, §9, §12)."""

from __future__ import annotations

import re
from typing import Any

from games.floral_extract import GAME, GAME_INFO
from games.floral_extract.render import condition_words
from games.floral_extract.spellbook import ChainCondition, SetCondition, SumCondition
from games.protocol import HELP_CHARS, TOPIC_CHARS, Setup

from .helpers import CLASSIC, MAPS

MAP_PAIR = re.compile(r"\b([A-HS-Z]) ?= ?([0-7])\b")
HUGE = {  # a moderator may join any number of conditions with |
    "water": [{"type": "set", "n": 3, "set": [1, 2, 3]}] * 12,
    "fertilize": [{"type": "sum", "n": 4, "lo": 10, "hi": 12}] * 12,
    "weather": [{"type": "chain", "n": 5, "ops": ["<", "<=", "=", ">"]}] * 12,
}


def new_state(config: dict[str, Any] | None = None) -> Any:
    state, _ = GAME.new_match(Setup({"spellbook": CLASSIC, "maps": MAPS, **(config or {})}, 2, 1))
    return state


def test_6_1_each_kind_of_condition_in_words() -> None:
    assert condition_words(SetCondition(3, (1, 2, 3))) == (
        "set 3 {1,2,3}: your last 3 runes are each 1, 2 or 3"
    )
    assert condition_words(SumCondition(3, 19, 21)) == (
        "sum 3 19-21: your last 3 runes add up to 19 to 21"
    )
    assert condition_words(SumCondition(4, 10, 10)) == "sum 4 10-10: your last 4 runes add up to 10"
    assert condition_words(ChainCondition(4, ("<", "<=", ">"))) == (
        "chain 4 < <= >: your last 4 runes, oldest first, go a < b ≤ c > d"
    )


def test_12_the_start_post_gives_the_spellbook_in_words() -> None:
    _, events = GAME.new_match(Setup({"spellbook": CLASSIC}, 2, 1))
    start = next(e for e in events if e.kind == "match_start")
    assert "Spellbook: X is each turn's place in 1, 2, 3, 1, 2, 3…" in start.text
    assert "• Fertilize (fertilizes your pot X) when sum 3 19-21: your last 3" in start.text
    assert "your 0 (the stall) is skipped" in start.text


def test_3_the_planting_prompt_says_what_each_flower_needs_and_what_reaches_the_pot() -> None:
    state = new_state()
    prompt = GAME.requests(state)[0].prompt
    assert prompt.startswith(
        "Planting before turn 1: choose a flower for pot 1 (Water reaches pot 1 on every turn, "
        "Fertilize on turns where X is 1).\n"
    )
    assert "H Hyacinth: blooms at 15: +2 a sunny turn, −1 a chilly one" in prompt
    assert "X Xanthium: blooms at 6: +1 for each mix of weather" in prompt


def cast_prompt(moves: list[str]) -> Any:
    state = new_state()
    state, _ = GAME.resolve(state, {0: "C", 1: "C"})
    for move in moves:
        state, _ = GAME.resolve(state, {0: move, 1: "S"})
    return state, GAME.requests(state)[0]


def test_6_the_cast_prompt_says_what_each_rune_would_complete() -> None:
    _, request = cast_prompt(["D", "F"])  # 1, 2 (classic: water {1,2,3}, weather <<)
    assert request.prompt.splitlines() == [
        "Turn 3 (X is 3: Water reaches pots 1–3, Fertilize pot 3, Weather makes it rainy): "
        "cast a rune.",
        "Completes now: D (1): Water; F (2): Water; A (3): Water, Weather; H (4): Weather; "
        "C (5): Weather; G (6): Weather, sabotage of their pot 1; E (7): Weather.",
        "Guessing spell: no access yet (each bloom gives one).",
    ]
    assert "Send one of your runes A–H or its number 0–7" in request.help
    assert "Your map: A=3 B=0" in request.help and len(request.help) <= HELP_CHARS


def test_6_4_the_prompt_names_the_runes_that_earn_the_charge_and_the_one_a_guess_tests() -> None:
    state, _ = cast_prompt(["D", "F", "A", "H", "C"])  # 1, 2, 3, 4, 5: five different
    state, _ = GAME.resolve(state, {0: "A", 1: "A"})  # the planting before turn 6
    state.players[0].blooms = 1
    request = GAME.requests(state)[0]
    assert request.prompt.splitlines()[-1] == (
        "Guessing spell: B (0), G (6), E (7) now earns the guess charge (6 different in a row)."
    )
    state.players[0].charge = 1
    request = GAME.requests(state)[0]
    assert request.prompt.splitlines()[-1] == (
        "You hold a guess charge: send an opponent rune S–Z to claim its number is your last "
        "rune's (C = 5); a point if right."
    )


def test_12_look_and_view_show_the_spellbook() -> None:
    state = new_state({"spellbook": {"P1": CLASSIC, "P2": HUGE}})
    mine = GAME.describe(state, 0)
    assert "Your spellbook:\n• Water (waters your pots 1 to X) when set 3 {1,2,3}" in mine
    assert "Sabotage (every book)" in mine
    public = GAME.describe(state, None)
    assert "P1's spells:" in public and "P2's spells:" in public
    assert "`/cards`, has the whole book" in public  # a huge book is cut, with a pointer
    theirs = GAME.describe(state, 1)
    assert len(public) < 1900 and len(theirs) < 1900
    assert not MAP_PAIR.search(public)


def test_12_the_reference_gives_the_spellbook_flowers_weather_and_rules() -> None:
    state = new_state({"initial_weather": "rainy"})
    topics = GAME_INFO.reference(state)  # type: ignore[misc]
    titles = [t.title for t in topics]
    assert titles == [
        "Spellbook",
        "Stall, sabotage and guessing",
        "Flowers",
        "Weather",
        "Rules in force",
    ]
    text = {t.title: t.text for t in topics}
    assert "• Water (waters your pots 1 to X) when set 3 {1,2,3}" in text["Spellbook"]
    assert "Wisteria (W): blooms at 7" in text["Flowers"]
    assert "This match started rainy." in text["Weather"]
    assert "The match ends after turn 100." in text["Rules in force"]
    assert all(len(t.text) <= TOPIC_CHARS and not MAP_PAIR.search(t.text) for t in topics)


def test_12_a_huge_or_per_player_book_splits_into_topics_that_fit() -> None:
    state = new_state({"spellbook": {"P1": CLASSIC, "P2": HUGE}})
    topics = GAME_INFO.reference(state)  # type: ignore[misc]
    titles = [t.title for t in topics]
    assert titles[:3] == ["P1's spellbook", "P2's spellbook", "P2's spellbook (more)"]
    assert all(len(t.text) <= TOPIC_CHARS for t in topics)
    huge = "\n".join(t.text for t in topics if t.title.startswith("P2's"))
    assert huge.count("– chain 5 < <= = >:") == 12


def test_prompts_help_fits_with_a_huge_book() -> None:
    state = new_state({"spellbook": HUGE})
    state, _ = GAME.resolve(state, {0: "C", 1: "C"})
    request = GAME.requests(state)[0]
    assert len(request.help) <= HELP_CHARS and "the whole book" in request.help
