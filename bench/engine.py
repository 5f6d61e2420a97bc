"""Floral Extract engine throughput on one core; prints JSON.

``turns_per_s``: casting turns resolved through the protocol's ``resolve`` (legal moves chosen
beforehand from each seat's state, so the figure is the engine's, not the chooser's); the median
of five rounds, each listed in ``turns_per_s_rounds``.
``protocol_turns_per_s``: the same with ``requests`` and ``submit`` on every turn, as a host does.
``matches_per_s``: whole random matches (setup to game over, default config, max_turns 100).
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.floral_extract import GAME
from games.floral_extract.state import State
from games.protocol import Accepted, Setup

BOOK = {
    "water": {"type": "set", "n": 3, "set": [1, 2, 3]},
    "fertilize": {"type": "sum", "n": 3, "lo": 12, "hi": 16},
    "weather": {"type": "chain", "n": 3, "ops": ["<", "<"]},
}


def new_state(seed: int, max_turns: int | None) -> State:
    config = {"spellbook": BOOK, "max_turns": max_turns}
    state, _ = GAME.new_match(Setup(config, 2, seed))
    return state


def quick_move(state: State, seat: int, rng: random.Random) -> str:
    """A legal move without building requests: plant a new type, or cast/declare."""
    player = state.players[seat]
    if state.phase == "plant":
        return rng.choice([c for c in "ACHWX" if c not in player.planted])
    if player.charge and rng.random() < 0.5:
        return rng.choice(state.players[1 - seat].symbols)
    ident = rng.randrange(1 if player.stalled_last else 0, 8)
    return player.symbol_of[ident]


def bench_turns(seconds: float, rounds: int = 5) -> tuple[list[float], int]:
    """Casting turns per second in each of ``rounds`` equal rounds (the machine's speed varies
    from moment to moment, so the median of several rounds is steadier than one long run)."""
    rng = random.Random(1)
    state = new_state(1, None)
    rates, total = [], 0
    for _ in range(rounds):
        turns, spent = 0, 0.0
        deadline = time.perf_counter() + seconds / rounds
        while time.perf_counter() < deadline:
            for _ in range(1000):
                if state.phase == "over":
                    state = new_state(rng.randrange(1 << 30), None)
                moves = {
                    s: quick_move(state, s, rng)
                    for s in range(2)
                    if state.phase == "cast" or state.players[s].can_plant
                }
                if state.phase != "cast":  # planting phases are not turns: not timed
                    state, _ = GAME.resolve(state, moves)
                    continue
                start = time.perf_counter()
                state, _ = GAME.resolve(state, moves)
                spent += time.perf_counter() - start
                turns += 1
        rates.append(turns / spent)
        total += turns
    return rates, total


def play_match(seed: int) -> int:
    rng = random.Random(seed)
    state = new_state(seed, 100)
    turns = 0
    while True:
        requests = GAME.requests(state)
        if not requests:
            return turns
        moves = {}
        for request in requests:
            verdict = GAME.submit(state, request.seat, rng.choice(request.choices).value)
            moves[request.seat] = verdict.move if isinstance(verdict, Accepted) else None
        turns += state.phase == "cast"
        state, _ = GAME.resolve(state, moves)


def bench_matches(seconds: float) -> tuple[float, float, int]:
    matches = turns = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        turns += play_match(matches)
        matches += 1
    elapsed = time.perf_counter() - start
    return matches / elapsed, turns / elapsed, matches


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    rates, turns = bench_turns(seconds)
    matches_per_s, protocol_turns_per_s, matches = bench_matches(seconds)
    print(
        json.dumps(
            {
                "turns_per_s": round(statistics.median(rates)),
                "turns_per_s_rounds": [round(rate) for rate in rates],
                "protocol_turns_per_s": round(protocol_turns_per_s),
                "matches_per_s": round(matches_per_s, 1),
                "turns_measured": turns,
                "matches_measured": matches,
                "python": sys.version.split()[0],
            }
        )
    )


if __name__ == "__main__":
    main()
