"""Which database file a command uses: ``--db`` when given, else ``FLORAL_DB`` (or its default)."""

from __future__ import annotations

import os
from pathlib import Path

from bot.settings import DEFAULT_DB, read_env_file


def command_db_path(db: str | None) -> Path:
    """Only FLORAL_DB is read (the environment, then ``.env``), as ``Settings`` reads it: a bad
    value of another setting never stops a command that needs only the database."""
    if db:
        return Path(db)
    values = {**read_env_file(Path(".env")), **os.environ}
    return Path(values.get("FLORAL_DB", "").strip() or DEFAULT_DB)
