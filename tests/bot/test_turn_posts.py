"""One post a game turn: the post and log entry of a window resolved in the middle of a turn
wait, stored, for the turn's next post and go in it, in order; the log channel gets a digest a
turn. Nothing waits past a leave, an end, a notice or a restart, nor in a practice."""

from __future__ import annotations

from collections.abc import Mapping

from bot.outbox import digest
from bot.store import OutboxMessage, OutboxRow
from games.protocol import MODERATORS, Event, Move
from tests.bot.conftest import PLAYERS, HostEnv
from tests.bot.toy_game import State, ToyGame

TURN_OF_TWO = {"rounds": 2, "actions": 2}  # a round (a turn) of two windows
SHORT = 10.0  # windows short enough for a mid-turn post to wait (lifecycle.HOLD_MAX_S)


class LoggedToy(ToyGame):
    """The toy game telling the moderators its state after every window."""

    def resolve(self, state: State, moves: Mapping[int, Move | None]) -> tuple[State, list[Event]]:
        state, events = super().resolve(state, moves)
        text = f"After: round {state['round']}, action {state.get('action', 0)}"
        return state, [*events, Event(MODERATORS, "state", {}, text)]


async def play(env: HostEnv, match_id: int) -> None:
    for user in PLAYERS:
        assert (await env.host.submit(match_id, user, "3")).accepted
    await env.host.wait_idle()


def texts(env: HostEnv, audience: str) -> list[str]:
    return [delivery.text for delivery in env.transport.to(audience)]


async def test_a_held_post_is_stored_through_a_restart_and_goes_with_the_turns_post(
    env: HostEnv,
) -> None:
    record = await env.new_match(window_s=SHORT, config=TURN_OF_TWO)
    await env.host.wait_idle()
    await play(env, record.id)
    assert len(texts(env, "public")) == 1  # the start only: action 1 waits
    rows = await env.host.store.outbox(record.id)
    assert [r.status for r in rows if r.message.audience == "public"] == ["sent", "held"]
    await env.reopen()
    await env.host.wait_idle()
    assert len(texts(env, "public")) == 1  # still held after the restart
    await play(env, record.id)
    post = texts(env, "public")[-1]
    assert post.index("Round 1: action 1 of 2 done.") < post.index("Round 1: target")
    rows = await env.host.store.outbox(record.id)
    assert {r.status for r in rows} == {"sent"}


async def test_a_leave_is_told_at_once_after_the_turns_held_lines(env: HostEnv) -> None:
    record = await env.new_match(window_s=SHORT, config=TURN_OF_TWO, players=(*PLAYERS, 103))
    await env.host.wait_idle()
    for user in (*PLAYERS, 103):
        assert (await env.host.submit(record.id, user, "3")).accepted
    await env.host.wait_idle()
    await env.host.leave(record.id, 103)
    await env.host.wait_idle()
    post = texts(env, "public")[-1]
    assert post.index("action 1 of 2 done") < post.index("left")


async def test_a_notice_takes_the_held_lines_before_it(env: HostEnv) -> None:
    record = await env.new_match(window_s=SHORT, config=TURN_OF_TWO)
    await play(env, record.id)
    await env.host.pause(record.id)
    await env.host.wait_idle()
    paused = f"⏸ Match {record.id} is paused by a moderator."
    assert texts(env, "public")[-1] == f"Round 1: action 1 of 2 done.\n{paused}"


async def test_the_log_channel_gets_one_digest_a_turn_with_the_turns_last_state(
    env: HostEnv,
) -> None:
    options = {"guild_id": 1, "channel_id": 2, "players": PLAYERS, "config": TURN_OF_TWO, "seed": 7}
    options["window_s"] = SHORT
    record = await env.host.create_match(LoggedToy(), **options)
    await env.host.start_match(record.id)
    await env.host.wait_idle()
    before = len(texts(env, "moderators"))
    await play(env, record.id)  # action 1: its log entry waits
    assert len(texts(env, "moderators")) == before
    await play(env, record.id)  # the round's end: one digest, the state after it
    assert texts(env, "moderators")[before:] == [
        "Secrets [0, 3], target 8.\nAfter: round 1, action 0"
    ]


