"""Fair clocks: a prompt that opens a window and reaches its seat later than the allowance
(2 s by default) after its commit moves the window's deadline by the delay, at most the cap
(30 s), and the prompt the seat gets shows its new deadline. The transport fails a seat's
prompt once with a ``retry_after``, so the worker's retry delays it by a known amount on the
manual clock."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.outbox import clock_text
from bot.store import MatchRecord
from bot.transport import PermanentError, TransientError
from tests.bot.conftest import PLAYERS, HostEnv, eventually

WINDOW_S = 60.0


async def start_with_late_prompts(env: HostEnv, delays: dict[str, float]) -> MatchRecord:
    """A started match whose seats' first prompts wait ``delays`` (audience -> seconds) for a
    retry; returns once every delayed prompt was tried once."""
    record = await env.new_match(start=False, window_s=WINDOW_S)
    await env.host.wait_idle()  # the hellos go out on time
    for audience, delay in delays.items():
        env.transport.failures[audience] = [TransientError("503", retry_after=delay)]
    tried = len(env.transport.attempts)
    record = await env.host.start_match(record.id)
    await eventually(lambda: len(env.transport.attempts) >= tried + len(PLAYERS) + 1)
    return record


async def deliver_after(
    env: HostEnv, seconds: float, until: Callable[[], bool] | None = None
) -> None:
    """Let ``seconds`` pass on the manual clock and the retried prompts go out; with a retry
    still pending the outbox is never idle, so wait ``until`` instead."""
    assert env.timers is not None
    await env.timers.advance(seconds)
    env.host.worker.wake()
    if until is not None:
        await eventually(until)
        return
    await env.host.wait_idle()
    await env.host.wait_idle()  # what the late prompt's report committed


async def deadline(env: HostEnv, match_id: int) -> float:
    window = (await env.host.status(match_id)).window
    assert window is not None
    return window.deadline


def open_deadline(env: HostEnv, match_id: int) -> float | None:
    """The open window's deadline as the host holds it now (no await: for ``eventually``)."""
    window = env.host._matches.live[match_id].window
    return None if window is None else window.deadline


def late_notices(env: HostEnv, audience: str) -> list[str]:
    """The deadline lines of the prompts that reached ``audience`` late."""
    return [
        line
        for d in env.transport.to(audience)
        for line in d.text.split("\n")
        if line.startswith("⏳ This prompt reached you")
    ]


def prompt_deadlines(env: HostEnv, audience: str) -> list[float]:
    """The deadline each prompt sent to ``audience`` carried (Discord's countdown)."""
    return [
        d.payload["request"]["deadline"]
        for d in env.transport.to(audience)
        if "request" in d.payload
    ]


async def test_a_late_prompt_moves_the_deadline_and_the_seat_is_told(manual_env: HostEnv) -> None:
    env = manual_env
    record = await start_with_late_prompts(env, {"seat0": 12.0})
    original = env.clock() + WINDOW_S
    assert await deadline(env, record.id) == original
    await deliver_after(env, 12.0)
    assert await deadline(env, record.id) == original + 12.0
    assert late_notices(env, "seat0") == [
        "⏳ This prompt reached you 12 s late, so your deadline moved by 12 s: answer within"
        f" 60 s (until {clock_text(original + 12.0)}). If you don't: your secret number is"
        " your guess"
    ]
    assert prompt_deadlines(env, "seat0") == [original + 12.0]
    assert prompt_deadlines(env, "seat1") == [original]
    assert late_notices(env, "seat1") == []  # on time: told nothing
    assert env.timers is not None
    await env.timers.advance(WINDOW_S - 12.0 + 5.0)  # 5 s past the original deadline
    result = await env.host.submit(record.id, PLAYERS[0], "1")
    assert result.accepted, result.text
    assert (await env.host.status(record.id)).window is not None
    log = await env.host.store.match_log(record.id)
    assert [entry.data for entry in log if entry.kind == "late_prompt"] == [
        {"seat": 0, "delay_s": 12.0}
    ]


async def test_the_move_is_capped(manual_env: HostEnv) -> None:
    env = manual_env
    record = await start_with_late_prompts(env, {"seat0": 45.0})
    original = env.clock() + WINDOW_S
    await deliver_after(env, 45.0)
    assert await deadline(env, record.id) == original + 30.0
    assert (
        "45 s late, so your deadline moved by 30 s: answer within 45 s"
        in late_notices(env, "seat0")[0]
    )
    assert prompt_deadlines(env, "seat0")[0] == original + 30.0


async def test_a_prompt_within_the_allowance_moves_nothing(manual_env: HostEnv) -> None:
    env = manual_env
    record = await start_with_late_prompts(env, {"seat0": 1.5})
    original = env.clock() + WINDOW_S
    await deliver_after(env, 1.5)
    assert len(env.transport.to("seat0", record.id)) == 2  # the hello and the prompt
    assert await deadline(env, record.id) == original
    assert late_notices(env, "seat0") == []


