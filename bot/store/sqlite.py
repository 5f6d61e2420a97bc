"""The SQLite backend (aiosqlite, WAL).

One connection serves the whole host. Each write is one transaction run in a single trip to the
connection's thread (see ``_write``), so two coroutines' statements never interleave.

Durability against a power loss or an OS crash, not only a killed process: ``add_attempt``
returns (and the move is acknowledged) only once the WAL holding it is synced to disk, and the
delivery worker calls ``sync`` before sending, so no message tells of a change that could still
be lost. ``synchronous=FULL`` would sync inside every commit, one at a time on the connection's
thread (about 8 ms each on a plain disk, so at most ~120 commits a second for the whole host);
instead commits run with ``NORMAL`` and ``sync`` syncs the WAL file once for every commit made
meanwhile (group commit), which gives the same guarantee where it is needed.

Size: a step keeps its snapshot only at checkpoints and while latest (``SNAPSHOT_EVERY``), and
the transaction that settles messages archives the match's delivered ones, compressed, in
chunks (``bot.store.archive``): a finished match is a few tens or hundreds of KB, not MB.

The transactions themselves are ``bot.store.transactions``', shared with PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from functools import partial
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import Any, TypeAlias, TypeVar

import aiosqlite
import aiosqlite.core

from bot.store import transactions as tx
from bot.store.common import (
    SQLITE_KIND,
    GroupSync,
    Session,
    SqlStore,
    check_tables,
    check_version,
)
from bot.store.faults import UnusableDatabase, explain
from bot.store.schema import MIGRATIONS
from bot.store.sql import SQLITE, Query, Work, drive

log = logging.getLogger(__name__)
T = TypeVar("T")
# A lock held for seconds while opening is another process keeping it (a second floral-host?):
# say so soon instead of the host's usual patience with busy moments.
OPEN_BUSY_TIMEOUT_MS = 2000
CHECKPOINT_EVERY_S = 1.0
WAL_RESTART_FRAMES = 1000  # SQLite's own checkpoint threshold


class SqliteStore(SqlStore):
    dialect = SQLITE

    def __init__(self, db: aiosqlite.Connection, path: Path) -> None:
        self._db = db
        self._lanes: _Lanes = db._tx  # type: ignore[assignment]  # (``_connect``)
        self.path = path
        self.where = str(path)
        self._wal_fd: int | None = None
        self._commits = 0  # since the last checkpoint
        self._closing = asyncio.Event()
        self._checkpointing: asyncio.Task[None] | None = None
        self._group_sync = GroupSync(self._sync_wal)

    @classmethod
    async def open(
        cls, path: Path | str, *, readonly: bool = False, any_older: bool = False
    ) -> SqliteStore:
        """The store at ``path``, or :class:`UnusableDatabase` saying why the file cannot be used.

        Writable (the host): the file and its folder are made if missing, a newer schema is
        refused before anything is written, migrations run, and one committed write proves the
        file can be written, so a read-only file, a full disk or a lock fail here, at start.
        ``readonly`` (audit, export, list, backup): the file must exist; nothing is created.
        ``any_older`` (backup, which copies pages and reads no record): an older schema is fine.
        """
        path = Path(path)
        try:
            db = await (_connect_readonly(path) if readonly else _connect_writable(path))
        except (sqlite3.Error, OSError) as error:
            raise explain(path, error) from None
        store = cls(db, path)
        try:
            await store._prepare(readonly, any_older)
        except BaseException as error:
            await db.close()
            cause = _storage_cause(error)
            if cause is not None:
                raise explain(path, cause) from None
            raise
        return store

    async def _prepare(self, readonly: bool, any_older: bool) -> None:
        db = self._db
        await db.execute(f"PRAGMA busy_timeout={OPEN_BUSY_TIMEOUT_MS}")
        rows = await db.execute_fetchall(self.dialect.tables)
        made = check_tables(self.where, {row[0] for row in rows}, readonly, SQLITE_KIND)
        check_version(self.where, await self.schema_version() if made else 0, readonly, any_older)
        if readonly:
            return
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute("PRAGMA synchronous=NORMAL")  # acks and deliveries wait for sync()
        await self._migrate()
        await self._write(tx.touch_schema_row())
        await db.execute("PRAGMA busy_timeout=5000")
        await self._archive_ended()

    async def vacuum(self) -> None:
        """Rebuild the file without its free pages, and empty the WAL the rebuild went through.
        Only for a process that owns the database (``bot.store.owner``): VACUUM needs every
        other connection's transactions finished, and rewrites every page."""
        await self._db.execute("VACUUM")
        await self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    async def size(self) -> int:
        """The file and its WAL."""
        files = (self.path, self.path.with_name(self.path.name + "-wal"))
        return sum(file.stat().st_size for file in files if file.exists())

    async def backup(self, dest: Path) -> str:
        """A consistent copy of the whole database into the new file ``dest`` (SQLite's backup
        API, one step: in WAL mode a reader never blocks the host's writes, and committed rows
        still only in the -wal file are copied). The copy is a single file (no -wal). Returns
        SQLite's quick check of the copy: "ok", or what is damaged."""
        target = sqlite3.connect(dest, isolation_level=None, check_same_thread=False)
        try:
            await self._db.backup(target)
            try:
                target.execute("PRAGMA journal_mode=DELETE")
                return str(target.execute("PRAGMA quick_check").fetchone()[0])
            except sqlite3.OperationalError:  # the copy's disk: full, I/O
                raise
            except sqlite3.DatabaseError as error:  # the copy is as damaged as the source
                return str(error)
        finally:
            target.close()

    async def close(self) -> None:
        self._closing.set()
        await self._group_sync.stop()
        if self._checkpointing is not None:
            await asyncio.gather(self._checkpointing, return_exceptions=True)
        if self._wal_fd is not None:
            os.close(self._wal_fd)
            self._wal_fd = None
        await self._db.close()

    async def _migrate(self) -> None:
        await self._db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations"
            " (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        rows = await self._db.execute_fetchall("SELECT version FROM schema_migrations")
        done = {row[0] for row in rows}
        for version, sql in MIGRATIONS:
            if version in done:
                continue
            log.info("applying schema migration %d", version)
            # one script, one transaction: a crash leaves the migration fully applied or not
            await self._db.executescript(
                f"BEGIN IMMEDIATE;\n{sql}\nINSERT INTO schema_migrations"
                f" VALUES ({version}, datetime('now'));\nCOMMIT;"
            )

    async def _write(
        self, work: Work[T], *, durable: bool = False, exact: bool = True, first: bool = False
    ) -> T:
        """Run ``work`` as one transaction in one trip to the connection's thread.

        A transaction made of one awaited statement after another costs a thread round trip per
        statement and needs an asyncio lock around it; under load those round trips were the
        host's bottleneck. aiosqlite runs queued calls one at a time, so whole transactions
        queued this way never interleave. ``_execute`` is aiosqlite's own queueing primitive
        (every public method goes through it); it is not part of its documented API.
        """
        if durable or first:  # an answer (its acknowledgement waits), then a match's change
            call = partial(_in_transaction, work, self._db._conn)
            result: T = await self._first(call, ANSWERS if durable else CHANGES)
        else:
            run = self._db._execute
            result = await run(_in_transaction, work, self._db._conn)  # type: ignore[no-untyped-call]
        self._commits += 1
        if durable:
            await self.sync()
        return result

    async def _first(self, call: Callable[[], T], lane: int) -> T:
        """Run ``call`` on the connection's thread before the calls of the later lanes queued
        so far (after the one running, and those of its lane and the earlier ones)."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._lanes.put((future, call), lane)
        return await future

    async def _read(self, work: Work[T]) -> T:
        """Run ``work`` in the connection's thread: rows are decoded there, not on the loop."""
        run = self._db._execute
        result: T = await run(_drive, work, self._db._conn)  # type: ignore[no-untyped-call]
        return result

    def _passing(self, error: Exception) -> bool:
        return isinstance(error, sqlite3.OperationalError)  # locked, full, I/O

    @contextlib.asynccontextmanager
    async def session(self, *, readonly: bool = False) -> AsyncIterator[Session]:
        await self._db.execute("BEGIN" if readonly else "BEGIN IMMEDIATE")
        try:
            yield _SqliteSession(self)
        except BaseException:
            if self._db.in_transaction:
                await self._db.execute("ROLLBACK")
            raise
        await self._db.execute("COMMIT")

    async def sync(self) -> None:
        """Wait for a sync of the WAL that starts after this call: every commit made before
        it is then on disk. Commits made while one sync runs share the next one."""
        await self._group_sync()

    async def _sync_wal(self) -> None:
        """Sync the WAL file (as SQLite's FULL would in each commit): every commit made before
        is then on disk. ``sync`` (a GroupSync) shares one among the commits made meanwhile."""
        if self._wal_fd is None:
            self._wal_fd = await self._start_syncing()
        await asyncio.to_thread(os.fdatasync, self._wal_fd)

    async def _start_syncing(self) -> int:
        """The WAL file's descriptor; from now on checkpoints run beside the writes."""
        path = await self._db._execute(_manual_checkpoints, self._db._conn)  # type: ignore[no-untyped-call]
        wal_fd = os.open(f"{path}-wal", os.O_RDONLY)
        self._checkpointing = asyncio.create_task(self._checkpoint(path), name="wal-checkpoint")
        return wal_fd

    async def _checkpoint(self, path: str) -> None:
        """Copy the WAL into the database from a second connection, each second there were
        commits. Left to SQLite, the commit that fills the WAL does it, with two syncs, and
        every write queued behind it waits (a commit's p99 was 22 ms at 1,000 matches, 1 ms
        with this). The last connection to close checkpoints what is left."""
        other = await asyncio.to_thread(sqlite3.connect, path, timeout=5.0, check_same_thread=False)
        try:
            while not self._closing.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(CHECKPOINT_EVERY_S):
                        await self._closing.wait()
                if self._commits:
                    self._commits = 0
                    frames = await asyncio.to_thread(_checkpoint_beside, other)
                    if frames > WAL_RESTART_FRAMES and not self._closing.is_set():
                        await self._db._execute(_restart_wal, self._db._conn)  # type: ignore[no-untyped-call]
        finally:
            await asyncio.to_thread(other.close)


