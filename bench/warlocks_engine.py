"""Warlock's Brew engine speed and AI strength; prints JSON.

Plays matches straight through the engine (no host, no clock): one ``bidder`` against random
players, the bidder's seat rotating with the match seed. Figures: windows resolved per second,
the average match length, how the matches ended, and the bidder's share of the wins (a shared
victory counts as a fraction) against the fair share.

Usage: ``python bench/warlocks_engine.py [MATCHES] [SEATS] [VARIANT...]``
(defaults 200 and 3; variants are boolean option names such as ``utter_darkness``).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.protocol import Accepted, Agent, Setup, derive_rng
from games.warlocks_brew import AGENTS, GAME


def play(seed: int, seats: int, config: dict[str, Any]) -> tuple[float, int, str]:
    """One match: the bidder's share of the win, the windows it took and how it ended."""
    bidder = seed % seats
    agents: list[Agent] = [
        AGENTS["bidder" if seat == bidder else "random"](seat, derive_rng(seed, "agent", seat))
        for seat in range(seats)
    ]
    state, events = GAME.new_match(Setup(config, seats, seed))
    windows = 0
    while True:
        for event in events:
            for seat, agent in enumerate(agents):
                if event.audience.kind == "public" or event.audience.seat == seat:
                    agent.observe(event)
        outcome = GAME.outcome(state)
        if outcome is not None:
            share = 1 / len(outcome.winners) if bidder in outcome.winners else 0.0
            return share, windows, outcome.reason
        moves = {}
        for request in GAME.requests(state):
            raw = agents[request.seat].act(request, GAME.view(state, request.seat))
            verdict = GAME.submit(state, request.seat, raw)
            assert isinstance(verdict, Accepted), verdict
            moves[request.seat] = verdict.move
        state, events = GAME.resolve(state, moves)
        windows += 1


def main() -> None:
    matches = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    config = {name: True for name in sys.argv[3:]}
    started = time.perf_counter()
    results = [play(seed, seats, config) for seed in range(matches)]
    elapsed = time.perf_counter() - started
    windows = sum(r[1] for r in results)
    print(
        json.dumps(
            {
                "matches": matches,
                "seats": seats,
                "variants": sorted(config),
                "windows_per_second": round(windows / elapsed),
                "average_windows": round(windows / matches, 2),
                "endings": dict(Counter(r[2] for r in results)),
                "bidder_win_share": round(sum(r[0] for r in results) / matches, 3),
                "fair_share": round(1 / seats, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
