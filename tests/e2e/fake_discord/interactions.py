"""Interactions: the record of one (and waiting for its answer), the callback with Discord's
first-answer deadline (3 s unless set), followups and edits through the interaction webhook."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aiohttp import web

from .base import JSON, ApiError, FakeDiscordError, MsgFlag
from .entities import Channel, Message, User
from .limits import choice_errors, raise_form_errors
from .messages import delete_event

if TYPE_CHECKING:
    from .facade import FakeDiscord
    from .rest import AddRoute, RestRequest

# the flags a bot may set on a message it sends in answer to an interaction
ANSWER_FLAGS = MsgFlag.EPHEMERAL | MsgFlag.SUPPRESS_EMBEDS | MsgFlag.COMPONENTS_V2
# the callback types each interaction type accepts
ALLOWED_CALLBACKS = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}
TRUE_QUERY = ("1", "true", "True")


@dataclass(eq=False)
class Interaction:
    """An interaction the fake fired, and everything the bot answered to it."""

    fake: FakeDiscord
    id: int
    token: str
    type: int
    user: User
    channel: Channel
    guild_id: int | None
    payload: JSON
    created: float
    message: Message | None = None  # the clicked message, for component interactions
    callback_type: int | None = None
    callback_data: JSON | None = None
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    choices: list[JSON] | None = None
    modal: JSON | None = None
    versions_at_ack: int = 0  # len(original.history) when acknowledged

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None

    async def response(self, timeout: float = 5.0) -> int:
        """Wait for the interaction callback; return its type (4, 5, 6, 7, 8 or 9)."""
        return await self.fake.wait_until(
            lambda: self.callback_type, timeout=timeout, what=f"a callback to {self}"
        )

    def _reply_now(self) -> Message | None:
        t = self.callback_type
        if t in (4, 7):
            return self.original
        if t == 5 and self.original is not None and not self.original.loading:
            return self.original
        if (
            t == 6
            and self.original is not None
            and len(self.original.history) > self.versions_at_ack
        ):
            return self.original
        if t in (5, 6) and self.followups:
            return self.followups[0]
        if t in (8, 9):
            raise FakeDiscordError(f"{self} was answered with callback type {t}, not a message")
        return None

    async def reply(self, timeout: float = 5.0) -> Message:
        """Wait for the message the user sees in answer (see module docstring)."""
        return await self.fake.wait_until(
            self._reply_now, timeout=timeout, what=f"a reply to {self}"
        )

    async def followup(self, index: int = 0, timeout: float = 5.0) -> Message:
        """Wait for the ``index``-th followup message (a completed defer counts as original)."""

        def check() -> Message | None:
            return self.followups[index] if len(self.followups) > index else None

        return await self.fake.wait_until(
            check, timeout=timeout, what=f"followup {index} to {self}"
        )

    def __repr__(self) -> str:
        name = (self.payload.get("data") or {}).get("name") or (self.payload.get("data") or {}).get(
            "custom_id"
        )
        return f"<Interaction {self.id} type={self.type} {name!r} by {self.user.name}>"


# --------------------------------------------------------------------------- faults, records


class InteractionRoutes:
    """Fires interactions at the bot and serves its answers: callback and webhook routes."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.by_token: dict[str, Interaction] = {}

    def add_routes(self, r: AddRoute) -> None:
        r("POST /interactions/{interaction_id}/{token}/callback", self._callback)
        r("POST /webhooks/{app_id}/{token}", self._followup)
        r("GET /webhooks/{app_id}/{token}/messages/{message_id}", self._get_webhook_message)
        r("PATCH /webhooks/{app_id}/{token}/messages/{message_id}", self._patch_webhook_message)
        r("DELETE /webhooks/{app_id}/{token}/messages/{message_id}", self._delete_webhook_message)

    async def fire(
        self, payload: JSON, user: User, channel: Channel, message: Message | None
    ) -> Interaction:
        """Record the interaction and send INTERACTION_CREATE; its clock starts now."""
        ix = Interaction(
            fake=self.fake,
            id=int(payload["id"]),
            token=payload["token"],
            type=payload["type"],
            user=user,
            channel=channel,
            guild_id=channel.guild_id,
            payload=payload,
            created=asyncio.get_running_loop().time(),
            message=message,
        )
        self.fake.interactions.append(ix)
        self.fake.interactions_by_id[ix.id] = ix
        self.by_token[ix.token] = ix
        await self.fake.dispatch("INTERACTION_CREATE", payload)
        return ix

    # ----------------------------------------------------------------- the callback

    def _answerable(self, q: RestRequest) -> Interaction:
        """The interaction, if it exists, was not answered yet and is still within its deadline."""
        ix = self.fake.interactions_by_id.get(int(q.params["interaction_id"]))
        if ix is None or ix.token != q.params["token"]:
            raise ApiError(404, 10062, "Unknown interaction", failure=True)
        if ix.acknowledged:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.", failure=True)
        late = asyncio.get_running_loop().time() - ix.created
        if late > self.fake.interaction_deadline:
            raise ApiError(
                404, 10062, f"Unknown interaction (answered after {late:.2f}s)", failure=True
            )
        return ix

    def _answer(self, ix: Interaction, t: int, data: JSON, q: RestRequest) -> Message | None:
        """Apply callback type ``t``; the message it created or updated, if any."""
        messages = self.fake.message_routes
        if t == 4:
            messages.validate(data, q.files, creating=True)
            flags = int(data.get("flags") or 0) & ANSWER_FLAGS
            return messages.create(ix.channel, data, q.files, flags=flags, interaction=ix)
        if t == 5:
            flags = MsgFlag.LOADING | (int(data.get("flags") or 0) & MsgFlag.EPHEMERAL)
            return messages.create(ix.channel, {}, [], flags=flags, interaction=ix)
        if t == 7:
            assert ix.message is not None
            msg = self.fake.messages_by_id[ix.message.id]
            messages.edit(msg, data, q.files)
            return msg
        if t == 8:
            choices = data.get("choices") or []
            raise_form_errors(choice_errors(choices))
            ix.choices = choices
        elif t == 9:
            ix.modal = data
        return None

    async def _callback(self, q: RestRequest) -> web.Response | JSON:
        fake = self.fake
        ix = self._answerable(q)
        t = int(q.json.get("type", 0))
        data = q.json.get("data") or {}
        if t not in ALLOWED_CALLBACKS[ix.type]:
            raise ApiError(
                400,
                50035,
                f"callback type {t} invalid for interaction type {ix.type}",
                failure=True,
            )
        msg = self._answer(ix, t, data, q)
        ix.callback_type, ix.callback_data = t, data
        if t == 6 and ix.message is not None:
            ix.versions_at_ack = len(fake.messages_by_id[ix.message.id].history)
        ix.original = (
            msg if msg is not None else (fake.messages_by_id[ix.message.id] if ix.message else None)
        )
        if msg is not None and not msg.ephemeral and not msg.loading:
            await fake.dispatch("MESSAGE_CREATE" if t == 4 else "MESSAGE_UPDATE", msg.payload(fake))
        if q.request.query.get("with_response") not in TRUE_QUERY:
            return web.Response(status=204)
        resource: JSON = {"type": t}
        if msg is not None:
            resource["message"] = msg.payload(fake)
        return {
            "interaction": {
                "id": str(ix.id),
                "type": ix.type,
                "response_message_id": str(msg.id) if msg else None,
                "response_message_loading": t == 5,
                "response_message_ephemeral": bool(msg and msg.ephemeral),
            },
            "resource": resource,
        }

    # ----------------------------------------------------------------- the webhook

    def _webhook_ix(self, q: RestRequest) -> Interaction:
        ix = self.by_token.get(q.params["token"])
        if ix is None:
            raise ApiError(404, 10015, "Unknown Webhook", failure=True)
        if not ix.acknowledged:
            raise ApiError(
                404, 10015, "Unknown Webhook (interaction not acknowledged yet)", failure=True
            )
        return ix

    def _webhook_message(self, q: RestRequest) -> Message:
        ix = self._webhook_ix(q)
        mid = q.params["message_id"]
        if mid == "@original":
            if ix.original is None:
                raise ApiError(404, 10008, "Unknown Message", failure=True)
            return ix.original
        msg = self.fake.messages_by_id.get(int(mid))
        if msg is None or msg.deleted or (msg is not ix.original and msg not in ix.followups):
            raise ApiError(404, 10008, "Unknown Message", failure=True)
        return msg

    async def _followup(self, q: RestRequest) -> web.Response | JSON:
        fake, messages = self.fake, self.fake.message_routes
        ix = self._webhook_ix(q)
        if ix.callback_type in (8, 9):
            raise ApiError(400, 50035, "followup to an autocomplete/modal callback", failure=True)
        body = q.json
        if ix.callback_type == 5 and ix.original is not None and ix.original.loading:
            messages.edit(ix.original, body, q.files)  # the first followup completes the defer
            msg, event = ix.original, "MESSAGE_UPDATE"
        else:
            messages.validate(body, q.files, creating=True)
            flags = int(body.get("flags") or 0) & ANSWER_FLAGS
            msg = messages.create(ix.channel, body, q.files, flags=flags, interaction=ix)
            event = "MESSAGE_CREATE"
        ix.followups.append(msg)
        if not msg.ephemeral:
            await fake.dispatch(event, msg.payload(fake))
        if q.request.query.get("wait") not in TRUE_QUERY:
            return web.Response(status=204)
        return msg.payload(fake)

    def _get_webhook_message(self, q: RestRequest) -> JSON:
        return self._webhook_message(q).payload(self.fake)

    async def _patch_webhook_message(self, q: RestRequest) -> JSON:
        msg = self._webhook_message(q)
        self.fake.message_routes.edit(msg, q.json, q.files)
        if not msg.ephemeral:
            await self.fake.dispatch("MESSAGE_UPDATE", msg.payload(self.fake))
        return msg.payload(self.fake)

    async def _delete_webhook_message(self, q: RestRequest) -> None:
        msg = self._webhook_message(q)
        msg.deleted = True
        if not msg.ephemeral:
            await self.fake.dispatch("MESSAGE_DELETE", delete_event(msg))
