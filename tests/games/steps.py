"""What one step of a match costs the host, on the largest input a game accepts: the shared
measure of the conformance suite's step-time check and ``bench/step_time.py``.

A step is what the host does, in its event loop, for one window: ask for the requests (their
prompts and choices), submit each answer, resolve, render the events and dump the new state to
JSON text (the snapshot it stores). Each step is timed ``repeats`` times from the same state (an
engine is pure) and its median kept, so a busy machine's hiccup does not count.

Each game's largest inputs (``largest(name)``): its options at their maximums and the largest
set it accepts, with the most seats: ``LARGEST`` in its ``tests/games/<package>/conformance.py``
(Floral Extract's and Warlock's Brew's are here, as their other cases are in the suites).
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from games import registry
from games.moves import closes_early, window_moves
from games.play import tell
from games.protocol import JSON, Accepted, Move, Setup
from tests.games import cases

STEP_S = 0.050  # the longest a step may block the event loop


@dataclass(frozen=True)
class Largest:
    """One of a game's largest inputs: a config at the bounds and the seats."""

    label: str
    config: dict[str, JSON]
    seats: int


@dataclass(frozen=True)
class StepCost:
    """One window of a match: its kind, its cost (the median of the repeats), the most choices
    one of its requests offered and the size of the state it left, as JSON."""

    window: int
    kind: str
    seconds: float
    choices: int
    state_bytes: int


# The older games, whose cases live in the suites themselves.
_BOOKS = {
    "water": [{"type": "chain", "n": 5, "ops": ["<=", "<=", ">=", ">="]}] * 4,
    "fertilize": [{"type": "sum", "n": 5, "lo": 20, "hi": 24}] * 4,
    "weather": [{"type": "set", "n": 5, "set": [1, 2, 3, 4, 5]}] * 4,
}
KNOWN: dict[str, list[Largest]] = {
    "floral-extract": [
        Largest(
            "1000 turns, four conditions a spell",
            {"max_turns": 1000, "spellbook": _BOOKS, "allow_resubmit_after_valid": True},
            2,
        )
    ],
    "warlocks-brew": [
        Largest("8 types of 6 copies, 6 players, rebids", {"types": 8, "copies": 6}, 6),
        Largest(
            "8 types of 6 copies, utter darkness",
            {"types": 8, "copies": 6, "no_unique": "rebid", "utter_darkness": True},
            5,
        ),
    ],
}


def largest(name: str) -> list[Largest]:
    """The game's largest inputs."""
    if name in KNOWN:
        return KNOWN[name]
    return list(cases.declared(name, "LARGEST"))


def step_costs(
    name: str, case: Largest, seed: int, windows: int, repeats: int = 3
) -> Iterator[StepCost]:
    """The first ``windows`` windows of a match of ``case``, each timed ``repeats`` times; the
    seats are the game's default AI (it plays to grow its board, as people do)."""
    info = registry.get(name)
    game = info.game
    config = game.parse_config(case.config, case.seats)
    names = [f"P{seat + 1}" for seat in range(case.seats)]
    state, events = game.new_match(Setup(config, case.seats, seed, names))
    agents = [
        info.agents[info.default_agent](seat, random.Random(seed + seat))
        for seat in range(case.seats)
    ]
    for window in range(windows):
        tell(agents, events)
        requests = game.requests(state)
        if not requests:
            return
        answers = _answers(game, state, requests, agents)
        timings = []
        for _ in range(repeats):
            started = time.perf_counter()
            after, events, size = _step(game, state, answers)
            timings.append(time.perf_counter() - started)
        most = max(len(request.choices) for request in requests)
        yield StepCost(window, requests[0].kind, statistics.median(timings), most, size)
        state = after


def _answers(game: Any, state: Any, requests: Any, agents: Any) -> list[tuple[int, str]]:
    """The window's answers in arrival order, up to the one that closes it."""
    answers: list[tuple[int, str]] = []
    moves: dict[int, Move] = {}
    for request in requests:
        if request.silent:
            continue
        raw = agents[request.seat].act(request, game.view(state, request.seat))
        verdict = game.submit(state, request.seat, raw)
        assert isinstance(verdict, Accepted), (request.kind, raw, verdict)
        answers.append((request.seat, raw))
        moves[request.seat] = verdict.move
        if closes_early(game, state, request, moves):
            break
    return answers


def _step(game: Any, state: Any, answers: list[tuple[int, str]]) -> tuple[Any, Any, int]:
    """One window as the host runs it: requests and their prompts, each answer submitted, the
    resolution, its events' texts and the new state's snapshot."""
    requests = game.requests(state)
    for request in requests:
        assert request.prompt is not None and request.choices is not None
    moves: dict[int, Move] = {}
    for seat, raw in answers:
        verdict = game.submit(state, seat, raw)
        assert isinstance(verdict, Accepted)
        moves[seat] = verdict.move
    after, events = game.resolve(state, window_moves(requests, moves))
    for event in events:
        assert event.text is not None
    return after, events, len(json.dumps(game.dump(after)))