async def test_a_mid_turn_post_someone_decides_on_goes_at_once_and_the_log_still_waits(
    env: HostEnv,
) -> None:
    """Flaky Flasks's Hex before a Counter window, a sale before the next seat's market turn:
    the channel sees it at once, the log gets the turn's digest once (issue 20)."""
    options = {"guild_id": 1, "channel_id": 2, "players": PLAYERS, "seed": 7}
    config = {**TURN_OF_TWO, "actions": 3}
    record = await env.host.create_match(LoggedToy(), **options, config=config, window_s=60.0)
    await env.host.start_match(record.id)
    await env.host.wait_idle()
    before = len(texts(env, "moderators"))
    for action in (1, 2):
        await play(env, record.id)
        assert texts(env, "public")[-1] == f"Round 1: action {action} of 3 done."
        assert len(texts(env, "moderators")) == before
    await play(env, record.id)  # the round's end: one digest, the state after it
    assert texts(env, "moderators")[before:] == [
        "Secrets [0, 3], target 8.\nAfter: round 1, action 0"
    ]
    rows = await env.host.store.outbox(record.id)
    assert {r.status for r in rows} == {"sent"}


class AsideToy(ToyGame):
    """The toy game whose mid-turn actions are news nobody's next decision turns on."""

    def resolve(self, state: State, moves: Mapping[int, Move | None]) -> tuple[State, list[Event]]:
        state, events = super().resolve(state, moves)
        return state, [
            Event(e.audience, e.kind, e.data, e.text, aside=e.kind == "action") for e in events
        ]


async def test_a_long_window_after_news_nobody_decides_on_waits_for_the_turns_post(
    env: HostEnv,
) -> None:
    """Flaky Flasks's "makes no offer" before the next seat's offer window (issue 20): the game
    marks it ``aside``, so it goes with the turn's next post, in order, not in one of its own."""
    options = {"guild_id": 1, "channel_id": 2, "players": PLAYERS, "seed": 7}
    record = await env.host.create_match(AsideToy(), **options, config=TURN_OF_TWO, window_s=60.0)
    await env.host.start_match(record.id)
    await env.host.wait_idle()
    await play(env, record.id)
    assert len(texts(env, "public")) == 1  # the start only: the aside waits
    await play(env, record.id)
    post = texts(env, "public")[-1]
    assert post.index("Round 1: action 1 of 2 done.") < post.index("Round 1: target")


async def test_a_practice_never_holds_its_posts(env: HostEnv) -> None:
    record = await env.new_match(window_s=SHORT, config=TURN_OF_TWO, practice=True)
    await play(env, record.id)
    assert texts(env, "public")[-1] == "Round 1: action 1 of 2 done."


def row(id_: int, audience: str, text: str, *kinds: str) -> OutboxRow:
    events = [{"audience": audience, "kind": kind, "data": {}, "text": text} for kind in kinds]
    payload = {"kind": "turn", "step": id_, "events": events}
    return OutboxRow(id_, OutboxMessage(1, audience, text, payload), "pending", 0, 0, 1, 2, (), ())


def test_a_digest_leaves_out_what_a_later_entry_tells_anew() -> None:
    rows = [
        row(1, "moderators", "hands 1", "hands"),
        row(2, "moderators", "moves 2", "moves"),
        row(3, "moderators", "hands 3 and moves 3", "hands", "moves"),
        row(4, "moderators", "note", "note"),
        row(5, "moderators", "hands 5", "hands"),
    ]
    assert [r.id for r in digest(rows)] == [3, 4, 5]


async def test_a_long_window_asking_everyone_follows_its_post_at_once(env: HostEnv) -> None:
    """Warlock's Brew's deal window after an auction: everyone decides on what the auction
    told, so its post does not wait the window's minute."""
    record = await env.new_match(window_s=60.0, config=TURN_OF_TWO)
    await env.host.wait_idle()
    await play(env, record.id)
    assert "Round 1: action 1 of 2 done." in texts(env, "public")[-1]


async def test_a_long_window_asking_only_the_seat_that_moved_waits_for_the_turns_post(
    env: HostEnv,
) -> None:
    """One player's turn going on (Potioncraft's draw, then the play): nobody else decides."""
    record = await env.new_match(window_s=60.0, config={**TURN_OF_TWO, "turn_based": True})
    await env.host.wait_idle()
    assert (await env.host.submit(record.id, PLAYERS[0], "3")).accepted
    await env.host.wait_idle()
    assert len(texts(env, "public")) == 1  # the start only: the first action waits
    assert (await env.host.submit(record.id, PLAYERS[0], "3")).accepted
    await env.host.wait_idle()
    post = texts(env, "public")[-1]
    assert post.index("action 1 of 2 done.") < post.index("Round 1: target")
