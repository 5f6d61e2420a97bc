"""A small fake Discord (REST v10 + gateway) on 127.0.0.1 for end-to-end tests.

The real, unmodified discord.py talks to it over HTTP and a websocket. Tests build a world
(guild, channels, roles, users), start a bot against it, act as users (slash commands, button
clicks, select menus, DM text) and assert on what the bot sent.

Quick start (see ``conftest.py`` for the fixtures ``fake``, ``world`` and ``launch_bot``)::

    async def test_setup(fake: FakeDiscord, world: World, launch_bot) -> None:
        bot = await launch_bot()                       # `python -m bot run` against the fake
        ix = await fake.slash(world.mod, "floral setup",
                              {"player1": world.alice, "player2": world.bob},
                              channel=world.channel)
        reply = await ix.reply()                       # callback message, or the deferred result
        assert not reply.ephemeral
        hello = await fake.wait_for_message(to=world.alice)
        click = await fake.click(world.alice, hello, "floral:confirm:1")
        assert "confirmed" in (await click.reply()).content
        await fake.dm_text(world.alice, "C")
        await fake.wait_for_message(lambda m: "locked" in m.content, to=world.alice)

World building (before the bot connects: the guild is sent in GUILD_CREATE):
    ``fake.build_world()`` -> :class:`World` (the ``world`` fixture), or ``add_guild``,
    ``add_channel``, ``add_role``, ``add_user``, ``add_member`` by hand.
    ``world.mod`` has Manage Server; ``world.helper`` has the role "Floral Moderator" and no
    Manage Server; ``alice``, ``bob``, ``carol`` are plain members. ``#mod-log`` is private
    (permission overwrites: moderators and the bot only); ``fake.set_overwrite(channel, role or
    user, allow=, deny=)`` changes that; ``guild.permissions_in(channel, user_id)`` computes it.

Acting as users (each needs a connected bot, else :class:`FakeDiscordError`):
    ``await fake.slash(user, "match pause", {"match": "m1"}, channel=ch)`` -> :class:`Interaction`;
        ``channel=None`` means the user's DM with the bot. Options are checked against the
        synced command (unknown/missing/wrong-type options, choices, min/max, contexts and
        ``default_member_permissions`` are enforced as Discord does; ``bypass_permissions=True``
        skips the last). Users, roles and channels may be passed as objects; they are resolved.
    ``await fake.autocomplete(user, "floral spellbook", {"match": "ab"}, focused="match")``
        -> list of choices.
    ``await fake.click(user, message, custom_id)`` / ``await fake.select(user, message,
        custom_id, ["a"])`` -> :class:`Interaction` (component interaction, full message payload).
    ``await fake.dm_text(user, "C")`` / ``await fake.say(user, channel, "hi")`` -> :class:`Message`
        (MESSAGE_CREATE; DM without guild_id). Events the bot's intents exclude are not sent
        (listed in ``fake.dropped_events``); guild text is blanked without MESSAGE_CONTENT.
    ``await fake.interact(user, 5, data, channel=ch)`` fires any other interaction (a modal submit).

Interactions (:class:`Interaction`):
    ``await ix.response()`` callback type; ``await ix.reply()`` the message the user sees (type 4
    message, the deferred message once edited/followed up, the updated message for type 7);
    ``await ix.followup(n)``; ``ix.followups``; ``ix.original``; ``ix.choices``; ``ix.modal``.

Observing (all :class:`Message` records are live: edits update them, ``history`` keeps versions):
    ``fake.messages_in(channel)`` bot posts there (no ephemerals, no deleted);
    ``fake.dms_to(user)``; ``fake.ephemerals_to(user)``; ``fake.public_texts()`` every public
    text ever shown incl. edit history; ``fake.messages`` everything;
    ``await fake.wait_for_message(pred, to=user | channel=ch, after=mark, timeout=5)``;
    ``fake.mark()`` a checkpoint for ``after``; ``await fake.wait_until(check, what=...)``;
    ``fake.requests`` / ``fake.requests_matching("POST /channels/{channel_id}/messages")``;
    ``fake.command("floral setup")`` the synced command/subcommand schema; ``fake.command_id``;
    ``fake.max_messages_per_window(channel, 5.0)``; ``await fake.settle()`` waits until the bot
    has made no request for 0.1 s (before asserting that nothing more was sent);
    ``fake.sessions[-1].intents``, ``fake.identifies``, ``fake.resumes``, ``fake.syncs``.

Faults:
    ``fake.rate_limit("POST /channels/{channel_id}/messages", times=1, retry_after=0.05)``,
    ``fake.fail("PATCH /channels/{channel_id}/messages/{message_id}", status=500, times=2)``
    (both accept ``channel=`` or ``where={param: value}``; they return a :class:`Fault` whose
    ``hits`` counts answers), ``fake.close_dms(user)`` (403 code 50007 on every DM send to that
    user until ``open_dms``), ``await fake.drop_gateway()`` (close 4000: the client RESUMEs;
    dispatches meanwhile are replayed), ``await fake.send_reconnect()`` (op 7),
    ``await fake.invalidate_session()`` (op 9: the client must IDENTIFY again).

Strictness: every request is recorded; an unimplemented route answers 404 and is recorded in
``fake.failures``, and so are invalid bodies (400 code 50035 "Invalid Form Body" with Discord's
nested ``errors``: content over 2000 characters, embed, component, select and autocomplete
limits, on every route that carries a message), interaction callbacks later than
``interaction_deadline`` or twice, unknown gateway ops. ``fake.assert_clean()`` raises on any;
the ``fake`` fixture calls it at teardown; ``fake.take_failures()`` claims expected ones.

Pointing discord.py at it: in-process, ``with point_discord_py_at(fake): ...``; a subprocess
gets ``fake.env()`` (DISCORD_TOKEN, DISCORD_API_BASE, DISCORD_GATEWAY_URL), see ``botproc.py``:
``bot = await launch_bot()`` (``python -m bot run``; waits for its IDENTIFY), ``bot.restart()``
(SIGKILL + start, same env and database), ``bot.wait_for_log(regex)``, ``bot.errors``.

Things discord.py does that tests must allow for: a 5xx is retried after 1 s, then 3 s, 5 s...
(inject one 500, not several); a re-IDENTIFY after op 9 waits 5 s (``before_identify_hook``);
``on_ready`` comes ``guild_ready_timeout`` (2 s default) after the last GUILD_CREATE, but
interactions and messages are handled before it. Guild-synced commands are not usable in DMs.
Interactions must be answered within ``FakeDiscord(interaction_deadline=3.0)`` seconds.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import re
import secrets
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from aiohttp import BodyPartReader, WSMsgType, web

log = logging.getLogger(__name__)

JSON = dict[str, Any]
T = TypeVar("T")

DISCORD_EPOCH_MS = 1_420_070_400_000


class Perm:
    """Permission bits used by the fake."""

    ADMINISTRATOR = 1 << 3
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    USE_APPLICATION_COMMANDS = 1 << 31
    ALL = (1 << 51) - 1
    MEMBER_DEFAULT = (
        VIEW_CHANNEL
        | SEND_MESSAGES
        | EMBED_LINKS
        | ATTACH_FILES
        | READ_MESSAGE_HISTORY
        | ADD_REACTIONS
        | USE_APPLICATION_COMMANDS
    )


class Intent:
    """Gateway intent bits the fake honours."""

    GUILDS = 1 << 0
    GUILD_MEMBERS = 1 << 1
    GUILD_PRESENCES = 1 << 8
    GUILD_MESSAGES = 1 << 9
    DIRECT_MESSAGES = 1 << 12
    MESSAGE_CONTENT = 1 << 15
    PRIVILEGED = GUILD_MEMBERS | GUILD_PRESENCES | MESSAGE_CONTENT


class MsgFlag:
    """Message flag bits."""

    SUPPRESS_EMBEDS = 1 << 2
    EPHEMERAL = 1 << 6
    LOADING = 1 << 7
    COMPONENTS_V2 = 1 << 15


class FakeDiscordError(AssertionError):
    """A test asked the fake for something Discord would not allow, or a wait failed."""


class ApiError(Exception):
    """An error answer of the REST API; ``failure`` marks it a bot bug to report."""

    def __init__(
        self, status: int, code: int, message: str, *, failure: bool = False, errors: Any = None
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message, self.failure, self.errors = (
            status,
            code,
            message,
            failure,
            errors,
        )


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


# --------------------------------------------------------------------------- world entities


@dataclass(eq=False)
class User:
    """A Discord user (the bot is one too)."""

    id: int
    name: str
    bot: bool = False

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.name.title(),
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }

    def __repr__(self) -> str:
        return f"<User {self.name} {self.id}>"


@dataclass(eq=False)
class Role:
    """A guild role; the @everyone role has the guild's id."""

    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(eq=False)
class Channel:
    """A guild text channel (type 0) or a DM channel with the bot (type 1)."""

    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    recipient: User | None = None
    position: int = 0
    # permission overwrites: {"id", "type" (0 role, 1 member), "allow", "deny"} as Discord sends
    overwrites: list[JSON] = field(default_factory=list)

    @property
    def is_dm(self) -> bool:
        return self.type == 1

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> JSON:
        if self.is_dm:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": 1,
                "last_message_id": None,
                "recipients": [self.recipient.payload()],
                "flags": 0,
            }
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [dict(o) for o in self.overwrites],
            "topic": None,
            "nsfw": False,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "parent_id": None,
            "flags": 0,
        }

    def __repr__(self) -> str:
        return (
            f"<Channel {'DM ' + self.recipient.name if self.recipient else '#' + str(self.name)}>"
        )


@dataclass(eq=False)
class Guild:
    """A guild with its roles, channels and members (user id -> roles)."""

    id: int
    name: str
    owner_id: int
    roles: list[Role] = field(default_factory=list)
    channels: list[Channel] = field(default_factory=list)
    members: dict[int, list[Role]] = field(default_factory=dict)
    joined_at: str = field(default_factory=_now_iso)

    @property
    def everyone(self) -> Role:
        return next(r for r in self.roles if r.id == self.id)

    def permissions_of(self, user_id: int) -> int:
        if user_id == self.owner_id:
            return Perm.ALL
        perms = self.everyone.permissions
        for role in self.members.get(user_id, []):
            perms |= role.permissions
        return Perm.ALL if perms & Perm.ADMINISTRATOR else perms

    def permissions_in(self, channel: Channel, user_id: int) -> int:
        """Discord's order: base, then @everyone's overwrite, the roles' together, the member's."""
        perms = self.permissions_of(user_id)
        if perms & Perm.ADMINISTRATOR or user_id == self.owner_id:
            return Perm.ALL
        by_id = {int(o["id"]): o for o in channel.overwrites}
        roles = [r.id for r in self.members.get(user_id, [])]
        steps = [[by_id.get(self.id)], [by_id.get(r) for r in roles], [by_id.get(user_id)]]
        for step in steps:
            found = [o for o in step if o is not None]
            deny = allow = 0
            for o in found:
                deny |= int(o["deny"])
                allow |= int(o["allow"])
            perms = (perms & ~deny) | allow
        return perms


