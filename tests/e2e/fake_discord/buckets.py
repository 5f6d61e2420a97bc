"""Discord's rate-limit buckets as the fake answers them: the headers of a bucket (which
discord.py reads to pace itself), the 429 past a limit, and the per-channel limit on creating
messages (``POST /channels/{channel_id}/messages``: 5 in 5 seconds per channel, guild
channels, threads and DMs alike; its major parameter is the channel)."""

from __future__ import annotations

import collections
import math
import re
import time

from .base import JSON

CREATE_MESSAGE = "POST /channels/{channel_id}/messages"
CHANNEL_POSTS = (5, 5.0)  # Discord's limit on creating messages in one channel: 5 in any 5 s

Headers = dict[str, str]


def bucket_hash(route: str) -> str:
    """A stable stand-in for Discord's opaque bucket hash: one per route template."""
    return re.sub(r"\W", "", route)[:32]


def _seconds(value: float) -> str:
    # rounded up: a client waiting exactly this long must not come back a little early
    return f"{math.ceil(max(0.0, value) * 1000) / 1000:.3f}"


def bucket_headers(route: str, limit: int, remaining: int, reset_after: float) -> Headers:
    """What Discord says of a bucket on every answer of its route (discord.py's
    ``Ratelimit.update`` reads Limit, Remaining and Reset-After, or Reset; Bucket keys it)."""
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": f"{time.time() + max(0.0, reset_after):.3f}",
        "X-RateLimit-Reset-After": _seconds(reset_after),
        "X-RateLimit-Bucket": bucket_hash(route),
    }


def too_many(retry_after: float, *, is_global: bool, bucket: Headers) -> tuple[JSON, Headers]:
    """Discord's 429: its body and headers, with ``bucket``'s headers when a route's bucket
    refused it (none for the global limit). ``Via``: discord.py takes a 429 without it for a
    Cloudflare ban and gives up."""
    headers = {
        "Via": "1.1 google",
        "Retry-After": str(max(1, math.ceil(retry_after))),
        **bucket,
        "X-RateLimit-Scope": "global" if is_global else "user",
    }
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    body = {
        "message": "You are being rate limited.",
        "retry_after": round(retry_after, 3),
        "global": is_global,
        "code": 0,
    }
    return body, headers


class ChannelPosts:
    """Each channel's message creations in the last ``seconds``: a sliding window, at most
    ``limit`` in it. A refused request takes no place in it (it posted nothing)."""

    def __init__(self) -> None:
        self._windows: collections.defaultdict[int, collections.deque[float]] = (
            collections.defaultdict(collections.deque)
        )
        self.refused: collections.Counter[int] = collections.Counter()  # channel id -> 429s

    def _window(self, channel_id: int, now: float, seconds: float) -> collections.deque[float]:
        window = self._windows[channel_id]
        while window and window[0] <= now - seconds:
            window.popleft()
        return window

    def take(self, channel_id: int, now: float, limit: int, seconds: float) -> float | None:
        """Count one creation in ``channel_id``; over the limit it is refused (counted in
        ``refused``) and this returns the seconds until the oldest leaves the window."""
        window = self._window(channel_id, now, seconds)
        if len(window) >= limit:
            self.refused[channel_id] += 1
            return window[0] + seconds - now
        window.append(now)
        return None

    def state(self, channel_id: int, now: float, limit: int, seconds: float) -> tuple[int, float]:
        """(remaining, reset after) for the bucket headers. Reset-After is when the window is
        empty, not when its oldest leaves: discord.py takes a reset for the whole limit free
        again, so anything sooner would send it into 429s."""
        window = self._window(channel_id, now, seconds)
        reset_after = window[-1] + seconds - now if window else 0.0
        return max(0, limit - len(window)), reset_after
