"""Setup: configuration (rules §15), rune maps, spellbook values."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from games.floral_extract import GAME
from games.protocol import ConfigError, Setup

from .helpers import CLASSIC, MAPS


def start(config: dict[str, Any], seed: int = 1) -> Any:
    state, _ = GAME.new_match(Setup({"spellbook": CLASSIC, **config}, 2, seed))
    return state


def test_defaults_are_the_recommended_readings() -> None:
    config = GAME.parse_config({})
    assert config == {
        "initial_weather": "sunny",
        "azalea_shrink_mode": "sliding",
        "guess_cost_mode": "formula",
        "declaration_without_charge": "reject",
        "allow_resubmit_after_valid": False,
        "opponent_report_shows_empty_pots": True,
        "advantage": "P1",
        "max_turns": 100,
        "submission_timeout_s": 60.0,
        "spellbook": "random",
    }


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"initial_weather": "foggy"}, "config.initial_weather"),
        ({"azalea_shrink_mode": 1}, "config.azalea_shrink_mode"),
        ({"allow_resubmit_after_valid": "yes"}, "config.allow_resubmit_after_valid"),
        ({"max_turns": 0}, "config.max_turns"),
        ({"max_turns": True}, "config.max_turns"),
        ({"submission_timeout_s": -5}, "config.submission_timeout_s"),
        ({"advantage": "P3"}, "config.advantage"),
        ({"colour": "red"}, "config.colour"),
        ({"spellbook": {"water": CLASSIC["water"]}}, "spellbook.fertilize"),
        ({"spellbook": "water: set 3 {1,2,3}"}, "spellbook"),
        ({"maps": {"P1": {**MAPS["P1"], "A": 0}, "P2": MAPS["P2"]}}, "maps.P1"),
    ],
)
def test_bad_config_names_the_field(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        GAME.new_match(Setup({"spellbook": CLASSIC, **raw}, 2, 1))
    assert caught.value.field.startswith(field), caught.value


def test_exactly_two_players() -> None:
    with pytest.raises(ConfigError, match="exactly 2 players"):
        GAME.parse_config({}, seats=3)


def test_the_advantage_player_owns_a_to_h() -> None:
    assert [p.symbols for p in start({"advantage": "P2"}).players] == ["STUVWXYZ", "ABCDEFGH"]
    assert [p.symbols for p in start({}).players] == ["ABCDEFGH", "STUVWXYZ"]


def test_rune_maps_are_bijections_drawn_from_the_seed() -> None:
    for seed in range(50):
        state = start({}, seed)
        for player in state.players:
            assert sorted(player.identity.values()) == list(range(8))
        assert state.config["maps"] == start({}, seed).config["maps"]
    assert start({}, 1).config["maps"] != start({}, 2).config["maps"]


def test_rune_maps_are_uniform() -> None:
    """Every identity lands on symbol A about 1 time in 8, for both seats independently."""
    draws = 4000
    counts = Counter(start({}, seed).players[0].identity["A"] for seed in range(draws))
    assert set(counts) == set(range(8))
    assert all(abs(n - draws / 8) < 0.25 * draws / 8 for n in counts.values()), counts
    same = sum(
        start({}, seed).players[0].identity["A"] == start({}, seed).players[1].identity["S"]
        for seed in range(800)
    )
    assert 50 < same < 150  # independent seats agree about 1 time in 8


def test_a_given_map_is_used_as_it_is() -> None:
    state = start({"maps": MAPS})
    assert state.players[0].identity == MAPS["P1"]
    assert state.players[1].identity == MAPS["P2"]


def test_a_random_or_preset_or_text_spellbook_becomes_concrete() -> None:
    random_book = start({"spellbook": "random"}, 3).config["spellbook"]
    assert set(random_book) == {"water", "fertilize", "weather"}
    assert start({"spellbook": "random"}, 3).config["spellbook"] == random_book
    assert start({"spellbook": "classic"}).config["spellbook"] == CLASSIC
    text = "water: set 3 {1,2,3}; fertilize: sum 3 19-21; weather: chain 3 < <"
    assert start({"spellbook": text}).config["spellbook"] == CLASSIC


def test_a_preset_name_becomes_its_book_at_setup_and_keeps_its_name() -> None:
    from games.floral_extract.books import load_preset
    from games.floral_extract.config import PRESET_KEY

    parsed = GAME.parse_config({"spellbook": " Gentle "})
    assert parsed["spellbook"] == load_preset("gentle").to_json()
    assert parsed[PRESET_KEY] == "gentle"
    assert GAME.parse_config(parsed) == parsed  # the host parses a stored config again
    for other in ("random", "water: set 3 {1,2,3}; fertilize: sum 3 19-21; weather: chain 3 < <"):
        assert PRESET_KEY not in GAME.parse_config({**parsed, "spellbook": other})
    # The note is for display: the state is the one an old config naming the preset gives.
    state = GAME.new_match(Setup(parsed, 2, 3))[0]
    assert state.dump() == GAME.new_match(Setup({"spellbook": "gentle"}, 2, 3))[0].dump()
    assert PRESET_KEY not in state.config


@pytest.mark.parametrize("note", [7, "", "x" * 61, ["classic"], "gentle\ud800", "g\u200b", " "])
def test_a_malformed_preset_note_is_refused(note: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        GAME.parse_config({"spellbook": CLASSIC, "spellbook_preset": note})
    assert caught.value.field == "config.spellbook_preset"


def test_rules_text_as_moderators_type_it() -> None:
    from games.floral_extract.config import parse_rules_text

    text = "Azalea-Shrink-Mode = reset; max_turns=60, allow_resubmit_after_valid=yes\n"
    assert parse_rules_text(text) == {
        "azalea_shrink_mode": "reset",
        "max_turns": 60,
        "allow_resubmit_after_valid": True,
    }
    assert parse_rules_text("max_turns=none") == {"max_turns": None}
    assert parse_rules_text("") == {}
    with pytest.raises(ConfigError, match=r"rules\.colour: is not a rules option"):
        parse_rules_text("colour=red")
    with pytest.raises(ConfigError, match="write option=value"):
        parse_rules_text("reset")
    with pytest.raises(ConfigError) as caught:  # a bad value is named when the match is made
        start(parse_rules_text("azalea_shrink_mode=sometimes"))
    assert caught.value.field == "config.azalea_shrink_mode"


# --- per-player books (§1.3: the data model allows them; AMBIGUITY 20) ----------------------


def test_s1_3_amb20_per_player_books_alike_are_still_two_books() -> None:
    from games.floral_extract.books import parse_text
    from games.floral_extract.render import reference, spellbook_text

    alike = {"P1": CLASSIC, "P2": CLASSIC}  # one object for both seats, as a script may give
    state, events = GAME.new_match(Setup({"spellbook": alike}, 2, 1))
    copied = {"P1": dict(CLASSIC), "P2": dict(CLASSIC)}
    assert state.dump() == GAME.new_match(Setup({"spellbook": copied}, 2, 1))[0].dump()
    assert "P1's spells:" in events[0].text and "P2's spells:" in events[0].text
    assert parse_text(spellbook_text(alike)).to_json() == copied  # shown as two, pasted back
    titles = [topic.title for topic in reference(state)]
    assert "P1's spellbook" in titles and "P2's spellbook" in titles


@pytest.mark.parametrize(
    "value",
    [{"P1": "classic", "P2": " Gentle "}, "P1: classic; P2: gentle", "P2: GENTLE\nP1: classic"],
)
def test_s1_3_amb20_each_player_book_may_be_a_preset_read_at_setup(value: Any) -> None:
    from games.floral_extract.books import load_preset
    from games.floral_extract.config import PRESET_KEY

    parsed = GAME.parse_config({"spellbook": value})
    assert parsed["spellbook"] == {"P1": CLASSIC, "P2": load_preset("gentle").to_json()}
    assert parsed[PRESET_KEY] == "P1 classic, P2 gentle"
    assert GAME.parse_config(parsed) == parsed  # the host parses a stored config again
    state = GAME.new_match(Setup(parsed, 2, 3))[0]
    assert state.config["spellbook"] == parsed["spellbook"]


def test_s1_3_amb20_a_player_book_takes_what_a_shared_one_does() -> None:
    from games.floral_extract.books import random_spellbook
    from games.protocol import derive_rng

    text = "water: set 3 {1,2,3}; fertilize: sum 3 19-21; weather: chain 3 < <"
    state = start({"spellbook": {"P1": "random", "P2": text}}, 5)
    mine = random_spellbook(derive_rng(5, "spellbook", 0)).to_json()
    assert state.config["spellbook"] == {"P1": mine, "P2": CLASSIC}


@pytest.mark.parametrize(
    ("value", "field", "says"),
    [
        ({"P1": "classic", "P2": "nope"}, "spellbook.P2", "is not 'random', a preset"),
        ({"P1": CLASSIC, "P2": "P1: classic; P2: gentle"}, "spellbook.P2", "one player's book"),
        ({"P1": {"water": CLASSIC["water"]}, "P2": CLASSIC}, "spellbook.P1.fertilize", "missing"),
        ("P1: classic; P2: nope", "spellbook.P2", "or a preset, got 'nope'"),
        ("P1: classic water: set 3 {1,2,3}; P2: gentle", "spellbook.P1", "a preset and spells"),
    ],
)
def test_s1_3_amb20_a_bad_player_book_is_refused_naming_the_seat(
    value: Any, field: str, says: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        GAME.new_match(Setup(GAME.parse_config({"spellbook": value}), 2, 1))
    assert caught.value.field == field and says in str(caught.value)
