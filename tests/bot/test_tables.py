"""Open tables (``bot/tables.py``): seats taken by Join in order, given up by Leave, the match
set up when the last seat is taken; refusals in one line; a table outlives a restart."""

from __future__ import annotations

import pytest

from bot.host import HostError
from bot.tables import Tables
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
