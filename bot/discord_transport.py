"""The host's Transport over Discord: public posts, player DMs with buttons, the moderator log.

Failures are mapped for the outbox: a 403 (a player's closed DMs, code 50007, or a channel the bot
may not post in) or a 404 is permanent; a 5xx or a network error is transient and retried.
Rate limits (429) are handled inside discord.py, which waits and tries again.

Long texts are split into several messages under Discord's 2000-character limit; the parts
already sent are remembered per outbox message, so a retry does not post them twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import aiohttp
import discord

from bot.transport import Delivery, PermanentError, TransientError

log = logging.getLogger(__name__)

MESSAGE_LIMIT = 2000
CANNOT_DM = 50007

ViewFactory = Callable[[Mapping[str, Any]], discord.ui.View | None]
"""Builds the buttons of a prompt from its request payload (None: no buttons)."""

LogChannelFinder = Callable[[Delivery], int | None]
"""The moderator log channel of a delivery's match, if there is one."""


def split_text(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Parts of at most ``limit`` characters, in order, cut at line breaks where possible.
    No part is blank: Discord refuses a message of only spaces and line breaks."""
    parts: list[str] = []
    current = ""
    for line in text.splitlines(keepends=True):
        while len(line) > limit:
            parts += [current, line[:limit]]
            current, line = "", line[limit:]
        if len(current) + len(line) > limit:
            parts.append(current)
            current = ""
        current += line
    parts.append(current)
    return [part.rstrip() for part in parts if part.strip()] or ["\u200b"]


def fit(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` cut to at most ``limit`` characters, saying how much was cut: the last guard
    before a reply goes out (Discord refuses a longer message, and the user sees nothing)."""
    if len(text) <= limit:
        return text
    keep = limit - len(f"… ({len(text)} more characters cut)")  # the count never has more digits
    if keep <= 0:
        return text[:limit]
    return f"{text[:keep]}… ({len(text) - keep} more characters cut)"


def prompt_suffix(request: Mapping[str, Any]) -> str:
    """The live countdown Discord renders for a prompt's deadline."""
    return f"⌛ Closes <t:{int(request['deadline'])}:R>."


class DiscordTransport:
    """Delivers the host's outbox through a connected discord.py client."""

    def __init__(
        self,
        client: discord.Client,
        view_factory: ViewFactory,
        log_channel: LogChannelFinder,
    ) -> None:
        self._client = client
        self._view_factory = view_factory
        self._log_channel = log_channel
        self._parts_sent: dict[int, int] = {}

    async def send(self, delivery: Delivery) -> None:
        try:
            await self._send(delivery)
        except discord.Forbidden as error:
            raise PermanentError(_describe(error)) from None
        except discord.NotFound as error:
            raise PermanentError(_describe(error)) from None
        except discord.HTTPException as error:
            if error.status >= 500 or error.status == 429:
                raise TransientError(_describe(error)) from None
            raise PermanentError(_describe(error)) from None
        except (TimeoutError, aiohttp.ClientError, OSError) as error:
            raise TransientError(f"network: {error!r}") from None

    async def _send(self, delivery: Delivery) -> None:
        audience = delivery.audience
        if audience.kind == "public":
            await self._post(delivery, self._client.get_partial_messageable(delivery.channel_id))
        elif audience.kind == "seat":
            assert delivery.user_id is not None
            user = self._client.get_user(delivery.user_id) or discord.Object(delivery.user_id)
            dm = await self._client.create_dm(user)
            await self._post(delivery, dm, delivery.payload.get("request"))
        else:
            await self._to_moderators(delivery)

    async def _to_moderators(self, delivery: Delivery) -> None:
        channel_id = self._log_channel(delivery)
        if channel_id is not None:
            await self._post(delivery, self._client.get_partial_messageable(channel_id))
            return
        if delivery.payload.get("kind") != "unreachable":
            return  # no log channel: the hidden state is simply not logged
        for moderator_id in delivery.moderator_ids:
            try:
                user = self._client.get_user(moderator_id) or discord.Object(moderator_id)
                await self._post(delivery, await self._client.create_dm(user))
            except discord.Forbidden:
                log.warning("cannot DM moderator %d of match %d", moderator_id, delivery.match_id)

    async def _post(
        self,
        delivery: Delivery,
        channel: discord.abc.Messageable,
        request: Mapping[str, Any] | None = None,
    ) -> None:
        text = delivery.text
        if request is not None:
            text = f"{text}\n{prompt_suffix(request)}"
        parts = split_text(text)
        done = self._parts_sent.get(delivery.message_id, 0)
        for index in range(done, len(parts)):
            last = index == len(parts) - 1
            view = self._view_factory(request) if last and request is not None else None
            # The nonce makes Discord drop a resend of a part it already posted: after a crash
            # between posting and marking the outbox row delivered, nobody sees it twice.
            nonce = f"fh{delivery.message_id}.{index}"
            if view is not None:
                await channel.send(parts[index], view=view, nonce=nonce)
            else:
                await channel.send(parts[index], nonce=nonce)
            self._parts_sent[delivery.message_id] = index + 1
        self._parts_sent.pop(delivery.message_id, None)


def _describe(error: discord.HTTPException) -> str:
    return f"{error.status} (code {error.code}): {error.text or 'no detail'}"
