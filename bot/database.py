"""Which database a command uses, and the one way to open it.

``--db`` when given, else ``FLORAL_DB`` (or its default): a ``postgresql://`` URL names a
PostgreSQL database, anything else an SQLite file. ``open_store`` opens either behind the same
interface (``bot.store.common.SqlStore``).
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

from bot.settings import DEFAULT_DB, read_env_file
from bot.store.common import SqlStore
from bot.store.faults import UnusableDatabase, explain


def is_postgres(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def command_database(db: str | None) -> str:
    """Only FLORAL_DB is read (the environment, then ``.env``), as ``Settings`` reads it: a bad
    value of another setting never stops a command that needs only the database."""
    if db:
        return db
    values = {**read_env_file(Path(".env")), **os.environ}
    return values.get("FLORAL_DB", "").strip() or str(DEFAULT_DB)


async def open_store(
    target: str | Path, *, readonly: bool = False, any_older: bool = False, journal: bool = True
) -> SqlStore:
    """The store of ``target`` (a PostgreSQL URL or an SQLite file), or UnusableDatabase
    saying in one line why it cannot be used. Writable: made or upgraded as needed, and proved
    writable; ``readonly``: nothing is made or written; ``any_older``: an older schema is read
    too. ``journal=False``: a writable SQLite store that leaves the answers' journal alone
    (``bot.store.journal``: a command that may run beside the host, which owns it)."""
    if is_postgres(target):
        from bot.store.postgres import PostgresStore  # asyncpg only where it is used

        return await PostgresStore.open(str(target), readonly=readonly, any_older=any_older)
    from bot.store.sqlite import SqliteStore

    return await SqliteStore.open(
        Path(target), readonly=readonly, any_older=any_older, journal=journal
    )


def shown(target: str | Path) -> str:
    """The database as a message names it (a URL without its password)."""
    if not is_postgres(target):
        return str(target)
    from bot.store.postgres import shown as without_password

    return without_password(str(target))


def storage_failure(target: str, error: Exception) -> UnusableDatabase | None:
    """What a storage error met after opening (corruption found mid-read, a full disk, the
    server gone) means, in one line; None for any other error."""
    if isinstance(error, sqlite3.Error):
        return explain(Path(target), error)
    if is_postgres(target) and "asyncpg" in sys.modules:
        from bot.store.postgres import explain as explain_postgres
        from bot.store.postgres import is_storage_error

        return explain_postgres(target, error) if is_storage_error(error) else None
    return None


async def require_database(target: str) -> None:
    """An operator's command changes an existing database only: it never creates one."""
    if not is_postgres(target):
        path = Path(target)
        if not path.is_file():
            raise UnusableDatabase(path, "no database here", "check --db or FLORAL_DB")
        return
    store = await open_store(target, readonly=True, any_older=True)  # refuses an empty one
    await store.close()
