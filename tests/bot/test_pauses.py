"""Windows whose length must tell nothing (Potioncraft §14, ``reaction_wait_full``): the close
rule ``"deadline"`` keeps a window open to its deadline though every seat answered; a silent
request is a pause nobody is prompted for (its seat's answers are refused, ``resolve`` gets
None); an anonymous request names no seat in ``/match status``. The toy game's ``pauses``
makes every second round a silent pause; ``close="deadline"`` its guess windows. Manual timers:
nothing sleeps."""

from __future__ import annotations

from cogs.matches import status_text
from games.moves import play_window
from games.protocol import Accepted, Choice, Request
from tests.bot.conftest import PLAYERS, HostEnv

WINDOW_S = 30.0


def prompts(env: HostEnv, match_id: int) -> dict[str, list[int]]:
    """Each seat's prompts, by the step each opened."""
    return {
        seat: [
            d.payload["request"]["step"]
            for d in env.transport.to(seat, match_id)
            if "request" in d.payload
        ]
        for seat in ("seat0", "seat1")
    }


async def steps(env: HostEnv, match_id: int) -> list[dict[int, object] | None]:
    return [step.moves for step in (await env.host.store.steps(match_id))[1:]]


async def test_a_window_closed_by_its_deadline_only_waits_though_everyone_answered(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await env.new_match(window_s=WINDOW_S, config={"close": "deadline"})
    for user in PLAYERS:
        assert (await env.host.submit(record.id, user, "3")).accepted
    await env.advance(WINDOW_S - 1)
    assert await steps(env, record.id) == []  # all in, still open: its length tells nothing
    await env.advance(1)
    assert await steps(env, record.id) == [{0: 3, 1: 3}]


async def test_a_silent_pause_prompts_nobody_refuses_answers_and_waits_out_its_deadline(
    manual_env: HostEnv,
) -> None:
    env = manual_env
    record = await env.new_match(window_s=WINDOW_S, config={"pauses": True})
    for user in PLAYERS:
        assert (await env.host.submit(record.id, user, "3")).accepted
    await env.host.wait_idle()
    assert await steps(env, record.id) == [{0: 3, 1: 3}]  # round 2 is a pause
    refused = await env.host.submit(record.id, PLAYERS[0], "3")
    assert not refused.accepted and "Nothing is asked of you" in refused.text
    assert env.host.prompts_for(PLAYERS[0]) == [] == env.host.prompts_for(PLAYERS[1])
    status = await env.host.status(record.id)
    assert status.window is not None and status.window.seats == ()
    assert "waiting for answers." in status_text(status)  # who holds the pause: nobody says
    await env.advance(WINDOW_S)
    assert await steps(env, record.id) == [{0: 3, 1: 3}, {0: None}]
    assert prompts(env, record.id) == {"seat0": [1, 3], "seat1": [1, 3]}  # none for the pause


def test_a_silent_seat_is_never_asked_in_a_replay() -> None:
    pause = [Request(0, "pause", "", (), "", 1.0, silent=True)]
    played = play_window(pause, {0: ["3"]}, lambda seat, raw: Accepted(raw, raw))
    assert played.moves == {0: None} and played.seats[0].judged[0].ruling == "not_asked"
    both = [*pause, Request(1, "guess", "", (Choice("3", "3"),), "", 1.0)]
    assert play_window(both, {1: ["3"]}, lambda seat, raw: Accepted(raw, raw)).moves == {
        1: "3",
        0: None,
    }
