"""DMs handed to the process that hosts their match (sharded processes on PostgreSQL).

Discord sends every DM and DM interaction to shard 0. The process holding shard 0 looks up
which shard's process hosts the match a DM is about (``route``); when that is another process,
it acknowledges the interaction within Discord's 3 s (a deferral) and writes the raw event to
``floral_inbound``, addressed to the match's shard, with a ``NOTIFY`` (``forward``). Every
sharded process listens; the one leasing that shard claims the row (its lease's owner id and
the time, in one conditional ``UPDATE``: once, whoever else looks), handles the event as if
Discord had sent it there (it validates and commits the answer, and answers through the
interaction's webhook token, valid 15 minutes and usable from any process, or for a typed DM by
posting in the DM channel), and only then deletes the row. So the player sees what one process
shows, and an acknowledgement still means committed.

A process that dies between its claim and the row's deletion leaves the row claimed by an owner
id no lease names any more (its replacement or a standby leases the shard under a new one): the
next owner claims it again and handles it. If the dead one had committed the answer already,
the row says so (the attempt's transaction marks it answered, ``bot.store.leases.HANDED_OVER``):
the payload comes with ``ANSWERED`` and is never submitted again (by then the window may have
moved on); the client answers it only if no answer reached the player (``bot.client``). An
answer handled again that the dead one had not committed is submitted as new (the host still
knows the seat's standing move for the same, ``bot.host.submissions.REDELIVERED``). A claim
older than ``STALE_CLAIM_S`` is taken again too (a handler that never ended).

A notification can be missed (the owner was reconnecting, or just started after taking over a
dead process's shard): each process also collects the rows of its shards when it starts and
every few seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot.shards import Shards, shard_of
from bot.store import ACTIVE_STATUSES
from bot.store.common import INBOUND_TABLE, LEASES_TABLE
from bot.store.leases import HANDED_OVER

log = logging.getLogger(__name__)

CHANNEL = "floral_inbound"  # the NOTIFY channel: the payload is "<shard>:<row id>"
COLLECT_S = 2.0  # how often rows a notification missed are collected
STALE_CLAIM_S = 300.0  # a claim this old is taken again even if its process still leases
REMEMBERED_MATCHES = 10_000  # the matches whose shard a DM is routed by without a query

_FORWARD = f"""
WITH row AS (INSERT INTO {INBOUND_TABLE} (shard, event, payload) VALUES ($1, $2, $3)
             RETURNING id)
SELECT pg_notify('{CHANNEL}', $1::text || ':' || id::text) FROM row"""
# the rows of these shards (or the one row $3) that nobody handles: unclaimed, or claimed by
# an owner id no lease names (its process died and the shard was leased again), or long ago;
# claimed only while the shard is still leased to this owner (a process taken over claims none)
_CLAIM = f"""
WITH claimed AS (
    UPDATE {INBOUND_TABLE} i
    SET claimed_by = $1, claimed_at = clock_timestamp(), tries = i.tries + 1
    WHERE i.shard = ANY($2::int[]) AND ($3::bigint IS NULL OR i.id = $3::bigint)
      AND EXISTS (SELECT 1 FROM {LEASES_TABLE} l WHERE l.owner = $1 AND l.shard = i.shard)
      AND (i.claimed_by IS NULL
           OR i.claimed_at < clock_timestamp() - make_interval(secs => $4::float8)
           OR NOT EXISTS (SELECT 1 FROM {LEASES_TABLE} l WHERE l.owner = i.claimed_by))
    RETURNING i.id, i.event, i.payload, i.tries, i.answered)
