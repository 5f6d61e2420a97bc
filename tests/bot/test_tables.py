"""Open tables (``bot/tables.py``): seats taken by Join in order, given up by Leave, the match
set up when the last seat is taken; refusals in one line; a table outlives a restart."""

from __future__ import annotations

from typing import Any

import pytest

from bot.host import HostError
from bot.store import NewMatch, TableRecord, WriteFailed
from bot.tables import EXPIRES_S, TableExpired, Tables
from tests.bot.conftest import CHANNEL, GUILD, HostEnv

ALICE, BOB, CAROL, OPENER = 11, 12, 13, 99


async def test_two_joins_fill_a_table_and_set_its_match_up(env: HostEnv) -> None:
    tables = Tables(env.host)
    table = await tables.open(GUILD, CHANNEL, "warlocks-brew", OPENER, None)
    assert (table.seats, table.status, table.players) == (2, "open", ())
    table, record = await tables.join(table.id, ALICE, "Alice")
    assert record is None and table.players == ((ALICE, "Alice"),)
    table, record = await tables.join(table.id, BOB, "Bob")
    assert record is not None and table.status == "full" and table.match_id == record.id
    assert (record.players, record.names) == ((ALICE, BOB), ("Alice", "Bob"))
    assert record.moderators == (OPENER,)
    assert (record.game, record.status, record.channel_id) == ("warlocks-brew", "setup", CHANNEL)
    with pytest.raises(HostError, match=f"Table {table.id} is full: its match is m{record.id}"):
        await tables.join(table.id, CAROL, "Carol")


async def test_leave_gives_a_seat_up_and_refusals_change_nothing(env: HostEnv) -> None:
    tables = Tables(env.host)
    table = await tables.open(GUILD, CHANNEL, "warlocks-brew", OPENER, 3)
    await tables.join(table.id, ALICE, "Alice")
    with pytest.raises(HostError, match="already have a seat"):
        await tables.join(table.id, ALICE, "Alice")
    with pytest.raises(HostError, match="no seat at this table"):
        await tables.leave(table.id, BOB)
    table = await tables.leave(table.id, ALICE)
    assert table.players == () and table.status == "open"
    assert (await tables.get(table.id)).players == ()


@pytest.mark.parametrize(
    ("game", "seats", "message"),
    [
        ("chess", None, "unknown game 'chess'"),
        ("floral-extract", 3, "Floral Extract is played by 2 players, not 3"),
        ("warlocks-brew", 7, "Warlock's Brew is played by 2 to 6 players, not 7"),
    ],
)
async def test_a_bad_table_is_refused(
    env: HostEnv, game: str, seats: int | None, message: str
) -> None:
    with pytest.raises(HostError, match=message):
        await Tables(env.host).open(GUILD, CHANNEL, game, OPENER, seats)
    with pytest.raises(HostError, match="There is no table 1"):
        await Tables(env.host).get(1)


async def test_a_table_outlives_a_restart(env: HostEnv) -> None:
    table = await Tables(env.host).open(GUILD, CHANNEL, "warlocks-brew", OPENER, None)
    await Tables(env.host).join(table.id, ALICE, "Alice")
    host = await env.reopen()
    table, record = await Tables(host).join(table.id, BOB, "Bob")
    assert record is not None and record.players == (ALICE, BOB)


async def test_the_last_join_and_its_match_are_one_write_a_failed_one_sets_nothing_up(
    env: HostEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write that stores the table full fails once (a locked database): the press is
    refused and nothing is set up, so the next press sets up the one match."""
    store = env.host.store
    failed: list[str] = []
    update_table, create_match = store.update_table, store.create_match

    async def failing_update(table: TableRecord) -> None:
        if table.status == "full" and not failed:
            failed.append("update_table")
            raise WriteFailed("database is locked")
        await update_table(table)

    async def failing_create(new: NewMatch, *args: Any) -> int:
        if getattr(new, "table", None) is not None and not failed:
            failed.append("create_match")
            raise WriteFailed("database is locked")
        return await create_match(new, *args)

    monkeypatch.setattr(store, "update_table", failing_update)
    monkeypatch.setattr(store, "create_match", failing_create)
    tables = Tables(env.host)
    table = await tables.open(GUILD, CHANNEL, "warlocks-brew", OPENER, None)
    await tables.join(table.id, ALICE, "Alice")
    with pytest.raises((HostError, WriteFailed)):
        await tables.join(table.id, BOB, "Bob")
    assert failed
    table, record = await tables.join(table.id, BOB, "Bob")  # Bob presses again
    assert record is not None and table.status == "full"
    assert len(await env.host.list_matches()) == 1
    assert (await tables.get(table.id)).match_id == record.id


async def test_a_table_not_full_after_a_day_expires_and_refuses_every_press(
    env: HostEnv,
) -> None:
    now = [1_000_000.0]
    tables = Tables(env.host, clock=lambda: now[0])
    old = await tables.open(GUILD, CHANNEL, "warlocks-brew", OPENER, None)
    await tables.join(old.id, ALICE, "Alice")
    now[0] += EXPIRES_S - 1
    young = await tables.open(GUILD, CHANNEL, "warlocks-brew", OPENER, None)
    assert await tables.expire_due() == []
    now[0] += 1
    expired = await tables.expire_due()
    assert [(t.id, t.status) for t in expired] == [(old.id, "closed")]
    assert [t.id for t in await env.host.store.open_tables()] == [young.id]
    for press in (tables.join(old.id, BOB, "Bob"), tables.leave(old.id, ALICE)):
        with pytest.raises(TableExpired, match=f"Table {old.id} has expired: .* 24 hours"):
            await press
    now[0] += EXPIRES_S  # a press finds a table the sweep has not closed yet expired too
    with pytest.raises(TableExpired):
        await tables.join(young.id, BOB, "Bob")
    assert await env.host.list_matches() == []
