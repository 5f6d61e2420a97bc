"""Computer players for Floral Extract. They see what their seat sees and nothing more: the
events addressed to the public or to their own seat, and their own view.

Levels (every game has the same four): ``random`` answers with any legal choice; ``easy``
plants and casts at random but declares only pairs that are still possible; ``normal`` (the
practice opponent) and ``hard`` are the ``Gardener`` at two strengths:

* it plants a slow flower first, in pot 1 where spells reach most, and the flowers that need
  no spell last (``growing.planting_order``);
* it picks each rune by a lookahead over its own spells (it knows its own map and the
  spellbook), valuing its garden's growth under a belief about the hidden weather
  (``growing.py``), and the guessing window it builds toward a charge;
* it keeps a belief over the opponent's rune map (``belief.py``): the maps the rules still
  allow after every public result, weighed (``hard``) by how well each explains the opponent's
  casts as a player completing their spells and what its own garden showed of their Weather
  and sabotage; it never declares a pair that is ruled out, found already, or tried before,
  and it ends its guessing window on the rune whose declaration is likeliest to be right.

``normal`` uses only the rules' evidence, looks one turn less far ahead and now and then plays
a good rune that is not the best. docs/ai/floral-extract.md describes the levels and their
measured strength.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from games.protocol import JSON, Event, RandomAgent, Request

from .belief import MapBelief, seeker_for
from .growing import (
    DOINGS,
    GROWTH,
    WEATHER,
    Branch,
    Entry,
    OwnSpells,
    WeatherBelief,
    grow,
    parse_pots,
    planting_order,
    spell_bits,
)
from .rules import SEAT_NAMES, spell_x
from .state import per_seat_books


def may_see(seat: int, event: Event) -> bool:
    """Whether ``seat`` is told ``event``: public ones and its own, never another seat's."""
    return event.audience.reaches(seat)


@dataclass(frozen=True, slots=True)
class Level:
    """How strong a Gardener plays."""

    depth: int  # turns the search looks ahead
    seek: bool  # weigh maps by the opponent's casts (soft evidence), not only by the rules
    noise: float  # chance per cast of a good rune that is not the best
    settle: float  # declare now on a pair this likely relative to the best one a turn later


HARD = Level(depth=3, seek=True, noise=0.0, settle=0.75)
NORMAL = Level(depth=2, seek=False, noise=0.15, settle=0.5)

