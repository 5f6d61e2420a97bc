"""Whole matches: agents, leaving, export and replay, views and secrets, timers."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest

from games.flaky_flasks import AGENTS, GAME, TIMERS, export_script, replay_script, run_script
from games.flaky_flasks.content import HOUSE
from games.moves import play_window
from games.play import play_match
from games.protocol import Accepted, Request, Setup, derive_rng
from games.scripts import Leave


def _match(
    seed: int, seats: int = 3, config: dict[str, Any] | None = None, strong: int | None = 0
) -> Any:
    parsed = GAME.parse_config(config or {}, seats)
    state, events = GAME.new_match(Setup(parsed, seats, seed))
    agents = [
        AGENTS["normal" if s == strong else "random"](s, derive_rng(seed, "agent", s))
        for s in range(seats)
    ]
    return play_match(GAME, state, events, agents, derive_rng(seed, "order"))


def test_brewer_beats_two_random_players() -> None:
    wins = 0.0
    for seed in range(12):
        final = _match(seed, 3, {"rounds": 6}, strong=seed % 3)
        outcome = GAME.outcome(final)
        assert outcome is not None
        if seed % 3 in outcome.winners:
            wins += 1 / len(outcome.winners)
    assert wins / 12 >= 0.6


def test_brewer_sells_potions_and_buys() -> None:
    final = _match(3, 2, {"rounds": 6}, strong=0)
    g = final["g"]
    me = g["players"][0]
    assert me["fame"] > 20
    assert len(me["deck"]) > 12 or sum(map(len, me["channels"])) + len(me["spare"]) > 1


def _record(
    seed: int, seats: int, config: dict[str, Any], leave_at: int | None = None
) -> tuple[list[Any], list[Any]]:
    """A live match window by window: the attempts each window got (or a Leave) and the states."""
    parsed = GAME.parse_config(config, seats)
    state, _ = GAME.new_match(Setup(parsed, seats, seed))
    agents = [
        AGENTS["normal" if s % 2 == 0 else "random"](s, derive_rng(seed, s)) for s in range(seats)
    ]
    windows: list[Any] = []
    states = []
    while GAME.requests(state):
        requests = GAME.requests(state)
        if leave_at is not None and len(windows) == leave_at:
            state, _ = GAME.leave(state, requests[0].seat)
            windows.append(Leave(requests[0].seat))
            states.append(state)
            continue
        attempts = {
            r.seat: ["junk", agents[r.seat].act(r, GAME.view(state, r.seat))] for r in requests
        }
        played = play_window(requests, attempts, partial(GAME.submit, state))
        state, _ = GAME.resolve(state, played.moves)
        windows.append(attempts)
        states.append(state)
    return windows, states


@pytest.mark.parametrize(
    ("seed", "seats", "leave_at"), [(1, 2, None), (2, 3, None), (5, 4, 30), (6, 3, 7)]
)
def test_export_replays_the_live_match_window_by_window(
    seed: int, seats: int, leave_at: int | None
) -> None:
    config = {"rounds": 6}
    windows, states = _record(seed, seats, config, leave_at)
    names = [f"P{s + 1}" for s in range(seats)]
    script = json.loads(json.dumps(export_script(config, seed, names, windows)))
    replayed = list(replay_script(script))
    assert len(replayed) == len(windows)
    for again, state in zip(replayed, states, strict=True):
        assert again.state == json.loads(json.dumps(state))
    assert len(run_script(script)["checkpoints"]) == len(windows)
    # the orders it wrote are the seed's: changing one is found
    round_, seat = next(iter(script["decks"].items()))
    name, order = next(iter(seat.items()))
    if len(set(order)) > 1:
        script["decks"][round_][name] = list(reversed(order))
        with pytest.raises(Exception, match="decks"):
            list(replay_script(script))


def test_export_writes_every_order_without_a_seed_too() -> None:
    windows, states = _record(4, 2, {"rounds": 6})
    script = export_script({"rounds": 6}, 4, ["P1", "P2"], windows)
    del script["seed"]
    final = list(replay_script(script))[-1].state
    assert final["g"]["players"] == states[-1]["g"]["players"]


def test_leave_with_two_seats_the_other_wins() -> None:
    state, _ = GAME.new_match(Setup(GAME.parse_config({}, 2), 2, 1))
    after, _ = GAME.leave(state, 0)
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.winners == (1,)
    with pytest.raises(ValueError):
        GAME.leave(after, 1)


def test_leave_with_three_seats_the_seat_is_never_asked_again() -> None:
    state, _ = GAME.new_match(Setup(GAME.parse_config({"rounds": 6}, 3), 3, 2))
    state, _ = GAME.leave(state, 1)
    agents = [AGENTS["random"](s, derive_rng(2, s)) for s in range(3)]
    while GAME.requests(state):
        requests = GAME.requests(state)
        assert all(r.seat != 1 for r in requests)
        moves = {}
        for r in requests:
            verdict = GAME.submit(state, r.seat, agents[r.seat].act(r, GAME.view(state, r.seat)))
            assert isinstance(verdict, Accepted)
            moves[r.seat] = verdict.move
        state, _ = GAME.resolve(state, moves)
    outcome = GAME.outcome(state)
    assert outcome is not None and 1 not in outcome.winners
    assert state["g"]["standings"][-1] == 1


def test_s12_1_timer_kinds_and_turn_clocks() -> None:
    assert TIMERS == {"turn": 60.0, "reaction": 20.0}
    state, _ = GAME.new_match(Setup(GAME.parse_config({"work_window_s": 90}, 2), 2, 1))
    requests: list[Request] = GAME.requests(state)
    assert {r.kind for r in requests} == {"work"}
    assert all(
        r.timer == "turn" and r.timeout_s == 90 and r.clock == "R1.T1.work" for r in requests
    )
    # one command each: the same work window (the same clock) goes on
    moves = {
        r.seat: next(c.value for c in r.choices if c.value.startswith("play ")) for r in requests
    }
    nxt, _ = GAME.resolve(state, moves)
    again = GAME.requests(nxt)
    assert again and all(r.clock == "R1.T1.work" for r in again)


def test_s12_3_hands_are_secret_and_shown_to_their_owner() -> None:
    state, _ = GAME.new_match(Setup(GAME.parse_config({}, 2), 2, 1, ["Ann", "Bo"]))
    hand = state["g"]["players"][0]["hand"]
    assert hand
    (secret,) = GAME.secrets(state, 0)
    assert secret.texts[0] in GAME.describe(state, 0)
    assert secret.texts[0] not in GAME.describe(state, 1) and secret.texts[0] not in GAME.describe(
        state, None
    )
    assert GAME.view(state, 0)["me"]["hand"] == hand
    assert "me" not in GAME.view(state, None)
    assert all("hand" not in p for p in GAME.view(state, 1)["players"])


def test_every_offered_choice_is_accepted_over_a_match() -> None:
    state, _ = GAME.new_match(
        Setup(GAME.parse_config({"rounds": 6, "prompt_mode": "all"}, 3), 3, 9)
    )
    agents = [AGENTS["normal"](s, derive_rng(9, s)) for s in range(3)]
    seen = set()
    while GAME.requests(state):
        moves = {}
        for r in GAME.requests(state):
            seen.add(r.kind)
            for choice in r.choices:
                assert isinstance(GAME.submit(state, r.seat, choice.value), Accepted), (
                    r.kind,
                    choice,
                )
                assert len(choice.label) <= 80
            assert len(r.prompt) <= 1500
            moves[r.seat] = GAME.submit(
                state, r.seat, agents[r.seat].act(r, GAME.view(state, r.seat))
            ).move  # type: ignore[union-attr]
        state, events = GAME.resolve(state, moves)
        assert all(len(e.text) <= 1800 for e in events)
    assert seen >= {"setup", "hex", "work", "market", "offer"}


@pytest.mark.parametrize("seed", range(6))
def test_coins_never_go_below_zero_and_cards_are_conserved(seed: int) -> None:
    """Every card is somewhere: the players' collections and slots plus the market rows and
    decks hold the starter decks and every market copy, less the trashed cards."""
    seats = 2 + seed % 3
    state, _ = GAME.new_match(Setup(GAME.parse_config({"rounds": 6}, seats), seats, seed))
    agents = [AGENTS["normal" if s % 2 else "random"](s, derive_rng(seed, s)) for s in range(seats)]
    trashed = 0
    while GAME.requests(state):
        moves = {}
        for r in GAME.requests(state):
            verdict = GAME.submit(state, r.seat, agents[r.seat].act(r, GAME.view(state, r.seat)))
            assert isinstance(verdict, Accepted)
            moves[r.seat] = verdict.move
            trashed += " trash " in verdict.move
        state, _ = GAME.resolve(state, moves)
        g = state["g"]
        owned = 0
        for p in g["players"]:
            assert p["coins"] >= 0 and p["temp"] >= 0 and p["charge"] >= 0
            owned += len(p["deck"]) + len(p["hand"]) + len(p["discard"])
            owned += sum(slot is not None for slot in p["slots"])
        market = sum(len([i for i in row if i]) for row in g["rows"]["river"].values())
        market += sum(len(deck) for deck in g["decks"]["river"].values())
        unlocked = {int(t) for t in g["rows"]["river"]}
        copies = sum(c.copies for c in HOUSE.cards.values() if c.tier in unlocked)
        assert owned + market + trashed == 12 * seats + copies


def test_s6_3_the_work_deadline_ends_every_seats_part() -> None:
    """A host window of the work window closing with a seat's move missing is the deadline:
    the seat that did answer keeps its command and is done too (one clock for the window)."""
    state, _ = GAME.new_match(Setup(GAME.parse_config({}, 2), 2, 1))
    requests = GAME.requests(state)
    play = next(c.value for c in requests[0].choices if c.value.startswith("play "))
    after, _ = GAME.resolve(state, {0: play, 1: None})
    g = after["g"]
    assert g["win"]["label"] == "R1.T2.work"
    assert sum(slot is not None for slot in g["players"][0]["slots"]) == 1


def _to_the_first_offer_window() -> Any:
    state, _ = GAME.new_match(Setup(GAME.parse_config({}, 2), 2, 1))
    while {r.kind for r in GAME.requests(state)} != {"offer"}:
        state, _ = GAME.resolve(state, {r.seat: None for r in GAME.requests(state)})
    return state


def test_s9_2_no_offer_is_news_nobody_decides_on_and_an_offer_is_not() -> None:
    """The host may tell a pass with the phase's next post (``Event.aside``, issue 20); an
    offer is what its target answers, so it is told at once."""
    state = _to_the_first_offer_window()
    (request,) = GAME.requests(state)
    _, events = GAME.resolve(state, {request.seat: None})
    (report,) = [e for e in events if e.kind == "report"]
    assert report.text.endswith("makes no offer") and report.aside
    other = state["g"]["names"][1 - request.seat]
    verdict = GAME.submit(state, request.seat, f"offer {other} give card:copper get")
    assert isinstance(verdict, Accepted)
    _, events = GAME.resolve(state, {request.seat: verdict.move})
    (report,) = [e for e in events if e.kind == "report"]
    assert " offers " in report.text and not report.aside
