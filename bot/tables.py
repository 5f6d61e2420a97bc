"""Open tables: anyone opens a table for a game in a channel, players take its seats by pressing
Join (and give them up with Leave), and the table sets its match up once its seats are full; a
moderator then starts it. Tables are stored, so a table survives a restart with its buttons.

The last Join stores the match and the full table in one transaction (``NewMatch.table``): a
failed write leaves the table open as it was, never a match whose table still takes players. A
table whose seats are not all taken ``EXPIRES_S`` after it opened expires (status ``closed``):
Join and Leave refuse, and its post says so."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable

from bot.host import Host, HostError
from bot.store import MatchRecord, TableRecord
from games import registry

EXPIRES_S = 24 * 3600.0  # an open table's life (docs/running.md, "Open tables")


def expired_text(table: TableRecord) -> str:
    return (
        f"Table {table.id} has expired: its seats were not all taken within"
        f" {EXPIRES_S / 3600:g} hours. Open a new one with `/table open`."
    )


class Tables:
    def __init__(
        self, host: Host, opener_starts: bool = False, clock: Callable[[], float] = time.time
    ) -> None:
        """``opener_starts``: a full table's opener may start its match (its hellos say so)."""
        self.host = host
        self.opener_starts = opener_starts
        self.clock = clock
        self._lock = asyncio.Lock()  # a seat is taken by one press at a time

    async def open(
        self, guild_id: int, channel_id: int, game: str, opener: int, seats: int | None
    ) -> TableRecord:
        """A new table of ``game`` with ``seats`` seats (default: the fewest the game takes)."""
        try:
            info = registry.get(game)
        except KeyError as error:
            raise HostError(f"{error.args[0]}.") from None
        low, high = info.game.min_seats, info.game.max_seats
        count = low if seats is None else seats
        if not low <= count <= high:
            span = str(low) if low == high else f"{low} to {high}"
            raise HostError(f"{info.title} is played by {span} players, not {count}.")
        return await self.host.store.create_table(
            guild_id, channel_id, info.name, opener, count, self.clock()
        )

    async def get(self, table_id: int) -> TableRecord:
        table = await self.host.store.get_table(table_id)
        if table is None:
            raise HostError(f"There is no table {table_id}.")
        return table

    async def join(
        self, table_id: int, user_id: int, name: str
    ) -> tuple[TableRecord, MatchRecord | None]:
        """Seat ``user_id``; the match the table sets up when that fills it, else None."""
        async with self._lock:
            table = await self._open_table(table_id)
            if any(user == user_id for user, _ in table.players):
                raise HostError("You already have a seat at this table.")
            table = dataclasses.replace(table, players=(*table.players, (user_id, name)))
            if len(table.players) < table.seats:
                await self.host.store.update_table(table)
                return table, None
            record = await self.host.create_match(
                table.game,
                guild_id=table.guild_id,
                channel_id=table.channel_id,
                players=[user for user, _ in table.players],
                names=[name for _, name in table.players],
                moderators=[table.opener],
                starts="opener" if self.opener_starts else "moderator",
                table=table.id,  # the match and the full table: one transaction
            )
            return dataclasses.replace(table, status="full", match_id=record.id), record

    async def leave(self, table_id: int, user_id: int) -> TableRecord:
        async with self._lock:
            table = await self._open_table(table_id)
            players = tuple(p for p in table.players if p[0] != user_id)
            if players == table.players:
                raise HostError("You have no seat at this table.")
            table = dataclasses.replace(table, players=players)
            await self.host.store.update_table(table)
            return table

    async def expire_due(self) -> list[TableRecord]:
        """Close every open table older than ``EXPIRES_S``; the tables closed now."""
        async with self._lock:
            due = [table for table in await self.host.store.open_tables() if self._expired(table)]
            closed = [dataclasses.replace(table, status="closed") for table in due]
            for table in closed:
                await self.host.store.update_table(table)
            return closed

    def _expired(self, table: TableRecord) -> bool:
        return table.status == "open" and self.clock() - table.created_at >= EXPIRES_S

    async def _open_table(self, table_id: int) -> TableRecord:
        table = await self.get(table_id)
        if self._expired(table):
            table = dataclasses.replace(table, status="closed")
            await self.host.store.update_table(table)
        if table.status == "closed":
            raise TableExpired(table)
        if table.status != "open":
            raise HostError(f"Table {table_id} is full: its match is m{table.match_id}.")
        return table


class TableExpired(HostError):
    """A press on a table that has expired (its post should say so)."""

    def __init__(self, table: TableRecord) -> None:
        super().__init__(expired_text(table))
        self.table = table
