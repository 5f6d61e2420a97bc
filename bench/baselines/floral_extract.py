"""The Floral Extract AI as it was before its rework (``gardener``, the default until then),
frozen here only so ``bench/ai.py --against previous`` can measure the new AI against it.
Do not change it. It reads only the protocol (requests, views, events) and stable engine helpers.

Original docstring: computer players for Floral Extract. They see what their seat sees and
nothing more: the events addressed to the public or to their own seat, and their own view.

``random`` answers with any legal choice. ``gardener`` plays to win:

* it plants the flower its spellbook can grow fastest in the pot it will land in;
* it picks each rune by a two-turn lookahead over its own spells (it knows its own map and the
  spellbook), valuing its garden's growth under a belief about the hidden weather that it keeps
  up to date from how its own flowers grow;
* while it has guessing access it builds the guessing window (K distinct runes in a row), ending
  on the identity it wants to declare;
* it declares by deduction: a candidate set of identities per opponent symbol, narrowed only by
  public facts (declaration results, the no-double-stall rule) and its own declarations, with the
  likelihood of each pair counted over all the rune maps still consistent.
"""

# No ``from __future__ import annotations``: bench/ai.py loads this file without registering
# it in sys.modules, where dataclasses look string annotations up.

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from games.floral_extract.rules import BLOOM_AT, FLOWERS, RAINY, SEAT_NAMES, Flower, spell_x
from games.floral_extract.spellbook import SPELLS, compile_spell, parse_spellbook
from games.floral_extract.state import per_seat_books
from games.protocol import JSON, Event, Request

FULL = 0xFF  # every identity 0..7 still possible
WATER, FERTILIZE, WEATHER, SABOTAGE = 1, 2, 4, 8  # spells fired by one cast, as bits
GROWTH = WATER | FERTILIZE | WEATHER  # the spells that change an own garden
WEATHERS = (1, 2, 3)

Entry = int | None
"""A cast in an own history: the identity of an own rune, or None for a declaration."""


def may_see(seat: int, event: Event) -> bool:
    """Whether ``seat`` is told ``event``: public ones and its own, never another seat's."""
    return event.audience.reaches(seat)


# --- deduction of the opponent's map -----------------------------------------------------------


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


class RuneDeduction:
    """What the opponent's secret map can still be: the identities each symbol may have."""

    def __init__(self, symbols: str) -> None:
        self.symbols = symbols
        self.allowed = {s: FULL for s in symbols}
        self._probs: dict[str, list[float]] | None = None

    def possible(self, symbol: str, ident: int) -> bool:
        return bool(self.allowed[symbol] >> ident & 1)

    def exclude(self, symbol: str, ident: int) -> None:
        """Evidence that ``symbol`` is not ``ident``. A set is never emptied: sound evidence
        cannot do it, and a player must still be able to guess something."""
        mask = self.allowed[symbol] & ~(1 << ident)
        if mask and mask != self.allowed[symbol]:
            self.allowed[symbol] = mask
            self._probs = None

    def fix(self, symbol: str, ident: int) -> None:
        """Evidence that ``symbol`` is ``ident``, so no other symbol is."""
        if self.allowed[symbol] != 1 << ident:
            self.allowed[symbol] = 1 << ident
            self._probs = None
        for other in self.symbols:
            if other != symbol:
                self.exclude(other, ident)

    def probabilities(self) -> dict[str, list[float]]:
        """P(symbol = identity) with every consistent map equally likely."""
        if self._probs is None:
            counts, total = pair_counts([self.allowed[s] for s in self.symbols])
            if total:
                self._probs = {
                    s: [c / total for c in row] for s, row in zip(self.symbols, counts, strict=True)
                }
            else:  # contradictory evidence (a rules variant we do not model): stay uniform
                self._probs = {s: _uniform(self.allowed[s]) for s in self.symbols}
        return self._probs

    def best(self, skip: Iterable[str], ident: int | None = None) -> tuple[str, int, float] | None:
        """The likeliest (symbol, identity) among symbols not in ``skip`` (optionally for one
        identity), ties broken by symbol order so the choice is reproducible."""
        skipped = set(skip)
        best: tuple[str, int, float] | None = None
        for symbol, row in self.probabilities().items():
            if symbol in skipped:
                continue
            for i in range(8) if ident is None else (ident,):
                if row[i] > 0 and (best is None or row[i] > best[2] + 1e-12):
                    best = (symbol, i, row[i])
        return best


