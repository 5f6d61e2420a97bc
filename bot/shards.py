"""Shard ranges: which Discord shards a ``floral-host run`` process connects, and so which
matches it hosts.

Discord splits a bot's servers into ``count`` shards by ``(guild_id >> 22) % count``; DMs, and
so practice matches (played in DMs), belong to shard 0. A process started with ``--shards 0-3
--shard-count 8`` (``FLORAL_SHARDS=0-3/8``) connects shards 0 to 3 and hosts exactly the
matches of the servers on them, plus the practice matches when it holds shard 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_LEASE_S = 15.0  # a process's shard leases last this long unrenewed (bot.store.leases)
MAX_SHARDS = 1024  # far past any bot here: Discord asks for one shard per 2,500 servers
_RANGE = re.compile(r"([0-9]{1,4})(?:-([0-9]{1,4}))?")
_SETTING = re.compile(r"([0-9]{1,4}(?:-[0-9]{1,4})?)/([0-9]{1,4})")


def shard_of(guild_id: int, count: int) -> int:
    """Discord's shard of a server."""
    return (guild_id >> 22) % count


@dataclass(frozen=True, slots=True)
class Shards:
    """Some of the ``count`` shards (a range as started; a standby's may have gaps)."""

    ids: tuple[int, ...]
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.count <= MAX_SHARDS:
            raise ValueError(f"shard count: expected 1 to {MAX_SHARDS}, got {self.count}")
        if not self.ids or any(not 0 <= shard < self.count for shard in self.ids):
            raise ValueError(
                f"shards: {self.text} is not within 0-{self.count - 1} (shard count {self.count})"
            )

    @classmethod
    def span(cls, first: int, last: int, count: int) -> Shards:
        return cls(tuple(range(first, last + 1)), count)

    @classmethod
    def every(cls, count: int) -> Shards:
        return cls.span(0, count - 1, count)

    @property
    def text(self) -> str:
        """``0-3/8`` (``1/2`` for one shard, ``0,2-3/8`` with a gap), as FLORAL_SHARDS takes a
        range."""
        spans: list[list[int]] = []
        for shard in sorted(self.ids):
            if spans and spans[-1][1] == shard - 1:
                spans[-1][1] = shard
            else:
                spans.append([shard, shard])
        shown = ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)
        return f"{shown}/{self.count}"

    @property
    def has_dms(self) -> bool:
        """Shard 0: Discord sends every DM and DM interaction there."""
        return 0 in self.ids

    def overlaps(self, other: Shards) -> bool:
        return self.count != other.count or bool(set(self.ids) & set(other.ids))

    def holds_guild(self, guild_id: int) -> bool:
        return shard_of(guild_id, self.count) in self.ids

    def holds(self, guild_id: int, practice: bool) -> bool:
        """Whether a match of this server (a practice: in DMs, shard 0's) is this process's."""
        return self.has_dms if practice else self.holds_guild(guild_id)

    def sql(self, guild: str = "guild_id", practice: str = "practice") -> str:
        """The same test in SQL (PostgreSQL and SQLite alike), over a match row's columns."""
        listed = ", ".join(str(shard) for shard in sorted(self.ids))
        shard = f"(({guild} >> 22) % {self.count}) IN ({listed})"
        if self.has_dms:
            return f"({practice} <> 0 OR {shard})"
        return f"({practice} = 0 AND {shard})"


def parse_range(text: str, count: int) -> Shards:
    """``--shards``: ``3`` or ``0-3``, within ``count``; ValueError in one line otherwise."""
    found = _RANGE.fullmatch(text.strip())
    if found is None:
        raise ValueError(f"shards: expected a shard or a range such as 0-3, got {text[:20]!r}")
    first = int(found[1])
    last = int(found[2]) if found[2] is not None else first
    if last < first:
        raise ValueError(f"shards: the range {text.strip()} ends before it starts")
    return Shards.span(first, last, count)


def parse_setting(text: str) -> Shards:
    """``FLORAL_SHARDS``: ``0-3/8`` (shards 0 to 3 of 8) or ``1/2``."""
    found = _SETTING.fullmatch(text.strip())
    if found is None:
        raise ValueError(
            f"FLORAL_SHARDS: expected a range and the shard count such as 0-3/8,"
            f" got {text.strip()[:20]!r}"
        )
    try:
        return parse_range(found[1], int(found[2]))
    except ValueError as error:
        raise ValueError(f"FLORAL_SHARDS: {error}") from None