@dataclass(eq=False)
class Attachment:
    """A file the bot uploaded."""

    id: int
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None

    def payload(self, base: str) -> JSON:
        url = f"{base}/attachments/{self.id}/{self.filename}"
        return {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": url,
            "proxy_url": url,
            "content_type": self.content_type,
            "description": self.description,
        }

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


@dataclass(eq=False)
class Message:
    """A message as the fake stores it; edits update it in place and push to ``history``."""

    id: int
    seq: int
    channel_id: int
    guild_id: int | None
    author: User
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    interaction_id: int | None = None
    visible_to: int | None = None  # user id, for ephemeral messages
    deleted: bool = False
    timestamp: str = field(default_factory=_now_iso)
    edited_timestamp: str | None = None
    history: list[JSON] = field(default_factory=list)
    type: int = 0

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & MsgFlag.EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & MsgFlag.LOADING)

    def text(self) -> str:
        """Content, embed texts and component labels flattened into one string."""
        return _flatten_text(self.snapshot())

    def snapshot(self) -> JSON:
        return {
            "content": self.content,
            "embeds": json.loads(json.dumps(self.embeds)),
            "components": json.loads(json.dumps(self.components)),
            "attachments": [a.filename for a in self.attachments],
            "flags": self.flags,
        }

    def all_texts(self) -> list[str]:
        """The text of every version of this message, oldest first."""
        return [_flatten_text(v) for v in self.history] + [self.text()]

    def iter_components(self) -> Iterator[JSON]:
        """Every component (depth first), action rows included."""
        yield from _walk_components(self.components)

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.iter_components() if "custom_id" in c]

    def component(self, custom_id: str) -> JSON:
        for comp in self.iter_components():
            if comp.get("custom_id") == custom_id:
                return comp
        raise FakeDiscordError(
            f"message {self.id} has no component {custom_id!r}: {self.custom_ids()}"
        )

    def payload(self, fake: FakeDiscord) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload(fake.base_url) for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.interaction_id is not None:
            ix = fake.interactions_by_id[self.interaction_id]
            data["webhook_id"] = str(fake.app_id)
            data["application_id"] = str(fake.app_id)
            data["interaction_metadata"] = {
                "id": str(ix.id),
                "type": ix.type,
                "user": ix.user.payload(),
                "authorizing_integration_owners": {"0": str(ix.guild_id)} if ix.guild_id else {},
            }
        return data

    def __repr__(self) -> str:
        flags = " ephemeral" if self.ephemeral else ""
        where = f"{self.id} in {self.channel_id} by {self.author.name}{flags}"
        return f"<Message {where}: {self.content[:60]!r}>"


def _walk_components(components: Sequence[JSON]) -> Iterator[JSON]:
    for comp in components:
        yield comp
        for key in ("components", "accessory"):
            inner = comp.get(key)
            if isinstance(inner, list):
                yield from _walk_components(inner)
            elif isinstance(inner, dict):
                yield from _walk_components([inner])


def _flatten_text(version: JSON) -> str:
    parts: list[str] = [version.get("content") or ""]
    for embed in version.get("embeds") or []:
        for key in ("title", "description", "url"):
            parts.append(str(embed.get(key) or ""))
        for key in ("author", "footer"):
            sub = embed.get(key) or {}
            parts.append(str(sub.get("name") or sub.get("text") or ""))
        for fld in embed.get("fields") or []:
            parts += [str(fld.get("name", "")), str(fld.get("value", ""))]
    for comp in _walk_components(version.get("components") or []):
        for key in ("label", "placeholder", "content", "title"):
            if comp.get(key):
                parts.append(str(comp[key]))
        for opt in comp.get("options") or []:
            parts += [str(opt.get("label", "")), str(opt.get("description") or "")]
    return "\n".join(p for p in parts if p)


# --------------------------------------------------------------------------- interactions


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

    def matches(self, method: str, route: str, params: Mapping[str, str]) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if (method, route) != (self.method, self.route):
            return False
        return all(params.get(k) == v for k, v in self.where.items())


@dataclass
class RecordedRequest:
    """One REST request the fake received."""

    method: str
    path: str
    route: str | None  # "METHOD /template", None when unimplemented
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    files: list[tuple[str, str, bytes]]
    time: float
    status: int = 0

    def __repr__(self) -> str:
        return f"<{self.method} {self.path} -> {self.status}>"


@dataclass(eq=False)
class _Session:
    id: str
    intents: int
    seq: int = 0
    log: list[JSON] = field(default_factory=list)
    ws: web.WebSocketResponse | None = None
    request: web.Request | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    invalid: bool = False
    dropped_by_fake: bool = False
    resumes: int = 0


@dataclass
class World:
    """The default test world (see :meth:`FakeDiscord.build_world`)."""

    guild: Guild
    channel: Channel
    mod_log: Channel
    moderator_role: Role
    floral_role: Role
    owner: User
    mod: User
    helper: User
    alice: User
    bob: User
    carol: User


# --------------------------------------------------------------------------- the server


Handler = Callable[["_Req"], Any]


@dataclass
class _Req:
    request: web.Request
    params: dict[str, str]
    body: Any
    files: list[tuple[str, str, bytes, str | None]]
    record: RecordedRequest

    @property
    def json(self) -> JSON:
        return self.body if isinstance(self.body, dict) else {}


