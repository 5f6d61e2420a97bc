"""The host's Transport over Discord: public posts, player DMs with buttons, the moderator log.

Failures are mapped for the outbox: a 403 (a player's closed DMs, code 50007, or a channel the bot
may not post in) or a 404 is permanent; a 5xx or a network error is transient and retried.
Rate limits (429) are handled inside discord.py, which waits and tries again. One message is on
its way to a channel at a time (``ChannelTurns``): discord.py counts a channel's posts left from
each answer, and an answer that left out a post still on its way let it send one past Discord's
5 per 5 s, a 429 (Discord counts those against the bot).

Long texts are split into several messages under Discord's 2000-character limit; the parts
already sent are remembered per outbox message, so a retry does not post them twice.

Pictures (``pictures/``): the end post of a finished match carries its end card, and a seat's
turn DM the game's picture of its seat when the game draws one (Floral Extract: the garden),
as an attachment whose description is the picture's text alternative. The text they illustrate
is sent unchanged. They are rendered in a worker thread from the stored steps, within a time
budget; a render that fails or runs late sends the text alone (a warning is logged).

Embeds (``bot.embeds``): a turn or phase post carries the seats' card beside its text: the
game's colour, a field per player with its public line (the winners marked on the end post),
the window's deadline as a live timestamp, the game and match in the footer.

Threads (``FLORAL_THREADS``): a match's first post starts a thread where its later posts go. A
thread Discord refuses to start (the moderators are told why) or one deleted later (said in the
channel) sends the match's posts to its channel for good: asked for once, never per post.

Prompts (``prompt_on_discord``): a prompt says its deadline once, as a live countdown, and
leaves its choices to its buttons and menus; without a Help button it says how to ask for help.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import aiohttp
import discord

from bot import history
from bot.dm_channels import DmChannels
from bot.embeds import MatchCards
from bot.outbox import CHOICES_MARK, DEADLINE_MARK, deadline_line
from bot.store import Store
from bot.transport import (
    POST_LIMIT,
    Delivery,
    PermanentError,
    TransientError,
    log_text,
)
from games import registry
from pictures import Picture, hooks
from pictures.card import render

log = logging.getLogger(__name__)

MESSAGE_LIMIT = POST_LIMIT
HELP_PREFIX = "fh:"  # a prompt's Help button: fh:<match>:<step>:? (cogs.prompts)
CANNOT_DM = 50007
THREAD_ARCHIVED = 50083
IN_CHANNEL = 0  # the stored thread of a match whose thread was refused or is gone: its channel

ViewFactory = Callable[[Mapping[str, Any]], discord.ui.View | None]
"""Builds the buttons of a prompt from its request payload (None: no buttons)."""

EndViewFactory = Callable[[Delivery], discord.ui.View | None]  # an end post -> its buttons
CardFinder = Callable[[Delivery], Awaitable[discord.Embed | None]]
"""The embed a delivery carries beside its text (``bot.embeds``), if any."""

LogChannelFinder = Callable[[Delivery], int | None]
"""The moderator log channel of a delivery's match, if there is one."""


PictureFinder = Callable[[Delivery], Awaitable[Picture | None]]
"""The picture a delivery carries, if any."""

# a picture not ready by then is left out: a prompt never waits longer (well within the outbox's
# late allowance, past which a prompt's deadline moves)
RENDER_BUDGET_S = 1.0
RENDERED_KEPT = 64  # pictures kept for messages waiting to be retried
GAMES_KEPT = 1024  # matches whose game the pictures remember
SEAT_PICTURE_KINDS = ("start", "turn")  # the seat messages that show the seat's picture