def _uniform(mask: int) -> list[float]:
    count = bin(mask).count("1")
    return [(mask >> i & 1) / count for i in range(8)]


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

    def update(self, turn: int, fired: int, seen: Pots, sliding: bool) -> None:
        """After an own turn report: keep the weathers and sabotages that explain the stages."""
        x = spell_x(turn)
        found: dict[int, tuple[float, float, Pots]] = {}  # weather -> total, best, pots
        for branch in self.branches:
            for weather, pw in _weather_options(branch.weather, x, bool(fired & WEATHER)):
                for pot, ps in enumerate(OPPONENT_SABOTAGE):
                    if pot and branch.pots[pot - 1] is None:
                        continue
                    prior = branch.weight * pw * (ps or 1 - sum(OPPONENT_SABOTAGE))
                    pots, _, _ = grow(branch.pots, weather, fired, x, sliding, pot)
                    if _same(pots, seen):
                        total, best, kept = found.get(weather, (0.0, -1.0, pots))
                        if prior > best:
                            best, kept = prior, pots
                        found[weather] = (total + prior, best, kept)
        if not found:  # unexplained (an opponent we do not model): keep stages, widen weather
            self._reset(seen)
            return
        norm = sum(total for total, _, _ in found.values())
        self.branches = [Branch(t / norm, w, pots) for w, (t, _, pots) in found.items()]

    def resync(self, seen: Pots) -> None:
        """Take the stages from the view when they differ from the belief's."""
        if not _same(self.pots(), seen):
            self._reset(seen)

    def _reset(self, seen: Pots) -> None:
        old = self.pots()
        pots = tuple(_adopt(f, old[i] if i < len(old) else None) for i, f in enumerate(seen))
        weights = {w: 0.5 * self.probability(w) + 0.5 / 3 for w in WEATHERS}
        self.branches = [Branch(weights[w], w, pots) for w in WEATHERS]


def _weather_options(weather: int, x: int, own_cast: bool) -> list[tuple[int, float]]:
    if own_cast or weather == x:
        return [(x, 1.0)]
    return [(weather, 1 - OPPONENT_WEATHER), (x, OPPONENT_WEATHER)]


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


Window = tuple[int, int]
"""An own filtered window as the engine reads it: the last runes as a base-8 number (newest in
the lowest digit) and how many of them are usable (a declaration breaks the window)."""

WINDOW_MOD = 8**5  # the longest condition looks at 5 runes


class OwnSpells:
    """The three basic spells as this seat casts them."""

    def __init__(self, book: JSON, seat: int) -> None:
        parsed = parse_spellbook(per_seat_books(book)[seat])
        self.checks: list[tuple[int, int, int, bytes]] = []  # (bit, n, modulus, table)
        for bit, spell in zip((WATER, FERTILIZE, WEATHER), SPELLS, strict=True):
            compiled = compile_spell(parsed.conditions(spell))
            self.checks += [(bit, n, mod, table) for n, mod, table in compiled.checks]

    def cast(self, window: Window, rune: int) -> tuple[Window, int]:
        """The window after casting own ``rune``, and the spells that completes. A stall
        neither completes nor breaks anything."""
        if rune == 0:
            return window, 0
        code = (window[0] * 8 + rune) % WINDOW_MOD
        clean = min(window[1] + 1, 5)
        bits = 0
        for bit, n, modulus, table in self.checks:
            if clean >= n and table[code % modulus]:
                bits |= bit
        return (code, clean), bits

    def rates(self) -> dict[int, float]:
        """The best share of turns each spell (and WATER with FERTILIZE together) can fire on,
        over casting patterns repeating every 1 to 3 runes: how much a flower can count on it."""
        best = {WATER: 0.0, FERTILIZE: 0.0, WEATHER: 0.0, WATER | FERTILIZE: 0.0}
        for pattern in _patterns():
            window = own_window(pattern * 5)
            hits = dict.fromkeys(best, 0)
            for rune in pattern:
                window, fired = self.cast(window, rune)
                for bits in hits:
                    hits[bits] += (fired & bits) == bits
            for bits, count in hits.items():
                best[bits] = max(best[bits], count / len(pattern))
        return best


