"""Close rules (``Request.close``) and arrival order, through the real host on manual timers
(nothing sleeps): a ``first`` window closes at the first accepted answer and refuses the next,
a ``ready`` window closes when the engine says, and ``resolve`` gets the moves in arrival order,
which the export keeps so the audit's replay gives ``resolve`` the same order."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.audit import audit_match
from bot.export import export_match
from bot.host.model import SubmitResult
from bot.store import Attempt
from games.moves import WINDOW_CLOSED, closes_early, play_window
from games.protocol import Choice, Request, Setup
from tests.bot.conftest import PLAYERS, HostEnv
from tests.bot.toy_game import GAME, ToyGame

THREE = (*PLAYERS, 103)


async def step_of(env: HostEnv, match_id: int) -> int:
    window = (await env.host.status(match_id)).window
    assert window is not None
    return window.step


def round_texts(env: HostEnv, match_id: int) -> list[str]:
    return [d.text for d in env.transport.to("public", match_id) if "target" in d.text]


async def audited(env: HostEnv, match_id: int) -> dict[str, Any]:
    store = env.host.store
    record = await store.get_match(match_id)
    assert record is not None
    problems = audit_match(
        GAME, record, await store.steps(match_id), await store.attempts(match_id)
    )
    assert not problems, problems
    script: dict[str, Any] = await export_match(store, match_id)
    return script


async def test_a_first_window_closes_at_the_first_answer_and_refuses_the_next(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await env.new_match(config={"rounds": 2, "close": "first"})
    step = await step_of(env, record.id)
    # both answers arrive together: the second is judged before the queued close runs
    first, second = await asyncio.gather(
        env.host.submit(record.id, PLAYERS[1], "4", step=step),
        env.host.submit(record.id, PLAYERS[0], "3", step=step),
    )
    assert first == SubmitResult(True, "You guess 4.", record.id, 1, step, "")
    assert (second.accepted, second.text) == (False, WINDOW_CLOSED)
    await env.host.wait_idle()
    assert await step_of(env, record.id) > step  # closed without waiting for the deadline
    steps = await env.host.store.steps(record.id)
    assert steps[-1].moves == {1: 4, 0: None}
    assert [(a.seat, a.raw) for a in await env.host.store.attempts(record.id)] == [(1, "4")]
    assert round_texts(env, record.id)[0].split("; ")[1].startswith("P2 4, P1 ")
    assert (await audited(env, record.id))["windows"] == [{"1": ["4"]}]


async def test_a_ready_window_closes_when_the_engine_says(manual_env: HostEnv) -> None:
    env = manual_env
    config = {"rounds": 2, "close": "ready", "ready_at": 5}
    record = await env.new_match(config=config, players=THREE)
    step = await step_of(env, record.id)
    assert (await env.host.submit(record.id, THREE[0], "2", step=step)).accepted
    await env.host.wait_idle()
    assert await step_of(env, record.id) == step  # 2 < 5: not ready, still open
    assert (await env.host.submit(record.id, THREE[1], "4", step=step)).accepted
    await env.host.wait_idle()
    assert await step_of(env, record.id) > step  # 2 + 4 >= 5: ready, closed
    assert (await env.host.store.steps(record.id))[-1].moves == {0: 2, 1: 4, 2: None}
    refused = await env.host.submit(record.id, THREE[2], "1", step=step)
    assert not refused.accepted
    await audited(env, record.id)


async def test_resolve_gets_the_moves_in_arrival_order(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(config={"rounds": 2})
    step = await step_of(env, record.id)
    assert not (await env.host.submit(record.id, PLAYERS[0], "x", step=step)).accepted
    assert (await env.host.submit(record.id, PLAYERS[1], "4", step=step)).accepted
    assert (await env.host.submit(record.id, PLAYERS[0], "3", step=step)).accepted
    await env.host.wait_idle()
    assert round_texts(env, record.id)[0].split("; ")[1].startswith("P2 4, P1 3")
    # the export lists seats by their first accepted answer: the replay keeps the order
    script = await audited(env, record.id)
    assert list(script["windows"][0].items()) == [("1", ["4"]), ("0", ["x", "3"])]


def test_play_window_keeps_the_order_of_the_attempt_list() -> None:
    state, _ = GAME.new_match(_setup())
    requests = GAME.requests(state)
    played = play_window(requests, {1: ["5"], 0: ["1"]}, lambda s, r: GAME.submit(state, s, r))
    assert list(played.moves.items()) == [(1, 5), (0, 1)]
    unanswered = play_window(requests, {0: ["x"], 1: ["2"]}, lambda s, r: GAME.submit(state, s, r))
    assert list(unanswered.moves.items()) == [(1, 2), (0, None)]


def test_a_game_without_ready_closes_a_ready_window_as_all() -> None:
    request = Request(0, "guess", "?", (Choice("1", "1"),), "", 60.0, close="ready")

    class NoReady:
        pass

    class Ready(ToyGame):
        def ready(self, state: Any, moves: Any) -> bool:
            return True

    assert not closes_early(NoReady(), None, request, {0: 1})  # type: ignore[arg-type]
    assert closes_early(Ready(), None, request, {0: 1})
    assert not closes_early(Ready(), None, Request(0, "g", "?", (), "", 60.0), {0: 1})
    first = Request(0, "guess", "?", (), "", 60.0, close="first")
    assert closes_early(NoReady(), None, first, {})  # type: ignore[arg-type]


def _setup() -> Setup:
    return Setup(GAME.parse_config({}, 2), 2, 7)


async def test_a_restart_keeps_the_arrival_order_of_an_open_window(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(config={"rounds": 2}, players=THREE)
    step = await step_of(env, record.id)
    assert (await env.host.submit(record.id, THREE[2], "4", step=step)).accepted
    assert (await env.host.submit(record.id, THREE[0], "3", step=step)).accepted
    host = await env.reopen()
    assert (await host.submit(record.id, THREE[1], "5", step=step)).accepted
    await host.wait_idle()
    assert round_texts(env, record.id)[0].split("; ")[1].startswith("P3 4, P1 3, P2 5")
    await audited(env, record.id)


async def test_a_first_answer_saved_just_before_a_crash_closes_the_window_at_start(
    manual_env: HostEnv,
) -> None:
    """The answer was committed, the host stopped before its queued close ran: the restarted
    host closes the window at once, with no grace and no wait for the deadline."""
    env = manual_env
    record = await env.new_match(config={"rounds": 2, "close": "first"})
    step = await step_of(env, record.id)
    answer = Attempt(record.id, step, 1, PLAYERS[1], "4", "accepted", "You guess 4.", 4, 0.0)
    assert await env.host.store.add_attempt(answer)  # as the host commits it, then it stops
    env.clock.advance(3600)  # long past the deadline (no timer runs): a waiting window gets grace
    host = await env.reopen()
    await host.wait_idle()
    steps = await host.store.steps(record.id)
    assert steps[-1].step == step and steps[-1].moves == {1: 4, 0: None}
    assert not [d for d in env.transport.sent if "open again" in d.text]
