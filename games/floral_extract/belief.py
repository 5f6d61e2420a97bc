"""What the opponent's secret rune map can be: a weight on each of the 8! = 40,320 maps.

Rules §12 tell a seat, of the opponent's map, only what the public results show: the symbol the
opponent casts each turn and every declaration's result. Two kinds of evidence follow.

* **Hard** (the rules allow nothing else): a declaration result fixes or rules out a pair
  (§6.5, both the seat's own declarations and the opponent's, whose previous rune is tested
  against one of this seat's identities), and no stall twice in a row (§4.2 V1) means that a
  symbol cast twice in a row is not the opponent's 0. Each of these is a fact about one symbol,
  so the maps still allowed are exactly the bijections inside per-symbol masks, counted exactly
  by ``pair_counts``: a declaration is only ever made on a pair some allowed map has.
* **Soft** (how a player plays, not what the rules allow): a player casts to complete their
  spells, and the spellbook is public. Under each map the opponent's casts complete a spell
  more or less often than chance; ``SpellSeeker`` weighs every map by how likely its casts
  were under a simple model of such a player (a spell-completing rune is ``SEEK`` times as
  likely as another, mixed with ``CARELESS`` of uniform play), normalised over the runes they
  could have cast instead. A map that explains the casts as purposeful gains weight.

Which cast is a stall depends on the map (the stall is the opponent's identity 0), so the maps
are stored by the symbol that is 0: each group of 7! maps shares one filtered history, and
each group's spell windows are computed for all its maps at once, as one big integer with a
16-bit lane per map (a base-8 window code fits in 15 bits).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from functools import cache
from operator import itemgetter
from typing import Any

from games.protocol import JSON

from .effects import FERTILIZE, SABOTAGE_SHIFT, WATER, WEATHER, WINDOW_MODULUS, effects_table

IDENTITIES = 8
GROUP = 5040  # 7!: the maps sharing the symbol whose identity is 0
MAPS = IDENTITIES * GROUP
FULL = (1 << IDENTITIES) - 1
LANE_BYTES = 2
SEEK = 3.0  # a rune completing a basic spell, against any other rune
SEEK_SABOTAGE = 1.5  # a rune completing the sabotage, against any other rune
CARELESS = 0.35  # the share of casts made with no regard for the spells
RESCALE = 1e-60  # weights are scaled back up to a top of 1 below this
NEGLIGIBLE = 1e-40  # a map this much less likely than the likeliest one then weighs nothing


# --- the maps, once per process ------------------------------------------------------------


# The maps are grouped by the position holding 0: in group ``zero``, the 7! permutations of
# identities 1-7 in order with 0 inserted at ``zero`` (``_maps``). The tables a decision reads
# are built from the 7! permutations' places (a Python loop over 40,320 maps apiece stalled a
# first decision for 90 ms).
SPAN = GROUP // (IDENTITIES - 1)  # 6!: the permutations with one place on one identity


@cache
def _maps() -> tuple[tuple[int, ...], ...]:
    """Every bijection symbol position -> identity, in the order of the weights."""
    return tuple(
        (*rest[:zero], 0, *rest[zero:])
        for zero in range(IDENTITIES)
        for rest in itertools.permutations(range(1, IDENTITIES))
    )


@cache
def _places() -> tuple[bytes, ...]:
    """Per place in a permutation of identities 1-7: its identity in each permutation."""
    permutations = itertools.permutations(range(1, IDENTITIES))
    return tuple(bytes(place) for place in zip(*permutations, strict=True))


def _column(zero: int, k: int) -> bytes:
    """The identity of symbol position ``k`` under each map of group ``zero``."""
    return bytes(GROUP) if k == zero else _places()[k - (k > zero)]


@cache
def _identities() -> tuple[bytes, ...]:
    """Per symbol position: its identity under every map, one byte per map."""
    return tuple(
        b"".join(_column(zero, k) for zero in range(IDENTITIES)) for k in range(IDENTITIES)
    )


@cache
def _by_place() -> tuple[itemgetter[Any], ...]:
    """Per place in a permutation: picks a group's weights in order of the place's identity
    (1 to 7, 6! each)."""
    return tuple(itemgetter(*sorted(range(GROUP), key=place.__getitem__)) for place in _places())


@cache
def _lanes() -> tuple[tuple[int, ...], ...]:
    """Per group (the position of 0) and symbol position: the identities of the group's maps
    as one integer with a 16-bit lane per map, so window codes add up lane by lane."""
    return tuple(
        tuple(_lane(_column(zero, k)) for k in range(IDENTITIES)) for zero in range(IDENTITIES)
    )


def _lane(identities: bytes) -> int:
    lanes = bytearray(len(identities) * LANE_BYTES)
    lanes[::LANE_BYTES] = identities
    return int.from_bytes(lanes, "little")


# --- hard evidence: per-symbol masks ----------------------------------------------------------


def _bits(mask: int) -> Iterable[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def pair_counts(rows: Sequence[int]) -> tuple[list[list[int]], int]:
    """For bitmasks of allowed identities per symbol: how many bijections put each symbol on
    each identity, and how many there are in all (a permanent, by a DP over used identities)."""
    n = len(rows)
    full = (1 << n) - 1
    pop = [bin(mask).count("1") for mask in range(full + 1)]
    forward = [0] * (full + 1)  # ways to place the first pop[mask] symbols onto mask
    forward[0] = 1
    for mask in range(full):
        if forward[mask]:
            for i in _bits(rows[pop[mask]] & ~mask):
                forward[mask | 1 << i] += forward[mask]
    backward = [0] * (full + 1)  # ways to place the remaining symbols onto ~mask
    backward[full] = 1
    for mask in range(full - 1, -1, -1):
        backward[mask] = sum(backward[mask | 1 << i] for i in _bits(rows[pop[mask]] & ~mask))
    counts = [[0] * n for _ in rows]
    for mask in range(full):
        if forward[mask]:
            k = pop[mask]
            for i in _bits(rows[k] & ~mask):
                counts[k][i] += forward[mask] * backward[mask | 1 << i]
    return counts, forward[full]


# --- soft evidence: a player who casts to complete spells --------------------------------------


class SpellSeeker:
    """Per window code (the last five non-stall runes, newest in the lowest base-8 digit), how
    likely a spell-seeking player was to cast its newest rune, given the four before it."""

    def __init__(self, book: JSON, seek: float = SEEK, careless: float = CARELESS) -> None:
        # every table is read off the effects table a byte at a time, in C where it can be (a
        # loop over 32,768 codes apiece stalled a hard player's match start for 35 ms)
        effects = effects_table(book)
        pull_of = [
            (seek if sets_off & (WATER | FERTILIZE | WEATHER) else 1.0)
            * (SEEK_SABOTAGE if sets_off >> SABOTAGE_SHIFT else 1.0)
            for sets_off in range(256)
        ]
        pull = list(map(pull_of.__getitem__, effects))
        # the pull of all seven non-stall runes after each 4-rune window; a stall pulls 1
        runes = [sum(pull[prev + 1 : prev + 8]) for prev in range(0, WINDOW_MODULUS, 8)]
        after = [total for total in runes for _ in range(IDENTITIES)]  # per code: its window's
        keep = 1 - careless
        self.rune = [
            careless / 8 + keep * p / (total + 1) for p, total in zip(pull, after, strict=True)
        ]
        self.rune_after_stall = [  # no second stall in a row (V1): seven choices
            careless / 7 + keep * p / total for p, total in zip(pull, after, strict=True)
        ]
        self.stall = [careless / 8 + keep / (total + 1) for total in runes]
        # what the opponent's own garden report can show of a cast: its WEATHER, its sabotage
        self.doing = effects.translate(
            bytes(
                bool(sets_off & WEATHER) * 4 + (sets_off >> SABOTAGE_SHIFT)
                for sets_off in range(256)
            )
        )


@cache
def _seeker(book_key: str, seek: float, careless: float) -> SpellSeeker:
    return SpellSeeker(json.loads(book_key), seek, careless)


def seeker_for(book: JSON, seek: float = SEEK, careless: float = CARELESS) -> SpellSeeker:
    """One table set per spellbook, shared by every belief over it."""
    return _seeker(json.dumps(book, sort_keys=True), seek, careless)


# --- the belief --------------------------------------------------------------------------------


class MapBelief:
    """The opponent's map: exact hard evidence (per-symbol masks) and a weight per map."""

    def __init__(self, symbols: str, seeker: SpellSeeker | None) -> None:
        self.symbols = symbols
        self.position = {symbol: k for k, symbol in enumerate(symbols)}
        self.allowed = [FULL] * IDENTITIES  # per symbol position: identities still possible
        self.seeker = seeker
        self.weights = [1.0] * MAPS if seeker is not None else []
        self.casts: list[str] = []  # their casts since their last declaration
        self._last: str | None = None  # their previous cast, across declarations (for V1)
        self._counts: list[list[int]] | None = None
        self._marginals: list[list[float]] | None = None

    # --- hard evidence ----------------------------------------------------------------------

    def possible(self, symbol: str, identity: int) -> bool:
        """Whether some map the rules still allow gives ``symbol`` this identity."""
        return self.counts()[self.position[symbol]][identity] > 0

    def exclude(self, symbol: str, identity: int) -> None:
        """Evidence that ``symbol`` is not ``identity``."""
        k = self.position[symbol]
        self._restrict(k, self.allowed[k] & ~(1 << identity))

    def fix(self, symbol: str, identity: int) -> None:
        """Evidence that ``symbol`` is ``identity`` (so no other symbol is)."""
        self._restrict(self.position[symbol], 1 << identity)

    def _restrict(self, k: int, mask: int) -> None:
        if mask == self.allowed[k]:
            return
        trial = list(self.allowed)
        trial[k] = mask
        if pair_counts(trial)[1] == 0:
            return  # contradicts earlier evidence: only a rules variant we do not model can
        self.allowed = trial
        self._counts = None
        self._marginals = None
        if self.weights:
            table = [1.0 if mask >> i & 1 else 0.0 for i in range(IDENTITIES)]
            self.weights = [
                w * table[i] for w, i in zip(self.weights, _identities()[k], strict=True)
            ]

    def counts(self) -> list[list[int]]:
        """How many allowed maps give each symbol each identity."""
        if self._counts is None:
            self._counts = pair_counts(self.allowed)[0]
        return self._counts

    # --- the opponent's casts ----------------------------------------------------------------

    def observe_cast(self, symbol: str, seen: Sequence[float] | None = None) -> None:
        """The opponent cast ``symbol`` (one of theirs, or one of ours: a declaration).
        ``seen``: how well each thing the cast may have done to our garden explains what our
        garden did that turn, indexed by WEATHER (4) plus the sabotaged pot (0-3)."""
        if symbol not in self.position:
            self.casts = []  # a declaration breaks every window
            self._last = None
            return
        if self._last == symbol:
            self.exclude(symbol, 0)  # no stall twice in a row (V1)
        self.casts.append(symbol)
        self._last = symbol
        if self.seeker is not None:
            self._weigh_cast(symbol, seen)

    def _weigh_cast(self, symbol: str, seen: Sequence[float] | None) -> None:
        """Multiply every map's weight by how likely this cast was under it."""
        assert self.seeker is not None
        seeker = self.seeker
        lanes = _lanes()
        history = self.casts[:-1]
        out: list[float] = []
        for zero in range(IDENTITIES):
            group = self.weights[zero * GROUP : (zero + 1) * GROUP]
            zero_symbol = self.symbols[zero]
            window = [s for s in history if s != zero_symbol][-4:]
            previous = self._code(lanes[zero], window)
            stalled = bool(history) and history[-1] == zero_symbol
            if symbol == zero_symbol:  # this cast is the stall under these maps: it does nothing
                factor = 0.0 if stalled else seen[0] if seen else 1.0
                out += [w * factor * seeker.stall[c] for w, c in zip(group, previous, strict=True)]
                continue
            table = seeker.rune_after_stall if stalled else seeker.rune
            codes = self._code(lanes[zero], [*window, symbol])
            if seen:
                doing = seeker.doing
                out += [w * table[c] * seen[doing[c]] for w, c in zip(group, codes, strict=True)]
            else:
                out += [w * table[c] for w, c in zip(group, codes, strict=True)]
        top = max(out)
        if 0 < top < RESCALE:  # back to a top weight of 1, long before anything underflows
            scale, cut = 1 / top, top * NEGLIGIBLE
            out = [w * scale if w > cut else 0.0 for w in out]
        self.weights = out
        self._marginals = None

    def _code(self, lanes: tuple[int, ...], window: Sequence[str]) -> memoryview:
        """Each map's window code for these symbols (oldest first), one 16-bit value per map."""
        code = 0
        for symbol in window:
            code = code * 8 + lanes[self.position[symbol]]
        return memoryview(code.to_bytes(GROUP * LANE_BYTES, "little")).cast("H")

    # --- what follows ------------------------------------------------------------------------

    def marginals(self) -> list[list[float]]:
        """P(symbol = identity) per symbol position: the weights where there are weights,
        else every allowed map equally likely."""
        if self._marginals is None:
            self._marginals = self._weighted() or self._uniform()
        return self._marginals

    def _weighted(self) -> list[list[float]] | None:
        if not self.weights:
            return None
        total = sum(self.weights)
        if not total > 0:
            return None
        rows = [[0.0] * IDENTITIES for _ in range(IDENTITIES)]
        for zero in range(IDENTITIES):
            group = self.weights[zero * GROUP : (zero + 1) * GROUP]
            rows[zero][0] = sum(group)
            for place, pick in enumerate(_by_place()):
                ordered = pick(group)
                row = rows[place + (place >= zero)]
                for identity in range(1, IDENTITIES):
                    row[identity] += sum(ordered[(identity - 1) * SPAN : identity * SPAN])
        # each row by its own total (every row adds up all the weights): a sure pair is 1
        return [[weight / sum(row) for weight in row] for row in rows]

    def _uniform(self) -> list[list[float]]:
        counts = self.counts()
        total = sum(counts[0]) or 1
        return [[c / total for c in row] for row in counts]

    def probability(self, symbol: str, identity: int) -> float:
        return self.marginals()[self.position[symbol]][identity]

    def best(
        self, skip: Iterable[str] = (), identity: int | None = None
    ) -> tuple[str, int, float] | None:
        """The likeliest allowed (symbol, identity) among symbols not in ``skip`` (optionally
        for one identity); ties go to the first symbol, so the choice is reproducible."""
        skipped = set(skip)
        counts = self.counts()
        rows = self.marginals()
        best: tuple[str, int, float] | None = None
        for k, symbol in enumerate(self.symbols):
            if symbol in skipped:
                continue
            for i in range(IDENTITIES) if identity is None else (identity,):
                if counts[k][i] and (best is None or rows[k][i] > best[2] + 1e-12):
                    best = (symbol, i, rows[k][i])
        return best
