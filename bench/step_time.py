"""What one step of a match costs the host on each game's largest inputs; prints JSON.

Every game's largest inputs (its options at their maximums, its largest set, the most seats:
``tests/games/steps.py``) are played whole (``--windows`` caps them), by the levels each case
names, over ``--seeds`` seeds. For each case: the windows played, the slowest step in CPU
milliseconds with its window and kind, the median step, the slowest computer player's decision,
the largest stored state in bytes, the most choices one request offered and the most pages a
menu needed (a two-step menu: the pages listing its stages). The conformance suite checks the
same figures against its bounds (a step or a decision at most 50 ms, a state at most 100 KB, a
menu at most 4 pages).

Usage: ``python bench/step_time.py [--game GAME] [--seeds N] [--windows N]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.transport import request_to_json  # noqa: E402
from cogs.prompts import plan  # noqa: E402
from games import registry  # noqa: E402
from tests.games import steps  # noqa: E402


def pages(request: Any) -> int:
    payload = request_to_json(request, 1, 1, 0.0)
    menus = plan(payload)[2]
    return max((menu.lists if menu.steps is not None else menu.pages for menu in menus), default=0)


def measure(name: str, case: steps.Largest, seeds: int) -> dict[str, Any]:
    costs = [cost for seed in range(1, seeds + 1) for cost in steps.step_costs(name, case, seed)]
    slowest = max(costs, key=lambda cost: cost.seconds)
    windows = [cost for cost in costs if cost.window >= 0]
    return {
        "game": name,
        "case": case.label,
        "seats": case.seats,
        "levels": list(case.agents),
        "windows": len(windows),
        "slowest_ms": round(slowest.seconds * 1000, 2),
        "slowest_kind": slowest.kind,
        "slowest_window": slowest.window,
        "median_ms": round(statistics.median(c.seconds for c in windows) * 1000, 3),
        "start_ms": round(max(c.seconds for c in costs if c.window < 0) * 1000, 2),
        "decision_ms_max": round(max(c.decision_seconds for c in costs) * 1000, 2),
        "state_bytes_max": max(cost.state_bytes for cost in costs),
        "choices_max": max(len(r.choices) for cost in costs for r in cost.requests),
        "menu_pages_max": max(pages(r) for cost in windows for r in cost.requests),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default=None, help="one game (default: every game)")
    parser.add_argument("--seeds", type=int, default=1, help="matches per case")
    parser.add_argument("--windows", type=int, default=None, help="at most this many windows")
    args = parser.parse_args()
    names = [args.game] if args.game else registry.names()
    results = []
    for name in names:
        for case in steps.largest(name):
            if args.windows is not None:
                case = dataclasses.replace(case, windows=args.windows)
            results.append(measure(name, case, args.seeds))
    json.dump({"limits": {"step_ms": steps.STEP_S * 1000, "state_bytes": steps.STATE_BYTES},
               "cases": results}, sys.stdout, indent=1)  # fmt: skip
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
