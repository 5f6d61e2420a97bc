"""``floral-host copy-db --from SOURCE --to TARGET``: a community's whole history from one
database to another (an SQLite file to PostgreSQL, or back), in one transaction, then ``audit``
on the target.

The source is read as one snapshot and is never written (but for the holder record of a
PostgreSQL one); it must be of this floral-host's schema (``run`` upgrades it). The target must
hold nothing yet: a new file, or an empty PostgreSQL database, given this schema first. Both are
owned while the copy runs (``bot.store.owner``): stop the bot first. Every row is copied as it is,
ids included, and each id counter goes on from where the source's stood (a pruned match's number
is never given again). Any error rolls the target back, empty. The last stdout line is the
target's audit summary (JSON); exit 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.audit import audit_store
from bot.database import command_database, open_store, require_database, shown
from bot.store.common import COORDINATION_TABLES, Session, SqlStore
from bot.store.faults import UnusableDatabase
from bot.store.owner import owning
from bot.store.sql import Dialect, Work, execute, execute_many, fetch, fetchone, fetchvalue

# every table of the schema and its primary key, in an order that inserts nothing before the
# row it refers to
TABLES: dict[str, tuple[str, ...]] = {
    "matches": ("id",),
    "steps": ("match_id", "step"),
    "windows": ("match_id", "step"),
    "moves": ("match_id", "step", "seat"),
    "attempts": ("id",),
    "match_log": ("id",),
    "outbox": ("id",),
    "outbox_archive": ("id",),
    "tables": ("id",),
    "match_threads": ("match_id",),
    "ratings": ("guild_id", "game", "user_id"),
    "rated_matches": ("match_id",),
    "forgotten": ("id",),
}
BOOKKEEPING = {"schema_migrations", *COORDINATION_TABLES}  # each database's own
# the tables whose ids a counter gives (SQLite: AUTOINCREMENT, PostgreSQL: an identity)
COUNTED = ("matches", "attempts", "match_log", "outbox", "outbox_archive", "tables", "forgotten")
CHUNK = 500  # rows a statement


@dataclass(frozen=True, slots=True)
class Copied:
    rows: dict[str, int]  # table -> rows copied
    seconds: float
    audit: dict[str, int]
    problems: list[str]


async def copy_db(source: str, target: str) -> Copied:
    if shown(source) == shown(target):
        raise UnusableDatabase(shown(target), "is the source itself", "copy to another database")
    await require_database(source)
    started = time.monotonic()
    async with owning(source, "floral-host copy-db"), owning(target, "floral-host copy-db"):
        reader = await open_store(source, readonly=True)
        try:
            writer = await open_store(target)
            try:
                rows = await _copy(reader, writer)
            finally:
                await writer.close()
        finally:
            await reader.close()
        seconds = time.monotonic() - started
        copy = await open_store(target, readonly=True)
        try:
            summary, problems = await audit_store(copy)
        finally:
            await copy.close()
    return Copied(rows, seconds, summary, problems)


async def _copy(reader: SqlStore, writer: SqlStore) -> dict[str, int]:
    copied: dict[str, int] = {}
    async with reader.session(readonly=True) as source, writer.session() as target:
        for store, session in ((reader, source), (writer, target)):
            names = await session.run(_tables(store.dialect))
            if names != set(TABLES):
                raise UnusableDatabase(
                    store.where,
                    f"holds the tables {sorted(names)}, not floral-host's {sorted(TABLES)}",
                    "copy between databases of this floral-host's schema",
                )
        for table in TABLES:
            if await target.run(fetchone(f"SELECT 1 FROM {table} LIMIT 1")) is not None:
                raise UnusableDatabase(
                    writer.where,
                    f"not empty (its {table} table holds rows)",
                    "copy into a new file or an empty database: it is left as it was",
                )
        counters = await source.run(_counters(reader.dialect))
        for table, key in TABLES.items():
            copied[table] = await _copy_table(reader, source, target, writer.where, table, key)
        await target.run(_set_counters(writer.dialect, counters))
    return copied


async def _copy_table(
    reader: SqlStore,
    source: Session,
    target: Session,
    target_where: str,
    table: str,
    key: Sequence[str],
) -> int:
    columns = await source.run(_columns(reader.dialect, table))
    insert = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    count = 0
    async for rows in reader.table_rows(source, table, columns, key, CHUNK):
        try:
            await target.run(execute_many(insert, [tuple(row) for row in rows]))
        except Exception as error:  # a value the target's column cannot take
            raise UnusableDatabase(
                target_where,
                f"a row of the {table} table does not fit ({str(error).splitlines()[0][:120]})",
                "nothing was copied: mend that row in the source, or ask for help",
            ) from None
        count += len(rows)
    return count


def _tables(dialect: Dialect) -> Work[set[str]]:
    rows = yield from fetch(dialect.tables)
    return {str(row[0]) for row in rows} - BOOKKEEPING


def _columns(dialect: Dialect, table: str) -> Work[list[str]]:
    rows = yield from fetch(dialect.columns, table)
    return [str(row[0]) for row in rows]


def _counters(dialect: Dialect) -> Work[dict[str, int]]:
    """Where each id counter stands: the last id given, or more (ids of rows since deleted)."""
    given: dict[str, int] = {}
    if dialect.name == "sqlite":
        if (yield from fetchone("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'")):
            rows = yield from fetch("SELECT name, seq FROM sqlite_sequence")
            given = {str(name): int(seq) for name, seq in rows}
    else:
        for table in COUNTED:
            last = yield from fetchvalue(
                "SELECT pg_sequence_last_value(pg_get_serial_sequence(?, 'id'))", table
            )
            given[table] = int(last or 0)
    counters = {}
    for table in COUNTED:
        highest = yield from fetchvalue(f"SELECT MAX(id) FROM {table}")
        counters[table] = max(given.get(table, 0), int(highest or 0))
    return counters


def _set_counters(dialect: Dialect, counters: Mapping[str, int]) -> Work[None]:
    for table, value in counters.items():
        if value <= 0:
            continue
        if dialect.name == "sqlite":
            yield from execute("DELETE FROM sqlite_sequence WHERE name = ?", table)
            yield from execute(
                "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", table, value
            )
        else:
            yield from fetch("SELECT setval(pg_get_serial_sequence(?, 'id'), ?)", table, value)


def main(args: argparse.Namespace) -> int:
    source = command_database(args.source)
    target: str = args.target
    copied = asyncio.run(copy_db(source, target))
    rows = sum(copied.rows.values())
    print(
        f"copied {copied.rows['matches']} matches ({rows} rows in {len(copied.rows)} tables)"
        f" from {shown(source)} to {shown(target)} in {copied.seconds:.1f} s, one transaction"
    )
    for problem in copied.problems:
        print(problem)
    print(json.dumps(copied.audit))
    if copied.problems:
        print("floral-host copy-db: the copy's audit found mismatches (above)", file=sys.stderr)
        return 1
    return 0
