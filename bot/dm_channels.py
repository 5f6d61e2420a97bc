"""Each user's DM channel with the bot, opened once per user ever.

Discord gives a bot and a user one DM channel, always the same; opening it is a REST request
(``create_dm``) that counts against the bot's 50 requests a second. discord.py keeps only the
last 128 DM channels it opened, so past 128 players every DM cost an opening, and after a
restart every player's first DM did. Here the channel's id is stored (``dm_channels``) the
first time, kept in memory for the most recent users, and a DM is one request: the post.

A stored channel Discord no longer knows (404) is forgotten and opened again, once.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TypeVar

import discord

from bot.store import Store, WriteFailed

log = logging.getLogger(__name__)

T = TypeVar("T")
KEPT = 100_000  # users whose channel stays in memory (the rest are read from the store)
UNKNOWN_CHANNEL = 10003  # Discord's code for a channel it does not know


class DmChannels:
    def __init__(
        self, client: discord.Client, store: Callable[[], Store | None], kept: int = KEPT
    ) -> None:
        """``store``: the host's store (None before it is open: the channels are then only
        kept in memory)."""
        self._client = client
        self._store = store
        self._kept = kept
        self._known: OrderedDict[int, int] = OrderedDict()  # user id -> channel id
        self._opening: dict[int, asyncio.Future[int]] = {}  # one opening a user at a time

    async def send(
        self, user_id: int, post: Callable[[discord.PartialMessageable], Awaitable[T]]
    ) -> T:
        """``post`` in the user's DM channel; opened (and stored) the first time only."""
        channel_id = await self.channel_id(user_id)
        try:
            return await post(self._channel(channel_id))
        except discord.NotFound as error:
            if error.code != UNKNOWN_CHANNEL:
                raise
            log.warning("the DM channel of user %d is gone; opening it again", user_id)
            await self._forget(user_id, channel_id)
            return await post(self._channel(await self.channel_id(user_id)))

    async def channel_id(self, user_id: int) -> int:
        known = self._known.get(user_id)
        if known is not None:
            self._known.move_to_end(user_id)
            return known
        opening = self._opening.get(user_id)
        if opening is not None:
            return await asyncio.shield(opening)
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._opening[user_id] = future
        try:
            channel_id = await self._find_or_open(user_id)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: a waiter is not required
            raise
        else:
            future.set_result(channel_id)
            self._keep(user_id, channel_id)
            return channel_id
        finally:
            del self._opening[user_id]

    def _channel(self, channel_id: int) -> discord.PartialMessageable:
        return self._client.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    async def _find_or_open(self, user_id: int) -> int:
        store = self._store()
        stored = await store.dm_channel(user_id) if store is not None else None
        if stored is not None:
            return stored
        user = self._client.get_user(user_id) or discord.Object(user_id)
        channel = await self._client.create_dm(user)
        if store is not None:
            try:
                await store.set_dm_channel(user_id, channel.id)
            except WriteFailed as error:  # kept in memory; stored with the next opening
                log.warning("the DM channel of user %d could not be stored: %s", user_id, error)
        return channel.id

    def _keep(self, user_id: int, channel_id: int) -> None:
        self._known[user_id] = channel_id
        self._known.move_to_end(user_id)
        while len(self._known) > self._kept:
            self._known.popitem(last=False)

    async def _forget(self, user_id: int, channel_id: int) -> None:
        if self._known.get(user_id) == channel_id:
            del self._known[user_id]
        store = self._store()
        try:
            if store is not None:
                await store.forget_dm_channel(user_id, channel_id)
        except WriteFailed as error:  # the next opening stores the new one over it
            log.warning("the lost DM channel of user %d stays stored: %s", user_id, error)