class ChannelTurns:
    """One message creation on its way to each channel at a time. discord.py takes the posts a
    channel has left from each answer's headers, and lets a new send go while any are left; an
    answer written before another post of the channel reached Discord leaves that post out, so
    with posts overlapping near the limit discord.py sent one too many and took a 429. A lock
    per channel, dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: dict[int, int] = {}

    @contextlib.asynccontextmanager
    async def turn(self, channel_id: int) -> AsyncIterator[None]:
        lock = self._locks.setdefault(channel_id, asyncio.Lock())
        self._users[channel_id] = self._users.get(channel_id, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[channel_id] -= 1
            if not self._users[channel_id]:
                del self._users[channel_id], self._locks[channel_id]

    def __len__(self) -> int:
        return len(self._locks)


class StoredPictures:
    """Finds and renders the picture of a delivery from the match's stored steps."""

    def __init__(
        self, store: Callable[[], Store | None], budget_s: float = RENDER_BUDGET_S
    ) -> None:
        self._store = store
        self._budget_s = budget_s
        # match id -> (its game if it draws seat pictures, its players' names)
        self._games: dict[int, tuple[registry.GameInfo | None, tuple[str, ...]]] = {}

    async def __call__(self, delivery: Delivery) -> Picture | None:
        try:
            async with asyncio.timeout(self._budget_s):
                return await self._find(delivery)
        except TimeoutError:
            log.warning(
                "picture for message %d of match %d took over %.1f s; sent without it",
                delivery.message_id,
                delivery.match_id,
                self._budget_s,
            )
        except Exception:
            log.warning(
                "picture for message %d of match %d failed; sent without it",
                delivery.message_id,
                delivery.match_id,
                exc_info=True,
            )
        return None

    async def _find(self, delivery: Delivery) -> Picture | None:
        store = self._store()
        payload = delivery.payload
        kind, step = payload.get("kind"), payload.get("step")
        audience = delivery.audience
        if store is None or not isinstance(step, int):
            return None
        if audience.kind == "public" and kind == "turn":
            return await self._end_card(store, delivery.match_id, step)
        if audience.seat is not None and kind in SEAT_PICTURE_KINDS:
            return await self._seat_picture(store, delivery.match_id, step, audience.seat)
        return None

    async def _end_card(self, store: Store, match_id: int, step: int) -> Picture | None:
        """The end post: the public message of a finished match's last step."""
        record = await store.get_match(match_id)
        if record is None or record.status != "finished" or record.step != step:
            return None
        info = registry.load(record.game)
        steps = await store.steps(match_id)

        def draw() -> Picture:  # off the loop: the chart's states are replayed from the log
            game = info.game
            if hooks.charts_scores(info):
                states = [state for _, state, _ in history.replay(game, record, steps)]
            else:  # the last state alone, which the store keeps
                states = [game.load(steps[-1].snapshot)]
            card = hooks.end_card_of_states(
                info, record.names, record.outcome, states, f"Match {match_id}"
            )
            return render(card)

        picture = await asyncio.to_thread(draw)
        return Picture(picture.png, picture.description, f"match-{match_id}-end.png")

    async def _seat_picture(
        self, store: Store, match_id: int, step: int, seat: int
    ) -> Picture | None:
        known = self._games.get(match_id)
        if known is None:  # a match's game and names never change: read them once
            record = await store.get_match(match_id)
            if record is None:
                return None
            game = registry.load(record.game)
            known = (game if hooks.has_seat_picture(game) else None, record.names)
            if len(self._games) >= GAMES_KEPT:
                self._games.pop(next(iter(self._games)))
            self._games[match_id] = known
        info, names = known
        if info is None:
            return None
        latest = await store.latest_step(match_id)
        if latest.step == step:
            snapshot = latest.snapshot
        else:  # an older prompt's: replayed from the checkpoint before it, off the loop
            steps = await store.steps(match_id)
            snapshot = await asyncio.to_thread(history.snapshot_at, info.game, steps, step)
            if snapshot is None:
                return None
        return await asyncio.to_thread(hooks.seat_picture, info, snapshot, seat, names)


def client_store(client: discord.Client) -> Store | None:
    """The store of the host the client runs (``FloralBot.host``), once it has started."""
    try:
        host = getattr(client, "host", None)
    except AssertionError:  # FloralBot before setup_hook
        return None
    return cast("Store | None", getattr(host, "store", None))


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


HELP_LINE = "❔ Type `help` for what this decision's choices do."


