"""Every numeric option of every game has a range (``GameInfo.ranges``: the rules page's, or a
house bound no real match needs), its game's page says it, and a value past it is refused in
one line naming the option (issue 18: ``ap_per_turn=1000000`` made prompts of a million
choices).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from games import registry
from games.protocol import ConfigError
from games.text import EXCERPT_CHARS

DOCS = Path(__file__).resolve().parents[2] / "docs"
GAMES = registry.names()
RANGES = [(name, key) for name in GAMES for key in registry.get(name).ranges]
# what an option's ends need beside them to be accepted (A8: Warlock's Brew refuses a setup in
# which no type can reach three copies, so its removals reach their most with 8 types of 6)
CONTEXT: dict[str, dict[str, Any]] = {
    "warlocks-brew": {"types": 8, "copies": 6},
}
SEED = 2**63 - 1


def parse(name: str, raw: dict[str, Any]) -> dict[str, Any]:
    game = registry.get(name).game
    config: dict[str, Any] = game.parse_config(raw, game.min_seats)
    return config


def ids(pairs: list[tuple[str, str]]) -> list[str]:
    return [f"{name}:{key}" for name, key in pairs]


def test_every_game_declares_the_range_of_its_options() -> None:
    for name in GAMES:
        assert registry.get(name).ranges, f"{name} declares no ranges"


@pytest.mark.parametrize(("name", "key"), RANGES, ids=ids(RANGES))
def test_both_ends_of_a_range_are_accepted(name: str, key: str) -> None:
    low, high = registry.get(name).ranges[key]
    for value in (low, high):
        config = parse(name, {**CONTEXT.get(name, {}), key: value})
        assert config[key] == value


@pytest.mark.parametrize(("name", "key"), RANGES, ids=ids(RANGES))
def test_a_value_past_either_end_is_refused_naming_the_option(name: str, key: str) -> None:
    low, high = registry.get(name).ranges[key]
    for value in (low - 1, high + 1, 10**400, -(10**6)):
        with pytest.raises(ConfigError) as caught:
            parse(name, {**CONTEXT.get(name, {}), key: value})
        error = caught.value
        assert error.field.rsplit(".", 1)[-1] == key, (value, str(error))
        assert "\n" not in str(error) and "9" * (EXCERPT_CHARS + 1) not in str(error)


def test_ap_per_turn_1000000_is_refused_naming_the_option() -> None:
    """Issue 18: it was accepted, and each action prompt offered 1,000,011 choices."""
    with pytest.raises(ConfigError) as caught:
        parse("red-phoenix", {"ap_per_turn": 1_000_000})
    assert str(caught.value) == "ap_per_turn: must be a whole number from 1 to 10, got 1000000"


def moderators_part(name: str) -> str:
    page = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    return page.split("\n# For moderators", 1)[1].split("\n# Reference", 1)[0]


def numbers(text: str) -> set[int]:
    """The whole numbers a line writes (``86,400``, ``1–8``); ``2^63`` and ``2⁶³`` stand for
    the largest seed."""
    found = {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\d|\d", text)}
    if re.search(r"2\^63|2⁶³", text):
        found.add(SEED)
    return found


@pytest.mark.parametrize(("name", "key"), RANGES, ids=ids(RANGES))
def test_every_range_is_on_its_games_page_for_moderators(name: str, key: str) -> None:
    low, high = registry.get(name).ranges[key]
    rows = [line for line in moderators_part(name).splitlines() if f"`{key}`" in line]
    assert rows, f"docs/{name}.md: no line of '# For moderators' names `{key}`"
    assert any({low, high} <= numbers(row) for row in rows), (key, low, high, rows)
