"""The SQLite backend (aiosqlite, WAL).

One connection serves the whole host. Each write is one transaction run in a single trip to the
connection's thread (see ``_write``), so two coroutines' statements never interleave.

Durability against a power loss or an OS crash, not only a killed process: ``add_attempt``
returns (and the move is acknowledged) only once the answers' journal holding it is synced to
disk (``bot.store.journal``; its transaction commits just after), and the delivery worker calls
``sync`` before sending, so no message tells of a change that could still be lost.
``synchronous=FULL`` would sync inside every commit, one at a time on the connection's thread
(about 8 ms each on a plain disk, so at most ~120 commits a second for the whole host); instead
commits run with ``NORMAL`` and ``sync`` syncs the WAL file once for every commit made meanwhile
(group commit), which gives the same guarantee where it is needed.

Size: a step keeps its snapshot only at checkpoints and while latest (``SNAPSHOT_EVERY``), and
the transaction that settles messages archives the match's delivered ones, compressed, in
chunks (``bot.store.archive``): a finished match is a few tens or hundreds of KB, not MB.

Group commit of changes (``_queue_change``): the matches' changes (a window closed, a step
resolved) queued while the connection's thread is busy go in one transaction, each in a
savepoint of its own, so one refused (a window closed meanwhile) or failing is undone alone.
At 1,200 live matches the thread was busy over half the time, and a deadline's change waited
behind the other changes due at that moment, each its own transaction; one transaction writes
the pages they share once. A transaction takes changes for ``CHANGES_BATCH_S`` at most, so an
answer waits no longer than it did behind one slow change.

The transactions themselves are ``bot.store.transactions``', shared with PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from functools import partial
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import Any, TypeAlias, TypeVar

import aiosqlite
import aiosqlite.core

from bot.store import Attempt, Change, WriteFailed
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
from bot.store.journal import AnswerJournal, journal_paths, replay
from bot.store.schema import MIGRATIONS
from bot.store.sql import SQLITE, Query, Work, drive

log = logging.getLogger(__name__)
T = TypeVar("T")
# A lock held for seconds while opening is another process keeping it (a second floral-host?):
# say so soon instead of the host's usual patience with busy moments.
OPEN_BUSY_TIMEOUT_MS = 2000
CHECKPOINT_EVERY_S = 1.0
WAL_RESTART_FRAMES = 1000  # SQLite's own checkpoint threshold
CHANGES_BATCH_S = 0.004  # the time one transaction of changes takes more (the rest: the next)


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
        # a writable store's answers' journal (``bot.store.journal``), the windows open in the
        # database (those an answer may still be kept in), and the journaled answers whose
        # transaction failed, written again each second
        self._journal: AnswerJournal | None = None
        self._open_windows: set[tuple[int, int]] = set()
        self._unwritten: list[tuple[int, Attempt]] = []
        self._answers: deque[tuple[int, Attempt]] = deque()  # for the next batch
        self._batch_queued = False
        self._changes: deque[_Change] = deque()  # for the next transaction of changes
        self._changes_queued = False

    @classmethod
    async def open(
        cls,
        path: Path | str,
        *,
        readonly: bool = False,
        any_older: bool = False,
        journal: bool = True,
    ) -> SqliteStore:
        """The store at ``path``, or :class:`UnusableDatabase` saying why the file cannot be used.

        Writable (the host): the file and its folder are made if missing, a newer schema is
        refused before anything is written, migrations run, and one committed write proves the
        file can be written, so a read-only file, a full disk or a lock fail here, at start.
        ``readonly`` (audit, export, list, backup): the file must exist; nothing is created.
        ``any_older`` (backup, which copies pages and reads no record): an older schema is fine.
        ``journal``: a writable store adds the answers' journal's lines the database lacks,
        then keeps the journal (``bot.store.journal``); only the process owning the database
        may (``bot.store.owner``): not one that runs beside it (``ratings --rebuild``).
        """
        path = Path(path)
        try:
            db = await (_connect_readonly(path) if readonly else _connect_writable(path))
        except (sqlite3.Error, OSError) as error:
            raise explain(path, error) from None
        store = cls(db, path)
        try:
            await store._prepare(readonly, any_older, journal)
        except BaseException as error:
            await db.close()
            cause = _storage_cause(error)
            if cause is not None:
                raise explain(path, cause) from None
            raise
        return store

    async def _prepare(self, readonly: bool, any_older: bool, journal: bool) -> None:
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
        if journal:
            await self._add_journaled()
            self._open_windows = set(await self._read(tx.open_windows()))
            self._journal = AnswerJournal(self.path)
            if self._wal_fd is None:  # (the replay's sync may have started them)
                self._wal_fd = await self._start_syncing()  # the checkpoints tend the journal

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
        with contextlib.suppress(sqlite3.Error, OSError):
            await self._write_again()
        await self._group_sync.stop()
        if self._checkpointing is not None:
            await asyncio.gather(self._checkpointing, return_exceptions=True)
        if self._wal_fd is not None:
            os.close(self._wal_fd)
            self._wal_fd = None
        await self._db.close()  # after the answers' transactions queued before
        if self._journal is not None:
            if not self._journal.unsaved:  # the last connection's close synced them all
                for index in (0, 1):
                    self._journal.empty(index)
            self._journal.close()
            self._journal = None

    async def add_attempt(self, attempt: Attempt) -> bool:
        """An accepted answer is durable, and may be acknowledged, once its journal line is
        synced (``bot.store.journal``); its transaction is queued first and commits soon after.

        Whether its window is open is known here, without the database: one process owns an
        SQLite database (``bot.store.owner``), and every window opens and closes in ``apply``
        (the host closes one under its match's lock, so no answer of the match is between
        this check and its transaction, which goes before any change queued later)."""
        journal = self._journal
        if attempt.verdict != "accepted" or journal is None or self.fence is not None:
            return await super().add_attempt(attempt)
        if (attempt.match_id, attempt.step) not in self._open_windows:
            return False
        try:
            number = journal.write(attempt)
        except OSError as error:
            raise WriteFailed(f"the answer could not be saved: {error}") from error
        self._answers.append((number, attempt))
        if not self._batch_queued:
            self._batch_queued = True
            self._queue(self._write_answers, ANSWERS).add_done_callback(self._answers_written)
        await journal.synced()
        return True

    def _write_answers(self) -> tuple[list[tuple[int, Attempt]], list[Attempt]]:
        """(On the connection's thread.) Every journaled answer queued so far, in one
        transaction: answers that arrive while the thread is busy share the next one."""
        self._batch_queued = False  # before taking them: one queued after is in a next batch
        batch = []
        while self._answers:
            batch.append(self._answers.popleft())
        if not batch:
            return batch, []
        work = tx.add_answers(self.dialect, [attempt for _, attempt in batch])
        try:
            return batch, _in_transaction(work, self._db._conn)
        except Exception as error:
            raise _AnswersNotWritten(batch) from error

    def _answers_written(
        self, done: asyncio.Future[tuple[list[tuple[int, Attempt]], list[Attempt]]]
    ) -> None:
        if self._journal is None or done.cancelled():  # (closed)
            return
        error = done.exception()
        if isinstance(error, _AnswersNotWritten):
            log.warning("%d answers will be written again: %s", len(error.batch), error.__cause__)
            self._unwritten += error.batch
            return
        batch, closed = done.result()
        for number, _ in batch:
            self._journal.saved(number)
        self._commits += bool(batch)
        for attempt in closed:  # never, by add_attempt's reasoning
            log.error(
                "match %d step %d: an answer's window closed before its move was kept",
                attempt.match_id,
                attempt.step,
            )

    async def apply(self, change: Change) -> bool:
        await self._write_again()
        applied = await super().apply(change)
        if applied and change.close_window is not None:
            self._open_windows.discard((change.match_id, change.close_window))
        if applied and change.open_window is not None:
            self._open_windows.add((change.match_id, change.open_window.step))
        return applied

    async def _add_journaled(self) -> None:
        """Add the journal's answers the database lacks (a crash came before their commit),
        then empty the journal."""
        attempts = replay(self.path)
        if attempts:
            added = await self._write(tx.add_journaled(self.dialect, attempts), durable=True)
            log.info("answers' journal: %d answers read, %d added", len(attempts), added)
        for path in journal_paths(self.path):
            if path.exists():
                os.truncate(path, 0)

    async def _write_again(self) -> None:
        """Write the answers whose transaction failed (each second, and before a change: a
        match's answers are logged before its next step)."""
        if not self._unwritten or self._journal is None:
            return
        failed, self._unwritten = self._unwritten, []
        try:
            await self._write(tx.add_journaled(self.dialect, [a for _, a in failed]), first=True)
        except (sqlite3.Error, OSError) as error:
            log.warning("%d answers could not be written again yet: %s", len(failed), error)
            self._unwritten = failed + self._unwritten
        else:
            for number, _ in failed:
                self._journal.saved(number)

    async def _tend_journal(self) -> None:
        """Write again the answers whose transaction failed; empty the other file once all its
        answers are in the database and synced, and turn to it."""
        journal = self._journal
        if journal is None:
            return
        await self._write_again()
        other = journal.rotated_out()
        if other is not None:
            try:
                await self.sync()
            except WriteFailed as error:
                log.warning("answers' journal kept: %s", error)
            else:
                journal.empty(other)
        journal.turn()

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
        if durable:  # an answer (its acknowledgement waits)
            result: T = await self._first(partial(_in_transaction, work, self._db._conn), ANSWERS)
        elif first:  # a match's change, with the others due (a deadline's resolution waits)
            result = await self._queue_change(work)
        else:
            run = self._db._execute
            result = await run(_in_transaction, work, self._db._conn)  # type: ignore[no-untyped-call]
        self._commits += 1
        if durable:
            await self.sync()
        return result

    def _queue_change(self, work: Work[T]) -> asyncio.Future[T]:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._changes.append((future, work))
        self._queue_changes()
        return future

    def _queue_changes(self) -> None:
        """A transaction for the changes waiting, unless one is queued already."""
        if self._changes and not self._changes_queued:
            self._changes_queued = True
            self._queue(self._write_changes, CHANGES).add_done_callback(self._changes_written)

    def _write_changes(self) -> list[tuple[_Change, _Outcome]]:
        """(On the connection's thread.) The changes queued so far, in one transaction, for
        ``CHANGES_BATCH_S`` at most; those left go in the next (queued again, behind the
        answers queued meanwhile). A change that raises is undone alone; a failure of the
        transaction itself (a full disk) fails it and every change queued."""
        self._changes_queued = False  # before taking them: one queued after is in a next batch
        if not self._changes:  # (all taken by the transaction before)
            return []
        db = self._db._conn
        taken: list[_Change] = []
        outcomes: list[_Outcome] = []
        try:
            db.execute("BEGIN IMMEDIATE")
            started = time.perf_counter()
            while self._changes and (not taken or time.perf_counter() - started < CHANGES_BATCH_S):
                taken.append(self._changes.popleft())
                outcomes.append(_in_savepoint(taken[-1][1], db))
            db.execute("COMMIT")
        except BaseException as error:
            if db.in_transaction:  # SQLite may have rolled back already (disk full)
                db.execute("ROLLBACK")
            while self._changes:
                taken.append(self._changes.popleft())
            raise _ChangesNotWritten(taken) from error
        return list(zip(taken, outcomes, strict=True))

    def _changes_written(self, done: asyncio.Future[list[tuple[_Change, _Outcome]]]) -> None:
        """(On the loop.) Each change's outcome to its waiter; the changes left for a next
        transaction queued."""
        if done.cancelled():  # (closed)
            return
        error = done.exception()
        if isinstance(error, _ChangesNotWritten):
            for future, _ in error.changes:
                if not future.done():
                    future.set_exception(error.__cause__ or error)
        elif error is None:
            for (future, _), (result, failure) in done.result():
                if future.done():
                    continue
                if failure is not None:
                    future.set_exception(failure)
                else:
                    future.set_result(result)
        self._queue_changes()
        if error is not None and not isinstance(error, _ChangesNotWritten):
            raise error

    async def _first(self, call: Callable[[], T], lane: int) -> T:
        """Run ``call`` on the connection's thread before the calls of the later lanes queued
        so far (after the one running, and those of its lane and the earlier ones)."""
        return await self._queue(call, lane)

    def _queue(self, call: Callable[[], T], lane: int) -> asyncio.Future[T]:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._lanes.put((future, call), lane)
        return future

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
                if not self._closing.is_set():
                    await self._tend_journal()
                if self._commits:
                    self._commits = 0
                    frames = await asyncio.to_thread(_checkpoint_beside, other)
                    if frames > WAL_RESTART_FRAMES and not self._closing.is_set():
                        await self._db._execute(_restart_wal, self._db._conn)  # type: ignore[no-untyped-call]
        finally:
            await asyncio.to_thread(other.close)


_Change: TypeAlias = "tuple[asyncio.Future[Any], Work[Any]]"  # a change's waiter and its work
_Outcome: TypeAlias = tuple[Any, Exception | None]  # its result, or what it raised


def _in_savepoint(work: Work[Any], db: sqlite3.Connection) -> _Outcome:
    """A change within the transaction of several: undone alone if it raises (unless SQLite
    undid the whole transaction: then raised)."""
    db.execute("SAVEPOINT change")
    try:
        result = _drive(work, db)
    except Exception as error:
        if not db.in_transaction:
            raise
        db.execute("ROLLBACK TO change")
        db.execute("RELEASE change")
        return None, error
    db.execute("RELEASE change")
    return result, None


class _ChangesNotWritten(Exception):
    def __init__(self, changes: list[_Change]) -> None:
        super().__init__(f"{len(changes)} changes not written")
        self.changes = changes


class _AnswersNotWritten(Exception):
    def __init__(self, batch: list[tuple[int, Attempt]]) -> None:
        super().__init__(f"{len(batch)} answers not written")
        self.batch = batch


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
