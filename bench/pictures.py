"""Render time of every picture the bot sends, on one core; prints JSON.

For each image kind, the milliseconds of ``samples`` renders (p50, p99, max) over states taken
from whole matches between the built-in agents, and the PNG size in bytes (median):

* ``garden``: a Floral Extract seat's garden from its view (what a turn DM carries);
* ``garden_from_snapshot``: the same from the stored snapshot, as the transport runs it
  (``pictures.hooks.seat_picture``: load the state, take the seat's view, draw);
* ``end_card_<game>``: the end card from its data alone;
* ``end_card_<game>_from_steps``: from the match's stored steps, as the transport runs it
  (load every snapshot, the scores over the turns, the reveals, draw).

``cpu_p50_ms``/``cpu_p99_ms``: the same in this thread's CPU time, which other processes on a
shared machine do not inflate. The goal (issue 13) is under 50 ms an image; ``goal_met`` says
whether every wall-clock p99 is.
Usage: ``python bench/pictures.py [--samples N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games import registry
from pictures import Picture, hooks
from pictures.card import EndCard, render
from pictures.floral_extract import garden
from tests.pictures.helpers import Recorded, play_recorded

GOAL_MS = 50.0


def timed(make: Callable[[int], Picture], samples: int) -> dict[str, float]:
    make(0)  # warm the fonts and imports
    times, cpu, sizes = [], [], []
    for i in range(samples):
        start, start_cpu = time.perf_counter(), time.thread_time()
        picture = make(i)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.thread_time() - start_cpu) * 1000)
        sizes.append(len(picture.png))
    times.sort()
    cpu.sort()
    return {
        "p50_ms": round(statistics.median(times), 2),
        "p99_ms": round(percentile(times, 0.99), 2),
        "max_ms": round(times[-1], 2),
        "cpu_p50_ms": round(statistics.median(cpu), 2),
        "cpu_p99_ms": round(percentile(cpu, 0.99), 2),
        "png_bytes": int(statistics.median(sizes)),
    }


def percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    samples: int = args.samples
    results: dict[str, dict[str, float]] = {}

    fe = registry.get("floral-extract")
    fe_matches = [play_recorded(fe, 2, seed) for seed in range(8)]
    views = [
        (fe.game.view(state, seat), match.names[seat])
        for match in fe_matches
        for state in match.states[1:-1]
        for seat in (0, 1)
    ]
    results["garden"] = timed(lambda i: garden(*views[i % len(views)]), samples)
    snaps = [(m, s) for m in fe_matches for s in range(1, len(m.snapshots) - 1)]

    def from_snapshot(i: int) -> Picture:
        match, step = snaps[i % len(snaps)]
        picture = hooks.seat_picture(fe, match.snapshots[step], i % 2, match.names)
        assert picture is not None
        return picture

    results["garden_from_snapshot"] = timed(from_snapshot, samples)
    steps: dict[str, int] = {}
    for name in registry.names():
        info = registry.get(name)
        seats = max(info.game.min_seats, min(4, info.game.max_seats))
        matches: list[Recorded] = [play_recorded(info, seats, seed) for seed in range(4)]
        steps[name] = round(statistics.mean(len(m.snapshots) for m in matches))
        cards = [
            hooks.end_card_data(info, m.names, m.outcome, m.snapshots, "Match 1") for m in matches
        ]

        def from_data(i: int, c: list[EndCard] = cards) -> Picture:
            return render(c[i % len(c)])

        results[f"end_card_{name}"] = timed(from_data, samples)

        def from_steps(
            i: int, ms: list[Recorded] = matches, info: registry.GameInfo = info
        ) -> Picture:
            m = ms[i % len(ms)]
            return hooks.end_card(info, m.names, m.outcome, m.snapshots, "Match 1")

        results[f"end_card_{name}_from_steps"] = timed(from_steps, max(20, samples // 4))
    print(
        json.dumps(
            {
                "samples": samples,
                "goal_ms": GOAL_MS,
                "goal_met": all(r["p99_ms"] < GOAL_MS for r in results.values()),
                "mean_steps_per_match": steps,
                "images": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
