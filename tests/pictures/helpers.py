"""Whole matches between a game's built-in agents, recorded as the host stores them: one state
snapshot per step (step 0, the start, first) and the outcome."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.moves import closes_early
from games.play import tell
from games.protocol import JSON, Accepted, Move, Setup
from games.registry import GameInfo


@dataclass(frozen=True)
class Recorded:
    names: tuple[str, ...]
    outcome: JSON
    snapshots: list[JSON]
    states: list[Any]


def play_recorded(
    info: GameInfo, seats: int, seed: int, config: Mapping[str, JSON] | None = None
) -> Recorded:
    game = info.game
    names = tuple(["Ada", "Basil", "Clover", "Dahlia", "Elm", "Fern"][:seats])
    parsed = game.parse_config(dict(config or {}), seats)
    state, events = game.new_match(Setup(parsed, seats, seed, names))
    agents = [
        info.agents[info.default_agent](s, random.Random(seed * 31 + s)) for s in range(seats)
    ]
    states = [state]
    while True:
        tell(agents, events)
        requests = game.requests(state)
        if not requests:
            break
        moves: dict[int, Move | None] = {}
        for request in requests:
            answer = agents[request.seat].act(request, game.view(state, request.seat))
            verdict = game.submit(state, request.seat, answer)
            assert isinstance(verdict, Accepted), verdict
            moves[request.seat] = verdict.move
            if closes_early(game, state, request, moves):
                break
        moves.update({r.seat: None for r in requests if r.seat not in moves})
        state, events = game.resolve(state, moves)
        states.append(state)
    outcome = game.outcome(state)
    stored: JSON = (
        None
        if outcome is None
        else {"winners": list(outcome.winners), "reason": outcome.reason, "detail": outcome.detail}
    )
    return Recorded(names, stored, [game.dump(s) for s in states], states)
