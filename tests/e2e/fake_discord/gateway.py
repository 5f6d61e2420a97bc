"""The gateway websocket: HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeats, dispatches (as
the session's intents allow), RESUME with replay of what was missed, member chunks.

Sharding as Discord does it: IDENTIFY's ``shard`` ([id, count], default [0, 1]) gives a session
the guilds with ``(guild_id >> 22) % count == id`` (in READY and GUILD_CREATE, and their events
after); events outside any guild (DMs, DM interactions) go to shard 0 alone."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from aiohttp import WSMsgType, web

from .base import JSON, FakeDiscordError, Intent

if TYPE_CHECKING:
    from .facade import FakeDiscord

log = logging.getLogger(__name__)


@dataclass(eq=False)
class Session:
    """One gateway session: its intents, its dispatch log (for RESUME) and its live socket."""

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
    shard: tuple[int, int] = (0, 1)  # (id, count) from IDENTIFY

    def holds(self, guild_id: int | None) -> bool:
        """Whether this session gets the events of that guild (None: DMs, on shard 0)."""
        shard, count = self.shard
        return shard == 0 if guild_id is None else (guild_id >> 22) % count == shard


class Gateway:
    """The gateway side of the fake; its records (sessions, log, counters) are the facade's."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake

    def require_bot(self) -> None:
        """Fail unless a bot holds a session (or is reconnecting after a drop by the fake)."""
        live = [
            s
            for s in self.fake.sessions
            if not s.invalid and (s.ws is not None or s.dropped_by_fake)
        ]
        if not live:
            raise FakeDiscordError(
                "no bot is connected to the gateway (wait for it: fake.wait_for_session())"
            )

    def connected(self) -> list[tuple[Session, web.WebSocketResponse]]:
        """The sessions with an open socket, and that socket."""
        return [(s, s.ws) for s in self.fake.sessions if s.ws is not None and not s.ws.closed]

    async def close_all(self) -> None:
        for _, ws in self.connected():
            await ws.close(code=1001)

    async def send(self, ws: web.WebSocketResponse, frame: JSON) -> None:
        self.fake.gateway_log.append(("out", frame))
        try:
            await ws.send_str(json.dumps(frame))
        except (ConnectionError, RuntimeError) as exc:
            log.debug("gateway send failed: %s", exc)

    def _wants(self, session: Session, event: str, data: JSON) -> bool:
        if event.startswith("MESSAGE_"):
            bit = Intent.GUILD_MESSAGES if data.get("guild_id") else Intent.DIRECT_MESSAGES
            return bool(session.intents & bit)
        if event.startswith("GUILD_MEMBER_"):  # add, update, remove: a privileged intent
            return bool(session.intents & Intent.GUILD_MEMBERS)
        if event.startswith("GUILD_"):
            return bool(session.intents & Intent.GUILDS)
        return True

    def _as_seen_by(self, session: Session, event: str, data: JSON) -> JSON:
        """Guild text from users is blanked without MESSAGE_CONTENT (unless it mentions the bot)."""
        bot_id = str(self.fake.bot_user.id)
        if (
            event == "MESSAGE_CREATE"
            and data.get("guild_id")
            and data["author"]["id"] != bot_id
            and not session.intents & Intent.MESSAGE_CONTENT
            and f"<@{bot_id}>" not in data.get("content", "")
        ):
            return {**data, "content": "", "embeds": [], "attachments": [], "components": []}
        return data

    async def dispatch(self, event: str, data: JSON) -> None:
        """Send a dispatch to every live session (buffered for RESUME if disconnected)."""
        guild_id = int(data["guild_id"]) if data.get("guild_id") else None
        for session in self.fake.sessions:
            if session.invalid or not session.holds(guild_id):
                continue
            if not self._wants(session, event, data):
                self.fake.dropped_events.append(f"{event} (intents {session.intents})")
                continue
            await self.dispatch_to(session, event, self._as_seen_by(session, event, data))

    async def dispatch_to(self, session: Session, event: str, data: JSON) -> None:
        async with session.lock:
            session.seq += 1
            frame = {"op": 0, "t": event, "s": session.seq, "d": data}
            session.log.append(frame)
            ws = session.ws
            if ws is not None and not ws.closed:
                await self.send(ws, frame)

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """The websocket endpoint: one connection, any number of sessions over its life."""
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        query = dict(request.query)
        if query.get("v") != "10" or query.get("encoding") != "json":
            self.fake.failures.append(f"gateway connected with unexpected query {query}")
        hello = {"heartbeat_interval": self.fake.heartbeat_interval_ms}
        await self.send(ws, {"op": 10, "d": hello, "s": None, "t": None})
        session: Session | None = None
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    if msg.type == WSMsgType.BINARY:
                        self.fake.failures.append("gateway: client sent a binary frame")
                    continue
                frame = json.loads(msg.data)
                self.fake.gateway_log.append(("in", frame))
                session = await self._on_frame(ws, request, frame, session)
                self.fake._notify()
        finally:
            if session is not None and session.ws is ws:
                session.ws = None
            self.fake._notify()
        return ws

    async def _on_frame(
        self, ws: web.WebSocketResponse, request: web.Request, frame: JSON, session: Session | None
    ) -> Session | None:
        op, d = frame.get("op"), cast(Any, frame.get("d"))
        if op == 1:
            await self.send(ws, {"op": 11, "d": None, "s": None, "t": None})
        elif op == 2:
            return await self._identify(ws, request, d)
        elif op == 6:
            return await self._resume(ws, request, d)
        elif op == 3:
            pass  # presence update
        elif op == 8:
            await self._member_chunk(d, session)
        else:
            self.fake.failures.append(f"gateway: unexpected op {op}: {frame}")
        return session

    def _token_ok(self, d: JSON) -> bool:
        return d.get("token") in (self.fake.token, f"Bot {self.fake.token}")

    async def _identify(
        self, ws: web.WebSocketResponse, request: web.Request, d: JSON
    ) -> Session | None:
        fake = self.fake
        if not self._token_ok(d):
            fake.failures.append("gateway: IDENTIFY with a wrong token")
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        intents = int(d.get("intents", 0))
        shard = self._shard(d.get("shard", [0, 1]))
        if shard is None:
            await ws.close(code=4010, message=b"Invalid shard.")
            return None
        session = Session(
            id=secrets.token_hex(16), intents=intents, ws=ws, request=request, shard=shard
        )
        self.fake.sessions.append(session)
        guilds = [
            g for g in fake.guilds.values() if fake.bot_user.id in g.members and session.holds(g.id)
        ]
        ready = {
            "v": 10,
            "user": {
                **fake.bot_user.payload(),
                "verified": True,
                "mfa_enabled": False,
                "email": None,
            },
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": fake.gateway_url,
            "application": {"id": str(fake.app_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "shard": list(shard),
        }
        await self.dispatch_to(session, "READY", ready)
        for guild in guilds:
            if intents & Intent.GUILDS:
                await self.dispatch_to(session, "GUILD_CREATE", fake.guild_payload(guild, intents))
        self.fake.identifies += 1
        log.info("gateway: IDENTIFY (intents %s), session %s", intents, session.id)
        return session

    def _shard(self, value: object) -> tuple[int, int] | None:
        """IDENTIFY's ``shard``; None (Discord closes with 4010) when it is not a valid one."""
        valid = (
            isinstance(value, list)
            and len(value) == 2
            and all(isinstance(n, int) for n in value)
            and 0 <= value[0] < value[1]
        )
        if not valid:
            self.fake.failures.append(f"gateway: IDENTIFY with an invalid shard {value!r}")
            return None
        assert isinstance(value, list)
        return value[0], value[1]

    async def _resume(
        self, ws: web.WebSocketResponse, request: web.Request, d: JSON
    ) -> Session | None:
        session = next((s for s in self.fake.sessions if s.id == d.get("session_id")), None)
        if session is None or session.invalid or not self._token_ok(d):
            await self.send(ws, {"op": 9, "d": False, "s": None, "t": None})
            return None
        old = session.ws
        if old is not None and old is not ws and not old.closed:
            await old.close(code=4000)
        async with session.lock:
            session.ws, session.request, session.dropped_by_fake = ws, request, False
            last = int(d.get("seq") or 0)
            replay = [f for f in session.log if f["s"] > last]
            for frame in replay:
                await self.send(ws, frame)
            session.seq += 1
            resumed = {"op": 0, "t": "RESUMED", "s": session.seq, "d": {}}
            session.log.append(resumed)
            await self.send(ws, resumed)
        session.resumes += 1
        self.fake.resumes += 1
        log.info(
            "gateway: RESUME session %s from seq %s, replayed %d", session.id, last, len(replay)
        )
        return session

    async def _member_chunk(self, d: JSON, session: Session | None) -> None:
        fake = self.fake
        guild = fake.guilds.get(int(d.get("guild_id", 0)))
        if guild is None or session is None:
            fake.failures.append(f"gateway: bad REQUEST_GUILD_MEMBERS {d}")
            return
        members = [guild.member_payload(fake.users[uid]) for uid in guild.members]
        chunk = {
            "guild_id": str(guild.id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
            "nonce": d.get("nonce"),
        }
        await self.dispatch_to(session, "GUILD_MEMBERS_CHUNK", chunk)
