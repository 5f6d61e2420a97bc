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
    ``add_channel``, ``add_role``, ``add_user``, ``add_member`` by hand; ``await
    fake.remove_member(guild, user)`` (a member leaves: 404 Unknown Member when fetched).
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
    ``await fake.wait_for_message(pred, to=user | channel=ch, after=mark, timeout=10)``;
    ``fake.mark()`` a checkpoint for ``after``; ``await fake.wait_until(check, what=...)``;
    ``fake.requests`` / ``fake.requests_matching("POST /channels/{channel_id}/messages")``;
    ``fake.command("floral setup")`` the synced command/subcommand schema; ``fake.command_id``;
    ``fake.max_messages_per_window(channel, 5.0)``; ``await fake.settle()`` waits until the bot
    has made no request for 0.1 s (before asserting that nothing more was sent);
    ``fake.sessions[-1].intents``, ``fake.identifies``, ``fake.resumes``, ``fake.syncs``.

Sharding (several bot processes, as Discord does it): IDENTIFY's ``shard`` [id, count] gives a
session the guilds with ``(guild_id >> 22) % count == id`` and their events; DMs and DM
interactions go to shard 0 alone. ``fake.build_world(shard=(1, 2))`` / ``fake.add_guild(name,
shard=(0, 2))`` put a guild on a shard. ``fake.global_limit = 50`` enforces Discord's global
limit per token, every session's requests together (interaction answers not counted): past it,
a global 429; ``fake.global_limited`` counts them, ``fake.max_requests_per_second()`` is the
busiest second seen (counted whether or not the limit is enforced). Discord's limit on creating
messages in one channel (guild channel, thread or DM) is enforced where a test turns it on
(the suite's players answer faster than people can): ``fake.channel_posts = CHANNEL_POSTS``
(5, 5.0), at most 5 ``POST /channels/{channel_id}/messages`` in any 5 s (a sliding window;
None, the default, turns it off); past it a 429 of the route's
bucket (``X-RateLimit-Scope: user``, ``retry_after`` when a place frees), and every answer of
the route carries the bucket's headers (Limit, Remaining, Reset, Reset-After, Bucket), by which
discord.py waits instead of being refused. ``fake.channel_limited[channel.id]`` counts a
channel's 429s. Interaction answers and webhook follow-ups are not that route: not limited.

Faults:
    ``fake.rate_limit("POST /channels/{channel_id}/messages", times=1, retry_after=0.05)``,
    ``fake.fail("PATCH /channels/{channel_id}/messages/{message_id}", status=500, times=2)``
    (both accept ``channel=`` or ``where={param: value}``; they return a :class:`Fault` whose
    ``hits`` counts answers), ``fake.slow("POST /channels/{channel_id}/messages", 1.2)`` (every
    such request answered 1.2 s late, as over a slow connection), ``fake.close_dms(user)``
    (403 code 50007 on every DM send to that user until ``open_dms``),
    ``await fake.threads.delete(thread)`` (posting there answers 404 code 10003 Unknown
    Channel), a bot without Create Public Threads (``set_overwrite(channel, fake.bot_user,
    deny=Perm.CREATE_PUBLIC_THREADS)``: starting a thread answers 403 code 50013),
    ``await fake.drop_gateway()`` (close 4000: the client RESUMEs; dispatches meanwhile are
    replayed), ``await fake.send_reconnect()`` (op 7),
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

Modules: ``facade`` (:class:`FakeDiscord`: world building, lifecycle, waiting, observing),
``entities`` (users, roles, channels, guilds, members, messages, :class:`World`), ``gateway``
(websocket sessions, dispatch, RESUME), ``rest`` (HTTP plumbing, recording, read-only routes),
``commands`` (command sync routes and lookups), ``messages`` (message routes), ``interactions``
(callbacks, followups, webhook edits, the first-answer deadline), ``actions`` (acting as users),
``faults`` (injected errors, closed DMs, gateway drops), ``buckets`` (rate-limit headers, the
429, the per-channel message limit), ``limits`` (Discord's limits and the
50035 error shape), ``base`` (JSON, flags, errors).
"""

from .base import DISCORD_EPOCH_MS, JSON, ApiError, FakeDiscordError, Intent, MsgFlag, Perm
from .buckets import CHANNEL_POSTS
from .entities import Attachment, Channel, Guild, Message, Role, User, World
from .facade import FakeDiscord, point_discord_py_at
from .faults import Fault
from .gateway import Session
from .interactions import Interaction
from .limits import EMBED_LIMITS, FormError, form_errors
from .limits import component_errors as _component_errors
from .rest import RecordedRequest

__all__ = [
    "CHANNEL_POSTS",
    "DISCORD_EPOCH_MS",
    "EMBED_LIMITS",
    "JSON",
    "ApiError",
    "Attachment",
    "Channel",
    "FakeDiscord",
    "FakeDiscordError",
    "Fault",
    "FormError",
    "Guild",
    "Intent",
    "Interaction",
    "Message",
    "MsgFlag",
    "Perm",
    "RecordedRequest",
    "Role",
    "Session",
    "User",
    "World",
    "_component_errors",
    "form_errors",
    "point_discord_py_at",
]
