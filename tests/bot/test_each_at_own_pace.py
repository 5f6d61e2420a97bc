"""The ``"each"`` close rule: simultaneous work where every seat goes at its own pace on one
deadline (Flaky Flasks §6.3's work window). An answer resolves alone at once; the seat is asked
its next action without waiting for the others, whose prompts (and buttons) stay valid; the
deadline gives every seat still working its default together. The toy game's ``close="each"``
with ``actions`` makes each seat guess that many times a round. Manual timers: nothing sleeps."""

from __future__ import annotations

import random

from bot.audit import audit_store
from bot.host.model import Window
from games.moves import play_window, window_moves
from games.play import play_match
from games.protocol import Accepted, Choice, Request, Setup
from tests.bot.conftest import PLAYERS, HostEnv
from tests.bot.toy_game import GAME, RandomGuesser, export_script, run_script

EACH = {"rounds": 2, "actions": 3, "close": "each"}
TURN_S = 60.0


def prompts_to(env: HostEnv, seat: int) -> list[dict]:  # type: ignore[type-arg]
    return [
        d.payload["request"] for d in env.transport.to(f"seat{seat}") if d.payload.get("request")
    ]


async def window_of(env: HostEnv, match_id: int) -> Window:
    window = env.host._matches.live[match_id].window  # the host's own open window
    assert window is not None
    return window


