"""Turns of several actions: windows whose requests name the same turn clock (``Request.clock``)
share one deadline, a new clock starts a fresh window, a clock that ran out still leaves a short
floor per action, and restart, pause and extend keep (or add to) the turn clock. The toy game's
opt-in ``actions`` makes each round that many windows on the clock ``round:<n>``; with
``turn_based`` one seat takes them all. Manual timers: nothing sleeps."""

from __future__ import annotations

from bot.host.windows import CLOCK_FLOOR_S
from tests.bot.conftest import MODERATOR, PLAYERS, HostEnv

TURNS = {"rounds": 2, "actions": 3, "turn_based": True}
TURN_S = 60.0


async def deadline(env: HostEnv, match_id: int) -> float:
    window = (await env.host.status(match_id)).window
    assert window is not None
    return window.deadline


async def act(env: HostEnv, match_id: int, user: int) -> None:
    assert (await env.host.submit(match_id, user, "1")).accepted
    await env.host.wait_idle()


async def test_a_turn_of_three_actions_runs_on_one_clock(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=TURN_S, config=TURNS)
    first = await deadline(env, record.id)
    assert first == env.clock() + TURN_S
    for _ in range(2):
        await env.advance(10)
        await act(env, record.id, PLAYERS[0])
        assert await deadline(env, record.id) == first  # the next action: the same clock
    await env.advance(10)
    await act(env, record.id, PLAYERS[0])  # the third action ends the turn
    assert await deadline(env, record.id) == env.clock() + TURN_S  # P2's turn: a fresh window
    steps = await env.host.store.steps(record.id)
    assert [s.moves for s in steps[1:]] == [{0: 1}] * 3
    prompts = [d.text for d in env.transport.to("seat0") if d.payload.get("request")]
    assert ["action 3 of 3" in text for text in prompts] == [False, False, True]


async def test_without_a_clock_every_window_is_fresh(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=TURN_S, config={"rounds": 3, "turn_based": True})
    await env.advance(10)
    await act(env, record.id, PLAYERS[0])
    assert await deadline(env, record.id) == env.clock() + TURN_S


async def test_the_clock_running_out_closes_the_action_with_its_default(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await env.new_match(window_s=TURN_S, config=TURNS)
    await env.advance(10)
    await act(env, record.id, PLAYERS[0])
    await env.advance(TURN_S - 10)  # the turn clock runs out in the second action
    steps = await env.host.store.steps(record.id)
    assert [s.moves for s in steps[1:]] == [{0: 1}, {0: None}]
    # the third action still gets the floor, so its prompt can be answered
    assert await deadline(env, record.id) == env.clock() + CLOCK_FLOOR_S
    await env.advance(CLOCK_FLOOR_S)
    assert (await env.host.store.steps(record.id))[-1].moves == {0: None}
    assert await deadline(env, record.id) == env.clock() + TURN_S  # P2's turn: fresh


async def test_a_restart_mid_turn_keeps_the_turn_clock(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=TURN_S, config=TURNS)
    first = await deadline(env, record.id)
    await env.advance(10)
    await act(env, record.id, PLAYERS[0])
    await env.reopen()
    assert await deadline(env, record.id) == first
    await env.advance(10)
    await act(env, record.id, PLAYERS[0])
    assert await deadline(env, record.id) == first
    await env.advance(first - env.clock())  # the clock runs out on the restarted host
    assert (await env.host.store.steps(record.id))[-1].moves == {0: None}


async def test_pause_and_extend_work_on_the_turn_clock(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=TURN_S, config=TURNS)
    await env.advance(10)
    await act(env, record.id, PLAYERS[0])
    await env.host.extend(record.id, 30, by=MODERATOR)  # 80 s left on the turn clock
    await env.host.pause(record.id)
    await env.advance(500)
    await env.host.resume(record.id)
    extended = await deadline(env, record.id)
    assert extended == env.clock() + 80
    await env.advance(20)
    await act(env, record.id, PLAYERS[0])
    assert await deadline(env, record.id) == extended  # the extension carries to the next action