class _SqliteSession(Session):
    def __init__(self, store: SqliteStore) -> None:
        self._store = store

    async def run(self, work: Work[T]) -> T:
        return await self._store._read(work)  # inside the session's transaction


_Call: TypeAlias = tuple["asyncio.Future[Any] | None", Callable[[], Any]]


ANSWERS, CHANGES, REST = 0, 1, 2  # the lanes of the connection's thread, first to last


class _Lanes:
    """aiosqlite's queue of calls for the connection's thread, in lanes taken first to last:
    an answer's transaction (its acknowledgement waits for it), then a match's change (a
    deadline's resolution waits for it), then the rest (the outbox's reads and records,
    queries): an answer waits at most for the call under way and the answers before it. Each
    call is queued, then a token; the one thread takes a token, then the call at the head of
    the first lane that has one (there is one: the calls are queued before their tokens, and
    only this thread takes them)."""

    def __init__(self) -> None:
        self._tokens: SimpleQueue[None] = SimpleQueue()
        self._lanes: tuple[SimpleQueue[_Call], ...] = tuple(SimpleQueue() for _ in range(3))

    def put_nowait(self, call: _Call) -> None:
        """(aiosqlite's own calls)"""
        self.put(call, REST)

    def put(self, call: _Call, lane: int) -> None:
        self._lanes[lane].put_nowait(call)
        self._tokens.put_nowait(None)

    def get(self) -> _Call:
        self._tokens.get()
        for lane in self._lanes:
            with contextlib.suppress(Empty):
                return lane.get_nowait()
        raise AssertionError("a token without a call")


