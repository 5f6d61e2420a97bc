"""Delivery: order per audience, retries of transient failures, reports of permanent ones."""

from __future__ import annotations

import asyncio
import itertools
from typing import cast

import pytest

from bot import outbox
from bot.outbox import ChannelPace, late_delivery, prompt_text
from bot.transport import (
    POST_LIMIT,
    Delivery,
    PermanentError,
    TransientError,
    log_text,
    request_to_json,
)
from games.protocol import Choice, Request, to_seat
from tests.bot.conftest import (
    PLAYERS,
    HostEnv,
    OffsetClock,
    RecordingTransport,
    eventually,
    start_host,
)


async def test_transient_failures_are_retried_in_order(env: HostEnv) -> None:
    env.transport.failures["seat0"] = [TransientError("503"), TransientError("429", 0.02)]
    record = await env.new_match(window_s=3600)
    await env.host.wait_idle()

    seat0 = env.transport.to("seat0", record.id)
    assert [d.payload["kind"] for d in seat0] == ["setup", "start"]  # hello first, still
    tried = [d.message_id for d in env.transport.attempts if str(d.audience) == "seat0"]
    assert tried == [seat0[0].message_id] * 3 + [seat0[1].message_id]
    # the other audiences were not held up
    assert len(env.transport.to("seat1", record.id)) == 2
    rows = await env.host.store.outbox(record.id)
    assert {row.status for row in rows} == {"sent"}
    assert [row.tries for row in rows if row.message.audience == "seat0"] == [3, 1]


async def test_permanent_failure_is_reported_once_with_the_fallback(env: HostEnv) -> None:
    env.transport.failures["seat1"] = [PermanentError("Cannot send messages to this user")] * 3
    record = await env.new_match(window_s=3600)
    for user in PLAYERS:  # a second step: the player is still unreachable
        assert (await env.host.submit(record.id, user, "1")).accepted
    await env.host.wait_idle()

    reports = [d for d in env.transport.sent if d.payload["kind"] == "unreachable"]
    assert sorted(str(d.audience) for d in reports) == ["moderators", "public"]
    public = next(d for d in reports if str(d.audience) == "public")
    assert f"<@{PLAYERS[1]}>" in public.text and "/submit" in public.text
    rows = await env.host.store.outbox(record.id)
    assert [r.status for r in rows if r.message.audience == "seat1"] == ["failed"] * 3
    log = [e for e in await env.host.store.match_log(record.id) if e.kind == "unreachable"]
    assert [(e.by_user, e.data["seat"]) for e in log] == [(PLAYERS[1], 1)]


async def test_moderator_log_failure_is_not_reported_to_players(env: HostEnv) -> None:
    env.transport.failures["moderators"] = [PermanentError("missing access")]
    record = await env.new_match(window_s=3600)
    await env.host.wait_idle()
    assert not [d for d in env.transport.sent if d.payload["kind"] == "unreachable"]
    assert env.transport.to("public", record.id)


async def test_an_unreachable_player_is_not_reported_again_after_a_restart(env: HostEnv) -> None:
    env.transport.failures["seat1"] = [PermanentError("Cannot send messages to this user")] * 5
    record = await env.new_match(window_s=3600)
    await env.host.wait_idle()
    await env.reopen()
    for user in PLAYERS:  # the next step's DM fails again, after the restart
        assert (await env.host.submit(record.id, user, "1")).accepted
    await env.host.wait_idle()
    reports = [d for d in env.transport.sent if d.payload["kind"] == "unreachable"]
    assert sorted(str(d.audience) for d in reports) == ["moderators", "public"]


async def test_a_failing_log_channel_never_holds_up_the_prompts(env: HostEnv) -> None:
    """150 matches whose log channel answers 503 to every post: two log posts per match are
    older than the step 2 prompts, yet every prompt goes out while those posts are retried."""
    env.transport.failures["moderators"] = [TransientError("503", retry_after=1.0)] * 10**5
    matches = 150
    records = await asyncio.gather(
        *(env.new_match(window_s=3600, seed=n, config={"rounds": 3}) for n in range(matches))
    )
    answers = [env.host.submit(r.id, user, "1") for r in records for user in PLAYERS]
    assert all(result.accepted for result in await asyncio.gather(*answers))

    def prompted() -> int:
        return len(
            {
                (d.match_id, str(d.audience))
                for d in env.transport.sent
                if d.payload.get("request", {}).get("step") == 2
            }
        )

    await eventually(lambda: prompted() == 2 * matches)
    mod_rows = [
        row
        for record in records
        for row in await env.host.store.outbox(record.id)
        if row.message.audience == "moderators"
    ]
    assert len(mod_rows) == 2 * matches
    assert {row.status for row in mod_rows} == {"pending"}  # still retried, never given up
    assert not [d for d in env.transport.sent if str(d.audience) == "moderators"]


