"""Red Phoenix engine speed, memory and match length; prints JSON.

Plays matches straight through the engine (no host, no clock): one AI of ``LEVEL`` (default:
the game's default, ``normal``) against ``random`` players, its seat rotating with the match
seed, the default config (the house set). Figures, over every window of every match:
``resolve`` time per window (p50, p99, max; goal p99 <= 1 ms), the AI's decision time (its view
built plus ``act``; goal p99 <= 50 ms), the memory of a live match state (tracemalloc of a state
loaded from its dump, the largest over sampled windows; goal <= 1 MB), windows per match, the
distribution of match length in rounds (the most turns any seat started), and the same with
the AI in every seat (``every_seat``: Gold, last alive and round limit shares, rounds) beside
the rules page's Balance table (§15.2, measured there with a simple strategy bot in every
seat); and one step (requests, submit, resolve) on the largest legal table (``largest_table``:
every card type in hand, 40 formulas, five monsters, the longest names; goal <= 50 ms).

Usage: ``python bench/red_phoenix_engine.py [MATCHES] [SEATS] [LEVEL]`` (200, 3, normal).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.protocol import Accepted, Agent, Setup, derive_rng
from games.red_phoenix import AGENTS, DEFAULT_AGENT, GAME

# §15.2: rounds p10, p25, median, p75, p90, mean; Gold / last alive / round limit shares
PAGE_BALANCE = {
    2: {
        "p10": 10,
        "p25": 13,
        "median": 18,
        "p75": 26,
        "p90": 34,
        "mean": 20.9,
        "endings": {"gold": 0.66, "last_alive": 0.32, "round_limit": 0.01},
    },
    3: {
        "p10": 12,
        "p25": 15,
        "median": 21,
        "p75": 30,
        "p90": 39,
        "mean": 23.4,
        "endings": {"gold": 0.78, "last_alive": 0.21, "round_limit": 0.01},
    },
    4: {
        "p10": 11,
        "p25": 14,
        "median": 19,
        "p75": 28,
        "p90": 40,
        "mean": 22.6,
        "endings": {"gold": 0.88, "last_alive": 0.11, "round_limit": 0.01},
    },
    5: {
        "p10": 10,
        "p25": 13,
        "median": 20,
        "p75": 30,
        "p90": 40,
        "mean": 22.9,
        "endings": {"gold": 0.90, "last_alive": 0.09, "round_limit": 0.01},
    },
}


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def play(
    seed: int,
    seats: int,
    resolve_ms: list[float],
    decide_ms: list[float],
    level: str = DEFAULT_AGENT,
    mirror: bool = False,
) -> dict[str, Any]:
    """One match: ``level`` against random players (``mirror``: ``level`` in every seat)."""
    strong = seed % seats
    agents: list[Agent] = [
        AGENTS[level if seat == strong or mirror else "random"](
            seat, derive_rng(seed, "agent", seat)
        )
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
            return {
                "share": 1 / len(outcome.winners) if strong in outcome.winners else 0.0,
                "windows": windows,
                "reason": outcome.reason,
                "rounds": max(p["turns"] for p in state.g["players"]),
            }
        (request,) = GAME.requests(state)
        started = time.perf_counter()
        raw = agents[request.seat].act(request, GAME.view(state, request.seat))
        if request.seat == strong:
            decide_ms.append((time.perf_counter() - started) * 1000)
        verdict = GAME.submit(state, request.seat, raw)
        assert isinstance(verdict, Accepted), verdict
        started = time.perf_counter()
        state, events = GAME.resolve(state, {request.seat: verdict.move})
        resolve_ms.append((time.perf_counter() - started) * 1000)
        windows += 1


def live_memory(seats: int, matches: int) -> dict[str, int]:
    """The largest state (tracemalloc of a loaded dump, and its JSON size) over every 10th
    window of a few matches."""
    largest, largest_json = 0, 0
    for seed in range(matches):
        agents = [AGENTS["random"](s, derive_rng(seed, "agent", s)) for s in range(seats)]
        state, _ = GAME.new_match(Setup(GAME.parse_config({}, seats), seats, seed))
        window = 0
        while GAME.outcome(state) is None:
            if window % 10 == 0:
                dumped = GAME.dump(state)
                tracemalloc.start()
                loaded = GAME.load(dumped)
                size, _ = tracemalloc.get_traced_memory()
                tracemalloc.stop()
                del loaded
                largest = max(largest, size)
                largest_json = max(largest_json, len(json.dumps(dumped)))
            (request,) = GAME.requests(state)
            raw = agents[request.seat].act(request, GAME.view(state, request.seat))
            verdict = GAME.submit(state, request.seat, raw)
            assert isinstance(verdict, Accepted)
            state, _ = GAME.resolve(state, {request.seat: verdict.move})
            window += 1
    return {"state_bytes_max": largest, "dump_json_bytes_max": largest_json}


def rounds_summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    rounds = [float(r["rounds"]) for r in results]
    endings = Counter(r["reason"] for r in results)
    return {
        "p10": quantile(rounds, 0.1),
        "p25": quantile(rounds, 0.25),
        "median": quantile(rounds, 0.5),
        "p75": quantile(rounds, 0.75),
        "p90": quantile(rounds, 0.9),
        "mean": round(statistics.mean(rounds), 1),
        "in_15_30": round(sum(15 <= r <= 30 for r in rounds) / len(rounds), 2),
        "endings": {k: round(v / len(results), 2) for k, v in sorted(endings.items())},
    }


def mirror_rounds(matches: int, seats: int, level: str) -> dict[str, Any]:
    """Match length and endings with ``level`` in every seat: the nearest to §15.2's table."""
    return rounds_summary(
        [play(seed, seats, [], [], level, mirror=True) for seed in range(matches)]
    )


