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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.store import (
    Attempt,
    Change,
    FirstMessages,
    LogEntry,
    MatchRecord,
    MatchStatus,
    NewMatch,
    OutboxMessage,
    OutboxRow,
    Rater,
    Rating,
    Retry,
    StepRecord,
    TableRecord,
    Taken,
    WindowRecord,
    WriteFailed,
    archive,
    keeps_snapshot,
)
from bot.store.archive import ARCHIVE_EVERY
from bot.store.faults import UnusableDatabase, explain
from bot.store.schema import LATEST_VERSION, MIGRATIONS
from games.protocol import JSON

log = logging.getLogger(__name__)
T = TypeVar("T")
# A lock held for seconds while opening is another process keeping it (a second floral-host?):
# say so soon instead of the host's usual patience with busy moments.
OPEN_BUSY_TIMEOUT_MS = 2000
CHECKPOINT_EVERY_S = 1.0
WAL_RESTART_FRAMES = 1000  # SQLite's own checkpoint threshold

_MATCH_COLUMNS = (
    "id, game, guild_id, channel_id, players, names, moderators, config, seed, window_s,"
    " status, step, outcome, created_at, timers, practice, ended_at, ended_seq, pruned_at"
)
_RATING_COLUMNS = "guild_id, game, user_id, name, mu, sigma, matches, wins, losses, updated_at"
_OUTBOX_SELECT = (
    "SELECT o.id, o.match_id, o.audience, o.text, o.payload, o.status, o.tries, o.next_try,"
    " m.guild_id, m.channel_id, m.players, m.moderators, o.created_at"
    " FROM outbox o JOIN matches m ON m.id = o.match_id"
)


def dumps(value: JSON) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _seat_keys(data: dict[str, Any] | None) -> dict[int, Any] | None:
    return None if data is None else {int(seat): value for seat, value in data.items()}


