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
from .spellbook import (
    SPELLS,
    Condition,
    SetCondition,
    SumCondition,
    holding_codes,
    parse_spellbook,
)

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
    """For every window code, the spells (WATER | FERTILIZE | WEATHER) and sabotage it sets off.
    A bad book is refused naming ``field``; the table is made once per book, whatever the
    field (the engine's per-seat books and a computer player's are the same book)."""
    parse_spellbook(book, field)
    return _table(json.dumps(book, sort_keys=True))


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
# For an n-rune condition, the older runes a window may hold above its last n, as the bits of
# one number: the windows where it holds are that number times its holding codes' bits (every
# sum of an older part and a holding code is a different window, so nothing carries).
OLDER_BITS = {n: sum(1 << above for above in older) for n, older in OLDER_RUNES.items()}
NOT_RUNES = 255  # the total of a code with a 0 digit (no rune)


def _per_code(n: int, add: list[bytes]) -> bytes:
    """A byte per code of n digits, read digit by digit: from 0, ``add[d]`` maps the byte so
    far to the byte with digit ``d`` read too (one translation per block of codes)."""
    if n == 0:
        return bytes(1)
    rest = _per_code(n - 1, add)
    return b"".join(rest.translate(add[d]) for d in range(8))  # the oldest digit d


# per code of n runes: their total (NOT_RUNES with a 0 digit), and which digits it holds (bits)
_PLUS = [bytes(min(t + d, NOT_RUNES) if d and t != NOT_RUNES else NOT_RUNES for t in range(256))
         for d in range(8)]  # fmt: skip
RUNE_TOTALS = {n: _per_code(n, _PLUS) for n in range(1, WINDOW_KEEP + 1)}
DIGITS = {n: _per_code(n, [bytes(m | 1 << d for m in range(256)) for d in range(8)])
          for n in range(1, WINDOW_KEEP + 1)}  # fmt: skip
BIT_AS_BYTE = str.maketrans("01", "\x00\x01")
BYTE_AS_DIGIT = bytes.maketrans(b"\x00\x01", b"01")


def _sabotage_table() -> bytes:
    out = bytearray(WINDOW_MODULUS)
    for length in range(2, WINDOW_KEEP + 1):
        for code in REACHABLE[length]:
            out[code] = SABOTAGE_POT.get(code % 8 + code // 8 % 8, 0) << SABOTAGE_SHIFT
    return bytes(out)


SABOTAGE_TABLE = _sabotage_table()


@lru_cache(maxsize=256)
def _table(book_key: str) -> bytes:
    """A checked book's table, made with whole-number arithmetic: each spell's windows as the
    bits of one number, then one byte per window (a loop over every window of a book of
    twelve wide conditions a spell took 60 ms)."""
    book = parse_spellbook(json.loads(book_key))
    out = int.from_bytes(SABOTAGE_TABLE, "little")
    for bit, spell in zip((WATER, FERTILIZE, WEATHER), SPELLS, strict=True):
        windows = 0
        for condition in book.conditions(spell):
            windows |= OLDER_BITS[condition.n] * _holding_bits(condition)
        out += bit * _bytes_of_bits(windows)
    return out.to_bytes(WINDOW_MODULUS, "little")


@lru_cache(maxsize=512)
def _holding_bits(condition: Condition) -> int:
    """The codes of the condition's n runes (1..7) where it holds, as the bits of a number (a
    sum's and a set's from tables of every code: a wide one holds on most of 16,807 codes)."""
    if isinstance(condition, SumCondition):
        inside = bytes(int(condition.lo <= total <= condition.hi) for total in range(256))
        marks = bytearray(RUNE_TOTALS[condition.n].translate(inside))
    elif isinstance(condition, SetCondition):
        allowed = sum(1 << member for member in condition.members if member in RUNES)
        inside = bytes(int(held & ~allowed == 0) for held in range(256))
        marks = bytearray(DIGITS[condition.n].translate(inside))
    else:
        marks = bytearray(8**condition.n)
        for code in holding_codes(condition, RUNES):
            marks[code] = 1
    return int(marks[::-1].translate(BYTE_AS_DIGIT), 2)


def _bytes_of_bits(bits: int) -> int:
    """A number with a bit per window as a number with a byte per window (little-endian)."""
    digits = format(bits, f"0{WINDOW_MODULUS}b")[::-1].translate(BIT_AS_BYTE)
    return int.from_bytes(digits.encode("latin-1"), "little")
