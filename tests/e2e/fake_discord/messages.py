"""Messages over REST: create (with nonces, closed DMs, files), list, edit, delete; the same
create/edit/validate steps serve interaction callbacks and webhooks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .base import JSON, ApiError, MsgFlag, UploadedFile, now_iso
from .entities import Attachment, Channel, Message
from .limits import validate_message

if TYPE_CHECKING:
    from .facade import FakeDiscord
    from .interactions import Interaction
    from .rest import AddRoute, RestRequest


def delete_event(msg: Message) -> JSON:
    """MESSAGE_DELETE's data for ``msg``."""
    data = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
    if msg.guild_id:
        data["guild_id"] = str(msg.guild_id)
    return data


class MessageRoutes:
    """The bot's messages: it checks, stores and announces them (gateway dispatches)."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.by_nonce: dict[tuple[int, str], Message] = {}  # (channel, nonce) -> first message

    def add_routes(self, r: AddRoute) -> None:
        rest = self.fake.rest
        r("POST /channels/{channel_id}/typing", lambda q: None)
        r("GET /channels/{channel_id}/messages", self._get_messages)
        r("POST /channels/{channel_id}/messages", self._post_message)
        r(
            "GET /channels/{channel_id}/messages/{message_id}",
            lambda q: rest.message(q).payload(self.fake),
        )
        r("PATCH /channels/{channel_id}/messages/{message_id}", self._patch_message)
        r("DELETE /channels/{channel_id}/messages/{message_id}", self._delete_message)

    # ----------------------------------------------------------------- shared steps

    def validate(self, body: JSON, files: Sequence[UploadedFile], *, creating: bool) -> None:
        size_limit = self.fake.attachment_size_limit
        validate_message(body, files, creating=creating, size_limit=size_limit)

    def _attachments_from(self, body: JSON, files: Sequence[UploadedFile]) -> list[Attachment]:
        described = {
            str(a.get("id")): a for a in body.get("attachments") or [] if isinstance(a, dict)
        }
        result = []
        for name, filename, data, ctype in files:
            index = name[len("files[") : -1] if name.startswith("files[") else name
            meta = described.get(index, {})
            result.append(
                Attachment(
                    self.fake.snowflake(),
                    meta.get("filename") or filename,
                    data,
                    ctype,
                    meta.get("description"),
                )
            )
        return result

    def create(
        self,
        channel: Channel,
        body: JSON,
        files: Sequence[UploadedFile],
        *,
        flags: int = 0,
        interaction: Interaction | None = None,
    ) -> Message:
        """Store a new bot message (already validated); dispatching it is the caller's."""
        msg = Message(
            id=self.fake.snowflake(),
            seq=self.fake.next_seq(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.fake.bot_user,
            content=body.get("content") or "",
            embeds=list(body.get("embeds") or []),
            components=list(body.get("components") or []),
            attachments=self._attachments_from(body, files),
            flags=flags,
            interaction_id=interaction.id if interaction else None,
            visible_to=interaction.user.id if interaction and flags & MsgFlag.EPHEMERAL else None,
            type=20 if interaction and interaction.type == 2 else 0,
        )
        self.fake.store_message(msg)
        return msg

    def edit(self, msg: Message, body: JSON, files: Sequence[UploadedFile]) -> None:
        """Validate and apply an edit; the old version goes to ``history`` (a defer has none)."""
        self.validate(body, files, creating=False)
        if not msg.loading:
            msg.history.append(msg.snapshot())
        for key in ("content", "embeds", "components"):
            if key in body:
                setattr(
                    msg,
                    key,
                    body[key] if body[key] is not None else ("" if key == "content" else []),
                )
        if "attachments" in body or files:
            keep = {str(a.get("id")) for a in body.get("attachments") or [] if isinstance(a, dict)}
            msg.attachments = [
                a for a in msg.attachments if str(a.id) in keep
            ] + self._attachments_from(body, files)
        if body.get("flags") is not None:
            suppress = body["flags"] & MsgFlag.SUPPRESS_EMBEDS
            msg.flags = (msg.flags & ~MsgFlag.SUPPRESS_EMBEDS) | suppress
        if msg.loading:
            msg.flags &= ~MsgFlag.LOADING
        else:
            msg.edited_timestamp = now_iso()

    # ----------------------------------------------------------------- routes

    async def _post_message(self, q: RestRequest) -> JSON:
        fake = self.fake
        channel = fake.rest.channel(q)
        if (
            channel.is_dm
            and channel.recipient is not None
            and channel.recipient.id in fake.closed_dms
        ):
            fake.blocked_dms.append((channel.recipient, q.json))
            raise ApiError(403, 50007, "Cannot send messages to this user")
        flags = int(q.json.get("flags") or 0)
        if flags & MsgFlag.EPHEMERAL:
            raise ApiError(
                400, 50035, "Invalid Form Body: ephemeral outside an interaction", failure=True
            )
        self.validate(q.json, q.files, creating=True)
        nonce = q.json.get("nonce")
        if nonce is not None and q.json.get("enforce_nonce"):
            # As Discord does: the same nonce again returns the first message, posts nothing.
            earlier = self.by_nonce.get((channel.id, str(nonce)))
            if earlier is not None:
                fake.nonce_hits += 1
                return earlier.payload(fake)
        msg = self.create(channel, q.json, q.files, flags=flags)
        if nonce is not None:
            self.by_nonce[(channel.id, str(nonce))] = msg
        payload = msg.payload(fake)
        await fake.dispatch("MESSAGE_CREATE", payload)
        return payload

    def _get_messages(self, q: RestRequest) -> list[JSON]:
        channel = self.fake.rest.channel(q)
        limit = int(q.request.query.get("limit", 50))
        before = int(q.request.query.get("before", 1 << 63))
        after = int(q.request.query.get("after", 0))
        found = [
            m
            for m in self.fake.messages
            if m.channel_id == channel.id
            and not m.deleted
            and m.visible_to is None
            and after < m.id < before
        ]
        found = found[:limit] if "after" in q.request.query else found[-limit:]
        return [m.payload(self.fake) for m in reversed(found)]

    async def _patch_message(self, q: RestRequest) -> JSON:
        msg = self.fake.rest.message(q)
        if msg.author is not self.fake.bot_user:
            raise ApiError(
                403, 50005, "Cannot edit a message authored by another user", failure=True
            )
        self.edit(msg, q.json, q.files)
        payload = msg.payload(self.fake)
        await self.fake.dispatch("MESSAGE_UPDATE", payload)
        return payload

    async def _delete_message(self, q: RestRequest) -> None:
        msg = self.fake.rest.message(q)
        msg.deleted = True
        await self.fake.dispatch("MESSAGE_DELETE", delete_event(msg))
