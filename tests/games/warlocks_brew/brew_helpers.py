"""What the Magic Infused and Deal Window tests share: a match on a deck given card by card
(``"Toadstool (Potent)"`` names a card's effect), one window played, one answer played."""

from __future__ import annotations

from typing import Any

from games.protocol import Accepted, Event, Refused
from games.warlocks_brew import GAME
from games.warlocks_brew.effects import split_label
from games.warlocks_brew.engine import start_match
from games.warlocks_brew.state import State


def start(
    deck: list[str], seats: int = 3, names: list[str] | None = None, **options: Any
) -> tuple[State, list[Event]]:
    """A match on ``deck`` (top first); ``magic_infused`` is the number of effects it names."""
    cards = [split_label(text) for text in deck]
    options.setdefault("magic_infused", sum(1 for _, effect in cards if effect))
    config = GAME.parse_config(options, seats)
    names = names or [f"P{i + 1}" for i in range(seats)]
    return start_match(config, names, [c for c, _ in cards], effects=[e for _, e in cards])


def bids(state: State, *raws: str | None) -> tuple[State, list[Event]]:
    """One window: seat i answers raws[i] (None: no answer, the window times out)."""
    moves: dict[int, Any] = {}
    for request in GAME.requests(state):
        raw = raws[request.seat] if request.seat < len(raws) else None
        moves[request.seat] = None if raw is None else accepted(state, request.seat, raw)
    return GAME.resolve(state, moves)


def accepted(state: State, seat: int, raw: str) -> str:
    verdict = GAME.submit(state, seat, raw)
    assert isinstance(verdict, Accepted), verdict
    return str(verdict.move)


def refusal(state: State, seat: int, raw: str) -> str:
    verdict = GAME.submit(state, seat, raw)
    assert isinstance(verdict, Refused), verdict
    return verdict.reason


def answer(state: State, seat: int, raw: str) -> tuple[State, list[Event]]:
    """One answer in a window where each seat goes at its own pace (the Deal Window)."""
    return GAME.resolve(state, {seat: accepted(state, seat, raw)})


def deadline(state: State) -> tuple[State, list[Event]]:
    """The window's deadline: every seat still asked gets None."""
    return GAME.resolve(state, {request.seat: None for request in GAME.requests(state)})


def texts(events: list[Event], kind: str | None = None) -> str:
    return "\n".join(e.text for e in events if kind is None or e.kind == kind)


def prompt(state: State, seat: int) -> str:
    request = next(r for r in GAME.requests(state) if r.seat == seat)
    return request.prompt


def values(state: State, seat: int) -> list[str]:
    request = next(r for r in GAME.requests(state) if r.seat == seat)
    return [choice.value for choice in request.choices]
