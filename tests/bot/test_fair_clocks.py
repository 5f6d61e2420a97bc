"""Fair clocks: a prompt that opens a window and reaches its seat later than the allowance
(2 s by default) after its commit moves the window's deadline by the delay, at most the cap
(30 s), and the prompt the seat gets shows its new deadline. The transport fails a seat's
prompt once with a ``retry_after``, so the worker's retry delays it by a known amount on the
manual clock."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

import pytest

from bot.outbox import clock_text
from bot.store import MatchRecord
from bot.transport import TransientError
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


async def deadline_reaches(env: HostEnv, match_id: int, expected: float) -> None:
    """The deadline once the late prompt's report (which follows its delivery) moved it."""
    for _ in range(2000):
        if await deadline(env, match_id) == expected:
            return
        await asyncio.sleep(0.005)
    assert await deadline(env, match_id) == expected


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
    await deadline_reaches(env, record.id, original + 6.0)
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
        await asyncio.sleep(0.005)
    gaps = [later - earlier for earlier, later in itertools.pairwise(tried_at)]
    assert len(tried_at) == 10 and max(gaps) <= 2.25, gaps
    await env.host.wait_idle()
    delay = env.clock() - (original - WINDOW_S)
    assert await deadline(env, record.id) == pytest.approx(original + delay, abs=0.3)