async def test_a_seat_goes_on_at_once_while_the_other_has_not_answered(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await env.new_match(window_s=TURN_S, config=EACH)
    await env.host.wait_idle()
    deadline = (await window_of(env, record.id)).deadline
    for action in (1, 2):
        await env.advance(5)
        assert (await env.host.submit(record.id, PLAYERS[0], "4")).accepted
        await env.host.wait_idle()
        asked = prompts_to(env, 0)[-1]
        assert f"action {action + 1} of 3" in asked["prompt"]  # no wait for P2
        assert (await window_of(env, record.id)).deadline == deadline  # the one deadline
    # P2 was prompted once, at the start: its prompt and buttons still stand
    assert len(prompts_to(env, 1)) == 1
    first_step = prompts_to(env, 1)[0]["step"]
    result = await env.host.submit(record.id, PLAYERS[1], "3", step=first_step)
    assert result.accepted, result.text
    await env.host.wait_idle()
    steps = await env.host.store.steps(record.id)
    assert [s.moves for s in steps[1:]] == [{0: 4}, {0: 4}, {1: 3}]


async def test_the_deadline_gives_every_seat_still_working_its_default_together(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await env.new_match(window_s=TURN_S, config=EACH)
    await env.host.wait_idle()
    await env.advance(5)
    assert (await env.host.submit(record.id, PLAYERS[0], "4")).accepted
    await env.host.wait_idle()
    await env.advance(TURN_S)  # no floor: the one deadline ends everyone's round
    steps = await env.host.store.steps(record.id)
    assert [s.moves for s in steps[1:]] == [{0: 4}, {0: None, 1: None}]
    view = await env.host.status(record.id)
    assert view.public_view["round"] == 1  # scored, the next round opened fresh
    assert view.window is not None and view.window.deadline == env.clock() + TURN_S


async def test_a_stale_prompt_is_refused_but_a_kept_one_is_not(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=TURN_S, config=EACH)
    await env.host.wait_idle()
    old = prompts_to(env, 0)[0]["step"]
    assert (await env.host.submit(record.id, PLAYERS[0], "1", step=old)).accepted
    await env.host.wait_idle()
    again = await env.host.submit(record.id, PLAYERS[0], "1", step=old)  # action 1's button
    assert not again.accepted and "expired" in again.text
    assert (await window_of(env, record.id)).prompt_step(1) == old  # P2's is still current


async def test_a_restart_keeps_who_holds_which_prompt(manual_env: HostEnv) -> None:
    env = manual_env
    record = await env.new_match(window_s=TURN_S, config=EACH)
    await env.host.wait_idle()
    p2_step = prompts_to(env, 1)[0]["step"]
    assert (await env.host.submit(record.id, PLAYERS[0], "1")).accepted
    await env.host.wait_idle()
    sent = len(env.transport.sent)
    await env.reopen()  # not expired: nothing is sent again
    await env.host.wait_idle()
    assert len(env.transport.sent) == sent
    assert (await env.host.submit(record.id, PLAYERS[1], "2", step=p2_step)).accepted


async def test_the_audit_and_the_export_replay_a_match_played_at_each_pace(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await env.new_match(window_s=TURN_S, config=EACH)
    await env.host.wait_idle()
    for _ in range(3):
        assert (await env.host.submit(record.id, PLAYERS[0], "2")).accepted
        await env.host.wait_idle()
    assert (await env.host.submit(record.id, PLAYERS[1], "7")).accepted
    await env.host.wait_idle()
    await env.advance(TURN_S)  # P2's last two actions time out: its secret scores
    for _ in range(3):
        for player in PLAYERS:
            assert (await env.host.submit(record.id, player, "5")).accepted
            await env.host.wait_idle()
    assert (await env.host.status(record.id)).match.status == "finished"
    summary, problems = await audit_store(env.host.store)
    assert summary["matches"] == 1 and not problems, problems


def test_window_moves_resolves_an_each_windows_answers_alone() -> None:
    each = [Request(s, "work", "", (Choice("1", "1"),), "", 1.0, close="each") for s in (0, 1)]
    assert window_moves(each, {1: "1"}) == {1: "1"}
    assert window_moves(each, {}) == {0: None, 1: None}  # the deadline: everyone together
    every = [Request(s, "guess", "", (Choice("1", "1"),), "", 1.0) for s in (0, 1)]
    assert window_moves(every, {1: "1"}) == {1: "1", 0: None}
    played = play_window(each, {0: ["1"]}, lambda seat, raw: Accepted(raw, raw))
    assert played.moves == {0: "1"}


def test_random_matches_at_each_pace_end_and_replay() -> None:
    for seed in range(20):
        config = GAME.parse_config({**EACH, "rounds": 3}, 3)
        state, events = GAME.new_match(Setup(config, 3, seed))
        agents = [RandomGuesser(seat, random.Random(seed * 7 + seat)) for seat in range(3)]
        final = play_match(GAME, state, events, agents, random.Random(seed))
        assert GAME.outcome(final) is not None
    script = export_script(GAME.parse_config(EACH, 2), 1, ["a", "b"], [{0: ["3"]}, {1: ["4"]}])
    assert run_script(script)["winners"] is None  # two of six actions: the round goes on


async def test_flaky_flasks_work_goes_at_each_seats_own_pace(manual_env: HostEnv) -> None:
    """Flaky Flasks §6.3: the work steps are asynchronous per player and involve no other
    player. A seat that plays a card is asked its next command at once, on the window's one
    deadline, while the other seat has not answered; the other's prompt still stands."""
    env = manual_env
    record = await env.host.create_match(
        "flaky-flasks", guild_id=1, channel_id=2, players=PLAYERS, seed=5
    )
    await env.host.start_match(record.id)
    for _ in range(60):  # setup, hex and counter windows: everyone takes the default answer
        await env.host.wait_idle()
        asked = {p.request.seat: p for u in PLAYERS for p in env.host.prompts_for(u)}
        if asked and all(p.request.kind == "work" for p in asked.values()):
            break
        for user in PLAYERS:
            for prompt in env.host.prompts_for(user):
                if not prompt.answered:
                    await env.host.submit(record.id, user, prompt.request.choices[-1].value)
    else:
        raise AssertionError("no work window opened")
    (mine,) = env.host.prompts_for(PLAYERS[0])
    (theirs,) = env.host.prompts_for(PLAYERS[1])
    play = next(c.value for c in mine.request.choices if c.value.startswith("play "))
    assert (await env.host.submit(record.id, PLAYERS[0], play)).accepted
    await env.host.wait_idle()
    (next_one,) = env.host.prompts_for(PLAYERS[0])
    assert next_one.request.kind == "work" and next_one.request != mine.request
    assert not next_one.answered and next_one.deadline == mine.deadline  # the one deadline
    (still,) = env.host.prompts_for(PLAYERS[1])
    assert still.request == theirs.request and not still.answered  # untouched, still valid
    again = await env.host.submit(record.id, PLAYERS[1], "done", step=theirs.prompted)
    assert again.accepted, again.text
