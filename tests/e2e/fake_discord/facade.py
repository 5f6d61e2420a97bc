"""The :class:`FakeDiscord` facade: the world and every record tests read (messages, requests,
sessions, counters), lifecycle, waiting and observing.

It composes the gateway (:mod:`.gateway`), the REST server (:mod:`.rest`) with its route groups
(:mod:`.commands`, :mod:`.messages`, :mod:`.interactions`), and takes the methods tests call to
act as users (:mod:`.actions`) and to inject faults (:mod:`.faults`) as mixins."""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from aiohttp import web

from .actions import UserActions
from .base import DISCORD_EPOCH_MS, JSON, FakeDiscordError, Intent, Perm, T
from .buckets import ChannelPosts
from .commands import AppCommands
from .entities import Attachment, Channel, Guild, Message, Role, User, World
from .faults import Fault, FaultInjection, Latency, params_of
from .gateway import Gateway, Session
from .interactions import Interaction, InteractionRoutes
from .messages import MessageRoutes
from .rest import RecordedRequest, Rest
from .threads import ThreadRoutes
from .uploads import upload

log = logging.getLogger(__name__)

# How long ``wait_for_message`` waits by default: 5 s for the bot, and as long again for a
# message held back by Discord's limit of 5 in 5 s in its channel (``channel_posts``): told by
# the bucket's headers that a channel's window is full, discord.py waits a whole window before
# it sends there again, and test players answer far faster than people do.
MESSAGE_WAIT_S = 10.0


