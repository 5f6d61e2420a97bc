"""``floral-host prune --finished-before DATE [--keep-results]``: drop the matches that ended
(finished or aborted) before DATE, in one transaction, then give the space back to the disk.

Without ``--keep-results`` everything of such a match goes: its row, log, messages, windows,
thread and table. With it the match's row stays (players, names, outcome, when it ended: what
``/stats`` and the ratings read, so both stay as they were) and only its log and messages go;
``audit`` then counts it as pruned and ``export`` says its log is gone. The ratings already
folded stay either way (``ratings --rebuild`` refolds only the matches still stored).

The compaction is ``VACUUM`` (PostgreSQL: ``VACUUM FULL``): it rewrites every page, so prune
owns the database while it runs (``bot.store.owner``) and is refused, naming the holder, while
``floral-host run`` holds it.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.database import command_database, open_store, require_database, shown
from bot.store.owner import owning
from bot.store.sql import Work, chunks, execute, fetch, marks

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


def prune_matches(before: float, keep_results: bool, at: float) -> Work[int]:
    """Drop the matches that ended before ``before`` (epoch seconds), in the transaction this
    work runs in; how many. With ``keep_results`` a match keeps its row, marked pruned."""
    ids = yield from ended_before(before, keep_results)
    for chunk in chunks(ids):
        for table in MATCH_TABLES:
            yield from execute(f"DELETE FROM {table} WHERE match_id IN ({marks(chunk)})", *chunk)
        yield from execute(f"DELETE FROM tables WHERE match_id IN ({marks(chunk)})", *chunk)
        if keep_results:
            yield from execute(
                f"UPDATE matches SET pruned_at = ? WHERE id IN ({marks(chunk)})", at, *chunk
            )
        else:  # their rated_matches rows stay: no end number is ever given twice
            yield from execute(f"DELETE FROM matches WHERE id IN ({marks(chunk)})", *chunk)
    # the tables that never filled, closed before DATE
    yield from execute(
        "DELETE FROM tables WHERE status = 'closed' AND match_id IS NULL AND created_at < ?",
        before,
    )
    return len(ids)


def ended_before(before: float, keep_results: bool) -> Work[list[int]]:
    """The matches a prune drops: ended before ``before``, not already pruned as asked."""
    only_logs = " AND pruned_at IS NULL" if keep_results else ""
    rows = yield from fetch(
        "SELECT id FROM matches WHERE status IN ('finished', 'aborted') AND ended_at < ?"
        f"{only_logs} ORDER BY id",
        before,
    )
    return [int(row[0]) for row in rows]


async def prune(target: str, before: float, keep_results: bool, dry_run: bool = False) -> Pruned:
    store = await open_store(target)
    try:
        size = await store.size()
        if dry_run:
            ids = await store.read(ended_before(before, keep_results))
            return Pruned(len(ids), size, size)
        count = await store.transaction(prune_matches(before, keep_results, time.time()))
        await store.vacuum()
        return Pruned(count, size, await store.size())
    finally:
        await store.close()


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


async def _owned_prune(target: str, args: argparse.Namespace) -> Pruned:
    await require_database(target)
    async with owning(target, "floral-host prune"):
        return await prune(target, args.finished_before, args.keep_results, args.dry_run)


def main(args: argparse.Namespace) -> int:
    target = command_database(args.db)
    before: float = args.finished_before
    pruned = asyncio.run(_owned_prune(target, args))
    day = datetime.fromtimestamp(before, UTC).strftime("%Y-%m-%d %H:%M UTC")
    what = "their logs and messages, results kept" if args.keep_results else "everything of them"
    if args.dry_run:
        print(f"would prune {pruned.matches} matches ended before {day} ({what})")
        return 0
    print(
        f"pruned {pruned.matches} matches ended before {day} ({what});"
        f" {shown(target)}: {_megabytes(pruned.bytes_before)} before,"
        f" {_megabytes(pruned.bytes_after)} now"
    )
    return 0