GAMMA = 0.8  # the weight of next turn's value against this turn's
LEAF_TURNS = 2.0  # how many more turns a weather set now is assumed to last
CHARGE_VALUE = 3.0  # a guess charge, against a garden value of ~0.1-0.3 per flower and turn
CHARGE_STEP = 0.7  # each turn further from the charge multiplies its value by this
PREBUILD = 0.08  # the guessing window is worth building a little before the access exists
NOISE_MARGIN = 0.15  # a noisy pick is among the runes within this of the best value
SEEN_FLOOR = 0.05  # garden evidence never rules a map out: a weather read may be wrong


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

    level = HARD

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
        self.own: dict[int, Entry] = {}  # turn -> own cast (identity; None: a declaration)
        self.belief: MapBelief | None = None
        self.public: dict[int, Mapping[str, JSON]] = {}  # public turn results not yet read
        self.read_turn = 0  # public turn results read into the belief, in turn order
        self.their_casts: dict[int, str] = {}
        self.their_found: set[tuple[str, int]] = set()  # pairs the opponent has found
        self.tried: set[tuple[str, int]] = set()  # own declarations, right or wrong
        self.seen: dict[int, list[float]] = {}  # turn -> what our garden showed of their cast
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
        book = data["spellbook"]
        theirs = per_seat_books(book)[1 - self.seat]
        seeker = seeker_for(theirs) if self.level.seek else None
        self.belief = MapBelief(data["alphabets"][self.them], seeker)
        self.spells = OwnSpells(book, self.seat)
        self.rates = self.spells.rates()
        rules = data.get("rules") or {}
        self.sliding = rules.get("azalea_shrink_mode", "sliding") == "sliding"

    def _on_turn(self, data: Mapping[str, JSON]) -> None:
        """Public results, read in turn order (a host may deliver them out of order)."""
        self.public[int(data["turn"])] = data
        self._read_public()

    def _read_public(self, through: int = 0) -> None:
        """Read the public results in turn order, each once the own report of the same turn
        is in (what the own garden did is evidence about the opponent's cast); turns up to
        ``through`` are read without it if it never came (an agent made mid-match)."""
        while self.belief is not None and self.read_turn + 1 in self.public:
            turn = self.read_turn + 1
            if turn not in self.own and turn > through:
                return
            data = self.public[turn]
            for decl in data["declarations"]:
                if decl.get("dud"):
                    continue
                if decl["seat"] == self.me:
                    self._learn_own(decl, self.own.get(turn - 1))
                else:
                    self._learn_theirs(decl, self.their_casts.get(turn - 1))
            cast = data["casts"][self.them]
            self.their_casts[turn] = cast
            self.belief.observe_cast(cast, self.seen.pop(turn, None))
            del self.public[turn]
            self.read_turn = turn

    def _learn_own(self, decl: Mapping[str, JSON], tested: Entry) -> None:
        assert self.belief is not None
        symbol = decl["symbol"]
        if decl["correct"]:
            self.belief.fix(symbol, int(decl["identity"]))
        elif tested is not None:
            self.tried.add((symbol, tested))
            self.belief.exclude(symbol, tested)

    def _learn_theirs(self, decl: Mapping[str, JSON], their_previous: str | None) -> None:
        """Their previous rune is (or is not) the identity of the symbol of ours declared."""
        assert self.belief is not None
        if their_previous is None or their_previous not in self.belief.position:
            return
        symbol = decl["symbol"]
        if decl["correct"]:
            self.belief.fix(their_previous, int(decl["identity"]))
            self.their_found.add((symbol, int(decl["identity"])))
        elif symbol in self.identity and (symbol, self.identity[symbol]) not in self.their_found:
            self.belief.exclude(their_previous, self.identity[symbol])

    def _on_private(self, data: Mapping[str, JSON]) -> None:
        turn = int(data["turn"])
        self.own[turn] = data["identity"]
        fired = spell_bits(data["spells"])
        evidence = self.weather.update(turn, fired, parse_pots(data["pots"]), self.sliding)
        if evidence is not None:
            self.seen[turn] = [SEEN_FLOOR + (1 - SEEN_FLOOR) * evidence[d] for d in DOINGS]
        self._read_public()

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
        if self.belief is None or self.spells is None:
            self._on_start({"alphabets": view["alphabets"], "spellbook": view["spellbook"]})
        belief = self.belief
        assert belief is not None
        for symbol, ident in view["found"][self.me]:
            belief.fix(symbol, ident)
            self.tried.add((symbol, ident))
        turn = int(view["turn"])
        shown = view["history"]  # the last casts, one per turn, ending with this turn's
        for back, symbol in enumerate(reversed(shown)):
            self.own.setdefault(turn - back, self.identity.get(symbol))
        self._read_public(through=turn)
        self.weather.resync(parse_pots(view["pots"]))

    def history(self, view: JSON) -> list[Entry]:
        """The own casts of the last turns, oldest first (what the guessing window sees)."""
        turn = int(view["turn"])
        out: list[Entry] = []
        for t in range(turn, 0, -1):
            if t not in self.own:
                break
            out.append(self.own[t])
        return out[::-1]

    def _plant(self, request: Request, view: JSON) -> str:
        available = [c.value for c in request.choices]
        return next(code for code in planting_order(self.rates) if code in available)

    def declarable(self, view: JSON) -> set[str]:
        """Opponent symbols still worth declaring: not found already."""
        found = {symbol for symbol, _ in view["found"][self.me]}
        assert self.belief is not None
        return set(self.belief.symbols) - found

    def best_pair(self, view: JSON, identity: int | None = None) -> tuple[str, int, float] | None:
        """The likeliest pair never declared, ruled out or found (optionally for one identity)."""
        belief = self.belief
        assert belief is not None
        skip = set(belief.symbols) - self.declarable(view)
        best: tuple[str, int, float] | None = None
        rows = belief.marginals()
        for symbol in belief.symbols:
            if symbol in skip:
                continue
            k = belief.position[symbol]
            for i in range(8) if identity is None else (identity,):
                if (symbol, i) in self.tried or not belief.possible(symbol, i):
                    continue
                if best is None or rows[k][i] > best[2] + 1e-12:
                    best = (symbol, i, rows[k][i])
        return best

    def _cast(self, request: Request, view: JSON) -> str:
        legal = [self.identity[c.value] for c in request.choices if c.value in self.identity]
        history = self.history(view)
        best = self.best_pair(view) if self._guessing_soon(view, history) else None
        if view["charge"] and best is not None:
            last = history[-1] if history else None
            now = self.best_pair(view, last) if last is not None else None
            if now is not None and now[2] >= self.level.settle * best[2]:
                return now[0]  # declare: our previous rune is this symbol's likeliest identity
            if best[1] in legal:
                return self.symbol_of[best[1]]  # cast it, then declare next turn
        plan = self._plan(view, legal, best)
        return self.symbol_of[self._search(plan, history)]

    def _guessing_soon(self, view: JSON, history: list[Entry]) -> bool:
        """Whether a charge is held or the next rune may earn one: only then does it matter
        which declaration each rune would set up (the likelihoods cost some milliseconds)."""
        if view["charge"]:
            return True
        access = int(view["blooms"]) > int(view["points"][self.me])
        missing = int(view["guess_cost"]) - len(distinct_tail(history))
        return access and missing <= 1

    def _plan(self, view: JSON, legal: list[int], best: tuple[str, int, float] | None) -> Plan:
        weights = [1.0] * 8  # far from a charge, every rune may end the window
        if best is not None:
            for ident in range(8):
                here = self.best_pair(view, ident)
                weights[ident] = 0.0 if here is None else here[2] / best[2]
        return Plan(
            turn=int(view["turn"]) + 1,
            legal=legal,
            access=int(view["blooms"]) > int(view["points"][self.me]),
            cost=int(view["guess_cost"]),
            weights=weights,
        )

    def _search(self, plan: Plan, history: list[Entry]) -> int:
        """The rune whose outlook over the next turns (garden, weather left behind, guess
        window) is best; ties go to the seat's own RNG, and a ``noise`` share of the casts
        take a good rune that is not the best."""
        values = Search(self, plan).values(history, tuple(self.weather.branches))
        scored = sorted(((v, self.rng.random(), rune) for rune, v in values.items()), reverse=True)
        if self.level.noise and self.rng.random() < self.level.noise:
            good = [s for s in scored if s[0] >= scored[0][0] - NOISE_MARGIN]
            return self.rng.choice(good)[2]
        return scored[0][2]


