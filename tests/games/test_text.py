"""One reading of digits in every game (ASCII 0-9), and errors that quote only a short excerpt."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import registry
from games.floral_extract import books
from games.floral_extract.config import parse_rules_text
from games.floral_extract.state import State
from games.protocol import Accepted, ConfigError, Refused, Setup
from games.text import EXCERPT_CHARS, excerpt, field_name, read_number

OTHER_DIGITS = ["³", "²", "①", "₅", "❸", "፫", "٣", "３", "𝟑", "߃"]


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("text", OTHER_DIGITS)
def test_only_ascii_digits_are_numbers(text: str) -> None:
    assert read_number(text) is None
    assert read_number("3") == 3


def test_a_number_has_at_most_nine_digits() -> None:
    assert read_number("123456789") == 123456789
    assert read_number("1" * 10) is None
    assert read_number("9" * 5000) is None
    assert read_number("") is None and read_number("-1") is None and read_number(" 1") is None


@pytest.mark.parametrize(
    "value",
    ["x" * 1_000_000, nested(100_000), 10**5000, list(range(100_000)), "a\n" * 1000, "\ud800" * 99],
    ids=["megabyte", "deep", "huge-int", "long-list", "lines", "surrogates"],
)
def test_an_excerpt_is_short_and_never_fails(value: Any) -> None:
    text = excerpt(value)
    assert len(text) <= EXCERPT_CHARS and text.endswith(("…", "digits>")) and "\n" not in text


def test_short_values_are_quoted_whole() -> None:
    assert excerpt("foggy") == "'foggy'"
    assert excerpt([1, None, True]) == "[1, None, True]"
    assert field_name("colour") == "colour"
    assert field_name("x" * 100).endswith("…") and field_name("a\nb") == "'a\\nb'"


def cast_state() -> State:
    """A Floral Extract match at its first cast (nobody planted)."""
    game = registry.get("floral-extract").game
    state, _ = game.new_match(Setup({"spellbook": "classic"}, 2, 5))
    state, _ = game.resolve(state, {0: None, 1: None})
    assert isinstance(state, State) and state.phase == "cast"
    return state


@pytest.mark.parametrize("text", OTHER_DIGITS)
def test_floral_extract_refuses_other_digits_asking_for_0_to_9(text: str) -> None:
    game = registry.get("floral-extract").game
    state = cast_state()
    verdict = game.submit(state, 0, text)
    assert isinstance(verdict, Refused) and "0-9" in verdict.reason
    assert isinstance(game.submit(state, 0, "3"), Accepted)
    plant, _ = game.new_match(Setup({"spellbook": "classic"}, 2, 5))
    refused = game.submit(plant, 0, text)
    assert isinstance(refused, Refused) and "0-9" in refused.reason


def test_floral_extract_reads_no_other_letters_as_runes() -> None:
    """``ı`` and ``ſ`` upper-case to I and S; they are not the runes I and S."""
    game = registry.get("floral-extract").game
    state = cast_state()
    for text in ("ı", "ſ"):
        assert isinstance(game.submit(state, 1, text), Refused)


@pytest.mark.parametrize("text", OTHER_DIGITS)
def test_warlocks_brew_refuses_other_digits_asking_for_0_to_9(text: str) -> None:
    game = registry.get("warlocks-brew").game
    state, _ = game.new_match(Setup({}, 3, 5))
    verdict = game.submit(state, 0, text)
    assert isinstance(verdict, Refused) and "0-9" in verdict.reason
    assert isinstance(game.submit(state, 0, "3"), Accepted)


@pytest.mark.parametrize("text", [*OTHER_DIGITS, "9" * 5000, "1" * 10])
def test_rules_options_refuse_other_digits_and_long_numbers(text: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_rules_text(f"max_turns={text}")
    assert caught.value.field == "rules.max_turns" and "0-9" in caught.value.message
    assert len(str(caught.value)) < 150
    assert parse_rules_text("max_turns=60") == {"max_turns": 60}


@pytest.mark.parametrize(
    "text",
    [
        "water: set ³ {1,2,3}",
        "water: sum 3 1²-3",
        "water: set 3 {1,٣,3}",
        "water: sum 3 1-" + "9" * 5000,
    ],
)
def test_spellbook_text_refuses_other_digits(text: str) -> None:
    with pytest.raises(ConfigError) as caught:
        books.parse_text(text)
    assert caught.value.field == "spellbook.water" and len(str(caught.value)) < 150


HUGE = "x" * 1_000_000


@pytest.mark.parametrize(
    ("parse", "field"),
    [
        (lambda: books.resolve_text(HUGE, random.Random(1)), "spellbook"),
        (lambda: books.parse_text("water: " + HUGE), "spellbook.water"),
        (lambda: books.parse_text("water: chain 3 " + "<=" * 100_000 + "x"), "spellbook.water"),
        (lambda: parse_rules_text(HUGE), "rules"),
        (
            lambda: registry.get("floral-extract").game.parse_config(
                parse_rules_text(f"initial_weather={HUGE}"), 2
            ),
            "config.initial_weather",
        ),
        (lambda: registry.get("floral-extract").game.parse_config({HUGE: 1}, 2), "config"),
        (lambda: registry.get("warlocks-brew").game.parse_config({HUGE: 1}, 3), ""),
        (
            lambda: registry.get("warlocks-brew").game.parse_config({"small_selection": [HUGE]}, 3),
            "small_selection",
        ),
    ],
    ids=["preset", "book", "chain", "rules", "rule-value", "floral-key", "brew-key", "brew-types"],
)
def test_errors_about_a_megabyte_of_input_quote_a_short_excerpt(parse: Any, field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse()
    message = str(caught.value)
    assert caught.value.field.startswith(field) and len(message) < 400
    assert "x" * EXCERPT_CHARS not in message
