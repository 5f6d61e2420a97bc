"""Settings from the environment, with a ``.env`` file as fallback (the environment wins)."""

from __future__ import annotations

import logging
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.shards import DEFAULT_LEASE_S, Shards, parse_setting

DEFAULT_DB = Path("data/floral-host.db")
MAX_SECONDS = 86_400.0  # a day; more only overflows timers
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_DIGITS = re.compile(r"[0-9]{1,19}")


@dataclass(frozen=True, slots=True)
class Settings:
    # repr=False: the token must never reach a log line or a traceback
    discord_token: str | None = field(default=None, repr=False)
    db: str = str(DEFAULT_DB)  # FLORAL_DB: an SQLite file or a postgresql:// URL
    dev_guild_id: int | None = None
    moderator_role: str | None = None
    log_level: str = "INFO"
    discord_api_base: str | None = None
    discord_gateway_url: str | None = None
    grace_s: float = 15.0
    reminder_s: float = 15.0
    # The moderator log channel, a name looked up in each match's guild or an id; it gets the
    # full hidden state each turn. Unset: no log, and a player who cannot be reached by DM is
    # reported to the match's moderators by DM.
    log_channel: str | None = None
    max_turns: int | None = None  # the turn limit of new matches, when set (short test matches)
    guild_ready_timeout: float = 2.0  # seconds on_ready waits for guilds (tests lower it)
    opener_starts: bool = False  # the opener of a full table may start its match too
    threads: bool = False  # each match's posts after its first go to a thread of the channel
    shards: Shards | None = None  # FLORAL_SHARDS (0-3/8): this process's Discord shards
    lease_s: float = DEFAULT_LEASE_S  # a sharded process's leases last this long unrenewed

    @property
    def db_path(self) -> Path:
        """FLORAL_DB as a file (SQLite)."""
        return Path(self.db)

    @classmethod
    def load(
        cls, environ: Mapping[str, str] | None = None, env_file: Path | None = Path(".env")
    ) -> Settings:
        """Read every setting; a malformed value raises ValueError naming the variable."""
        values = read_env_file(env_file) if env_file is not None else {}
        values.update(os.environ if environ is None else environ)
        return cls(
            discord_token=_text(values, "DISCORD_TOKEN"),
            db=_text(values, "FLORAL_DB") or str(DEFAULT_DB),
            dev_guild_id=_int(values, "DEV_GUILD_ID"),
            moderator_role=_text(values, "MODERATOR_ROLE"),
            log_level=_log_level(values, "LOG_LEVEL"),
            discord_api_base=_text(values, "DISCORD_API_BASE"),
            discord_gateway_url=_text(values, "DISCORD_GATEWAY_URL"),
            grace_s=_seconds(values, "FLORAL_GRACE_SECONDS", 15.0),
            reminder_s=_seconds(values, "FLORAL_REMINDER_SECONDS", 15.0),
            log_channel=_text(values, "FLORAL_LOG_CHANNEL"),
            max_turns=_int(values, "FLORAL_MAX_TURNS", "a number of turns"),
            guild_ready_timeout=_seconds(values, "FLORAL_GUILD_READY_TIMEOUT", 2.0),
            opener_starts=_flag(values, "FLORAL_OPENER_STARTS"),
            threads=_flag(values, "FLORAL_THREADS"),
            shards=_shards(values, "FLORAL_SHARDS"),
            lease_s=_lease_seconds(values, "FLORAL_LEASE_SECONDS"),
        )


def read_env_file(path: Path) -> dict[str, str]:
    """``KEY=VALUE`` lines; blank lines and ``#`` comments ignored, matching quotes stripped."""
    if not path.is_file():
        return {}
    values: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        key = key.strip().removeprefix("export ").strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key] = value
    return values


def _text(values: Mapping[str, str], name: str) -> str | None:
    value = values.get(name, "").strip()
    return value or None


def _excerpt(value: str) -> str:
    """Bad input quoted short: a setting can be any length."""
    return repr(value if len(value) <= 20 else value[:20] + "…")


def _int(values: Mapping[str, str], name: str, what: str = "an integer id") -> int | None:
    """A positive whole number in ASCII digits, within SQLite's integers."""
    value = _text(values, name)
    if value is None:
        return None
    if _DIGITS.fullmatch(value) is None or not 0 < int(value) < 2**63:
        raise ValueError(
            f"{name}: expected {what} (a positive whole number), got {_excerpt(value)}"
        )
    return int(value)


def _flag(values: Mapping[str, str], name: str) -> bool:
    """``true``/``false`` (also 1/0, yes/no, on/off); unset is false."""
    value = (_text(values, name) or "false").casefold()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name}: expected true or false, got {_excerpt(value)}")


def _seconds(values: Mapping[str, str], name: str, default: float) -> float:
    """A positive, finite number of seconds up to a day (inf would crash the timers)."""
    value = _text(values, name)
    if value is None:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
        raise ValueError(
            f"{name}: expected a number of seconds above 0 and up to {MAX_SECONDS:.0f},"
            f" got {_excerpt(value)}"
        )
    return seconds


def _shards(values: Mapping[str, str], name: str) -> Shards | None:
    value = _text(values, name)
    return None if value is None else parse_setting(value)


def _lease_seconds(values: Mapping[str, str], name: str) -> float:
    """A lease from 1 s (renewed three times a second) to an hour (a dead process's matches
    wait that long)."""
    seconds = _seconds(values, name, DEFAULT_LEASE_S)
    if not 1.0 <= seconds <= 3600.0:
        raise ValueError(f"{name}: expected 1 to 3600 seconds, got {_excerpt(str(values[name]))}")
    return seconds


def _log_level(values: Mapping[str, str], name: str) -> str:
    """One of logging's level names (``DEBUG``, ``info``, ``WARN``...)."""
    value = (_text(values, name) or "INFO").upper()
    if value not in logging.getLevelNamesMapping():
        raise ValueError(f"{name}: expected one of {', '.join(LOG_LEVELS)}, got {_excerpt(value)}")
    return value