class NormalGardener(Gardener):
    """The practice opponent: the rules' evidence only, a shorter lookahead, some noise."""

    level = NORMAL


Line = tuple[int, ...]
"""The spells each turn of a searched line fires (WATER, FERTILIZE, WEATHER bits)."""
State = tuple[int, bool, tuple[int, ...] | None, Line]
"""A searched position: own window, whether the last cast was a stall, the guessing window's
distinct tail (None once the line has earned its charge), and the line of spells so far."""


class Search:
    """A search over the seat's own next ``depth`` runes, one turn at a time: positions that
    agree on everything the future depends on (``State``) merge, keeping the best way there,
    and the garden, which depends only on the spells each turn fires, is stepped once per line
    of spells."""

    def __init__(self, gardener: Gardener, plan: Plan) -> None:
        assert gardener.spells is not None
        self.spells = gardener.spells
        self.sliding = gardener.sliding
        self.plan = plan
        self.depth = gardener.level.depth
        self.scale = CHARGE_VALUE if plan.access else CHARGE_VALUE * PREBUILD
        self.gardens: dict[Line, tuple[float, tuple[Branch, ...]]] = {}
        self.endings: dict[Line, _Endings] = {}  # the last turn's values (``_last``)
        self.runs: dict[tuple[int, ...], list[float]] = {}

    def values(self, history: list[Entry], branches: tuple[Branch, ...]) -> dict[int, float]:
        """Each legal rune now: the value of the best line of ``depth`` turns it starts."""
        self.gardens[()] = (0.0, branches)
        start: State = (
            self.spells.window(history),
            bool(history) and history[-1] == 0,
            tuple(distinct_tail(history)),
            (),
        )
        # position -> (value so far, the rune cast now on the best way there)
        frontier: dict[State, tuple[float, int]] = {}
        for rune in self.plan.legal:
            self._expand(frontier, start, 0.0, rune, 0, rune)
        for depth in range(1, self.depth - 1):
            following: dict[State, tuple[float, int]] = {}
            for state, (value, first) in frontier.items():
                for rune in range(1 if state[1] else 0, 8):
                    self._expand(following, state, value, rune, depth, first)
            frontier = following
        best: dict[int, float] = {}
        last = self.depth - 1
        for state, (value, first) in frontier.items():
            total = value + (self._last(state, last) if last else self._leaf(state))
            if total > best.get(first, -1e9):
                best[first] = total
        return best

    def _last(self, state: State, depth: int) -> float:
        """The best last turn of the line from ``state``, with what it leaves behind. Runes
        that fire the same spells leave the same garden, which is valued once per line."""
        window, stalled, run, line = state
        options = self.spells.options(window, stalled)
        endings = self._endings(line, depth)
        if run is None:
            return max(endings[fired] for fired, _ in options)
        runs = self._run_values(run, depth)
        return max(endings[fired] + runs[rune] for fired, rune in options)

    def _endings(self, line: Line, depth: int) -> dict[int, float]:
        """Per spells fired on the last turn after ``line``: that turn's garden value and what
        it leaves behind (filled in as the search meets them)."""
        endings = self.endings.get(line)
        if endings is None:
            endings = self.endings[line] = _Endings(self, line, depth)
        return endings

    def _run_values(self, run: tuple[int, ...], depth: int) -> list[float]:
        """Per rune cast last: the charge it completes, or what the guessing window left half
        built is worth."""
        values = self.runs.get(run)
        if values is None:
            values = []
            for rune in range(8):
                length = len(run) - run.index(rune) if rune in run else len(run) + 1
                if length >= self.plan.cost:
                    quality = 0.6 + 0.4 * self.plan.weights[rune]
                    values.append(GAMMA**depth * self.scale * quality * CHARGE_STEP**depth)
                else:
                    values.append(self._leaf_run(length, depth))
            self.runs[run] = values
        return values

    def _expand(
        self,
        into: dict[State, tuple[float, int]],
        state: State,
        value: float,
        rune: int,
        depth: int,
        first: int,
    ) -> None:
        window, _, run, line = state
        window, fired = self.spells.cast(window, rune)
        line = (*line, fired & GROWTH)
        reward = self._garden(line)
        if run is not None:
            run = (*run[run.index(rune) + 1 :], rune) if rune in run else (*run, rune)
            if len(run) >= self.plan.cost:
                quality = 0.6 + 0.4 * self.plan.weights[rune]
                reward += self.scale * quality * CHARGE_STEP**depth
                run = None
        value += GAMMA**depth * reward
        key: State = (window, rune == 0, run, line)
        if key not in into or into[key][0] < value:
            into[key] = (value, first)

    def _leaf(self, state: State) -> float:
        """What the line leaves behind: the weather and stages it made, a turn's growth with
        no spells counted ``LEAF_TURNS`` times, and the guessing window half built."""
        _, _, run, line = state
        value = self._leaf_garden(line)
        if run is not None:
            value += self._leaf_run(len(run), len(line) - 1)
        return value

    def _leaf_garden(self, line: Line) -> float:
        return GAMMA ** len(line) * LEAF_TURNS * self._garden((*line, 0))

    def _leaf_run(self, length: int, depth: int) -> float:
        missing = self.plan.cost - length
        return GAMMA**depth * self.scale * 0.8 * CHARGE_STEP ** (depth + missing)

    def _garden(self, line: Line) -> float:
        """Garden value of the last turn of ``line`` (the turns before stepped already)."""
        if line not in self.gardens:
            _, branches = self._garden_state(line[:-1])
            fired = line[-1]
            turn = self.plan.turn + len(line) - 1
            x = spell_x(turn)
            value = 0.0
            out = []
            for b in branches:
                weather = x if fired & WEATHER else b.weather
                pots, gain, _ = grow(b.pots, weather, fired, x, self.sliding)
                value += b.weight * gain
                out.append(Branch(b.weight, weather, pots))
            self.gardens[line] = (value, tuple(out))
        return self.gardens[line][0]

    def _garden_state(self, line: Line) -> tuple[float, tuple[Branch, ...]]:
        if line not in self.gardens:
            self._garden(line)
        return self.gardens[line]


