"""Helpers of the storage tests: whole matches into a database file (built once a test run),
what they take on disk, every value a database holds, and the database as an older
floral-host wrote it."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot import history
from bot.games import load_game_info
from bot.simulate import simulate
from bot.store import archive
from bot.store.schema import MIGRATIONS
from bot.store.sql import dumps
from bot.store.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[2]
# the tables an older schema holds as they are now (not steps and outbox)
OTHER_TABLES = (
    "matches",
    "windows",
    "moves",
    "attempts",
    "match_log",
    "tables",
    "ratings",
    "rated_matches",
    "match_threads",
)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The file ``name`` that ``build`` writes, built once a test run, and a copy of it of the
    caller's own. A module fixture is built again by every xdist worker that runs one of its
    tests (a database of simulated matches: 4-14 s of CPU each time); here the first worker to
    ask builds it under a lock, and the others wait for it and copy it (a command on a database
    holds it as its one process, so workers must not share one)."""
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # this run's, shared by its workers
    folder, building = root / f"once-{name}", root / f"once-{name}.building"
    with (root / f"once-{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not folder.exists():
            shutil.rmtree(building, ignore_errors=True)  # a build that failed
            building.mkdir()
            build(building / name)
            building.rename(folder)  # whole or not at all
    own = factory.mktemp(name)
    shutil.copytree(folder, own, dirs_exist_ok=True)
    return own / name


async def simulated(db: Path, game: str, seats: int, seed: int = 1, matches: int = 1) -> None:
    """Whole matches between the default AI, stored in ``db`` (as ``simulate --db``)."""
    summary = await simulate(
        game, matches=matches, seats=seats, seed=seed, db=db, quiet=True, out=io.StringIO()
    )
    assert summary["finished"] == matches


def connect(db: Path) -> contextlib.closing[sqlite3.Connection]:
    return contextlib.closing(sqlite3.connect(db))


def vacuumed_size(db: Path) -> int:
    """The size of ``db`` without free pages or WAL: a ``VACUUM INTO`` copy's."""
    copy = db.with_name(db.stem + "-vacuumed.db")
    copy.unlink(missing_ok=True)
    with connect(db) as connection:
        connection.execute("VACUUM INTO ?", (str(copy),))
    size = copy.stat().st_size
    copy.unlink()
    return size


def every_value(db: Path) -> Iterator[tuple[str, str, Any]]:
    """(table, column, value) for every value of every row; an archived message's values one
    by one (its payload as JSON text)."""
    with connect(db) as connection:
        names = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        for (table,) in names.fetchall():
            cursor = connection.execute(f"SELECT * FROM {table}")
            columns = [column[0] for column in cursor.description]
            for row in cursor:
                for column, value in zip(columns, row, strict=True):
                    if not isinstance(value, bytes):
                        yield table, column, value
                        continue
                    for message in archive.unpack(value):
                        for part in message:
                            text = part if isinstance(part, str) else json.dumps(part)
                            yield table, column, text


async def as_older_schema(source: Path, dest: Path, version: int) -> None:
    """``dest``: the database at ``source`` as a floral-host of schema ``version`` (before
    7) would have written it: every step with its snapshot, every message in the outbox."""
    store = await SqliteStore.open(source, readonly=True)
    try:
        records = await store.list_matches()
        steps = {r.id: await store.steps(r.id) for r in records}
        outbox = {r.id: await store.outbox(r.id) for r in records}
    finally:
        await store.close()
    with connect(dest) as old, connect(source) as new:
        for _, sql in MIGRATIONS[:version]:
            old.executescript(sql)
        old.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
        old.executemany(
            "INSERT INTO schema_migrations VALUES (?, 'before')",
            [(number,) for number, _ in MIGRATIONS[:version]],
        )
        for table in OTHER_TABLES:
            _copy_rows(new, old, table)
        for record in records:
            game = load_game_info(record.game).game
            snapshots = history.snapshots(game, record, steps[record.id])
            old.executemany(
                "INSERT INTO steps (match_id, step, kind, moves, snapshot, at)"
                " SELECT ?, ?, ?, ?, ?, ?",
                [
                    (s.match_id, s.step, s.kind, _moves(s.moves), dumps(snapshot), at)
                    for s, snapshot, at in zip(
                        steps[record.id], snapshots, _step_times(new, record.id), strict=True
                    )
                ],
            )
            old.executemany(
                "INSERT INTO outbox (id, match_id, audience, text, payload, status, tries,"
                " next_try, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        r.id,
                        r.message.match_id,
                        r.message.audience,
                        r.message.text,
                        dumps(r.message.payload),
                        r.status,
                        r.tries,
                        r.next_try,
                        r.created_at,
                    )
                    for r in outbox[record.id]
                ],
            )
        old.commit()


def _moves(moves: dict[int, Any] | None) -> str | None:
    return None if moves is None else dumps({str(seat): move for seat, move in moves.items()})


def _step_times(db: sqlite3.Connection, match_id: int) -> list[float]:
    rows = db.execute("SELECT at FROM steps WHERE match_id = ? ORDER BY step", (match_id,))
    return [row[0] for row in rows]


def _copy_rows(source: sqlite3.Connection, dest: sqlite3.Connection, table: str) -> None:
    """The rows of ``table``, in the columns both schemas have."""
    have = {row[1] for row in dest.execute(f"PRAGMA table_info({table})")}
    if not have:
        return
    columns = [row[1] for row in source.execute(f"PRAGMA table_info({table})") if row[1] in have]
    listed = ", ".join(columns)
    rows = source.execute(f"SELECT {listed} FROM {table}").fetchall()
    marks = ", ".join("?" * len(columns))
    dest.executemany(f"INSERT INTO {table} ({listed}) VALUES ({marks})", rows)
