"""What one step of a match costs the host, on the largest input a game accepts: the shared
measure of the conformance suite's step check (``test_conformance.py``) and
``bench/step_time.py``.

A step is what the host does in its event loop for one window: submit each answer, resolve,
render the events, look at the public view and the outcome, dump the new state to JSON text
(the snapshot it stores) and ask for the next window's requests (their prompts and choices).
It is timed in CPU time of this thread (``time.thread_time``: another process's load does not
count); a step that takes more than half the limit is timed twice more from the same state (an
engine is pure) and the cheapest kept, so a garbage collection that happens to fall in one run
does not count either.

The computer players' decisions are timed too, as the host runs them in its event loop
(``simulate``, ``play``, practice): each seat's reading of the window's events and its answer.
The seats play the game's real AI levels (``Largest.agents``), so the largest inputs check their
searches as well (Red Phoenix's odds took 47 s a decision on a set of unlike result cards). A
decision is timed once (a player is not pure: one that reads a match's whole history cannot be
replayed cheaply), with the garbage collector held off (a collection of the whole process's
objects that happens to fall in it is not the player's).

Each game's largest inputs (``largest(name)``): its options at their maximums and the largest
set it accepts, with the most seats: ``LARGEST`` in its ``tests/games/<package>/conformance.py``
(Floral Extract's and Warlock's Brew's are here, as their other cases are in the suites).
"""

from __future__ import annotations

import gc
import json
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from games import registry
from games.floral_extract.config import MAX_TURNS
from games.floral_extract.spellbook import MAX_CONDITIONS
from games.moves import closes_early, window_moves
from games.protocol import JSON, Accepted, Move, Request, Setup
from tests.games import cases

STEP_S = 0.050  # the longest a step may block the event loop
STATE_BYTES = 100_000  # the most a step's state may take as stored JSON


LEVELS = ("easy", "normal", "hard")


@dataclass(frozen=True)
class Largest:
    """One of a game's largest inputs: a config at the bounds and the seats. ``agents``: the
    levels that play it, seat by seat (over again when there are more seats: every level a
    game has, unless it does not grow a board as people do); ``windows``: how many windows to
    play (None: the whole match)."""

    label: str
    config: dict[str, JSON]
    seats: int
    agents: tuple[str, ...] = LEVELS
    windows: int | None = None

    def level(self, seat: int) -> str:
        return self.agents[seat % len(self.agents)]


@dataclass(frozen=True)
class StepCost:
    """One window of a match: its requests, its cost (the cheapest of the repeats, in CPU
    seconds), the size of the state it left, as stored JSON, and its slowest decision (a
    seat's reading of the events before the window and its answer, in CPU seconds)."""

    window: int
    requests: tuple[Request, ...]
    seconds: float
    state_bytes: int
    decision_seconds: float = 0.0

    @property
    def kind(self) -> str:
        return "start" if self.window < 0 else self.requests[0].kind


# The older games, whose cases live in the suites themselves.
_OPS = ("<", "<=", "=", ">=", ">")
_BOOK = {  # every spell with the most conditions, each on the most runes
    "water": [{"type": "chain", "n": 5, "ops": [_OPS[(k + j) % 5] for j in range(4)]}
              for k in range(MAX_CONDITIONS)],
    "fertilize": [{"type": "sum", "n": 5, "lo": 10 + k, "hi": 20 + k}
                  for k in range(MAX_CONDITIONS)],
    "weather": [{"type": "set", "n": 5, "set": [(k + j) % 8 for j in range(5)]}
                for k in range(MAX_CONDITIONS)],
}  # fmt: skip
_OTHER_BOOK = {spell: conditions[::-1] for spell, conditions in _BOOK.items()}
KNOWN: dict[str, list[Largest]] = {
    "floral-extract": [
        Largest(
            "1000 turns, a book each of 12 conditions a spell",
            {
                "max_turns": MAX_TURNS,
                "spellbook": {"P1": _BOOK, "P2": _OTHER_BOOK},
                "allow_resubmit_after_valid": True,
            },
            2,
            agents=("hard", "normal"),
        ),
        Largest("1000 turns, a random book", {"max_turns": MAX_TURNS}, 2, agents=("easy", "hard")),
    ],
    "warlocks-brew": [
        Largest("8 types of 6 copies, 6 players", {"types": 8, "copies": 6}, 6),
        Largest(
            "8 types of 6 copies, rebids, utter darkness",
            {"types": 8, "copies": 6, "no_unique": "rebid", "utter_darkness": True},
            5,
        ),
        Largest(
            "8 types of 6 copies, 6 players, all six effects, deals",
            {"types": 8, "copies": 6, "magic_infused": 6, "deal_window": 600},
            6,
            agents=("random",),  # it deals the most
        ),
        Largest(
            "8 types of 6 copies, utter darkness, all six effects, deals",
            {
                "types": 8,
                "copies": 6,
                "magic_infused": 6,
                "deal_window": 600,
                "utter_darkness": True,
            },
            6,
            agents=("random",),
            windows=400,
        ),
    ],
}


