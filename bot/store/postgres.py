"""The PostgreSQL backend (asyncpg): ``FLORAL_DB=postgresql://user:password@host:port/database``.

Pools of connections serve the host; each write is one transaction on one connection, each read
a statement or a few. Transactions of different matches run side by side; where two could touch
the same rows, a lock orders them (``bot.store.sql.POSTGRESQL``: an attempt holds its window
open till it commits, settling a match's messages locks the match, numbering an end or folding
ratings takes one advisory lock), so each does what SQLite's single writer would.

Durability, as SQLite's: ``add_attempt`` commits on a connection with ``synchronous_commit`` on
(at least ``local``), so it returns, and the move is acknowledged, only once its WAL record is
flushed to the server's disk. The other writes commit with ``synchronous_commit=off``: they
return without waiting for the disk (a resolution holds its match's lock for less time), and the
delivery worker calls ``sync`` before sending, a durable commit of nothing whose flush covers
every commit before it, shared by the callers meanwhile (``GroupSync``). The server adds its own
group commit: one flush covers every durable commit waiting, whichever connection it came on.

Round trips, not the server, are what a transaction costs the host (each one a wait of the event
loop for another process): a statement whose answer the transaction does not need waits and goes
with the next one that needs its answer, or with the COMMIT (``_Pipeline``), so a resolution is
three round trips and an acknowledgement two.

Why asyncpg rather than psycopg 3: it is the faster of the two on the event loop (binary protocol,
prepared statements cached per connection) and has a pool built in; psycopg's pipeline mode
would batch statements too, but ``_Pipeline`` does that in a few lines, and nothing else the
store needs is psycopg's.

Every failure to open is said in one line (``UnusableDatabase``), never with the password: a
server down or unreachable (within ``CONNECT_TIMEOUT_S``), a wrong password, a database missing,
a newer schema, another program's database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import asyncpg

from bot.store import NotOwner, WriteFailed
from bot.store import transactions as tx
from bot.store.common import (
    POSTGRES_KIND,
    GroupSync,
    Session,
    SqlStore,
    check_tables,
    check_version,
)
from bot.store.faults import UnusableDatabase
from bot.store.leases import NOT_LEASED
from bot.store.schema import POSTGRES_MIGRATIONS
from bot.store.sql import PLACEHOLDER, POSTGRESQL, Query, Work, fetch, numbered

log = logging.getLogger(__name__)
T = TypeVar("T")

CONNECT_TIMEOUT_S = 5.0  # a server that does not answer: said within this, never a hang
COMMAND_TIMEOUT_S = 60.0  # a statement that waits longer (a wedged server) fails its write
POOL_SIZE = 10
MIGRATION_LOCK = 0x666C6F7261_02  # one process migrates at a time
# a connection's error classes that may pass (SQLSTATE's first two characters): connection
# lost, transaction rolled back for a conflict, resources (a full disk), operator
# intervention (a restart), the system
_PASSING_CLASSES = ("08", "40", "53", "57", "58")
_PASSING_STATES = ("25006", "55P03")  # read-only transaction (a standby), lock not available


def shown(url: str) -> str:
    """The URL as a message may show it: without its password (in the URL or a parameter)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        netloc = (f"{parts.username}@" if parts.username else "") + (
            f"[{host}]" if ":" in host else host
        )
        if parts.port is not None:
            netloc += f":{parts.port}"
        query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "password"], safe="/")
        return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    except ValueError:
        return "the PostgreSQL URL"


def _database(url: str) -> str:
    return urlsplit(url).path.lstrip("/") or "(the user's name)"


def _user(url: str) -> str:
    return urlsplit(url).username or "(this system user)"


class _Connection(asyncpg.Connection):  # type: ignore[misc]  # asyncpg has no types
    """A pooled connection whose close never fails: after the server ended the sessions (a
    restart, a failover), the pool closes its expired connections in tasks of its own that
    nobody awaits, and a broken pipe there would be logged as an unretrieved task error."""

    async def close(self, *, timeout: float | None = None) -> None:
        try:
            await super().close(timeout=timeout)
        except OSError:
            self.terminate()


async def _pool(url: str, settings: dict[str, str]) -> asyncpg.Pool:
    return await new_pool(
        url, max_size=POOL_SIZE, command_timeout=COMMAND_TIMEOUT_S, server_settings=settings
    )