SELECT id, event, payload, tries, answered FROM claimed ORDER BY id"""
_DONE = f"DELETE FROM {INBOUND_TABLE} WHERE id = $1 AND claimed_by = $2"
_ACTIVE = ", ".join(f"'{status}'" for status in ACTIVE_STATUSES)
# the user's active matches, latest first (a DM that names no match is about one of them)
_USERS_MATCHES = (
    f"SELECT guild_id, practice, id FROM matches WHERE status IN ({_ACTIVE})"
    " AND players::jsonb @> to_jsonb($1::bigint) ORDER BY id DESC LIMIT 50"
)
_MATCH = "SELECT guild_id, practice, id FROM matches WHERE id = $1"

Deliver = Callable[[str, dict[str, Any], bool], Awaitable[None]]
"""Handles one handed-over event: (Discord's event name, its raw payload, whether it is handed
over again: a process that claimed it died before it was done), until it is done. A payload
handed over again whose answer that process committed has ``ANSWERED`` set."""
ANSWERED = "floral_answered"


class HandOff:
    """One process's end of the hand-off: it forwards (shard 0's process) and receives."""

    def __init__(self, url: str, shards: Shards, owner: str, deliver: Deliver) -> None:
        """``owner``: the owner id of this process's leases (``ShardLeases.owner``); its claims
        name it, so they end with the leases."""
        self.url = url
        self.shards = shards
        self.owner = owner
        self._deliver = deliver
        self._handling: set[int] = set()  # the rows this process is handling now
        self._match_shards: dict[int, int] = {}  # match id -> its shard, as routed before
        self._pool: Any = None
        self._listener: Any = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._collecting: asyncio.Task[None] | None = None
        self.forwarded = 0
        self.received = 0

    async def start(self) -> None:
        import asyncpg

        from bot.store.postgres import CONNECT_TIMEOUT_S, new_pool

        self._pool = await new_pool(self.url, max_size=4)
        self._listener = await asyncpg.connect(self.url, timeout=CONNECT_TIMEOUT_S)
        await self._listener.add_listener(CHANNEL, self._notified)
        self._collecting = asyncio.create_task(self._collect_forever(), name="handoff-collect")

    async def close(self) -> None:
        if self._collecting is not None:
            self._collecting.cancel()
            await asyncio.gather(self._collecting, return_exceptions=True)
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for closing in (self._listener, self._pool):
            if closing is not None:
                with contextlib.suppress(Exception):
                    await closing.close()
        self._listener = self._pool = None

    # --- forwarding (the process holding shard 0) -----------------------------------------

    async def route(self, user_id: int, match_id: int | None) -> int | None:
        """The shard whose process should answer a DM about ``match_id`` (None: the user's
        latest active match); None when this process should (or there is no such match)."""
        shard = None if match_id is None else self._match_shards.get(match_id)
        if shard is None:
            shard = await self._routed_shard(user_id, match_id)
        return None if shard is None or shard in self.shards.ids else shard

    async def _routed_shard(self, user_id: int, match_id: int | None) -> int | None:
        """The shard of ``match_id`` (remembered: a match never changes server), or of the
        user's latest active match; None when there is no such match."""
        if match_id is not None:
            rows = await self._pool.fetch(_MATCH, match_id)
        else:
            rows = await self._pool.fetch(_USERS_MATCHES, user_id)
        if not rows:
            return None
        guild_id, practice, found = rows[0]
        shard = self._shard(int(guild_id), bool(practice))
        if match_id is not None:
            if len(self._match_shards) >= REMEMBERED_MATCHES:
                del self._match_shards[next(iter(self._match_shards))]  # the oldest
            self._match_shards[int(found)] = shard
        return shard

    async def elsewhere(self, user_id: int) -> list[int]:
        """The user's active matches other processes host, latest first."""
        rows = await self._pool.fetch(_USERS_MATCHES, user_id)
        return [
            int(match_id)
            for guild_id, practice, match_id in rows
            if self._shard(int(guild_id), bool(practice)) not in self.shards.ids
        ]

    def _shard(self, guild_id: int, practice: bool) -> int:
        return 0 if practice else shard_of(guild_id, self.shards.count)

    async def forward(self, shard: int, event: str, payload: dict[str, Any]) -> None:
        """Hand ``payload`` to the process leasing ``shard`` (it may not be running now: the
        row waits for it or for a standby)."""
        await self._pool.execute(_FORWARD, shard, event, json.dumps(payload))
        self.forwarded += 1

    # --- receiving ------------------------------------------------------------------------

    def _notified(self, connection: Any, pid: int, channel: str, payload: str) -> None:
        shard, _, row = payload.partition(":")
        if not (shard.isdigit() and row.isdigit()) or int(shard) not in self.shards.ids:
            return
        self._spawn(self._claim(int(row)))

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _claim(self, row_id: int | None) -> None:
        """Claim the row ``row_id`` (None: every row of this process's shards nobody
        handles), and handle what was claimed."""
        try:
            rows = await self._pool.fetch(
                _CLAIM, self.owner, list(self.shards.ids), row_id, STALE_CLAIM_S
            )
        except Exception:
            if row_id is None:
                raise
            log.warning("a handed-over DM could not be claimed; collected later", exc_info=True)
            return
        for found, event, payload, tries, answered in rows:
            if found not in self._handling:  # a stale claim of its own, still being handled
                self._handling.add(found)
                data = json.loads(payload)
                if answered:
                    data[ANSWERED] = True
                self._spawn(self._handle(found, event, data, again=tries > 1))

    async def _handle(self, row_id: int, event: str, data: dict[str, Any], *, again: bool) -> None:
        """Handle a claimed row, then delete it. A handler that fails is not tried again; a
        process stopped meanwhile (cancelled) leaves the row claimed for its replacement.
        The handler's attempt marks the row answered as it commits (``HANDED_OVER``)."""
        marked = HANDED_OVER.set(row_id)  # the handler's tasks copy it
        try:
            self.claimed(row_id)
            self.received += 1
            try:
                await self._deliver(event, data, again)
            except Exception:
                log.exception("a handed-over %s failed", event)
            await self.handled(row_id)
            try:
                await self._pool.execute(_DONE, row_id, self.owner)
            except Exception as error:  # handled again later: the host knows it for the same
                log.warning("a handed-over DM handled but not deleted (%s)", error)
        finally:
            HANDED_OVER.reset(marked)
            self._handling.discard(row_id)

    def claimed(self, row_id: int) -> None:
        """Between a row's claim and its handling (a seam: tests stop a process here)."""

    async def handled(self, row_id: int) -> None:
        """Between a row's handling and its deletion (a seam: tests stop a process here)."""

    async def collect(self) -> None:
        """Claim and handle every row waiting for this process's shards (notifications missed,
        or claimed by a process that died)."""
        await self._claim(None)

    async def _collect_forever(self) -> None:
        while True:
            try:
                await self.collect()
            except Exception as error:
                log.warning("handed-over DMs not collected (%s); trying again", error)
            await asyncio.sleep(COLLECT_S)
