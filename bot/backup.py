"""``floral-host backup DEST``: a consistent copy of the database, safe while the bot runs.

Copying the file with ``cp`` misses the committed rows still in its ``-wal`` file and can catch a
page half-written; SQLite's backup API reads one consistent snapshot instead (see
:meth:`SqliteStore.backup`). The copy is written beside DEST and renamed into place only once it
is complete and checked, so DEST is never a half-made backup.

A PostgreSQL database is backed up with PostgreSQL's own tools (``pg_dump``, see
docs/running.md): this command refuses it, naming them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sqlite3
from pathlib import Path

from bot.database import command_database, is_postgres, open_store, shown
from bot.store.faults import UnusableDatabase, explain
from bot.store.sqlite import SqliteStore


def check_destination(dest: Path, replace: bool) -> None:
    """Refuse a destination that cannot take a new backup, in one line (UnusableDatabase)."""
    if dest.is_dir():
        raise UnusableDatabase(dest, "is a folder", "give the backup's file name, e.g. DIR/x.db")
    if not dest.parent.is_dir():
        raise UnusableDatabase(dest, "its folder does not exist", "create the folder first")
    if dest.exists() and not replace:
        raise UnusableDatabase(dest, "already exists", "choose a new name, or --force replaces it")


def refuse_postgres(source: str | Path) -> None:
    if is_postgres(source):
        raise UnusableDatabase(
            shown(source),
            "floral-host backup copies SQLite files; PostgreSQL has its own tools",
            "use pg_dump -Fc -f floral.dump URL (restore: pg_restore, see docs/running.md),"
            " or floral-host copy-db --from URL --to FILE.db",
        )


async def backup(source: str | Path, dest: Path, replace: bool = False) -> int:
    """Copy ``source`` to ``dest``; the number of matches copied."""
    refuse_postgres(source)
    check_destination(dest, replace)
    store = await open_store(source, readonly=True, any_older=True)
    assert isinstance(store, SqliteStore)
    partial = dest.with_name(f".{dest.name}.partial-{os.getpid()}")
    try:
        check = await store.backup(partial)
        if check != "ok":
            problem = f"damaged, its copy fails SQLite's check ({check[:80]})"
            raise UnusableDatabase(source, problem, "restore an earlier backup")
        matches = await store.match_count()
        os.replace(partial, dest)
    except (sqlite3.Error, OSError) as error:
        raise explain(dest, error) from None
    finally:
        await store.close()
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return matches


def main(args: argparse.Namespace) -> int:
    source, dest = command_database(args.db), Path(args.dest)
    matches = asyncio.run(backup(source, dest, args.force))
    size_kb = dest.stat().st_size // 1024
    print(f"backed up {source} to {dest} ({matches} matches, {size_kb} KB)")
    return 0
