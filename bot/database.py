"""Which database file a command uses: ``--db`` when given, else ``FLORAL_DB`` (or its default)."""

from __future__ import annotations

from pathlib import Path

from bot.settings import Settings


def command_db_path(db: str | None) -> Path:
    return Path(db) if db else Settings.load().db_path