def _run_query(db: sqlite3.Connection, query: Query) -> Any:
    if query.kind == "fetch":
        return db.execute(query.sql, query.params).fetchall()
    if query.kind == "many":
        db.executemany(query.sql, query.params)
        return None
    count = db.execute(query.sql, query.params).rowcount
    return count if query.kind == "changed" else None


def _drive(work: Work[T], db: sqlite3.Connection) -> T:
    return drive(work, partial(_run_query, db))


def _in_transaction(work: Work[T], db: sqlite3.Connection) -> T:
    db.execute("BEGIN IMMEDIATE")
    try:
        result = _drive(work, db)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # SQLite may have rolled back already (disk full)
            db.execute("ROLLBACK")
        raise
    return result


async def _connect(target: str) -> aiosqlite.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves
    connection = aiosqlite.connect(target, uri=True, isolation_level=None)
    # its thread, not started yet, takes its calls from lanes (``_Lanes``); daemon: a
    # connection an error path failed to close never keeps the process from exiting
    lanes = _Lanes()
    connection._tx = lanes  # type: ignore[assignment]
    worker = aiosqlite.core._connection_worker_thread
    connection._thread = threading.Thread(target=worker, args=(lanes,), daemon=True)
    try:
        return await connection
    except BaseException:
        # aiosqlite stops its thread without waiting for it: wait here, while the loop still
        # runs, or the thread reports to a closed loop and prints a traceback at exit
        await asyncio.to_thread(connection._thread.join, 5.0)
        raise