async def test_two_late_seats_move_the_one_deadline_once_by_the_longer_delay(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await start_with_late_prompts(env, {"seat0": 12.0, "seat1": 6.0})
    original = env.clock() + WINDOW_S
    await deliver_after(env, 6.0, until=lambda: bool(late_notices(env, "seat1")))
    await eventually(lambda: open_deadline(env, record.id) == original + 6.0)
    await deliver_after(env, 6.0)
    assert await deadline(env, record.id) == original + 12.0  # not 18: each from its prompt
    assert len(late_notices(env, "seat0")) == len(late_notices(env, "seat1")) == 1


async def test_the_moved_deadline_survives_a_restart(manual_env: HostEnv) -> None:
    env = manual_env
    record = await start_with_late_prompts(env, {"seat0": 12.0})
    original = env.clock() + WINDOW_S
    await deliver_after(env, 12.0)
    await env.reopen()
    await env.host.wait_idle()
    assert await deadline(env, record.id) == original + 12.0
    assert env.timers is not None
    assert env.timers.due_at(f"deadline:{record.id}") == original + 12.0
    assert len(late_notices(env, "seat0")) == 1


async def test_a_resend_discord_dropped_by_its_nonce_moves_nothing(manual_env: HostEnv) -> None:
    """After a crash between posting a prompt and recording it, the resend (seconds later) is
    dropped by Discord, which answers with the first post: the player had it on time."""
    env = manual_env
    record = await env.new_match(start=False, window_s=WINDOW_S)
    await env.host.wait_idle()
    release = env.transport.stalls["seat0"] = asyncio.Event()
    await env.host.start_match(record.id)
    original = env.clock() + WINDOW_S
    env.transport.posted_at["seat0"] = env.clock()
    assert env.timers is not None
    await eventually(lambda: "seat0" not in env.transport.stalls)
    await env.timers.advance(8.0)
    release.set()
    await env.host.wait_idle()
    assert await deadline(env, record.id) == original
    assert [d for d in env.transport.to("seat0") if d.payload.get("kind") == "late_prompt"] == []


async def test_a_delay_inside_the_send_moves_the_deadline_and_is_told_apart(
    manual_env: HostEnv,
) -> None:
    """A prompt sent on time but held up inside the send (discord.py waits out a 429 there)
    could not show its new deadline, so a notice tells it."""
    env = manual_env
    record = await env.new_match(start=False, window_s=WINDOW_S)
    await env.host.wait_idle()
    release = env.transport.stalls["seat0"] = asyncio.Event()
    await env.host.start_match(record.id)
    original = env.clock() + WINDOW_S
    assert env.timers is not None
    await eventually(lambda: "seat0" not in env.transport.stalls)  # the send is waiting
    await env.timers.advance(8.0)
    release.set()
    await env.host.wait_idle()
    await env.host.wait_idle()
    assert await deadline(env, record.id) == original + 8.0
    assert late_notices(env, "seat0") == []  # the prompt's own text still says 60 s
    told = [d.text for d in env.transport.to("seat0") if d.payload.get("kind") == "late_prompt"]
    assert told == [
        f"⏳ Your prompt in match {record.id} reached you 8.0 s late:"
        f" you have until {clock_text(original + 8.0)}."
    ]


async def tried_what_is_due(env: HostEnv) -> None:
    """Until the worker has tried every message due on the (frozen) clock and recorded the
    outcome: sent, or its next try later. A wait on the worker's passes, not on wall time, so
    a loaded machine cannot make a try look late."""
    deadline = time.monotonic() + 10.0  # only stops a broken test from hanging
    while (await env.host.store.due_outbox(env.clock(), 500))[0]:
        assert time.monotonic() < deadline, "the worker never tried the due messages"
        await asyncio.sleep(0.001)


async def test_a_prompt_is_retried_within_seconds_however_often_it_failed(
    manual_env: HostEnv,
) -> None:
    """Backoff doubles for other messages, but a window's prompt is tried again every 2 s at
    most, so an outage delays it by little more than the outage."""
    env = manual_env
    record = await env.new_match(start=False, window_s=WINDOW_S)
    await env.host.wait_idle()
    env.transport.failures["seat0"] = [TransientError("503") for _ in range(9)]  # 10 tries in all
    await env.host.start_match(record.id)
    original = env.clock() + WINDOW_S
    assert env.timers is not None
    tried_at: list[float] = []
    while env.clock() < original:
        tries = sum(str(d.audience) == "seat0" for d in env.transport.attempts)
        tried_at += [env.clock()] * (tries - 1 - len(tried_at))  # not the hello
        if late_notices(env, "seat0"):
            break
        await env.timers.advance(0.25)
        env.host.worker.wake()
        await tried_what_is_due(env)
    gaps = [later - earlier for earlier, later in itertools.pairwise(tried_at)]
    assert len(tried_at) == 10 and max(gaps) <= 2.25, gaps
    await env.host.wait_idle()
    delay = env.clock() - (original - WINDOW_S)
    assert await deadline(env, record.id) == pytest.approx(original + delay, abs=0.3)


BURST_WINDOW_S = 40.0  # long enough for a reminder (10 s before the deadline)


async def burst(env: HostEnv, seconds: float) -> MatchRecord:
    """A started match whose first prompt to P1 waits out a ``seconds`` rate-limit burst (a 429
    with that retry_after); P2's goes out at once."""
    record = await env.new_match(start=False, window_s=BURST_WINDOW_S)
    await env.host.wait_idle()
    env.transport.failures["seat0"] = [TransientError("429", retry_after=seconds)]
    await env.host.start_match(record.id)
    await eventually(lambda: any("request" in d.payload for d in env.transport.to("seat1")))
    return record


async def steps_resolved(env: HostEnv, match_id: int) -> int:
    return len(await env.host.store.steps(match_id)) - 1


async def past_the_deadline_held(env: HostEnv, match_id: int) -> None:
    """The deadline comes on time, with P1's prompt still held: nothing closes or reopens."""
    assert env.timers is not None
    await env.timers.advance(BURST_WINDOW_S)  # the deadline's timer fires on time
    env.host.worker.wake()
    await env.timers.advance(1.0)
    assert await steps_resolved(env, match_id) == 0
    assert not any("request" in d.payload for d in env.transport.to("seat0", match_id))


def reopenings(env: HostEnv) -> list[str]:
    return [d.text for d in env.transport.sent if d.payload.get("kind") == "reopened"]


async def test_a_deadline_waits_for_a_prompt_held_up_past_it_then_the_seat_gets_its_time(
    manual_env: HostEnv,
) -> None:
    """A 45 s burst holds P1's prompt past the 40 s deadline: the window is not closed over a
    prompt P1 never saw; once it arrives its deadline moves by the delay (30 s at most), and
    the reminder queued behind it, stale by then, is never sent."""
    env = manual_env
    assert env.timers is not None
    record = await burst(env, 45.0)
    original = env.clock() + BURST_WINDOW_S
    await past_the_deadline_held(env, record.id)
    await env.timers.advance(45.0 - BURST_WINDOW_S - 1.0)
    env.host.worker.wake()
    await eventually(lambda: open_deadline(env, record.id) == original + 30.0)
    assert "reached you 45 s late" in late_notices(env, "seat0")[0]
    assert (await env.host.submit(record.id, PLAYERS[0], "4")).accepted  # not defaulted
    await env.host.wait_idle()
    assert await steps_resolved(env, record.id) == 0  # P2 may still answer too
    reminders = [d for d in env.transport.to("seat0") if d.payload.get("kind") == "reminder"]
    assert reminders == [] and reopenings(env) == []  # "10 s left" past it would mislead


async def test_a_prompt_later_than_the_cap_reopens_the_window_for_the_grace_period(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    assert env.timers is not None
    record = await burst(env, 75.0)
    await past_the_deadline_held(env, record.id)
    await env.timers.advance(75.0 - BURST_WINDOW_S - 1.0)
    env.host.worker.wake()
    # moved by the 30 s cap the deadline would be 5 s ago: the window reopens for 15 s instead
    await eventually(lambda: open_deadline(env, record.id) == env.clock() + 15.0)
    assert await steps_resolved(env, record.id) == 0 and reopenings(env) == []
    await env.host.wait_idle()
    told = [d.text for d in env.transport.to("seat0") if d.payload.get("kind") == "late_prompt"]
    assert told and "75 s late" in told[0]
    assert (await env.host.submit(record.id, PLAYERS[0], "4")).accepted


async def test_a_prompt_that_can_never_be_delivered_does_not_hold_the_window(
    manual_env: HostEnv,
) -> None:
    """Closed DMs: the seat is reported unreachable (it may use /submit) and the deadline
    applies as before."""
    env = manual_env
    assert env.timers is not None
    record = await env.new_match(start=False, window_s=BURST_WINDOW_S)
    await env.host.wait_idle()
    env.transport.failures["seat0"] = [PermanentError("DMs closed")]
    await env.host.start_match(record.id)
    await env.host.wait_idle()
    await env.timers.advance(BURST_WINDOW_S)
    await env.host.wait_idle()
    assert await steps_resolved(env, record.id) == 1


async def test_a_prompt_delivered_before_its_commit_returned_does_not_hold_the_window(
    manual_env: HostEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The delivery worker, busy with another message, reads a prompt the moment its commit
    lands, before the store's answer to that commit reaches the host (a pass already under
    way, another connection): the prompt's report comes before the host counts the prompt
    owed, and the deadline still closes the window."""
    env = manual_env
    assert env.timers is not None
    record = await env.new_match(start=False, window_s=BURST_WINDOW_S)
    await env.host.wait_idle()
    store, apply = env.host.store, env.host.store.apply

    async def apply_then_deliver(change: Any) -> bool:
        applied = await apply(change)
        prompts = len([d for d in env.transport.sent if "request" in d.payload])
        env.host.worker.wake()
        await eventually(
            lambda: len([d for d in env.transport.sent if "request" in d.payload]) > prompts
        )
        return applied

    monkeypatch.setattr(store, "apply", apply_then_deliver)
    await env.host.start_match(record.id)
    await env.host.wait_idle()
    await env.timers.advance(BURST_WINDOW_S)
    await env.host.wait_idle()
    assert await steps_resolved(env, record.id) == 1
