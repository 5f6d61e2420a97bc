"""Every bad submission is refused with a clear reason and changes nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.bot.conftest import PLAYERS, HostEnv

Arrange = Callable[[HostEnv], Awaitable[tuple[int, int, str, dict[str, Any]]]]


async def fingerprint(env: HostEnv, match_id: int) -> Any:
    """Everything a refusal must leave alone: the match, its log, its open window and moves."""
    store = env.host.store
    window = await store.open_window(match_id)
    steps = [(s.step, s.kind, s.moves, s.snapshot) for s in await store.steps(match_id)]
    return await store.get_match(match_id), steps, window, env.host.stats.submissions


async def running(env: HostEnv, **kwargs: Any) -> int:
    return (await env.new_match(window_s=3600, **kwargs)).id


async def non_player(env: HostEnv) -> tuple[int, int, str, dict[str, Any]]:
    return await running(env), 555, "3", {}


async def unknown_match(env: HostEnv) -> tuple[int, int, str, dict[str, Any]]:
    await running(env)
    return 4242, PLAYERS[0], "3", {}


async def player_of_another_match(env: HostEnv) -> tuple[int, int, str, dict[str, Any]]:
    await running(env)
    other = await running(env, players=(301, 302))
    return other, PLAYERS[0], "3", {}


async def stale_prompt(env: HostEnv) -> tuple[int, int, str, dict[str, Any]]:
    match_id = await running(env)
    for user in PLAYERS:
        await env.host.submit(match_id, user, "1")
    await env.host.wait_idle()
    return match_id, PLAYERS[0], "3", {"step": 1}


async def not_asked_now(env: HostEnv) -> tuple[int, int, str, dict[str, Any]]:
    return await running(env, config={"turn_based": True}), PLAYERS[1], "3", {}


async def already_answered(env: HostEnv) -> tuple[int, int, str, dict[str, Any]]:
    match_id = await running(env)
    await env.host.submit(match_id, PLAYERS[0], "1")
    return match_id, PLAYERS[0], "2", {}


async def invalid_move(env: HostEnv) -> tuple[int, int, str, dict[str, Any]]:
    return await running(env), PLAYERS[0], "x", {}


async def paused_match(env: HostEnv) -> tuple[int, int, str, dict[str, Any]]:
    match_id = await running(env)
    await env.host.pause(match_id)
    return match_id, PLAYERS[0], "3", {}


async def not_started(env: HostEnv) -> tuple[int, int, str, dict[str, Any]]:
    return (await env.new_match(start=False)).id, PLAYERS[0], "3", {}


async def finished_match(env: HostEnv) -> tuple[int, int, str, dict[str, Any]]:
    match_id = await running(env, config={"rounds": 1})
    for user in PLAYERS:
        await env.host.submit(match_id, user, "1")
    await env.host.wait_over(match_id)
    return match_id, PLAYERS[0], "3", {}


async def aborted_match(env: HostEnv) -> tuple[int, int, str, dict[str, Any]]:
    match_id = await running(env)
    await env.host.abort(match_id)
    return match_id, PLAYERS[0], "3", {}


CASES: list[tuple[Arrange, str]] = [
    (non_player, "not a player in match"),
    (unknown_match, "There is no match 4242"),
    (player_of_another_match, "not a player in match"),
    (stale_prompt, "prompt has expired"),
    (not_asked_now, "Nothing is asked of you"),
    (already_answered, "already answered"),
    (invalid_move, "Send one number from 0 to 9"),
    (paused_match, "is paused"),
    (not_started, "has not started"),
    (finished_match, "is over (finished)"),
    (aborted_match, "is over (aborted)"),
]


@pytest.mark.parametrize(("arrange", "reason"), CASES, ids=[c[0].__name__ for c in CASES])
async def test_refused_and_nothing_changes(env: HostEnv, arrange: Arrange, reason: str) -> None:
    match_id, user, raw, options = await arrange(env)
    await env.host.wait_idle()
    before = await fingerprint(env, match_id)
    sent_before = len(env.transport.sent)

    result = await env.host.submit(match_id, user, raw, **options)

    assert not result.accepted
    assert reason in result.text
    await env.host.wait_idle()
    assert await fingerprint(env, match_id) == before
    assert len(env.transport.sent) == sent_before


async def test_refused_attempts_in_a_window_are_kept_for_the_export(env: HostEnv) -> None:
    match_id = await running(env)
    for raw in ["x", "4", "5"]:
        await env.host.submit(match_id, PLAYERS[0], raw)
    attempts = await env.host.store.attempts(match_id)
    assert [(a.raw, a.verdict, a.move) for a in attempts] == [
        ("x", "refused", None),
        ("4", "accepted", 4),
        ("5", "duplicate", None),
    ]


# Any text at all: lone surrogates too, which Discord's JSON can carry and UTF-8 cannot.
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=3) | st.sampled_from(
    ["\ud800", "3\udfff", "\udc00 3"]
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    inputs=st.lists(st.tuples(st.sampled_from([*PLAYERS, 555]), ANY_TEXT), min_size=1, max_size=8)
)
async def test_only_valid_first_answers_become_moves(
    env: HostEnv, inputs: list[tuple[int, str]]
) -> None:
    """Whatever players type, a seat's move is its first answer the engine accepts."""
    match_id = await running(env)
    expected: dict[int, int] = {}
    for user, raw in inputs:
        result = await env.host.submit(match_id, user, raw)
        valid = raw.strip() in list("0123456789")
        first = user in PLAYERS and PLAYERS.index(user) not in expected
        assert result.accepted == (user in PLAYERS and valid and first), (user, raw, result)
        if result.accepted:
            expected[PLAYERS.index(user)] = int(raw.strip())
        if len(expected) == len(PLAYERS):
            break
    await env.host.wait_idle()
    if len(expected) == len(PLAYERS):
        assert (await env.host.store.steps(match_id))[1].moves == expected
    else:
        window = await env.host.store.open_window(match_id)
        assert window is not None and window.moves == expected


async def test_a_lone_surrogate_is_refused_and_kept_as_the_store_can_hold_it(env: HostEnv) -> None:
    match_id = await running(env)
    result = await env.host.submit(match_id, PLAYERS[0], "\ud800")
    assert not result.accepted and "Send one number" in result.text
    assert not (await env.host.submit(match_id, PLAYERS[0], "4\udfff")).accepted
    attempts = await env.host.store.attempts(match_id)
    assert [a.raw for a in attempts] == ["\ufffd", "4\ufffd"]
