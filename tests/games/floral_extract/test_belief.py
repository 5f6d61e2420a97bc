"""The belief over the opponent's rune map (games/floral_extract/belief.py), checked against
brute force over all 8! maps."""

from __future__ import annotations

import itertools
import random

import pytest

from games.floral_extract.belief import (
    GROUP,
    MAPS,
    MapBelief,
    SpellSeeker,
    _identities,
    _lanes,
    _maps,
    pair_counts,
)
from games.floral_extract.books import random_spellbook
from games.floral_extract.effects import WEATHER, effects_table

from .helpers import CLASSIC

THEIRS = "STUVWXYZ"
OURS = "ABCDEFGH"


def brute_counts(rows: list[int]) -> tuple[list[list[int]], int]:
    n = len(rows)
    counts = [[0] * n for _ in rows]
    total = 0
    for perm in itertools.permutations(range(n)):
        if all(rows[s] >> i & 1 for s, i in enumerate(perm)):
            total += 1
            for s, i in enumerate(perm):
                counts[s][i] += 1
    return counts, total


def test_pair_counts_match_brute_force() -> None:
    rng = random.Random(7)
    for _ in range(20):
        rows = [rng.randrange(1, 64) for _ in range(6)]
        assert pair_counts(rows) == brute_counts(rows)


def test_the_maps_are_every_bijection_grouped_by_the_stall() -> None:
    maps = _maps()
    assert len(maps) == len(set(maps)) == MAPS
    assert all(m.index(0) == index // 5040 for index, m in enumerate(maps))


def test_the_tables_built_from_the_permutations_give_each_maps_identities() -> None:
    maps, identities, lanes = _maps(), _identities(), _lanes()
    for k in range(8):
        assert list(identities[k]) == [m[k] for m in maps]
        for zero in range(8):
            group = maps[zero * GROUP : (zero + 1) * GROUP]
            assert lanes[zero][k] == sum(m[k] << (16 * i) for i, m in enumerate(group))


def test_fixing_a_pair_rules_it_out_elsewhere() -> None:
    belief = MapBelief(THEIRS, None)
    belief.fix("S", 3)
    assert not any(belief.possible(s, 3) for s in THEIRS[1:])
    assert belief.probability("S", 3) == 1
    assert belief.probability("T", 0) == pytest.approx(1 / 7)


def test_evidence_that_contradicts_the_rest_is_set_aside() -> None:
    """Sound evidence never empties the maps; if a rules variant we do not model did, the
    belief keeps what it had rather than allow nothing."""
    belief = MapBelief(THEIRS, None)
    for identity in range(7):
        belief.exclude("S", identity)
    belief.exclude("S", 7)
    assert belief.possible("S", 7) and belief.probability("S", 7) == 1


def test_exclusions_concentrate_the_guess() -> None:
    belief = MapBelief(THEIRS, None)
    for identity in range(1, 7):
        belief.exclude("T", identity)
    symbol, identity, p = belief.best()  # type: ignore[misc]
    assert symbol == "T" and identity in (0, 7) and p == pytest.approx(0.5)


def likelihood(seeker: SpellSeeker, sigma: tuple[int, ...], casts: list[str]) -> float:
    """The spell-seeking likelihood of the casts under one map, computed the slow way."""
    identity = dict(zip(THEIRS, sigma, strict=True))
    weight, window, last = 1.0, [], None
    for cast in casts:
        if cast not in identity:  # a declaration: every window breaks
            window, last = [], None
            continue
        rune = identity[cast]
        stalled = last is not None and identity[last] == 0
        if rune == 0:
            if stalled:
                return 0.0
            previous = 0
            for r in window[-4:]:
                previous = previous * 8 + r
            weight *= seeker.stall[previous]
        else:
            code = 0
            for r in [*window, rune][-5:]:
                code = code * 8 + r
            weight *= (seeker.rune_after_stall if stalled else seeker.rune)[code]
            window.append(rune)
        last = cast
    return weight


def test_soft_weights_match_the_likelihood_of_every_map() -> None:
    rng = random.Random(1)
    book = random_spellbook(rng).to_json()
    seeker = SpellSeeker(book)
    belief = MapBelief(THEIRS, seeker)
    casts = [rng.choice(THEIRS + "A" if i % 6 else THEIRS) for i in range(14)]
    casts[3] = casts[2]  # a repeat: that symbol is not their stall
    for cast in casts:
        belief.observe_cast(cast)
    brute = [likelihood(seeker, sigma, casts) for sigma in _maps()]
    total, weights = sum(brute), sum(belief.weights)
    assert (
        max(abs(a / total - b / weights) for a, b in zip(brute, belief.weights, strict=True))
        < 1e-12
    )
    assert all((a > 0) == (b > 0) for a, b in zip(brute, belief.weights, strict=True))
    assert not belief.possible(casts[2], 0)
    rows = belief.marginals()
    for k in (0, 5):
        for i in (0, 3):
            exact = sum(w for w, m in zip(brute, _maps(), strict=True) if m[k] == i) / total
            assert rows[k][i] == pytest.approx(exact)


def test_a_purposeful_opponent_gives_its_runes_away() -> None:
    """Casting S, T, U over and over: under a map reading them as 1, 2, 3 that waters every
    turn (classic book: set 3 {1,2,3}); under one reading 1, 5, 4 it does nothing at all. The
    first comes to weigh far more, and the likeliest maps complete a spell on every cast."""
    belief = MapBelief(THEIRS, SpellSeeker(CLASSIC))
    for cast in "STU" * 5:
        belief.observe_cast(cast)
    weight = {m[:3]: w for m, w in zip(_maps(), belief.weights, strict=True) if m[3:6] == (0, 6, 7)}
    assert weight[1, 2, 3] > 20 * weight[1, 5, 4]
    effects = effects_table(CLASSIC)
    top = _maps()[max(range(MAPS), key=belief.weights.__getitem__)]
    s, t, u = top[:3]
    assert all(effects[(a * 8 + b) * 8 + c] for a, b, c in ((s, t, u), (t, u, s), (u, s, t)))


def test_what_our_garden_showed_weighs_their_weather_spell() -> None:
    """Our garden showed that they cast WEATHER (index 4 of the evidence): only the maps under
    which their window completed it keep their weight."""
    belief = MapBelief(THEIRS, SpellSeeker(CLASSIC, careless=1.0))  # casts alone say nothing
    seen = [0.0] * 8
    seen[4] = 1.0  # WEATHER, no sabotage
    for cast, evidence in zip("STU", (None, None, seen), strict=True):
        belief.observe_cast(cast, evidence)
    effects = effects_table(CLASSIC)
    kept = 0
    for sigma, weight in zip(_maps(), belief.weights, strict=True):
        s, t, u = sigma[:3]
        code = (s * 8 + t) * 8 + u
        weather_alone = 0 not in (s, t, u) and effects[code] >> 3 == 0
        assert (weight > 0) == (weather_alone and bool(effects[code] & WEATHER))
        if weight > 0:  # weather: chain 3 < <; and S, T, U cast no sabotage (a sum of 8, 10, 12)
            assert s < t < u and t + u not in (8, 10, 12)
            kept += 1
    assert kept > 0
