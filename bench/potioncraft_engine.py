"""Potioncraft engine speed, the AI's decision time and a live match's memory; prints JSON.

Plays matches straight through the engine (no host, no clock): one ``hard`` AI against random
players, its seat rotating with the match seed, with the default config. Figures, over every
window of every match, in ms (p50/p99/max): ``resolve`` (goal: p99 <= 1 ms), ``requests`` (the
prompts with every offered answer, the legal crafts included) and the AI's decision
(``act``, goal: p99 <= 50 ms); the memory of a live match (goal <= 1 MB): the largest dumped state
as JSON bytes, and the largest tracemalloc size of a state loaded from it (every 25th window);
windows per match, endings and the AI's share of the wins.

Usage: ``python bench/potioncraft_engine.py [MATCHES] [SEATS]`` (defaults 200 and 4).
"""

from __future__ import annotations

import json
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.potioncraft import AGENTS, GAME
from games.protocol import Accepted, Agent, Setup, derive_rng

STRONG = "hard"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def state_bytes(state: Any) -> tuple[int, int]:
    """The dumped state's JSON size, and what a state loaded from it holds (tracemalloc)."""
    text = json.dumps(GAME.dump(state))
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    loaded = GAME.load(json.loads(text))
    size = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del loaded
    return len(text.encode()), size


def play(seed: int, seats: int, stats: dict[str, list[float]]) -> tuple[float, int, str]:
    strong = seed % seats
    agents: list[Agent] = [
        AGENTS[STRONG if seat == strong else "random"](seat, derive_rng(seed, "agent", seat))
        for seat in range(seats)
    ]
    state, events = GAME.new_match(Setup(GAME.parse_config({}, seats), seats, seed))
    windows = 0
    while True:
        for event in events:
            for seat, agent in enumerate(agents):
                if event.audience.reaches(seat):
                    agent.observe(event)
        outcome = GAME.outcome(state)
        if outcome is not None:
            share = 1 / len(outcome.winners) if strong in outcome.winners else 0.0
            return share, windows, outcome.reason
        if windows % 25 == 0:
            dumped, held = state_bytes(state)
            stats["dump"].append(dumped)
            stats["held"].append(held)
        moves = {}
        started = time.perf_counter()
        requests = GAME.requests(state)
        stats["requests"].append((time.perf_counter() - started) * 1000)
        for request in requests:
            view = GAME.view(state, request.seat)
            started = time.perf_counter()
            raw = agents[request.seat].act(request, view)
            if request.seat == strong:
                stats["act"].append((time.perf_counter() - started) * 1000)
            verdict = GAME.submit(state, request.seat, raw)
            assert isinstance(verdict, Accepted), verdict
            moves[request.seat] = verdict.move
        started = time.perf_counter()
        state, events = GAME.resolve(state, moves)
        stats["resolve"].append((time.perf_counter() - started) * 1000)
        windows += 1


def main() -> None:
    matches = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seats = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    stats: dict[str, list[float]] = {
        "resolve": [],
        "requests": [],
        "act": [],
        "dump": [],
        "held": [],
    }
    started = time.perf_counter()
    results = [play(seed, seats, stats) for seed in range(matches)]
    elapsed = time.perf_counter() - started
    windows = [r[1] for r in results]

    def ms(key: str) -> dict[str, float]:
        values = stats[key]
        return {
            "p50": round(percentile(values, 0.5), 3),
            "p99": round(percentile(values, 0.99), 3),
            "max": round(max(values), 3),
        }

    print(
        json.dumps(
            {
                "matches": matches,
                "seats": seats,
                "resolve_ms": ms("resolve"),
                "requests_ms": ms("requests"),
                "ai_act_ms": ms("act"),
                "state_json_bytes_max": int(max(stats["dump"])),
                "state_tracemalloc_bytes_max": int(max(stats["held"])),
                "windows_per_match": {
                    "mean": round(sum(windows) / matches, 1),
                    "max": max(windows),
                },
                "endings": dict(Counter(r[2] for r in results)),
                "ai_win_share": round(sum(r[0] for r in results) / matches, 3),
                "fair_share": round(1 / seats, 3),
                "seconds": round(elapsed, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
