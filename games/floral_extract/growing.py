"""The garden side of the Floral Extract AI: its own garden under a belief about the hidden
weather, its own spells as an automaton over its runes, and the choice of a flower to plant.

The weather is never told, but an own flower's growth shows it (a Hyacinth grows +2 only in the
sun), and so does an own WEATHER spell; ``WeatherBelief`` keeps one branch per weather that
explains every stage seen, with the opponent's unseen WEATHER and sabotage as the alternatives.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from games.protocol import JSON

from .effects import effects_table
from .rules import BLOOM_AT, RAINY, Flower, spell_x
from .spellbook import SPELLS, parse_spellbook
from .state import per_seat_books

WATER, FERTILIZE, WEATHER, SABOTAGE = 1, 2, 4, 8  # spells fired by one cast, as bits
GROWTH = WATER | FERTILIZE | WEATHER  # the spells that change an own garden
WEATHERS = (1, 2, 3)

Entry = int | None
"""A cast in an own history: the identity of an own rune, or None for a declaration."""


# --- the garden, under a belief about the hidden weather ----------------------------------------


def copy_flower(f: Flower) -> Flower:
    return Flower(f.code, f.stage, f.prev_watered, f.prev_grew, f.dry_turns, f.combos)


Pots = tuple[Flower | None, ...]


@dataclass(frozen=True, slots=True)
class Branch:
    """One weather the garden may be under, how likely it is, and the flowers' memory under it
    (an Azalea's last watering, a Xanthium's combinations depend on the weather)."""

    weight: float
    weather: int
    pots: Pots


def grow(
    pots: Pots, weather: int, fired: int, x: int, sliding: bool, sabotaged: int = 0
) -> tuple[Pots, float, list[int]]:
    """One end-of-turn step of an own garden: new pots, progress made (a share of each bloom,
    plus a bonus per bloom) and the pots that bloomed."""
    out: list[Flower | None] = []
    gain = 0.0
    bloomed = []
    for pot, flower in enumerate(pots, start=1):
        if flower is None:
            out.append(None)
            continue
        new = copy_flower(flower)
        hit = pot == sabotaged
        watered = not hit and (weather == RAINY or (bool(fired & WATER) and pot <= x))
        fertilized = not hit and bool(fired & FERTILIZE) and pot == x
        new.grow(weather, watered, fertilized, sliding)
        target = BLOOM_AT[new.code]
        gain += (min(new.stage, target) - flower.stage) / target
        if new.stage >= target:
            gain += BLOOM_BONUS
            bloomed.append(pot)
            out.append(None)
        else:
            out.append(new)
    return tuple(out), gain, bloomed


Evidence = dict[tuple[bool, int], float]
"""How well each of the opponent's possible doings on a turn explains what an own garden did:
(they cast WEATHER, the pot of ours they sabotaged or 0) -> likelihood, the best one 1."""
DOINGS = [(weather, pot) for weather in (False, True) for pot in range(4)]

BLOOM_BONUS = 0.5
OPPONENT_WEATHER = 0.12  # prior chance the opponent casts WEATHER on a turn
OPPONENT_SABOTAGE = (0.0, 0.08, 0.06, 0.04)  # prior chance per pot of an unseen sabotage


class WeatherBelief:
    """The weather is never told; an own flower's growth tells it (a Hyacinth grows +2 only in
    the sun) and so does an own WEATHER spell. Keeps one branch per possible weather."""

    def __init__(self, weather: int = 1) -> None:
        self.branches = [Branch(1.0, weather, (None, None, None))]

    def pots(self) -> Pots:
        return max(self.branches, key=lambda b: b.weight).pots

    def probability(self, weather: int) -> float:
        return sum(b.weight for b in self.branches if b.weather == weather)

    def plant(self, pot: int, code: str) -> None:
        self.branches = [
            Branch(b.weight, b.weather, _with(b.pots, pot, Flower(code))) for b in self.branches
        ]

    def update(self, turn: int, fired: int, seen: Pots, sliding: bool) -> Evidence | None:
        """After an own turn report: keep the weathers and sabotages that explain the stages.
        Returns how well each of the opponent's possible doings explains them (their WEATHER
        spell, the pot they sabotaged: ``Evidence``), or None if nothing does."""
        x = spell_x(turn)
        own = bool(fired & WEATHER)
        evidence = dict.fromkeys(DOINGS, 0.0)
        found: dict[int, tuple[float, float, Pots]] = {}  # weather -> total, best, pots
        for branch in self.branches:
            for theirs, chance in ((False, 1 - OPPONENT_WEATHER), (True, OPPONENT_WEATHER)):
                weather = x if own or theirs else branch.weather
                for pot, ps in enumerate(OPPONENT_SABOTAGE):
                    pots, _, _ = grow(branch.pots, weather, fired, x, sliding, pot)
                    if not _same(pots, seen):
                        continue
                    evidence[theirs, pot] += branch.weight
                    if pot and branch.pots[pot - 1] is None:
                        continue  # nothing to sabotage: the same as no sabotage, counted once
                    prior = branch.weight * chance * (ps or 1 - sum(OPPONENT_SABOTAGE))
                    total, best, kept = found.get(weather, (0.0, -1.0, pots))
                    if prior > best:
                        best, kept = prior, pots
                    found[weather] = (total + prior, best, kept)
        if not found:  # unexplained (an opponent we do not model): keep stages, widen weather
            self._reset(seen)
            return None
        norm = sum(total for total, _, _ in found.values())
        self.branches = [Branch(t / norm, w, pots) for w, (t, _, pots) in found.items()]
        top = max(evidence.values())
        return {doing: value / top for doing, value in evidence.items()}

    def resync(self, seen: Pots) -> None:
        """Take the stages from the view when they differ from the belief's."""
        if not _same(self.pots(), seen):
            self._reset(seen)

    def _reset(self, seen: Pots) -> None:
        old = self.pots()
        pots = tuple(_adopt(f, old[i] if i < len(old) else None) for i, f in enumerate(seen))
        weights = {w: 0.5 * self.probability(w) + 0.5 / 3 for w in WEATHERS}
        self.branches = [Branch(weights[w], w, pots) for w in WEATHERS]