def own_window(history: Iterable[Entry]) -> Window:
    """The filtered window after a full own history (stalls skipped)."""
    code, clean = 0, 0
    for entry in history:
        if entry is None:
            code, clean = 0, 0
        elif entry:
            code, clean = (code * 8 + entry) % WINDOW_MOD, min(clean + 1, 5)
    return code, clean


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


def choose_flower(available: Iterable[str], pot: int, rates: Mapping[int, float]) -> str:
    return min(available, key=lambda code: (bloom_turns(code, pot, rates), FLOWERS.index(code)))


# --- the gardener ------------------------------------------------------------------------------

DEPTH = 2  # turns the search looks ahead
GAMMA = 0.8  # the weight of next turn's value against this turn's
LEAF_TURNS = 2.0  # how many more turns a weather set now is assumed to last
CHARGE_VALUE = 3.0  # a guess charge, against a garden value of ~0.1-0.3 per flower and turn
CHARGE_STEP = 0.7  # each turn further from the charge multiplies its value by this
PREBUILD = 0.08  # the guessing window is worth building a little before the access exists
SETTLE = 0.75  # declare now on a pair this likely relative to the best one a turn later


@dataclass(slots=True)
class Plan:
    """What the lookahead needs to know about one decision."""

    turn: int
    legal: list[int]
    access: bool
    cost: int
    weights: list[float]  # per identity: how good a declaration right after it would be


