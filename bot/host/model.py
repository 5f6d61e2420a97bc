"""What the host hands out (results, status views, errors) and what it keeps per active match."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bot.store import MatchRecord, WindowRecord, WindowTiming
from games.moves import window_moves
from games.protocol import JSON, Event, Game, Move, Request


class HostError(Exception):
    """An operation that cannot be done now; the message tells the user why."""


class ClaimTaken(HostError):
    """A new match's claim is gone: its table is no longer open, or the match it rematches has
    its rematch (``match_id``, else None)."""

    def __init__(self, text: str, match_id: int | None = None) -> None:
        super().__init__(text)
        self.match_id = match_id


class NotSaved(HostError):
    """The store could not write the change (locked, disk full): nothing changed; try again."""

    def __init__(self) -> None:
        super().__init__("That could not be saved just now (storage problem); try again shortly.")


@dataclass(frozen=True, slots=True)
class SubmitResult:
    accepted: bool
    text: str  # the engine's summary of the move, or the reason for the refusal
    match_id: int
    seat: int | None = None
    step: int | None = None
    occasion: str = ""  # what an accepted answer is for (the request's occasion)
    revisable: bool = False  # an accepted answer a later one may still replace


@dataclass(frozen=True, slots=True)
class WindowStatus:
    step: int
    seats: tuple[int, ...]  # the seats prompted; () when who is asked is not public
    answered: tuple[int, ...]
    deadline: float
    seconds_left: float
    paused: bool


@dataclass(frozen=True, slots=True)
class MatchStatusView:
    match: MatchRecord
    title: str
    public_view: JSON
    public_text: str  # the game's own rendering of the public view
    window: WindowStatus | None


@dataclass(frozen=True, slots=True)
class OpenPrompt:
    match_id: int
    step: int
    request: Request
    deadline: float
    answered: bool
    prompted: int | None = None  # the step of the prompt the seat holds, if older than ``step``

    def holds(self, step: int) -> bool:
        """Whether a prompt of ``step`` (its buttons) asks what this prompt asks."""
        return (self.step if self.prompted is None else self.prompted) <= step <= self.step


@dataclass
class HostStats:
    """Counters since this host started (simulate's summary, the benchmark)."""

    turns: int = 0
    timeouts: int = 0
    submissions: int = 0
    refused: int = 0
    reopened: int = 0
    late_ms: list[float] | None = None  # deadline -> default applied, when recording


@dataclass
class Window:
    """The open window of a match: who is asked, until when, and the moves so far."""

    step: int
    requests: dict[int, Request]
    deadline: float
    remaining: float | None = None  # while paused
    reminded: bool = False
    moves: dict[int, Move] = field(default_factory=dict)  # in arrival order (a revision stays)
    closing: bool = False  # a close rule fired: the close is queued, answers are refused
    # seat -> the step of the prompt it holds, where older than the window: its request went on
    # unchanged through the "each" resolutions of other seats (their buttons stay valid)
    prompted: dict[int, int] = field(default_factory=dict)

    def moves_in_order(self) -> dict[int, Move | None]:
        """What ``resolve`` gets: the seats that answered in arrival order, then the others
        (``games.moves.window_moves``: an ``"each"`` window resolves its answers alone)."""
        return window_moves(list(self.requests.values()), self.moves)

    def prompt_step(self, seat: int) -> int:
        """The step of the first prompt of the seat's current request."""
        return self.prompted.get(seat, self.step)

    def prompt_is_current(self, seat: int, step: int) -> bool:
        """Whether a prompt of ``step`` (its buttons) asks what the seat is asked now."""
        return self.prompt_step(seat) <= step <= self.step

    @property
    def each(self) -> bool:
        """Each seat goes at its own pace: an answer resolves alone (``Request.close``)."""
        return any(request.close == "each" for request in self.requests.values())

    @property
    def complete(self) -> bool:
        """A close rule fired, or every seat has a move and none may still revise it: close
        without waiting."""
        if self.closing:
            return True
        return len(self.moves) == len(self.requests) and not any(
            request.revisable or request.close == "deadline" for request in self.requests.values()
        )

    def missing(self) -> list[int]:
        """The prompted seats that have not answered (a silent seat is never prompted)."""
        return [
            seat
            for seat, request in self.requests.items()
            if seat not in self.moves and not request.silent
        ]

    def prompted_seats(self) -> list[int]:
        return [seat for seat, request in self.requests.items() if not request.silent]

    @property
    def anonymous(self) -> bool:
        """Who is asked is not public."""
        return any(request.anonymous or request.silent for request in self.requests.values())

    def record(self, match_id: int) -> WindowRecord:
        return WindowRecord(
            match_id,
            self.step,
            tuple(self.requests),
            self.deadline,
            self.remaining,
            self.reminded,
            prompted=dict(self.prompted),
        )

    def timing(self) -> WindowTiming:
        return WindowTiming(self.step, self.deadline, self.remaining, self.reminded)


@dataclass
class Live:
    """An active match in the host's cache, changed only after the store committed."""

    record: MatchRecord
    game: Game[Any]
    state: Any
    window: Window | None = None
    start_events: list[Event] | None = None  # new_match's events, kept until the start
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    card_owed: bool = False  # the turn changed in a step with no public post: the next shows it
    # seat -> the windows in a row it let pass without an answer (since the host started): a
    # seat away that long gets no reminders (``AWAY_AFTER``) until it answers again
    missed: dict[int, int] = field(default_factory=dict)
    # the public views of the last states asked for (a state is never changed in place): a
    # step's card compares the turn before and after, and the next step's "before" is this one's
    _public_views: list[tuple[Any, JSON]] = field(default_factory=list, repr=False)

    @property
    def id(self) -> int:
        return self.record.id

    def public_view(self, state: Any) -> JSON:
        """``game.view(state, None)``, rendered once per state."""
        for seen, view in self._public_views:
            if seen is state:
                return view
        view = self.game.view(state, None)
        self._public_views = [*self._public_views[-1:], (state, view)]
        return view

    def seat_of(self, user_id: int) -> int | None:
        return self.record.players.index(user_id) if user_id in self.record.players else None

    def seat_keys(self) -> list[str]:
        return [f"seat{seat}" for seat in range(len(self.record.players))]


@contextlib.contextmanager
def restoring(window: Window) -> Iterator[None]:
    """Undo changes to a window's timing when the commit that records them fails."""
    timing = window.deadline, window.remaining, window.reminded
    try:
        yield
    except BaseException:
        window.deadline, window.remaining, window.reminded = timing
        raise


def storable(text: str) -> str:
    """``text`` as the store can hold it: a lone surrogate (which Discord's JSON can carry but
    UTF-8 cannot) and a NUL (which PostgreSQL's text cannot) become U+FFFD, so the engine, the
    store (either backend) and an export all see the same text."""
    text = text.replace("\x00", "\ufffd")
    if text.isascii():
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
