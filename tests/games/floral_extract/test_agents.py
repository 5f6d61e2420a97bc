"""The AI players: always legal, told nothing secret, sound in deduction, and the gardener wins."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import Any

import pytest

from games.floral_extract import AGENTS, DEFAULT_AGENT, GAME
from games.floral_extract.agents import (
    Gardener,
    RuneDeduction,
    WeatherBelief,
    distinct_run,
    may_see,
    pair_counts,
    parse_pots,
)
from games.floral_extract.rules import Flower
from games.play import play_match
from games.protocol import (
    JSON,
    MODERATORS,
    PUBLIC,
    Accepted,
    Agent,
    Event,
    RandomAgent,
    Request,
    Setup,
    to_seat,
)

from .helpers import CLASSIC, MAPS

RUNES = "ABCDEFGH"
OTHER = "STUVWXYZ"


def agents_for(names: tuple[str, str], seed: int) -> list[Agent]:
    return [AGENTS[name](seat, random.Random(seed * 2 + seat)) for seat, name in enumerate(names)]


def play(agents: list[Agent], seed: int, config: Mapping[str, JSON] | None = None) -> Any:
    state, events = GAME.new_match(Setup(dict(config or {}), 2, seed))
    return play_match(GAME, state, events, agents)


# --- legality --------------------------------------------------------------------------------

CONFIGS: list[dict[str, JSON]] = [
    {},
    {"spellbook": CLASSIC, "advantage": "P2"},
    {"declaration_without_charge": "dud", "guess_cost_mode": "prose", "max_turns": 60},
    {"azalea_shrink_mode": "reset", "initial_weather": "random", "max_turns": 60},
]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize(
    "names", [("random", "random"), ("gardener", "random"), ("gardener", "gardener")]
)
def test_every_answer_is_accepted(names: tuple[str, str], config: dict[str, JSON]) -> None:
    # play_match raises on the first refused answer
    for seed in range(2):
        state = play(agents_for(names, seed), seed, config)
        assert state.phase == "over"


def test_gardener_survives_timeouts_and_late_creation() -> None:
    """Windows that close without its answer (the engine casts the default) and an agent made
    mid-match (it catches up from its view) still give accepted answers only."""
    rng = random.Random(3)
    state, events = GAME.new_match(Setup({"max_turns": 60}, 2, 3))
    gardener: Agent = Gardener(0, random.Random(1))
    other: Agent = RandomAgent(1, random.Random(2))
    restarted = False
    while GAME.requests(state):
        if state.turns_completed == 30 and not restarted:
            gardener, restarted = Gardener(0, random.Random(1)), True  # a host restart
        for event in events:
            for seat, agent in enumerate((gardener, other)):
                if may_see(seat, event):
                    agent.observe(event)
        moves: dict[int, Any] = {}
        for request in GAME.requests(state):
            agent = (gardener, other)[request.seat]
            verdict = GAME.submit(
                state, request.seat, agent.act(request, GAME.view(state, request.seat))
            )
            assert isinstance(verdict, Accepted), verdict
            moves[request.seat] = None if rng.random() < 0.2 else verdict.move
        state, events = GAME.resolve(state, moves)
    assert state.phase == "over"


def test_registry_offers_both_levels() -> None:
    assert set(AGENTS) == {"random", "gardener"}
    assert DEFAULT_AGENT == "gardener"


def test_random_picks_only_offered_choices() -> None:
    state, _ = GAME.new_match(Setup({"spellbook": CLASSIC}, 2, 1))
    request = GAME.requests(state)[0]
    agent = RandomAgent(request.seat, random.Random(0))
    offered = {c.value for c in request.choices}
    assert {agent.act(request, GAME.view(state, request.seat)) for _ in range(50)} <= offered


# --- what the agents are told ----------------------------------------------------------------


class Spy:
    """Passes everything through to an agent and keeps the events it was given."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.seen: list[Event] = []
        self.answers: list[str] = []

    def observe(self, event: Event) -> None:
        self.seen.append(event)
        self.agent.observe(event)

    def act(self, request: Request, view: JSON) -> str:
        answer = self.agent.act(request, view)
        self.answers.append(answer)
        return answer


def test_agents_are_told_only_public_and_own_events() -> None:
    spies = [Spy(Gardener(seat, random.Random(seat))) for seat in range(2)]
    play(list(spies), 3, {"max_turns": 30})
    for seat, spy in enumerate(spies):
        assert spy.seen
        assert all(e.audience in (PUBLIC, to_seat(seat)) for e in spy.seen)
        assert not any(e.kind in ("setup", "turn_full") for e in spy.seen)


