"""``/rules``: every game's rules page cut into sections and pages that fit a Discord message."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cogs.help import OVERVIEW, PAGE_CHARS, pages, rules_sections, rules_text
from games import registry

MESSAGE_LIMIT = 2000


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


@given(st.text(st.sampled_from("ab \n") | st.characters(), max_size=6000))
def test_pages_keep_every_word_in_order_and_fit(text: str) -> None:
    cut = pages(text, limit=300)
    assert all(len(page) <= 300 for page in cut)
    assert re.sub(r"\s", "", "".join(cut)) == re.sub(r"\s", "", text)


def test_a_long_section_pages_with_a_hint_to_the_next_page() -> None:
    section = next(s for s in rules_sections("floral-extract") if len(s.text) > PAGE_CHARS)
    first = rules_text("floral-extract", section.title, 1)
    assert "(page 1 of" in first and "page:2`" in first
    last = rules_text("floral-extract", section.title, 99)  # past the end: the last page
    count = len(pages(section.text))
    assert f"(page {count} of {count})" in last and "Next:" not in last


def test_the_overview_lists_the_sections() -> None:
    text = rules_text("warlocks-brew", None, 1)
    assert text.startswith("📖 **Warlock's Brew: Overview**")
    assert "Sections: 1 Overview · 2 The game in one paragraph" in text


def test_bad_games_and_sections_are_named_in_one_line() -> None:
    assert rules_text("chess" * 50, None, 1).startswith("✖ There is no game 'chesschess")
    assert len(rules_text("chess" * 500, None, 1)) < 300
    missing = rules_text("floral-extract", "³" * 100, 1)
    assert missing.startswith("✖ Floral Extract's rules have no section '³³³")
    assert "Sections:" in missing
    assert "Spells" in rules_text("floral-extract", "spe", 1).splitlines()[0]  # a title's start