class _Endings(dict[int, float]):
    """The last turn's value per spells fired, for one line before it, computed on demand."""

    def __init__(self, search: Search, line: Line, depth: int) -> None:
        super().__init__()
        self.search, self.line, self.discount = search, line, GAMMA**depth

    def __missing__(self, fired: int) -> float:
        after = (*self.line, fired)
        value = self.discount * self.search._garden(after) + self.search._leaf_garden(after)
        self[fired] = value
        return value


def distinct_tail(history: list[Entry]) -> list[int]:
    """The last casts that are own runes with pairwise distinct identities, oldest first."""
    seen: list[int] = []
    for entry in reversed(history):
        if entry is None or entry in seen:
            break
        seen.append(entry)
    return seen[::-1]


class EasyAgent(RandomAgent):
    """Random-ish: any flower and any rune, but a charge is spent on a pair still possible
    (the rules' evidence), never on one found or tried already."""

    request_only = False  # it reads its view

    def __init__(self, seat: int, rng: random.Random) -> None:
        super().__init__(seat, rng)
        self.reader = NormalGardener(seat, rng)

    def observe(self, event: Event) -> None:
        self.reader.observe(event)

    def act(self, request: Request, view: JSON) -> str:
        reader = self.reader
        reader._sync(view)
        runes = [c.value for c in request.choices if c.group != "declare"]
        if request.kind == "cast" and view["charge"]:
            history = reader.history(view)
            last = history[-1] if history else None
            pair = reader.best_pair(view, last) if last is not None else None
            if pair is not None and self.rng.random() < 0.8:
                return pair[0]
        return self.rng.choice(runes)
