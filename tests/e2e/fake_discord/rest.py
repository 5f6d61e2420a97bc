"""REST v10 plumbing: the route table, request recording, auth and application checks,
injected faults, error answers, and the routes that only read the world (users, guilds,
channels, the gateway and application info, opening a DM)."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiohttp import BodyPartReader, web
from aiohttp.hdrs import CONTENT_DISPOSITION
from aiohttp.multipart import content_disposition_filename, parse_content_disposition

from .base import JSON, ApiError, UploadedFile
from .buckets import CREATE_MESSAGE, bucket_headers, too_many
from .entities import Channel, Guild, Message
from .limits import form_errors

if TYPE_CHECKING:
    from .facade import FakeDiscord

log = logging.getLogger(__name__)

Files = list[UploadedFile]


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
    counted: bool = False  # against the global limit

    def __repr__(self) -> str:
        return f"<{self.method} {self.path} -> {self.status}>"


@dataclass
class RestRequest:
    """What a route handler gets: the request, its path parameters and its parsed body."""

    request: web.Request
    params: dict[str, str]
    body: Any
    files: Files
    record: RecordedRequest

    @property
    def json(self) -> JSON:
        return self.body if isinstance(self.body, dict) else {}


Handler = Callable[[RestRequest], Any]
AddRoute = Callable[[str, Handler], None]


def json_response(
    data: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> web.Response:
    """Discord's answer: ``Content-Type: application/json`` exactly; None is a 204."""
    if data is None and status == 200:
        return web.Response(status=204, headers=headers)
    hdrs = {"Content-Type": "application/json", **(headers or {})}
    return web.Response(status=status, body=json.dumps(data).encode(), headers=hdrs)


def not_found() -> web.Response:
    return json_response({"message": "404: Not Found", "code": 0}, 404)


async def read_body(request: web.Request) -> tuple[Any, Files]:
    """A JSON body, or a multipart one (``payload_json`` and files), or text."""
    files: Files = []
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
            # the header read once (aiohttp's part.name and part.filename each parse it anew)
            _, params = parse_content_disposition(part.headers.get(CONTENT_DISPOSITION))
            name = content_disposition_filename(params, "name") or ""
            if name == "payload_json":
                payload = json.loads(data)
            else:
                ctype = part.headers.get("Content-Type")
                filename = content_disposition_filename(params, "filename") or ""
                files.append((name, filename, bytes(data), ctype))
        return payload, files
    raw = await request.read()
    if not raw:
        return None, files
    if request.content_type == "application/json":
        return json.loads(raw), files
    return raw.decode(errors="replace"), files


