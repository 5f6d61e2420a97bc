"""Floral Extract AI strength: the gardener against the random player; prints JSON.

Matches are played straight through the engine (no host, no clock) with the default config
(``max_turns`` 100, a random spellbook drawn from the match seed). Match ``i`` uses seed ``i``;
the gardener's seat alternates every match and the advantage every two, so each of the four
(seat, advantage) pairings gets a quarter of the matches.

Usage: ``python bench/ai.py [MATCHES]`` (default 200).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.floral_extract import AGENTS, GAME
from games.floral_extract.agents import play_match
from games.protocol import Agent, Setup, derive_rng


def play(seed: int) -> tuple[bool, int]:
    """One match; whether the gardener won, and how many turns it lasted."""
    gardener_seat = seed % 2
    advantage = ("P1", "P2")[seed // 2 % 2]
    state, events = GAME.new_match(Setup({"advantage": advantage}, 2, seed))
    agents: list[Agent] = [
        AGENTS["gardener" if seat == gardener_seat else "random"](
            seat, derive_rng(seed, "agent", seat)
        )
        for seat in range(2)
    ]
    state = play_match(GAME, state, events, agents)
    return state.winner == gardener_seat, state.turns_completed


def main() -> None:
    matches = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    start = time.perf_counter()
    results = [play(seed) for seed in range(matches)]
    wins = sum(won for won, _ in results)
    print(
        json.dumps(
            {
                "matches": matches,
                "gardener_wins": wins,
                "random_wins": matches - wins,
                "win_rate": round(wins / matches, 3),
                "mean_turns": round(sum(turns for _, turns in results) / matches, 1),
                "seconds": round(time.perf_counter() - start, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