class Gardener:
    """Grows its flowers, builds guess charges and declares by deduction (module docstring)."""

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng
        self.me = SEAT_NAMES[seat]
        self.them = SEAT_NAMES[1 - seat]
        self.identity: dict[str, int] = {}
        self.symbol_of: list[str] = [""] * 8
        self.spells: OwnSpells | None = None
        self.rates: dict[int, float] = {}
        self.sliding = True
        self.history: list[Entry] = []  # own full history
        self.their_casts: list[str] = []
        self.their_found: set[tuple[str, int]] = set()  # pairs the opponent has found
        self.deduction: RuneDeduction | None = None
        self.weather = WeatherBelief()

    # --- what the seat is told -------------------------------------------------------------

    def observe(self, event: Event) -> None:
        if not may_see(self.seat, event):
            return
        handler = self._handlers().get(event.kind)
        if handler is not None:
            handler(event.data)

    def _handlers(self) -> dict[str, Callable[[Mapping[str, JSON]], None]]:
        return {
            "rune_map": self._on_map,
            "match_start": self._on_start,
            "turn": self._on_turn,
            "turn_private": self._on_private,
            "planted": self._on_planted,
        }

    def _on_map(self, data: Mapping[str, JSON]) -> None:
        self.identity = dict(data["map"])
        for symbol, ident in self.identity.items():
            self.symbol_of[ident] = symbol

    def _on_start(self, data: Mapping[str, JSON]) -> None:
        self.deduction = RuneDeduction(data["alphabets"][self.them])
        self.spells = OwnSpells(data["spellbook"], self.seat)
        self.rates = self.spells.rates()

    def _on_turn(self, data: Mapping[str, JSON]) -> None:
        """Public results: what the opponent cast and what every declaration revealed."""
        cast = data["casts"][self.them]
        previous = self.their_casts[-1] if self.their_casts else None
        for decl in data["declarations"]:
            if not decl.get("dud"):
                self._learn_declaration(decl, previous)
        deduction = self.deduction
        if deduction is not None and cast == previous and cast in deduction.symbols:
            deduction.exclude(cast, 0)  # no stall twice in a row, so a repeated rune is not 0
        self.their_casts.append(cast)

    def _learn_declaration(self, decl: Mapping[str, JSON], their_previous: str | None) -> None:
        deduction = self.deduction
        if deduction is None:
            return
        symbol, correct = decl["symbol"], decl["correct"]
        if decl["seat"] == self.me:
            mine = self.history[-1] if self.history else None
            if correct:
                deduction.fix(symbol, decl["identity"])
            elif mine is not None:  # we never re-declare a found pair, so this one is wrong
                deduction.exclude(symbol, mine)
            return
        if their_previous is None or their_previous not in deduction.symbols:
            return
        # their previous rune is the identity they declared for our symbol (or is not)
        if correct:
            deduction.fix(their_previous, decl["identity"])
            self.their_found.add((symbol, decl["identity"]))
        elif symbol in self.identity and (symbol, self.identity[symbol]) not in self.their_found:
            deduction.exclude(their_previous, self.identity[symbol])

    def _on_private(self, data: Mapping[str, JSON]) -> None:
        self.history.append(data["identity"])
        fired = _spell_bits(data["spells"])
        self.weather.update(data["turn"], fired, parse_pots(data["pots"]), self.sliding)

    def _on_planted(self, data: Mapping[str, JSON]) -> None:
        if data.get("planted"):
            self.weather.plant(int(data["planted_pot"]), str(data["planted"]))

    # --- decisions ---------------------------------------------------------------------------

    def act(self, request: Request, view: JSON) -> str:
        self._sync(view)
        if request.kind == "plant":
            return self._plant(request, view)
        return self._cast(request, view)

    def _sync(self, view: JSON) -> None:
        """Fill in from the view what the events did not tell (an agent made mid-match)."""
        if not self.identity:
            self._on_map({"map": view["map"]})
        if self.deduction is None or self.spells is None:
            self._on_start({"alphabets": view["alphabets"], "spellbook": view["spellbook"]})
        deduction = self.deduction
        assert deduction is not None
        for symbol, ident in view["found"][self.me]:
            deduction.fix(symbol, ident)
        shown = [self.identity.get(s) for s in view["history"]]  # None: a declaration
        if shown and self.history[-len(shown) :] != shown:
            self.history = shown
        self.weather.resync(parse_pots(view["pots"]))

    def _plant(self, request: Request, view: JSON) -> str:
        pot = [p is None for p in view["pots"]].index(True) + 1
        return choose_flower([c.value for c in request.choices], pot, self.rates)

    def _cast(self, request: Request, view: JSON) -> str:
        deduction = self.deduction
        assert deduction is not None
        found = {symbol for symbol, _ in view["found"][self.me]}
        legal = [self.identity[c.value] for c in request.choices if c.value in self.identity]
        best = deduction.best(found)
        if view["charge"] and best is not None:
            last = self.history[-1] if self.history else None
            now = deduction.best(found, last) if last is not None else None
            if now is not None and now[2] >= SETTLE * best[2]:
                return now[0]  # declare: our previous rune is this symbol's likeliest identity
            if best[1] in legal:
                return self.symbol_of[best[1]]  # cast it, then declare next turn
        plan = self._plan(view, legal, best)
        return self.symbol_of[self._search(plan)]

    def _plan(self, view: JSON, legal: list[int], best: tuple[str, int, float] | None) -> Plan:
        deduction = self.deduction
        assert deduction is not None
        found = {symbol for symbol, _ in view["found"][self.me]}
        weights = [0.0] * 8
        if best is not None:
            for ident in range(8):
                here = deduction.best(found, ident)
                weights[ident] = 0.0 if here is None else here[2] / best[2]
        return Plan(
            turn=int(view["turn"]) + 1,
            legal=legal,
            access=int(view["blooms"]) > int(view["points"][self.me]),
            cost=int(view["guess_cost"]),
            weights=weights,
        )

    def _search(self, plan: Plan) -> int:
        """The rune whose outlook over the next DEPTH turns (garden, weather left behind, guess
        window) is best; ties go to the seat's own RNG."""
        search = Search(self, plan)
        window = own_window(self.history)
        run = tuple(distinct_tail(self.history))
        scored = []
        for rune in plan.legal:
            value = search.cast(0, window, run, (), tuple(self.weather.branches), rune)
            scored.append((value, self.rng.random(), rune))
        return max(scored)[2]


