"""Argument types of the command line: each refuses what makes no sense (negative, zero, inf,
nan, huge, not a number) with one line naming what it expects; and the parser that prints
that one line, and lists the games and their AI levels (from the registry) in the help of the
commands that take them."""

from __future__ import annotations

import argparse
import math
import re
import sys
from datetime import UTC, datetime
from typing import Any, NoReturn

from bot.ids import parse_match_id

MAX_WINDOW_S = 86_400.0  # a day; longer windows only overflow timers
MAX_MATCHES = 10_000
MAX_PLAYERS = 99  # each game says how many it seats; this only keeps the number sane
MAX_SEED = 2**63 - 1  # stored in a SQLite integer
_DIGITS = re.compile(r"[0-9]{1,19}")  # no more digits than MAX_SEED has


def excerpt(text: str, limit: int = 20) -> str:
    """A short quotation of bad input."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def seconds(text: str) -> float:
    """A window length: a positive, finite number of seconds, at most a day."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_WINDOW_S):
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds above 0 and up to {MAX_WINDOW_S:.0f},"
            f" got {excerpt(text)}"
        )
    return value


def _whole(text: str, low: int, high: int, what: str) -> int:
    text = text.strip()
    if _DIGITS.fullmatch(text) is None or not low <= int(text) <= high:
        raise argparse.ArgumentTypeError(
            f"expected {what} from {low} to {high}, got {excerpt(text)}"
        )
    return int(text)


def match_count(text: str) -> int:
    """How many new matches; 0 only resumes the unfinished ones."""
    return _whole(text, 0, MAX_MATCHES, "a number of matches")


def player_count(text: str) -> int:
    """Seats of a new match (the game checks its own range)."""
    return _whole(text, 1, MAX_PLAYERS, "a number of players")


def seed(text: str) -> int:
    return _whole(text, 0, MAX_SEED, "a whole number")


def discord_id(text: str, what: str = "a user id") -> int:
    """A Discord id (a user's, a server's): its digits."""
    text = text.strip()
    if _DIGITS.fullmatch(text) is None or not 0 < int(text) <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected {what} (digits), got {excerpt(text)}")
    return int(text)


def moment(text: str) -> float:
    """A day (2025-01-31, its midnight) or a moment (2025-01-31T18:00), UTC unless it names its
    offset: epoch seconds."""
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a date like 2025-01-31 (or 2025-01-31T18:00), got {excerpt(text)}"
        ) from None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def match_id(text: str) -> int:
    try:
        return parse_match_id(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def ai_levels_text() -> str:
    """Every registered game (GAME) with its AI levels, the default marked (loads the games:
    only for --help)."""
    from games import registry

    lines = ["games (GAME) and their AI levels (--level):"]
    for name in registry.names():
        info = registry.get(name)
        levels = [
            f"{level} (default)" if level == info.default_agent else level for level in info.agents
        ]
        lines.append(f"  {name}: {', '.join(levels)}")
    return "\n".join(lines)


class CommandParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line (``floral-host simulate: argument
    --window: ...``), and whose help can end with the games and their AI levels."""

    def __init__(self, *args: Any, ai_levels: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self.ai_levels = ai_levels

    def format_help(self) -> str:
        if self.ai_levels:
            self.epilog = "\n\n".join(filter(None, [ai_levels_text(), self.epilog]))
            self.ai_levels = False
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(2)


def shard_count(text: str) -> int:
    """``--shard-count``: 1 to ``bot.shards.MAX_SHARDS``."""
    from bot.shards import MAX_SHARDS

    if not text.strip().isdigit() or not 1 <= int(text) <= MAX_SHARDS:
        raise argparse.ArgumentTypeError(f"expected a number of shards from 1 to {MAX_SHARDS}")
    return int(text)
