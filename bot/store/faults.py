"""Why a database cannot be used, said in one line: the database, what is wrong, what to do.

This module explains SQLite's errors; ``bot.store.postgres`` explains PostgreSQL's.

The commands print a :class:`UnusableDatabase` as it is and exit non-zero; nothing else about it is
shown, so each message must stand alone.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path


class UnusableDatabase(Exception):
    """The database ``where`` (a file, or a PostgreSQL URL without its password) cannot be
    used; ``str()`` is the whole explanation."""

    def __init__(self, where: str | Path, problem: str, remedy: str) -> None:
        super().__init__(f"{where}: {problem}; {remedy}")
        self.where = str(where)


# SQLite's primary result codes (the low byte of an extended code)
_BUSY, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 8, 10, 11, 13, 14, 26
_READ_ONLY_ERRNOS = (errno.EROFS, errno.EACCES, errno.EPERM)


def explain(path: Path, error: sqlite3.Error | OSError) -> UnusableDatabase:
    """The :class:`UnusableDatabase` that says what ``error`` means for the database at ``path``."""
    if _disk_full(path, error):
        return UnusableDatabase(path, "the disk is full", "free some space, then start again")
    if isinstance(error, OSError):
        return _explain_os(path, error)
    code = (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF
    detail = str(error)
    if code in (_NOTADB, _CORRUPT):
        return UnusableDatabase(
            path,
            f"not a usable SQLite database ({detail})",
            "restore it from a backup (floral-host backup) or point --db/FLORAL_DB elsewhere",
        )
    if code == _BUSY:
        return UnusableDatabase(
            path,
            "the database is locked by another process",
            "stop the other program using it (another floral-host?) and start again",
        )
    if code == _READONLY:
        return UnusableDatabase(
            path,
            "the file or its folder is read-only",
            "make both writable by this user (check the mount, chattr, permissions)",
        )
    if code == _CANTOPEN:
        return UnusableDatabase(
            path,
            "cannot open or create the database or its -wal/-shm files",
            "check that the file and its folder exist and are writable by this user",
        )
    return UnusableDatabase(path, f"database error ({detail})", "check the disk and the file")


def _explain_os(path: Path, error: OSError) -> UnusableDatabase:
    if error.errno in _READ_ONLY_ERRNOS:
        return UnusableDatabase(
            path,
            f"cannot write here ({error.strerror})",
            "make the folder writable by this user, or point --db/FLORAL_DB elsewhere",
        )
    problem = f"cannot use the file ({error.strerror})"
    return UnusableDatabase(path, problem, "check the disk and the path")


def _disk_full(path: Path, error: sqlite3.Error | OSError) -> bool:
    """A full disk shows as SQLITE_FULL, ENOSPC, or an I/O error while growing the -shm file."""
    if isinstance(error, OSError):
        return error.errno == errno.ENOSPC
    code = (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF
    if code == _FULL:
        return True
    return code in (_IOERR, _CANTOPEN) and _free_bytes(path) == 0


def _free_bytes(path: Path) -> int | None:
    for folder in (path.parent, *path.parent.parents):
        try:
            return shutil.disk_usage(folder).free
        except OSError:
            continue
    return None
