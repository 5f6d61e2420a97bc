"""``/rules``: a rules page cut into parts, sections and pages that fit a Discord message. With
no section it pages through the player's part only (before ``# For moderators``); a section of
any part is reachable by its name or number, and the contents list names the parts. A page
without the marker is all the player's part, as before. The toy game's page
(``tests/bot/toy_game.md``) has the marker."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogs.help import OVERVIEW, PAGE_CHARS, Section, pages, parse_rules, rules_sections, rules_text
from games import registry

MESSAGE_LIMIT = 2000
TOY = "tests.bot.toy_game"


@pytest.fixture
def toy() -> Iterator[str]:
    registry.add(TOY)
    yield TOY
    registry.discover()


@pytest.mark.parametrize("game", registry.names())
def test_every_game_has_its_rules_and_every_page_fits_a_message(game: str) -> None:
    sections = rules_sections(game)
    assert sections and sections[0].title == OVERVIEW
    for number, section in enumerate(sections, start=1):
        assert section.text, section.title
        for page in range(1, len(pages(section.text)) + 1):
            for named in (section.title, str(number)):
                text = rules_text(game, named, page)
                assert len(text) <= MESSAGE_LIMIT and section.title in text.splitlines()[0]
    reading = [rules_text(game, None, page) for page in range(1, 60)]
    assert all(len(text) <= MESSAGE_LIMIT for text in reading)
    shown = {re.sub(r" \(page \d+ of \d+\)$", "", text.splitlines()[0]) for text in reading}
    players = [s.title for s in sections if not s.part]
    assert shown == {f"📖 **{registry.get(game).title}: {title}**" for title in players}


@given(st.text(st.sampled_from("ab \n") | st.characters(), max_size=6000))
def test_pages_keep_every_word_in_order_and_fit(text: str) -> None:
    cut = pages(text, limit=300)
    assert all(len(page) <= 300 for page in cut)
    assert re.sub(r"\s", "", "".join(cut)) == re.sub(r"\s", "", text)


def test_the_player_s_part_pages_straight_through_and_stops_at_the_moderators(toy: str) -> None:
    first = rules_text(toy, None, 1)
    assert first.startswith("📖 **Toy Guess: Overview** (page 1 of 3)\nA tiny game for the tests")
    assert f"Next: `/rules game:{toy} page:2`" in first
    assert rules_text(toy, None, 2).startswith("📖 **Toy Guess: The goal** (page 2 of 3)")
    last = rules_text(toy, None, 3)
    assert last.startswith("📖 **Toy Guess: A round** (page 3 of 3)") and "Next:" not in last
    assert last.endswith(f"More (For moderators, Reference): `/rules game:{toy} section:4`")
    assert rules_text(toy, None, 99) == last  # past the end: the last page
    reading = "\n".join(rules_text(toy, None, page) for page in (1, 2, 3))
    assert "Set a match up" not in reading and "A script lists" not in reading


def test_the_contents_list_names_the_parts(toy: str) -> None:
    assert rules_text(toy, None, 1).endswith(
        "Sections: 1 Overview · 2 The goal · 3 A round — For moderators: 4 For moderators"
        " · 5 Options — Reference: 6 Script format"
    )
    assert "Sections: 1 Overview" not in rules_text(toy, None, 2)


@pytest.mark.parametrize(
    ("wanted", "head"),
    [
        ("options", "📖 **Toy Guess: Options** (For moderators)"),
        ("5", "📖 **Toy Guess: Options** (For moderators)"),
        ("Script", "📖 **Toy Guess: Script format** (Reference)"),
        ("4", "📖 **Toy Guess: For moderators**"),
        ("2", "📖 **Toy Guess: The goal**"),
    ],
)
def test_a_section_of_any_part_is_reached_by_its_name_or_number(
    toy: str, wanted: str, head: str
) -> None:
    assert rules_text(toy, wanted, 1).splitlines()[0] == head


def test_headings_in_a_code_block_are_text(toy: str) -> None:
    (round_,) = [s for s in rules_sections(toy) if s.title == "A round"]
    assert round_.text.endswith("```\n# not a heading: a comment in an example\n## nor this\n```")


def test_a_page_without_the_marker_is_all_the_player_s_part() -> None:
    text = "# Game, as the bot plays it\nIntro.\n## Goal\nWin.\n## Reference\nIds.\n"
    assert parse_rules(text) == (
        Section(OVERVIEW, "Intro."),
        Section("Goal", "Win."),
        Section("Reference", "Ids."),
    )


def test_a_long_section_pages_with_a_hint_to_the_next_page(
    toy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    long = "\n\n".join(f"Paragraph {n}: " + "word " * 60 for n in range(40))
    page = f"# Toy\nIntro.\n## Long\n{long}\n# For moderators\n## Options\nNone."
    monkeypatch.setattr("cogs.help.rules_sections", lambda game: parse_rules(page))
    first = rules_text(toy, "Long", 1)
    count = len(pages(long))
    assert count > 1 and f"(page 1 of {count})" in first and "page:2`" in first
    last = rules_text(toy, "long", 99)
    assert f"(page {count} of {count})" in last and "Next:" not in last
    reading = [rules_text(toy, None, n) for n in range(1, count + 3)]
    assert all(len(text) <= MESSAGE_LIMIT for text in reading)
    assert reading[-1].startswith(f"📖 **Toy Guess: Long** (page {count + 1} of {count + 1})")
    assert len(long) > PAGE_CHARS


def test_bad_games_and_sections_are_named_in_one_line(toy: str) -> None:
    assert rules_text("chess" * 50, None, 1).startswith("✖ There is no game 'chesschess")
    assert len(rules_text("chess" * 500, None, 1)) < 300
    missing = rules_text(toy, "³" * 100, 1)
    assert missing.startswith("✖ Toy Guess's rules have no section '³³³")
    assert "Sections: 1 Overview" in missing and "For moderators: 4" in missing
