"""Windows: early close, timeout defaults, revisable answers, reminders, stale prompts.

The deadlines run on manual timers (``manual_env``): a test advances the clock instead of
sleeping. The real scheduler is exercised by the fault, restart, kill and e2e tests."""

from __future__ import annotations

import asyncio
import random

from tests.bot.conftest import PLAYERS, HostEnv


async def step_of(env: HostEnv, match_id: int) -> int:
    return (await env.host.status(match_id)).match.step


async def test_window_closes_early_once_every_move_is_in(manual_env: HostEnv) -> None:
    env = manual_env
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


async def test_timeout_passes_none_and_the_engine_default_applies(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=60, config={"rounds": 1})
    assert (await env.host.submit(record.id, PLAYERS[0], "3")).accepted
    await env.advance(59)
    assert await step_of(env, record.id) == 0  # a second left
    await env.advance(1)
    assert record.id not in env.host.active_match_ids()
    steps = await env.host.store.steps(record.id)
    assert steps[1].moves == {0: 3, 1: None}
    secret = steps[0].snapshot["secrets"][1]
    assert steps[1].snapshot["round"] == 1
    assert f"P2 {secret} (timeout)" in env.transport.to("public")[-1].text
    assert env.host.stats.timeouts == 1


async def test_revisable_window_keeps_the_last_answer_and_waits_for_the_deadline(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await env.new_match(window_s=60, config={"rounds": 1, "revisable": True})
    for user, raw in [(PLAYERS[0], "1"), (PLAYERS[1], "2"), (PLAYERS[0], "4")]:
        assert (await env.host.submit(record.id, user, raw)).accepted
    await env.host.wait_idle()
    assert await step_of(env, record.id) == 0  # all in, but answers may still change
    await env.advance(60)
    assert record.id not in env.host.active_match_ids()
    assert (await env.host.store.steps(record.id))[1].moves == {0: 4, 1: 2}
    assert env.host.stats.timeouts == 0  # every seat answered


async def test_reminder_goes_only_to_seats_that_have_not_answered(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=60)
    assert (await env.host.submit(record.id, PLAYERS[0], "1")).accepted
    await env.advance(44)
    assert not [d for d in env.transport.sent if d.payload["kind"] == "reminder"]
    await env.advance(1)  # 15 s before the deadline
    reminders = [d for d in env.transport.sent if d.payload["kind"] == "reminder"]
    assert [str(d.audience) for d in reminders] == ["seat1"]
    assert reminders[0].text == f"⏰ 15 s left to answer in match {record.id}."  # one line
    assert "request" not in reminders[0].payload  # the prompt's own buttons still answer it
    window = await env.host.store.open_window(record.id)
    assert window is not None and window.reminded


async def test_a_seat_away_two_windows_gets_prompts_but_no_reminders_until_it_answers(
    manual_env: HostEnv,
) -> None:
    """A player who let two windows in a row run out is away: each window still prompts them,
    but the reminder (one more DM a window nobody reads) stops until they answer again; one
    closed early by the others' answers is not missed."""
    env = manual_env
    record = await env.new_match(window_s=60, config={"rounds": 8})

    def reminded() -> list[str]:
        return [str(d.audience) for d in env.transport.sent if d.payload["kind"] == "reminder"]

    async def window(answers: dict[int, str], run_out: bool = True) -> list[str]:
        before = len(reminded())
        for seat, raw in answers.items():
            assert (await env.host.submit(record.id, PLAYERS[seat], raw)).accepted
        if run_out:
            await env.advance(45)  # the reminder's time
            await env.advance(15)
        await env.host.wait_idle()
        return reminded()[before:]

    assert await window({0: "1"}) == ["seat1"]  # seat 1 misses one
    assert await window({0: "1"}) == ["seat1"]  # and a second: away from now on
    assert await window({0: "1"}) == []
    assert await window({}) == ["seat0"]  # seat 0 misses one: reminded; seat 1 still away
    prompts = [d for d in env.transport.to("seat1", record.id) if "request" in d.payload]
    assert len(prompts) == 5  # every window still prompts the seat away
    assert await window({0: "1", 1: "1"}, run_out=False) == []  # seat 1 answers: back
    assert await window({0: "1"}) == ["seat1"]


async def test_a_window_the_first_answer_closes_is_not_missed_by_the_others(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await env.new_match(window_s=60, config={"rounds": 4, "close": "first"})
    for _ in range(3):  # seat 0 answers first each time: seat 1 never had to
        assert (await env.host.submit(record.id, PLAYERS[0], "1")).accepted
        await env.host.wait_idle()
    await env.advance(45)
    reminders = [d for d in env.transport.sent if d.payload["kind"] == "reminder"]
    assert sorted(str(d.audience) for d in reminders) == ["seat0", "seat1"]


async def test_no_reminder_when_the_window_is_shorter_than_the_lead(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=10, config={"rounds": 1})
    assert env.timers is not None and set(env.timers.jobs) == {f"deadline:{record.id}"}
    await env.advance(10)
    assert record.id not in env.host.active_match_ids()
    assert not [d for d in env.transport.sent if d.payload["kind"] == "reminder"]


async def test_answer_to_an_old_prompt_is_refused(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=3600)
    for user in PLAYERS:
        assert (await env.host.submit(record.id, user, "1", step=1)).accepted
    await env.host.wait_idle()
    stale = await env.host.submit(record.id, PLAYERS[0], "2", step=1)
    assert not stale.accepted and "expired" in stale.text
    assert (await env.host.submit(record.id, PLAYERS[0], "2", step=2)).accepted


async def test_deadline_and_last_second_answer_resolve_once(manual_env: HostEnv) -> None:
    """Matches whose deadlines fall while answers arrive: each step is logged once and every
    acknowledged answer is in the log."""
    env = manual_env
    assert env.timers is not None
    records = [await env.new_match(window_s=1, config={"rounds": 3}, seed=n) for n in range(8)]
    answers = [(record.id, seat, user) for record in records for seat, user in enumerate(PLAYERS)]
    rng = random.Random(5)
    acked: list[tuple[int, int, int, int]] = []
    while env.host.active_match_ids():
        rng.shuffle(answers)
        split = rng.randrange(len(answers) + 1)  # these answers go before the deadlines fall
        tasks = [
            asyncio.create_task(env.host.submit(match_id, user, str(seat + 1)))
            for match_id, seat, user in answers[:split]
        ]
        await env.timers.advance(1)  # every open window's deadline falls among the answers
        tasks += [
            asyncio.create_task(env.host.submit(match_id, user, str(seat + 1)))
            for match_id, seat, user in answers[split:]
        ]
        for result in await asyncio.gather(*tasks):
            if result.accepted:
                assert result.seat is not None and result.step is not None
                acked.append((result.match_id, result.step, result.seat, result.seat + 1))
        await env.host.wait_idle()
    for record in records:
        steps = await env.host.store.steps(record.id)
        assert [s.step for s in steps] == [0, 1, 2, 3]
    assert acked and env.host.stats.timeouts  # some answers missed a deadline
    for match_id, step, seat, move in acked:
        logged = (await env.host.store.steps(match_id))[step].moves
        assert logged is not None and logged[seat] == move