class SqliteStore:
    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._wal_fd: int | None = None
        self._commits = 0  # since the last checkpoint
        self._closing = asyncio.Event()
        self._checkpointing: asyncio.Task[None] | None = None
        self._next_sync: asyncio.Future[None] | None = None  # the sync the next waiters share
        self._syncing: asyncio.Task[None] | None = None

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
        store = cls(db)
        try:
            await store._prepare(path, readonly, any_older)
        except BaseException as error:
            await db.close()
            cause = _storage_cause(error)
            if cause is not None:
                raise explain(path, cause) from None
            raise
        return store

    async def _prepare(self, path: Path, readonly: bool, any_older: bool) -> None:
        db = self._db
        await db.execute(f"PRAGMA busy_timeout={OPEN_BUSY_TIMEOUT_MS}")
        version = await self._stored_version(path, readonly)
        if readonly:
            if version < LATEST_VERSION and not any_older:
                raise UnusableDatabase(
                    path,
                    f"schema version {version} is older than this floral-host's {LATEST_VERSION}",
                    "start floral-host run once to upgrade it, or use the version that wrote it",
                )
            return
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute("PRAGMA synchronous=NORMAL")  # acks and deliveries wait for sync()
        await self._migrate()
        await self._write(_touch_schema_row)
        await db.execute("PRAGMA busy_timeout=5000")
        await self._archive_ended()

    async def _archive_ended(self) -> None:
        """Archive the messages of the matches over that still hold settled ones, one match a
        transaction (after an upgrade: every match that ended before it)."""
        waiting = await self._read(_unarchived)
        if len(waiting) > 1:
            log.info("archiving the delivered messages of %d ended matches", len(waiting))
        for match_id in waiting:
            await self._write(partial(_archive_settled, match_id=match_id))

    async def transaction(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` as one transaction in the connection's thread (the operator's commands:
        ``prune``, ``forget``); any error rolls it all back."""
        return await self._write(fn)

    async def vacuum(self) -> None:
        """Rebuild the file without its free pages, and empty the WAL the rebuild went through.
        Only for a process that owns the database (``bot.store.owner``): VACUUM needs every
        other connection's transactions finished, and rewrites every page."""
        await self._db.execute("VACUUM")
        await self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    async def _stored_version(self, path: Path, readonly: bool) -> int:
        """The schema version; refuses another program's database and a newer floral-host's."""
        rows = await self._fetch("SELECT name FROM sqlite_master WHERE type = 'table'")
        tables = {row[0] for row in rows}
        if "schema_migrations" not in tables:
            if tables or readonly:
                raise UnusableDatabase(
                    path,
                    "an SQLite database that is not floral-host's" if tables else "holds no data",
                    "point --db or FLORAL_DB at floral-host's database",
                )
            return 0
        version = await self.schema_version()
        if version > LATEST_VERSION:
            raise UnusableDatabase(
                path,
                f"written by a newer floral-host (schema version {version}, this one knows up"
                f" to {LATEST_VERSION})",
                "it is left untouched: upgrade floral-host, or use a backup made by this version",
            )
        return version

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
        for task in (self._syncing, self._checkpointing):
            if task is not None:
                await asyncio.gather(task, return_exceptions=True)
        if self._wal_fd is not None:
            os.close(self._wal_fd)
            self._wal_fd = None
        await self._db.close()

    async def match_count(self) -> int:
        rows = await self._fetch("SELECT count(*) FROM matches")
        return int(next(iter(rows))[0])

    async def schema_version(self) -> int:
        rows = await self._fetch("SELECT MAX(version) FROM schema_migrations")
        return int(next(iter(rows))[0] or 0)

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

    async def _write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` as one transaction in one trip to the connection's thread.

        A transaction made of one awaited statement after another costs a thread round trip per
        statement and needs an asyncio lock around it; under load those round trips were the
        host's bottleneck. aiosqlite runs queued calls one at a time, so whole transactions
        queued this way never interleave. ``_execute`` is aiosqlite's own queueing primitive
        (every public method goes through it); it is not part of its documented API.
        """
        run = self._db._execute
        result: T = await run(_in_transaction, fn, self._db._conn)  # type: ignore[no-untyped-call]
        return result

    async def _save(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``_write`` for the host's writes: a failure that may pass becomes WriteFailed."""
        try:
            result = await self._write(fn)
        except sqlite3.OperationalError as error:  # locked past the busy timeout, full, I/O
            raise WriteFailed(f"the database could not be written: {error}") from error
        self._commits += 1
        return result

    async def sync(self) -> None:
        """Wait for a sync of the WAL that starts after this call: every commit made before
        it is then on disk. Commits made while one sync runs share the next one."""
        if self._next_sync is None:
            self._next_sync = asyncio.get_running_loop().create_future()
        if self._syncing is None:
            self._syncing = asyncio.create_task(self._sync_wal(), name="wal-sync")
        await asyncio.shield(self._next_sync)

    async def _sync_wal(self) -> None:
        waiting: asyncio.Future[None] | None = None
        try:
            while self._next_sync is not None:
                waiting, self._next_sync = self._next_sync, None
                try:
                    if self._wal_fd is None:
                        self._wal_fd = await self._start_syncing()
                    await asyncio.to_thread(os.fdatasync, self._wal_fd)  # as SQLite's FULL
                except OSError as error:
                    waiting.set_exception(WriteFailed(f"the database could not be synced: {error}"))
                else:
                    waiting.set_result(None)
        finally:
            self._syncing = None
            for future in (waiting, self._next_sync):  # stopped midway (cancelled): no waiter hangs
                if future is not None and not future.done():
                    future.set_exception(WriteFailed("the database sync was interrupted"))
            self._next_sync = None

    async def _start_syncing(self) -> int:
        """The WAL file's descriptor; from now on checkpoints run beside the writes."""
        path = await self._read(_manual_checkpoints)
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
                    await asyncio.to_thread(_checkpoint_beside, other)
        finally:
            await asyncio.to_thread(other.close)

    async def _fetch(self, sql: str, params: Sequence[Any] = ()) -> Iterable[Any]:
        return await self._db.execute_fetchall(sql, params)

    async def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in the connection's thread: rows are decoded there, not on the loop."""
        run = self._db._execute
        result: T = await run(fn, self._db._conn)  # type: ignore[no-untyped-call]
        return result

    # --- writes -------------------------------------------------------------------------

    async def create_match(
        self, new: NewMatch, snapshot: JSON, at: float, outbox: FirstMessages
    ) -> int:
        return await self._save(lambda db: _create_match(db, new, snapshot, at, outbox))

    async def add_attempt(self, attempt: Attempt) -> bool:
        try:
            await self._save(lambda db: _insert_attempt(db, attempt))
        except _WindowClosed:
            return False
        await self.sync()  # an accepted move is acknowledged once this returns
        return True

    async def apply(self, change: Change) -> bool:
        try:
            await self._save(lambda db: _apply(db, change))
        except _WindowClosed:
            return False
        return True

    async def settle_outbox(
        self, sent: Sequence[int], retries: Sequence[Retry], failed: Sequence[Retry], at: float
    ) -> None:
        await self._save(lambda db: _settle(db, sent, retries, failed, at))

    async def create_table(
        self, guild_id: int, channel_id: int, game: str, opener: int, seats: int, at: float
    ) -> TableRecord:
        def insert(db: sqlite3.Connection) -> int:
            cursor = db.execute(
                "INSERT INTO tables (guild_id, channel_id, game, opener, seats, players, status,"
                " created_at) VALUES (?, ?, ?, ?, ?, '[]', 'open', ?)",
                (guild_id, channel_id, game, opener, seats, at),
            )
            assert cursor.lastrowid is not None
            return cursor.lastrowid

        table_id = await self._save(insert)
        return TableRecord(
            table_id, guild_id, channel_id, game, opener, seats, (), "open", None, at
        )

    async def update_table(self, table: TableRecord) -> None:
        players = dumps([[user, name] for user, name in table.players])
        await self._save(
            lambda db: db.execute(
                "UPDATE tables SET players = ?, status = ?, match_id = ? WHERE id = ?",
                (players, table.status, table.match_id, table.id),
            )
        )

    async def set_thread(self, match_id: int, thread_id: int) -> None:
        await self._save(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO match_threads (match_id, thread_id) VALUES (?, ?)",
                (match_id, thread_id),
            )
        )

    # --- reads --------------------------------------------------------------------------

    async def thread_of(self, match_id: int) -> int | None:
        rows = list(
            await self._fetch("SELECT thread_id FROM match_threads WHERE match_id = ?", (match_id,))
        )
        return int(rows[0][0]) if rows else None

    async def get_table(self, table_id: int) -> TableRecord | None:
        rows = list(
            await self._fetch(f"SELECT {_TABLE_COLUMNS} FROM tables WHERE id = ?", (table_id,))
        )
        return _table(rows[0]) if rows else None

    async def open_tables(self) -> list[TableRecord]:
        rows = await self._fetch(
            f"SELECT {_TABLE_COLUMNS} FROM tables WHERE status = 'open' ORDER BY id"
        )
        return [_table(row) for row in rows]

    async def get_match(self, match_id: int) -> MatchRecord | None:
        rows = list(
            await self._fetch(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE id = ?", (match_id,))
        )
        return _match(rows[0]) if rows else None

    async def list_matches(
        self, guild_id: int | None = None, statuses: Sequence[MatchStatus] | None = None
    ) -> list[MatchRecord]:
        where, params = ["1 = 1"], []  # type: tuple[list[str], list[Any]]
        if guild_id is not None:
            where.append("guild_id = ?")
            params.append(guild_id)
        if statuses is not None:
            where.append(f"status IN ({', '.join('?' * len(statuses))})")
            params.extend(statuses)
        rows = await self._fetch(
            f"SELECT {_MATCH_COLUMNS} FROM matches WHERE {' AND '.join(where)} ORDER BY id",
            params,
        )
        return [_match(row) for row in rows]

    async def finished_matches(
        self, guild_id: int, user_id: int | None = None, *, offset: int = 0, limit: int = 15
    ) -> tuple[list[MatchRecord], int]:
        where = "guild_id = ? AND status = 'finished'"
        params: list[Any] = [guild_id]
        if user_id is not None:
            where += " AND EXISTS (SELECT 1 FROM json_each(players) WHERE value = ?)"
            params.append(user_id)

        def read(db: sqlite3.Connection) -> tuple[list[MatchRecord], int]:
            total = db.execute(f"SELECT count(*) FROM matches WHERE {where}", params).fetchone()
            rows = db.execute(
                f"SELECT {_MATCH_COLUMNS} FROM matches WHERE {where}"
                " ORDER BY ended_seq DESC LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
            return [_match(row) for row in rows], int(total[0])

        return await self._read(read)

    async def fold_ratings(
        self, rate: Rater, *, limit: int | None = 1, rebuild: bool = False
    ) -> int:
        if not rebuild and not await self._read(_unfolded):  # no write when nothing is new
            return 0
        return await self._save(lambda db: _fold_ratings(db, rate, limit, rebuild))

    async def ratings(
        self, guild_id: int | None, game: str | None = None, user_id: int | None = None
    ) -> list[Rating]:
        where, params = ["1 = 1"], []  # type: tuple[list[str], list[Any]]
        for column, value in (("guild_id", guild_id), ("game", game), ("user_id", user_id)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        rows = await self._fetch(
            f"SELECT {_RATING_COLUMNS} FROM ratings WHERE {' AND '.join(where)}"
            " ORDER BY guild_id, game, user_id",
            params,
        )
        return [Rating(*row) for row in rows]

    async def open_window(self, match_id: int) -> WindowRecord | None:
        rows = list(
            await self._fetch(
                "SELECT step, seats, deadline, remaining, reminded, prompted FROM windows"
                " WHERE match_id = ? AND status = 'open'",
                (match_id,),
            )
        )
        if not rows:
            return None
        step, seats, deadline, remaining, reminded, prompted = rows[0]
        moves = await self._fetch(  # in arrival order: the order resolve gets them
            "SELECT seat, move FROM moves m WHERE match_id = ? AND step = ? ORDER BY"
            " (SELECT MIN(a.id) FROM attempts a WHERE a.match_id = m.match_id"
            " AND a.step = m.step AND a.seat = m.seat AND a.verdict = 'accepted')",
            (match_id, step),
        )
        return WindowRecord(
            match_id,
            step,
            tuple(json.loads(seats)),
            deadline,
            remaining,
            bool(reminded),
            {seat: json.loads(move) for seat, move in moves},
            {int(seat): step for seat, step in json.loads(prompted or "{}").items()},
        )

    async def latest_step(self, match_id: int) -> StepRecord:
        rows = await self._fetch(
            "SELECT match_id, step, kind, moves, snapshot FROM steps"
            " WHERE match_id = ? ORDER BY step DESC LIMIT 1",
            (match_id,),
        )
        return _step(next(iter(rows)))

    async def steps(self, match_id: int) -> list[StepRecord]:
        return await self._read(lambda db: read_steps(db, match_id))

    async def attempts(self, match_id: int) -> list[Attempt]:
        rows = await self._fetch(
            "SELECT match_id, step, seat, user_id, raw, verdict, reason, move, at FROM attempts"
            " WHERE match_id = ? ORDER BY id",
            (match_id,),
        )
        return [
            Attempt(m, step, seat, user, raw, verdict, reason, _loads(move), at)
            for m, step, seat, user, raw, verdict, reason, move, at in rows
        ]

    async def match_log(self, match_id: int) -> list[LogEntry]:
        rows = await self._fetch(
            "SELECT kind, by_user, data, at FROM match_log WHERE match_id = ? ORDER BY id",
            (match_id,),
        )
        return [LogEntry(kind, by_user, _loads(data), at) for kind, by_user, data, at in rows]

    async def outbox(self, match_id: int) -> list[OutboxRow]:
        """Every message of the match in order: those archived and those still in the outbox."""
        return await self._read(lambda db: _match_outbox(db, match_id))

    async def due_outbox(self, now: float, limit: int) -> tuple[list[OutboxRow], float | None]:
        return await self._read(lambda db: _due_outbox(db, now, limit))


async def _connect(target: str) -> aiosqlite.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves
    connection = aiosqlite.connect(target, uri=True, isolation_level=None)
    # daemon: a connection an error path failed to close never keeps the process from exiting
    connection._thread.daemon = True
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


def _touch_schema_row(db: sqlite3.Connection) -> None:
    """A committed write that changes nothing: proves at start that the file can be written."""
    db.execute(
        "UPDATE schema_migrations SET applied_at = applied_at"
        " WHERE version = (SELECT MAX(version) FROM schema_migrations)"
    )


# --- transactions, run in the connection's thread ------------------------------------------


def read_match(db: sqlite3.Connection, match_id: int) -> MatchRecord | None:
    row = db.execute(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE id = ?", (match_id,)).fetchone()
    return None if row is None else _match(row)


def read_steps(db: sqlite3.Connection, match_id: int) -> list[StepRecord]:
    rows = db.execute(
        "SELECT match_id, step, kind, moves, snapshot FROM steps WHERE match_id = ? ORDER BY step",
        (match_id,),
    )
    return [_step(row) for row in rows]


def _in_transaction(fn: Callable[[sqlite3.Connection], T], db: sqlite3.Connection) -> T:
    db.execute("BEGIN IMMEDIATE")
    try:
        result = fn(db)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # SQLite may have rolled back already (disk full)
            db.execute("ROLLBACK")
        raise
    return result


def _manual_checkpoints(db: sqlite3.Connection) -> str:
    """Turn off the connection's own checkpoints (``_checkpoint`` runs them); the file's path."""
    db.execute("PRAGMA wal_autocheckpoint=0")
    main = next(row for row in db.execute("PRAGMA database_list") if row[1] == "main")
    return str(main[2])


def _checkpoint_beside(db: sqlite3.Connection) -> None:
    """A passive checkpoint copies the WAL without blocking anyone, but under a steady stream
    of commits the WAL never starts again from its beginning (frames arrive while it copies)
    and grows for ever; so a RESTART follows, copying the few frames left while it holds the
    writes back briefly, and the next commit starts the WAL again."""
    try:
        _, frames, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if frames > WAL_RESTART_FRAMES:
            db.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()
    except sqlite3.OperationalError as error:  # a full disk, an I/O error: try again later
        log.warning("WAL checkpoint failed: %s", error)


def _due_outbox(
    db: sqlite3.Connection, now: float, limit: int
) -> tuple[list[OutboxRow], float | None]:
    # MIN(id) makes SQLite take next_try and audience from the head row of each queue. The
    # partial index keeps the work proportional to the pending rows: left to itself, SQLite
    # reads the whole outbox in (match_id) order for the GROUP BY (5 ms a pass at 1,000 matches)
    heads = db.execute(
        "SELECT MIN(id), next_try, audience, match_id FROM outbox INDEXED BY outbox_pending"
        " WHERE status = 'pending' GROUP BY match_id, audience"
    ).fetchall()
    heads = _one_queue_per_practice(db, heads)
    due = [
        (not audience.startswith("seat"), id_)
        for id_, next_try, audience, _ in heads
        if next_try <= now
    ]
    waits = [next_try for _, next_try, _, _ in heads if next_try > now]
    ids = [id_ for _, id_ in sorted(due)[:limit]]
    rows = []
    for start in range(0, len(ids), 500):  # bound the number of SQL parameters
        chunk = ids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        rows += db.execute(f"{_OUTBOX_SELECT} WHERE o.id IN ({marks})", chunk).fetchall()
    order = {id_: rank for rank, id_ in enumerate(ids)}
    rows.sort(key=lambda row: order[row[0]])
    return [_outbox(row) for row in rows], min(waits, default=None)


def _one_queue_per_practice(db: sqlite3.Connection, heads: list[Any]) -> list[Any]:
    """A practice's posts and its player's DMs go to the same DM channel: its queues are one,
    in commit order (the head with the lowest id only), so the results of a step always come
    before the next prompt."""
    matches = sorted({match_id for *_, match_id in heads})
    practice: set[int] = set()
    for start in range(0, len(matches), 500):  # bound the number of SQL parameters
        chunk = matches[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        found = db.execute(f"SELECT id FROM matches WHERE practice = 1 AND id IN ({marks})", chunk)
        practice.update(match_id for (match_id,) in found)
    if not practice:
        return heads
    first: dict[int, int] = {}
    for id_, *_, match_id in heads:
        if match_id in practice:
            first[match_id] = min(id_, first.get(match_id, id_))
    return [head for head in heads if head[3] not in practice or first[head[3]] == head[0]]


def _create_match(
    db: sqlite3.Connection,
    new: NewMatch,
    snapshot: JSON,
    at: float,
    outbox: FirstMessages,
) -> int:
    if new.rematch_of is not None:
        _check_no_rematch(db, new.rematch_of)
    cursor = db.execute(
        "INSERT INTO matches (game, guild_id, channel_id, players, names, moderators, config,"
        " seed, window_s, status, step, created_at, updated_at, timers, practice)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'setup', 0, ?, ?, ?, ?)",
        (
            new.game,
            new.guild_id,
            new.channel_id,
            dumps(list(new.players)),
            dumps(list(new.names)),
            dumps(list(new.moderators)),
            dumps(new.config),
            new.seed,
            new.window_s,
            at,
            at,
            dumps(new.timers),
            int(new.practice),
        ),
    )
    match_id = cursor.lastrowid
    assert match_id is not None
    db.execute(
        "INSERT INTO steps (match_id, step, kind, moves, snapshot, at)"
        " VALUES (?, 0, 'start', NULL, ?, ?)",
        (match_id, dumps(snapshot), at),
    )
    _insert_log(db, match_id, (LogEntry("created"),), at)
    if new.rematch_of is not None:
        _insert_log(db, new.rematch_of, (LogEntry("rematch", data={"match": match_id}),), at)
    if new.table is not None:
        _fill_table(db, new, match_id)
    messages = outbox(match_id) if callable(outbox) else outbox
    _insert_outbox(
        db, [OutboxMessage(match_id, m.audience, m.text, m.payload) for m in messages], at
    )
    return match_id


def _check_no_rematch(db: sqlite3.Connection, match_id: int) -> None:
    row = db.execute(
        "SELECT data FROM match_log WHERE match_id = ? AND kind = 'rematch' LIMIT 1", (match_id,)
    ).fetchone()
    if row is not None:
        raise Taken(json.loads(row[0])["match"])


def _fill_table(db: sqlite3.Connection, new: NewMatch, match_id: int) -> None:
    """The table's last seat taken: full, with the match's players, if it is still open."""
    players = dumps([[user, name] for user, name in zip(new.players, new.names, strict=True)])
    cursor = db.execute(
        "UPDATE tables SET players = ?, status = 'full', match_id = ? WHERE id = ?"
        " AND status = 'open'",
        (players, match_id, new.table),
    )
    if cursor.rowcount != 1:
        raise Taken


def _insert_attempt(db: sqlite3.Connection, attempt: Attempt) -> None:
    if attempt.verdict == "accepted":
        # conditional: a move for a window that has just closed is never recorded
        cursor = db.execute(
            "INSERT INTO moves (match_id, step, seat, move)"
            " SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM windows"
            " WHERE match_id = ? AND step = ? AND status = 'open')"
            " ON CONFLICT (match_id, step, seat) DO UPDATE SET move = excluded.move",
            (
                attempt.match_id,
                attempt.step,
                attempt.seat,
                dumps(attempt.move),
                attempt.match_id,
                attempt.step,
            ),
        )
        if cursor.rowcount != 1:
            raise _WindowClosed
    db.execute(
        "INSERT INTO attempts (match_id, step, seat, user_id, raw, verdict, reason, move, at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            attempt.match_id,
            attempt.step,
            attempt.seat,
            attempt.user_id,
            attempt.raw,
            attempt.verdict,
            attempt.reason,
            None if attempt.verdict != "accepted" else dumps(attempt.move),
            attempt.at,
        ),
    )


def _apply(db: sqlite3.Connection, change: Change) -> None:
    _check_guards(db, change)
    match_id, at = change.match_id, change.at
    if change.new_step is not None:
        _insert_step(db, change.new_step, at)
    if change.open_window is not None:
        window = change.open_window
        db.execute(
            "INSERT INTO windows (match_id, step, seats, status, deadline, remaining, reminded,"
            " opened_at, prompted) VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?)",
            (
                match_id,
                window.step,
                dumps(list(window.seats)),
                window.deadline,
                window.remaining,
                int(window.reminded),
                at,
                dumps(window.prompted) if window.prompted else None,
            ),
        )
    if change.retime is not None:
        timing = change.retime
        db.execute(
            "UPDATE windows SET deadline = ?, remaining = ?, reminded = ?"
            " WHERE match_id = ? AND step = ?",
            (timing.deadline, timing.remaining, int(timing.reminded), match_id, timing.step),
        )
    if change.setup is not None:
        config, snapshot = change.setup
        db.execute("UPDATE matches SET config = ? WHERE id = ?", (dumps(config), match_id))
        db.execute(
            "UPDATE steps SET snapshot = ? WHERE match_id = ? AND step = 0",
            (dumps(snapshot), match_id),
        )
    if change.status is not None:
        db.execute(
            "UPDATE matches SET status = ?, outcome = ? WHERE id = ?",
            (change.status, dumps(change.outcome), match_id),
        )
        if change.status in ("finished", "aborted"):
            db.execute(
                f"UPDATE matches SET ended_at = ?, ended_seq = {_NEXT_END} WHERE id = ?"
                " AND ended_seq IS NULL",
                (at, match_id),
            )
    db.execute("UPDATE matches SET updated_at = ? WHERE id = ?", (at, match_id))
    _insert_log(db, match_id, change.log, at)
    _insert_outbox(db, change.outbox, at)


# the next end's number: after every match's, and after every match folded into the ratings
# (a pruned match's row is gone, its rated_matches row stays: a number is never given twice)
_NEXT_END = (
    "(SELECT COALESCE(MAX(seq), 0) + 1 FROM (SELECT MAX(ended_seq) AS seq FROM matches"
    " UNION ALL SELECT MAX(ended_seq) FROM rated_matches))"
)


def _check_guards(db: sqlite3.Connection, change: Change) -> None:
    if change.close_window is not None:
        cursor = db.execute(
            "UPDATE windows SET status = 'closed', closed_at = ?, close_reason = ?"
            " WHERE match_id = ? AND step = ? AND status = 'open'",
            (change.at, change.close_reason, change.match_id, change.close_window),
        )
        if cursor.rowcount != 1:
            raise _WindowClosed
    if change.guard_window is not None:
        row = db.execute(
            "SELECT 1 FROM windows WHERE match_id = ? AND step = ? AND status = 'open'",
            (change.match_id, change.guard_window),
        ).fetchone()
        if row is None:
            raise _WindowClosed


def _insert_step(db: sqlite3.Connection, step: StepRecord, at: float) -> None:
    """The new latest step; the one before it keeps its snapshot only at a checkpoint."""
    moves = None if step.moves is None else dumps({str(s): m for s, m in step.moves.items()})
    db.execute(
        "INSERT INTO steps (match_id, step, kind, moves, snapshot, at) VALUES (?, ?, ?, ?, ?, ?)",
        (step.match_id, step.step, step.kind, moves, dumps(step.snapshot), at),
    )
    db.execute("UPDATE matches SET step = ? WHERE id = ?", (step.step, step.match_id))
    if not keeps_snapshot(step.step - 1):
        db.execute(
            "UPDATE steps SET snapshot = NULL WHERE match_id = ? AND step = ?",
            (step.match_id, step.step - 1),
        )


def _insert_log(
    db: sqlite3.Connection, match_id: int, entries: Sequence[LogEntry], at: float
) -> None:
    db.executemany(
        "INSERT INTO match_log (match_id, at, kind, by_user, data) VALUES (?, ?, ?, ?, ?)",
        [(match_id, e.at or at, e.kind, e.by_user, dumps(e.data)) for e in entries],
    )


def _insert_outbox(db: sqlite3.Connection, messages: Sequence[OutboxMessage], at: float) -> None:
    db.executemany(
        "INSERT INTO outbox (match_id, audience, text, payload, created_at) VALUES (?, ?, ?, ?, ?)",
        [(m.match_id, m.audience, m.text, dumps(m.payload), at) for m in messages],
    )


def _settle(
    db: sqlite3.Connection,
    sent: Sequence[int],
    retries: Sequence[Retry],
    failed: Sequence[Retry],
    at: float,
) -> None:
    db.executemany(
        "UPDATE outbox SET status = 'sent', tries = tries + 1, sent_at = ? WHERE id = ?",
        [(at, message_id) for message_id in sent],
    )
    db.executemany(
        "UPDATE outbox SET tries = tries + 1, next_try = ?, error = ? WHERE id = ?",
        [(r.next_try, r.error, r.message_id) for r in retries],
    )
    db.executemany(
        "UPDATE outbox SET status = 'failed', tries = tries + 1, error = ? WHERE id = ?",
        [(r.error, r.message_id) for r in failed],
    )
    settled = [*sent, *(r.message_id for r in failed)]
    for match_id in _matches_of(db, settled):
        _archive_settled(db, match_id)


def _matches_of(db: sqlite3.Connection, message_ids: Sequence[int]) -> set[int]:
    found: set[int] = set()
    for start in range(0, len(message_ids), 500):  # bound the number of SQL parameters
        chunk = message_ids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        rows = db.execute(f"SELECT DISTINCT match_id FROM outbox WHERE id IN ({marks})", chunk)
        found.update(row[0] for row in rows)
    return found


def _archive_settled(db: sqlite3.Connection, match_id: int) -> bool:
    """Archive the match's settled messages (``bot.store.archive``) once there are
    ``ARCHIVE_EVERY`` of them, or once the match is over and none is pending; whether it did.
    A match over also drops its windows' working moves (its steps hold the moves made)."""
    counts = dict(
        db.execute(
            "SELECT status = 'pending', count(*) FROM outbox WHERE match_id = ? GROUP BY 1",
            (match_id,),
        ).fetchall()
    )
    settled, pending = counts.get(0, 0), counts.get(1, 0)
    over = db.execute(
        "SELECT 1 FROM matches WHERE id = ? AND status IN ('finished', 'aborted')", (match_id,)
    ).fetchone()
    if not (settled >= ARCHIVE_EVERY or (settled and over and not pending)):
        return False
    rows = db.execute(
        f"SELECT {archive.COLUMNS} FROM outbox WHERE match_id = ? AND status != 'pending'"
        " ORDER BY id",
        (match_id,),
    ).fetchall()
    db.execute(
        "INSERT INTO outbox_archive (match_id, messages) VALUES (?, ?)",
        (match_id, archive.pack(rows)),
    )
    db.execute("DELETE FROM outbox WHERE match_id = ? AND status != 'pending'", (match_id,))
    if over:
        db.execute("DELETE FROM moves WHERE match_id = ?", (match_id,))
    return True


def _unarchived(db: sqlite3.Connection) -> list[int]:
    """The matches over whose settled messages wait to be archived (an upgraded database's,
    or a match that ended while its last messages were settled by an older floral-host)."""
    rows = db.execute(
        "SELECT DISTINCT o.match_id FROM outbox o JOIN matches m ON m.id = o.match_id"
        " WHERE m.status IN ('finished', 'aborted') AND o.status != 'pending'"
    ).fetchall()
    return [row[0] for row in rows]


# the matches ratings fold in (the unary + keeps SQLite off the status index: the range of
# ended_seq after the last one folded is the short one)
_RATED_KIND = "+status = 'finished' AND practice = 0"


def _unfolded(db: sqlite3.Connection) -> bool:
    """Whether a match waits to be folded into the ratings."""
    last = db.execute("SELECT MAX(ended_seq) FROM rated_matches").fetchone()[0] or 0
    found = db.execute(
        f"SELECT 1 FROM matches WHERE ended_seq > ? AND {_RATED_KIND} LIMIT 1", (last,)
    ).fetchone()
    return found is not None


def _fold_ratings(db: sqlite3.Connection, rate: Rater, limit: int | None, rebuild: bool) -> int:
    """Each end takes the next ``ended_seq`` in the transaction that ends the match, so a match
    not folded yet always comes after the last one folded: folding from there, in order, is
    the same as folding everything again."""
    if rebuild:
        db.execute("DELETE FROM ratings")
        db.execute("DELETE FROM rated_matches")
    last = db.execute("SELECT MAX(ended_seq) FROM rated_matches").fetchone()[0] or 0
    rows = db.execute(
        f"SELECT {_MATCH_COLUMNS} FROM matches WHERE ended_seq > ? AND {_RATED_KIND}"
        " ORDER BY ended_seq LIMIT ?",
        (last, -1 if limit is None else limit),
    ).fetchall()
    for row in rows:
        _fold_match(db, _match(row), rate)
    # a forgotten user's stand-in (bot/forget.py) is rated while the fold runs, so their
    # opponents' ratings come out as before, and keeps no rating
    db.execute("DELETE FROM ratings WHERE user_id < 0")
    return len(rows)


def _fold_match(db: sqlite3.Connection, record: MatchRecord, rate: Rater) -> None:
    before = []
    for user_id in record.players:
        row = db.execute(
            f"SELECT {_RATING_COLUMNS} FROM ratings"
            " WHERE guild_id = ? AND game = ? AND user_id = ?",
            (record.guild_id, record.game, user_id),
        ).fetchone()
        before.append(None if row is None else Rating(*row))
    after = rate(record, before)
    db.execute(
        "INSERT INTO rated_matches (match_id, ended_seq, rated) VALUES (?, ?, ?)",
        (record.id, record.ended_seq, int(after is not None)),
    )
    if after is None:
        return
    db.executemany(
        f"INSERT OR REPLACE INTO ratings ({_RATING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                r.guild_id,
                r.game,
                r.user_id,
                r.name,
                r.mu,
                r.sigma,
                r.matches,
                r.wins,
                r.losses,
                r.updated_at,
            )
            for r in after
        ],
    )


class _WindowClosed(Exception):
    """Raised inside a transaction to roll it back: a guarded window is no longer open."""


def _loads(text: str | None) -> JSON:
    return None if text is None else json.loads(text)


def _match(row: Any) -> MatchRecord:
    (
        id_,
        game,
        guild,
        channel,
        players,
        names,
        mods,
        config,
        seed,
        window_s,
        status,
        step,
        outcome,
        created_at,
        timers,
        practice,
        ended_at,
        ended_seq,
        pruned_at,
    ) = row
    return MatchRecord(
        id=id_,
        game=game,
        guild_id=guild,
        channel_id=channel,
        players=tuple(json.loads(players)),
        names=tuple(json.loads(names)),
        moderators=tuple(json.loads(mods)),
        config=json.loads(config),
        seed=seed,
        window_s=window_s,
        status=status,
        step=step,
        outcome=_loads(outcome),
        created_at=created_at,
        timers=json.loads(timers) if timers is not None else {},
        practice=bool(practice),
        ended_at=ended_at,
        ended_seq=ended_seq,
        pruned_at=pruned_at,
    )


_TABLE_COLUMNS = (
    "id, guild_id, channel_id, game, opener, seats, players, status, match_id, created_at"
)


def _table(row: Any) -> TableRecord:
    id_, guild, channel, game, opener, seats, players, status, match_id, at = row
    seated = tuple((int(user), str(name)) for user, name in json.loads(players))
    return TableRecord(id_, guild, channel, game, opener, seats, seated, status, match_id, at)


def _step(row: Any) -> StepRecord:
    match_id, step, kind, moves, snapshot = row
    return StepRecord(match_id, step, kind, _seat_keys(_loads(moves)), _loads(snapshot))


def _match_outbox(db: sqlite3.Connection, match_id: int) -> list[OutboxRow]:
    rows = [
        _outbox(row)
        for row in db.execute(f"{_OUTBOX_SELECT} WHERE o.match_id = ? ORDER BY o.id", (match_id,))
    ]
    match = db.execute(
        "SELECT guild_id, channel_id, players, moderators FROM matches WHERE id = ?", (match_id,)
    ).fetchone()
    chunks = db.execute(
        "SELECT messages FROM outbox_archive WHERE match_id = ? ORDER BY id", (match_id,)
    )
    for (blob,) in chunks:
        rows += [_archived(match_id, message, match) for message in archive.unpack(blob)]
    return sorted(rows, key=lambda row: row.id)


def _archived(match_id: int, message: list[Any], match: Any) -> OutboxRow:
    id_, audience, text, payload, status, tries, next_try, _, created_at, _ = message
    guild, channel, players, mods = match
    return OutboxRow(
        id=id_,
        message=OutboxMessage(match_id, audience, text, payload),
        status=status,
        tries=tries,
        next_try=next_try,
        guild_id=guild,
        channel_id=channel,
        players=tuple(json.loads(players)),
        moderators=tuple(json.loads(mods)),
        created_at=created_at,
    )


def _outbox(row: Any) -> OutboxRow:
    (
        id_,
        match_id,
        audience,
        text,
        payload,
        status,
        tries,
        next_try,
        guild,
        channel,
        players,
        mods,
        created_at,
    ) = row
    return OutboxRow(
        id=id_,
        message=OutboxMessage(match_id, audience, text, json.loads(payload)),
        status=status,
        tries=tries,
        next_try=next_try,
        guild_id=guild,
        channel_id=channel,
        players=tuple(json.loads(players)),
        moderators=tuple(json.loads(mods)),
        created_at=created_at,
    )