def test_gardener_ignores_events_meant_for_others() -> None:
    """Told every event of the match (moderators' and the other seat's too), it plays exactly
    as when told only its own: it filters by audience itself."""
    state, events = GAME.new_match(Setup({"max_turns": 40}, 2, 5))
    told_all, told_own = Gardener(0, random.Random(9)), Gardener(0, random.Random(9))
    answers: list[tuple[str, str]] = []
    while True:
        for event in events:
            told_all.observe(event)
            if may_see(0, event):
                told_own.observe(event)
        requests = GAME.requests(state)
        if not requests:
            break
        moves = {}
        for request in requests:
            view = GAME.view(state, request.seat)
            if request.seat == 0:
                pair = (told_all.act(request, view), told_own.act(request, view))
                answers.append(pair)
                raw = pair[0]
            else:
                raw = request.choices[state.turns_completed % len(request.choices)].value
            moves[request.seat] = GAME.submit(state, request.seat, raw).move  # type: ignore[union-attr]
        state, events = GAME.resolve(state, moves)
    assert answers and all(a == b for a, b in answers)


class Parrot:
    """A scripted opponent: plants the first offered flower, casts its runes in a fixed cycle."""

    def __init__(self, cycle: str) -> None:
        self.cycle = itertools.cycle(cycle)

    def observe(self, event: Event) -> None:
        pass

    def act(self, request: Request, view: JSON) -> str:
        return request.choices[0].value if request.kind == "plant" else next(self.cycle)


def observed_run(p2_map: dict[str, int]) -> list[tuple[list[Any], str]]:
    """The gardener (P1) against a Parrot; per decision, what it had been told so far (events'
    data and its view) and its answer."""
    # P2 casts S (1) and T (2) in turn: no sabotage (1+2), and its book never fires on 1,2,1,2
    quiet = {
        "water": {"type": "chain", "n": 3, "ops": ["=", "="]},
        "fertilize": {"type": "sum", "n": 5, "lo": 35, "hi": 35},
        "weather": {"type": "set", "n": 3, "set": [5, 6, 7]},
    }
    config = {
        "spellbook": {"P1": CLASSIC, "P2": quiet},
        "maps": {"P1": MAPS["P1"], "P2": p2_map},
        "max_turns": 100,
    }
    spy = Spy(Gardener(0, random.Random(4)))
    told: list[Any] = []
    log: list[tuple[list[Any], str]] = []

    class Recorder(Spy):
        def act(self, request: Request, view: JSON) -> str:
            told.extend((e.kind, dict(e.data)) for e in spy.seen[len(told) :])
            answer = spy.act(request, view)
            log.append(([*told, view], answer))
            return answer

    play([Recorder(spy), Parrot("ST")], 0, config)
    return log


def test_gardener_decisions_do_not_depend_on_the_hidden_map() -> None:
    """Two matches whose P2 maps differ only on symbols P2 never casts: as long as what the
    gardener has been told is the same, it answers the same."""
    base = {"S": 1, "T": 2, "U": 0, "V": 3, "W": 4, "X": 5, "Y": 6, "Z": 7}
    swapped = dict(base, Y=7, Z=6)
    first, second = observed_run(base), observed_run(swapped)
    compared = 0
    for (told_a, answer_a), (told_b, answer_b) in zip(first, second, strict=False):
        if told_a != told_b:
            break
        assert answer_a == answer_b
        compared += 1
    assert compared >= 30


# --- deduction ---------------------------------------------------------------------------------


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


def test_fixing_a_pair_rules_it_out_elsewhere() -> None:
    deduction = RuneDeduction(OTHER)
    deduction.fix("S", 3)
    assert not any(deduction.possible(s, 3) for s in OTHER[1:])
    probs = deduction.probabilities()
    assert probs["S"][3] == 1
    assert probs["T"][0] == pytest.approx(1 / 7)
    deduction.exclude("S", 3)  # never emptied
    assert deduction.possible("S", 3)


def test_exclusions_concentrate_the_guess() -> None:
    deduction = RuneDeduction(OTHER)
    for ident in range(1, 7):
        deduction.exclude("T", ident)
    symbol, ident, p = deduction.best(skip=())  # type: ignore[misc]
    assert symbol == "T" and ident in (0, 7) and p > 0.45


def start(gardener: Gardener, seat: int = 0) -> None:
    gardener.observe(Event(to_seat(seat), "rune_map", {"symbols": RUNES, "map": MAPS["P1"]}, ""))
    gardener.observe(
        Event(
            PUBLIC,
            "match_start",
            {"alphabets": {"P1": RUNES, "P2": OTHER}, "spellbook": CLASSIC},
            "",
        )
    )


def public_turn(turn: int, p1: str, p2: str, declarations: list[dict[str, JSON]]) -> Event:
    data = {"turn": turn, "casts": {"P1": p1, "P2": p2}, "declarations": declarations}
    return Event(PUBLIC, "turn", data, "")


def test_learns_from_the_opponents_declarations() -> None:
    gardener = Gardener(0, random.Random(0))
    start(gardener)
    gardener.observe(public_turn(1, "A", "S", []))
    gardener.observe(
        public_turn(2, "B", "C", [{"seat": "P2", "symbol": "C", "correct": True, "identity": 5}])
    )
    gardener.observe(public_turn(3, "A", "T", []))
    gardener.observe(public_turn(4, "B", "E", [{"seat": "P2", "symbol": "E", "correct": False}]))
    gardener.observe(public_turn(5, "A", "U", []))
    gardener.observe(public_turn(6, "A", "U", []))
    deduction = gardener.deduction
    assert deduction is not None
    assert deduction.probabilities()["S"][5] == 1  # S, cast before the correct C, is 5
    assert not deduction.possible("T", MAPS["P1"]["E"])  # T is not what E is
    assert not deduction.possible("U", 0)  # cast twice in a row: not their stall