class Search:
    """A depth-limited search over the seat's own next runes. The garden only depends on the
    spells each turn fires, so garden steps are memoized by that line of spells."""

    def __init__(self, gardener: Gardener, plan: Plan) -> None:
        assert gardener.spells is not None
        self.spells = gardener.spells
        self.sliding = gardener.sliding
        self.plan = plan
        self.scale = CHARGE_VALUE if plan.access else CHARGE_VALUE * PREBUILD
        self.memo: dict[tuple[int, ...], tuple[float, tuple[Branch, ...]]] = {}

    def cast(
        self,
        depth: int,
        window: Window,
        run: tuple[int, ...] | None,
        line: tuple[int, ...],
        branches: tuple[Branch, ...],
        rune: int,
    ) -> float:
        """Value of casting ``rune`` now and playing best after; ``run`` is the guessing
        window's distinct tail, None once the line has earned its charge."""
        window, fired = self.spells.cast(window, rune)
        line = (*line, fired)
        value, branches = self.step(line, branches, self.plan.turn + depth)
        if run is not None:
            run = (*run[run.index(rune) + 1 :], rune) if rune in run else (*run, rune)
            if len(run) >= self.plan.cost:
                quality = 0.6 + 0.4 * self.plan.weights[rune]
                value += self.scale * quality * CHARGE_STEP**depth
                run = None
        if depth + 1 == DEPTH:
            leaf, _ = self.step((*line, 0), branches, self.plan.turn + depth + 1)
            value += GAMMA * LEAF_TURNS * leaf
            if run is not None:
                missing = self.plan.cost - len(run)
                value += self.scale * 0.8 * CHARGE_STEP ** (depth + missing)
            return value
        best = max(
            self.cast(depth + 1, window, run, line, branches, nxt)
            for nxt in range(1 if rune == 0 else 0, 8)
        )
        return value + GAMMA * best

    def step(
        self, line: tuple[int, ...], branches: tuple[Branch, ...], turn: int
    ) -> tuple[float, tuple[Branch, ...]]:
        """Garden value of one turn with the spells ``line[-1]`` fired."""
        if line not in self.memo:
            fired = line[-1]
            x = spell_x(turn)
            value = 0.0
            out = []
            for b in branches:
                weather = x if fired & WEATHER else b.weather
                pots, gain, _ = grow(b.pots, weather, fired, x, self.sliding)
                value += b.weight * gain
                out.append(Branch(b.weight, weather, pots))
            self.memo[line] = (value, tuple(out))
        return self.memo[line]


def distinct_tail(history: Sequence[Entry]) -> list[int]:
    """The last casts that are own runes with pairwise distinct identities, oldest first."""
    seen: list[int] = []
    for entry in reversed(history):
        if entry is None or entry in seen:
            break
        seen.append(entry)
    return seen[::-1]


def distinct_run(history: Sequence[Entry]) -> int:
    """How many of the last casts are own runes with pairwise distinct identities."""
    return len(distinct_tail(history))


def _spell_bits(spells: Iterable[str]) -> int:
    names = {"WATER": WATER, "FERTILIZE": FERTILIZE, "WEATHER": WEATHER, "SABOTAGE": SABOTAGE}
    return sum(names.get(code.split(":")[0], 0) for code in set(spells))


AGENT = Gardener
