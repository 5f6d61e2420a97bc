"""A stored match's states, derived from its move log.

The store keeps a step's snapshot only at checkpoints and at the latest step
(``bot.store.SNAPSHOT_EVERY``); every other state is the engine's, replayed: from the start
(``replay``, what the audit and the end card's chart use) or from the nearest kept snapshot
(``state_at``, a few steps at most). Engines are pure, so a replay is the match as it was
played; the audit proves it against the snapshots kept. CPU work: call these off the event
loop (``asyncio.to_thread``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from bot.store import MatchRecord, StepRecord
from games.protocol import JSON, Event, Game, Setup


def advance(game: Game[Any], state: Any, step: StepRecord) -> tuple[Any, list[Event]]:
    """The state after ``step`` from the state before it, and the step's events."""
    if step.kind == "resolve":
        return game.resolve(state, step.moves or {})
    if step.kind == "end":
        return game.end(state, "host")
    if step.kind == "leave":
        (seat,) = step.moves or {}  # the one seat that left
        return game.leave(state, seat)
    return state, []


def replay(
    game: Game[Any], record: MatchRecord, steps: Sequence[StepRecord]
) -> Iterator[tuple[StepRecord, Any, list[Event]]]:
    """The state and events after each logged step, recomputed by the engine from the start
    (config, seats, seed and names: the match's setup)."""
    setup = Setup(record.config, len(record.players), record.seed, record.names)
    state, events = game.new_match(setup)
    for step in steps:
        if step.kind != "start":
            state, events = advance(game, state, step)
        yield step, state, events


def dumped(game: Game[Any], state: Any) -> JSON:
    """The state as the store keeps it: the engine's dump, as JSON reads it back."""
    snapshot: JSON = json.loads(json.dumps(game.dump(state)))
    return snapshot


def snapshots(game: Game[Any], record: MatchRecord, steps: Sequence[StepRecord]) -> list[JSON]:
    """Every step's snapshot in order, as stored where kept and replayed where not."""
    return [
        step.snapshot if step.snapshot is not None else dumped(game, state)
        for step, state, _ in replay(game, record, steps)
    ]


def snapshot_at(game: Game[Any], steps: Sequence[StepRecord], number: int) -> JSON:
    """The snapshot after step ``number``: as kept, or the nearest kept snapshot before it
    moved on by the steps between; None when the log has no such step or nothing kept before."""
    before = [step for step in steps if step.step <= number]
    if not before or before[-1].step != number:
        return None
    if before[-1].snapshot is not None:
        return before[-1].snapshot
    kept = [index for index, step in enumerate(before) if step.snapshot is not None]
    if not kept:
        return None
    state = game.load(before[kept[-1]].snapshot)
    for step in before[kept[-1] + 1 :]:
        state, _ = advance(game, state, step)
    return dumped(game, state)