async def _connect_writable(path: Path) -> aiosqlite.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    return await _connect(path.absolute().as_uri())


async def _connect_readonly(path: Path) -> aiosqlite.Connection:
    """Open an existing file read-only, creating nothing; raises UnusableDatabase when missing."""
    if not path.is_file():
        raise UnusableDatabase(path, "no database here", "check --db or FLORAL_DB")
    if path.stat().st_size == 0:
        raise UnusableDatabase(path, "the file is empty", "check --db or FLORAL_DB")
    db = await _connect(f"{path.absolute().as_uri()}?mode=ro")
    try:
        await db.execute("SELECT count(*) FROM sqlite_master")
    except sqlite3.Error as error:
        await db.close()
        if not isinstance(error, sqlite3.OperationalError) or not _wal_unreadable_here(path):
            raise
        # A WAL database in a read-only folder (a mounted backup): its -shm cannot be made.
        # With no -wal file beside it there is no writer and nothing uncommitted: read it as is.
        db = await _connect(f"{path.absolute().as_uri()}?mode=ro&immutable=1")
    return db


def _storage_cause(error: BaseException | None) -> sqlite3.Error | OSError | None:
    """The SQLite or OS error behind ``error`` (itself, or what a failed write wraps)."""
    while error is not None and not isinstance(error, sqlite3.Error | OSError):
        error = error.__cause__
    return error


def _wal_unreadable_here(path: Path) -> bool:
    return not Path(f"{path}-wal").exists() and not os.access(path.parent, os.W_OK)


def _manual_checkpoints(db: sqlite3.Connection) -> str:
    """Turn off the connection's own checkpoints (``_checkpoint`` runs them); the file's path."""
    db.execute("PRAGMA wal_autocheckpoint=0")
    main = next(row for row in db.execute("PRAGMA database_list") if row[1] == "main")
    return str(main[2])


def _checkpoint_beside(db: sqlite3.Connection) -> int:
    """A passive checkpoint: it copies the WAL without blocking anyone; the frames the WAL
    held. Under a steady stream of commits the WAL then never starts again from its beginning
    (frames arrive while it copies) and grows for ever: ``_restart_wal`` follows."""
    try:
        _, frames, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    except sqlite3.OperationalError as error:  # a full disk, an I/O error: try again later
        log.warning("WAL checkpoint failed: %s", error)
        return 0
    return int(frames)


def _restart_wal(db: sqlite3.Connection) -> None:
    """Copy the few frames left since the passive checkpoint and start the WAL again from its
    beginning (the next commit does). Run on the writer's own thread, between two of its
    transactions, it has no writer to wait for: from the second connection, a RESTART waited
    for the writer through SQLite's busy handler (sleeps of 1, 2, 5, 10 ms...) and held every
    write back meanwhile, 10 to 50 ms each second at 900 matches; an answer queued meanwhile
    still goes first after it (``_Lanes``)."""
    try:
        db.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()
    except sqlite3.OperationalError as error:
        log.warning("WAL checkpoint failed: %s", error)