def largest(name: str) -> list[Largest]:
    """The game's largest inputs."""
    if name in KNOWN:
        return KNOWN[name]
    return list(cases.declared(name, "LARGEST"))


def step_costs(name: str, case: Largest, seed: int) -> Iterator[StepCost]:
    """The start of a match of ``case`` (window -1: the config read, the match made, its first
    snapshot and requests), then its windows (``case.windows`` of them, or all), each timed:
    once, and when that took more than half of ``STEP_S``, twice more, the cheapest kept."""
    info = registry.get(name)
    game = info.game
    seconds, (state, events, requests, size) = _timed_start(game, case, seed)
    if seconds > STEP_S / 2:
        seconds = min(seconds, *(_timed_start(game, case, seed)[0] for _ in range(2)))
    yield StepCost(-1, tuple(requests), seconds, size)
    agents = [
        info.agents[case.level(seat)](seat, random.Random(seed + seat))
        for seat in range(case.seats)
    ]
    window = 0
    while requests and (case.windows is None or window < case.windows):
        thinking = _told(agents, events)
        answers = _answers(game, state, requests, agents, thinking)
        seconds, (after, events, following, size) = _timed(game, state, requests, answers)
        if seconds > STEP_S / 2:
            seconds = min(seconds, *(_timed(game, state, requests, answers)[0] for _ in range(2)))
        yield StepCost(window, tuple(requests), seconds, size, max(thinking))
        state, requests = after, following
        window += 1


def _timed_start(game: Any, case: Largest, seed: int) -> tuple[float, tuple[Any, Any, Any, int]]:
    started = time.thread_time()
    config = game.parse_config(case.config, case.seats)
    names = [f"P{seat + 1}" for seat in range(case.seats)]
    state, events = game.new_match(Setup(config, case.seats, seed, names))
    size = len(json.dumps(game.dump(state)))
    requests = game.requests(state)
    return time.thread_time() - started, (state, events, requests, size)


def _told(agents: list[Any], events: Any) -> list[float]:
    """Each seat told the events it may see (as ``games.play.tell`` does): the CPU seconds it
    took."""
    took = []
    for seat, agent in enumerate(agents):
        with _collector_off():
            started = time.thread_time()
            for event in events:
                if event.audience.reaches(seat):
                    agent.observe(event)
            took.append(time.thread_time() - started)
    return took


@contextmanager
def _collector_off() -> Iterator[None]:
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _answers(
    game: Any, state: Any, requests: Any, agents: Any, thinking: list[float]
) -> list[tuple[int, str]]:
    """The window's answers in arrival order, up to the one that closes it (each seat's CPU
    seconds added to ``thinking``)."""
    answers: list[tuple[int, str]] = []
    moves: dict[int, Move] = {}
    for request in requests:
        if request.silent:
            continue
        view = game.view(state, request.seat)
        with _collector_off():
            started = time.thread_time()
            raw = agents[request.seat].act(request, view)
            thinking[request.seat] += time.thread_time() - started
        verdict = game.submit(state, request.seat, raw)
        assert isinstance(verdict, Accepted), (request.kind, raw, verdict)
        answers.append((request.seat, raw))
        moves[request.seat] = verdict.move
        if closes_early(game, state, request, moves):
            break
    return answers


def _timed(
    game: Any, state: Any, requests: list[Request], answers: list[tuple[int, str]]
) -> tuple[float, tuple[Any, Any, list[Request], int]]:
    started = time.thread_time()
    done = _step(game, state, requests, answers)
    return time.thread_time() - started, done


def _step(
    game: Any, state: Any, requests: list[Request], answers: list[tuple[int, str]]
) -> tuple[Any, Any, list[Request], int]:
    """One window as the host runs it once its requests are out: each answer submitted, the
    resolution, its events' texts, the public view and outcome, the new state's snapshot and
    the next window's requests with their prompts."""
    moves: dict[int, Move] = {}
    for seat, raw in answers:
        verdict = game.submit(state, seat, raw)
        assert isinstance(verdict, Accepted)
        moves[seat] = verdict.move
    after, events = game.resolve(state, window_moves(requests, moves))
    assert all(event.text is not None for event in events)
    game.view(after, None)
    game.outcome(after)
    size = len(json.dumps(game.dump(after)))
    return after, events, game.requests(after), size
