"""The effects table agrees with the spells' own conditions on every reachable window."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.floral_extract import books
from games.floral_extract.effects import (
    FERTILIZE,
    REACHABLE,
    SABOTAGE_SHIFT,
    WATER,
    WEATHER,
    effects_table,
    window_code,
    window_runes,
)
from games.floral_extract.rules import SABOTAGE_POT
from games.floral_extract.spellbook import SPELLS, compile_spell, parse_spellbook

from .helpers import CLASSIC


def expected(book_json: object, runes: list[int]) -> int:
    book = parse_spellbook(book_json)
    code = window_code(runes)
    mask = 0
    for bit, spell in zip((WATER, FERTILIZE, WEATHER), SPELLS, strict=True):
        if compile_spell(book.conditions(spell)).fires(code, len(runes)):
            mask |= bit
    if len(runes) >= 2:
        mask |= SABOTAGE_POT.get(runes[-1] + runes[-2], 0) << SABOTAGE_SHIFT
    return mask


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32))
def test_random_books_agree_everywhere(seed: int) -> None:
    book = books.random_spellbook(random.Random(seed)).to_json()
    table = effects_table(book)
    for length, codes in enumerate(REACHABLE):
        for code in codes[:: max(1, len(codes) // 400)]:
            assert table[code] == expected(book, window_runes(code)), (book, code, length)


def test_the_classic_book_on_every_window() -> None:
    table = effects_table(CLASSIC)
    for codes in REACHABLE:
        for code in codes:
            assert table[code] == expected(CLASSIC, window_runes(code))


def test_window_codes_round_trip() -> None:
    assert window_runes(window_code([3, 1, 7])) == [3, 1, 7]
    assert window_code([1, 2, 3, 4, 5, 6]) == window_code([2, 3, 4, 5, 6])  # the last five
    assert window_runes(0) == []
