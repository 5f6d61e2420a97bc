"""``floral-host prune --finished-before DATE [--keep-results]``: drop the matches that ended
(finished or aborted) before DATE, in one transaction, then give the space back to the disk.

Without ``--keep-results`` everything of such a match goes: its row, log, messages, windows,
thread and table. With it the match's row stays (players, names, outcome, when it ended: what
``/stats`` and the ratings read, so both stay as they were) and only its log and messages go;
``audit`` then counts it as pruned and ``export`` says its log is gone. The ratings already
folded stay either way (``ratings --rebuild`` refolds only the matches still stored).

The compaction is ``VACUUM``: it rewrites every page, so prune owns the database while it runs
(``bot.store.owner``) and is refused, naming the holder, while ``floral-host run`` holds it.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bot.database import command_db_path
from bot.store.faults import UnusableDatabase
from bot.store.owner import own
from bot.store.sqlite import SqliteStore

# every table of a match's log and messages, keyed by match_id
MATCH_TABLES = (
    "steps",
    "windows",
    "moves",
    "attempts",
    "match_log",
    "outbox",
    "outbox_archive",
    "match_threads",
)


@dataclass(frozen=True, slots=True)
class Pruned:
    matches: int
    bytes_before: int
    bytes_after: int


def prune_matches(db: sqlite3.Connection, before: float, keep_results: bool, at: float) -> int:
    """Drop the matches that ended before ``before`` (epoch seconds), inside the caller's
    transaction; how many. With ``keep_results`` a match keeps its row, marked pruned."""
    ids = ended_before(db, before, keep_results)
    for chunk in _chunks(ids):
        marks = ", ".join("?" * len(chunk))
        for table in MATCH_TABLES:
            db.execute(f"DELETE FROM {table} WHERE match_id IN ({marks})", chunk)
        db.execute(f"DELETE FROM tables WHERE match_id IN ({marks})", chunk)
        if keep_results:
            db.execute(f"UPDATE matches SET pruned_at = ? WHERE id IN ({marks})", [at, *chunk])
        else:  # their rated_matches rows stay: no end number is ever given twice
            db.execute(f"DELETE FROM matches WHERE id IN ({marks})", chunk)
    # the tables that never filled, closed before DATE
    db.execute(
        "DELETE FROM tables WHERE status = 'closed' AND match_id IS NULL AND created_at < ?",
        (before,),
    )
    return len(ids)


def ended_before(db: sqlite3.Connection, before: float, keep_results: bool) -> list[int]:
    """The matches a prune drops: ended before ``before``, not already pruned as asked."""
    only_logs = " AND pruned_at IS NULL" if keep_results else ""
    rows = db.execute(
        "SELECT id FROM matches WHERE status IN ('finished', 'aborted') AND ended_at < ?"
        f"{only_logs} ORDER BY id",
        (before,),
    )
    return [int(row[0]) for row in rows]


def _chunks(ids: Sequence[int], size: int = 500) -> Iterator[Sequence[int]]:
    """Bounds the number of SQL parameters."""
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def database_bytes(path: Path) -> int:
    """The file and its WAL."""
    wal = path.with_name(path.name + "-wal")
    return sum(file.stat().st_size for file in (path, wal) if file.exists())


def require_database(path: Path) -> None:
    """An operator's command changes an existing database only: it never creates one."""
    if not path.is_file():
        raise UnusableDatabase(path, "no database here", "check --db or FLORAL_DB")


async def prune(path: Path, before: float, keep_results: bool, dry_run: bool = False) -> Pruned:
    size = database_bytes(path)
    store = await SqliteStore.open(path)
    try:
        if dry_run:
            ids = await store.transaction(lambda db: ended_before(db, before, keep_results))
            return Pruned(len(ids), size, size)
        count = await store.transaction(
            lambda db: prune_matches(db, before, keep_results, time.time())
        )
        await store.vacuum()
    finally:
        await store.close()
    return Pruned(count, size, database_bytes(path))


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def main(args: argparse.Namespace) -> int:
    path = command_db_path(args.db)
    require_database(path)
    before: float = args.finished_before
    with own(path, "floral-host prune"):
        pruned = asyncio.run(prune(path, before, args.keep_results, args.dry_run))
    day = datetime.fromtimestamp(before, UTC).strftime("%Y-%m-%d %H:%M UTC")
    what = "their logs and messages, results kept" if args.keep_results else "everything of them"
    if args.dry_run:
        print(f"would prune {pruned.matches} matches ended before {day} ({what})")
        return 0
    print(
        f"pruned {pruned.matches} matches ended before {day} ({what});"
        f" {path}: {_megabytes(pruned.bytes_before)} before, {_megabytes(pruned.bytes_after)} now"
    )
    return 0
