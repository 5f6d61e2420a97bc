"""What an own non-stall rune sets off, precomputed for every basic-spell window.

The window is the last (up to 5) non-stall own runes since the last declaration, as a base-8
number with the newest rune in the lowest digit. Runes in it are 1..7 (stalls never enter), so a
0 digit means "no rune": the number of usable runes is the count of non-zero low digits, and the
code alone decides every basic spell and the sabotage (newest rune plus the one before).
"""

from __future__ import annotations

import json
from functools import lru_cache

from games.protocol import JSON

from .rules import SABOTAGE_POT
from .spellbook import SPELLS, holding_codes, parse_spellbook

WINDOW_KEEP = 5
WINDOW_MODULUS = 8**WINDOW_KEEP

WATER, FERTILIZE, WEATHER = 1, 2, 4
SABOTAGE_SHIFT = 3  # bits 3-4 hold the sabotaged opponent pot, 0 for none


def window_runes(code: int) -> list[int]:
    """The window's runes, oldest first."""
    runes = []
    while code % 8:
        runes.append(code % 8)
        code //= 8
    return runes[::-1]


def window_code(runes: list[int]) -> int:
    code = 0
    for rune in runes[-WINDOW_KEEP:]:
        code = code * 8 + rune
    return code


def effects_table(book: JSON, field: str = "spellbook") -> bytes:
    """For every window code, the spells (WATER | FERTILIZE | WEATHER) and sabotage it sets off."""
    return _table(json.dumps(book, sort_keys=True), field)


def _reachable() -> list[list[int]]:
    """Window codes by usable length: only these occur, as stalls (0) never enter a window."""
    by_length = [[0]]
    for _ in range(WINDOW_KEEP):
        by_length.append([code * 8 + r for code in by_length[-1] for r in range(1, 8)])
    return by_length


REACHABLE = _reachable()
# For an n-rune condition, the older runes a window may hold above its last n, shifted into place:
# a window holds the condition iff it is one of these plus a holding code of n runes 1..7.
OLDER_RUNES = {
    n: [code * 8**n for length in range(WINDOW_KEEP - n + 1) for code in REACHABLE[length]]
    for n in range(1, WINDOW_KEEP + 1)
}
RUNES = range(1, 8)


def _sabotage_table() -> bytes:
    out = bytearray(WINDOW_MODULUS)
    for length in range(2, WINDOW_KEEP + 1):
        for code in REACHABLE[length]:
            out[code] = SABOTAGE_POT.get(code % 8 + code // 8 % 8, 0) << SABOTAGE_SHIFT
    return bytes(out)


SABOTAGE_TABLE = _sabotage_table()


@lru_cache(maxsize=256)
def _table(book_key: str, field: str) -> bytes:
    book = parse_spellbook(json.loads(book_key), field)
    out = bytearray(SABOTAGE_TABLE)
    for bit, spell in zip((WATER, FERTILIZE, WEATHER), SPELLS, strict=True):
        for condition in book.conditions(spell):
            older = OLDER_RUNES[condition.n]
            for code in holding_codes(condition, RUNES):
                for above in older:
                    out[above + code] |= bit
    return bytes(out)