async def new_pool(url: str, *, max_size: int, **options: Any) -> asyncpg.Pool:
    """A pool of connections, each given back as it is (``_as_it_is``)."""
    return await asyncpg.create_pool(
        url,
        connection_class=_Connection,
        min_size=1,
        max_size=max_size,
        timeout=CONNECT_TIMEOUT_S,
        reset=_as_it_is,
        **options,
    )


async def _as_it_is(connection: asyncpg.Connection) -> None:
    """A connection given back to its pool: asyncpg rolls back a transaction left open, and by
    default then sends a reset query (advisory locks released, cursors closed, UNLISTEN, RESET
    ALL), one more round trip each time a connection is used: a third of an acknowledgement's.
    Nothing run on a pooled connection leaves that state (locks and settings are a
    transaction's; the session locks are held on connections of their own), so none is sent."""


async def connect(url: str) -> asyncpg.Connection:
    """One connection (``bot.store.owner`` holds a lock on it), or UnusableDatabase."""
    try:
        return await asyncpg.connect(url, timeout=CONNECT_TIMEOUT_S)
    except Exception as error:
        raise explain(url, error) from None


class PostgresStore(SqlStore):
    dialect = POSTGRESQL

    def __init__(self, pool: asyncpg.Pool, durable: asyncpg.Pool, url: str) -> None:
        self._pool = pool  # commits return before their flush (``sync`` waits for it)
        self._durable = durable  # commits return once flushed to disk
        self.url = url
        self.where = shown(url)
        self._group_sync = GroupSync(self._flush)

    @classmethod
    async def open(
        cls, url: str, *, readonly: bool = False, any_older: bool = False
    ) -> PostgresStore:
        """The store of the database at ``url``, or UnusableDatabase saying why it cannot be
        used. Writable (the host): an empty database is given floral-host's schema, an older
        one is upgraded, and one committed write proves it can be written (a read-only role or
        a standby fails here, at start). ``readonly``: nothing is written, and every
        transaction is read-only."""
        settings = {"application_name": "floral-host"}
        if readonly:
            settings["default_transaction_read_only"] = "on"
        pools: list[asyncpg.Pool] = []
        try:
            # acknowledgements and syncs: a server configured with synchronous_commit=off would
            # let a commit return before it is durable, so these wait for the local flush at
            # least (a setting of the connection's start, which the pool's resets keep)
            pools.append(await _pool(url, settings))
            if await pools[0].fetchval("SHOW synchronous_commit") == "off":
                pools.append(await _pool(url, {**settings, "synchronous_commit": "local"}))
                pools.reverse()
                pools.pop().terminate()
            pools.insert(0, await _pool(url, {**settings, "synchronous_commit": "off"}))
        except Exception as error:
            for pool in pools:
                pool.terminate()
            raise explain(url, error) from None
        store = cls(pools[0], pools[1], url)
        try:
            await store._prepare(readonly, any_older)
        except BaseException as error:
            for pool in pools:
                pool.terminate()
            if isinstance(error, Exception) and not isinstance(error, UnusableDatabase):
                raise explain(url, error) from None
            raise
        return store

    async def _prepare(self, readonly: bool, any_older: bool) -> None:
        tables = await self._read(_table_names())
        made = check_tables(self.where, tables, readonly, POSTGRES_KIND)
        check_version(self.where, await self.schema_version() if made else 0, readonly, any_older)
        if readonly:
            return
        await self._migrate()
        await self._write(tx.touch_schema_row())
        await self._archive_ended()

    async def _migrate(self) -> None:
        async with self._pool.acquire() as connection:
            for version, sql in POSTGRES_MIGRATIONS:
                async with connection.transaction():
                    # two processes opening a new database at once: the second waits, then
                    # finds each migration done
                    await connection.execute(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
                    await connection.execute(
                        "CREATE TABLE IF NOT EXISTS schema_migrations"
                        " (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL)"
                    )
                    done = await connection.fetchval(
                        "SELECT 1 FROM schema_migrations WHERE version = $1", version
                    )
                    if done:
                        continue
                    log.info("applying schema migration %d", version)
                    await connection.execute(sql)
                    await connection.execute(
                        "INSERT INTO schema_migrations VALUES"
                        " ($1, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'))",
                        version,
                    )

    async def close(self) -> None:
        await self._group_sync.stop()
        for pool in (self._pool, self._durable):
            try:
                await asyncio.wait_for(pool.close(), COMMAND_TIMEOUT_S)
            except TimeoutError:
                pool.terminate()

    async def sync(self) -> None:
        """Wait for a flush of the WAL that starts after this call: every commit made before
        it is then on disk. Commits made while one flush runs share the next one."""
        await self._group_sync()

    async def _flush(self) -> None:
        """A transaction that commits durably, so the server flushes its WAL up to here: a
        commit record (``pg_current_xact_id`` gives it an id, so it writes one), and nothing
        else."""
        async with self._lost_connections(), self._durable.acquire() as connection:
            await connection.fetchval("SELECT pg_current_xact_id()")

    async def vacuum(self) -> None:
        """``VACUUM FULL``: rewrites every table without its dead rows and gives the space
        back to the disk; it locks each table while it runs (prune owns the database)."""
        async with self._pool.acquire() as connection:
            await connection.execute("VACUUM FULL")

    async def size(self) -> int:
        rows = await self._read(fetch("SELECT pg_database_size(current_database())"))
        return int(rows[0][0])

    async def _read(self, work: Work[T]) -> T:
        """Each statement reads the latest commits (a read of several statements is made so
        that a change between them does no harm: ``transactions.match_outbox``). A statement
        whose pooled connection the server ended (a restart, a failover) is asked again once,
        on a new connection: the first read after an outage does not fail."""
        async with self._lost_connections(), contextlib.AsyncExitStack() as held:
            pipeline = _Pipeline(await held.enter_async_context(self._pool.acquire()), begin=False)

            async def answer(query: Query) -> Any:
                nonlocal pipeline
                try:
                    return await pipeline.run(query)
                except Exception as error:
                    if not _lost(error):
                        raise
                await self._expire()
                connection = await held.enter_async_context(self._pool.acquire())
                pipeline = _Pipeline(connection, begin=False)
                return await pipeline.run(query)

            return await _drive(work, answer)

    async def _write(
        self, work: Work[T], *, durable: bool = False, exact: bool = True, first: bool = False
    ) -> T:
        # (``first``: the pool runs the writes side by side; none waits in a queue)
        pool = self._durable if durable else self._pool
        async with self._lost_connections(), pool.acquire() as connection:
            pipeline = _Pipeline(connection, begin=True)
            try:
                result = await _drive(work, pipeline.run)
                # the transaction's id: if the connection is lost in its COMMIT, the server
                # tells afterwards whether it committed (so WriteFailed means nothing written)
                xid = await pipeline.value(_XID) if exact else None
                await pipeline.flush("COMMIT")
            except BaseException as error:
                with contextlib.suppress(Exception):  # a lost connection has nothing to undo
                    await connection.execute("ROLLBACK")
                if isinstance(error, asyncpg.PostgresError) and error.sqlstate == NOT_LEASED:
                    raise NotOwner(str(error)) from None  # a fence (bot.store.leases)
                if not (isinstance(error, Exception) and _lost(error)) or not pipeline.committing:
                    raise
                await self._expire()
                if xid is None or not await self._committed(xid):
                    raise
                log.warning("the connection was lost as a write committed; it did commit")
            return result

    async def _committed(self, xid: str) -> bool:
        """Whether the transaction ``xid`` committed (asked on a new connection; waits while
        the server still ends it, and asks again when that connection is lost too: the
        sessions a restart ends may take the asking one). False after 5 s without an answer."""
        for _ in range(100):
            try:
                async with self._durable.acquire() as connection:
                    status = await connection.fetchval("SELECT pg_xact_status($1::text::xid8)", xid)
            except Exception as error:
                if not _lost(error):
                    raise
                await self._expire()
                status = "in progress"
            if status != "in progress":
                return bool(status == "committed")
            await asyncio.sleep(0.05)
        return False

    async def _expire(self) -> None:
        for pool in (self._pool, self._durable):
            await pool.expire_connections()

    @contextlib.asynccontextmanager
    async def _lost_connections(self) -> AsyncIterator[None]:
        """A connection the server ended (a restart, a failover) or could not give: every
        pooled connection may be dead too, so the pool makes new ones for the next works; this
        one fails with WriteFailed (it may pass: the host tries again)."""
        try:
            yield
        except Exception as error:
            if not _lost(error):
                raise
            await self._expire()
            raise WriteFailed(f"the database could not be reached: {error}") from error

    def _passing(self, error: Exception) -> bool:
        if isinstance(
            error, OSError | TimeoutError | asyncpg.exceptions.ConnectionDoesNotExistError
        ):
            return True
        state = getattr(error, "sqlstate", None) or ""
        return isinstance(error, asyncpg.PostgresError) and (
            state[:2] in _PASSING_CLASSES or state in _PASSING_STATES
        )

    @contextlib.asynccontextmanager
    async def session(self, *, readonly: bool = False) -> AsyncIterator[Session]:
        isolation = "repeatable_read" if readonly else "read_committed"
        async with (
            self._pool.acquire() as connection,
            connection.transaction(isolation=isolation, readonly=readonly),
        ):
            yield _PostgresSession(connection)


class _PostgresSession(Session):
    def __init__(self, connection: asyncpg.Connection) -> None:
        self._connection = connection

    async def run(self, work: Work[T]) -> T:
        pipeline = _Pipeline(self._connection, begin=False)
        result = await _drive(work, pipeline.run)
        await pipeline.flush()
        return result


_XID = "SELECT pg_current_xact_id()::text"


def _lost(error: BaseException) -> bool:
    """Whether ``error`` says the connection is gone (or could not be made)."""
    errors = asyncpg.exceptions
    # InternalClientError: a connection left mid-operation by its loss ("another operation is
    # in progress"); the pool replaces it
    if isinstance(
        error,
        OSError | TimeoutError | errors.ConnectionDoesNotExistError | errors.InternalClientError,
    ):
        return True
    if isinstance(error, asyncpg.InterfaceError):  # a transaction ending on a lost connection
        return "connection is closed" in str(error)
    if isinstance(error, asyncpg.PostgresError):  # connection exception, operator intervention
        return (error.sqlstate or "")[:2] in ("08", "57")
    return False


async def _drive(work: Work[T], answer: Callable[[Query], Awaitable[Any]]) -> T:
    """Run ``work``, one awaited answer after another (a pipeline's, or a read's)."""
    try:
        query = next(work)
        while True:
            query = work.send(await answer(query))
    except StopIteration as done:
        result: T = done.value
        return result
    finally:
        work.close()


class _Pipeline:
    """A connection's statements, several to a round trip: those whose answer the work does not
    need (``execute``, ``many``) wait, with their values written into them, and go together
    with the next one whose answer it needs, or with the COMMIT, in one simple query. A
    transaction of ten statements is two or three round trips to the server, not twelve."""

    def __init__(self, connection: asyncpg.Connection, *, begin: bool) -> None:
        self._connection = connection
        self._waiting: list[str] = ["BEGIN"] if begin else []
        self.committing = False  # the COMMIT was sent: a lost answer leaves it unknown

    async def run(self, query: Query) -> Any:
        if query.kind == "execute":
            self._waiting.append(inlined(query.sql, query.params))
            return None
        if query.kind == "many":
            self._waiting.extend(inlined(query.sql, row) for row in query.params)
            return None
        if query.kind == "changed":
            status = await self.flush(inlined(query.sql, query.params))
            last = status.rsplit(" ", 1)[-1]  # "UPDATE 1", "INSERT 0 1", "DELETE 3"
            return int(last) if last.isdigit() else 0
        await self.flush()
        return await self._connection.fetch(numbered(query.sql), *query.params)

    async def value(self, sql: str) -> Any:
        """The value of a statement of no parameters, in the transaction (the statements
        waiting may wait on: the answer does not depend on them)."""
        if self._waiting[:1] == ["BEGIN"]:
            await self._connection.execute(self._waiting.pop(0))
        return await self._connection.fetchval(sql)

    async def flush(self, *then: str) -> str:
        """Send what waits (and ``then``); the status of the last statement."""
        script, self._waiting = [*self._waiting, *then], []
        if not script:
            return ""
        self.committing = "COMMIT" in then
        status: str = await self._connection.execute(";\n".join(script))
        return status


def inlined(sql: str, params: Sequence[Any]) -> str:
    """``sql`` with each ``?`` outside a string literal replaced by its value as an SQL
    literal (``literal``)."""
    values = iter(params)

    def value(match: re.Match[str]) -> str:
        return match[0] if match[0] != "?" else literal(next(values))

    return PLACEHOLDER.sub(value, sql)


def literal(value: Any) -> str:
    """``value`` as a PostgreSQL literal: a string in E'' quotes with its quotes and
    backslashes doubled (whatever standard_conforming_strings says), bytes in hex."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float) and not math.isfinite(value):
        return f"'{value}'::float8".replace("inf", "Infinity").replace("nan", "NaN")
    if isinstance(value, int | float):  # a negative one in brackets: "- -1" is no comment
        return repr(value) if value >= 0 else f"({value!r})"
    if isinstance(value, bytes):
        return f"E'\\\\x{value.hex()}'::bytea"
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError("PostgreSQL text cannot hold a NUL character")
        return "E'" + value.replace("\\", "\\\\").replace("'", "''") + "'"
    raise TypeError(f"no SQL literal for {type(value).__name__}")


def _table_names() -> Work[set[str]]:
    return {str(row[0]) for row in (yield from fetch(POSTGRESQL.tables))}


async def table_names(connection: asyncpg.Connection) -> set[str]:
    return {str(row[0]) for row in await connection.fetch(POSTGRESQL.tables)}


def is_storage_error(error: BaseException) -> bool:
    """An error of the server or the connection to it (not of floral-host's own code)."""
    errors = asyncpg.exceptions
    return isinstance(
        error,
        OSError
        | TimeoutError
        | WriteFailed
        | asyncpg.PostgresError
        | errors.ConnectionDoesNotExistError,
    )


# --- why a database cannot be used ------------------------------------------------------------

_SERVER_REMEDY = "start PostgreSQL, or check the host and port in --db/FLORAL_DB"


def explain(url: str, error: BaseException) -> UnusableDatabase:
    """The UnusableDatabase that says, in one line, what ``error`` means for the database."""
    where, exceptions = shown(url), asyncpg.exceptions
    if isinstance(error, UnusableDatabase):
        return error
    if isinstance(error, WriteFailed) and isinstance(error.__cause__, Exception):
        return explain(url, error.__cause__)
    if isinstance(error, TimeoutError):
        problem = f"no answer from the server within {CONNECT_TIMEOUT_S:g} s"
        return UnusableDatabase(where, problem, _SERVER_REMEDY)
    if isinstance(error, socket.gaierror):
        return UnusableDatabase(where, f"unknown host ({error.strerror})", _SERVER_REMEDY)
    if isinstance(error, OSError):
        reason = error.strerror or str(error)
        return UnusableDatabase(where, f"cannot reach the server ({reason})", _SERVER_REMEDY)
    if isinstance(error, exceptions.InvalidPasswordError):
        return UnusableDatabase(
            where,
            f"the server refused the password of user {_user(url)}",
            "check the user and password in --db/FLORAL_DB",
        )
    if isinstance(error, exceptions.InvalidAuthorizationSpecificationError):
        return UnusableDatabase(
            where,
            f"the server refused user {_user(url)} ({_first_line(error)})",
            "create the role (docs/running.md) or allow it in the server's pg_hba.conf",
        )
    if isinstance(error, exceptions.InvalidCatalogNameError):
        return UnusableDatabase(
            where,
            f'database "{_database(url)}" does not exist',
            f"create it: createdb -O {_user(url)} {_database(url)} (docs/running.md)",
        )
    if isinstance(error, exceptions.InsufficientPrivilegeError):
        return UnusableDatabase(
            where,
            f"user {_user(url)} may not make or change floral-host's tables ({_first_line(error)})",
            f'make it the database\'s owner: ALTER DATABASE "{_database(url)}"'
            f' OWNER TO "{_user(url)}"',
        )
    if isinstance(error, exceptions.ReadOnlySQLTransactionError):
        return UnusableDatabase(
            where, "the server only reads (a standby?)", "point --db/FLORAL_DB at the primary"
        )
    if isinstance(error, exceptions.CannotConnectNowError):
        return UnusableDatabase(
            where, "the server is starting or stopping", "try again in a moment"
        )
    if isinstance(error, exceptions.TooManyConnectionsError):
        return UnusableDatabase(
            where,
            "the server has no connection left for this user",
            "stop other clients, or raise the server's max_connections",
        )
    if isinstance(error, exceptions.ClientConfigurationError | ValueError):
        return UnusableDatabase(
            where,
            f"not a usable PostgreSQL URL ({_first_line(error)})",
            "write it as postgresql://user:password@host:port/database",
        )
    if isinstance(error, asyncpg.PostgresError | exceptions.InterfaceError):
        return UnusableDatabase(
            where, f"database error ({_first_line(error)})", "check the server's log"
        )
    raise error


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
