"""docs/floral-extract.md, checked against the bot: its worked turn is a real run's texts, and
every example a player or a moderator could type is submitted or parsed as the page says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from games.floral_extract import GAME
from games.floral_extract.books import parse_condition_text, parse_text
from games.floral_extract.config import parse_config, parse_rules_text
from games.floral_extract.spellbook import SPELLS
from games.protocol import Accepted, ConfigError, Setup

from .helpers import MAPS

PAGE = (Path(__file__).parents[3] / "docs" / "floral-extract.md").read_text(encoding="utf-8")
WORKED = json.loads((Path(__file__).parent / "worked_turn.json").read_text(encoding="utf-8"))


def part(title: str) -> str:
    """A ``##`` section of the page, up to the next heading of any level."""
    start = PAGE.index(f"\n## {title}\n")
    end = re.compile(r"^#{1,2} ", re.MULTILINE).search(PAGE, start + 1 + len(title) + 4)
    return PAGE[start : end.start() if end else len(PAGE)]


TEXT_FORM = part("Spells")


def fenced(text: str, language: str = "") -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)\n```$", text, re.MULTILINE | re.DOTALL)


def table(text: str) -> list[list[str]]:
    """The body rows of the first Markdown table in ``text``, cells stripped."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows[2:]]


def code(cell: str) -> str:
    return re.findall(r"`([^`]+)`", cell)[0].replace("\\|", "|")


def worked_state() -> Any:
    """The worked turn's match, before its last turn."""
    config = {**WORKED["config"], "maps": MAPS}
    state, _ = GAME.new_match(Setup(config, 2, WORKED["seed"]))
    for moves in WORKED["moves"][:-1]:
        state, _ = GAME.resolve(state, {int(seat): move for seat, move in moves.items()})
    return state


def test_the_page_has_a_players_part_then_moderators_then_reference() -> None:
    players = PAGE[: PAGE.index("\n# For moderators\n")]
    assert PAGE.index("\n# For moderators\n") < PAGE.index("\n# Reference\n")
    assert len(re.findall(r"\S+", players)) <= 1500
    for title in ("The game in one paragraph", "A turn", "A worked turn", "The spells", "Winning"):
        assert f"\n## {title}\n" in players


def test_the_worked_turn_is_what_the_bot_showed() -> None:
    state = worked_state()
    prompt, report, post = fenced(part("A worked turn"))
    assert GAME.requests(state)[0].prompt == prompt
    moves = {int(seat): move for seat, move in WORKED["moves"][-1].items()}
    assert "sends `V`" in part("A worked turn") and moves[0] == "V"
    _, events = GAME.resolve(state, moves)
    assert next(e.text for e in events if e.kind == "turn_private" and e.audience.seat == 0) == (
        report
    )
    assert next(e.text for e in events if e.kind == "turn") == post


def test_what_you_can_send_is_accepted_as_the_table_says() -> None:
    state = worked_state()  # P1 holds a charge; its last rune was E (7)
    expected = {"D": "Cast D (1)", "1": "Cast D (1)", "V": "Declare V"}
    rows = table(part("A turn").split("**Casting.**")[1])
    typed = [re.findall(r"`([^`]+)`", row[0])[-1] for row in rows]  # the example: "e.g. `1`"
    assert typed == list(expected)
    for text in typed:
        verdict = GAME.submit(state, 0, text)
        assert isinstance(verdict, Accepted) and verdict.summary == expected[text]


def test_every_book_example_parses() -> None:
    mistyped = {code(row[0]) for row in table(TEXT_FORM[TEXT_FORM.index("| you type") :])}
    books = fenced(PAGE, "spellbook")
    books += [code(c) for c in re.findall(r"`water:[^`]*`", PAGE) if code(c) not in mistyped]
    assert len(books) >= 8
    for text in books:
        parse_text(text)


def test_every_condition_in_the_players_part_parses() -> None:
    conditions = re.findall(r"`((?:set|sum|chain) [^`]+)`", PAGE[: PAGE.index("# Reference")])
    assert len(conditions) >= 3
    for text in conditions:
        parse_condition_text(text)


@pytest.mark.parametrize("row", table(TEXT_FORM[TEXT_FORM.index("| you type") :]))
def test_a_mistyped_book_is_refused_as_the_page_says(row: list[str]) -> None:
    typed, said = code(row[0]), code(row[1])
    with pytest.raises(ConfigError) as refused:
        parse_text(typed)
    assert str(refused.value) == said


def test_the_rules_example_sets_the_options() -> None:
    (typed,) = fenced(part("Options"))
    rules = parse_rules_text(typed)
    assert rules == {
        "azalea_shrink_mode": "reset",
        "max_turns": 60,
        "declaration_without_charge": "dud",
    }
    parse_config(rules)


def test_every_option_of_the_table_exists() -> None:
    names = [code(row[0]) for row in table(part("Options"))]
    config = parse_config({})
    assert set(names) <= set(config) | {"spellbook"}
    assert {"max_turns", "initial_weather", "advantage"} <= set(names)
    assert set(SPELLS) == set(parse_text(fenced(PAGE, "spellbook")[0]).to_json())