def test_ignores_moderator_secrets() -> None:
    gardener = Gardener(0, random.Random(0))
    start(gardener)
    gardener.observe(Event(MODERATORS, "setup", {"maps": MAPS, "weather": "sunny"}, ""))
    gardener.observe(Event(to_seat(1), "rune_map", {"symbols": OTHER, "map": MAPS["P2"]}, ""))
    gardener.observe(Event(MODERATORS, "turn", {"casts": {"P1": "A", "P2": "S"}}, ""))
    assert gardener.identity == MAPS["P1"]
    assert gardener.deduction is not None
    assert all(mask == 0xFF for mask in gardener.deduction.allowed.values())
    assert gardener.their_casts == []


class Referee:
    """Wraps a gardener and checks every answer against the truth the test knows."""

    def __init__(self, gardener: Gardener, truth: dict[str, int], mine: dict[str, int]) -> None:
        self.gardener = gardener
        self.truth = truth
        self.mine = mine
        self.declared: list[tuple[str, int]] = []

    def observe(self, event: Event) -> None:
        self.gardener.observe(event)

    def act(self, request: Request, view: JSON) -> str:
        answer = self.gardener.act(request, view)
        deduction = self.gardener.deduction
        assert deduction is not None
        # sound: every piece of evidence it holds agrees with the real map
        assert all(deduction.possible(s, i) for s, i in self.truth.items())
        if request.kind == "cast" and answer in self.truth:
            previous = self.mine[view["history"][-1]]
            found = {s for s, _ in view["found"][view["seat"]]}
            assert answer not in found, "re-declared a found pair"
            assert deduction.possible(answer, previous), "declared against its own evidence"
            assert (answer, previous) not in self.declared, "repeated a failed declaration"
            self.declared.append((answer, previous))
        return answer


@pytest.mark.parametrize("opponent", ["random", "gardener"])
def test_deduction_is_sound(opponent: str) -> None:
    declarations = 0
    for seed in range(4):
        state, events = GAME.new_match(Setup({}, 2, seed))
        truth = [dict(p.identity) for p in state.players]
        referee = Referee(Gardener(0, random.Random(seed)), truth[1], truth[0])
        other: Agent = AGENTS[opponent](1, random.Random(seed + 100))
        if isinstance(other, Gardener):
            other = Referee(other, truth[0], truth[1])
        play_match(GAME, state, events, [referee, other])
        declarations += len(referee.declared)
    assert declarations >= 20


# --- pieces of the gardener --------------------------------------------------------------------


def test_distinct_run_counts_stalls_and_stops_at_declarations() -> None:
    assert distinct_run([1, 2, 0, 3]) == 4
    assert distinct_run([3, 1, 2, 3]) == 3
    assert distinct_run([1, None, 2, 3]) == 2
    assert distinct_run([]) == 0


def test_weather_belief_reads_a_hyacinth() -> None:
    belief = WeatherBelief()
    belief.plant(1, "H")
    belief.update(1, 0, (Flower("H", 2), None, None), sliding=True)
    assert belief.probability(1) == 1  # +2: sunny
    belief.update(2, 0, (Flower("H", 1), None, None), sliding=True)
    assert belief.probability(2) == 1  # -1: the opponent made it chilly (X = 2)


def test_parse_pots_reads_reports_and_views() -> None:
    report = parse_pots(["C:5", None, "H:0"])
    view = parse_pots([{"flower": "C", "stage": 5, "bloom_at": 30}, None, None])
    assert report[0] == view[0] == Flower("C", 5)
    assert report[1] is None and report[2] == Flower("H", 0)


def test_declares_a_known_pair_when_charged() -> None:
    state, _ = GAME.new_match(Setup({"spellbook": CLASSIC, "maps": MAPS}, 2, 0))
    state, _ = GAME.resolve(state, {0: "A", 1: "A"})  # plant
    # the view of a seat holding a charge whose last cast was E (= 7)
    view = dict(GAME.view(state, 0), history=["E"], charge=1, blooms=1)
    gardener = Gardener(0, random.Random(0))
    start(gardener)
    gardener.deduction.fix("V", 7)  # type: ignore[union-attr]  # as if it had been revealed
    assert gardener.act(GAME.requests(state)[0], view) == "V"


# --- strength ----------------------------------------------------------------------------------


def test_gardener_beats_random() -> None:
    wins = 0
    for seed in range(30):
        seat = seed % 2
        names = ("gardener", "random") if seat == 0 else ("random", "gardener")
        config = {"advantage": ("P1", "P2")[seed // 2 % 2]}
        state = play(agents_for(names, seed), seed, config)
        wins += state.winner == seat
    assert wins >= 24  # 80%; the bench measures 200 matches
