"""The one move rule (``games.moves``): rulings, the move that stands, and that the live host and
a script replay of the same attempts agree."""

from __future__ import annotations

import asyncio
from functools import partial

from hypothesis import given, settings
from hypothesis import strategies as st

from games.moves import (
    ALREADY_ANSWERED,
    CLOSED,
    Attempt,
    judge,
    play_seat,
    play_window,
)
from games.protocol import Accepted, Refused, Request, Verdict
from games.scripts import read_attempts
from tests.bot.conftest import HostEnv, env, no_errors_logged  # noqa: F401
from tests.bot.toy_game import GAME as TOY
from tests.games.test_conformance import CONFORMANCE


def digits(raw: str) -> Verdict:
    """A stand-in engine: one digit is a valid move."""
    return Accepted(int(raw), f"you chose {raw}") if raw.isdigit() else Refused("send a digit")


def request(seat: int = 0, revisable: bool = False) -> Request:
    return Request(seat, "pick", "Pick a digit.", (), "nothing", 60.0, revisable)


class Counting:
    """An engine submit that records what it was asked."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, raw: str) -> Verdict:
        self.seen.append(raw)
        return digits(raw)


def test_a_second_answer_to_a_final_prompt_is_a_duplicate_the_engine_never_sees() -> None:
    submit = Counting()
    judged = judge("5", submit, answered=True, revisable=False)
    assert (judged.ruling, judged.text, judged.move) == ("duplicate", ALREADY_ANSWERED, None)
    assert submit.seen == []


def test_the_engine_judges_a_first_answer_and_any_answer_to_a_revisable_prompt() -> None:
    assert judge("5", digits, answered=False, revisable=False).move == 5
    assert judge("x", digits, answered=False, revisable=False).ruling == "refused"
    revised = judge("7", digits, answered=True, revisable=True)
    assert (revised.ruling, revised.text, revised.move) == ("accepted", "you chose 7", 7)


def test_the_first_accepted_attempt_stands_unless_the_prompt_is_revisable() -> None:
    attempts = ["x", "3", "4", "y"]
    final = play_seat(attempts, digits, request())
    assert [j.ruling for j in final.judged] == ["refused", "accepted", "duplicate", "duplicate"]
    assert (final.move, final.rejected) == (3, ["x", "4", "y"])
    revisable = play_seat(attempts, digits, request(revisable=True))
    assert [j.ruling for j in revisable.judged] == ["refused", "accepted", "accepted", "refused"]
    assert (revisable.move, revisable.rejected) == (4, ["x", "y"])


def test_nothing_after_the_window_closes_counts_or_reaches_the_engine() -> None:
    submit = Counting()
    played = play_seat(["x", CLOSED, "3"], submit, request())
    assert [j.ruling for j in played.judged] == ["refused", "late"]
    assert (played.move, played.answered, played.rejected) == (None, False, ["x", "3"])
    assert submit.seen == ["x"]


def test_a_typed_timeout_is_a_refused_text_in_version_2_and_the_window_end_in_version_1() -> None:
    typed = play_seat(read_attempts(["TIMEOUT", "3"], "a", 2), digits, request())
    assert typed.move == 3
    legacy = play_seat(read_attempts(["TIMEOUT", "3"], "a", 1), digits, request())
    assert (legacy.move, legacy.rejected) == (None, ["3"])


def test_a_seat_not_asked_has_every_attempt_refused_and_no_move() -> None:
    seen: list[tuple[int, str]] = []

    def submit(seat: int, raw: str) -> Verdict:
        seen.append((seat, raw))
        return digits(raw)

    window = play_window([request(0)], {0: ["1"], 1: ["2", "3"]}, submit)
    assert window.moves == {0: 1}  # what resolve gets: the asked seats only
    assert [j.ruling for j in window.seats[1].judged] == ["not_asked", "not_asked"]
    assert window.rejected(1) == ["2", "3"] and window.rejected(2) == []
    assert seen == [(0, "1")]


def test_an_asked_seat_that_sent_nothing_gets_the_timeout_default() -> None:
    window = play_window([request(0), request(1)], {0: ["x"]}, lambda seat, raw: digits(raw))
    assert window.moves == {0: None, 1: None}


# --- the host and a script replay agree --------------------------------------------------------

TEXTS = st.sampled_from(["0", "1", "2", "3", " 2 ", "7", "x", "TIMEOUT", ""])
WINDOW_S = 30.0  # no deadline falls while the attempts arrive; the test then moves the clock
SWEEP_S = 0.02  # the host's sweep closes a window this long past its deadline


@settings(CONFORMANCE, max_examples=10)
@given(
    seats=st.integers(2, 3),
    revisable=st.booleans(),
    turn_based=st.booleans(),
    attempts=st.lists(st.tuples(st.integers(0, 2), TEXTS), max_size=8),
)
async def test_the_host_and_a_script_replay_agree_on_every_attempt_and_the_moves(
    env: HostEnv,  # noqa: F811
    seats: int,
    revisable: bool,
    turn_based: bool,
    attempts: list[tuple[int, str]],
) -> None:
    if env.options.get("sweep_s") != SWEEP_S:
        env.options["sweep_s"] = SWEEP_S
        await env.reopen()
    players = tuple(range(101, 101 + seats))
    config = {"rounds": 1, "max": 3, "revisable": revisable, "turn_based": turn_based}
    record = await env.new_match(players=players, config=config, window_s=WINDOW_S)
    store, sent = env.host.store, [(seat, raw) for seat, raw in attempts if seat < seats]
    state = TOY.load((await store.latest_step(record.id)).snapshot)
    lists: dict[int, list[Attempt]] = {}
    results = []
    for seat, raw in sent:
        lists.setdefault(seat, []).append(raw)
        results.append((await env.host.submit(record.id, players[seat], raw)).accepted)
    await env.host.wait_idle()  # the prompts delivered on time (a late one reopens the window)
    env.clock.advance(WINDOW_S + 0.5)  # past the deadline: the sweep closes the window
    while (await store.latest_step(record.id)).step == 0:
        await asyncio.sleep(0.005)
    script = play_window(TOY.requests(state), lists, partial(TOY.submit, state))
    ruled = {seat: iter(play.judged) for seat, play in script.seats.items()}
    assert results == [next(ruled[seat]).accepted for seat, _ in sent]
    assert (await store.latest_step(record.id)).moves == script.moves
    stored = [a for a in await store.attempts(record.id) if a.step == 1]
    for seat, play in script.seats.items():
        verdicts = [a.verdict for a in stored if a.seat == seat]
        rulings = [j.ruling for j in play.judged if j.ruling != "not_asked"]
        if revisable or None in script.moves.values():  # the window stayed open throughout
            assert verdicts == rulings
        else:  # it closed once every seat answered: later attempts were refused, not kept
            assert verdicts == rulings[: len(verdicts)]