async def test_a_send_held_up_inside_the_transport_holds_up_only_its_own_queue(
    env: HostEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """discord.py waits inside a send for a channel's rate limit (5 s for a DM channel's
    fifth message in 5 s): the other queues go on meanwhile, the held one keeps its order,
    and the held message is sent and recorded once when it goes."""
    monkeypatch.setattr(outbox, "PASS_WAIT_S", 0.05)
    release = env.transport.stalls["seat0"] = asyncio.Event()
    held = await env.new_match(window_s=3600)
    other = await env.new_match(window_s=3600, seed=1)
    for user in PLAYERS:  # the other match's next step, while the send is still held
        assert (await env.host.submit(other.id, user, "1")).accepted

    def step_two_prompted() -> bool:
        return any(d.payload.get("kind") == "turn" for d in env.transport.to("seat0", other.id))

    await eventually(step_two_prompted)
    assert env.transport.to("seat1", held.id)  # its other seat's queue too
    assert not env.transport.to("seat0", held.id)  # held, and its next message behind it
    release.set()
    await env.host.wait_idle()
    seat0 = env.transport.to("seat0", held.id)
    assert [d.payload["kind"] for d in seat0] == ["setup", "start"]
    rows = await env.host.store.outbox(held.id)
    assert {(row.status, row.tries) for row in rows} == {("sent", 1)}


async def test_direct_messages_go_out_before_channel_posts(env: HostEnv) -> None:
    await env.host.worker.stop()  # a backlog: everything of two matches waits at once
    records = [await env.new_match(window_s=3600, seed=n) for n in range(2)]
    env.host.worker.start()
    env.host.worker.wake()
    await env.host.wait_idle()
    first_pass = [(d.match_id, str(d.audience)) for d in env.transport.attempts[:8]]
    dms = [(r.id, f"seat{seat}") for r in records for seat in range(2)]
    posts = [(r.id, audience) for r in records for audience in ("public", "moderators")]
    assert first_pass == dms + posts  # each queue's head, the players' first


@pytest.mark.parametrize(("count", "size"), [(3, 5), (40, 20), (200, 300), (1, 1500)])
def test_a_prompt_names_the_choices_that_fit_and_keeps_its_deadline_line(
    count: int, size: int
) -> None:
    choices = tuple(Choice(f"{n:03d}" + "x" * (size - 3), "") for n in range(count))
    request = Request(0, "pick", "Pick one.", choices, "nothing", 60.0)
    text = prompt_text(request, deadline=1060.0, now=1000.0)
    assert len(text) <= 2000
    assert text.splitlines()[-1].startswith("⏳ Answer within 60 s")
    named = [choice.value for choice in choices if choice.value in text]
    assert named == [choice.value for choice in choices[: len(named)]]  # the first ones, in order
    if len(named) < count:
        assert f"… and {count - len(named)} more (see the menu)" in text
    else:
        assert "more (see the menu)" not in text


async def test_a_practice_is_one_queue_in_commit_order_results_before_the_next_prompt(
    env: HostEnv,
) -> None:
    """Its posts and its player's DMs share one DM channel: a step's public results go out
    before the seat's message with the next prompt, and the hello before the start."""
    record = await env.new_match(practice=True, window_s=3600)
    for user in PLAYERS:
        assert (await env.host.submit(record.id, user, "4")).accepted
    await env.host.wait_idle()
    sent = [(d.payload["kind"], str(d.audience)) for d in env.transport.sent]
    assert sent == [
        ("setup", "seat0"),
        ("setup", "seat1"),
        ("start", "public"),
        ("start", "seat0"),
        ("start", "seat1"),
        ("start", "moderators"),
        ("turn", "public"),
        ("turn", "seat0"),
        ("turn", "seat1"),
        ("turn", "moderators"),
    ]


def test_a_short_delay_moves_the_deadline_without_a_word() -> None:
    request = Request(0, "pick", "Pick one.", (Choice("a", "A"),), "nothing", 60.0)
    payload = {"request": request_to_json(request, 1, 1, 1060.0)}
    prompt = Delivery(1, 1, 0, 0, to_seat(0), 5, (), prompt_text(request, 1060.0, 1000.0), payload)
    for late, told in ((4.9, False), (5.0, True)):
        moved = late_delivery(prompt, late, late, 1000.0 + late)
        assert moved.payload["request"]["deadline"] == 1060.0 + late
        assert ("reached you" in moved.text) == told
        assert moved.text.splitlines()[-1].startswith("⏳ ")


class TimedTransport(RecordingTransport):
    """Records when each delivery's send began, on the host's clock."""

    def __init__(self, clock: OffsetClock) -> None:
        super().__init__()
        self.clock = clock
        self.times: list[float] = []

    async def send(self, delivery: Delivery) -> float | None:
        began = self.clock()
        posted = await super().send(delivery)
        self.times.append(began)
        return posted


def log_channel(delivery: Delivery) -> int | None:
    return LOG if delivery.audience.kind == "moderators" else None


LOG = 77


async def paced_log_env(
    database: str, transport_type: type[TimedTransport] = TimedTransport
) -> HostEnv:
    """A host whose log channel is shared and takes a post each 0.5 s (the tests' pace)."""
    clock = OffsetClock()
    transport = transport_type(clock)
    pace = ChannelPace(posts=1, per_s=0.5)
    host = await start_host(
        database, transport, clock, retry_base_s=0.01, shared_channel=log_channel, pace=pace
    )
    return HostEnv(database, clock, transport, host, {})


async def test_a_shared_log_channel_gets_its_posts_a_window_the_matches_entries_together(
    database: str,
) -> None:
    """100 matches of one server start at once: their 100 log entries go to the log channel in
    posts of several matches' entries, as many as fit a message, each headed by its match's
    id, and the channel never gets more than its post each 0.5 s (the test's pace), while
    every seat's DM goes out at once."""
    env = await paced_log_env(database)
    host, transport = env.host, cast(TimedTransport, env.transport)
    try:
        await host.worker.stop()  # a backlog: every match's messages wait at once
        records = [await env.new_match(window_s=3600, seed=n) for n in range(100)]
        host.worker.start()
        host.worker.wake()
        await host.wait_idle()
    finally:
        await host.close()

    logs = [
        (d, at) for d, at in zip(transport.sent, transport.times, strict=True) if log_channel(d)
    ]
    times = [at for _, at in logs]
    assert all(later - earlier >= 0.5 - 0.02 for earlier, later in itertools.pairwise(times)), [
        b - a for a, b in itertools.pairwise(times)
    ]
    entries = [entry for d, _ in logs for entry in (d, *d.also)]
    per_match = {r.id: [e.payload["kind"] for e in entries if e.match_id == r.id] for r in records}
    assert per_match == {r.id: ["start"] for r in records}  # each once (the toy's: one a match)
    assert 2 <= len(logs) <= 3  # together, in as few posts as fit
    for delivery, _ in logs:
        text = log_text(delivery)
        assert len(text) <= POST_LIMIT
        assert [line.split(" · ")[0] for line in text.splitlines()] == [
            f"**m{entry.match_id}**" for entry in (delivery, *delivery.also)
        ]
    first_log = min(times)
    dms = [at for d, at in zip(transport.sent, transport.times, strict=True) if d.user_id]
    assert len(dms) == 4 * len(records) and max(dms) <= first_log + 0.5  # not held up


async def test_a_matchs_log_entries_due_while_its_channel_is_paced_go_in_one_post(
    database: str,
) -> None:
    """A match played faster than its log channel takes posts: the entries that queue up
    meanwhile go together, in order, each once, and the channel keeps its pace."""
    env = await paced_log_env(database)
    host, transport = env.host, cast(TimedTransport, env.transport)
    rounds = 8
    try:
        record = await env.new_match(window_s=3600, config={"rounds": rounds})
        for step in range(1, rounds + 1):
            for user in PLAYERS:
                assert (await host.submit(record.id, user, "1")).accepted
            await eventually(
                lambda step=step: all(p.step > step for p in host.prompts_for(PLAYERS[0]))
            )
        await host.wait_idle()
        rows = await host.store.outbox(record.id)
    finally:
        await host.close()
    logs = [
        (d, at) for d, at in zip(transport.sent, transport.times, strict=True) if log_channel(d)
    ]
    entries = [entry for d, _ in logs for entry in (d, *d.also)]
    assert [e.payload["step"] for e in entries] == list(range(rounds + 1))  # in order, once
    assert len(logs) <= 3, [len(d.also) for d, _ in logs]
    times = [at for _, at in logs]
    assert all(later - earlier >= 0.5 - 0.02 for earlier, later in itertools.pairwise(times))
    assert all(len(log_text(d)) <= POST_LIMIT for d, _ in logs)
    assert {(row.status, row.tries) for row in rows} == {("sent", 1)}


async def test_a_shared_channel_holds_its_posts_without_holding_up_the_others(
    database: str,
) -> None:
    """A match channel shared by matches without threads: its posts wait for the channel's
    window (each a post of its own: only log entries are put together); each is sent once."""

    def public(delivery: Delivery) -> int | None:
        return delivery.channel_id if delivery.audience.kind == "public" else None

    clock = OffsetClock()
    transport = TimedTransport(clock)
    host = await start_host(
        database,
        transport,
        clock,
        retry_base_s=0.01,
        shared_channel=public,
        pace=ChannelPace(posts=3, per_s=0.5),
    )
    env = HostEnv(database, clock, transport, host, {})
    try:
        await host.worker.stop()
        records = [await env.new_match(window_s=3600, seed=n) for n in range(7)]
        host.worker.start()
        host.worker.wake()
        await host.wait_idle()
        rows = [row for r in records for row in await host.store.outbox(r.id)]
    finally:
        await host.close()
    posts = [at for d, at in zip(transport.sent, transport.times, strict=True) if public(d)]
    assert len(posts) == len(records)  # one start post each, none put together
    assert posts[3] - posts[0] >= 0.5 - 0.02 and posts[6] - posts[3] >= 0.5 - 0.02
    assert not [d for d in transport.sent if d.also]
    assert {row.status for row in rows} == {"sent"} and {row.tries for row in rows} == {1}


def test_a_channel_pace_counts_the_posts_of_its_window_and_forgets_idle_channels() -> None:
    pace = ChannelPace(posts=5, per_s=5.0)
    assert pace.free("log", 100.0) == 5
    for at in (100.0, 100.0, 101.0, 101.0, 101.0):
        pace.take("log").landed(at)
    assert pace.free("log", 104.9) == 0 and pace.free("other", 104.9) == 5
    assert pace.next_free("log") == 105.0
    assert pace.free("log", 105.0) == 2  # the first two left the window
    pace.forget_idle(106.0)
    assert pace._posts == {}


def test_a_post_counts_while_it_is_sent_and_from_its_end() -> None:
    """A send may wait inside the transport (the request budget serves prompts first) and
    reach Discord as late as its end: the pace counts it from then, and meanwhile has no time
    to give (the send's end wakes the worker)."""
    pace = ChannelPace(posts=1, per_s=5.0)
    post = pace.take("log")
    assert pace.free("log", 200.0) == 0 and pace.next_free("log") is None
    post.landed(103.0)
    assert pace.free("log", 107.9) == 0 and pace.next_free("log") == 108.0
    assert pace.free("log", 108.0) == 1


class HeldFirstTransport(TimedTransport):
    """The first log post waits 0.3 s inside the send, as behind the request budget's prompts;
    records when each send ended (``landed``), the latest a post reaches Discord."""

    def __init__(self, clock: OffsetClock) -> None:
        super().__init__(clock)
        self.landed: list[tuple[Delivery, float]] = []

    async def send(self, delivery: Delivery) -> float | None:
        if log_channel(delivery) and not any(log_channel(d) for d, _ in self.landed):
            await asyncio.sleep(0.3)
        posted = await super().send(delivery)
        self.landed.append((delivery, self.clock()))
        return posted


async def test_a_log_post_held_up_in_the_send_does_not_bring_the_next_closer(
    database: str,
) -> None:
    """The first of a shared log channel's posts waits inside its send: the next goes a whole
    pace after it ended, not after it began, so no two reach the channel closer than the pace
    (counted from their start, the second came 0.2 s after the first: Discord's 429)."""
    env = await paced_log_env(database, HeldFirstTransport)
    host, transport = env.host, cast(HeldFirstTransport, env.transport)
    try:
        await host.worker.stop()  # a backlog: every match's messages wait at once
        for n in range(100):
            await env.new_match(window_s=3600, seed=n)
        host.worker.start()
        host.worker.wake()
        await host.wait_idle()
    finally:
        await host.close()
    logs = [at for d, at in transport.landed if log_channel(d)]
    assert len(logs) >= 2
    assert all(later - earlier >= 0.5 - 0.02 for earlier, later in itertools.pairwise(logs)), [
        round(b - a, 3) for a, b in itertools.pairwise(logs)
    ]
