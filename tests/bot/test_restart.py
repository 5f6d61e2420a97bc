"""In-process restarts: close the host mid-window and open a new one on the same file."""

from __future__ import annotations

import asyncio

from bot.store import Attempt
from tests.bot.conftest import PLAYERS, HostEnv, eventually


async def test_open_window_is_rearmed_with_its_answers(env: HostEnv) -> None:
    start = env.clock.freeze()
    record = await env.new_match(window_s=60)
    assert (await env.host.submit(record.id, PLAYERS[0], "6")).accepted
    host = await env.reopen()

    status = await host.status(record.id)
    assert status.match.status == "running"
    assert status.window is not None
    assert (status.window.step, status.window.answered) == (1, (0,))
    assert status.window.deadline == start + 60  # not expired: the deadline is kept
    assert not (await host.submit(record.id, PLAYERS[0], "2")).accepted  # still answered
    assert (await host.submit(record.id, PLAYERS[1], "3")).accepted
    await host.wait_idle()
    assert (await host.store.steps(record.id))[1].moves == {0: 6, 1: 3}


async def test_window_expired_while_down_reopens_with_grace_and_players_are_told(
    env: HostEnv,
) -> None:
    record = await env.new_match(window_s=30)
    assert (await env.host.submit(record.id, PLAYERS[0], "6")).accepted
    await env.host.close()
    env.clock.advance(120)  # down past the deadline
    now = env.clock.freeze()
    host = await env.reopen()

    window = await host.store.open_window(record.id)
    assert window is not None and window.deadline == now + 15
    await host.wait_idle()
    told = [d for d in env.transport.sent if d.payload["kind"] == "reopened"]
    assert sorted(str(d.audience) for d in told) == ["public", "seat0", "seat1"]
    by_seat = {str(d.audience): d for d in told}
    assert "Your answer is kept" in by_seat["seat0"].text
    assert by_seat["seat1"].payload["request"]["deadline"] == now + 15  # prompted again
    assert [e.kind for e in await host.store.match_log(record.id)][-1] == "reopened"

    assert (await host.submit(record.id, PLAYERS[1], "3")).accepted
    await host.wait_idle()
    assert (await host.store.steps(record.id))[1].moves == {0: 6, 1: 3}  # nothing lost


async def test_expired_window_times_out_after_the_grace(env: HostEnv) -> None:
    env.options["grace_s"] = 0.2
    record = await env.new_match(window_s=30, config={"rounds": 1})
    await env.host.close()
    env.clock.advance(60)
    host = await env.reopen()
    await host.wait_over(record.id)
    assert (await host.store.steps(record.id))[1].moves == {0: None, 1: None}


async def test_window_with_every_answer_in_resolves_on_start(env: HostEnv) -> None:
    """A crash between the last acknowledgement and the resolution: the start resolves it."""
    record = await env.new_match(window_s=3600, config={"rounds": 1})
    assert (await env.host.submit(record.id, PLAYERS[0], "6")).accepted
    at = env.clock()
    # the second answer is committed as submit would, but the host is gone before resolving
    await env.host.store.add_attempt(
        Attempt(record.id, 1, 1, PLAYERS[1], "2", "accepted", "", 2, at)
    )
    host = await env.reopen()
    await host.wait_over(record.id)
    assert (await host.store.steps(record.id))[1].moves == {0: 6, 1: 2}


async def test_paused_match_stays_paused_across_a_restart(env: HostEnv) -> None:
    env.clock.freeze()
    record = await env.new_match(window_s=60)
    env.clock.advance(20)
    await env.host.pause(record.id)
    await env.host.close()
    env.clock.advance(600)
    host = await env.reopen()
    status = await host.status(record.id)
    assert status.match.status == "paused"
    assert status.window is not None and status.window.seconds_left == 40
    await host.resume(record.id)
    status = await host.status(record.id)
    assert status.window is not None and status.window.seconds_left == 40


async def test_match_in_setup_survives_a_restart(env: HostEnv) -> None:
    record = await env.new_match(start=False)
    await env.host.reveal(record.id)
    host = await env.reopen()
    assert (await host.start_match(record.id)).status == "running"
    for user in PLAYERS:
        assert (await host.submit(record.id, user, "1")).accepted


async def test_undelivered_messages_go_out_after_a_restart(env: HostEnv) -> None:
    await env.host.worker.stop()  # as if the host died before delivering anything
    record = await env.new_match(window_s=3600)
    host = await env.reopen()
    await host.wait_idle()
    assert any("It starts now" in d.text for d in env.transport.to("public", record.id))
    assert len(env.transport.to("seat0", record.id)) == 2  # hello, then start and prompt


async def test_a_reopened_windows_grace_counts_from_its_prompts_delivery_however_late(
    manual_env: HostEnv,
) -> None:
    """After an hour down, P1's re-prompt waits a minute in the send (a backlog at Discord's
    pace): the 15 s grace does not run out on a prompt P1 has not seen, and counts from when
    it arrived, past the 30 s a late prompt moves a deadline at most."""
    env = manual_env
    assert env.timers is not None
    record = await env.new_match(window_s=30)
    await env.host.wait_idle()
    await env.host.close()
    env.clock.advance(3600)
    release = env.transport.stalls["seat0"] = asyncio.Event()
    host = await env.reopen()
    restarted = env.clock()
    await eventually(lambda: "seat0" not in env.transport.stalls)  # its send waits
    for _ in range(60):  # a second at a time: each deadline falls when it is due
        await env.timers.advance(1)
        await host._matches.wait_tasks()  # what it started (a closing)
    assert len(await host.store.steps(record.id)) == 1  # not closed over an unseen prompt
    release.set()
    await host.wait_idle()
    await host.wait_idle()
    window = await host.store.open_window(record.id)
    assert window is not None and window.deadline == restarted + 60 + 15
    assert (await host.submit(record.id, PLAYERS[0], "4")).accepted


async def test_a_prompt_still_owed_at_the_stop_holds_its_deadline_after_the_start(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    assert env.timers is not None
    record = await env.new_match(start=False, window_s=30)
    await env.host.wait_idle()
    env.transport.stalls["seat0"] = asyncio.Event()  # its prompt never leaves before the stop
    await env.host.start_match(record.id)
    await eventually(lambda: "seat0" not in env.transport.stalls)
    await env.host.close()
    release = env.transport.stalls["seat0"] = asyncio.Event()  # nor soon after the start
    host = await env.reopen()
    await eventually(lambda: "seat0" not in env.transport.stalls)
    for _ in range(40):  # past its deadline, a second at a time
        await env.timers.advance(1)
        await host._matches.wait_tasks()  # what it started (a closing)
    assert len(await host.store.steps(record.id)) == 1
    release.set()
    await host.wait_idle()
    await host.wait_idle()
    assert (await host.submit(record.id, PLAYERS[0], "4")).accepted  # its time given back