class FakeDiscord(UserActions, FaultInjection):
    """The fake Discord server; see the package docstring for the API."""

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
        self.uploads: dict[int, Attachment] = {}  # files attached to commands (uploads.py)
        self.nonce_hits = 0  # resends Discord would have dropped by their nonce
        self.interactions: list[Interaction] = []
        self.interactions_by_id: dict[int, Interaction] = {}
        self.commands: dict[int | None, dict[tuple[str, int], JSON]] = {}
        self.requests: list[RecordedRequest] = []
        self.failures: list[str] = []
        self.faults: list[Fault] = []
        self.latencies: list[Latency] = []
        self.closed_dms: set[int] = set()
        self.blocked_dms: list[tuple[User, JSON]] = []
        self.dropped_events: list[str] = []
        self.gateway_log: list[tuple[str, JSON]] = []  # (direction, frame) "in"/"out"
        self.sessions: list[Session] = []
        self.identifies = 0
        # Discord's global limit (50): requests a second per bot token, every session's
        # together (interaction callbacks and webhooks are not counted); over it, a global 429.
        # None: not enforced (the default: some single-process tests burst past it; the
        # sharded tests set it), though ``max_requests_per_second`` still counts
        self.global_limit: int | None = None
        self.global_limited = 0  # the global 429s answered
        self._counted: collections.deque[float] = collections.deque()
        # Discord's limit on creating messages in one channel (guild channel, thread or DM
        # alike), (count, seconds): ``CHANNEL_POSTS``, 5 in any 5 seconds; past it a 429 of the
        # route's bucket (not global), and every answer of the route carries the bucket's
        # headers, by which discord.py waits before it would be refused. Interaction answers
        # and webhook follow-ups are other routes, outside it. Off (None) unless a test turns
        # it on: the suite's players answer at machine speed, faster than any person, and five
        # of its whole matches would take 5 to 100 s more each (their DMs waiting on it).
        self.channel_posts: tuple[int, float] | None = None
        self.posts = ChannelPosts()
        self.channel_limited = self.posts.refused  # channel id -> the 429s it answered
        self.resumes = 0
        self.syncs = 0
        self.world: World | None = None
        self._waiters: set[asyncio.Future[None]] = set()
        self._abort: str | None = None
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.gateway = Gateway(self)
        self.rest = Rest(self)
        self.app_commands = AppCommands(self)
        self.message_routes = MessageRoutes(self)
        self.threads = ThreadRoutes(self)
        self.interaction_routes = InteractionRoutes(self)
        self.rest.add_world_routes()
        self.app_commands.add_routes(self.rest.add)
        self.rest.add_guild_routes()
        self.message_routes.add_routes(self.rest.add)
        self.threads.add_routes(self.rest.add)
        self.interaction_routes.add_routes(self.rest.add)

    # ----------------------------------------------------------------- lifecycle

    async def start(self, port: int = 0) -> None:
        """Listen on 127.0.0.1 (a free port unless given)."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/attachments/{id}/{name}", self.rest.attachment)
        app.router.add_route("*", "/api/v10/{tail:.*}", self.rest.serve)
        app.router.add_route("*", "/{tail:.*}", self.rest.unknown)
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
        await self.gateway.close_all()
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

    def upload(
        self, filename: str, data: bytes, content_type: str | None = "application/json"
    ) -> Attachment:
        """A file to attach to a slash command (an attachment option's value)."""
        return upload(self, filename, data, content_type)

    def snowflake(self) -> int:
        """A new increasing snowflake based on the current time."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        self._last_id = max(self._last_id + 1, ms << 22)
        return self._last_id

    def next_seq(self) -> int:
        """The next message sequence number (the order the fake saw messages in)."""
        return next(self._seq)

    def over_global_limit(self, now: float) -> float | None:
        """Count one request against the token's global limit; the seconds to wait when it is
        over (the request is refused), else None."""
        counted = self._counted
        while counted and counted[0] <= now - 1.0:
            counted.popleft()
        if self.global_limit is not None and len(counted) >= self.global_limit:
            self.global_limited += 1
            return counted[0] + 1.0 - now
        counted.append(now)
        return None

    def max_requests_per_second(self) -> int:
        """The most requests counted against the global limit in any one second."""
        times = [r.time for r in self.requests if r.counted and r.status != 429]
        most, start = 0, 0
        for end, at in enumerate(times):
            while times[start] <= at - 1.0:
                start += 1
            most = max(most, end - start + 1)
        return most

    def store_message(self, msg: Message) -> None:
        self.messages.append(msg)
        self.messages_by_id[msg.id] = msg

    def add_guild(
        self, name: str, owner: User | None = None, shard: tuple[int, int] | None = None
    ) -> Guild:
        """A guild; ``shard`` (id, count): one whose id puts it on that shard."""
        gid = self.snowflake()
        while shard is not None and (gid >> 22) % shard[1] != shard[0]:
            gid += 1 << 22
        self._last_id = max(self._last_id, gid)
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

    def add_member(
        self, guild: Guild, user: User, roles: Sequence[Role] = (), nick: str | None = None
    ) -> None:
        guild.members[user.id] = list(roles)
        if nick is not None:
            guild.nicks[user.id] = nick

    async def remove_member(self, guild: Guild, user: User) -> None:
        """``user`` leaves ``guild`` (GUILD_MEMBER_REMOVE reaches a bot with the members
        intent only): fetching the member then answers 404 Unknown Member."""
        guild.members.pop(user.id, None)
        guild.nicks.pop(user.id, None)
        data = {"guild_id": str(guild.id), "user": user.payload()}
        await self.dispatch("GUILD_MEMBER_REMOVE", data)

    def build_world(self, shard: tuple[int, int] | None = None) -> World:
        """One guild "Floral Test" with #floral and #mod-log, a moderator and three players
        (``shard``: the guild on that shard, as ``add_guild``)."""
        owner = self.add_user("owner")
        guild = self.add_guild("Floral Test", owner, shard)
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
        return guild.member_payload(user, with_permissions=with_permissions)

    def guild_payload(self, guild: Guild, intents: int) -> JSON:
        with_members = bool(intents & Intent.GUILD_MEMBERS)
        return guild.payload(self.users, self.bot_user.id, with_members=with_members)

    def dm_channel(self, user: User) -> Channel:
        """The user's DM channel with the bot (created if needed, as Discord does)."""
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = Channel(self.snowflake(), 1, recipient=user)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

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
            quiet = loop.time() - self.rest.last_activity
            if self.rest.in_flight == 0 and quiet >= idle:
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
        if self.channel_limited:
            limited = {repr(self.channels.get(c, c)): n for c, n in self.channel_limited.items()}
            lines.append(f"429s of the per-channel message limit: {limited}")
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
        timeout: float = MESSAGE_WAIT_S,
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
        self.rest.check_route(route)
        want = params_of(where)
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
        return self.app_commands.registered(guild)

    def command(self, path: str, guild: Guild | None = None) -> JSON:
        """The synced schema of ``"floral"`` or a subcommand such as ``"floral setup"``."""
        return self.app_commands.schema(path, guild)

    def command_id(self, name: str, guild: Guild | None = None) -> int:
        return int(self.command(name.split()[0], guild)["id"])

    # ----------------------------------------------------------------- gateway

    async def dispatch(self, event: str, data: JSON) -> None:
        """Send a dispatch to every live session (buffered for RESUME if disconnected)."""
        await self.gateway.dispatch(event, data)

    async def dispatch_to(self, session: Session, event: str, data: JSON) -> None:
        await self.gateway.dispatch_to(session, event, data)


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
