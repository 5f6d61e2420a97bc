"""Threads started from a message (``POST /channels/{channel_id}/messages/{message_id}/threads``):
a public thread (channel type 11) of the message's channel, where the bot may then post like in
any channel. Names are 1 to 100 characters, as Discord requires; one thread per message; the bot
needs Create Public Threads in the channel (else 403 code 50013 Missing Permissions). A deleted
thread (``delete_thread``) answers 404 code 10003 Unknown Channel, like any unknown channel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import JSON, ApiError, Perm
from .entities import Channel

if TYPE_CHECKING:
    from .facade import FakeDiscord
    from .rest import AddRoute, RestRequest

PUBLIC_THREAD = 11


class ThreadRoutes:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.started: dict[int, Channel] = {}  # message id -> the thread started from it

    def add_routes(self, r: AddRoute) -> None:
        r("POST /channels/{channel_id}/messages/{message_id}/threads", self._start)

    def _start(self, q: RestRequest) -> JSON:
        fake = self.fake
        parent = fake.rest.channel(q)
        message = fake.rest.message(q)
        if parent.is_dm or parent.type != 0:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        guild = fake.guilds[parent.guild_id]  # type: ignore[index]
        if not guild.permissions_in(parent, fake.bot_user.id) & Perm.CREATE_PUBLIC_THREADS:
            raise ApiError(403, 50013, "Missing Permissions")
        name = str((q.json or {}).get("name") or "")
        if not 1 <= len(name) <= 100:
            raise ApiError(400, 50035, "Invalid Form Body: name: 1 to 100 long", failure=True)
        if message.id in self.started:
            raise ApiError(400, 160004, "A thread has already been created for this message")
        thread = Channel(fake.snowflake(), PUBLIC_THREAD, name, parent.guild_id)
        thread.parent_id = parent.id
        fake.channels[thread.id] = thread
        self.started[message.id] = thread
        return self.payload(thread)

    def payload(self, thread: Channel) -> JSON:
        return {
            "id": str(thread.id),
            "type": PUBLIC_THREAD,
            "guild_id": str(thread.guild_id),
            "parent_id": str(thread.parent_id),
            "owner_id": str(self.fake.bot_user.id),
            "name": thread.name,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "message_count": 0,
            "member_count": 1,
            "flags": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": 1440,
                "archive_timestamp": "2026-01-01T00:00:00+00:00",
                "locked": False,
            },
        }

    def thread_of(self, message_id: int) -> Channel | None:
        return self.started.get(message_id)

    async def delete(self, thread: Channel) -> None:
        """A moderator deletes the thread: it and its messages are gone (THREAD_DELETE)."""
        fake = self.fake
        fake.channels.pop(thread.id, None)
        for message in fake.messages:
            if message.channel_id == thread.id:
                message.deleted = True
        data = {
            "id": str(thread.id),
            "guild_id": str(thread.guild_id),
            "parent_id": str(thread.parent_id),
            "type": PUBLIC_THREAD,
        }
        await fake.dispatch("THREAD_DELETE", data)
