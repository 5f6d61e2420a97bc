"""A step's copy of the game data (``engine.copy_g``, written for the state's shape): the same
data as a JSON round trip, keys in the same order, sharing no list or dict with its source (a
step never changes the state it was given), over whole matches at 2 to 4 seats."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.flaky_flasks import AGENTS, GAME
from games.flaky_flasks.engine import copy_g
from games.protocol import Accepted, Setup


def _containers(value: Any) -> set[int]:
    if isinstance(value, dict):
        return {id(value), *(i for item in value.values() for i in _containers(item))}
    if isinstance(value, list):
        return {id(value), *(i for item in value for i in _containers(item))}
    return set()


@pytest.mark.parametrize(("seats", "bargain"), [(2, False), (4, True)])
def test_copy_g_is_a_json_round_trip_sharing_nothing(seats: int, bargain: bool) -> None:
    config = GAME.parse_config({"bargain": bargain}, seats)
    names = tuple(f"P{seat + 1}" for seat in range(seats))
    state, _ = GAME.new_match(Setup(config, seats, 7 + seats, names))
    agents = [AGENTS["random"](seat, random.Random(seat)) for seat in range(seats)]
    copied = 0
    while requests := GAME.requests(state):
        g = state["g"]
        copy = copy_g(g)
        assert json.dumps(copy) == json.dumps(g)  # the same data, keys in the same order
        assert copy == json.loads(json.dumps(g))  # lists stay lists, keys strings
        assert not _containers(copy) & _containers(g)
        copied += 1
        moves: dict[int, Any] = {}
        for request in requests:
            raw = agents[request.seat].act(request, GAME.view(state, request.seat))
            verdict = GAME.submit(state, request.seat, raw)
            moves[request.seat] = verdict.move if isinstance(verdict, Accepted) else None
        state, _ = GAME.resolve(state, moves)
    assert copied > 50 and "dealt" in state["g"]  # whole matches, every pile dealt
