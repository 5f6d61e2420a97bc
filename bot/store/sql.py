"""The store's SQL, written once for both backends.

A transaction (or a read) is a generator that yields each :class:`Query` and is sent its result:
``rows = yield from fetch("SELECT ...", a, b)``. It does no I/O itself, so the same code runs on
either backend: SQLite drives it to the end in one trip to its connection's thread (the whole
transaction between two waits of the event loop), PostgreSQL drives it on the event loop, one
awaited statement after another on one pooled connection (``bot.store.postgres``).

Queries are written with ``?`` placeholders in the SQL both databases understand; where they
differ, a :class:`Dialect` gives the fragment (a JSON list's members, the locks PostgreSQL takes
where SQLite's single writer needs none).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, TypeAlias, TypeVar

from games.protocol import JSON

T = TypeVar("T")
Row: TypeAlias = Sequence[Any]
QueryKind = Literal["execute", "changed", "fetch", "many"]


@dataclass(frozen=True, slots=True)
class Query:
    """One statement: ``changed`` is sent the number of rows it changed, ``fetch`` the rows;
    ``execute`` and ``many`` (one statement for each parameter row) get nothing back, so a
    backend may send them later, with the next statement whose answer is needed
    (``bot.store.postgres`` does: one round trip for several statements)."""

    sql: str
    params: Sequence[Any]
    kind: QueryKind


Work: TypeAlias = Generator[Query, Any, T]


def execute(sql: str, *params: Any) -> Work[None]:
    yield Query(sql, params, "execute")


def changed(sql: str, *params: Any) -> Work[int]:
    """The number of rows the statement changed."""
    count: int = yield Query(sql, params, "changed")
    return count


def fetch(sql: str, *params: Any) -> Work[list[Row]]:
    rows: list[Row] = yield Query(sql, params, "fetch")
    return rows


def fetchone(sql: str, *params: Any) -> Work[Row | None]:
    rows = yield from fetch(sql, *params)
    return rows[0] if rows else None


def fetchvalue(sql: str, *params: Any) -> Work[Any]:
    """The first column of the first row (None when there is none)."""
    row = yield from fetchone(sql, *params)
    return None if row is None else row[0]


def execute_many(sql: str, rows: Sequence[Sequence[Any]]) -> Work[None]:
    if rows:
        yield Query(sql, rows, "many")


def insert(sql: str, *params: Any) -> Work[int]:
    """An INSERT ending ``RETURNING id``: the new row's id."""
    new_id: int = yield from fetchvalue(sql, *params)
    return new_id


def drive(work: Work[T], run: Callable[[Query], Any]) -> T:
    """Run ``work`` to its end, ``run`` answering each query (SQLite: in its thread)."""
    try:
        query = next(work)
        while True:
            query = work.send(run(query))
    except StopIteration as done:
        result: T = done.value
        return result
    finally:
        work.close()


def chunks(ids: Sequence[T], size: int = 500) -> list[Sequence[T]]:
    """Bounds the number of SQL parameters of ``IN (...)`` lists."""
    return [ids[start : start + size] for start in range(0, len(ids), size)]


def marks(values: Sequence[Any]) -> str:
    """The placeholders of an ``IN (...)`` list."""
    return ", ".join("?" * len(values))


def dumps(value: JSON) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def loads(text: str | None) -> JSON:
    return None if text is None else json.loads(text)


@dataclass(frozen=True, slots=True)
class Dialect:
    """What differs between the two databases' SQL, as fragments."""

    name: Literal["sqlite", "postgresql"]
    # "the JSON list in this column holds ?": players, moderators
    list_has: Callable[[str], str]
    # "the JSON [[id, name], ...] in this column has ? as an id": a table's players
    pairs_have: Callable[[str], str]
    # "the JSON in this column is an object whose field is ?"
    field_is: Callable[[str, str], str]
    # the head (oldest pending message) of each (match, audience) queue:
    # id, next_try, audience, match_id
    outbox_heads: str
    # the matches ratings fold in
    rated_kind: str
    # after a SELECT whose rows the transaction relies on staying as read: the lock that keeps
    # another connection from changing them first (SQLite's one writer needs none)
    for_share: str
    for_update: str
    # the statement that orders the transactions numbering ends and folding ratings, or None
    serialize_ends: str | None
    # the names of the database's tables; of a table's columns in order (its name: ?)
    tables: str
    columns: str


SQLITE = Dialect(
    name="sqlite",
    list_has=lambda column: f"EXISTS (SELECT 1 FROM json_each({column}) WHERE value = ?)",
    pairs_have=lambda column: (
        f"EXISTS (SELECT 1 FROM json_each({column}) WHERE json_extract(value, '$[0]') = ?)"
    ),
    field_is=lambda column, field: (
        f"(json_type({column}) = 'object' AND json_extract({column}, '$.{field}') = ?)"
    ),
    # MIN(id) makes SQLite take next_try and audience from the head row of each queue. The
    # partial index keeps the work proportional to the pending rows: left to itself, SQLite
    # reads the whole outbox in (match_id) order for the GROUP BY (5 ms a pass at 1,000 matches)
    outbox_heads=(
        "SELECT MIN(id) AS id, next_try, audience, match_id FROM outbox INDEXED BY outbox_pending"
        " WHERE status = 'pending' GROUP BY match_id, audience"
    ),
    # the unary + keeps SQLite off the status index: the range of ended_seq after the last
    # one folded is the short one
    rated_kind="+status = 'finished' AND practice = 0",
    for_share="",
    for_update="",
    serialize_ends=None,
    tables="SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    columns="SELECT name FROM pragma_table_info(?) ORDER BY cid",
)

# the key of the transaction-level lock that orders the ends' numbers and the ratings' folds
ENDS_LOCK = 0x666C6F7261_01

POSTGRESQL = Dialect(
    name="postgresql",
    list_has=lambda column: f"{column}::jsonb @> to_jsonb(?::bigint)",
    pairs_have=lambda column: (
        f"EXISTS (SELECT 1 FROM jsonb_array_elements({column}::jsonb) AS pair (value)"
        " WHERE pair.value -> 0 = to_jsonb(?::bigint))"
    ),
    field_is=lambda column, field: (
        f"(jsonb_typeof({column}::jsonb) = 'object'"
        f" AND {column}::jsonb -> '{field}' = to_jsonb(?::bigint))"
    ),
    outbox_heads=(
        "SELECT DISTINCT ON (match_id, audience) id, next_try, audience, match_id FROM outbox"
        " WHERE status = 'pending' ORDER BY match_id, audience, id"
    ),
    rated_kind="status = 'finished' AND practice = 0",
    for_share=" FOR SHARE",
    for_update=" FOR NO KEY UPDATE",
    serialize_ends=f"SELECT pg_advisory_xact_lock({ENDS_LOCK})",
    tables=(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')"
    ),
    columns=(
        "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(?)"
        " AND attnum > 0 AND NOT attisdropped ORDER BY attnum"
    ),
)


PLACEHOLDER = re.compile(r"'[^']*'|\?")


@lru_cache(maxsize=2048)
def numbered(sql: str) -> str:
    """``sql`` with each ``?`` outside a string literal as PostgreSQL's ``$1``, ``$2``, ..."""
    count = 0

    def number(match: re.Match[str]) -> str:
        nonlocal count
        if match[0] != "?":
            return match[0]
        count += 1
        return f"${count}"

    return PLACEHOLDER.sub(number, sql)
