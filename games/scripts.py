"""What every game's match script shares: the format version, how a seat's attempts and the end
of a window are written, and the step-by-step replay the host's tools read. Which attempt of a
list becomes the move is ``games.moves``'s rule, the host's too.

**Version 2** (``"<game>-script/2"``, what ``export`` writes): a seat's list holds the texts it
sent, exactly as sent, and ``null`` where the window closed. No text can forge the end of a
window: a player who types ``TIMEOUT`` has sent the text ``TIMEOUT``, a refused attempt. A step
``{"leave": "P2"}`` says that the seat named P2 left the match (or a moderator removed it) instead
of the open window resolving: that window's attempts are not applied, so the export leaves them
out, and the replay calls the engine's ``leave`` (``leave_step``); its ``ScriptStep.left`` names
the seat.

**Version 1** (``"<game>-script/1"``, still read): the string ``"TIMEOUT"`` marks where the window
closed, as the rules pages describe it. Version 1 cannot tell that marker from a player who typed
exactly ``TIMEOUT``, so in a version 1 script it always reads as the window closing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.moves import CLOSED, Attempt
from games.protocol import JSON, ConfigError, Event, Game, Move
from games.text import excerpt

__all__ = [
    "CLOSED",
    "Attempt",
    "Leave",
    "ScriptStep",
    "formats",
    "leave_step",
    "read_attempts",
    "read_leave",
    "script_version",
    "sent",
]

VERSIONS = (1, 2)
LEGACY_TIMEOUT = "TIMEOUT"  # the end of a window in a version 1 attempt list (CLOSED in v2)


@dataclass(frozen=True, slots=True)
class ScriptStep:
    """One window of a script, replayed: the moves it resolved with (None: the timeout
    default; empty when the window never opened), the engine's events, the state after it and
    the trace checkpoint."""

    moves: Mapping[int, Move | None]
    events: Sequence[Event]
    state: Any
    checkpoint: JSON
    left: int | None = None  # a leave step: the seat that left (no moves)


@dataclass(frozen=True, slots=True)
class Leave:
    """In the windows an export gets: ``seat`` left here instead of a window resolving."""

    seat: int


def formats(game: str) -> tuple[str, ...]:
    """Every script format of ``game`` that its reader accepts, the newest last."""
    return tuple(f"{game}-script/{version}" for version in VERSIONS)


def script_version(script: Mapping[str, JSON], game: str) -> int:
    """The version of ``script``'s format; ConfigError("format") if it is not one of ``game``'s."""
    fmt = script.get("format")
    for version, name in zip(VERSIONS, formats(game), strict=True):
        if fmt == name:
            return version
    raise ConfigError(
        "format", f"must be {' or '.join(map(repr, formats(game)))}, got {excerpt(fmt)}"
    )


def read_attempts(raw: JSON, field: str, version: int) -> list[Attempt]:
    """A seat's attempt list: texts, and None where the window closed."""
    if not isinstance(raw, list) or not all(a is None or isinstance(a, str) for a in raw):
        raise ConfigError(field, "must be a list of texts (and null where the window closed)")
    if version == 1:
        return [CLOSED if a == LEGACY_TIMEOUT else a for a in raw]
    return list(raw)


def sent(attempts: Sequence[Attempt]) -> list[str]:
    """The texts of an attempt list, without the window's end."""
    return [a for a in attempts if a is not None]


def read_leave(step: JSON, field: str, names: Sequence[str]) -> int | None:
    """The seat a ``{"leave": NAME}`` step names; None for a step of any other kind."""
    if not isinstance(step, Mapping) or "leave" not in step:
        return None
    name = step["leave"]
    if set(step) != {"leave"} or not isinstance(name, str) or name not in names:
        raise ConfigError(
            f"{field}.leave", f"must be the only key and name a player, got {excerpt(name)}"
        )
    return list(names).index(name)


def leave_step(game: Game[Any], state: Any, seat: int, field: str) -> tuple[Any, list[Event]]:
    """The engine's ``leave``; ConfigError where the seat cannot leave (already out)."""
    try:
        return game.leave(state, seat)
    except ValueError as error:
        raise ConfigError(f"{field}.leave", str(error)) from error
