"""One check for every name and text of every set file, shared by the games (``games.text``):
Red Phoenix's card sets, Flaky Flasks' content sets, a Floral Extract preset's name and every
script's seat names (issue 18: a lone surrogate in a content set's names made every resolution
raise in the outbox, and the match stuck for good). A JSON file that gives a key twice is
refused naming the key.
"""

from __future__ import annotations

import copy
import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli import main
from cogs.options import json_file
from games import registry
from games.flaky_flasks.content import HOUSE_JSON, read_content
from games.protocol import ConfigError
from games.red_phoenix.cards import house_raw, read_card_set
from games.text import NAME_CHARS, checked_seat_name, checked_text, parse_json

CARD_SET: dict[str, Any] = json.loads(house_raw())
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# what must never pass: a lone surrogate (cannot be encoded: the stuck match), control
# characters and line breaks, zero-width and other invisible format characters, blank or long
BAD_TEXTS = [
    "Salt\ud800",
    "\udfff",
    "Salt\x00",
    "Salt\x07",
    "Salt\nLead",
    "Salt\u200b",
    "\u200dSalt",
    "Salt\u202e",
    "Salt\ufeff",
    "",
    "   ",
    "x" * (NAME_CHARS + 1),
]
GOOD_TEXTS = [
    "Rock Salt",
    "Dragon's Tear",
    "Ælixir Vitæ",
    "Sel de Guérande",
    "Fire 🔥",
    "Ash (grey)",
]


def card_set_with(path: tuple[Any, ...], text: str) -> dict[str, Any]:
    data = copy.deepcopy(CARD_SET)
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = text
    return data


def content_with(path: tuple[Any, ...], text: str) -> dict[str, Any]:
    data: dict[str, Any] = copy.deepcopy(HOUSE_JSON)
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = text
    return data


# every name field of each set: (path in the JSON, the field an error names)
CARD_SET_NAMES = [
    (("name",), "card_set.name"),
    (("ingredients", 3, "name"), "card_set.ingredients[3].name"),
    (("methods", 1, "name"), "card_set.methods[1].name"),
    (("results", "I", 20, "name"), "card_set.results.I[20].name"),
]
CONTENT_NAMES = [
    (("name",), "content_set.name"),
    (("cards", 11, "name"), "content_set.cards[11].name"),
    (("tiles", 5, "name"), "content_set.tiles[5].name"),
    (("panels", 2, "name"), "content_set.panels[2].name"),
]


def card_set_verdict(path: tuple[Any, ...], text: str) -> str | None:
    """None when the card set reads; else the field its refusal names."""
    try:
        read_card_set(card_set_with(path, text))
    except ConfigError as error:
        return error.field
    return None


def content_verdict(path: tuple[Any, ...], text: str) -> str | None:
    try:
        read_content(content_with(path, text))
    except ConfigError as error:
        return error.field
    return None


def test_the_house_sets_pass_the_check() -> None:
    read_card_set(CARD_SET)
    read_content(HOUSE_JSON)


@pytest.mark.parametrize("text", BAD_TEXTS, ids=ascii)
@pytest.mark.parametrize(("path", "field"), CARD_SET_NAMES, ids=lambda p: str(p))
def test_a_card_set_name_that_cannot_print_is_refused_naming_it(
    path: tuple[Any, ...], field: str, text: str
) -> None:
    assert card_set_verdict(path, text) == field


@pytest.mark.parametrize("text", BAD_TEXTS, ids=ascii)
@pytest.mark.parametrize(("path", "field"), CONTENT_NAMES, ids=lambda p: str(p))
def test_a_content_set_name_that_cannot_print_is_refused_naming_it(
    path: tuple[Any, ...], field: str, text: str
) -> None:
    assert content_verdict(path, text) == field


@pytest.mark.parametrize("text", GOOD_TEXTS)
def test_names_that_print_are_read(text: str) -> None:
    assert card_set_verdict(("ingredients", 3, "name"), text) is None
    assert content_verdict(("tiles", 5, "name"), text) is None