def prompt_on_discord(text: str, request: Mapping[str, Any], help_button: bool = True) -> str:
    """A prompt's text as Discord shows it: its deadline once, as a live countdown (the last
    line, ``bot.outbox.deadline_line``), and no list of the choices its buttons and menus show;
    without a Help button (its rows are full) a line says how to ask for help."""
    lines = text.split("\n")
    if lines[-1].startswith(DEADLINE_MARK):
        lines.pop()
    if request.get("choices") and lines and lines[-1].startswith(CHOICES_MARK):
        lines.pop()
    if not help_button:
        lines.append(HELP_LINE)
    lines.append(deadline_line(request, 0.0, countdown=True))
    return "\n".join(lines)


def offers_help(view: discord.ui.View | None) -> bool:
    """Whether a prompt's buttons include its Help button."""
    children = view.children if view is not None else []
    return any(str(getattr(item, "custom_id", "")).startswith(HELP_PREFIX) for item in children)


@dataclass(frozen=True, slots=True)
class Reply:
    """A message answering a player, carrying their next messages: its text, and its view and
    file as ``send`` takes them."""

    content: str
    kwargs: dict[str, Any]


class DiscordTransport:
    """Delivers the host's outbox through a connected discord.py client."""

    def __init__(
        self,
        client: discord.Client,
        view_factory: ViewFactory,
        log_channel: LogChannelFinder,
        pictures: PictureFinder | None = None,
        end_view: EndViewFactory | None = None,
        cards: CardFinder | None = None,
        threads: bool = False,
        dm_channels: DmChannels | None = None,
    ) -> None:
        """``pictures``: the picture of a delivery; by default rendered from the store of the
        client's host (none for a client without one). ``end_view``: the buttons of a match's
        end post (a Rematch button). ``dm_channels``: the users' DM channels, by default
        stored in the store of the client's host."""
        self._client = client
        self._view_factory = view_factory
        self._end_view = end_view
        self._cards = cards or MatchCards(lambda: client_store(client))
        self._threads = threads  # a match's posts after its first go to a thread started there
        self._thread_ids: dict[int, int] = {}  # match id -> its thread
        self._log_channel = log_channel
        self._pictures = pictures or StoredPictures(lambda: client_store(client))
        self._dm_channels = dm_channels or DmChannels(client, lambda: client_store(client))
        self._parts_sent: dict[int, int] = {}
        self._turns = ChannelTurns()
        self._rendered: dict[int, Picture | None] = {}  # kept across a retry of the message

    async def send(self, delivery: Delivery) -> float | None:
        try:
            return await self._send_mapped(delivery)
        except PermanentError:
            self._rendered.pop(delivery.message_id, None)  # never sent again
            raise

    async def _send_mapped(self, delivery: Delivery) -> float | None:
        try:
            return await self._send(delivery)
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

    async def _send(self, delivery: Delivery) -> float | None:
        """The delivery sent; for a DM, when Discord says its last part was posted (the time
        of the first post, for a resend its nonce dropped)."""
        audience = delivery.audience
        if audience.kind == "public":
            await self._to_channel(delivery)
        elif audience.kind == "seat":
            assert delivery.user_id is not None
            request = delivery.payload.get("request")
            sent = await self._dm_channels.send(
                delivery.user_id, lambda dm: self._post(delivery, dm, request)
            )
            return None if sent is None else sent.created_at.timestamp()
        else:
            await self._to_moderators(delivery)
        return None

    async def _to_channel(self, delivery: Delivery) -> None:
        """A match post: to its channel, or with threads on, to the match's thread, which its
        first post starts. A thread Discord refuses to start, or one that is gone, leaves the
        match's posts in the channel from then on (stored, so never asked for again), said once:
        a refusal to the moderators, a thread gone in the channel."""
        channel = self._client.get_partial_messageable(delivery.channel_id)
        store = client_store(self._client) if self._threads else None
        if store is None:
            await self._post(delivery, channel)
            return
        match_id = delivery.match_id
        thread_id = self._thread_ids.get(match_id)
        if thread_id is None:
            thread_id = await store.thread_of(match_id)
        if thread_id == IN_CHANNEL:
            await self._post(delivery, channel)
        elif thread_id is not None:
            self._thread_ids[match_id] = thread_id
            await self._to_thread(delivery, thread_id, store)
        else:
            first = await self._post(delivery, channel)
            if first is not None:
                await self._start_thread(delivery, first, store)

    async def _to_thread(self, delivery: Delivery, thread_id: int, store: Store) -> None:
        try:
            await self._post(delivery, self._client.get_partial_messageable(thread_id))
            return
        except discord.HTTPException as error:
            if not thread_unusable(error):
                raise
            reason = f"{error.status} {error.text or 'no detail'}"
        self._parts_sent.pop(delivery.message_id, None)  # gone with the thread: all again
        match_id = delivery.match_id
        channel = self._client.get_partial_messageable(delivery.channel_id)
        if self._thread_ids.get(match_id) != IN_CHANNEL:  # the first post to find it gone
            self._thread_ids[match_id] = IN_CHANNEL
            log.warning(
                "the thread of match %d is gone (%s): back to its channel", match_id, reason
            )
            await store.set_thread(match_id, IN_CHANNEL)
            await self._create(
                channel,
                f"⚠ The thread of match m{match_id} is gone ({reason}):"
                " its posts come here from now on.",
            )
        await self._post(delivery, channel)

    async def _start_thread(self, delivery: Delivery, first: discord.Message, store: Store) -> None:
        match_id = delivery.match_id
        record = await store.get_match(match_id)
        title = registry.load(record.game).title if record is not None else "a match"
        try:
            data = await self._client.http.start_thread_with_message(
                delivery.channel_id,
                first.id,
                name=f"Match m{match_id}: {title}"[:100],
                auto_archive_duration=1440,
                rate_limit_per_user=None,
            )
        except discord.HTTPException as error:
            if error.status >= 500 or error.status == 429:
                log.warning("no thread for match %d yet (%s): the next post asks", match_id, error)
                return
            await self._thread_refused(delivery, error, store)
            return
        self._thread_ids[match_id] = int(data["id"])
        await store.set_thread(match_id, int(data["id"]))

    async def _thread_refused(
        self, delivery: Delivery, error: discord.HTTPException, store: Store
    ) -> None:
        """Decided once: the match stays in its channel; the moderators are told why (in their
        log channel, or without one in the match's channel)."""
        match_id = delivery.match_id
        self._thread_ids[match_id] = IN_CHANNEL
        await store.set_thread(match_id, IN_CHANNEL)
        reason = f"{error.status} {error.text or 'no detail'}"
        log.warning("no thread for match %d (%s): its posts stay in the channel", match_id, reason)
        advice = (
            " Give the bot Create Public Threads and Send Messages in Threads there, or unset"
            " FLORAL_THREADS."
            if error.status == 403
            else ""
        )
        told = self._log_channel(delivery) or delivery.channel_id
        try:  # the post itself is sent: a log channel the bot may not use must not fail it
            await self._create(
                self._client.get_partial_messageable(told),
                f"⚠ I cannot start a thread for match m{match_id} in <#{delivery.channel_id}>:"
                f" Discord refused ({reason}). Its posts stay in the channel.{advice}",
            )
        except discord.HTTPException as error:
            log.warning("cannot tell the moderators of match %d: %s", match_id, error)

    async def _to_moderators(self, delivery: Delivery) -> None:
        channel_id = self._log_channel(delivery)
        if channel_id is not None:
            entries = replace(delivery, text=log_text(delivery), also=())
            await self._post(entries, self._client.get_partial_messageable(channel_id))
            return
        if delivery.payload.get("kind") != "unreachable":
            return  # no log channel: the hidden state is simply not logged
        for moderator_id in delivery.moderator_ids:
            try:
                await self._dm_channels.send(moderator_id, lambda dm: self._post(delivery, dm))
            except discord.Forbidden:
                log.warning("cannot DM moderator %d of match %d", moderator_id, delivery.match_id)

    async def _post(
        self,
        delivery: Delivery,
        channel: discord.PartialMessageable,
        request: Mapping[str, Any] | None = None,
    ) -> discord.Message | None:
        """Send the delivery's parts not sent yet; the last part sent, if any."""
        text = delivery.text
        view = self._buttons(delivery, request)
        if request is not None:
            text = prompt_on_discord(text, request, offers_help(view))
        parts = split_text(text)
        done = self._parts_sent.get(delivery.message_id, 0)
        sent: discord.Message | None = None
        picture = await self._picture(delivery) if delivery.audience.kind != "moderators" else None
        card = await self._card(delivery)
        for index in range(done, len(parts)):
            last = index == len(parts) - 1
            kwargs: dict[str, Any] = {}
            if last and view is not None:
                kwargs["view"] = view
            if last and card is not None:
                kwargs["embed"] = card
            if last and picture is not None:
                kwargs["file"] = discord.File(
                    io.BytesIO(picture.png),
                    filename=picture.filename,
                    description=picture.description,
                )
            # The nonce makes Discord drop a resend of a part it already posted: after a crash
            # between posting and marking the outbox row delivered, nobody sees it twice.
            nonce = f"fh{delivery.message_id}.{index}"
            sent = await self._create(channel, parts[index], nonce=nonce, **kwargs)
            self._parts_sent[delivery.message_id] = index + 1
        self._parts_sent.pop(delivery.message_id, None)
        self._rendered.pop(delivery.message_id, None)
        return sent

    async def _create(
        self, channel: discord.PartialMessageable, content: str, **kwargs: Any
    ) -> discord.Message:
        async with self._turns.turn(channel.id):
            return await channel.send(content, **kwargs)

    async def reply(self, head: str, deliveries: Sequence[Delivery]) -> Reply | None:
        """``head`` (an answer's acknowledgement) and the seat's next messages as one Discord
        message, its prompt's buttons and picture on it; None when they do not fit one (too
        long, or two prompts or pictures): the outbox then sends them as it would have."""
        texts, view, picture = [head], None, None
        for delivery in deliveries:
            request = delivery.payload.get("request")
            buttons = self._buttons(delivery, request)
            drawn = await self._picture(delivery)
            self._rendered.pop(delivery.message_id, None)
            if (buttons and view) or (drawn and picture):
                return None
            view, picture = buttons or view, drawn or picture
            shown = delivery.text
            if isinstance(request, Mapping):
                shown = prompt_on_discord(shown, request, offers_help(buttons))
            texts.append(shown)
        content = "\n".join(texts)
        if len(content) > MESSAGE_LIMIT:
            return None
        kwargs: dict[str, Any] = {} if view is None else {"view": view}
        if picture is not None:
            kwargs["file"] = discord.File(
                io.BytesIO(picture.png), filename=picture.filename, description=picture.description
            )
        return Reply(content, kwargs)

    async def _card(self, delivery: Delivery) -> discord.Embed | None:
        """The delivery's embed; a failure sends the text alone (it says everything)."""
        try:
            return await self._cards(delivery)
        except Exception:
            log.warning(
                "the embed of message %d failed; sent without it",
                delivery.message_id,
                exc_info=True,
            )
            return None

    def _buttons(
        self, delivery: Delivery, request: Mapping[str, Any] | None
    ) -> discord.ui.View | None:
        """A prompt's choices, or the end post's Rematch (or Practice again)."""
        if request is not None:
            return self._view_factory(request)
        over = delivery.audience.kind == "public" and delivery.payload.get("over") is True
        return self._end_view(delivery) if over and self._end_view else None

    async def _picture(self, delivery: Delivery) -> Picture | None:
        if delivery.message_id not in self._rendered:
            picture = await self._pictures(delivery)
            while len(self._rendered) >= RENDERED_KEPT:  # messages the worker gave up on
                self._rendered.pop(next(iter(self._rendered)))
            self._rendered[delivery.message_id] = picture
        return self._rendered[delivery.message_id]


def thread_unusable(error: discord.HTTPException) -> bool:
    """Whether a post to a match's thread failed for good: the thread is deleted (404), the bot
    may not post there (403), or it is archived and locked (400, code 50083)."""
    return error.status in (403, 404) or error.code == THREAD_ARCHIVED


def _describe(error: discord.HTTPException) -> str:
    return f"{error.status} (code {error.code}): {error.text or 'no detail'}"
