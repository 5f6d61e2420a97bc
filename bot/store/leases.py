"""Shard leases: several ``floral-host run`` processes on one PostgreSQL database, each owning
the matches of its Discord shards.

A lease is a row of ``floral_leases`` per shard: the process that holds it (a random owner id,
and a line naming it for refusals), its lease connection's server session (to tell a dead
holder from a live one) and an expiry on the server's clock, renewed every third of the lease's
length. A process hosts, times and resolves only the matches of the shards it leases
(``bot.shards``), and each of its writes about a match is fenced (``LeaseFence``): made only
while the match's shard is still leased to it, the lease row locked (``FOR SHARE``) till the
commit, so a takeover waits for the write and a write after a takeover is refused (NotOwner).
So a process frozen past its lease and taken over writes nothing once it thaws: not a late
deadline's resolution, not an answer; a refused write makes it check its leases at once, and it
stops. The store's conditional updates (a window resolves once) stay the last defence.

Taking a shard, in one transaction at a time (a transaction-level advisory lock orders them):
* no row, or a row whose lease expired: taken;
* held by a live process: refused in one line naming it (``--standby``: wait);
* held by a process whose session is gone (killed) but whose lease has not expired yet: wait
  for the expiry (the dead process's replacement, restarted by systemd, waits at most a lease).
A standby (``--standby``) takes only expired leases: those of a process that died, never the
shards nobody has started yet. A process that cannot renew its leases in time has lost them,
and stops: another may be hosting its matches by then. A process that stops cleanly deletes
its rows, so its replacement starts at once.

Sharded processes hold the whole-database advisory lock (``bot.store.owner``) shared, so an
unsharded ``floral-host run`` on the same database is refused while any runs, and the other
way round.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from bot.shards import DEFAULT_LEASE_S, Shards
from bot.store.common import (
    BUDGET_TABLE,
    INBOUND_TABLE,
    LEASES_TABLE,
    OWNER_TABLE,
    POSTGRES_KIND,
    check_tables,
)
from bot.store.faults import UnusableDatabase
from bot.store.sql import Work, execute

log = logging.getLogger(__name__)

CLAIM_LOCK = 0x666C6F7261_04  # orders the claims (a transaction-level advisory lock)
OWNER_LOCK = 0x666C6F7261_00  # bot.store.owner's: held shared by every sharded process
ONE_PROCESS = "one process per shard: stop that one first, or start this one with other shards"

_CREATE = f"""
CREATE TABLE IF NOT EXISTS {LEASES_TABLE} (
    shard INTEGER PRIMARY KEY,
    shard_count INTEGER NOT NULL,
    owner TEXT NOT NULL,
    holder TEXT NOT NULL,
    backend_pid INTEGER NOT NULL,
    backend_start TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
)"""

_CREATE_INBOUND = f"""
CREATE TABLE IF NOT EXISTS {INBOUND_TABLE} (
    id BIGSERIAL PRIMARY KEY,
    shard INTEGER NOT NULL,
    event TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    claimed_by TEXT,
    claimed_at TIMESTAMPTZ,
    tries INTEGER NOT NULL DEFAULT 0,
    answered BOOLEAN NOT NULL DEFAULT FALSE
)"""
# (a database whose table predates the column)
_ANSWERED_COLUMN = (
    f"ALTER TABLE {INBOUND_TABLE} ADD COLUMN IF NOT EXISTS answered BOOLEAN NOT NULL DEFAULT FALSE"
)
_CREATE_BUDGET = f"""
CREATE TABLE IF NOT EXISTS {BUDGET_TABLE} (
    id INTEGER PRIMARY KEY,
    tokens DOUBLE PRECISION NOT NULL,
    at TIMESTAMPTZ NOT NULL
)"""

# every lease, with whether it is still running (its expiry) and its holder's session alive
_READ = f"""
SELECT l.shard, l.shard_count, l.owner, l.holder,
       l.expires_at > clock_timestamp() AS running,
       EXTRACT(EPOCH FROM l.expires_at - clock_timestamp())::float8 AS left_s,
       EXISTS (SELECT 1 FROM pg_stat_activity a
               WHERE a.pid = l.backend_pid AND a.backend_start = l.backend_start) AS alive
