"""How the host's messages leave it: the Transport interface, its errors, the console transport.

A message (``Delivery``) goes to one audience of one match: the match channel (public), one
seat's player (a DM on Discord) or the moderators (a log channel). Besides the plain ``text`` it
carries a structured ``payload`` so a richer transport can render embeds and buttons:

``{"kind": "setup" | "reveal" | "start" | "turn" | "notice" | "reminder" | "reopened"
           | "unreachable",
   "step": int,             # the match step the message follows (0: before the first window)
   "events": [event...],    # the engine events in the message, see ``event_to_json``
   "request": {...},        # present when the message prompts the seat, see ``request_to_json``
   "seats": [{"name", "line", "won"}...],  # a turn or phase post's seats' card (``seat_line``)
   "deadline": float,       # a public post: when the window it opens closes
   "over": True}            # the match's end post

A request carries ``match_id`` and ``step``: pass that ``step`` to ``Host.submit`` from a button
so a click on an old prompt is refused instead of answering a newer window.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol, TextIO

from games.protocol import JSON, Audience, Choice, Event, Request


class TransientError(Exception):
    """Sending failed but may work later (network error, rate limit, server error)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentError(Exception):
    """Sending can never work (the player closed their DMs, the channel is gone)."""


@dataclass(frozen=True, slots=True)
class Delivery:
    message_id: int  # the outbox id: stable across retries, so a transport can drop duplicates
    match_id: int
    guild_id: int
    channel_id: int
    audience: Audience
    user_id: int | None  # the seat's player for a seat audience
    moderator_ids: tuple[int, ...]
    text: str
    payload: Mapping[str, JSON]
    # other matches' log entries posted with this one (``bot.outbox.ChannelPace``): a log
    # channel serves every match of its server
    also: tuple[Delivery, ...] = ()


POST_LIMIT = 2000  # the characters of one Discord message


def log_text(delivery: Delivery) -> str:
    """A log channel's post: each match's entry headed by its match's id."""
    return "\n".join(
        f"**m{entry.match_id}** · {entry.text}" for entry in (delivery, *delivery.also)
    )


class Transport(Protocol):
    async def send(self, delivery: Delivery) -> float | None:
        """Deliver one message; raise TransientError or PermanentError when it fails. May
        return when the message was first posted (epoch seconds), when that was earlier: a
        resend after a crash that Discord dropped by its nonce reached the player back then."""


def audience_key(audience: Audience) -> str:
    return str(audience)


def parse_audience(key: str) -> Audience:
    if key.startswith("seat"):
        return Audience("seat", int(key.removeprefix("seat")))
    if key in ("public", "moderators"):
        return Audience(key)  # type: ignore[arg-type]  # checked just above
    raise ValueError(f"unknown audience {key!r}")


def event_to_json(event: Event) -> dict[str, JSON]:
    return {
        "audience": audience_key(event.audience),
        "kind": event.kind,
        "data": dict(event.data),
        "text": event.text,
    }


def event_from_json(data: Mapping[str, Any]) -> Event:
    return Event(parse_audience(data["audience"]), data["kind"], data["data"], data["text"])


def request_to_json(request: Request, match_id: int, step: int, deadline: float) -> dict[str, JSON]:
    return {
        "match_id": match_id,
        "step": step,
        "seat": request.seat,
        "kind": request.kind,
        "prompt": request.prompt,
        "choices": [
            {"value": c.value, "label": c.label, "group": c.group, "stage": c.stage}
            for c in request.choices
        ],
        "default": request.default,
        "timeout_s": request.timeout_s,
        "revisable": request.revisable,
        "occasion": request.occasion,
        "min_choices": request.min_choices,
        "max_choices": request.max_choices,
        "separator": request.separator,
        "presentation": dict(request.presentation),
        "timer": request.timer,
        "close": request.close,
        "help": request.help,
        "deadline": deadline,  # epoch seconds, UTC
    }


def request_from_json(data: Mapping[str, Any]) -> Request:
    return Request(
        seat=data["seat"],
        kind=data["kind"],
        prompt=data["prompt"],
        choices=tuple(
            Choice(c["value"], c["label"], c["group"], c.get("stage", "")) for c in data["choices"]
        ),
        default=data["default"],
        timeout_s=data["timeout_s"],
        revisable=data["revisable"],
        # absent from prompts stored before they existed
        occasion=data.get("occasion", ""),
        min_choices=data.get("min_choices", 1),
        max_choices=data.get("max_choices", 1),
        separator=data.get("separator", ","),
        presentation=data.get("presentation", {}),
        timer=data.get("timer", "turn"),
        close=data.get("close", "all"),
        help=data.get("help", ""),
    )


class ConsoleTransport:
    """Prints every message, tagged by match and audience; never fails."""

    def __init__(self, out: TextIO | None = None) -> None:
        self._out = out
        self.sent = 0

    async def send(self, delivery: Delivery) -> None:
        self.sent += 1
        print(format_delivery(delivery), file=self._out or sys.stdout, flush=True)


def seat_line(seat: int, entry: Mapping[str, JSON]) -> str:
    """One seat of a post's seats' card (``payload["seats"]``): ``P2 · 4 coins · 🏆 wins``."""
    line, won = entry.get("line"), entry.get("won") is True
    return " · ".join([f"P{seat + 1}", *([str(line)] if line else []), *(["🏆 wins"] * won)])


def format_delivery(delivery: Delivery) -> str:
    """A message as the console prints it, tagged; a post with the seats' card lists each
    seat's public line after its text, where Discord shows the card."""
    if delivery.also:
        return "\n".join(map(format_delivery, (replace(delivery, also=()), *delivery.also)))
    tag = f"[m{delivery.match_id} {audience_key(delivery.audience)}]"
    lines = delivery.text.splitlines() or [""]
    seats = delivery.payload.get("seats")
    if isinstance(seats, list):
        lines += [f"  {entry.get('name')}: {seat_line(n, entry)}" for n, entry in enumerate(seats)]
    return "\n".join([f"{tag} {lines[0]}", *(f"{' ' * len(tag)} {line}" for line in lines[1:])])