class Rest:
    """Serves ``/api/v10``: records each request, then answers it from the route table."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.routes: list[tuple[str, re.Pattern[str], str, Handler]] = []
        self.in_flight = 0
        self.last_activity = 0.0

    # ----------------------------------------------------------------- the route table

    def add(self, route: str, handler: Handler) -> None:
        """Route ``"METHOD /template"``; ``{x_id}`` matches digits (webhooks: ``@original``)."""
        method, template = route.split(" ", 1)

        def param(m: re.Match[str]) -> str:
            name = m[1]
            if name == "message_id" and template.startswith("/webhooks/"):
                return rf"(?P<{name}>\d+|@original)"
            return rf"(?P<{name}>\d+)" if name.endswith("_id") else rf"(?P<{name}>[^/]+)"

        pattern = "^" + re.sub(r"\\\{(\w+)\\\}", param, re.escape(template)) + "$"
        self.routes.append((method, re.compile(pattern), route, handler))

    def add_world_routes(self) -> None:
        fake, r = self.fake, self.add
        r("GET /gateway", self._get_gateway)
        r("GET /gateway/bot", self._get_gateway)
        r("GET /users/@me", lambda q: fake.bot_user.payload())
        r("GET /oauth2/applications/@me", self._get_application)
        r("POST /users/@me/channels", self._create_dm)
        r("GET /users/{user_id}", self._get_user)

    def add_guild_routes(self) -> None:
        r = self.add
        r("GET /guilds/{guild_id}", lambda q: self.fake.guild_payload(self.guild(q), 0))
        r(
            "GET /guilds/{guild_id}/channels",
            lambda q: [c.payload() for c in self.guild(q).channels],
        )
        r("GET /guilds/{guild_id}/roles", lambda q: [x.payload() for x in self.guild(q).roles])
        r("GET /guilds/{guild_id}/members/{user_id}", self._get_member)
        r("GET /channels/{channel_id}", lambda q: self.channel(q).payload())

    def check_route(self, route: str) -> None:
        known = {r[2] for r in self.routes}
        if route not in known:
            raise ValueError(f"unknown route {route!r}; known: {sorted(known)}")

    def _match(self, method: str, path: str) -> tuple[str, dict[str, str], Handler] | None:
        for verb, pattern, route, handler in self.routes:
            match = pattern.match(path)
            if verb == method and match:
                return route, match.groupdict(), handler
        return None

    # ----------------------------------------------------------------- serving

    async def unknown(self, request: web.Request) -> web.Response:
        """Anything outside the API is a bug of the bot's configuration."""
        self.fake.failures.append(f"request outside the API: {request.method} {request.path}")
        self.fake._notify()
        return not_found()

    async def attachment(self, request: web.Request) -> web.Response:
        for m in self.fake.messages:
            for a in m.attachments:
                if str(a.id) == request.match_info["id"]:
                    return web.Response(
                        body=a.data, content_type=a.content_type or "application/octet-stream"
                    )
        wanted = request.match_info["id"]
        upload = self.fake.uploads.get(int(wanted)) if wanted.isdigit() else None
        if upload is not None:  # a file attached to a command (uploads.py)
            return web.Response(
                body=upload.data, content_type=upload.content_type or "application/octet-stream"
            )
        return web.Response(status=404)

    async def serve(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        body, files = await read_body(request)
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
        self.fake.requests.append(record)
        self.in_flight += 1
        try:
            response = await self._handle(request, path, body, files, record)
        finally:
            self.in_flight -= 1
            self.last_activity = asyncio.get_running_loop().time()
            self.fake._notify()
        record.status = response.status
        return response

    def _refusal(
        self, request: web.Request, path: str, route: str, record: RecordedRequest
    ) -> web.Response | None:
        """A wrong token or application id (a bot bug), a rate limit, or an injected fault."""
        fake, params = self.fake, record.params
        token_auth = "/interactions/" in route or "/webhooks/" in route  # the token is the auth
        if not token_auth and request.headers.get("Authorization") != f"Bot {fake.token}":
            fake.failures.append(f"{route}: missing or wrong Authorization header")
            return json_response({"message": "401: Unauthorized", "code": 0}, 401)
        if "app_id" in params and params["app_id"] != str(fake.app_id):
            fake.failures.append(f"{route}: wrong application id {params['app_id']}")
            return json_response({"message": "Unknown Application", "code": 10002}, 404)
        if not token_auth:  # interaction answers and webhooks are outside the global limit
            limited = self._global_refusal(record)
            if limited is not None:
                return limited
        fault = fake.injected_fault(request.method, route, params)
        if fault is not None:
            log.info("fake Discord: injected %s for %s %s", fault.status, request.method, path)
            return json_response(fault.body, fault.status, fault.headers)
        return self._channel_refusal(route, record)

    def _global_refusal(self, record: RecordedRequest) -> web.Response | None:
        """Past the token's global limit: a global 429."""
        wait = self.fake.over_global_limit(asyncio.get_running_loop().time())
        record.counted = True
        if wait is None:
            return None
        log.info("fake Discord: global rate limit, %s", record.path)
        body, headers = too_many(wait, is_global=True, bucket={})
        return json_response(body, 429, headers)

    def _channel_refusal(self, route: str, record: RecordedRequest) -> web.Response | None:
        """A message created past its channel's limit: a 429 of the route's bucket."""
        if route != CREATE_MESSAGE or self.fake.channel_posts is None:
            return None
        limit, seconds = self.fake.channel_posts
        now = asyncio.get_running_loop().time()
        channel_id = int(record.params["channel_id"])
        wait = self.fake.posts.take(channel_id, now, limit, seconds)
        if wait is None:
            return None
        log.info("fake Discord: channel %s past %d messages in %s s", channel_id, limit, seconds)
        bucket = bucket_headers(route, limit, 0, wait)
        body, headers = too_many(wait, is_global=False, bucket=bucket)
        return json_response(body, 429, headers)

    def _bucket_headers(self, route: str, record: RecordedRequest) -> dict[str, str]:
        """The channel's bucket as Discord states it on each answer of the route it limits."""
        if route != CREATE_MESSAGE or self.fake.channel_posts is None:
            return {}
        limit, seconds = self.fake.channel_posts
        now = asyncio.get_running_loop().time()
        channel_id = int(record.params["channel_id"])
        remaining, reset_after = self.fake.posts.state(channel_id, now, limit, seconds)
        return bucket_headers(route, limit, remaining, reset_after)

    async def _handle(
        self, request: web.Request, path: str, body: Any, files: Files, record: RecordedRequest
    ) -> web.Response:
        found = self._match(request.method, path)
        if found is None:
            self.fake.failures.append(f"unimplemented route: {request.method} {path}")
            log.error("fake Discord: unimplemented route %s %s", request.method, path)
            return not_found()
        route, record.params, handler = found
        record.route = route
        delay = self.fake.latency_of(request.method, route, record.params)
        if delay:  # a slow Discord (``FakeDiscord.slow``)
            await asyncio.sleep(delay)
        refusal = self._refusal(request, path, route, record)
        if refusal is not None:
            return refusal
        q = RestRequest(request, record.params, body, files, record)
        response = await self._answer(q, handler, path)
        response.headers.update(self._bucket_headers(route, record))
        return response

    async def _answer(self, q: RestRequest, handler: Handler, path: str) -> web.Response:
        """The route's answer, or the error answer of what it raised."""
        request = q.request
        try:
            result = handler(q)
            if asyncio.iscoroutine(result):
                result = await result
        except ApiError as err:
            if err.failure:
                self.fake.failures.append(
                    f"{request.method} {path}: {err} {err.errors or ''}".strip()
                )
            data: JSON = {"message": err.message, "code": err.code}
            if err.errors is not None:
                data["errors"] = form_errors(err.errors)
            return json_response(data, err.status)
        except Exception as exc:
            # a bug in the fake or a body it cannot read: fail fast, no 5xx retries
            log.exception("fake Discord: error handling %s %s", request.method, path)
            self.fake.failures.append(
                f"{request.method} {path}: the fake could not handle it: {exc!r}"
            )
            return json_response({"message": f"fake error: {exc!r}", "code": 0}, 400)
        if isinstance(result, web.Response):
            return result
        return json_response(result)

    # ----------------------------------------------------------------- lookups

    def guild(self, q: RestRequest) -> Guild:
        guild = self.fake.guilds.get(int(q.params["guild_id"]))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    def channel(self, q: RestRequest) -> Channel:
        channel = self.fake.channels.get(int(q.params["channel_id"]))
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel")
        return channel

    def message(self, q: RestRequest) -> Message:
        channel = self.channel(q)
        msg = self.fake.messages_by_id.get(int(q.params["message_id"]))
        if msg is None or msg.deleted or msg.channel_id != channel.id or msg.visible_to is not None:
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    # ----------------------------------------------------------------- world routes

    def _get_gateway(self, q: RestRequest) -> JSON:
        return {
            "url": self.fake.gateway_url,
            "shards": 1,
            "session_start_limit": {
                "total": 1000,
                "remaining": 999,
                "reset_after": 0,
                "max_concurrency": 1,
            },
        }

    def _get_application(self, q: RestRequest) -> JSON:
        fake = self.fake
        return {
            "id": str(fake.app_id),
            "name": fake.bot_user.name,
            "icon": None,
            "description": "fake application",
            "bot_public": False,
            "bot_require_code_grant": False,
            "owner": fake.users[next(iter(fake.guilds.values())).owner_id].payload()
            if fake.guilds
            else fake.bot_user.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "bot": fake.bot_user.payload(),
            "summary": "",
        }

    def _get_user(self, q: RestRequest) -> JSON:
        user = self.fake.users.get(int(q.params["user_id"]))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return user.payload()

    def _get_member(self, q: RestRequest) -> JSON:
        guild = self.guild(q)
        user = self.fake.users.get(int(q.params["user_id"]))
        if user is None or user.id not in guild.members:
            raise ApiError(404, 10007, "Unknown Member")
        return guild.member_payload(user)

    def _create_dm(self, q: RestRequest) -> JSON:
        user = self.fake.users.get(int(q.json.get("recipient_id", 0)))
        if user is None or user.bot:
            raise ApiError(400, 50007, "Cannot send messages to this user", failure=True)
        return self.fake.dm_channel(user).payload()