def _with(pots: Pots, pot: int, flower: Flower) -> Pots:
    return tuple(flower if i == pot - 1 else f for i, f in enumerate(pots))


def _same(pots: Pots, seen: Pots) -> bool:
    return all(
        (a is None and b is None)
        or (a is not None and b is not None and a.code == b.code and a.stage == b.stage)
        for a, b in zip(pots, seen, strict=True)
    )


def _adopt(seen: Flower | None, old: Flower | None) -> Flower | None:
    """A seen flower, keeping the memory the belief had for it if it is the same flower."""
    if seen is None or old is None or old.code != seen.code:
        return seen
    kept = copy_flower(old)
    kept.stage = seen.stage
    return kept


def parse_pots(raw: Sequence[JSON]) -> Pots:
    """Pots from a turn report (``"C:5"``) or a view (``{"flower": "C", "stage": 5}``)."""
    out: list[Flower | None] = []
    for item in raw:
        if item is None:
            out.append(None)
        elif isinstance(item, str):
            code, stage = item.split(":")
            out.append(Flower(code, int(stage)))
        else:
            out.append(Flower(item["flower"], int(item["stage"])))
    return tuple(out)


# --- the spellbook from one seat's side --------------------------------------------------------


class OwnSpells:
    """The three basic spells and the sabotage as this seat casts them: the engine's own table
    of what each window completes (``effects.py``). A window is the last non-stall runes as a
    base-8 number (newest in the lowest digit; a 0 digit is no rune), and only the last
    ``longest - 1`` of them decide anything the next cast completes, so that much is kept."""

    def __init__(self, book: JSON, seat: int) -> None:
        own = per_seat_books(book)[seat]
        self.effects = effects_table(own)
        parsed = parse_spellbook(own)
        longest = max(c.n for spell in SPELLS for c in parsed.conditions(spell))
        self.memory = 8 ** (longest - 1)
        self._options: dict[tuple[int, bool], tuple[tuple[int, int], ...]] = {}

    def cast(self, window: int, rune: int) -> tuple[int, int]:
        """The window after casting own ``rune``, and what that completes (WATER, FERTILIZE
        and WEATHER bits, the sabotaged pot above them). A stall neither completes nor breaks
        anything."""
        if rune == 0:
            return window, 0
        code = window * 8 + rune
        return code % self.memory, self.effects[code]

    def options(self, window: int, stalled: bool) -> tuple[tuple[int, int], ...]:
        """Each rune castable after ``window`` (no second stall in a row) with the basic
        spells it fires, sorted by those spells."""
        key = (window, stalled)
        if key not in self._options:
            runes = range(1 if stalled else 0, 8)
            fired = [(self.cast(window, rune)[1] & GROWTH, rune) for rune in runes]
            self._options[key] = tuple(sorted(fired))
        return self._options[key]

    def window(self, history: Iterable[Entry]) -> int:
        """The window after a full own history (stalls skipped, a declaration clears it)."""
        code = 0
        for entry in history:
            if entry is None:
                code = 0
            elif entry:
                code = (code * 8 + entry) % self.memory
        return code

    def rates(self) -> dict[int, float]:
        """The best share of turns each spell (and WATER with FERTILIZE together) can fire on,
        over casting patterns repeating every 1 to 3 runes: how much a flower can count on it."""
        best = {WATER: 0.0, FERTILIZE: 0.0, WEATHER: 0.0, WATER | FERTILIZE: 0.0}
        for pattern in _patterns():
            window = self.window(pattern * 5)
            hits = dict.fromkeys(best, 0)
            for rune in pattern:
                window, fired = self.cast(window, rune)
                for bits in hits:
                    hits[bits] += (fired & bits) == bits
            for bits, count in hits.items():
                best[bits] = max(best[bits], count / len(pattern))
        return best


