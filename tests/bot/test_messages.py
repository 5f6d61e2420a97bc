"""The messages the host composes, as people read them: the hello names its match, its game and
the other players and says how the match starts; the how-to card names them too; every
template that lists names lists them as a sentence does, for 1 to 6 names."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from bot.host import StartRule
from bot.host.notices import hello_text
from bot.tables import Tables
from bot.transport import Delivery, format_delivery
from games.protocol import PUBLIC, Event, Move
from games.text import names_text
from tests.bot.conftest import CHANNEL, GUILD, PLAYERS, HostEnv
from tests.bot.toy_game import GAME, State, ToyGame

NAMES = ("Alice", "Bob", "Carol", "Dan", "Eve", "Fay", "Gus")
OPENER = 99


@pytest.mark.parametrize(
    ("starts", "how"),
    [
        ("moderator", "It starts when a moderator starts it."),
        ("opener", "It starts when the table's opener presses its Start button (or a moderator"),
    ],
)
async def test_the_hello_names_the_match_the_game_the_others_and_who_starts_it(
    env: HostEnv, starts: StartRule, how: str
) -> None:
    record = await env.new_match(start=False, players=(1, 2, 3), names=NAMES[:3], starts=starts)
    await env.host.wait_idle()
    hello = env.transport.to("seat1")[0].text
    assert hello.startswith(
        f"👋 You are Bob in match {record.id}, Toy Guess, against Alice and Carol."
        f" Your prompts will come here. {how}"
    ), hello


async def test_a_practice_hello_says_it_starts_at_once(env: HostEnv) -> None:
    await env.new_match(start=False, practice=True, names=NAMES[:2])
    await env.host.wait_idle()
    hello = env.transport.to("seat0")[0].text
    assert hello.endswith("against Bob. Your prompts will come here. It starts at once.")


async def test_a_table_whose_opener_starts_it_says_so_in_its_hellos(env: HostEnv) -> None:
    tables = Tables(env.host, opener_starts=True)
    table = await tables.open(GUILD, CHANNEL, "warlocks-brew", OPENER, None)
    await tables.join(table.id, 11, "Alice")
    _, record = await tables.join(table.id, 12, "Bob")
    assert record is not None
    await env.host.wait_idle()
    hello = env.transport.to("seat0", record.id)[0].text
    assert f"in match {record.id}, Warlock's Brew, against Bob." in hello
    assert "the table's opener presses its Start button" in hello


async def test_the_how_to_card_names_the_match_the_seat_and_the_others(env: HostEnv) -> None:
    record = await env.new_match(players=(1, 2, 3), names=NAMES[:3])
    await env.host.wait_idle()
    first = env.transport.to("seat2")[1].text
    assert first.startswith(
        f"🃏 **How to play match {record.id}.** You are Carol in Toy Guess against Alice and Bob."
    ), first
    assert "Type `help`" in first and "`cards`" in first


@pytest.mark.parametrize("count", range(1, 7))
def test_the_hello_lists_the_others_as_a_sentence(count: int) -> None:
    names = NAMES[: count + 1]
    text = hello_text(GAME, names, 0, 5, "now")
    assert f"against {names_text(names[1:])}. " in text
    assert text.count(" and ") == (1 if count > 1 else 0) and ", and" not in text


async def play(env: HostEnv, match_id: int, guesses: tuple[str, str] = ("3", "5")) -> Delivery:
    """Both seats answer; the public post that follows."""
    for user, guess in zip(PLAYERS, guesses, strict=True):
        assert (await env.host.submit(match_id, user, guess)).accepted
    await env.host.wait_idle()
    return env.transport.to("public", match_id)[-1]


async def test_one_post_a_turn_holds_its_windows_in_order_with_the_seats_card(
    env: HostEnv,
) -> None:
    config = {"rounds": 2, "actions": 2}  # a round (a turn) of two windows
    record = await env.new_match(window_s=10.0, config=config, names=("Alice", "Bob"))
    await env.host.wait_idle()
    start = env.transport.to("public")[-1]
    assert start.payload["seats"] == [
        {"name": "Alice", "line": "0 points", "won": False},
        {"name": "Bob", "line": "0 points", "won": False},
    ]
    assert await play(env, record.id) is start  # the window in the middle of the turn waits
    new_turn = await play(env, record.id)
    text = new_turn.text
    assert text.index("action 1 of 2 done") < text.index("Round 1: target")  # in order, one post
    assert [e["text"] for e in new_turn.payload["events"]] == text.split("\n")
    assert "hold" not in new_turn.payload and len(env.transport.to("public")) == 2
    lines = [seat["line"] for seat in new_turn.payload["seats"]]
    assert sorted(lines) != ["0 points", "0 points"]  # the scores after the round
    console = format_delivery(new_turn).splitlines()
    assert console[-2:] == [
        f"{' ' * len(f'[m{record.id} public]')}   Alice: P1 · {lines[0]}",
        f"{' ' * len(f'[m{record.id} public]')}   Bob: P2 · {lines[1]}",
    ]
    assert await play(env, record.id) is new_turn
    end = await play(env, record.id)
    assert end.payload["over"] and any(seat["won"] for seat in end.payload["seats"])
    assert end.text.index("action 1 of 2 done") < end.text.index("Round 2: target")


class QuietToy(ToyGame):
    """The toy game telling its first round's result to the seats only: a new turn without a
    public post."""

    def resolve(self, state: State, moves: Mapping[int, Move | None]) -> tuple[State, list[Event]]:
        state, events = super().resolve(state, moves)
        if state["round"] == 1 and not state.get("action"):
            events = [event for event in events if event.audience != PUBLIC]
        return state, events


async def test_a_new_turn_without_a_public_post_gives_the_card_to_the_next_post(
    env: HostEnv,
) -> None:
    config = {"rounds": 2, "actions": 2}
    options = {"guild_id": GUILD, "channel_id": CHANNEL, "players": PLAYERS, "config": config}
    options["window_s"] = 10.0  # short: a mid-turn post waits (lifecycle.HOLD_MAX_S)
    record = await env.host.create_match(QuietToy(), **options)
    await env.host.start_match(record.id)
    await env.host.wait_idle()
    posts = len(env.transport.to("public"))
    await play(env, record.id)  # action 1 of round 1: held for the turn's post
    assert len(env.transport.to("public")) == posts
    held = await play(env, record.id)  # round 1 scores: its result goes to the seats only
    assert held.text == "Round 1: action 1 of 2 done." and "seats" not in held.payload
    owed = await play(env, record.id)  # round 2, action 1: mid-turn, but the card was owed
    assert "Round 2: action 1 of 2 done" in owed.text and "seats" in owed.payload
