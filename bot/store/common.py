"""What both SQL stores share: the :class:`~bot.store.Store` interface over the transactions of
``bot.store.transactions``, and the checks made when a database is opened.

A backend implements how a work runs (``_read``: a read; ``_write``: one transaction, rolled
back by any error; ``_passing``: which errors may pass, for ``WriteFailed``), ``sync``,
``close``, ``vacuum``, ``size`` and ``session`` (one transaction across many works, for
``copy-db``).
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol, TypeVar

from bot.shards import Shards
from bot.store import (
    Attempt,
    Change,
    FirstMessages,
    LogEntry,
    MatchRecord,
    MatchStatus,
    NewMatch,
    NotOwner,
    OutboxMessage,
    OutboxRow,
    Rater,
    Rating,
    Retry,
    StepRecord,
    TableRecord,
    WindowRecord,
    WriteFailed,
)
from bot.store import transactions as tx
from bot.store.faults import UnusableDatabase
from bot.store.schema import LATEST_VERSION
from bot.store.sql import Dialect, Row, Work, fetch, marks
from games.protocol import JSON

log = logging.getLogger(__name__)
T = TypeVar("T")

# tables of floral-host's that the migrations do not make, each database's own (never copied):
# the holder of a PostgreSQL database (bot/store/owner.py), the sharded processes' leases
# (bot/store/leases.py), the DMs handed to a match's owner (bot/handoff.py) and the shared
# Discord request budget (bot/budget.py)
OWNER_TABLE = "floral_owner"
LEASES_TABLE, INBOUND_TABLE, BUDGET_TABLE = "floral_leases", "floral_inbound", "floral_budget"
COORDINATION_TABLES = frozenset({OWNER_TABLE, LEASES_TABLE, INBOUND_TABLE, BUDGET_TABLE})
POSTGRES_KIND, SQLITE_KIND = "a PostgreSQL database", "an SQLite database"


class GroupSync:
    """Group commit: ``await sync()`` returns once a flush that started after the call is done,
    so every commit made before it is durable; the callers arriving while one flush runs share
    the next one. ``flush`` raises OSError (or WriteFailed) when it fails: its waiters then get
    WriteFailed."""

    def __init__(self, flush: Callable[[], Awaitable[None]]) -> None:
        self._flush = flush
        self._next: asyncio.Future[None] | None = None  # the flush the next waiters share
        self._running: asyncio.Task[None] | None = None

    async def __call__(self) -> None:
        if self._next is None:
            self._next = asyncio.get_running_loop().create_future()
        if self._running is None:
            self._running = asyncio.create_task(self._flushes(), name="group-sync")
        await asyncio.shield(self._next)

    async def stop(self) -> None:
        if self._running is not None:
            await asyncio.gather(self._running, return_exceptions=True)

    async def _flushes(self) -> None:
        waiting: asyncio.Future[None] | None = None
        try:
            while self._next is not None:
                waiting, self._next = self._next, None
                try:
                    await self._flush()
                except (OSError, WriteFailed) as error:
                    waiting.set_exception(WriteFailed(f"the database could not be synced: {error}"))
                else:
                    waiting.set_result(None)
        finally:
            self._running = None
            for future in (waiting, self._next):  # stopped midway (cancelled): no waiter hangs
                if future is not None and not future.done():
                    future.set_exception(WriteFailed("the database sync was interrupted"))
            self._next = None


class Session(ABC):
    """One open transaction of an operator's command (``copy-db``): works run in it one after
    another, and it commits when the block ends without an error."""

    @abstractmethod
    async def run(self, work: Work[T]) -> T: ...


class Fence(Protocol):
    """Checked first in each of the host's writes about a match (its moves, its steps, a new
    match): the write fails with NotOwner, rolled back, when this process may not make it (a
    sharded process whose lease of the match's shard was taken over: ``bot.store.leases``);
    ``refused`` is called then."""

    def match(self, match_id: int) -> Work[None]: ...

    def new(self, guild_id: int, practice: bool) -> Work[None]: ...

    def attempt(self, match_id: int) -> Work[None]:
        """``match``, for an attempt (a sharded process marks the DM it answers with it)."""
        ...

    def refused(self) -> None: ...


def _after(first: Work[None], then: Work[T]) -> Work[T]:
    yield from first
    return (yield from then)


class SqlStore(ABC):
    dialect: Dialect
    where: str  # the database as a refusal names it: a file, or a URL without its password
    fence: Fence | None = None  # a sharded process's (set once, before the host starts)

    # --- what a backend provides --------------------------------------------------------------

    @abstractmethod
    async def _read(self, work: Work[T]) -> T:
        """Run ``work``, which only reads (SQLite: on the one connection, in order with the
        writes; PostgreSQL: each statement sees the latest commits)."""

    @abstractmethod
    async def _write(
        self, work: Work[T], *, durable: bool = False, exact: bool = True, first: bool = False
    ) -> T:
        """Run ``work`` as one transaction: any error rolls it all back. ``durable``: return
        once the commit is durable (on disk, surviving a power loss); otherwise once it is
        committed, and ``sync`` makes it durable. ``exact``: a failure means nothing was
        written, even when the connection to a server is lost in the commit (the server is
        asked); a write whose retry does no harm may skip that and save a round trip.
        ``first``: a match's change, which a backend queueing its work on one connection
        (SQLite) runs before the outbox's reads and records queued earlier (a durable write,
        an answer, goes before both)."""

    @abstractmethod
    def _passing(self, error: Exception) -> bool:
        """Whether a failed write's error may pass (a lock, a full disk, a lost connection)."""

    @abstractmethod
    async def sync(self) -> None:
        """Until every commit made before the call is durable."""

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def vacuum(self) -> None:
        """Give the space of deleted rows back (operator's commands, owning the database)."""

    @abstractmethod
    async def size(self) -> int:
        """The database's bytes on disk."""

    @abstractmethod
    def session(self, *, readonly: bool = False) -> AbstractAsyncContextManager[Session]:
        """One transaction across many works (a readonly one reads one snapshot): for an
        operator's command that alone uses the store."""

    # --- shared -------------------------------------------------------------------------------

    async def table_rows(
        self, session: Session, table: str, columns: Sequence[str], key: Sequence[str], size: int
    ) -> AsyncIterator[list[Row]]:
        """Every row of ``table`` in ``key`` order (its primary key, among ``columns``),
        ``size`` rows at a time, read in ``session``: each page starts after the last key."""
        at = [columns.index(name) for name in key]
        order, after = ", ".join(key), None  # type: str, Row | None
        while True:
            where = "" if after is None else f" WHERE ({order}) > ({marks(after)})"
            rows = await session.run(
                fetch(
                    f"SELECT {', '.join(columns)} FROM {table}{where} ORDER BY {order}"
                    f" LIMIT {int(size)}",
                    *(after or ()),
                )
            )
            if rows:
                yield rows
            if len(rows) < size:
                return
            after = [rows[-1][index] for index in at]

    async def transaction(self, work: Work[T]) -> T:
        """Run ``work`` as one transaction (the operator's commands: ``prune``, ``forget``)."""
        return await self._write(work)

    async def read(self, work: Work[T]) -> T:
        return await self._read(work)

    async def _save(
        self, work: Work[T], *, durable: bool = False, exact: bool = True, first: bool = False
    ) -> T:
        """``_write`` for the host's writes: a failure that may pass becomes WriteFailed."""
        try:
            return await self._write(work, durable=durable, exact=exact, first=first)
        except NotOwner:
            if self.fence is not None:
                self.fence.refused()
            raise
        except Exception as error:
            if not self._passing(error):
                raise
            raise WriteFailed(f"the database could not be written: {error}") from error

    async def _archive_ended(self) -> None:
        """Archive the messages of the matches over that still hold settled ones, one match a
        transaction (after an upgrade: every match that ended before it)."""
        waiting = await self._read(tx.unarchived())
        if len(waiting) > 1:
            log.info("archiving the delivered messages of %d ended matches", len(waiting))
        for match_id in waiting:
            await self._write(tx.archive_settled(match_id))

    async def match_count(self) -> int:
        return await self._read(tx.match_count())

    async def schema_version(self) -> int:
        return await self._read(tx.schema_version())

    # --- writes -------------------------------------------------------------------------------

    def _fenced(self, match_id: int, work: Work[T]) -> Work[T]:
        return work if self.fence is None else _after(self.fence.match(match_id), work)

    async def create_match(
        self, new: NewMatch, snapshot: JSON, at: float, outbox: FirstMessages
    ) -> int:
        work = tx.create_match(self.dialect, new, snapshot, at, outbox)
        if self.fence is not None:
            work = _after(self.fence.new(new.guild_id, new.practice), work)
        return await self._save(work)

    async def add_attempt(self, attempt: Attempt) -> bool:
        work = tx.add_attempt(self.dialect, attempt)
        if self.fence is not None:
            work = _after(self.fence.attempt(attempt.match_id), work)
        try:
            # not exact: a move kept though its commit's answer was lost is only not
            # acknowledged, and the player's answer again replaces it
            await self._save(work, durable=True, exact=False)
        except tx.WindowClosed:
            return False
        return True  # durable: the move may be acknowledged

    async def apply(self, change: Change) -> bool:
        try:
            work = self._fenced(change.match_id, tx.apply(self.dialect, change))
            await self._save(work, first=True)  # a deadline's resolution waits for it
        except tx.WindowClosed:
            return False
        return True

    async def settle_outbox(
        self, sent: Sequence[int], retries: Sequence[Retry], failed: Sequence[Retry], at: float
    ) -> None:
        # not exact: settling again what was settled (or archived) changes nothing
        await self._save(tx.settle(self.dialect, sent, retries, failed, at), exact=False)

    async def create_table(
        self, guild_id: int, channel_id: int, game: str, opener: int, seats: int, at: float
    ) -> TableRecord:
        table_id = await self._save(tx.create_table(guild_id, channel_id, game, opener, seats, at))
        return TableRecord(
            table_id, guild_id, channel_id, game, opener, seats, (), "open", None, at
        )

    async def update_table(self, table: TableRecord) -> None:
        await self._save(tx.update_table(table))

    async def set_thread(self, match_id: int, thread_id: int) -> None:
        await self._save(tx.set_thread(match_id, thread_id))

    async def set_dm_channel(self, user_id: int, channel_id: int) -> None:
        await self._save(tx.set_dm_channel(user_id, channel_id))

    async def forget_dm_channel(self, user_id: int, channel_id: int) -> None:
        await self._save(tx.forget_dm_channel(user_id, channel_id))

    async def fold_ratings(
        self, rate: Rater, *, limit: int | None = 1, rebuild: bool = False
    ) -> int:
        if not rebuild and not await self._read(tx.unfolded(self.dialect)):
            return 0  # no write when nothing is new
        return await self._save(tx.fold_ratings(self.dialect, rate, limit, rebuild))

    # --- reads --------------------------------------------------------------------------------

    async def thread_of(self, match_id: int) -> int | None:
        return await self._read(tx.thread_of(match_id))

    async def get_table(self, table_id: int) -> TableRecord | None:
        return await self._read(tx.get_table(table_id))

    async def open_tables(self) -> list[TableRecord]:
        return await self._read(tx.open_tables())

    async def dm_channel(self, user_id: int) -> int | None:
        return await self._read(tx.dm_channel(user_id))

    async def get_match(self, match_id: int) -> MatchRecord | None:
        return await self._read(tx.read_match(match_id))

    async def list_matches(
        self, guild_id: int | None = None, statuses: Sequence[MatchStatus] | None = None
    ) -> list[MatchRecord]:
        return await self._read(tx.list_matches(guild_id, statuses))

    async def finished_matches(
        self, guild_id: int, user_id: int | None = None, *, offset: int = 0, limit: int = 15
    ) -> tuple[list[MatchRecord], int]:
        return await self._read(tx.finished_matches(self.dialect, guild_id, user_id, offset, limit))

    async def ratings(
        self, guild_id: int | None, game: str | None = None, user_id: int | None = None
    ) -> list[Rating]:
        return await self._read(tx.ratings(guild_id, game, user_id))

    async def open_window(self, match_id: int) -> WindowRecord | None:
        return await self._read(tx.open_window(match_id))

    async def latest_step(self, match_id: int) -> StepRecord:
        return await self._read(tx.latest_step(match_id))

    async def steps(self, match_id: int) -> list[StepRecord]:
        return await self._read(tx.read_steps(match_id))

    async def attempts(self, match_id: int) -> list[Attempt]:
        return await self._read(tx.attempts(match_id))

    async def match_log(self, match_id: int) -> list[LogEntry]:
        return await self._read(tx.match_log(match_id))

    async def outbox(self, match_id: int) -> list[OutboxRow]:
        return await self._read(tx.match_outbox(match_id))

    async def due_outbox(
        self, now: float, limit: int, shards: Shards | None = None
    ) -> tuple[list[OutboxRow], float | None]:
        return await self._read(tx.due_outbox(self.dialect, now, limit, shards))

    async def pending_to_seats(self) -> list[OutboxMessage]:
        return await self._read(tx.pending_to_seats())

    async def pending_messages(self, match_id: int, audience: str, limit: int) -> list[OutboxRow]:
        return await self._read(tx.pending_messages(match_id, audience, limit))


def check_tables(where: str, tables: set[str], readonly: bool, kind: str) -> bool:
    """Whether the database holds floral-host's schema (False: it is empty, and a writable
    open makes it); refuses another program's database (``kind``: "an SQLite database")."""
    tables = tables - COORDINATION_TABLES
    if "schema_migrations" in tables:
        return True
    if tables or readonly:
        raise UnusableDatabase(
            where,
            f"{kind} that is not floral-host's" if tables else "holds no data",
            "point --db or FLORAL_DB at floral-host's database",
        )
    return False


def check_version(where: str, version: int, readonly: bool, any_older: bool) -> None:
    """Refuses a newer floral-host's schema, and (``readonly``) an older one to be read."""
    if version > LATEST_VERSION:
        raise UnusableDatabase(
            where,
            f"written by a newer floral-host (schema version {version}, this one knows up"
            f" to {LATEST_VERSION})",
            "it is left untouched: upgrade floral-host, or use a backup made by this version",
        )
    if readonly and version < LATEST_VERSION and not any_older:
        raise UnusableDatabase(
            where,
            f"schema version {version} is older than this floral-host's {LATEST_VERSION}",
            "start floral-host run once to upgrade it, or use the version that wrote it",
        )
