"""The answers' journal (SQLite): an answer is acknowledged once its line in a small file of its
own is synced, instead of once the database's transaction is committed and its WAL synced.

Why: at 1,200 live matches the database's one connection is busy over half the time (each
answer waited for the call under way) and a sync of its WAL waits behind the checkpoints' writes
(p99 8 to 350 ms on a 2-core machine), while syncing a file of a few short lines takes 0.2 ms
(p99 2 ms). So ``SqliteStore.add_attempt`` writes the answer's line here, queues its
transaction for the connection as before (answers first) and waits for this file's sync only.

Until its transaction is committed and the WAL synced after it, the line is the only durable
copy of the answer. Lines go to one of two files beside the database (``<db>-answers-0``,
``-1``); ``rotate`` turns to the other, and empties a file once every line in it is in the
database. When the database opens, ``replay`` reads the lines of both (a crash may have left
some the database lacks) and the store adds the missing ones (``tx.add_journaled``) before the
host resumes a match.

A line is one JSON array: a number counting the lines written since the store opened, then the
attempt's fields in order; its length is bounded by the answer's text, which the host bounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
from pathlib import Path

from bot.store import Attempt
from bot.store.common import GroupSync

log = logging.getLogger(__name__)


def journal_paths(database: Path) -> tuple[Path, Path]:
    return Path(f"{database}-answers-0"), Path(f"{database}-answers-1")


class AnswerJournal:
    """Two append-only files; every method but ``synced`` runs on the event loop, without
    waiting: a line is a write of a few hundred bytes into the page cache."""

    def __init__(self, database: Path) -> None:
        self.paths = journal_paths(database)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC
        self._fds = [os.open(path, flags, 0o600) for path in self.paths]
        self._current = 0
        self._sizes = [os.fstat(fd).st_size for fd in self._fds]
        self._last = [0, 0]  # the number of the last line written to each file (0: none)
        self._count = 0
        self._unsaved: set[int] = set()  # the lines whose transaction has not committed yet
        self._dirty: set[int] = set()  # the files written since their last sync
        self.synced = GroupSync(self._sync)

    def write(self, attempt: Attempt) -> int:
        """Append the attempt's line to the current file (``synced`` makes it durable); its
        number. OSError if it cannot be written: the file is then as it was."""
        number = self._count + 1
        fields = [number, *(getattr(attempt, field.name) for field in dataclasses.fields(attempt))]
        line = (json.dumps(fields) + "\n").encode("ascii")  # ASCII: escapes, one line
        index, fd = self._current, self._fds[self._current]
        try:
            if os.write(fd, line) != len(line):
                raise OSError("a short write (is the disk full?)")
        except OSError:
            # a torn line would run into the next one and hide it at replay: cut it off
            with contextlib.suppress(OSError):
                os.ftruncate(fd, self._sizes[index])
            raise
        self._count = number
        self._sizes[index] += len(line)
        self._last[index] = number
        self._unsaved.add(number)
        self._dirty.add(index)
        return number

    def saved(self, number: int) -> None:
        """The line's transaction has committed."""
        self._unsaved.discard(number)

    def rotated_out(self) -> int | None:
        """The other file, if it holds lines and each of their transactions has committed: a
        sync of the WAL made now covers them, and ``empty`` may then follow."""
        other = 1 - self._current
        last = self._last[other]
        if last and all(number > last for number in self._unsaved):
            return other
        return None

    def empty(self, index: int) -> None:
        os.ftruncate(self._fds[index], 0)  # not synced: a line replayed again adds nothing
        self._sizes[index], self._last[index] = 0, 0
        self._dirty.discard(index)

    def turn(self) -> None:
        """New lines go to the other file, if it is empty (each file then holds a second or
        two of answers, however long the host runs)."""
        other = 1 - self._current
        if not self._last[other] and self._last[self._current]:
            self._current = other

    @property
    def unsaved(self) -> int:
        return len(self._unsaved)

    async def _sync(self) -> None:
        dirty, self._dirty = self._dirty, set()
        fds = [self._fds[index] for index in sorted(dirty)]
        await asyncio.to_thread(_fdatasync_all, fds)

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []


def _fdatasync_all(fds: list[int]) -> None:
    for fd in fds:
        os.fdatasync(fd)


def replay(database: Path) -> list[Attempt]:
    """The attempts of both files' lines, in the order they were written. A line cut short (the
    process died while writing it, before it was synced: never acknowledged) is left out."""
    numbered: list[tuple[int, Attempt]] = []
    for path in journal_paths(database):
        if not path.exists():
            continue
        for index, text in enumerate(path.read_bytes().splitlines(), 1):
            try:
                numbered.append(_read_line(text))
            except (ValueError, TypeError) as error:
                log.warning("%s line %d is not an answer, left out: %s", path, index, error)
    numbered.sort(key=lambda line: line[0])
    return [attempt for _, attempt in numbered]


def _read_line(text: bytes) -> tuple[int, Attempt]:
    fields = json.loads(text)
    if not isinstance(fields, list) or len(fields) != 10:
        raise ValueError("not an answer's ten fields")
    number, match_id, step, seat, user_id, raw, verdict, reason, move, at = fields
    if verdict not in ("accepted", "refused", "duplicate"):
        raise ValueError(f"no such verdict: {verdict!r}")
    attempt = Attempt(
        int(match_id),
        int(step),
        int(seat),
        int(user_id),
        str(raw),
        verdict,
        str(reason),
        move,
        float(at),
    )
    return int(number), attempt