def largest_table(seats: int) -> dict[str, float]:
    """One step on the largest legal table: the active hand holds every card type twice
    (names as long as the card-set format allows), every other hand twelve cards, 40
    formulas every seat may reproduce, five monsters; the slowest of 20 runs of each part."""
    from games.red_phoenix.cards import house_raw

    cards_json = json.loads(house_raw())
    for i, item in enumerate(cards_json["ingredients"]):
        item["name"] = f"{item['name']} {'of the Long Name ' * 3}{i}"[:60]
    config = GAME.parse_config({"card_set": cards_json, "formula_markers": 60}, seats)
    state, _ = GAME.new_match(Setup(config, seats, 1))
    g, seat = state.g, state.g["active"]
    cards = list(state.cards.ingredients)
    for s, player in enumerate(g["players"]):
        player["hand"] = {c: 2 for c in cards} if s == seat else {c: 1 for c in cards[:12]}
    for n in range(1, 41):
        g["formulas"].append(
            {
                "id": f"F{n}",
                "creator": n % seats,
                "level": 1 + n % 2,
                "value": 4,
                "ingredients": cards[n % 5 : n % 5 + 4],
                "results": ["hooch@3"],
                "products": ["hooch", "incense"],
                "knowers": list(range(seats)),
                "license": 3,
                "created": 0,
            }
        )
        for player in g["players"]:
            player["knows"].append(f"F{n}")
    for n in range(5):
        g["monsters"].append(
            {
                "id": f"M{n + 1}",
                "card": "dire_wolf",
                "level": "II",
                "owner": n % seats,
                "hp": 3,
                "attacks_left": 2,
                "arrived": 0,
                "damage": 2,
            }
        )
    move = "fast blood_distillation " + " ".join(sorted(cards[8:12]))
    parts: dict[str, Callable[[], object]] = {"requests": lambda: GAME.requests(state)}
    parts["submit"] = lambda: GAME.submit(state, seat, move)
    parts["resolve"] = lambda: GAME.resolve(state, {seat: "end"})
    parts["view"] = lambda: GAME.view(state, seat)
    (request,) = GAME.requests(state)
    for level in ("normal", "hard"):
        agent = AGENTS[level](seat, derive_rng(1, "largest", seat))
        parts[f"{level}_ai"] = partial(agent.act, request, GAME.view(state, seat))
    times = {}
    for name, part in parts.items():
        runs = []
        for _ in range(20):
            started = time.perf_counter()
            part()
            runs.append((time.perf_counter() - started) * 1000)
        times[f"{name}_ms_max"] = round(max(runs), 2)
    return times


def main() -> None:
    matches = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    level = sys.argv[3] if len(sys.argv) > 3 else DEFAULT_AGENT
    resolve_ms: list[float] = []
    decide_ms: list[float] = []
    started = time.perf_counter()
    results = [play(seed, seats, resolve_ms, decide_ms, level) for seed in range(matches)]
    elapsed = time.perf_counter() - started
    rounds = [float(r["rounds"]) for r in results]
    windows = [float(r["windows"]) for r in results]
    endings = Counter(r["reason"] for r in results)
    print(
        json.dumps(
            {
                "game": "red-phoenix",
                "matches": matches,
                "seats": seats,
                "agent": level,
                "win_share": round(sum(r["share"] for r in results) / matches, 3),
                "fair_share": round(1 / seats, 3),
                "resolve_ms": {
                    "p50": round(quantile(resolve_ms, 0.5), 4),
                    "p99": round(quantile(resolve_ms, 0.99), 4),
                    "max": round(max(resolve_ms), 3),
                    "windows": len(resolve_ms),
                },
                "decision_ms": {
                    "p50": round(quantile(decide_ms, 0.5), 4),
                    "p99": round(quantile(decide_ms, 0.99), 4),
                    "max": round(max(decide_ms), 3),
                },
                "memory": live_memory(seats, min(matches, 10)),
                "windows_per_match": {
                    "mean": round(statistics.mean(windows), 1),
                    "p50": quantile(windows, 0.5),
                    "p90": quantile(windows, 0.9),
                    "max": max(windows),
                },
                "rounds": {
                    "p10": quantile(rounds, 0.1),
                    "p25": quantile(rounds, 0.25),
                    "median": quantile(rounds, 0.5),
                    "p75": quantile(rounds, 0.75),
                    "p90": quantile(rounds, 0.9),
                    "mean": round(statistics.mean(rounds), 1),
                    "in_15_30": round(sum(15 <= r <= 30 for r in rounds) / matches, 2),
                    "histogram_by_5": dict(
                        sorted(Counter(int(r // 5 * 5) for r in rounds).items())
                    ),
                },
                "endings": {k: round(v / matches, 2) for k, v in sorted(endings.items())},
                "every_seat": mirror_rounds(matches, seats, level),
                "page_balance_15_2": PAGE_BALANCE.get(seats),
                "largest_table": largest_table(5),
                "seconds": round(elapsed, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
