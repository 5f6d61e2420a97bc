"""The outbox archive's format: settled messages, compressed together.

A match's messages repeat themselves (the same prompt layout, choices and names turn after
turn), so zlib of their JSON list takes a tenth of their size or less. A chunk is archived in
the store's thread, inside the transaction that settles its last message, so the event loop
never waits for it; chunks are small (``ARCHIVE_EVERY`` messages) to keep that transaction short.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from typing import Any

# settled messages of a running match archived together; a match that is over archives the
# rest once none is pending
ARCHIVE_EVERY = 128
LEVEL = 6  # zlib's default: a chunk of 128 messages in a few ms, within 10% of level 9

# the columns of one archived message, in order
COLUMNS = "id, audience, text, payload, status, tries, next_try, error, created_at, sent_at"


def pack(rows: Sequence[Sequence[Any]]) -> bytes:
    """The chunk of outbox rows (``COLUMNS``, the payload as stored JSON text, which goes in
    as it is: parsing it again would double the time the store's thread spends here)."""
    messages = []
    for id_, audience, text, payload, *rest in rows:
        head, tail = json.dumps([id_, audience, text]), json.dumps(rest)
        messages.append(f"{head[:-1]},{payload},{tail[1:]}")
    # ASCII (escapes, as the outbox stores JSON): any text encodes, a lone surrogate included
    return zlib.compress(f"[{','.join(messages)}]".encode("ascii"), LEVEL)


def unpack(blob: bytes) -> list[list[Any]]:
    """The rows of a chunk (``COLUMNS``, the payload as JSON values)."""
    rows: list[list[Any]] = json.loads(zlib.decompress(blob))
    return rows
