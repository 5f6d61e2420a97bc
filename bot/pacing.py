"""The pace of one bot process's requests to Discord: within its global limit, prompts first.

Discord allows a bot token about 50 requests a second in all; past that it answers 429 (and
a bot that keeps running into it is banned for a while). discord.py only waits once told, so a
burst (the re-prompts after downtime: one per seat of every match whose window expired, each a
DM) would run into the limit again and again. ``pace`` makes every request take a token of a
``LocalBudget`` first: at most ``burst`` at once and ``rate`` a second after, and while requests
wait, those delivering a window's prompt (``bot.budget.PROMPT``, set by the transport's
``PromptsFirst``: its seat's clock is running) go before the others. Interaction answers do not
count, as Discord does not count them.

Sharded processes share one budget in the database instead (``bot.budget.RequestBudget``, the
same ``take(prompt)``).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import discord
import discord.http

from bot.budget import BURST, PROMPT, RATE, counts

WHOLE = 1 - 1e-9  # a token, give or take the rounding of the refill's arithmetic


class Budget(Protocol):
    async def take(self, prompt: bool = False) -> None:
        """One request's token, once there is one (a prompt's before the others')."""


class LocalBudget:
    """A token bucket on the event loop's clock, its waiters served prompts first, then in
    the order they came."""

    def __init__(self, rate: float = RATE, burst: float = BURST) -> None:
        self.rate, self.burst = rate, burst
        self._tokens = burst
        self._at: float | None = None
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self.taken = 0
        self.waited = 0  # takes that had to wait

    async def take(self, prompt: bool = False) -> None:
        loop = asyncio.get_running_loop()
        self._refill(loop.time())
        self.taken += 1
        if not self._waiters and self._tokens >= WHOLE:
            self._tokens -= 1
            return
        self.waited += 1
        waiter: asyncio.Future[None] = loop.create_future()
        heapq.heappush(self._waiters, (0 if prompt else 1, next(self._order), waiter))
        self._serve_later(loop)
        await waiter  # a cancelled waiter is skipped when its turn comes

    def _refill(self, now: float) -> None:
        if self._at is not None:
            self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now

    def _serve_later(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._timer is None:
            wait = max(0.0, (1 - self._tokens) / self.rate)
            self._timer = loop.call_later(wait, self._serve, loop)

    def _serve(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        self._refill(loop.time())
        while self._waiters and self._tokens >= WHOLE:
            _, _, waiter = heapq.heappop(self._waiters)
            if not waiter.done():
                self._tokens -= 1
                waiter.set_result(None)
        if self._waiters:
            self._serve_later(loop)


def pace(client: discord.Client, budget: Budget) -> None:
    """Every request the client makes to Discord takes a token of ``budget`` first (and its
    rate-limit buckets are pruned in bulk: ``prune_buckets_in_bulk``)."""
    send: Callable[..., Awaitable[Any]] = client.http.request

    async def request(route: discord.http.Route, **kwargs: Any) -> Any:
        if counts(route.path):
            await budget.take(PROMPT.get())
        return await send(route, **kwargs)

    client.http.request = request  # type: ignore[method-assign]
    prune_buckets_in_bulk(client.http)


FEWEST_BUCKETS = 256  # discord.py keeps this many rate-limit buckets before it prunes any


def prune_buckets_in_bulk(http: discord.http.HTTPClient) -> None:
    """Once it holds 256 rate-limit buckets (one per route and channel), discord.py looks
    through all of them for idle ones each time it makes a new one: a bot writing to thousands
    of channels (a DM channel per seat) scanned thousands of buckets a request, the most CPU of
    a restart's backlog. Prune when their count has doubled since the last pruning instead: the
    same idle buckets go, at a constant cost per bucket made."""
    prune = http._try_clear_expired_ratelimits
    kept = FEWEST_BUCKETS

    def prune_when_doubled() -> None:
        nonlocal kept
        if len(http._buckets) >= 2 * kept:
            prune()
            kept = max(FEWEST_BUCKETS, len(http._buckets))

    http._try_clear_expired_ratelimits = prune_when_doubled  # type: ignore[method-assign]
