"""What the reading commands print (``list``, ``ratings``, ``audit``): a table for a person at a
terminal, JSON lines for a program (``--json``, or whenever the output is not a terminal), so
a pipe into ``jq`` or a script never has to parse columns."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from games.protocol import JSON

Column = tuple[str, str]
"""A row's key and the heading its column shows."""


def wants_json(asked: bool, out: TextIO) -> bool:
    """JSON when asked for, or when nobody reads the output at a terminal."""
    return asked or not out.isatty()


def emit(
    rows: Sequence[Mapping[str, JSON]],
    columns: Sequence[Column],
    *,
    as_json: bool,
    title: str,
    empty: str,
    out: TextIO | None = None,
) -> None:
    """``rows`` as one JSON object a line, or as a table of ``columns`` under ``title``;
    ``empty`` (to stderr when printing JSON, so stdout stays pure) when there is no row."""
    out = out or sys.stdout
    if not rows:
        print(empty, file=sys.stderr if as_json else out)
        return
    if as_json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False), file=out)
        return
    # rich only for a person's table: a command piped to a program, or a test, never loads it
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left", header_style="bold")
    for _, heading in columns:
        table.add_column(heading)
    for row in rows:
        table.add_row(*(_cell(row.get(key)) for key, _ in columns))
    Console(file=out, highlight=False).print(table)


def _cell(value: JSON) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return "" if value is None else str(value)
