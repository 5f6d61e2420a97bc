"""Windows: early close, timeout defaults, revisable answers, reminders, stale prompts."""

from __future__ import annotations

import asyncio

from tests.bot.conftest import PLAYERS, HostEnv, eventually


async def step_of(env: HostEnv, match_id: int) -> int:
    return (await env.host.status(match_id)).match.step


async def test_window_closes_early_once_every_move_is_in(env: HostEnv) -> None:
    record = await env.new_match(window_s=3600)
    assert (await env.host.submit(record.id, PLAYERS[0], "2")).accepted
    await env.host.wait_idle()
    assert await step_of(env, record.id) == 0  # one move missing: still open
    assert (await env.host.submit(record.id, PLAYERS[1], " 7 ")).accepted
    await env.host.wait_idle()
    assert await step_of(env, record.id) == 1
    steps = await env.host.store.steps(record.id)
    assert steps[1].moves == {0: 2, 1: 7}
    status = await env.host.status(record.id)
    assert status.window is not None and status.window.step == 2
    assert status.window.answered == ()


async def test_timeout_passes_none_and_the_engine_default_applies(env: HostEnv) -> None:
    record = await env.new_match(window_s=0.2, config={"rounds": 1})
    assert (await env.host.submit(record.id, PLAYERS[0], "3")).accepted
    await env.host.wait_over(record.id)
    steps = await env.host.store.steps(record.id)
    assert steps[1].moves == {0: 3, 1: None}
    secret = steps[0].snapshot["secrets"][1]
    assert steps[1].snapshot["round"] == 1
    await env.host.wait_idle()
    assert f"P2 {secret} (timeout)" in env.transport.to("public")[-1].text
    assert env.host.stats.timeouts == 1


async def test_revisable_window_keeps_the_last_answer_and_waits_for_the_deadline(
    env: HostEnv,
) -> None:
    record = await env.new_match(window_s=0.3, config={"rounds": 1, "revisable": True})
    for user, raw in [(PLAYERS[0], "1"), (PLAYERS[1], "2"), (PLAYERS[0], "4")]:
        assert (await env.host.submit(record.id, user, raw)).accepted
    await env.host.wait_idle()
    assert await step_of(env, record.id) == 0  # all in, but answers may still change
    await env.host.wait_over(record.id)
    assert (await env.host.store.steps(record.id))[1].moves == {0: 4, 1: 2}
    assert env.host.stats.timeouts == 0  # every seat answered


async def test_reminder_goes_only_to_seats_that_have_not_answered(env: HostEnv) -> None:
    env.options["reminder_s"] = 59.8
    host = await env.reopen()
    record = await env.new_match(window_s=60)
    assert (await host.submit(record.id, PLAYERS[0], "1")).accepted
    await eventually(lambda: any(d.payload["kind"] == "reminder" for d in env.transport.sent))
    await host.wait_idle()
    reminders = [d for d in env.transport.sent if d.payload["kind"] == "reminder"]
    assert [str(d.audience) for d in reminders] == ["seat1"]
    assert "left to answer" in reminders[0].text
    assert reminders[0].payload["request"]["step"] == 1
    window = await host.store.open_window(record.id)
    assert window is not None and window.reminded


async def test_no_reminder_when_the_window_is_shorter_than_the_lead(env: HostEnv) -> None:
    record = await env.new_match(window_s=0.2, config={"rounds": 1})
    await env.host.wait_over(record.id)
    await env.host.wait_idle()
    assert not [d for d in env.transport.sent if d.payload["kind"] == "reminder"]


async def test_answer_to_an_old_prompt_is_refused(env: HostEnv) -> None:
    record = await env.new_match(window_s=3600)
    for user in PLAYERS:
        assert (await env.host.submit(record.id, user, "1", step=1)).accepted
    await env.host.wait_idle()
    stale = await env.host.submit(record.id, PLAYERS[0], "2", step=1)
    assert not stale.accepted and "expired" in stale.text
    assert (await env.host.submit(record.id, PLAYERS[0], "2", step=2)).accepted


async def test_deadline_and_last_second_answer_resolve_once(env: HostEnv) -> None:
    """Matches whose deadlines fall while answers arrive: each step is logged once and every
    acknowledged answer is in the log."""
    records = [await env.new_match(window_s=0.03, config={"rounds": 3}, seed=n) for n in range(8)]
    acked: list[tuple[int, int, int, int]] = []
    while env.host.active_match_ids():
        for record in records:
            for seat, user in enumerate(PLAYERS):
                result = await env.host.submit(record.id, user, str(seat + 1))
                if result.accepted:
                    assert result.step is not None
                    acked.append((record.id, result.step, seat, seat + 1))
        await asyncio.sleep(0.01)
    for record in records:
        steps = await env.host.store.steps(record.id)
        assert [s.step for s in steps] == [0, 1, 2, 3]
    assert acked
    for match_id, step, seat, move in acked:
        logged = (await env.host.store.steps(match_id))[step].moves
        assert logged is not None and logged[seat] == move
