"""Bytes a finished match takes in the database, per game and table size; prints JSON.

For each game at 2 seats and at its largest table, ``floral-host simulate GAME --db DB
--players N --seed S`` plays one match between the default AI into a new database (run from
this checkout: ``python -m bot`` with this folder first on the path), which is then copied with
``VACUUM INTO`` (no free pages, no WAL). A match's bytes are that copy's size less the size of a
database holding no match, made and copied the same way (the schema's own pages); ``tables``
splits them by table and index (SQLite's ``dbstat``, pages of 4 KiB). ``--seeds`` plays that
many seeds (1, 2, ...) and reports their mean and max.

Usage: ``python bench/storage.py [--seeds N] [--game GAME]``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# (game, seats): 2 seats, and the largest table where a game seats more
TABLES = (
    ("floral-extract", 2),
    ("flaky-flasks", 2),
    ("flaky-flasks", 3),
    ("flaky-flasks", 4),
    ("potioncraft", 2),
    ("potioncraft", 6),
    ("red-phoenix", 2),
    ("red-phoenix", 5),
    ("warlocks-brew", 2),
    ("warlocks-brew", 6),
)


def simulate(db: Path, game: str, seats: int | None, seed: int) -> None:
    """One match (none with ``seats`` None) into ``db``, by this checkout's command line."""
    matches = ["--players", str(seats)] if seats else ["--matches", "0"]
    command = [sys.executable, "-m", "bot", "simulate", game, "--db", str(db), "--quiet"]
    subprocess.run(
        [*command, "--seed", str(seed), *matches], cwd=ROOT, check=True, capture_output=True
    )


def compacted(db: Path) -> tuple[int, Counter[str]]:
    """The size of ``db`` copied with ``VACUUM INTO``, and its bytes per table or index."""
    copy = db.with_name(db.stem + "-vacuumed.db")
    with sqlite3.connect(db) as connection:
        connection.execute("VACUUM INTO ?", (str(copy),))
    with sqlite3.connect(copy) as connection:
        pages = connection.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name")
        tables = Counter({name: int(size) for name, size in pages})
    return copy.stat().st_size, tables


def measure(folder: Path, game: str, seats: int, seeds: int) -> dict[str, object]:
    empty = folder / f"{game}-{seats}-empty.db"
    simulate(empty, game, None, 0)
    base_size, base_tables = compacted(empty)
    sizes, tables = [], Counter[str]()
    for seed in range(1, seeds + 1):
        db = folder / f"{game}-{seats}-{seed}.db"
        simulate(db, game, seats, seed)
        size, by_table = compacted(db)
        sizes.append(size - base_size)
        by_table.subtract(base_tables)
        tables.update(by_table)
    return {
        "game": game,
        "seats": seats,
        "bytes_mean": round(statistics.mean(sizes)),
        "bytes_max": max(sizes),
        "tables": {name: size // seeds for name, size in tables.most_common() if size > 0},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="matches per game and size")
    parser.add_argument("--game", default=None, help="only this game")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        results = [
            measure(Path(scratch), game, seats, args.seeds)
            for game, seats in TABLES
            if args.game in (None, game)
        ]
    print(json.dumps({"seeds": args.seeds, "matches": results}, indent=1))


if __name__ == "__main__":
    main()
