"""DMs handed to the process that hosts their match (sharded processes on PostgreSQL).

Discord sends every DM and DM interaction to shard 0. The process holding shard 0 looks up
which shard's process hosts the match a DM is about (``route``); when that is another process,
it acknowledges the interaction within Discord's 3 s (a deferral) and writes the raw event to
``floral_inbound``, addressed to the match's shard, with a ``NOTIFY`` (``forward``). Every
sharded process listens; the one leasing that shard takes the row (a ``DELETE ... RETURNING``:
once, whoever else looks) and handles the event as if Discord had sent it there: it validates
and commits the answer, and answers through the interaction's webhook token (valid 15 minutes,
usable from any process) or, for a typed DM, by posting in the DM channel. So the player sees
what one process shows, and an acknowledgement still means committed.

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
from bot.store.common import INBOUND_TABLE

log = logging.getLogger(__name__)

CHANNEL = "floral_inbound"  # the NOTIFY channel: the payload is "<shard>:<row id>"
COLLECT_S = 2.0  # how often rows a notification missed are collected

_FORWARD = f"""
WITH row AS (INSERT INTO {INBOUND_TABLE} (shard, event, payload) VALUES ($1, $2, $3)
             RETURNING id)
SELECT pg_notify('{CHANNEL}', $1::text || ':' || id::text) FROM row"""
_TAKE_ONE = f"DELETE FROM {INBOUND_TABLE} WHERE id = $1 RETURNING event, payload"
_TAKE_ALL = f"""
WITH taken AS (DELETE FROM {INBOUND_TABLE} WHERE shard = ANY($1::int[])
               RETURNING id, event, payload)
SELECT event, payload FROM taken ORDER BY id"""
_ACTIVE = ", ".join(f"'{status}'" for status in ACTIVE_STATUSES)
# the user's active matches, latest first (a DM that names no match is about one of them)
_USERS_MATCHES = (
    f"SELECT guild_id, practice FROM matches WHERE status IN ({_ACTIVE})"
    " AND players::jsonb @> to_jsonb($1::bigint) ORDER BY id DESC LIMIT 50"
)
_MATCH = "SELECT guild_id, practice FROM matches WHERE id = $1"

Deliver = Callable[[str, dict[str, Any]], Awaitable[None]]
"""Handles one handed-over event: (Discord's event name, its raw payload)."""


class HandOff:
    """One process's end of the hand-off: it forwards (shard 0's process) and receives."""

    def __init__(self, url: str, shards: Shards, deliver: Deliver) -> None:
        self.url = url
        self.shards = shards
        self._deliver = deliver
        self._pool: Any = None
        self._listener: Any = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._collecting: asyncio.Task[None] | None = None
        self.forwarded = 0
        self.received = 0

    async def start(self) -> None:
        import asyncpg

        from bot.store.postgres import CONNECT_TIMEOUT_S

        self._pool = await asyncpg.create_pool(
            self.url, min_size=1, max_size=4, timeout=CONNECT_TIMEOUT_S
        )
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
        latest active match, or one of this process's); None when this process should."""
        if match_id is not None:
            rows = await self._pool.fetch(_MATCH, match_id)
        else:
            rows = await self._pool.fetch(_USERS_MATCHES, user_id)
        shards = [self._shard(int(guild_id), bool(practice)) for guild_id, practice in rows]
        if not shards or any(shard in self.shards.ids for shard in shards):
            return None
        return shards[0]

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
        self._spawn(self._take(int(row)))

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _take(self, row_id: int) -> None:
        try:
            row = await self._pool.fetchrow(_TAKE_ONE, row_id)
        except Exception:
            log.warning("a handed-over DM could not be taken; collected later", exc_info=True)
            return
        if row is not None:
            await self._handle(row[0], row[1])

    async def _handle(self, event: str, payload: str) -> None:
        self.received += 1
        try:
            await self._deliver(event, json.loads(payload))
        except Exception:
            log.exception("a handed-over %s failed", event)

    async def collect(self) -> None:
        """Take every row waiting for this process's shards (notifications missed)."""
        for event, payload in await self._pool.fetch(_TAKE_ALL, list(self.shards.ids)):
            self._spawn(self._handle(event, payload))

    async def _collect_forever(self) -> None:
        while True:
            try:
                await self.collect()
            except Exception as error:
                log.warning("handed-over DMs not collected (%s); trying again", error)
            await asyncio.sleep(COLLECT_S)
