"""A player leaves, or a moderator removes one: one "leave" step through the real host, store
and timers; the game decides what follows, and the audit replays it."""

from __future__ import annotations

import json

import pytest

from bot.audit import audit_match, audit_store
from bot.export import export_match
from bot.games import load_game_info
from bot.host import HostError
from tests.bot.conftest import MODERATOR, PLAYERS, HostEnv

THREE = (*PLAYERS, 103)


async def audit_clean(env: HostEnv, match_id: int) -> None:
    store = env.host.store
    record = await store.get_match(match_id)
    assert record is not None
    steps, attempts = await store.steps(match_id), await store.attempts(match_id)
    assert audit_match(env.host.game(record.game), record, steps, attempts) == []


async def test_with_two_seats_the_other_wins_and_the_pending_move_is_dropped(
    env: HostEnv,
) -> None:
    record = await env.new_match(config={"rounds": 3})
    assert (await env.host.submit(record.id, PLAYERS[0], "4")).accepted
    left = await env.host.leave(record.id, PLAYERS[1])

    assert left.status == "finished"
    assert left.outcome == {"winners": [0], "reason": "opponent left", "detail": ""}
    steps = await env.host.store.steps(record.id)
    assert [(step.kind, step.moves) for step in steps] == [("start", None), ("leave", {1: "leave"})]
    assert steps[1].snapshot["scores"] == [0, 0], "the open window's move was not applied"
    log = await env.host.store.match_log(record.id)
    assert [(entry.kind, entry.by_user) for entry in log][-1] == ("left", PLAYERS[1])
    await env.host.wait_idle()
    public = env.transport.to("public", record.id)[-1].text
    assert "Match 1: P2 left." in public and "P2 left the match." in public
    assert record.id not in env.host.active_match_ids()
    await audit_clean(env, record.id)


async def test_with_three_seats_a_kicked_seat_is_out_and_never_asked_again(
    env: HostEnv,
) -> None:
    record = await env.new_match(players=THREE, config={"rounds": 2})
    assert (await env.host.submit(record.id, THREE[0], "4")).accepted
    kicked = await env.host.kick(record.id, THREE[1], by=MODERATOR)

    assert kicked.status == "running"
    status = await env.host.status(record.id)
    assert status.window is not None and status.window.seats == (0, 2)
    assert status.window.answered == (), "the closed window's answer does not carry over"
    refused = await env.host.submit(record.id, THREE[1], "4")
    assert not refused.accepted
    log = await env.host.store.match_log(record.id)
    assert (log[-1].kind, log[-1].by_user, log[-1].data) == ("kicked", MODERATOR, {"user": 102})

    for _ in range(2):
        for user in (THREE[0], THREE[2]):
            assert (await env.host.submit(record.id, user, "5")).accepted
        await env.host.wait_idle()
    final = await env.host.store.get_match(record.id)
    assert final is not None and final.status == "finished"
    assert 1 not in final.outcome["winners"]
    steps = await env.host.store.steps(record.id)
    assert [step.kind for step in steps] == ["start", "leave", "resolve", "resolve"]
    await audit_clean(env, record.id)
    summary, problems = await audit_store(env.host.store)
    assert problems == [] and summary["mismatches"] == 0


async def test_a_leave_while_paused_keeps_the_next_window_paused(env: HostEnv) -> None:
    record = await env.new_match(players=THREE)
    await env.host.pause(record.id, by=MODERATOR)
    await env.host.leave(record.id, THREE[2])

    status = await env.host.status(record.id)
    assert status.match.status == "paused"
    assert status.window is not None and status.window.paused
    assert status.window.seats == (0, 1)
    assert (await env.host.resume(record.id, by=MODERATOR)).status == "running"
    await audit_clean(env, record.id)


@pytest.mark.parametrize(
    ("when", "user", "message"),
    [
        ("setup", PLAYERS[0], "is not under way"),
        ("running", 999, "not playing in match"),
        ("left", THREE[2], "P3 is already out"),
        ("finished", PLAYERS[0], "does not exist or is over"),
    ],
)
async def test_a_leave_that_cannot_be_is_refused_and_changes_nothing(
    env: HostEnv, when: str, user: int, message: str
) -> None:
    record = await env.new_match(start=when != "setup", players=THREE, config={"rounds": 1})
    if when == "left":
        await env.host.leave(record.id, THREE[2])
    if when == "finished":
        for player in THREE:
            await env.host.submit(record.id, player, "1")
        await env.host.wait_idle()
    before = await env.host.store.steps(record.id)
    with pytest.raises(HostError, match=message):
        await env.host.leave(record.id, user)
    assert await env.host.store.steps(record.id) == before


async def answer_window(env: HostEnv, match_id: int, players: tuple[int, ...]) -> None:
    """Every asked seat answers its first choice; the window resolves."""
    record = await env.host.store.get_match(match_id)
    assert record is not None
    game = env.host.game(record.game)
    state = game.load((await env.host.store.latest_step(match_id)).snapshot)
    for request in game.requests(state):
        answer = request.choices[0].value
        assert (await env.host.submit(match_id, players[request.seat], answer)).accepted
    await env.host.wait_idle()


@pytest.mark.parametrize(
    ("game", "players"), [("floral-extract", PLAYERS), ("warlocks-brew", THREE)]
)
async def test_a_match_with_a_leave_exports_replays_and_audits_clean(
    env: HostEnv, game: str, players: tuple[int, ...]
) -> None:
    record = await env.host.create_match(
        game, guild_id=1, channel_id=2, players=players, moderators=(MODERATOR,), seed=11
    )
    await env.host.start_match(record.id)
    await answer_window(env, record.id, players)
    assert (await env.host.submit(record.id, players[0], "junk that is refused")).accepted is False
    await env.host.kick(record.id, players[1], by=MODERATOR)
    if record.id in env.host.active_match_ids():
        await answer_window(env, record.id, players)
        await env.host.end(record.id, by=MODERATOR)
    await env.host.wait_idle()

    script = await export_match(env.host.store, record.id)
    assert {"leave": "P2"} in script["steps"]
    info = load_game_info(game)
    trace = info.run_script(json.loads(json.dumps(script)))
    assert [c for c in trace["checkpoints"] if c.get("left") == "P2"], "the replay saw no leave"
    summary, problems = await audit_store(env.host.store)
    assert problems == [] and summary["mismatches"] == 0
    if len(players) == 2:
        final = await env.host.store.get_match(record.id)
        assert final is not None and final.outcome["winners"] == [0]
