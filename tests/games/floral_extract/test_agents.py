"""The AI players: always legal, told nothing secret, sound in deduction, robust to the order
messages arrive in, and stronger level by level."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import Any

import pytest

from games.floral_extract import AGENTS, DEFAULT_AGENT, GAME
from games.floral_extract.agents import (
    EasyAgent,
    Gardener,
    NormalGardener,
    distinct_tail,
    may_see,
)
from games.floral_extract.growing import WeatherBelief, parse_pots, planting_order
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
LEVELS = ("random", "easy", "normal", "hard")


def agents_for(names: tuple[str, str], seed: int) -> list[Agent]:
    return [AGENTS[name](seat, random.Random(seed * 2 + seat)) for seat, name in enumerate(names)]


def play(agents: list[Agent], seed: int, config: Mapping[str, JSON] | None = None) -> Any:
    state, events = GAME.new_match(Setup(dict(config or {}), 2, seed))
    return play_match(GAME, state, events, agents)


# --- the levels ------------------------------------------------------------------------------


def test_registry_offers_the_four_levels_with_normal_as_default() -> None:
    assert set(AGENTS) == set(LEVELS)
    assert DEFAULT_AGENT == "normal"
    assert AGENTS["normal"] is NormalGardener and AGENTS["hard"] is Gardener
    assert AGENTS["easy"] is EasyAgent and AGENTS["random"] is RandomAgent


def test_random_picks_only_offered_choices() -> None:
    state, _ = GAME.new_match(Setup({"spellbook": CLASSIC}, 2, 1))
    request = GAME.requests(state)[0]
    agent = RandomAgent(request.seat, random.Random(0))
    offered = {c.value for c in request.choices}
    assert {agent.act(request, GAME.view(state, request.seat)) for _ in range(50)} <= offered


# --- legality --------------------------------------------------------------------------------

CONFIGS: list[dict[str, JSON]] = [
    {"max_turns": 60},
    {"spellbook": CLASSIC, "advantage": "P2", "max_turns": 60},
    {"declaration_without_charge": "dud", "guess_cost_mode": "prose", "max_turns": 60},
    {"azalea_shrink_mode": "reset", "initial_weather": "random", "max_turns": 60},
]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("names", [("easy", "random"), ("normal", "hard"), ("hard", "easy")])
def test_every_answer_is_accepted(names: tuple[str, str], config: dict[str, JSON]) -> None:
    state = play(agents_for(names, 1), 1, config)  # play_match raises on a refused answer
    assert state.phase == "over"


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_survives_timeouts_and_late_creation(level: str) -> None:
    """Windows that close without its answer (the engine casts the default) and an agent made
    mid-match (it catches up from its view) still give accepted answers only."""
    rng = random.Random(3)
    state, events = GAME.new_match(Setup({"max_turns": 50}, 2, 3))
    gardener: Agent = AGENTS[level](0, random.Random(1))
    other: Agent = RandomAgent(1, random.Random(2))
    restarted = False
    while GAME.requests(state):
        if state.turns_completed == 25 and not restarted:
            gardener, restarted = AGENTS[level](0, random.Random(1)), True  # a host restart
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
    state, events = GAME.new_match(Setup({"max_turns": 30}, 2, 5))
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
    """The hard gardener (P1) against a Parrot; per decision, what it had been told so far
    (events' data and its view) and its answer."""
    # P2 casts S (1) and T (2) in turn: no sabotage (1+2), and its book never fires on 1,2,1,2
    quiet = {
        "water": {"type": "chain", "n": 3, "ops": ["=", "="]},
        "fertilize": {"type": "sum", "n": 5, "lo": 35, "hi": 35},
        "weather": {"type": "set", "n": 3, "set": [5, 6, 7]},
    }
    config = {
        "spellbook": {"P1": CLASSIC, "P2": quiet},
        "maps": {"P1": MAPS["P1"], "P2": p2_map},
        "max_turns": 60,
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


def test_decisions_do_not_depend_on_the_hidden_map() -> None:
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
    assert compared >= 20


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


def private_turn(turn: int, cast: str, spells: list[str] | None = None) -> Event:
    data = {
        "turn": turn,
        "cast": cast,
        "identity": MAPS["P1"].get(cast),
        "spells": spells or [],
        "pots": [None, None, None],
    }
    return Event(to_seat(0), "turn_private", data, "")


def test_learns_from_the_opponents_declarations() -> None:
    gardener = Gardener(0, random.Random(0))
    start(gardener)
    told = [
        public_turn(1, "A", "S", []),
        public_turn(2, "B", "C", [{"seat": "P2", "symbol": "C", "correct": True, "identity": 5}]),
        public_turn(3, "A", "T", []),
        public_turn(4, "B", "E", [{"seat": "P2", "symbol": "E", "correct": False}]),
        public_turn(5, "A", "U", []),
        public_turn(6, "A", "U", []),
    ]
    for turn, event in enumerate(told, start=1):
        gardener.observe(event)
        gardener.observe(private_turn(turn, event.data["casts"]["P1"]))
    belief = gardener.belief
    assert belief is not None
    assert belief.probability("S", 5) == 1  # S, cast before the correct C, is 5
    assert not belief.possible("T", MAPS["P1"]["E"])  # T is not what E is
    assert not belief.possible("U", 0)  # cast twice in a row: not their stall (V1)


def test_reads_results_in_turn_order_whatever_order_they_arrive_in() -> None:
    """A host may deliver a seat's own report (and its next prompt) before the public post of
    the same turn: the belief ends the same either way."""
    in_order, reversed_order = Gardener(0, random.Random(0)), Gardener(0, random.Random(0))
    start(in_order)
    start(reversed_order)
    casts = [("A", "S"), ("D", "T"), ("E", "T"), ("F", "U"), ("A", "V")]
    for turn, (mine, theirs) in enumerate(casts, start=1):
        public, private = public_turn(turn, mine, theirs, []), private_turn(turn, mine)
        in_order.observe(public)
        in_order.observe(private)
        reversed_order.observe(private)
        reversed_order.observe(public)
    a, b = in_order.belief, reversed_order.belief
    assert a is not None and b is not None
    assert a.allowed == b.allowed and a.weights == b.weights
    assert not a.possible("T", 0)


def test_ignores_moderator_secrets() -> None:
    gardener = Gardener(0, random.Random(0))
    start(gardener)
    gardener.observe(Event(MODERATORS, "setup", {"maps": MAPS, "weather": "sunny"}, ""))
    gardener.observe(Event(to_seat(1), "rune_map", {"symbols": OTHER, "map": MAPS["P2"]}, ""))
    gardener.observe(Event(MODERATORS, "turn", {"turn": 1, "casts": {"P1": "A", "P2": "S"}}, ""))
    assert gardener.identity == MAPS["P1"]
    assert gardener.belief is not None
    assert gardener.belief.allowed == [0xFF] * 8
    assert gardener.their_casts == {}


class Referee:
    """Wraps an agent and checks every declaration against the truth the test knows."""

    def __init__(self, agent: Agent, reader: Gardener, truth: dict[str, int]) -> None:
        self.agent = agent
        self.reader = reader  # the gardener whose belief the agent acts on
        self.truth = truth
        self.declared: list[tuple[str, int]] = []
        self.mine: dict[str, int] = {}

    def observe(self, event: Event) -> None:
        self.agent.observe(event)

    def act(self, request: Request, view: JSON) -> str:
        answer = self.agent.act(request, view)
        belief = self.reader.belief
        assert belief is not None
        # sound: every piece of evidence it holds agrees with the real map
        assert all(belief.possible(s, i) for s, i in self.truth.items())
        if request.kind == "cast" and answer in self.truth:
            previous = view["map"][view["history"][-1]]
            found = {s for s, _ in view["found"][view["seat"]]}
            assert answer not in found, "re-declared a found pair"
            assert belief.possible(answer, previous), "declared against its own evidence"
            assert (answer, previous) not in self.declared, "repeated a failed declaration"
            self.declared.append((answer, previous))
        return answer


def refereed(level: str, seat: int, seed: int, truth: dict[str, int]) -> Referee:
    agent = AGENTS[level](seat, random.Random(seed))
    reader = agent.reader if isinstance(agent, EasyAgent) else agent
    assert isinstance(reader, Gardener)
    return Referee(agent, reader, truth)


@pytest.mark.parametrize(("level", "opponent"), [("hard", "easy"), ("normal", "easy")])
def test_deduction_is_sound_and_never_repeats_a_declaration(level: str, opponent: str) -> None:
    declarations = [0, 0]
    for seed in range(2):
        state, events = GAME.new_match(Setup({"max_turns": 70}, 2, seed))
        truth = [dict(p.identity) for p in state.players]
        referees = [refereed(level, 0, seed, truth[1]), refereed(opponent, 1, seed, truth[0])]
        play_match(GAME, state, events, referees)
        declarations = [d + len(r.declared) for d, r in zip(declarations, referees, strict=True)]
    assert declarations[0] >= 6 and declarations[1] >= 1


# --- pieces ------------------------------------------------------------------------------------


def test_distinct_tail_counts_stalls_and_stops_at_declarations() -> None:
    assert distinct_tail([1, 2, 0, 3]) == [1, 2, 0, 3]
    assert distinct_tail([3, 1, 2, 3]) == [1, 2, 3]
    assert distinct_tail([1, None, 2, 3]) == [2, 3]
    assert distinct_tail([]) == []


def test_weather_belief_reads_a_hyacinth_and_tells_what_the_opponent_did() -> None:
    belief = WeatherBelief()
    belief.plant(1, "H")
    seen = belief.update(1, 0, (Flower("H", 2), None, None), sliding=True)
    assert belief.probability(1) == 1  # +2: sunny
    assert seen is not None and seen[False, 0] == 1 and seen[True, 0] == 1  # X = 1: no change
    seen = belief.update(2, 0, (Flower("H", 1), None, None), sliding=True)
    assert belief.probability(2) == 1  # -1: the opponent made it chilly (X = 2)
    assert seen is not None and seen[True, 0] == 1 and seen[False, 0] == 0


def test_parse_pots_reads_reports_and_views() -> None:
    report = parse_pots(["C:5", None, "H:0"])
    view = parse_pots([{"flower": "C", "stage": 5, "bloom_at": 30}, None, None])
    assert report[0] == view[0] == Flower("C", 5)
    assert report[1] is None and report[2] == Flower("H", 0)


def test_hard_plants_a_slow_flower_first_and_the_quick_ones_last() -> None:
    order = planting_order({1: 0.5, 2: 0.3, 4: 0.3, 3: 0.2})
    assert sorted(order) == sorted("ACHWX")
    assert order[0] in "WX" and order[1] == "C" and set(order[2:4]) == {"A", "H"}


def test_declares_a_known_pair_when_charged() -> None:
    state, _ = GAME.new_match(Setup({"spellbook": CLASSIC, "maps": MAPS}, 2, 0))
    state, _ = GAME.resolve(state, {0: "A", 1: "A"})  # plant
    # the view of a seat holding a charge whose last cast was E (= 7)
    view = dict(GAME.view(state, 0), history=["E"], charge=1, blooms=1, turn=1)
    gardener = Gardener(0, random.Random(0))
    start(gardener)
    gardener.belief.fix("V", 7)  # type: ignore[union-attr]  # as if it had been revealed
    assert gardener.act(GAME.requests(state)[0], view) == "V"


# --- strength ----------------------------------------------------------------------------------


def test_normal_beats_random() -> None:
    wins = 0
    for seed in range(12):
        seat = seed % 2
        names = ("normal", "random") if seat == 0 else ("random", "normal")
        state = play(agents_for(names, seed), seed)
        wins += state.winner == seat
    assert wins >= 11  # bench/ai.py measures hundreds of matches (docs/ai/floral-extract.md)


def test_hard_beats_normal() -> None:
    wins = 0
    for seed in range(8):
        seat = seed % 2
        names = ("hard", "normal") if seat == 0 else ("normal", "hard")
        state = play(agents_for(names, seed), seed)
        wins += state.winner == seat
    assert wins >= 6
