"""Timer kinds: a request names its kind, a match keeps a length per kind (the game's declared
default unless setup sets it), reminders scale to the window, and pause, resume and extend work
on a window of any kind. The toy game's opt-in ``reactions`` makes every second round a
``reaction`` window (declared default: 20 s). Manual timers: nothing sleeps."""

from __future__ import annotations

import math
from typing import Any

import pytest

from bot.host import HostError
from bot.outbox import seconds_text
from bot.transport import request_from_json
from tests.bot.conftest import PLAYERS, HostEnv
from tests.bot.toy_game import REACTION_S

REACTIONS = {"rounds": 3, "reactions": True}


async def seconds_left(env: HostEnv, match_id: int) -> float:
    window = (await env.host.status(match_id)).window
    assert window is not None
    return window.seconds_left


async def answer_all(env: HostEnv, match_id: int) -> None:
    for user in PLAYERS:
        assert (await env.host.submit(match_id, user, "1")).accepted
    await env.host.wait_idle()


def reminders(env: HostEnv) -> list[str]:
    return [d.text for d in env.transport.sent if d.payload["kind"] == "reminder"]


async def test_a_reaction_window_lasts_the_declared_default_not_the_turn(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await env.new_match(window_s=90, config=REACTIONS)
    assert record.timers == {"reaction": REACTION_S} and record.window_s == 90
    assert await seconds_left(env, record.id) == 90  # round 1: a turn
    await answer_all(env, record.id)
    assert await seconds_left(env, record.id) == REACTION_S  # round 2: a reaction
    await answer_all(env, record.id)
    assert await seconds_left(env, record.id) == 90  # round 3: a turn again


async def test_setup_sets_the_length_of_each_kind(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(config=REACTIONS, timers={"turn": 45, "reaction": 8})
    assert (record.window_s, record.timers) == (45.0, {"reaction": 8.0})
    assert await seconds_left(env, record.id) == 45
    await answer_all(env, record.id)
    assert await seconds_left(env, record.id) == 8
    await env.advance(8)  # the reaction deadline: defaults apply, the next turn opens
    assert [s.moves for s in await env.host.store.steps(record.id)][2] == {0: None, 1: None}
    assert await seconds_left(env, record.id) == 45


async def test_without_the_opt_in_every_window_is_a_turn(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=90, config={"rounds": 3})
    await answer_all(env, record.id)
    assert await seconds_left(env, record.id) == 90


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"timers": {"block": 5}}, "has no timer 'block'; its timers: reaction, turn."),
        ({"timers": {"reaction": 0}}, "reaction timer must be a finite number of seconds above 0"),
        ({"timers": {"reaction": -3}}, "reaction timer must be a finite number"),
        ({"timers": {"reaction": math.inf}}, "reaction timer must be a finite number"),
        ({"timers": {"turn": math.nan}}, "turn timer must be a finite number"),
        ({"timers": {"reaction": "10"}}, "must be a number of seconds, not '10'"),
        ({"timers": {"reaction": True}}, "must be a number of seconds, not True"),
        ({"timers": {"turn": 30}, "window_s": 40}, "Give the turn length once"),
    ],
)
async def test_a_bad_timer_is_refused_in_one_line_and_nothing_is_created(
    manual_env: HostEnv, options: dict[str, Any], message: str
) -> None:
    env = manual_env
    with pytest.raises(HostError) as refused:
        await env.new_match(start=False, config=REACTIONS, **options)
    assert message in str(refused.value) and "\n" not in str(refused.value)
    assert await env.host.store.list_matches() == []


async def test_the_same_turn_length_given_twice_is_accepted(manual_env: HostEnv) -> None:
    record = await manual_env.new_match(start=False, window_s=30, timers={"turn": 30})
    assert record.window_s == 30


@pytest.mark.parametrize(
    ("reaction_s", "lead"),
    [(40.0, 10.0), (80.0, 15.0), (20.0, 5.0), (19.0, None)],
)
async def test_the_reminder_scales_to_the_window(
    manual_env: HostEnv, reaction_s: float, lead: float | None
) -> None:
    """At most reminder_s (15 s) and a quarter of the window before the deadline; none in a
    window under 20 s."""
    env = manual_env
    record = await env.new_match(window_s=3600, config=REACTIONS, timers={"reaction": reaction_s})
    await answer_all(env, record.id)  # into the reaction window
    assert (await env.host.submit(record.id, PLAYERS[0], "2")).accepted
    jobs = set(env.timers.jobs) if env.timers is not None else set()
    assert (f"remind:{record.id}" in jobs) == (lead is not None)
    if lead is None:
        await env.advance(reaction_s)
        assert not reminders(env)
        return
    await env.advance(reaction_s - lead - 0.5)
    assert not reminders(env)
    await env.advance(0.5)
    first_lines = [text.splitlines()[0] for text in reminders(env)]  # seat 1's, still to answer
    assert first_lines == [f"⏰ {seconds_text(lead)} left to answer in match {record.id}."]


async def test_pause_resume_and_extend_work_on_a_reaction_window(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=3600, config=REACTIONS, timers={"reaction": 40})
    await answer_all(env, record.id)
    await env.advance(25)  # 15 s left: past the reminder (10 s before) not yet
    await env.host.pause(record.id)
    await env.advance(500)
    assert await seconds_left(env, record.id) == 15
    await env.host.resume(record.id)
    await env.host.extend(record.id, 20)
    assert await seconds_left(env, record.id) == 35
    await env.advance(24.5)
    assert not reminders(env)
    await env.advance(0.5)  # 10 s before the extended deadline
    assert len(reminders(env)) == 2 and "10 s left" in reminders(env)[0]
    await env.advance(10)
    steps = await env.host.store.steps(record.id)
    assert len(steps) == 3 and steps[2].moves == {0: None, 1: None}


async def test_extend_after_the_reminder_reminds_again_at_the_window_lead(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await env.new_match(window_s=3600, config=REACTIONS, timers={"reaction": 40})
    await answer_all(env, record.id)
    await env.advance(30)  # the reminder, 10 s before the deadline
    assert len(reminders(env)) == 2
    await env.host.extend(record.id, 5)  # 15 s left: more than the 10 s lead
    await env.advance(5)
    assert len(reminders(env)) == 4


async def test_a_restarted_host_keeps_each_kind_length(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=90, config=REACTIONS, timers={"reaction": 12})
    await env.reopen()
    assert (await env.host.status(record.id)).match.timers == {"reaction": 12.0}
    await answer_all(env, record.id)
    assert await seconds_left(env, record.id) == 12


async def test_a_reminder_set_short_still_comes_in_a_short_window(manual_env: HostEnv) -> None:
    """With reminder_s at 1 s (as the e2e tests run) a 4 s window is reminded 1 s before; the
    5 s floor only drops a reminder that the quarter-of-the-window cut made short."""
    env = manual_env
    env.options.update(reminder_s=1.0)
    await env.reopen()
    await env.new_match(window_s=4, config={"rounds": 1})
    await env.advance(2.9)
    assert not reminders(env)
    await env.advance(0.1)
    assert len(reminders(env)) == 2


async def test_a_prompt_carries_its_timer_kind(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=90, config=REACTIONS)
    await answer_all(env, record.id)
    prompts = [d for d in env.transport.to("seat0") if d.payload.get("request")]
    kinds = [request_from_json(d.payload["request"]).timer for d in prompts]
    assert kinds == ["turn", "reaction"]
    old = {k: v for k, v in prompts[0].payload["request"].items() if k != "timer"}
    assert request_from_json(old).timer == "turn"  # a prompt stored before timer kinds
