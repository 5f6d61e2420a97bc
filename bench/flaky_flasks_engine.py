"""Flaky Flasks match length, engine speed and AI decision time; prints JSON, in the terms of
the rules page's §17 "Match length: measured" table so the two can be compared.

Plays matches straight through the engine (no host) with every seat at one AI level (§17's
method: bots against each other; ``--level``, default ``normal``), random shuffles and first
players from the match seed. Figures:

* ``windows``: rules windows per match (``R1.T1.work`` counts once, as §17 counts them):
  mean (min · p10 · median · p90 · max), and the mean of each kind (``work``, ``market``,
  ``hex``+``counter``, ``setup``/``offer``/``reply``);
* ``est_minutes``: §17's estimate (45 s per ``work`` window, 8 s per ``counter``, 10 s per other):
  median (p10–p90);
* ``final_fame``: every seat's final fame, median (p10–p90); ``coins_left``: median;
* ``wins_per_seat``: the share of wins by seat (a shared victory splits), in %;
* ``host_windows``: host windows per match (one command per seat each: a rules ``work`` or
  ``market`` window takes several), mean;
* ``resolve_ms``, ``decision_ms``: p50/p99/max of one ``resolve`` and of one AI answer;
* ``state_kb``: the largest state, as JSON.

Usage: ``python bench/flaky_flasks_engine.py [--matches N] [--seats N] [--rounds R]
[--level L]`` (200, 3, 12, normal).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.flaky_flasks import AGENTS, GAME
from games.protocol import Accepted, Agent, Setup, derive_rng

SECONDS = {"work": 45.0, "counter": 8.0}  # §17's estimate; every other window 10 s
KINDS = {"hex": "hex+counter", "counter": "hex+counter", "setup": "setup/offer/reply"}
KINDS |= {"offer": "setup/offer/reply", "reply": "setup/offer/reply"}


def play(seed: int, seats: int, rounds: int, level: str, timing: dict[str, list[float]]) -> Any:
    agents: list[Agent] = [
        AGENTS[level](seat, derive_rng(seed, "agent", seat)) for seat in range(seats)
    ]
    config = GAME.parse_config({"rounds": rounds}, seats)
    state, events = GAME.new_match(Setup(config, seats, seed))
    kinds: dict[int, str] = {}  # rules window serial -> its kind
    host, largest = 0, 0
    while True:
        for event in events:
            for seat, agent in enumerate(agents):
                if event.audience.reaches(seat):
                    agent.observe(event)
        outcome = GAME.outcome(state)
        if outcome is not None:
            break
        requests = GAME.requests(state)
        win = state["g"]["win"]
        kinds[win["serial"]] = win["kind"]
        moves = {}
        for request in requests:
            view = GAME.view(state, request.seat)
            started = time.perf_counter()
            raw = agents[request.seat].act(request, view)
            timing["decide"].append(time.perf_counter() - started)
            verdict = GAME.submit(state, request.seat, raw)
            assert isinstance(verdict, Accepted), verdict
            moves[request.seat] = verdict.move
        started = time.perf_counter()
        state, events = GAME.resolve(state, moves)
        timing["resolve"].append(time.perf_counter() - started)
        host += 1
        largest = max(largest, len(json.dumps(GAME.dump(state))))
    g = state["g"]
    counted = Counter(KINDS.get(kind, kind) for kind in kinds.values())
    return {
        "windows": len(kinds),
        "kinds": counted,
        "seconds": sum(SECONDS.get(kind, 10.0) for kind in kinds.values()),
        "fame": [p["fame"] for p in g["players"]],
        "coins": [p["coins"] for p in g["players"]],
        "wins": {s: 1 / len(outcome.winners) for s in outcome.winners},
        "host": host,
        "largest": largest,
    }


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(values: list[float]) -> dict[str, float]:
    marks = (("p50", pct(values, 0.5)), ("p99", pct(values, 0.99)), ("max", max(values)))
    return {k: round(v * 1000, 2) for k, v in marks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--level", default="normal")
    args = parser.parse_args()
    timing: dict[str, list[float]] = {"resolve": [], "decide": []}
    results = [
        play(seed, args.seats, args.rounds, args.level, timing) for seed in range(args.matches)
    ]
    windows = [r["windows"] for r in results]
    minutes = [r["seconds"] / 60 for r in results]
    fame = [f for r in results for f in r["fame"]]
    coins = [c for r in results for c in r["coins"]]
    wins = Counter[int]()
    for r in results:
        wins.update(r["wins"])
    kinds = Counter[str]()
    for r in results:
        kinds.update(r["kinds"])
    print(
        json.dumps(
            {
                "matches": args.matches,
                "seats": args.seats,
                "rounds": args.rounds,
                "level": args.level,
                "windows": {
                    "mean": round(statistics.fmean(windows), 1),
                    "min": min(windows),
                    "p10": pct(windows, 0.1),
                    "median": statistics.median(windows),
                    "p90": pct(windows, 0.9),
                    "max": max(windows),
                },
                "windows_by_kind": {k: round(v / args.matches, 1) for k, v in kinds.items()},
                "est_minutes": {
                    "median": round(statistics.median(minutes), 1),
                    "p10": round(pct(minutes, 0.1), 1),
                    "p90": round(pct(minutes, 0.9), 1),
                },
                "final_fame": {
                    "median": statistics.median(fame),
                    "p10": pct(fame, 0.1),
                    "p90": pct(fame, 0.9),
                },
                "coins_left_median": statistics.median(coins),
                "wins_per_seat_pct": [
                    round(100 * wins[s] / args.matches) for s in range(args.seats)
                ],
                "host_windows_mean": round(statistics.fmean(r["host"] for r in results), 1),
                "resolve_ms": ms(timing["resolve"]),
                "decision_ms": ms(timing["decide"]),
                "state_kb": round(max(r["largest"] for r in results) / 1024, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