FROM {LEASES_TABLE} l ORDER BY l.shard"""

_TAKE = f"""
INSERT INTO {LEASES_TABLE}
SELECT s, $2::int, $3::text, $4::text, pg_backend_pid(),
       (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()),
       clock_timestamp() + make_interval(secs => $5::float8)
FROM unnest($1::int[]) AS s
ON CONFLICT (shard) DO UPDATE SET shard_count = excluded.shard_count, owner = excluded.owner,
    holder = excluded.holder, backend_pid = excluded.backend_pid,
    backend_start = excluded.backend_start, expires_at = excluded.expires_at"""

_RENEW = f"""
UPDATE {LEASES_TABLE} SET expires_at = clock_timestamp() + make_interval(secs => $2::float8),
    backend_pid = pg_backend_pid(),
    backend_start = (SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())
WHERE owner = $1 RETURNING shard"""


# while a DM handed over to this process is handled (``bot.handoff``): its row's id
HANDED_OVER: ContextVar[int | None] = ContextVar("floral_handed_over", default=None)
NOT_LEASED = "FH001"  # the SQLSTATE of a fenced write whose shard this owner does not lease
# the fences, in the database: the match's lease row, if it is this owner's, locked till the
# commit; else an error that rolls the transaction back. An error, not a row count, so the check
# needs no answer: it goes with the transaction's next statement, costing no round trip
_FENCE_FUNCTIONS = (
    f"""
