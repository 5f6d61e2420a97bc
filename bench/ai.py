"""AI strength of any registered game: its default (strongest) agent against ``random`` players;
prints JSON.

Matches are played straight through the engine (``games.play``: no host, no clock) with the
game's default config. Match ``i`` uses seed ``i``, and the strong agent's seat rotates with it,
so every seat gets its share. A shared victory counts as a fraction of a win for each winner.
The fair share is 1 / seats.

Usage: ``python bench/ai.py [GAME] [MATCHES] [SEATS]``; default floral-extract, 200 matches,
and the game's smallest table for a two-player game, else 4 seats (one strong agent against
three random ones), within the game's limits.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import registry
from games.play import play_match
from games.protocol import Agent, Setup, derive_rng
from games.registry import GameInfo


def play(info: GameInfo, seed: int, seats: int) -> tuple[float, int]:
    """One match; the strong agent's share of the win (0, 1 or a fraction for a shared win),
    and how many turns it lasted."""
    game, strong = info.game, seed % seats
    config = game.parse_config({}, seats)
    state, events = game.new_match(Setup(config, seats, seed))
    agents: list[Agent] = [
        info.agents[info.default_agent if seat == strong else "random"](
            seat, derive_rng(seed, "agent", seat)
        )
        for seat in range(seats)
    ]
    state = play_match(game, state, events, agents, derive_rng(seed, "order"))
    outcome = game.outcome(state)
    assert outcome is not None, "play_match returns a finished match"
    share = 1 / len(outcome.winners) if strong in outcome.winners else 0.0
    return share, int(game.view(state, None)["turn"])


def default_seats(info: GameInfo) -> int:
    game = info.game
    return game.min_seats if game.max_seats == 2 else max(game.min_seats, min(4, game.max_seats))


def main() -> None:
    info = registry.get(sys.argv[1] if len(sys.argv) > 1 else "floral-extract")
    matches = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    seats = int(sys.argv[3]) if len(sys.argv) > 3 else default_seats(info)
    start = time.perf_counter()
    results = [play(info, seed, seats) for seed in range(matches)]
    wins = sum(share for share, _ in results)
    print(
        json.dumps(
            {
                "game": info.name,
                "matches": matches,
                "seats": seats,
                "agent": info.default_agent,
                "agent_wins": round(wins, 2),
                "win_share": round(wins / matches, 3),
                "fair_share": round(1 / seats, 3),
                "mean_turns": round(sum(turns for _, turns in results) / matches, 1),
                "seconds": round(time.perf_counter() - start, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
