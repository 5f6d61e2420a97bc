"""Moderator operations: pause, resume, extend keep the remaining time right; end and abort.

The tests that wait for a deadline run on manual timers (``manual_env``) and advance the clock."""

from __future__ import annotations

import pytest

from bot.host import HostError
from tests.bot.conftest import MODERATOR, PLAYERS, HostEnv


async def test_pause_resume_extend_keep_the_remaining_time(env: HostEnv) -> None:
    start = env.clock.freeze()
    record = await env.new_match(window_s=60)
    window = await env.host.store.open_window(record.id)
    assert window is not None and window.deadline == start + 60

    env.clock.advance(10)
    await env.host.pause(record.id, by=MODERATOR)
    assert (await env.host.status(record.id)).window.seconds_left == 50  # type: ignore[union-attr]
    stored = await env.host.store.open_window(record.id)
    assert stored is not None and stored.remaining == 50

    env.clock.advance(1000)  # time spent paused does not count
    await env.host.extend(record.id, 5, by=MODERATOR)
    status = await env.host.status(record.id)
    assert status.match.status == "paused"
    assert status.window is not None and status.window.seconds_left == 55 and status.window.paused

    await env.host.resume(record.id, by=MODERATOR)
    stored = await env.host.store.open_window(record.id)
    assert stored is not None
    assert (stored.deadline, stored.remaining) == (start + 1010 + 55, None)

    env.clock.advance(5)
    await env.host.extend(record.id, 20, by=MODERATOR)
    status = await env.host.status(record.id)
    assert status.window is not None and status.window.seconds_left == 70
    stored = await env.host.store.open_window(record.id)
    assert stored is not None and stored.deadline == start + 1010 + 75

    log = await env.host.store.match_log(record.id)
    assert [(e.kind, e.by_user, e.data) for e in log[2:]] == [
        ("paused", MODERATOR, 50),
        ("extended", MODERATOR, 5),
        ("resumed", MODERATOR, 55),
        ("extended", MODERATOR, 20),
    ]
    await env.host.wait_idle()
    public = [d.text for d in env.transport.to("public")]
    assert any("paused" in t for t in public) and any("55 s left" in t for t in public)
    # players who still have to answer get the new deadline with their prompt
    assert env.transport.to("seat0")[-1].payload["request"]["deadline"] == start + 1010 + 75


async def test_paused_window_does_not_time_out(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=60, config={"rounds": 1})
    await env.host.pause(record.id)
    await env.advance(120)  # past the original deadline
    assert (await env.host.status(record.id)).match.step == 0
    await env.host.resume(record.id)
    await env.advance(59)
    assert (await env.host.status(record.id)).match.step == 0  # the paused time is given back
    await env.advance(1)
    assert record.id not in env.host.active_match_ids()
    assert (await env.host.store.steps(record.id))[1].moves == {0: None, 1: None}


async def test_extend_moves_the_deadline_job(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=10, config={"rounds": 1})
    await env.host.extend(record.id, 20)
    await env.advance(10)  # the original deadline passed
    assert (await env.host.status(record.id)).match.status == "running"
    await env.advance(20)
    assert record.id not in env.host.active_match_ids()


async def test_all_answers_in_during_pause_resolve_on_resume(env: HostEnv) -> None:
    record = await env.new_match(window_s=3600, config={"rounds": 1})
    assert (await env.host.submit(record.id, PLAYERS[0], "1")).accepted
    await env.host.pause(record.id)
    await env.host.resume(record.id)
    assert (await env.host.submit(record.id, PLAYERS[1], "1")).accepted
    await env.host.wait_over(record.id)


async def test_end_applies_the_engine_end_rule(env: HostEnv) -> None:
    record = await env.new_match(window_s=3600)
    assert (await env.host.submit(record.id, PLAYERS[0], "1")).accepted
    ended = await env.host.end(record.id, by=MODERATOR)
    assert ended.status == "finished"
    assert ended.outcome["reason"] == "ended by host"
    steps = await env.host.store.steps(record.id)
    assert [(s.kind, s.moves) for s in steps[1:]] == [("end", None)]
    assert await env.host.store.open_window(record.id) is None
    assert [e.kind for e in await env.host.store.match_log(record.id)][-1] == "ended"
    await env.host.wait_idle()
    assert "ended by a moderator" in env.transport.to("public")[-1].text
    with pytest.raises(HostError):
        await env.host.end(record.id)


async def test_abort_stops_the_match_without_result(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=10)
    aborted = await env.host.abort(record.id, by=MODERATOR)
    assert aborted.status == "aborted" and aborted.outcome is None
    assert env.timers is not None and not env.timers.jobs  # the deadline job is gone
    await env.advance(20)
    assert (await env.host.status(record.id)).match.step == 0
    assert await env.host.store.open_window(record.id) is None
    assert [e.kind for e in await env.host.store.match_log(record.id)][-1] == "aborted"
    await env.host.wait_idle()
    assert all("aborted" in env.transport.to(a)[-1].text for a in ("public", "seat0", "seat1"))


async def test_extend_refuses_nonsense(env: HostEnv) -> None:
    record = await env.new_match()
    with pytest.raises(HostError, match="Extend by"):
        await env.host.extend(record.id, 0)
    with pytest.raises(HostError, match="Extend by"):
        await env.host.extend(record.id, -5)