class FakeDiscord:
    """The fake Discord server; see the module docstring for the API."""

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "floral-host",
        interaction_deadline: float = 3.0,
        heartbeat_interval_ms: int = 41_250,
    ) -> None:
        self.token = token
        self.interaction_deadline = interaction_deadline
        self.attachment_size_limit = 10 * 1024 * 1024  # bytes a message's files may hold
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self._last_id = 0
        self._seq = itertools.count(1)
        self.app_id = self.snowflake()
        self.bot_user = User(self.app_id, bot_name, bot=True)
        self.users: dict[int, User] = {self.bot_user.id: self.bot_user}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.roles: dict[int, Role] = {}
        self.dm_channels: dict[int, Channel] = {}  # user id -> DM channel
        self.messages: list[Message] = []
        self.messages_by_id: dict[int, Message] = {}
        self._by_nonce: dict[tuple[int, str], Message] = {}  # (channel, nonce) -> first message
        self.nonce_hits = 0  # resends Discord would have dropped by their nonce
        self.interactions: list[Interaction] = []
        self.interactions_by_id: dict[int, Interaction] = {}
        self._interactions_by_token: dict[str, Interaction] = {}
        self.commands: dict[int | None, dict[tuple[str, int], JSON]] = {}
        self.requests: list[RecordedRequest] = []
        self.failures: list[str] = []
        self.faults: list[Fault] = []
        self.closed_dms: set[int] = set()
        self.blocked_dms: list[tuple[User, JSON]] = []
        self.dropped_events: list[str] = []
        self.gateway_log: list[tuple[str, JSON]] = []  # (direction, frame) "in"/"out"
        self.sessions: list[_Session] = []
        self.identifies = 0
        self.resumes = 0
        self.syncs = 0
        self.world: World | None = None
        self._routes: list[tuple[str, re.Pattern[str], str, Handler]] = []
        self._waiters: set[asyncio.Future[None]] = set()
        self._abort: str | None = None
        self._in_flight = 0
        self._last_activity = 0.0
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._register_routes()

    # ----------------------------------------------------------------- lifecycle

    async def start(self, port: int = 0) -> None:
        """Listen on 127.0.0.1 (a free port unless given)."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/attachments/{id}/{name}", self._attachment)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        app.router.add_route("*", "/{tail:.*}", self._unknown)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        server = site._server
        assert server is not None and server.sockets  # type: ignore[attr-defined]
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        log.info("fake Discord listening on %s", self.base_url)

    async def stop(self) -> None:
        """Close every gateway connection and the server."""
        for session in self.sessions:
            if session.ws is not None and not session.ws.closed:
                await session.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for fut in self._waiters:
            if not fut.done():
                fut.cancel()

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    def env(self) -> dict[str, str]:
        """Environment for a bot process: token, API base and gateway URL."""
        return {
            "DISCORD_TOKEN": self.token,
            "DISCORD_API_BASE": self.api_base,
            "DISCORD_GATEWAY_URL": self.gateway_url,
        }

    # ----------------------------------------------------------------- ids and world

    def snowflake(self) -> int:
        """A new increasing snowflake based on the current time."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        self._last_id = max(self._last_id + 1, ms << 22)
        return self._last_id

    def add_guild(self, name: str, owner: User | None = None) -> Guild:
        gid = self.snowflake()
        owner = owner or self.add_user(f"{name.lower().replace(' ', '-')}-owner")
        guild = Guild(gid, name, owner.id)
        everyone = Role(gid, gid, "@everyone", Perm.MEMBER_DEFAULT, 0)
        guild.roles.append(everyone)
        self.roles[gid] = everyone
        self.guilds[gid] = guild
        self.add_member(guild, owner)
        bot_role = self.add_role(guild, self.bot_user.name, Perm.MEMBER_DEFAULT)
        self.add_member(guild, self.bot_user, [bot_role])
        return guild

    def add_channel(self, guild: Guild, name: str) -> Channel:
        channel = Channel(self.snowflake(), 0, name, guild.id, position=len(guild.channels))
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        return channel

    def add_role(self, guild: Guild, name: str, permissions: int = 0) -> Role:
        role = Role(self.snowflake(), guild.id, name, permissions, len(guild.roles))
        guild.roles.append(role)
        self.roles[role.id] = role
        return role

    def set_overwrite(
        self, channel: Channel, target: Role | User, *, allow: int = 0, deny: int = 0
    ) -> None:
        """Set (replace) the channel's permission overwrite for a role or a member.

        Only the bot's view of the guild changes with a GUILD_CREATE, so set overwrites
        before the bot connects (as for the rest of the world)."""
        kind = 0 if isinstance(target, Role) else 1
        channel.overwrites = [o for o in channel.overwrites if int(o["id"]) != target.id]
        channel.overwrites.append(
            {"id": str(target.id), "type": kind, "allow": str(allow), "deny": str(deny)}
        )

    def add_user(self, name: str) -> User:
        user = User(self.snowflake(), name)
        self.users[user.id] = user
        return user

    def add_member(self, guild: Guild, user: User, roles: Sequence[Role] = ()) -> None:
        guild.members[user.id] = list(roles)

    def build_world(self) -> World:
        """One guild "Floral Test" with #floral and #mod-log, a moderator and three players."""
        owner = self.add_user("owner")
        guild = self.add_guild("Floral Test", owner)
        channel = self.add_channel(guild, "floral")
        mod_log = self.add_channel(guild, "mod-log")
        moderator_role = self.add_role(guild, "Moderator", Perm.MANAGE_GUILD | Perm.MANAGE_MESSAGES)
        floral_role = self.add_role(guild, "Floral Moderator", 0)
        users = {name: self.add_user(name) for name in ("mod", "helper", "alice", "bob", "carol")}
        self.add_member(guild, users["mod"], [moderator_role])
        self.add_member(guild, users["helper"], [floral_role])
        for name in ("alice", "bob", "carol"):
            self.add_member(guild, users[name])
        # the moderator log is private: moderators and the bot only
        self.set_overwrite(mod_log, guild.everyone, deny=Perm.VIEW_CHANNEL)
        for role in (moderator_role, floral_role):
            self.set_overwrite(mod_log, role, allow=Perm.VIEW_CHANNEL)
        self.set_overwrite(mod_log, self.bot_user, allow=Perm.VIEW_CHANNEL | Perm.SEND_MESSAGES)
        self.world = World(guild, channel, mod_log, moderator_role, floral_role, owner, **users)
        return self.world

    def member_payload(self, guild: Guild, user: User, *, with_permissions: bool = False) -> JSON:
        data: JSON = {
            "user": user.payload(),
            "nick": None,
            "avatar": None,
            "banner": None,
            "roles": [str(r.id) for r in guild.members[user.id]],
            "joined_at": guild.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_permissions:
            data["permissions"] = str(guild.permissions_of(user.id))
        return data

    def guild_payload(self, guild: Guild, intents: int) -> JSON:
        members = [
            self.member_payload(guild, self.users[uid])
            for uid in guild.members
            if intents & Intent.GUILD_MEMBERS or uid == self.bot_user.id
        ]
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": "en-US",
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "vanity_url_code": None,
            "application_id": None,
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": [r.payload() for r in guild.roles],
            "joined_at": guild.joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(guild.members),
            "members": members,
            "channels": [c.payload() for c in guild.channels],
            "threads": [],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def dm_channel(self, user: User) -> Channel:
        """The user's DM channel with the bot (created if needed, as Discord does)."""
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = Channel(self.snowflake(), 1, recipient=user)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def close_dms(self, user: User) -> None:
        """Every message the bot sends to this user's DMs fails with 403 code 50007."""
        self.closed_dms.add(user.id)

    def open_dms(self, user: User) -> None:
        self.closed_dms.discard(user.id)

    # ----------------------------------------------------------------- waiting

    def _notify(self) -> None:
        for fut in self._waiters:
            if not fut.done():
                fut.set_result(None)

    def abort(self, reason: str) -> None:
        """Make every current and future wait fail at once (e.g. the bot process died)."""
        self._abort = reason
        self.failures.append(reason)
        self._notify()

    async def wait_until(
        self, check: Callable[[], T | None], *, timeout: float = 5.0, what: str = "a condition"
    ) -> T:
        """Wait until ``check()`` returns something truthy (re-checked on every change)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if self._abort:
                raise FakeDiscordError(f"aborted while waiting for {what}: {self._abort}")
            result = check()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise FakeDiscordError(
                    f"timed out after {timeout}s waiting for {what}\n{self.summary()}"
                )
            fut: asyncio.Future[None] = loop.create_future()
            self._waiters.add(fut)
            try:
                await asyncio.wait_for(fut, remaining)
            except TimeoutError:
                pass
            finally:
                self._waiters.discard(fut)

    async def settle(self, idle: float = 0.1, timeout: float = 10.0) -> None:
        """Wait until no REST request is in flight and none came for ``idle`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            quiet = loop.time() - self._last_activity
            if self._in_flight == 0 and quiet >= idle:
                return
            if loop.time() > deadline:
                raise FakeDiscordError(
                    f"the bot did not settle within {timeout}s\n{self.summary()}"
                )
            await asyncio.sleep(max(idle - quiet, 0.01))

    def summary(self, last: int = 12) -> str:
        """Recent messages, requests and failures, for error messages."""
        lines = ["recent messages:"]
        for m in self.messages[-last:]:
            where = self.channels.get(m.channel_id)
            lines.append(f"  #{m.seq} {where!r} {m.author.name}: {m.text()[:120]!r}")
        lines.append("recent requests:")
        lines += [f"  {r.method} {r.path} -> {r.status}" for r in self.requests[-last:]]
        if self.dropped_events:
            lines.append(f"events not delivered (intents): {self.dropped_events[-last:]}")
        if self.failures:
            lines.append(f"failures: {self.failures}")
        return "\n".join(lines)

    def mark(self) -> int:
        """A checkpoint: ``wait_for_message(after=mark)`` only sees later messages."""
        return self.messages[-1].seq if self.messages else 0

    async def wait_for_message(
        self,
        predicate: Callable[[Message], bool] | None = None,
        *,
        to: User | None = None,
        channel: Channel | None = None,
        after: int | Message | None = None,
        timeout: float = 5.0,
        include_ephemeral: bool = False,
    ) -> Message:
        """The first bot message (in ``channel`` / DMs ``to`` a user, after a mark) matching."""
        if to is not None:
            channel = self.dm_channel(to)
        floor = after.seq if isinstance(after, Message) else (after or 0)

        def check() -> Message | None:
            for m in self.messages:
                if m.seq <= floor or m.deleted or m.author is not self.bot_user or m.loading:
                    continue
                if channel is not None and m.channel_id != channel.id:
                    continue
                if m.ephemeral and not include_ephemeral:
                    continue
                if predicate is None or predicate(m):
                    return m
            return None

        return await self.wait_until(check, timeout=timeout, what=f"a message to {channel!r}")

    async def wait_for_session(self, *, after: int = 0, timeout: float = 10.0) -> None:
        """Wait until more than ``after`` IDENTIFYs were answered with READY and guilds."""
        await self.wait_until(
            lambda: self.identifies > after, timeout=timeout, what=f"IDENTIFY number {after + 1}"
        )

    async def wait_for_resume(self, *, after: int = 0, timeout: float = 10.0) -> None:
        await self.wait_until(
            lambda: self.resumes > after, timeout=timeout, what=f"RESUME number {after + 1}"
        )

    # ----------------------------------------------------------------- observing

    def _visible(self, m: Message, channel: Channel, include_ephemeral: bool) -> bool:
        return (
            m.channel_id == channel.id
            and not m.deleted
            and m.author is self.bot_user
            and (include_ephemeral or not m.ephemeral)
        )

    def messages_in(self, channel: Channel, *, include_ephemeral: bool = False) -> list[Message]:
        """The bot's messages in a channel, oldest first (deleted ones left out)."""
        return [m for m in self.messages if self._visible(m, channel, include_ephemeral)]

    def dms_to(self, user: User) -> list[Message]:
        """The bot's messages in the user's DM channel, oldest first."""
        channel = self.dm_channels.get(user.id)
        return [] if channel is None else self.messages_in(channel, include_ephemeral=True)

    def ephemerals_to(self, user: User) -> list[Message]:
        return [m for m in self.messages if m.ephemeral and m.visible_to == user.id]

    def public_texts(self) -> list[str]:
        """Every text version of every non-ephemeral bot message in guild channels."""
        return [
            text
            for m in self.messages
            if m.guild_id is not None and m.author is self.bot_user and not m.ephemeral
            for text in m.all_texts()
        ]

    def max_messages_per_window(self, channel: Channel, window: float = 5.0) -> int:
        """The most bot messages created in ``channel`` within any ``window`` seconds."""
        times = sorted(
            (m.id >> 22) / 1000
            for m in self.messages
            if m.channel_id == channel.id and m.author is self.bot_user
        )
        best, start = 0, 0
        for end, t in enumerate(times):
            while t - times[start] >= window:
                start += 1
            best = max(best, end - start + 1)
        return best

    def requests_matching(self, route: str, **where: object) -> list[RecordedRequest]:
        """Requests to ``"METHOD /template"`` whose path params equal ``where``."""
        self._check_route(route)
        want = {k: str(getattr(v, "id", v)) for k, v in where.items()}
        return [
            r
            for r in self.requests
            if r.route == route and all(r.params.get(k) == v for k, v in want.items())
        ]

    def take_failures(self) -> list[str]:
        """Return and forget the recorded failures (for tests that provoke them)."""
        taken, self.failures = self.failures, []
        self._abort = None
        return taken

    def assert_clean(self) -> None:
        """Raise if anything unexpected happened (unimplemented routes, bad bodies...)."""
        if self.failures:
            raise FakeDiscordError(
                "fake Discord recorded failures:\n  " + "\n  ".join(self.failures)
            )

    # ----------------------------------------------------------------- commands

    def registered_commands(self, guild: Guild | None = None) -> list[JSON]:
        return list(self.commands.get(guild.id if guild else None, {}).values())

    def _find_command(self, name: str, guild_id: int | None, ctype: int = 1) -> JSON | None:
        scopes: list[int | None] = [guild_id, None] if guild_id is not None else [None]
        for scope in scopes:
            cmd = self.commands.get(scope, {}).get((name, ctype))
            if cmd is not None:
                return cmd
        return None

    def command(self, path: str, guild: Guild | None = None) -> JSON:
        """The synced schema of ``"floral"`` or a subcommand such as ``"floral setup"``."""
        parts = path.split()
        cmd = self._find_command(parts[0], guild.id if guild else None)
        if cmd is None and guild is None:
            cmd = next(
                (
                    c
                    for cmds in self.commands.values()
                    for (n, t), c in cmds.items()
                    if n == parts[0] and t == 1
                ),
                None,
            )
        if cmd is None:
            raise KeyError(f"no command /{parts[0]} synced; have {self._command_names()}")
        node = cmd
        for part in parts[1:]:
            node = next(
                (o for o in node.get("options") or [] if o["name"] == part and o["type"] in (1, 2)),
                {},
            )
            if not node:
                raise KeyError(f"/{path}: no subcommand {part!r}")
        return node

    def command_id(self, name: str, guild: Guild | None = None) -> int:
        return int(self.command(name.split()[0], guild)["id"])

    def _command_names(self) -> list[str]:
        return sorted(
            f"{n}" + (f" (guild {g})" if g else "")
            for g, cmds in self.commands.items()
            for n, _ in cmds
        )

    # ----------------------------------------------------------------- acting as users

    def _require_bot(self) -> None:
        live = [
            s for s in self.sessions if not s.invalid and (s.ws is not None or s.dropped_by_fake)
        ]
        if not live:
            raise FakeDiscordError(
                "no bot is connected to the gateway (wait for it: fake.wait_for_session())"
            )

    def _interaction_base(self, itype: int, user: User, channel: Channel) -> JSON:
        payload: JSON = {
            "id": str(self.snowflake()),
            "application_id": str(self.app_id),
            "type": itype,
            "token": "ix." + secrets.token_urlsafe(24),
            "version": 1,
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": self.attachment_size_limit,
            "channel_id": str(channel.id),
            "channel": channel.payload(),
        }
        if channel.is_dm:
            if channel.recipient is not user:
                raise FakeDiscordError(f"{user!r} cannot act in {channel!r}")
            payload["user"] = user.payload()
            payload["context"] = 1
            payload["authorizing_integration_owners"] = {"0": str(user.id)}
        else:
            assert channel.guild_id is not None
            guild = self.guilds[channel.guild_id]
            if user.id not in guild.members:
                raise FakeDiscordError(f"{user!r} is not a member of {guild.name}")
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": "en-US", "features": []},
                guild_locale="en-US",
                member=self.member_payload(guild, user, with_permissions=True),
                app_permissions=str(guild.permissions_of(self.bot_user.id)),
                context=0,
                authorizing_integration_owners={"0": str(guild.id)},
            )
        return payload

    async def _fire(
        self, payload: JSON, user: User, channel: Channel, message: Message | None
    ) -> Interaction:
        ix = Interaction(
            fake=self,
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
        self.interactions.append(ix)
        self.interactions_by_id[ix.id] = ix
        self._interactions_by_token[ix.token] = ix
        await self.dispatch("INTERACTION_CREATE", payload)
        return ix

    async def interact(
        self,
        user: User,
        itype: int,
        data: JSON,
        *,
        channel: Channel | None = None,
        message: Message | None = None,
    ) -> Interaction:
        """Fire a raw interaction of type ``itype`` with ``data`` (e.g. a modal submit, type 5)."""
        self._require_bot()
        channel = channel or self.dm_channel(user)
        payload = self._interaction_base(itype, user, channel)
        payload["data"] = data
        if message is not None:
            payload["message"] = message.payload(self)
        return await self._fire(payload, user, channel, message)

    def _command_for(self, user: User, path: str, channel: Channel, bypass: bool) -> JSON:
        parts = path.split()
        cmd = self._find_command(parts[0], channel.guild_id)
        if cmd is None:
            raise FakeDiscordError(
                f"/{parts[0]} is not available in {channel!r}; synced: {self._command_names()}"
            )
        contexts = cmd.get("contexts")
        if channel.is_dm:
            allowed = (
                1 in contexts
                if contexts is not None
                else cmd.get("dm_permission", True) is not False
            )
            if not allowed:
                raise FakeDiscordError(f"/{parts[0]} cannot be used in DMs")
        else:
            if contexts is not None and 0 not in contexts:
                raise FakeDiscordError(f"/{parts[0]} cannot be used in guilds")
            need = cmd.get("default_member_permissions")
            if need is not None and not bypass:
                guild = self.guilds[channel.guild_id]  # type: ignore[index]
                have = guild.permissions_of(user.id)
                if (int(need) == 0 and not have & Perm.ADMINISTRATOR) or (have & int(need)) != int(
                    need
                ):
                    raise FakeDiscordError(
                        f"Discord hides /{parts[0]} from {user.name}: needs permissions {need}"
                    )
        return cmd

    async def slash(
        self,
        user: User,
        path: str,
        options: Mapping[str, Any] | None = None,
        *,
        channel: Channel | None = None,
        bypass_permissions: bool = False,
    ) -> Interaction:
        """Fire the slash command ``path`` ("match pause") as ``user`` in ``channel`` or DMs."""
        self._require_bot()
        channel = channel or self.dm_channel(user)
        cmd = self._command_for(user, path, channel, bypass_permissions)
        resolved: JSON = {}
        data: JSON = {"id": cmd["id"], "name": cmd["name"], "type": 1}
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        data["options"] = self._options_for(
            cmd, path.split()[1:], dict(options or {}), channel, resolved
        )
        if resolved:
            data["resolved"] = resolved
        payload = self._interaction_base(2, user, channel)
        payload["data"] = data
        return await self._fire(payload, user, channel, None)

    async def autocomplete(
        self,
        user: User,
        path: str,
        options: Mapping[str, Any],
        *,
        focused: str,
        channel: Channel | None = None,
        timeout: float = 5.0,
    ) -> list[JSON]:
        """Fire an autocomplete interaction; return the choices the bot offered."""
        self._require_bot()
        channel = channel or self.dm_channel(user)
        cmd = self._command_for(user, path, channel, True)
        parts = path.split()
        node = self.command(path, self.guilds.get(channel.guild_id or 0))
        schema = {o["name"]: o for o in node.get("options") or []}
        if focused not in schema or not schema[focused].get("autocomplete"):
            raise FakeDiscordError(f"/{path} option {focused!r} has no autocomplete")
        leaf = [
            {
                "name": k,
                "type": schema[k]["type"],
                "value": str(v),
                **({"focused": True} if k == focused else {}),
            }
            for k, v in options.items()
        ]
        data: JSON = {"id": cmd["id"], "name": cmd["name"], "type": 1}
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        data["options"] = self._nest(cmd, parts[1:], leaf)
        payload = self._interaction_base(4, user, channel)
        payload["data"] = data
        ix = await self._fire(payload, user, channel, None)
        await ix.response(timeout)
        return ix.choices or []

    def _nest(self, cmd: JSON, subpath: list[str], leaf: list[JSON]) -> list[JSON]:
        """Wrap leaf options in the subcommand group/subcommand options of ``subpath``."""
        nodes: list[JSON] = []
        node = cmd
        for part in subpath:
            found = next(
                (o for o in node.get("options") or [] if o["name"] == part and o["type"] in (1, 2)),
                None,
            )
            if found is None:
                raise FakeDiscordError(f"/{cmd['name']} has no subcommand {part!r}")
            nodes.append(found)
            node = found
        if any(o["type"] in (1, 2) for o in node.get("options") or []):
            names = [o["name"] for o in node["options"]]
            raise FakeDiscordError(
                f"/{cmd['name']} {' '.join(subpath)}: pick a subcommand of {names}"
            )
        options = leaf
        for found in reversed(nodes):
            options = [{"name": found["name"], "type": found["type"], "options": options}]
        return options

    def _options_for(
        self, cmd: JSON, subpath: list[str], given: dict[str, Any], channel: Channel, resolved: JSON
    ) -> list[JSON]:
        node = cmd
        for part in subpath:
            node = next(
                (o for o in node.get("options") or [] if o["name"] == part and o["type"] in (1, 2)),
                {},
            )
        schema = {o["name"]: o for o in node.get("options") or [] if o["type"] not in (1, 2)}
        label = f"/{cmd['name']} {' '.join(subpath)}".strip()
        leaf = []
        for name, value in given.items():
            if name not in schema:
                raise FakeDiscordError(f"{label} has no option {name!r}; options: {list(schema)}")
            opt = schema[name]
            leaf.append(
                {
                    "name": name,
                    "type": opt["type"],
                    "value": self._value(label, opt, value, channel, resolved),
                }
            )
        missing = [n for n, o in schema.items() if o.get("required") and n not in given]
        if missing:
            raise FakeDiscordError(f"{label}: required options missing: {missing}")
        return self._nest(cmd, subpath, leaf)

    def _value(self, label: str, opt: JSON, value: Any, channel: Channel, resolved: JSON) -> Any:
        t, name = opt["type"], f"{label} {opt['name']}"
        guild = self.guilds.get(channel.guild_id or 0)
        if t == 3:
            if not isinstance(value, str):
                raise FakeDiscordError(f"{name}: a string is needed, got {value!r}")
            if not opt.get("min_length", 0) <= len(value) <= opt.get("max_length", 6000):
                raise FakeDiscordError(f"{name}: length out of bounds")
        elif t in (4, 10):
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or (t == 4 and not isinstance(value, int))
            ):
                raise FakeDiscordError(f"{name}: a number is needed, got {value!r}")
            if ("min_value" in opt and value < opt["min_value"]) or (
                "max_value" in opt and value > opt["max_value"]
            ):
                raise FakeDiscordError(
                    f"{name}: {value} is out of [{opt.get('min_value')}, {opt.get('max_value')}]"
                )
        elif t == 5:
            if not isinstance(value, bool):
                raise FakeDiscordError(f"{name}: a bool is needed, got {value!r}")
        elif t in (6, 9) and isinstance(value, User):
            resolved.setdefault("users", {})[str(value.id)] = value.payload()
            if guild is not None and value.id in guild.members:
                member = self.member_payload(guild, value, with_permissions=True)
                del member["user"]
                resolved.setdefault("members", {})[str(value.id)] = member
            return str(value.id)
        elif t in (8, 9) and isinstance(value, Role):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        elif t == 7 and isinstance(value, Channel):
            resolved.setdefault("channels", {})[str(value.id)] = {
                **value.payload(),
                "permissions": str(guild.permissions_of(self.bot_user.id) if guild else Perm.ALL),
            }
            return str(value.id)
        else:
            raise FakeDiscordError(f"{name}: unsupported value {value!r} for option type {t}")
        if opt.get("choices") and value not in [c["value"] for c in opt["choices"]]:
            raise FakeDiscordError(f"{name}: {value!r} is not one of the choices {opt['choices']}")
        return value

    def _component_target(
        self, user: User, message: Message, custom_id: str
    ) -> tuple[Channel, JSON]:
        self._require_bot()
        current = self.messages_by_id.get(message.id)
        if current is None or current.deleted:
            raise FakeDiscordError(f"{message!r} no longer exists")
        if current.visible_to is not None and current.visible_to != user.id:
            raise FakeDiscordError(f"{user.name} cannot see ephemeral {message!r}")
        channel = self.channels[current.channel_id]
        if channel.is_dm and channel.recipient is not user:
            raise FakeDiscordError(f"{user.name} cannot click in {channel!r}")
        comp = current.component(custom_id)
        if comp.get("disabled"):
            raise FakeDiscordError(f"component {custom_id!r} is disabled")
        return channel, comp

    async def click(self, user: User, message: Message, custom_id: str) -> Interaction:
        """Click the button ``custom_id`` on ``message`` as ``user``."""
        channel, comp = self._component_target(user, message, custom_id)
        if comp.get("type") != 2:
            raise FakeDiscordError(f"{custom_id!r} is not a button: {comp}")
        payload = self._interaction_base(3, user, channel)
        payload["data"] = {"custom_id": custom_id, "component_type": 2}
        payload["message"] = message.payload(self)
        return await self._fire(payload, user, channel, message)

    async def select(
        self, user: User, message: Message, custom_id: str, values: Sequence[str]
    ) -> Interaction:
        """Choose ``values`` in the string select menu ``custom_id`` on ``message``."""
        channel, comp = self._component_target(user, message, custom_id)
        if comp.get("type") != 3:
            raise FakeDiscordError(f"{custom_id!r} is not a string select: {comp}")
        allowed = [o["value"] for o in comp.get("options") or []]
        bad = [v for v in values if v not in allowed]
        if bad:
            raise FakeDiscordError(f"{custom_id!r} has no options {bad}; options: {allowed}")
        if not comp.get("min_values", 1) <= len(values) <= comp.get("max_values", 1):
            raise FakeDiscordError(f"{custom_id!r}: {len(values)} values out of the allowed range")
        payload = self._interaction_base(3, user, channel)
        payload["data"] = {"custom_id": custom_id, "component_type": 3, "values": list(values)}
        payload["message"] = message.payload(self)
        return await self._fire(payload, user, channel, message)

    def _user_message(self, user: User, channel: Channel, content: str) -> Message:
        msg = Message(
            id=self.snowflake(),
            seq=next(self._seq),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=user,
            content=content,
        )
        self.messages.append(msg)
        self.messages_by_id[msg.id] = msg
        return msg

    async def dm_text(self, user: User, content: str) -> Message:
        """``user`` writes ``content`` in their DM channel with the bot."""
        self._require_bot()
        msg = self._user_message(user, self.dm_channel(user), content)
        await self.dispatch("MESSAGE_CREATE", msg.payload(self))
        return msg

    async def say(self, user: User, channel: Channel, content: str) -> Message:
        """``user`` writes ``content`` in a guild channel (content needs the privileged intent)."""
        self._require_bot()
        msg = self._user_message(user, channel, content)
        payload = msg.payload(self)
        guild = self.guilds[channel.guild_id]  # type: ignore[index]
        payload["member"] = {
            k: v for k, v in self.member_payload(guild, user).items() if k != "user"
        }
        await self.dispatch("MESSAGE_CREATE", payload)
        return msg

    # ----------------------------------------------------------------- faults

    def _check_route(self, route: str) -> None:
        if route not in {r[2] for r in self._routes}:
            raise ValueError(
                f"unknown route {route!r}; known: {sorted({r[2] for r in self._routes})}"
            )

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
    ) -> Fault:
        """The next ``times`` requests to ``"METHOD /template"`` answer ``status``."""
        self._check_route(route)
        method = route.split(" ", 1)[0]
        cond = {k: str(getattr(v, "id", v)) for k, v in (where or {}).items()}
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
        )
        self.faults.append(fault)
        return fault

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
        bucket = re.sub(r"\W", "", route)[:32]
        headers = {
            "Via": "1.1 google",
            "Retry-After": str(max(1, round(retry_after))),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Bucket": bucket,
            "X-RateLimit-Scope": "global" if is_global else "user",
        }
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        body = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": is_global,
            "code": 0,
        }
        return self.fail(
            route, status=429, times=times, channel=channel, where=where, headers=headers, body=body
        )

    async def drop_gateway(self, code: int = 4000) -> None:
        """Close every gateway connection with ``code``; the client should RESUME."""
        for session in self.sessions:
            if session.ws is not None and not session.ws.closed:
                session.dropped_by_fake = True
                ws, session.ws = session.ws, None
                await ws.close(code=code, message=b"fake drop")
        self._notify()

    async def send_reconnect(self) -> None:
        """Send op 7 RECONNECT on every live connection (the client reconnects and RESUMEs)."""
        for session in self.sessions:
            if session.ws is not None and not session.ws.closed:
                session.dropped_by_fake = True
                await self._send(session.ws, {"op": 7, "d": None, "s": None, "t": None})

    async def invalidate_session(self) -> None:
        """Send op 9 (not resumable) on every live connection; the client IDENTIFYs anew."""
        for session in self.sessions:
            if session.ws is not None and not session.ws.closed:
                session.invalid = True
                await self._send(session.ws, {"op": 9, "d": False, "s": None, "t": None})

    # ----------------------------------------------------------------- gateway

    async def _send(self, ws: web.WebSocketResponse, frame: JSON) -> None:
        self.gateway_log.append(("out", frame))
        try:
            await ws.send_str(json.dumps(frame))
        except (ConnectionError, RuntimeError) as exc:
            log.debug("gateway send failed: %s", exc)

    def _wants(self, session: _Session, event: str, data: JSON) -> bool:
        if event.startswith("MESSAGE_"):
            bit = Intent.GUILD_MESSAGES if data.get("guild_id") else Intent.DIRECT_MESSAGES
            return bool(session.intents & bit)
        if event.startswith("GUILD_"):
            return bool(session.intents & Intent.GUILDS)
        return True

    async def dispatch(self, event: str, data: JSON) -> None:
        """Send a dispatch to every live session (buffered for RESUME if disconnected)."""
        for session in self.sessions:
            if session.invalid:
                continue
            if not self._wants(session, event, data):
                self.dropped_events.append(f"{event} (intents {session.intents})")
                continue
            frame_data = data
            if (
                event == "MESSAGE_CREATE"
                and data.get("guild_id")
                and data["author"]["id"] != str(self.bot_user.id)
                and not session.intents & Intent.MESSAGE_CONTENT
                and f"<@{self.bot_user.id}>" not in data.get("content", "")
            ):
                frame_data = {
                    **data,
                    "content": "",
                    "embeds": [],
                    "attachments": [],
                    "components": [],
                }
            async with session.lock:
                session.seq += 1
                frame = {"op": 0, "t": event, "s": session.seq, "d": frame_data}
                session.log.append(frame)
                if session.ws is not None and not session.ws.closed:
                    await self._send(session.ws, frame)

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        query = dict(request.query)
        if query.get("v") != "10" or query.get("encoding") != "json":
            self.failures.append(f"gateway connected with unexpected query {query}")
        await self._send(
            ws,
            {
                "op": 10,
                "d": {"heartbeat_interval": self.heartbeat_interval_ms},
                "s": None,
                "t": None,
            },
        )
        session: _Session | None = None
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    if msg.type == WSMsgType.BINARY:
                        self.failures.append("gateway: client sent a binary frame")
                    continue
                frame = json.loads(msg.data)
                self.gateway_log.append(("in", frame))
                op, d = frame.get("op"), frame.get("d")
                if op == 1:
                    await self._send(ws, {"op": 11, "d": None, "s": None, "t": None})
                elif op == 2:
                    session = await self._identify(ws, request, d)
                elif op == 6:
                    session = await self._resume(ws, request, d)
                elif op == 3:
                    pass  # presence update
                elif op == 8:
                    await self._member_chunk(ws, d, session)
                else:
                    self.failures.append(f"gateway: unexpected op {op}: {frame}")
                self._notify()
        finally:
            if session is not None and session.ws is ws:
                session.ws = None
            self._notify()
        return ws

    async def _identify(
        self, ws: web.WebSocketResponse, request: web.Request, d: JSON
    ) -> _Session | None:
        if d.get("token") not in (self.token, f"Bot {self.token}"):
            self.failures.append("gateway: IDENTIFY with a wrong token")
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        intents = int(d.get("intents", 0))
        session = _Session(id=secrets.token_hex(16), intents=intents, ws=ws, request=request)
        self.sessions.append(session)
        guilds = [g for g in self.guilds.values() if self.bot_user.id in g.members]
        ready = {
            "v": 10,
            "user": {
                **self.bot_user.payload(),
                "verified": True,
                "mfa_enabled": False,
                "email": None,
            },
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.app_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "shard": d.get("shard", [0, 1]),
        }
        await self.dispatch_to(session, "READY", ready)
        for guild in guilds:
            if intents & Intent.GUILDS:
                await self.dispatch_to(session, "GUILD_CREATE", self.guild_payload(guild, intents))
        self.identifies += 1
        log.info("gateway: IDENTIFY (intents %s), session %s", intents, session.id)
        return session

    async def dispatch_to(self, session: _Session, event: str, data: JSON) -> None:
        async with session.lock:
            session.seq += 1
            frame = {"op": 0, "t": event, "s": session.seq, "d": data}
            session.log.append(frame)
            if session.ws is not None:
                await self._send(session.ws, frame)

    async def _resume(
        self, ws: web.WebSocketResponse, request: web.Request, d: JSON
    ) -> _Session | None:
        session = next((s for s in self.sessions if s.id == d.get("session_id")), None)
        if (
            session is None
            or session.invalid
            or d.get("token") not in (self.token, f"Bot {self.token}")
        ):
            await self._send(ws, {"op": 9, "d": False, "s": None, "t": None})
            return None
        old = session.ws
        if old is not None and old is not ws and not old.closed:
            await old.close(code=4000)
        async with session.lock:
            session.ws, session.request, session.dropped_by_fake = ws, request, False
            last = int(d.get("seq") or 0)
            replay = [f for f in session.log if f["s"] > last]
            for frame in replay:
                await self._send(ws, frame)
            session.seq += 1
            resumed = {"op": 0, "t": "RESUMED", "s": session.seq, "d": {}}
            session.log.append(resumed)
            await self._send(ws, resumed)
        session.resumes += 1
        self.resumes += 1
        log.info(
            "gateway: RESUME session %s from seq %s, replayed %d", session.id, last, len(replay)
        )
        return session

    async def _member_chunk(
        self, ws: web.WebSocketResponse, d: JSON, session: _Session | None
    ) -> None:
        guild = self.guilds.get(int(d.get("guild_id", 0)))
        if guild is None or session is None:
            self.failures.append(f"gateway: bad REQUEST_GUILD_MEMBERS {d}")
            return
        members = [self.member_payload(guild, self.users[uid]) for uid in guild.members]
        chunk = {
            "guild_id": str(guild.id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
            "nonce": d.get("nonce"),
        }
        await self.dispatch_to(session, "GUILD_MEMBERS_CHUNK", chunk)

    # ----------------------------------------------------------------- REST plumbing

    def _route(self, route: str, handler: Handler) -> None:
        method, template = route.split(" ", 1)

        def param(m: re.Match[str]) -> str:
            name = m[1]
            if name == "message_id" and template.startswith("/webhooks/"):
                return rf"(?P<{name}>\d+|@original)"
            return rf"(?P<{name}>\d+)" if name.endswith("_id") else rf"(?P<{name}>[^/]+)"

        pattern = "^" + re.sub(r"\\\{(\w+)\\\}", param, re.escape(template)) + "$"
        self._routes.append((method, re.compile(pattern), route, handler))

    def _register_routes(self) -> None:
        r = self._route
        r("GET /gateway", self._get_gateway)
        r("GET /gateway/bot", self._get_gateway)
        r("GET /users/@me", lambda q: self.bot_user.payload())
        r("GET /oauth2/applications/@me", self._get_application)
        r("POST /users/@me/channels", self._create_dm)
        r("GET /users/{user_id}", self._get_user)
        for scope in ("", "/guilds/{guild_id}"):
            base = f"/applications/{{app_id}}{scope}/commands"
            r(f"GET {base}", self._get_commands)
            r(f"PUT {base}", self._put_commands)
            r(f"POST {base}", self._post_command)
            r(f"GET {base}/{{command_id}}", self._get_command)
            r(f"PATCH {base}/{{command_id}}", self._patch_command)
            r(f"DELETE {base}/{{command_id}}", self._delete_command)
        r("GET /guilds/{guild_id}", lambda q: self.guild_payload(self._guild(q), 0))
        r(
            "GET /guilds/{guild_id}/channels",
            lambda q: [c.payload() for c in self._guild(q).channels],
        )
        r("GET /guilds/{guild_id}/roles", lambda q: [x.payload() for x in self._guild(q).roles])
        r("GET /guilds/{guild_id}/members/{user_id}", self._get_member)
        r("GET /channels/{channel_id}", lambda q: self._channel(q).payload())
        r("POST /channels/{channel_id}/typing", lambda q: None)
        r("GET /channels/{channel_id}/messages", self._get_messages)
        r("POST /channels/{channel_id}/messages", self._post_message)
        r(
            "GET /channels/{channel_id}/messages/{message_id}",
            lambda q: self._message(q).payload(self),
        )
        r("PATCH /channels/{channel_id}/messages/{message_id}", self._patch_message)
        r("DELETE /channels/{channel_id}/messages/{message_id}", self._delete_message)
        r("POST /interactions/{interaction_id}/{token}/callback", self._callback)
        r("POST /webhooks/{app_id}/{token}", self._followup)
        r("GET /webhooks/{app_id}/{token}/messages/{message_id}", self._get_webhook_message)
        r("PATCH /webhooks/{app_id}/{token}/messages/{message_id}", self._patch_webhook_message)
        r("DELETE /webhooks/{app_id}/{token}/messages/{message_id}", self._delete_webhook_message)

    def _match_route(self, method: str, path: str) -> tuple[str, dict[str, str], Handler] | None:
        for verb, pattern, route, handler in self._routes:
            match = pattern.match(path)
            if verb == method and match:
                return route, match.groupdict(), handler
        return None

    @staticmethod
    def _json_response(
        data: Any, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> web.Response:
        if data is None and status == 200:
            return web.Response(status=204, headers=headers)
        hdrs = {"Content-Type": "application/json", **(headers or {})}
        return web.Response(status=status, body=json.dumps(data).encode(), headers=hdrs)

    async def _unknown(self, request: web.Request) -> web.Response:
        self.failures.append(f"request outside the API: {request.method} {request.path}")
        self._notify()
        return self._json_response({"message": "404: Not Found", "code": 0}, 404)

    async def _attachment(self, request: web.Request) -> web.Response:
        for m in self.messages:
            for a in m.attachments:
                if str(a.id) == request.match_info["id"]:
                    return web.Response(
                        body=a.data, content_type=a.content_type or "application/octet-stream"
                    )
        return web.Response(status=404)

    async def _read_body(
        self, request: web.Request
    ) -> tuple[Any, list[tuple[str, str, bytes, str | None]]]:
        files: list[tuple[str, str, bytes, str | None]] = []
        if request.content_type.startswith("multipart/"):
            payload: Any = None
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                if not isinstance(part, BodyPartReader):
                    raise ApiError(400, 50035, "nested multipart", failure=True)
                data = await part.read(decode=False)
                if part.name == "payload_json":
                    payload = json.loads(data)
                else:
                    ctype = part.headers.get("Content-Type")
                    files.append((part.name or "", part.filename or "", bytes(data), ctype))
            return payload, files
        raw = await request.read()
        if not raw:
            return None, files
        if request.content_type == "application/json":
            return json.loads(raw), files
        return raw.decode(errors="replace"), files

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        body, files = await self._read_body(request)
        record = RecordedRequest(
            request.method,
            path,
            None,
            {},
            dict(request.query),
            body,
            [(n, f, d) for n, f, d, _ in files],
            asyncio.get_running_loop().time(),
        )
        self.requests.append(record)
        self._in_flight += 1
        try:
            response = await self._handle(request, path, body, files, record)
        finally:
            self._in_flight -= 1
            self._last_activity = asyncio.get_running_loop().time()
            self._notify()
        record.status = response.status
        return response

    async def _handle(
        self,
        request: web.Request,
        path: str,
        body: Any,
        files: list[tuple[str, str, bytes, str | None]],
        record: RecordedRequest,
    ) -> web.Response:
        found = self._match_route(request.method, path)
        if found is None:
            self.failures.append(f"unimplemented route: {request.method} {path}")
            log.error("fake Discord: unimplemented route %s %s", request.method, path)
            return self._json_response({"message": "404: Not Found", "code": 0}, 404)
        route, record.params, handler = found
        record.route = route
        token_auth = "/interactions/" in route or "/webhooks/" in route  # the token is the auth
        if not token_auth and request.headers.get("Authorization") != f"Bot {self.token}":
            self.failures.append(f"{route}: missing or wrong Authorization header")
            return self._json_response({"message": "401: Unauthorized", "code": 0}, 401)
        if "app_id" in record.params and record.params["app_id"] != str(self.app_id):
            self.failures.append(f"{route}: wrong application id {record.params['app_id']}")
            return self._json_response({"message": "Unknown Application", "code": 10002}, 404)
        for fault in self.faults:
            if fault.matches(request.method, route, record.params):
                fault.hits += 1
                log.info("fake Discord: injected %s for %s %s", fault.status, request.method, path)
                return self._json_response(fault.body, fault.status, fault.headers)
        try:
            result = handler(_Req(request, record.params, body, files, record))
            if asyncio.iscoroutine(result):
                result = await result
        except ApiError as err:
            if err.failure:
                self.failures.append(f"{request.method} {path}: {err} {err.errors or ''}".strip())
            data: JSON = {"message": err.message, "code": err.code}
            if err.errors is not None:
                data["errors"] = form_errors(err.errors)
            return self._json_response(data, err.status)
        except (
            Exception
        ) as exc:  # a bug in the fake or a body it cannot read: fail fast, no 5xx retries
            log.exception("fake Discord: error handling %s %s", request.method, path)
            self.failures.append(f"{request.method} {path}: the fake could not handle it: {exc!r}")
            return self._json_response({"message": f"fake error: {exc!r}", "code": 0}, 400)
        if isinstance(result, web.Response):
            return result
        return self._json_response(result)

    # ----------------------------------------------------------------- REST lookups

    def _guild(self, q: _Req) -> Guild:
        guild = self.guilds.get(int(q.params["guild_id"]))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    def _channel(self, q: _Req) -> Channel:
        channel = self.channels.get(int(q.params["channel_id"]))
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return channel

    def _message(self, q: _Req) -> Message:
        channel = self._channel(q)
        msg = self.messages_by_id.get(int(q.params["message_id"]))
        if msg is None or msg.deleted or msg.channel_id != channel.id or msg.visible_to is not None:
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    def _get_gateway(self, q: _Req) -> JSON:
        return {
            "url": self.gateway_url,
            "shards": 1,
            "session_start_limit": {
                "total": 1000,
                "remaining": 999,
                "reset_after": 0,
                "max_concurrency": 1,
            },
        }

    def _get_application(self, q: _Req) -> JSON:
        return {
            "id": str(self.app_id),
            "name": self.bot_user.name,
            "icon": None,
            "description": "fake application",
            "bot_public": False,
            "bot_require_code_grant": False,
            "owner": self.users[next(iter(self.guilds.values())).owner_id].payload()
            if self.guilds
            else self.bot_user.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "bot": self.bot_user.payload(),
            "summary": "",
        }

    def _get_user(self, q: _Req) -> JSON:
        user = self.users.get(int(q.params["user_id"]))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return user.payload()

    def _get_member(self, q: _Req) -> JSON:
        guild = self._guild(q)
        user = self.users.get(int(q.params["user_id"]))
        if user is None or user.id not in guild.members:
            raise ApiError(404, 10007, "Unknown Member")
        return self.member_payload(guild, user)

    def _create_dm(self, q: _Req) -> JSON:
        user = self.users.get(int(q.json.get("recipient_id", 0)))
        if user is None or user.bot:
            raise ApiError(400, 50007, "Cannot send messages to this user", failure=True)
        return self.dm_channel(user).payload()

    # ----------------------------------------------------------------- commands REST

    def _scope(self, q: _Req) -> int | None:
        if "guild_id" in q.params:
            return self._guild(q).id
        return None

    def _validate_command(self, p: JSON) -> None:
        errors: list[str] = []
        ctype = p.get("type", 1)
        name = p.get("name", "")
        if (ctype == 1 and not re.fullmatch(r"[-_\w]{1,32}", name)) or (
            name != name.lower() and ctype == 1
        ):
            errors.append(f"bad command name {name!r}")
        if ctype == 1 and not 1 <= len(p.get("description", "")) <= 100:
            errors.append(f"/{name}: description must be 1-100 characters")

        def check_options(opts: list[JSON], where: str) -> None:
            if len(opts) > 25:
                errors.append(f"{where}: more than 25 options")
            seen_optional = False
            for o in opts:
                label = f"{where} {o.get('name')}"
                if (
                    not re.fullmatch(r"[-_\w]{1,32}", o.get("name", ""))
                    or o["name"] != o["name"].lower()
                ):
                    errors.append(f"{label}: bad option name")
                if not 1 <= len(o.get("description", "")) <= 100:
                    errors.append(f"{label}: description must be 1-100 characters")
                if len(o.get("choices") or []) > 25:
                    errors.append(f"{label}: more than 25 choices")
                if o.get("type") in (1, 2):
                    check_options(o.get("options") or [], label)
                elif o.get("required"):
                    if seen_optional:
                        errors.append(f"{label}: required option after an optional one")
                else:
                    seen_optional = True

        check_options(p.get("options") or [], f"/{name}")
        if errors:
            raise ApiError(400, 50035, "Invalid Form Body", failure=True, errors=errors)

    def _store_command(
        self, scope: int | None, p: JSON, existing: Mapping[tuple[str, int], JSON]
    ) -> JSON:
        self._validate_command(p)
        key = (p["name"], p.get("type", 1))
        old = existing.get(key)
        cmd: JSON = {
            "type": 1,
            "description": "",
            "options": [],
            "default_member_permissions": None,
            "dm_permission": True,
            "contexts": None,
            "integration_types": [0],
            "nsfw": False,
            **p,
            "id": old["id"] if old else str(self.snowflake()),
            "application_id": str(self.app_id),
            "version": str(self.snowflake()),
        }
        if scope is not None:
            cmd["guild_id"] = str(scope)
        return cmd

    def _get_commands(self, q: _Req) -> list[JSON]:
        return list(self.commands.get(self._scope(q), {}).values())

    def _put_commands(self, q: _Req) -> list[JSON]:
        scope = self._scope(q)
        if not isinstance(q.body, list):
            raise ApiError(400, 50035, "Invalid Form Body", failure=True)
        existing = self.commands.get(scope, {})
        new: dict[tuple[str, int], JSON] = {}
        for p in q.body:
            cmd = self._store_command(scope, p, existing)
            new[(cmd["name"], cmd["type"])] = cmd
        if len([k for k in new if k[1] == 1]) > 100:
            raise ApiError(
                400, 30032, "Maximum number of application commands reached", failure=True
            )
        self.commands[scope] = new
        self.syncs += 1
        return list(new.values())

    def _post_command(self, q: _Req) -> JSON:
        scope = self._scope(q)
        existing = self.commands.setdefault(scope, {})
        cmd = self._store_command(scope, q.json, existing)
        existing[(cmd["name"], cmd["type"])] = cmd
        return cmd

    def _command_by_id(self, q: _Req) -> tuple[dict[tuple[str, int], JSON], tuple[str, int]]:
        cmds = self.commands.get(self._scope(q), {})
        for key, cmd in cmds.items():
            if cmd["id"] == q.params["command_id"]:
                return cmds, key
        raise ApiError(404, 10063, "Unknown application command")

    def _get_command(self, q: _Req) -> JSON:
        cmds, key = self._command_by_id(q)
        return cmds[key]

    def _patch_command(self, q: _Req) -> JSON:
        cmds, key = self._command_by_id(q)
        merged = {**cmds.pop(key), **q.json}
        cmd = self._store_command(self._scope(q), merged, {key: cmds.get(key) or merged})
        cmds[(cmd["name"], cmd["type"])] = cmd
        return cmd

    def _delete_command(self, q: _Req) -> None:
        cmds, key = self._command_by_id(q)
        del cmds[key]

    # ----------------------------------------------------------------- messages REST

    def _validate_message(
        self, body: JSON, files: Sequence[tuple[str, str, bytes, str | None]], *, creating: bool
    ) -> None:
        """Discord's limits on a message body (create, edit, callback, followup, DM alike)."""
        size = sum(len(data) for _, _, data, _ in files)
        if size > self.attachment_size_limit:
            raise ApiError(413, 40005, f"Request entity too large ({size} bytes)", failure=True)
        content = body.get("content") or ""
        embeds = body.get("embeds") or []
        components = body.get("components") or []
        if creating and not (
            content.strip()
            or embeds
            or components
            or files
            or body.get("sticker_ids")
            or body.get("poll")
        ):
            raise ApiError(400, 50006, "Cannot send an empty message", failure=True)
        errors: list[FormError] = []
        if len(content) > 2000:
            errors.append(
                ("content", f"Must be 2000 or fewer in length ({len(content)} characters).")
            )
        errors += _embed_errors(embeds)
        if not (body.get("flags") or 0) & MsgFlag.COMPONENTS_V2:
            errors += _component_errors(components)
        if errors:
            raise ApiError(400, 50035, "Invalid Form Body", failure=True, errors=errors)

    def _attachments_from(
        self, body: JSON, files: Sequence[tuple[str, str, bytes, str | None]]
    ) -> list[Attachment]:
        described = {
            str(a.get("id")): a for a in body.get("attachments") or [] if isinstance(a, dict)
        }
        result = []
        for name, filename, data, ctype in files:
            index = name[len("files[") : -1] if name.startswith("files[") else name
            meta = described.get(index, {})
            result.append(
                Attachment(
                    self.snowflake(),
                    meta.get("filename") or filename,
                    data,
                    ctype,
                    meta.get("description"),
                )
            )
        return result

    def _new_message(
        self,
        channel: Channel,
        body: JSON,
        files: Sequence[tuple[str, str, bytes, str | None]],
        *,
        flags: int = 0,
        interaction: Interaction | None = None,
    ) -> Message:
        msg = Message(
            id=self.snowflake(),
            seq=next(self._seq),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.bot_user,
            content=body.get("content") or "",
            embeds=list(body.get("embeds") or []),
            components=list(body.get("components") or []),
            attachments=self._attachments_from(body, files),
            flags=flags,
            interaction_id=interaction.id if interaction else None,
            visible_to=interaction.user.id if interaction and flags & MsgFlag.EPHEMERAL else None,
            type=20 if interaction and interaction.type == 2 else 0,
        )
        self.messages.append(msg)
        self.messages_by_id[msg.id] = msg
        return msg

    def _edit(
        self, msg: Message, body: JSON, files: Sequence[tuple[str, str, bytes, str | None]]
    ) -> None:
        self._validate_message(body, files, creating=False)
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
            msg.edited_timestamp = _now_iso()

    async def _post_message(self, q: _Req) -> JSON:
        channel = self._channel(q)
        if (
            channel.is_dm
            and channel.recipient is not None
            and channel.recipient.id in self.closed_dms
        ):
            self.blocked_dms.append((channel.recipient, q.json))
            raise ApiError(403, 50007, "Cannot send messages to this user")
        flags = int(q.json.get("flags") or 0)
        if flags & MsgFlag.EPHEMERAL:
            raise ApiError(
                400, 50035, "Invalid Form Body: ephemeral outside an interaction", failure=True
            )
        self._validate_message(q.json, q.files, creating=True)
        nonce = q.json.get("nonce")
        if nonce is not None and q.json.get("enforce_nonce"):
            # As Discord does: the same nonce again returns the first message, posts nothing.
            earlier = self._by_nonce.get((channel.id, str(nonce)))
            if earlier is not None:
                self.nonce_hits += 1
                return earlier.payload(self)
        msg = self._new_message(channel, q.json, q.files, flags=flags)
        if nonce is not None:
            self._by_nonce[(channel.id, str(nonce))] = msg
        payload = msg.payload(self)
        await self.dispatch("MESSAGE_CREATE", payload)
        return payload

    def _get_messages(self, q: _Req) -> list[JSON]:
        channel = self._channel(q)
        limit = int(q.request.query.get("limit", 50))
        before = int(q.request.query.get("before", 1 << 63))
        after = int(q.request.query.get("after", 0))
        found = [
            m
            for m in self.messages
            if m.channel_id == channel.id
            and not m.deleted
            and m.visible_to is None
            and after < m.id < before
        ]
        found = found[:limit] if "after" in q.request.query else found[-limit:]
        return [m.payload(self) for m in reversed(found)]

    async def _patch_message(self, q: _Req) -> JSON:
        msg = self._message(q)
        if msg.author is not self.bot_user:
            raise ApiError(
                403, 50005, "Cannot edit a message authored by another user", failure=True
            )
        self._edit(msg, q.json, q.files)
        payload = msg.payload(self)
        await self.dispatch("MESSAGE_UPDATE", payload)
        return payload

    async def _delete_message(self, q: _Req) -> None:
        msg = self._message(q)
        msg.deleted = True
        data = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
        if msg.guild_id:
            data["guild_id"] = str(msg.guild_id)
        await self.dispatch("MESSAGE_DELETE", data)

    # ----------------------------------------------------------------- interactions REST

    async def _callback(self, q: _Req) -> web.Response | JSON:
        ix = self.interactions_by_id.get(int(q.params["interaction_id"]))
        if ix is None or ix.token != q.params["token"]:
            raise ApiError(404, 10062, "Unknown interaction", failure=True)
        if ix.acknowledged:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.", failure=True)
        late = asyncio.get_running_loop().time() - ix.created
        if late > self.interaction_deadline:
            raise ApiError(
                404, 10062, f"Unknown interaction (answered after {late:.2f}s)", failure=True
            )
        t = int(q.json.get("type", 0))
        data = q.json.get("data") or {}
        allowed = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}[ix.type]
        if t not in allowed:
            raise ApiError(
                400,
                50035,
                f"callback type {t} invalid for interaction type {ix.type}",
                failure=True,
            )
        msg: Message | None = None
        if t == 4:
            self._validate_message(data, q.files, creating=True)
            flags = int(data.get("flags") or 0) & (
                MsgFlag.EPHEMERAL | MsgFlag.SUPPRESS_EMBEDS | MsgFlag.COMPONENTS_V2
            )
            msg = self._new_message(ix.channel, data, q.files, flags=flags, interaction=ix)
        elif t == 5:
            flags = MsgFlag.LOADING | (int(data.get("flags") or 0) & MsgFlag.EPHEMERAL)
            msg = self._new_message(ix.channel, {}, [], flags=flags, interaction=ix)
        elif t == 7:
            assert ix.message is not None
            msg = self.messages_by_id[ix.message.id]
            self._edit(msg, data, q.files)
        elif t == 8:
            choices = data.get("choices") or []
            errors = _choice_errors(choices)
            if errors:
                raise ApiError(400, 50035, "Invalid Form Body", failure=True, errors=errors)
            ix.choices = choices
        elif t == 9:
            ix.modal = data
        ix.callback_type, ix.callback_data = t, data
        if t == 6 and ix.message is not None:
            ix.versions_at_ack = len(self.messages_by_id[ix.message.id].history)
        ix.original = (
            msg if msg is not None else (self.messages_by_id[ix.message.id] if ix.message else None)
        )
        if msg is not None and not msg.ephemeral and not msg.loading:
            await self.dispatch("MESSAGE_CREATE" if t == 4 else "MESSAGE_UPDATE", msg.payload(self))
        if q.request.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        resource: JSON = {"type": t}
        if msg is not None:
            resource["message"] = msg.payload(self)
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

    def _webhook_ix(self, q: _Req) -> Interaction:
        ix = self._interactions_by_token.get(q.params["token"])
        if ix is None:
            raise ApiError(404, 10015, "Unknown Webhook", failure=True)
        if not ix.acknowledged:
            raise ApiError(
                404, 10015, "Unknown Webhook (interaction not acknowledged yet)", failure=True
            )
        return ix

    def _webhook_message(self, q: _Req) -> tuple[Interaction, Message]:
        ix = self._webhook_ix(q)
        mid = q.params["message_id"]
        if mid == "@original":
            if ix.original is None:
                raise ApiError(404, 10008, "Unknown Message", failure=True)
            return ix, ix.original
        msg = self.messages_by_id.get(int(mid))
        if msg is None or msg.deleted or (msg is not ix.original and msg not in ix.followups):
            raise ApiError(404, 10008, "Unknown Message", failure=True)
        return ix, msg

    async def _followup(self, q: _Req) -> web.Response | JSON:
        ix = self._webhook_ix(q)
        if ix.callback_type in (8, 9):
            raise ApiError(400, 50035, "followup to an autocomplete/modal callback", failure=True)
        body = q.json
        if ix.callback_type == 5 and ix.original is not None and ix.original.loading:
            self._edit(ix.original, body, q.files)  # the first followup completes the defer
            msg = ix.original
            ix.followups.append(msg)
            if not msg.ephemeral:
                await self.dispatch("MESSAGE_UPDATE", msg.payload(self))
        else:
            self._validate_message(body, q.files, creating=True)
            flags = int(body.get("flags") or 0) & (
                MsgFlag.EPHEMERAL | MsgFlag.SUPPRESS_EMBEDS | MsgFlag.COMPONENTS_V2
            )
            msg = self._new_message(ix.channel, body, q.files, flags=flags, interaction=ix)
            ix.followups.append(msg)
            if not msg.ephemeral:
                await self.dispatch("MESSAGE_CREATE", msg.payload(self))
        if q.request.query.get("wait") not in ("1", "true", "True"):
            return web.Response(status=204)
        return msg.payload(self)

    def _get_webhook_message(self, q: _Req) -> JSON:
        _, msg = self._webhook_message(q)
        return msg.payload(self)

    async def _patch_webhook_message(self, q: _Req) -> JSON:
        _, msg = self._webhook_message(q)
        self._edit(msg, q.json, q.files)
        if not msg.ephemeral:
            await self.dispatch("MESSAGE_UPDATE", msg.payload(self))
        return msg.payload(self)

    async def _delete_webhook_message(self, q: _Req) -> None:
        _, msg = self._webhook_message(q)
        msg.deleted = True
        if not msg.ephemeral:
            data = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id:
                data["guild_id"] = str(msg.guild_id)
            await self.dispatch("MESSAGE_DELETE", data)


FormError = tuple[str, str] | str
"""One invalid field of a request body: (dotted path, message), or a message for the body."""

EMBED_LIMITS = {"title": 256, "description": 4096}


def _too_long(path: str, text: object, limit: int) -> list[FormError]:
    n = len(str(text or ""))
    return [(path, f"Must be {limit} or fewer in length ({n} characters).")] if n > limit else []


def _embed_errors(embeds: Sequence[JSON]) -> list[FormError]:
    """Discord's limits on embeds: counts, each field's length, 6000 characters in all."""
    errors: list[FormError] = []
    if len(embeds) > 10:
        errors.append(("embeds", f"Must be 10 or fewer in length ({len(embeds)} embeds)."))
    total = 0
    for i, embed in enumerate(embeds):
        where = f"embeds.{i}"
        for key, limit in EMBED_LIMITS.items():
            total += len(embed.get(key) or "")
            errors += _too_long(f"{where}.{key}", embed.get(key), limit)
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors.append((f"{where}.fields", f"Must be 25 or fewer in length ({len(fields)})."))
        for j, fld in enumerate(fields):
            name, value = str(fld.get("name", "")), str(fld.get("value", ""))
            total += len(name) + len(value)
            for key, text, limit in (("name", name, 256), ("value", value, 1024)):
                if not text:
                    errors.append((f"{where}.fields.{j}.{key}", "This field is required."))
                errors += _too_long(f"{where}.fields.{j}.{key}", text, limit)
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        total += len(footer) + len(author)
        errors += _too_long(f"{where}.footer.text", footer, 2048)
        errors += _too_long(f"{where}.author.name", author, 256)
    if total > 6000:
        errors.append(("embeds", f"Embed size exceeds maximum size of 6000 ({total})."))
    return errors


def _component_errors(rows: Sequence[JSON]) -> list[FormError]:
    """Discord's limits on classic components (action rows of buttons and selects)."""
    errors: list[FormError] = []
    if len(rows) > 5:
        errors.append(("components", f"Must be 5 or fewer in length ({len(rows)} action rows)."))
    ids: list[str] = []
    for i, row in enumerate(rows):
        inner = row.get("components") or []
        if row.get("type") != 1:
            errors.append((f"components.{i}", "Not an action row."))
            continue
        selects = [c for c in inner if c.get("type") in (3, 5, 6, 7, 8)]
        if not inner or len(inner) > 5 or (selects and len(inner) > 1):
            errors.append(
                (f"components.{i}.components", "1-5 buttons or one select menu alone per row.")
            )
        for k, comp in enumerate(inner):
            errors += _item_errors(f"components.{i}.components.{k}", comp)
            if "custom_id" in comp:
                ids.append(comp["custom_id"])
    dupes = {x for x in ids if ids.count(x) > 1}
    if dupes:
        errors.append(("components", f"Component custom id cannot be duplicated {sorted(dupes)}."))
    return errors


def _item_errors(where: str, comp: JSON) -> list[FormError]:
    """One button or select menu."""
    errors: list[FormError] = []
    if "custom_id" in comp and not 1 <= len(comp["custom_id"]) <= 100:
        errors.append((f"{where}.custom_id", "Must be between 1 and 100 in length."))
    if comp.get("type") == 2:
        style = comp.get("style")
        if (style == 5 and not comp.get("url")) or (
            style in (1, 2, 3, 4) and "custom_id" not in comp
        ):
            need = "url" if style == 5 else "custom_id"
            errors.append((f"{where}.{need}", f"A button of style {style} needs a {need}."))
        errors += _too_long(f"{where}.label", comp.get("label"), 80)
        if not comp.get("label") and not comp.get("emoji"):
            errors.append((f"{where}.label", "A button needs a label or an emoji."))
    if comp.get("type") == 3:
        options = comp.get("options") or []
        if not 1 <= len(options) <= 25:
            errors.append(
                (f"{where}.options", f"Must be between 1 and 25 in length ({len(options)}).")
            )
        if len({o.get("value") for o in options}) != len(options):
            errors.append((f"{where}.options", "Option values must be unique."))
        for n, o in enumerate(options):
            for key in ("label", "value"):
                if not 1 <= len(o.get(key) or "") <= 100:
                    errors.append(
                        (f"{where}.options.{n}.{key}", "Must be between 1 and 100 in length.")
                    )
            errors += _too_long(f"{where}.options.{n}.description", o.get("description"), 100)
    if comp.get("type") in (3, 5, 6, 7, 8):
        errors += _too_long(f"{where}.placeholder", comp.get("placeholder"), 150)
    return errors


def _choice_errors(choices: Sequence[JSON]) -> list[FormError]:
    """Autocomplete choices: at most 25, names 1-100 characters, string values up to 100."""
    errors: list[FormError] = []
    if len(choices) > 25:
        errors.append(("data.choices", f"Must be 25 or fewer in length ({len(choices)})."))
    for n, choice in enumerate(choices):
        if not 1 <= len(str(choice.get("name") or "")) <= 100:
            errors.append((f"data.choices.{n}.name", "Must be between 1 and 100 in length."))
        if isinstance(choice.get("value"), str):
            errors += _too_long(f"data.choices.{n}.value", choice["value"], 100)
    return errors


def form_errors(errors: Sequence[FormError]) -> JSON:
    """Discord's nested ``errors`` object of a 50035 answer:
    ``{"content": {"_errors": [{"code": ..., "message": ...}]}}``, one level per path part."""
    tree: JSON = {}
    for error in errors:
        path, message = error if isinstance(error, tuple) else ("", error)
        node = tree
        for part in filter(None, path.split(".")):
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": "BASE_TYPE_INVALID", "message": message})
    return tree


@contextmanager
def point_discord_py_at(fake: FakeDiscord) -> Iterator[None]:
    """Point this process's discord.py at the fake (Route.BASE, DEFAULT_GATEWAY); restore after."""
    import discord.gateway
    import discord.http
    import yarl

    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = fake.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway
