"""Playing a whole match straight through an engine, with computer players: no host, no clock.

The AI benchmarks, the agents' tests and the conformance suite drive matches this way. A window
follows its requests' close rules as the host does: the seats answer in a stable order (seat
order, or one drawn by ``order_rng``), and a ``first`` or ``ready`` window closes at the answer
that closes it, the seats not yet heard from getting the timeout default (None); an ``each``
window resolves its first answer alone (``games.moves.window_moves``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games.moves import closes_early, window_moves
from games.protocol import Accepted, Agent, Event, Game, Move


def tell(agents: Sequence[Agent], events: Sequence[Event]) -> None:
    """Each agent observes the events its seat may see: public ones and its own."""
    for event in events:
        for seat, agent in enumerate(agents):
            if event.audience.reaches(seat):
                agent.observe(event)


def play_match(
    game: Game[Any],
    state: Any,
    events: Sequence[Event],
    agents: Sequence[Agent],
    order_rng: random.Random | None = None,
) -> Any:
    """Drive a match to its end, each agent told only what its seat may see and answering its
    own requests; returns the final state. An answer the engine refuses is a bug in the agent:
    ValueError says which."""
    while True:
        tell(agents, events)
        requests = game.requests(state)
        if not requests:
            return state
        if order_rng is not None:
            requests = order_rng.sample(requests, len(requests))
        moves: dict[int, Move | None] = {}
        for request in requests:
            if request.silent:  # a pause nobody answers
                continue
            answer = agents[request.seat].act(request, game.view(state, request.seat))
            verdict = game.submit(state, request.seat, answer)
            if not isinstance(verdict, Accepted):
                raise ValueError(f"seat {request.seat} answered {answer!r}: {verdict}")
            moves[request.seat] = verdict.move
            if closes_early(game, state, request, moves):
                break
        state, events = game.resolve(state, window_moves(requests, moves))