def _patterns() -> list[tuple[int, ...]]:
    runes = range(1, 8)
    out: list[tuple[int, ...]] = [(a,) for a in runes]
    out += [(a, b) for a in runes for b in runes if a != b]
    out += [(a, b, c) for a in runes for b in runes for c in runes if len({a, b, c}) > 1]
    return out


# --- planting ------------------------------------------------------------------------------------


def bloom_turns(code: str, pot: int, rates: Mapping[int, float]) -> float:
    """A rough count of turns for ``code`` to bloom in ``pot`` with the spells' firing rates.
    WATER reaches pot k on X >= k (3 - k + 1 turns in 3), FERTILIZE only when X = k."""
    water = min(1.0, rates[WATER]) * (4 - pot) / 3
    fert = min(1.0, rates[FERTILIZE]) / 3
    both = min(1.0, rates[WATER | FERTILIZE]) / 3
    sunny_keep = 0.5 + 0.5 * min(1.0, 3 * rates[WEATHER])  # can it put the sun back on X = 1?
    if code == "A":
        return 8 / (0.6 + 0.4 * sunny_keep)
    if code == "H":
        return 7.5 / sunny_keep
    if code == "C":
        return 30 / (1 + 2 * water + 3 * fert)
    if code == "W":
        return 3 + 2 / max(water, 0.05) + 1 / max(fert, 0.05) + 1 / max(both, 0.03)
    return (
        2
        + 1 / max(water, 0.05)
        + 1 / max(fert, 0.05)
        + 1 / max(both, 0.03)
        + 6 * (1.2 - min(1.0, 3 * rates[WEATHER]))
    )


def planting_order(rates: Mapping[int, float]) -> str:
    """The order in which to plant, a slow flower first: four blooms win, one
    planting comes every five turns, and the first flower gets pot 1, where WATER and
    FERTILIZE reach most often. So the one slow flower needed (a Wisteria or a Xanthium,
    whichever the spells serve better) starts first, where it is tended best; the
    Chrysanthemum, which needs water, second; the two that need no spell (Hyacinth,
    Azalea) last, in the pots spells reach least."""
    slow = sorted("WX", key=lambda code: (bloom_turns(code, 1, rates), code))
    quick = sorted("HA", key=lambda code: (bloom_turns(code, 3, rates), code))
    return slow[0] + "C" + "".join(quick) + slow[1]


def spell_bits(spells: Iterable[str]) -> int:
    """The basic spells and sabotage of a turn report (``WATER:3``...), as bits."""
    names = {"WATER": WATER, "FERTILIZE": FERTILIZE, "WEATHER": WEATHER, "SABOTAGE": SABOTAGE}
    return sum(names.get(code.split(":")[0], 0) for code in set(spells))
