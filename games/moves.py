"""Which attempt becomes a seat's move: the one rule that the host (live), the audit (from the
stored attempts) and every game's script runner (from an attempt list) follow. Pure: no clock,
no I/O; the engine's ``submit`` is passed in.

The rule, for one seat in one window, attempts taken in arrival order:

* a seat that is not asked in the window has every attempt refused, unseen by the engine;
* after the window's end (``CLOSED`` in an attempt list) every attempt is refused as late;
* once a seat has an accepted move, a further attempt is a duplicate (refused, unseen by the
  engine) unless the request is revisable, in which case it is judged like the first;
* otherwise the engine judges it: accepted or refused;
* the move that stands is the last accepted one; none means the timeout default.

``resolve`` gets the moves in arrival order: the seats that answered, in the order their first
accepted answers arrived, then the seats that did not (``None``), except in an ``"each"``
window (``window_moves``). An attempt list keeps that order by listing the seats in it
(``play_window``). Whether an accepted answer closes its window early is ``closes_early``'s
rule (``Request.close``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from games.protocol import Accepted, Game, Move, Request, Verdict

Ruling = Literal["accepted", "refused", "duplicate", "late", "not_asked"]
Submit = Callable[[str], Verdict]
"""The engine's ``submit`` for one seat in the window's state."""

Attempt = str | None
"""One entry of an attempt list: a text as sent, or CLOSED where the window closed."""
CLOSED = None

ALREADY_ANSWERED = "You have already answered this prompt; your first answer stands."
WINDOW_CLOSED = "That window has just closed."
NOT_ASKED = "Nothing is asked of this seat in this window."


@dataclass(frozen=True, slots=True)
class Judged:
    """One attempt, judged: its ruling, the engine's summary or the refusal's reason, and the
    move when accepted."""

    raw: str
    ruling: Ruling
    text: str
    move: Move | None = None

    @property
    def accepted(self) -> bool:
        return self.ruling == "accepted"


def judge(raw: str, submit: Submit, *, answered: bool, revisable: bool) -> Judged:
    """One attempt of an asked seat in an open window; ``answered``: the seat already has an
    accepted move in this window."""
    if answered and not revisable:
        return Judged(raw, "duplicate", ALREADY_ANSWERED)
    verdict = submit(raw)
    if isinstance(verdict, Accepted):
        return Judged(raw, "accepted", verdict.summary, verdict.move)
    return Judged(raw, "refused", verdict.reason)


@dataclass(frozen=True, slots=True)
class SeatPlay:
    """A seat's attempt list, judged in order, and the move that stands (None: the timeout
    default, or the seat was not asked)."""

    judged: tuple[Judged, ...]
    answered: bool
    move: Move | None

    @property
    def rejected(self) -> list[str]:
        """The texts that did not become a move, in order."""
        return [judged.raw for judged in self.judged if not judged.accepted]


def play_seat(attempts: Sequence[Attempt], submit: Submit, request: Request | None) -> SeatPlay:
    """Judge a seat's attempts in arrival order; ``request`` is what the seat is asked (None:
    nothing)."""
    judged: list[Judged] = []
    answered, closed, move = False, False, None
    for raw in attempts:
        if raw is CLOSED:
            closed = True
            continue
        if request is None:
            judged.append(Judged(raw, "not_asked", NOT_ASKED))
            continue
        if closed:
            judged.append(Judged(raw, "late", WINDOW_CLOSED))
            continue
        this = judge(raw, submit, answered=answered, revisable=request.revisable)
        if this.accepted:
            answered, move = True, this.move
        judged.append(this)
    return SeatPlay(tuple(judged), answered, move)


@dataclass(frozen=True, slots=True)
class WindowPlay:
    """Every seat's attempts in one window, judged; ``moves`` has each asked seat's move that
    stands (None: the timeout default), what ``resolve`` gets."""

    seats: Mapping[int, SeatPlay]
    moves: dict[int, Move | None]

    def rejected(self, seat: int) -> list[str]:
        play = self.seats.get(seat)
        return [] if play is None else play.rejected


def play_window(
    requests: Sequence[Request],
    attempts: Mapping[int, Sequence[Attempt]],
    submit: Callable[[int, str], Verdict],
) -> WindowPlay:
    """Judge every seat's attempts against the window that ``requests`` open; ``submit`` is the
    engine's for the window's state. ``attempts`` lists the seats in the order their first
    accepted answers arrived (the others after them), so ``moves`` keeps arrival order."""
    asked = {request.seat: request for request in requests if not request.silent}
    seats = {
        seat: play_seat(raws, _for_seat(submit, seat), asked.get(seat))
        for seat, raws in attempts.items()
    }
    answered = [seat for seat, play in seats.items() if seat in asked and play.answered]
    moves = window_moves(requests, {seat: seats[seat].move for seat in answered})
    return WindowPlay(seats, moves)


def window_moves(requests: Sequence[Request], answered: Mapping[int, Move]) -> dict[int, Move]:
    """What ``resolve`` gets for a window of ``requests`` closing with the ``answered`` moves
    (arrival order): those, then ``None`` for every asked seat that did not answer; but an
    ``"each"`` window with answers in resolves them alone (the other seats stay asked)."""
    moves: dict[int, Move] = dict(answered)
    if moves and any(request.close == "each" for request in requests):
        return moves
    moves.update({request.seat: None for request in requests if request.seat not in moves})
    return moves


def closes_early(game: Game[Any], state: Any, request: Request, moves: Mapping[int, Move]) -> bool:
    """Whether the accepted answer to ``request`` just added to ``moves`` (the window's accepted
    moves so far, in arrival order) closes the window now by the request's close rule (an
    ``"each"`` window closes to resolve it alone); the ``"all"`` rule (every seat answered) is
    the host's, as before."""
    if request.close in ("first", "each"):
        return True
    ready = getattr(game, "ready", None)
    return request.close == "ready" and ready is not None and bool(ready(state, moves))


def _for_seat(submit: Callable[[int, str], Verdict], seat: int) -> Submit:
    return lambda raw: submit(seat, raw)
