"""One process per SQLite database: the command that hosts matches on it (``run``, ``simulate
--db``) owns it for as long as it runs, and a second one is refused at once, naming the first.

Two hosts on one file would each start from their own copy of every match and answer every DM
twice. SQLite's own locks only order single transactions, so ownership is an exclusive
``flock`` on ``<database>.owner``, taken before the database is opened and held until the
command ends. The kernel drops it when the process dies, however it dies (``kill -9``
included), so a crash never leaves a stale lock; the file keeps who holds it, for the refusal.
Readers (``list``, ``audit``, ``export``, ``backup``) take no ownership: they never write
matches.

A PostgreSQL database gets the same guarantee from a session-level advisory lock, held on a
connection of its own for as long as the command runs; the server drops it when that session
ends, however the process dies. Its holder is recorded in the ``floral_owner`` table, for the
refusal. Sharded processes (``--shards``) hold it shared, and lease their shards instead
(``bot.store.leases``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.store.common import OWNER_TABLE, POSTGRES_KIND, check_tables
from bot.store.faults import UnusableDatabase, explain

HOLDER_CHARS = 200  # the most of the lock file's text a refusal quotes


def owner_path(database: Path) -> Path:
    return database.with_name(database.name + ".owner")


@contextlib.contextmanager
def own(database: Path, command: str) -> Iterator[None]:
    """Hold ``database`` for ``command`` (``"floral-host run"``) until the block ends;
    UnusableDatabase naming the holder when another process holds it."""
    path = owner_path(database)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:  # a read-only folder or mount, a full disk: said as for the database
        raise explain(database, error) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise UnusableDatabase(
                database,
                f"in use by {_holder(fd)}",
                "one process per database: stop that one first, or use another database",
            ) from None
        text = describe(command).encode()
        try:
            os.pwrite(fd, text, 0)
            os.ftruncate(fd, len(text))
        except OSError as error:  # a full disk
            raise explain(database, error) from None
        yield
    finally:
        os.close(fd)  # releases the lock


@contextlib.asynccontextmanager
async def owning(target: str | Path, command: str) -> AsyncIterator[None]:
    """``own`` for either backend: ``target`` is an SQLite file or a PostgreSQL URL."""
    from bot.database import is_postgres

    if not is_postgres(target):
        with own(Path(target), command):
            yield
        return
    async with _own_postgres(str(target), command):
        yield


# the advisory lock's key: one per database (PostgreSQL keys advisory locks by database)
OWNER_LOCK, CLAIM_LOCK = 0x666C6F7261_00, 0x666C6F7261_03


@contextlib.asynccontextmanager
async def _own_postgres(url: str, command: str) -> AsyncIterator[None]:
    from bot.store.postgres import connect, explain, shown, table_names

    connection = await connect(url)
    try:
        try:
            # one claim at a time, so a refused one reads the holder its winner recorded
            async with connection.transaction():
                await connection.execute("SELECT pg_advisory_xact_lock($1)", CLAIM_LOCK)
                if not await connection.fetchval("SELECT pg_try_advisory_lock($1)", OWNER_LOCK):
                    raise UnusableDatabase(
                        shown(url),
                        f"in use by {await _recorded_holder(connection)}",
                        "one process per database: stop that one first, or use another database",
                    )
                # another program's database is refused before anything is written to it
                check_tables(shown(url), await table_names(connection), False, POSTGRES_KIND)
                await connection.execute(
                    f"CREATE TABLE IF NOT EXISTS {OWNER_TABLE}"
                    " (id INTEGER PRIMARY KEY, holder TEXT NOT NULL)"
                )
                await connection.execute(
                    f"INSERT INTO {OWNER_TABLE} VALUES (1, $1)"
                    " ON CONFLICT (id) DO UPDATE SET holder = excluded.holder",
                    describe(command),
                )
        except UnusableDatabase:
            raise
        except Exception as error:
            raise explain(url, error) from None
        yield
    finally:
        await connection.close()  # the session ends: the server drops its lock


async def _recorded_holder(connection: Any) -> str:
    if await connection.fetchval("SELECT to_regclass($1)", OWNER_TABLE) is None:
        return "another process"
    text = await connection.fetchval(f"SELECT holder FROM {OWNER_TABLE} WHERE id = 1")
    return _printable(str(text or "")[:HOLDER_CHARS]) or "another process"


def describe(command: str) -> str:
    since = datetime.fromtimestamp(time.time(), UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"{command} (pid {os.getpid()} on {socket.gethostname()}, since {since})"


def _holder(fd: int) -> str:
    text = os.pread(fd, HOLDER_CHARS, 0).decode("utf-8", "replace")
    return _printable(text) or "another process"


def _printable(text: str) -> str:
    return "".join(char for char in text.strip() if char.isprintable())
