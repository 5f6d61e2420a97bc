"""One process per SQLite database: the command that hosts matches on it (``run``, ``simulate
--db``) owns it for as long as it runs, and a second one is refused at once, naming the first.

Two hosts on one file would each start from their own copy of every match and answer every DM
twice. SQLite's own locks only order single transactions, so ownership is an exclusive
``flock`` on ``<database>.owner``, taken before the database is opened and held until the
command ends. The kernel drops it when the process dies, however it dies (``kill -9``
included), so a crash never leaves a stale lock; the file keeps who holds it, for the refusal.
Readers (``list``, ``audit``, ``export``, ``backup``) take no ownership: they never write
matches.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

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
        text = _describe(command).encode()
        try:
            os.pwrite(fd, text, 0)
            os.ftruncate(fd, len(text))
        except OSError as error:  # a full disk
            raise explain(database, error) from None
        yield
    finally:
        os.close(fd)  # releases the lock


def _describe(command: str) -> str:
    since = datetime.fromtimestamp(time.time(), UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"{command} (pid {os.getpid()} on {socket.gethostname()}, since {since})"


def _holder(fd: int) -> str:
    text = os.pread(fd, HOLDER_CHARS, 0).decode("utf-8", "replace").strip()
    printable = "".join(char for char in text if char.isprintable())
    return printable or "another process"
