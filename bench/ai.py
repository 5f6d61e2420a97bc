"""AI strength of any registered game: one AI level against another; prints JSON.

Matches are played straight through the engine (``games.play``: no host, no clock) with the
game's default config (or ``--options``). Match ``i`` uses seed ``i``, and the measured agent's
seat rotates with it, so every seat gets its share; every other seat plays ``--against``. A
shared victory counts as a fraction of a win for each winner. The fair share is 1 / seats.

``--against`` is an AI level of the game (``random``, ``easy``, ``normal``, ``hard``, …) or
``previous``: the game's AI as it was before its last rework, kept frozen in
``bench/baselines/<package>.py`` (its ``AGENT`` factory) only to measure progress against.

Besides the win share: how the matches ended (``reasons``: the outcome's reason without its
parenthesised detail, counted), the
share that ended with every score at zero where the game has scores (``pictures.scores``), and
the measured agent's decision time (milliseconds: mean, p99, max).

Usage: ``python bench/ai.py [GAME] [--matches N] [--seats N] [--level L] [--against A]``;
default floral-extract, 200 matches, the game's default AI against ``random``, and the game's
smallest table for a two-player game, else 4 seats, within the game's limits.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import registry
from games.play import play_match
from games.protocol import JSON, Agent, Event, Request, Setup, derive_rng
from games.registry import AgentFactory, GameInfo

BASELINES = Path(__file__).resolve().parent / "baselines"


class Timed:
    """An agent whose every decision is timed."""

    def __init__(self, agent: Agent, times: list[float]) -> None:
        self.agent, self.times = agent, times

    def observe(self, event: Event) -> None:
        self.agent.observe(event)

    def act(self, request: Request, view: JSON) -> str:
        start = time.perf_counter()
        try:
            return self.agent.act(request, view)
        finally:
            self.times.append(time.perf_counter() - start)


@dataclass
class Tally:
    wins: float = 0.0
    turns: list[int] = field(default_factory=list)
    reasons: Counter[str] = field(default_factory=Counter)
    scoreless: int = 0
    times: list[float] = field(default_factory=list)


def previous(info: GameInfo) -> AgentFactory:
    """The frozen previous AI of ``info``'s game (``bench/baselines/<package>.py``)."""
    package = type(info.game).__module__.split(".")[1]
    path = BASELINES / f"{package}.py"
    if not path.exists():
        raise SystemExit(f"no previous AI for {info.name}: {path} is missing")
    spec = importlib.util.spec_from_file_location(f"baselines.{package}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being made
    spec.loader.exec_module(module)
    factory: AgentFactory = module.AGENT
    return factory


def factory_of(info: GameInfo, name: str) -> AgentFactory:
    if name == "previous":
        return previous(info)
    if name not in info.agents:
        raise SystemExit(f"{info.name} has no AI {name!r}; it has: {', '.join(info.agents)}")
    return info.agents[name]


def play(
    info: GameInfo,
    config: dict[str, JSON],
    seed: int,
    seats: int,
    measured: AgentFactory,
    against: AgentFactory,
    tally: Tally,
) -> None:
    """One match, its result added to ``tally``."""
    game, strong = info.game, seed % seats
    state, events = game.new_match(Setup(config, seats, seed))
    agents: list[Agent] = [
        Timed(measured(seat, derive_rng(seed, "agent", seat)), tally.times)
        if seat == strong
        else against(seat, derive_rng(seed, "agent", seat))
        for seat in range(seats)
    ]
    state = play_match(game, state, events, agents, derive_rng(seed, "order"))
    outcome = game.outcome(state)
    assert outcome is not None, "play_match returns a finished match"
    tally.wins += 1 / len(outcome.winners) if strong in outcome.winners else 0.0
    tally.turns.append(int(game.view(state, None)["turn"]))
    tally.reasons[re.sub(r"\s*\(.*?\)", "", outcome.reason)] += 1  # "(ahead after turn 30)"
    scores: Callable[[Any], Any] | None = info.pictures.scores if info.pictures else None
    if scores is not None and not any(scores(state)):
        tally.scoreless += 1


def default_seats(info: GameInfo) -> int:
    game = info.game
    return game.min_seats if game.max_seats == 2 else max(game.min_seats, min(4, game.max_seats))


def milliseconds(seconds: float) -> float:
    return round(seconds * 1000, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?", default="floral-extract")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seats", type=int)
    parser.add_argument("--level", help="the measured AI (default: the game's default)")
    parser.add_argument("--against", default="random", help="an AI level, or 'previous'")
    parser.add_argument("--options", default="{}", help="the game's config, as JSON")
    args = parser.parse_args()
    info = registry.get(args.game)
    seats = args.seats or default_seats(info)
    level = args.level or info.default_agent
    config = info.game.parse_config(json.loads(args.options), seats)
    tally = Tally()
    start = time.perf_counter()
    measured, against = factory_of(info, level), factory_of(info, args.against)
    for seed in range(args.matches):
        play(info, config, seed, seats, measured, against, tally)
    times = sorted(tally.times) or [0.0]
    print(
        json.dumps(
            {
                "game": info.name,
                "matches": args.matches,
                "seats": seats,
                "agent": level,
                "against": args.against,
                "agent_wins": round(tally.wins, 2),
                "win_share": round(tally.wins / args.matches, 3),
                "fair_share": round(1 / seats, 3),
                "mean_turns": round(statistics.fmean(tally.turns), 1),
                "max_turns": max(tally.turns),
                "reasons": dict(tally.reasons.most_common()),
                "scoreless_share": round(tally.scoreless / args.matches, 3),
                "decision_ms": {
                    "mean": milliseconds(statistics.fmean(times)),
                    "p99": milliseconds(times[int(0.99 * (len(times) - 1))]),
                    "max": milliseconds(times[-1]),
                },
                "seconds": round(time.perf_counter() - start, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