def test_a_lone_surrogate_in_a_content_set_is_refused_before_a_match_starts() -> None:
    """The issue's case: every Tier 3 name a lone surrogate."""
    data: dict[str, Any] = copy.deepcopy(HOUSE_JSON)
    for card in data["cards"]:
        if card["tier"] == 3:
            card["name"] += "\ud800"
    with pytest.raises(ConfigError) as caught:
        registry.get("flaky-flasks").game.parse_config({"content_set": data}, 3)
    assert str(caught.value).startswith(
        "content_set.cards[26].name: holds U+D800 (a lone surrogate)"
    )


@FUZZ
@given(text=st.text(st.characters(exclude_categories=()), max_size=70))
def test_both_games_read_any_name_alike_and_only_names_that_print(text: str) -> None:
    """One check for both: the same name is accepted by both sets or refused by both, naming
    the field, and an accepted one prints and encodes."""
    name = f"Zq{text}"  # a letter first: no other rule of either set refuses it
    in_cards = card_set_verdict(("ingredients", 3, "name"), name)
    in_content = content_verdict(("tiles", 5, "name"), name)
    assert (in_cards is None) == (in_content is None), (in_cards, in_content)
    assert in_cards in (None, "card_set.ingredients[3].name")
    assert in_content in (None, "content_set.tiles[5].name")
    if in_cards is None:
        assert name.isprintable() and len(name) <= NAME_CHARS and name.encode("utf-8")


@FUZZ
@given(text=st.text(st.characters(exclude_categories=()), max_size=200))
def test_checked_text_returns_printable_text_or_refuses_in_one_short_line(text: str) -> None:
    try:
        assert checked_text(text, "where") == text
    except ConfigError as error:
        assert error.field == "where" and "\n" not in str(error) and len(str(error)) < 200
        str(error).encode("utf-8")  # the refusal itself can be sent
    else:
        assert text.strip() and text.isprintable() and len(text) <= NAME_CHARS


@FUZZ
@given(text=st.text(st.characters(exclude_categories=()), max_size=120))
def test_a_scripts_seat_name_has_no_control_character_nor_lone_surrogate(text: str) -> None:
    try:
        checked_seat_name(text, "players[0]")
    except ConfigError as error:
        assert error.field == "players[0]"
        str(error).encode("utf-8")
    else:
        bad = {"Cc", "Cs"}
        assert text.strip() and not any(unicodedata.category(c) in bad for c in text)


def test_a_display_name_with_joined_emoji_is_a_seat_name() -> None:
    assert checked_seat_name("Ann 👩‍👩‍👧", "players[0]") == "Ann 👩‍👩‍👧"


def example_script(game: str) -> Any:
    from tests.games.test_bad_input import SCRIPTS

    return SCRIPTS[game][0]


# the games whose scripts name their players (Floral Extract's seats are P1 and P2)
SEATED = [
    game for game in registry.names() if isinstance(example_script(game).get("players"), list)
]


@pytest.mark.parametrize("game", SEATED)
def test_every_script_refuses_a_seat_name_it_could_not_print(game: str) -> None:
    script = copy.deepcopy(example_script(game))
    name = script["players"][0]
    text = json.dumps(script).replace(json.dumps(name), json.dumps("Zed\ud800"))
    with pytest.raises(ConfigError) as caught:
        registry.get(game).run_script(json.loads(text))
    assert caught.value.field in ("players", "players[0]"), str(caught.value)


# --- duplicate keys -------------------------------------------------------------------------


def test_a_set_file_that_gives_a_key_twice_is_refused_naming_the_key() -> None:
    data = b'{"name": "Mine", "ingredients": [{"id": "salt", "name": "Salt", "name": "Sel"}]}'
    with pytest.raises(ConfigError) as caught:
        json_file(data, "card_set")
    assert str(caught.value) == "card_set: the key 'name' is given twice in one object"
    with pytest.raises(ConfigError) as caught:
        parse_json('{"a": 1, "a": 1}', "content_set")
    assert caught.value.field == "content_set" and "'a'" in caught.value.message


def test_a_script_file_that_gives_a_key_twice_is_one_line_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "script.json"
    path.write_text('{"format": "x", "players": ["A", "B"], "players": ["C", "D"]}')
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"{path}: the key 'players' is given twice in one object\n"