CREATE OR REPLACE FUNCTION floral_fence_match(BIGINT, TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM {LEASES_TABLE} l JOIN matches m
        ON l.shard = CASE WHEN m.practice <> 0 THEN 0 ELSE (m.guild_id >> 22) % l.shard_count END
    WHERE m.id = $1 AND l.owner = $2 FOR SHARE OF l;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'match %: its shard is not leased to this process', $1
            USING ERRCODE = '{NOT_LEASED}';
    END IF;
END$$""",
    f"""
CREATE OR REPLACE FUNCTION floral_fence_new(BOOLEAN, BIGINT, TEXT) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM {LEASES_TABLE}
    WHERE owner = $3 AND shard = CASE WHEN $1 THEN 0 ELSE ($2 >> 22) % shard_count END
    FOR SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'a new match: its shard is not leased to this process'
            USING ERRCODE = '{NOT_LEASED}';
    END IF;
END$$""",
)


class LeaseFence:
    """The store's fence (``bot.store.common.Fence``) of the process whose leases have
    ``owner``: the write fails with NotOwner unless the match's shard is leased to it (the
    store raises it, ``bot.store.postgres``); ``refused`` is called then (the process checks
    its leases at once)."""

    def __init__(self, owner: str, refused: Callable[[], None]) -> None:
        self.owner = owner
        self.refused = refused

    def match(self, match_id: int) -> Work[None]:
        yield from execute("SELECT floral_fence_match(?, ?)", match_id, self.owner)

    def new(self, guild_id: int, practice: bool) -> Work[None]:
        yield from execute("SELECT floral_fence_new(?, ?, ?)", practice, guild_id, self.owner)

    def attempt(self, match_id: int) -> Work[None]:
        """An attempt's fence; the DM handed over that it answers (``HANDED_OVER``) is marked
        answered in the same transaction, so whoever handles the DM again knows the answer
        committed (``bot.handoff``)."""
        yield from self.match(match_id)
        row = HANDED_OVER.get()
        if row is not None:
            yield from execute(f"UPDATE {INBOUND_TABLE} SET answered = TRUE WHERE id = ?", row)


@dataclass(frozen=True, slots=True)
class Lease:
    """One row as read: the shard, its holder and its state."""

    shard: int
    count: int
    owner: str
    holder: str
    running: bool  # not expired
    left_s: float  # until it expires (negative: expired)
    alive: bool  # its holder's session is still connected


class Refused(UnusableDatabase):
    """A shard is held by a live process."""


def _blocking(lease: Lease, wanted: Shards) -> bool:
    return lease.count != wanted.count or lease.shard in wanted.ids


class ShardLeases:
    """The leases of one process: taken once (``claim``), renewed until ``release``."""

    def __init__(
        self,
        url: str,
        holder: str,
        *,
        lease_s: float = DEFAULT_LEASE_S,
        on_lost: Callable[[str], None] | None = None,
    ) -> None:
        self.url = url
        self.holder = holder
        self.owner = uuid.uuid4().hex
        self.lease_s = lease_s
        self.shards: Shards | None = None
        self._on_lost = on_lost
        self._connection: Any = None
        self._renewing: asyncio.Task[None] | None = None
        self._renewed_at = 0.0  # monotonic time of the last renewal the server confirmed
        self._check_now = asyncio.Event()  # a fenced write was refused: renew at once

    # --- taking ---------------------------------------------------------------------------

    async def claim(self, wanted: Shards, *, standby: bool = False) -> Shards:
        """Take ``wanted``'s shards (a standby: those of them whose lease expired, once there
        are any) and keep them renewed; the shards taken. Refused (a live holder) or
        UnusableDatabase in one line."""
        from bot.store.postgres import shown

        await self._connect()
        while True:
            taken, wait_s, reason = await self._try(wanted, standby)
            if taken is not None:
                break
            log.info("shards %s: %s; trying again in %.1f s", wanted.text, reason, wait_s)
            await asyncio.sleep(wait_s)
        self.shards = taken
        self._renewed_at = time.monotonic()
        self._renewing = asyncio.create_task(self._renew_forever(), name="shard-leases")
        log.info("leased shards %s of %s", taken.text, shown(self.url))
        return taken

    async def _connect(self) -> None:
        from bot.store.postgres import connect, explain, shown, table_names

        self._connection = connection = await connect(self.url)
        try:
            async with connection.transaction():
                await connection.execute("SELECT pg_advisory_xact_lock($1)", CLAIM_LOCK)
                if not await connection.fetchval(
                    "SELECT pg_try_advisory_lock_shared($1)", OWNER_LOCK
                ):
                    from bot.store.owner import _recorded_holder

                    raise Refused(
                        shown(self.url),
                        f"in use by {await _recorded_holder(connection)}, which runs unsharded",
                        "stop it first: an unsharded process hosts every match",
                    )
                check_tables(shown(self.url), await table_names(connection), False, POSTGRES_KIND)
                # the sharded processes' tables, made by the first one (one claim at a time)
                for made in (
                    _CREATE,
                    _CREATE_INBOUND,
                    _ANSWERED_COLUMN,
                    _CREATE_BUDGET,
                    *_FENCE_FUNCTIONS,
                ):
                    await connection.execute(made)
                await connection.execute(
                    f"CREATE TABLE IF NOT EXISTS {OWNER_TABLE}"
                    " (id INTEGER PRIMARY KEY, holder TEXT NOT NULL)"
                )
                await connection.execute(
                    f"INSERT INTO {OWNER_TABLE} VALUES (1, $1)"
                    " ON CONFLICT (id) DO UPDATE SET holder = excluded.holder",
                    self.holder,
                )
        except UnusableDatabase:
            await self.close()
            raise
        except Exception as error:
            await self.close()
            raise explain(self.url, error) from None

    async def _try(self, wanted: Shards, standby: bool) -> tuple[Shards | None, float, str]:
        """One attempt: (the shards taken, or None with how long to wait and why)."""
        from bot.store.postgres import shown

        connection = self._connection
        async with connection.transaction():
            await connection.execute("SELECT pg_advisory_xact_lock($1)", CLAIM_LOCK)
            leases = [Lease(*row) for row in await connection.fetch(_READ)]
            blocking = [lease for lease in leases if _blocking(lease, wanted)]
            if standby:
                expired = [
                    lease.shard
                    for lease in blocking
                    if not lease.running and lease.count == wanted.count
                ]
                if not expired:
                    return None, self.lease_s / 3, "no expired lease to take over"
                taken = Shards(tuple(expired), wanted.count)
            else:
                live = [lease for lease in blocking if lease.running and lease.alive]
                if live:
                    raise Refused(
                        shown(self.url),
                        f"shard {live[0].shard} of {live[0].count} is held by {live[0].holder}",
                        ONE_PROCESS,
                    )
                waiting = [lease for lease in blocking if lease.running]
                if waiting:
                    left = max(lease.left_s for lease in waiting)
                    holder = waiting[0].holder
                    return None, min(left + 0.05, self.lease_s), f"{holder} died; its lease ends"
                taken = wanted
            stale = [lease.shard for lease in leases if lease.count != taken.count]
            if stale:  # another shard count's leases, all expired: the old layout is gone
                await connection.execute(
                    f"DELETE FROM {LEASES_TABLE} WHERE shard = ANY($1::int[])", stale
                )
            await connection.execute(
                _TAKE, list(taken.ids), taken.count, self.owner, self.holder, self.lease_s
            )
        return taken, 0.0, ""

    # --- keeping --------------------------------------------------------------------------

    @property
    def period_s(self) -> float:
        return self.lease_s / 3

    def held(self) -> bool:
        """Whether the leases are surely still this process's (renewed within a lease)."""
        return time.monotonic() - self._renewed_at < self.lease_s

    def fence(self) -> LeaseFence:
        """The store's fence for this process's writes (``LeaseFence``)."""
        return LeaseFence(self.owner, self._check_now.set)

    async def _renew_forever(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.period_s):
                    await self._check_now.wait()
            self._check_now.clear()
            try:
                await self.renew()
            except LeaseLost as error:
                log.error("%s", error)
                if self._on_lost is not None:
                    self._on_lost(str(error))
                return
            except Exception as error:  # the server unreachable: again soon, within the lease
                log.warning("shard leases not renewed (%s); trying again", error)
                if not self.held():
                    message = f"shard leases lost: not renewed for {self.lease_s:g} s ({error})"
                    log.error("%s", message)
                    if self._on_lost is not None:
                        self._on_lost(message)
                    return
                await self._reconnect()

    async def renew(self) -> None:
        """Push the expiry one lease ahead; LeaseLost when another process took a shard (a
        lease that expired unnoticed, the event loop stalled, is still this process's until
        another takes it)."""
        assert self.shards is not None
        rows = await self._connection.fetch(_RENEW, self.owner, self.lease_s)
        kept = {int(row[0]) for row in rows}
        if kept != set(self.shards.ids):
            lost = sorted(set(self.shards.ids) - kept)
            raise LeaseLost(f"shard leases lost: shards {lost} expired or were taken over")
        self._renewed_at = time.monotonic()

    async def _reconnect(self) -> None:
        from bot.store.postgres import connect

        with contextlib.suppress(Exception):
            await self._connection.close()
        with contextlib.suppress(Exception):
            self._connection = await connect(self.url)
            await self._connection.fetchval("SELECT pg_try_advisory_lock_shared($1)", OWNER_LOCK)

    async def leases(self) -> list[Lease]:
        """Every lease row (for ``status`` and tests)."""
        return [Lease(*row) for row in await self._connection.fetch(_READ)]

    async def release(self) -> None:
        """Give the shards back (a clean stop): a replacement may start at once."""
        if self._renewing is not None:
            self._renewing.cancel()
            await asyncio.gather(self._renewing, return_exceptions=True)
            self._renewing = None
        if self._connection is not None and self.shards is not None:
            with contextlib.suppress(Exception):
                await self._connection.execute(
                    f"DELETE FROM {LEASES_TABLE} WHERE owner = $1", self.owner
                )
        await self.close()

    async def close(self) -> None:
        if self._connection is not None:
            connection, self._connection = self._connection, None
            with contextlib.suppress(Exception):
                await connection.close()


class LeaseLost(Exception):
    """Another process holds a shard this one leased: this one must stop hosting."""


@contextlib.asynccontextmanager
async def leasing(
    url: str,
    wanted: Shards,
    holder: str,
    *,
    standby: bool = False,
    lease_s: float = DEFAULT_LEASE_S,
    on_lost: Callable[[str], None] | None = None,
) -> AsyncIterator[ShardLeases]:
    """Hold ``wanted``'s leases (``ShardLeases.claim``) for the block; released after it."""
    leases = ShardLeases(url, holder, lease_s=lease_s, on_lost=on_lost)
    try:
        await leases.claim(wanted, standby=standby)
        yield leases
    finally:
        await leases.release()
