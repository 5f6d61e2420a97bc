"""Flaky Flasks engine speed, AI decision time, memory and match length; prints JSON.

Plays matches straight through the engine (no host): one ``brewer`` against random players,
its seat rotating with the match seed, the game's default config. Figures:

* ``resolve_ms``: p50/p99/max of one ``resolve`` call (one host window);
* ``brewer_decision_ms``: p50/p99/max of one ``brewer`` answer (``act``);
* ``state_kb``: the largest live match state, as its JSON text and as the memory ``tracemalloc``
  counts for building it from that text (``load``);
* windows per match: host windows (one command per seat each; ``work`` and ``market`` windows
  of the rules take several) and rules windows (``R1.T1.work`` counts once);
* minutes per match at the default timers: the worst case (each rules window runs to its full
  deadline; the host windows of one rules window share its turn clock) and an estimate when every
  answer takes ~10 s (each host window 10 s, at most its rules window's deadline).

Usage: ``python bench/flaky_flasks_engine.py [MATCHES] [SEATS] [ROUNDS]`` (200, 3, 12).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.flaky_flasks import AGENTS, GAME
from games.protocol import Accepted, Agent, Setup, derive_rng

ANSWER_S = 10.0


def play(seed: int, seats: int, rounds: int, timing: dict[str, list[float]]) -> dict[str, Any]:
    strong = seed % seats
    agents: list[Agent] = [
        AGENTS["brewer" if seat == strong else "random"](seat, derive_rng(seed, "agent", seat))
        for seat in range(seats)
    ]
    config = GAME.parse_config({"rounds": rounds}, seats)
    state, events = GAME.new_match(Setup(config, seats, seed))
    host_windows, largest = 0, 0
    rules: dict[int, list[float]] = {}  # rules window serial -> [deadline, host windows]
    while True:
        for event in events:
            for seat, agent in enumerate(agents):
                if event.audience.reaches(seat):
                    agent.observe(event)
        outcome = GAME.outcome(state)
        if outcome is not None:
            break
        requests = GAME.requests(state)
        serial = state["g"]["win"]["serial"]
        entry = rules.setdefault(serial, [max(r.timeout_s for r in requests), 0])
        entry[1] += 1
        moves = {}
        for request in requests:
            view = GAME.view(state, request.seat)
            started = time.perf_counter()
            raw = agents[request.seat].act(request, view)
            if request.seat == strong:
                timing["decide"].append(time.perf_counter() - started)
            verdict = GAME.submit(state, request.seat, raw)
            assert isinstance(verdict, Accepted), verdict
            moves[request.seat] = verdict.move
        started = time.perf_counter()
        state, events = GAME.resolve(state, moves)
        timing["resolve"].append(time.perf_counter() - started)
        host_windows += 1
        largest = max(largest, len(json.dumps(GAME.dump(state))))
    worst = sum(deadline for deadline, _ in rules.values())
    typical = sum(min(deadline, n * ANSWER_S) for deadline, n in rules.values())
    share = 1 / len(outcome.winners) if strong in outcome.winners else 0.0
    return {"host": host_windows, "rules": len(rules), "worst_s": worst, "typical_s": typical,
            "share": share, "largest": largest, "state": GAME.dump(state)}  # fmt: skip


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(values: list[float]) -> dict[str, float]:
    marks = (("p50", pct(values, 0.5)), ("p99", pct(values, 0.99)), ("max", max(values)))
    return {k: round(v * 1000, 3) for k, v in marks}


def main() -> None:
    matches = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 12
    timing: dict[str, list[float]] = {"resolve": [], "decide": []}
    results = [play(seed, seats, rounds, timing) for seed in range(matches)]
    biggest = max(results, key=lambda r: r["largest"])
    text = json.dumps(biggest["state"])
    tracemalloc.start()
    loaded = GAME.load(json.loads(text))
    memory = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert loaded is not None

    def spread(key: str, scale: float = 1.0) -> dict[str, float]:
        values = [r[key] / scale for r in results]
        marks = {"mean": statistics.mean(values), "min": min(values)}
        marks |= {"median": statistics.median(values), "max": max(values)}
        return {k: round(v, 1) for k, v in marks.items()}

    print(
        json.dumps(
            {
                "matches": matches,
                "seats": seats,
                "rounds": rounds,
                "resolve_ms": ms(timing["resolve"]),
                "brewer_decision_ms": ms(timing["decide"]),
                "state_kb": {
                    "json": round(len(text) / 1024, 1),
                    "tracemalloc_peak": round(memory / 1024, 1),
                },
                "host_windows_per_match": spread("host"),
                "rules_windows_per_match": spread("rules"),
                "minutes_worst_case": spread("worst_s", 60),
                "minutes_at_10s_answers": spread("typical_s", 60),
                "brewer_win_share": round(sum(r["share"] for r in results) / matches, 3),
                "fair_share": round(1 / seats, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
