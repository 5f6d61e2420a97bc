"""Faults a test injects: error answers on REST routes (429 with Discord's headers, 5xx, any
status), closed DMs (403 code 50007), and a gateway that drops, asks to reconnect or
invalidates the session."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from .base import JSON
from .buckets import bucket_headers, too_many
from .entities import Channel, User

if TYPE_CHECKING:
    from .facade import FakeDiscord
    from .gateway import Gateway
    from .rest import Rest


@dataclass(eq=False)
class Fault:
    """An injected error answer for requests matching ``method route`` and ``where``."""

    method: str
    route: str
    where: dict[str, str]
    status: int
    body: JSON
    headers: dict[str, str]
    times: int | None  # None: forever
    hits: int = 0
    until: float | None = None  # time.monotonic() after which it answers normally

    def matches(self, method: str, route: str, params: Mapping[str, str]) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.until is not None and time.monotonic() >= self.until:
            return False
        if (method, route) != (self.method, self.route):
            return False
        return all(params.get(k) == v for k, v in self.where.items())


def params_of(where: Mapping[str, object]) -> dict[str, str]:
    """Path parameters as strings; entities (anything with an ``id``) stand for their id."""
    return {k: str(getattr(v, "id", v)) for k, v in where.items()}


@dataclass(eq=False)
class Latency:
    """Requests matching ``method route`` and ``where`` are answered ``seconds`` late."""

    method: str
    route: str
    where: dict[str, str]
    seconds: float
    hits: int = 0


class FaultInjection:
    """The fault API of :class:`FakeDiscord` (a mixin: these are methods tests call on it)."""

    faults: list[Fault]
    latencies: list[Latency]
    closed_dms: set[int]
    gateway: Gateway
    rest: Rest

    def injected_fault(self, method: str, route: str, params: Mapping[str, str]) -> Fault | None:
        """The first fault for this request, counted as hit; None answers normally."""
        for fault in self.faults:
            if fault.matches(method, route, params):
                fault.hits += 1
                return fault
        return None

    def fail(
        self,
        route: str,
        *,
        status: int = 500,
        times: int | None = 1,
        code: int = 0,
        message: str = "fake failure",
        channel: Channel | None = None,
        where: Mapping[str, object] | None = None,
        headers: Mapping[str, str] | None = None,
        body: JSON | None = None,
        seconds: float | None = None,
    ) -> Fault:
        """The next ``times`` requests to ``"METHOD /template"`` answer ``status``; with
        ``seconds`` (and ``times=None``), every request for that long from now (an outage)."""
        self.rest.check_route(route)
        method = route.split(" ", 1)[0]
        cond = params_of(where or {})
        if channel is not None:
            cond["channel_id"] = str(channel.id)
        fault = Fault(
            method,
            route,
            cond,
            status,
            body if body is not None else {"message": message, "code": code},
            dict(headers or {}),
            times,
            until=None if seconds is None else time.monotonic() + seconds,
        )
        self.faults.append(fault)
        return fault

    def slow(
        self,
        route: str,
        seconds: float,
        *,
        channel: Channel | None = None,
        where: Mapping[str, object] | None = None,
    ) -> Latency:
        """Every request to ``"METHOD /template"`` (in ``channel``) is answered ``seconds``
        late, as a slow connection to Discord would be; requests in flight overlap."""
        self.rest.check_route(route)
        cond = params_of(where or {})
        if channel is not None:
            cond["channel_id"] = str(channel.id)
        latency = Latency(route.split(" ", 1)[0], route, cond, seconds)
        self.latencies.append(latency)
        return latency

    def latency_of(self, method: str, route: str, params: Mapping[str, str]) -> float:
        """How late to answer this request (0: at once)."""
        for latency in self.latencies:
            if (method, route) == (latency.method, latency.route) and all(
                params.get(k) == v for k, v in latency.where.items()
            ):
                latency.hits += 1
                return latency.seconds
        return 0.0

    def rate_limit(
        self,
        route: str,
        *,
        times: int = 1,
        retry_after: float = 0.05,
        is_global: bool = False,
        channel: Channel | None = None,
        where: Mapping[str, object] | None = None,
    ) -> Fault:
        """The next ``times`` requests to ``route`` answer 429 with ``retry_after`` seconds."""
        bucket = bucket_headers(route, 5, 0, retry_after)
        body, headers = too_many(retry_after, is_global=is_global, bucket=bucket)
        return self.fail(
            route, status=429, times=times, channel=channel, where=where, headers=headers, body=body
        )

    def close_dms(self, user: User) -> None:
        """Every message the bot sends to this user's DMs fails with 403 code 50007."""
        self.closed_dms.add(user.id)

    def open_dms(self, user: User) -> None:
        self.closed_dms.discard(user.id)

    async def drop_gateway(self, code: int = 4000) -> None:
        """Close every gateway connection with ``code``; the client should RESUME."""
        for session, ws in self.gateway.connected():
            session.dropped_by_fake = True
            session.ws = None
            await ws.close(code=code, message=b"fake drop")
        cast("FakeDiscord", self)._notify()

    async def send_reconnect(self) -> None:
        """Send op 7 RECONNECT on every live connection (the client reconnects and RESUMEs)."""
        for session, ws in self.gateway.connected():
            session.dropped_by_fake = True
            await self.gateway.send(ws, {"op": 7, "d": None, "s": None, "t": None})

    async def invalidate_session(self) -> None:
        """Send op 9 (not resumable) on every live connection; the client IDENTIFYs anew."""
        for session, ws in self.gateway.connected():
            session.invalid = True
            await self.gateway.send(ws, {"op": 9, "d": False, "s": None, "t": None})
