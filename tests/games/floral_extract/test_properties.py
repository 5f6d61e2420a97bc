"""Properties of random legal play (hypothesis): thousands of turns, every config option."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.floral_extract import GAME
from games.floral_extract.state import State
from games.protocol import PUBLIC, Accepted, Event, Refused, Setup

CONFIGS = st.fixed_dictionaries(
    {
        "initial_weather": st.sampled_from(["sunny", "chilly", "rainy", "random"]),
        "azalea_shrink_mode": st.sampled_from(["sliding", "reset"]),
        "guess_cost_mode": st.sampled_from(["formula", "prose"]),
        "declaration_without_charge": st.sampled_from(["reject", "dud"]),
        "allow_resubmit_after_valid": st.booleans(),
        "opponent_report_shows_empty_pots": st.booleans(),
        "advantage": st.sampled_from(["P1", "P2"]),
        "max_turns": st.integers(1, 120),
    }
)
# A small book that fires often, so random play reaches blooms, charges and declarations.
BUSY = {
    "water": {"type": "sum", "n": 3, "lo": 6, "hi": 14},
    "fertilize": {"type": "set", "n": 3, "set": [3, 4, 5, 6]},
    "weather": {"type": "chain", "n": 3, "ops": ["<", ">"]},
}
JUNK = ["", "?", "9", "aa", "I", "r", "  ", "0x", "ß"]


def choose(state: State, seat: int, rng: random.Random) -> str:
    """A random legal answer from the seat's request, with declarations favoured."""
    request = next(r for r in GAME.requests(state) if r.seat == seat)
    declare = [c for c in request.choices if c.group == "declare"]
    if declare and rng.random() < 0.6:
        return rng.choice(declare).value
    return rng.choice(request.choices).value


def play(
    config: dict[str, Any], seed: int, stop_after: int | None = None
) -> tuple[State, list[Event]]:
    """Random play (with junk attempts and timeouts) until the end or ``stop_after`` windows."""
    rng = random.Random(seed)
    state, events = GAME.new_match(Setup({**config, "spellbook": BUSY}, 2, seed))
    windows = 0
    while GAME.requests(state) and windows != stop_after:
        moves: dict[int, Any] = {}
        for request in GAME.requests(state):
            if rng.random() < 0.15:
                before = GAME.dump(state)
                verdict = GAME.submit(state, request.seat, rng.choice(JUNK))
                assert isinstance(verdict, Refused) and verdict.reason
                assert GAME.dump(state) == before
            if rng.random() < 0.9:
                verdict = GAME.submit(state, request.seat, choose(state, request.seat, rng))
                assert isinstance(verdict, Accepted)
                moves[request.seat] = verdict.move
        state, new_events = GAME.resolve(state, moves)
        events += new_events
        windows += 1
    return state, events


def check_invariants(state: State) -> None:
    for player in state.players:
        assert all(f is None or f.stage >= 0 for f in player.pots)
        assert 0 <= player.points <= 4
        assert player.charge in (0, 1)
        assert player.points <= player.blooms
        assert len(set(player.planted)) == len(player.planted)


SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SLOW
@given(CONFIGS, st.integers(0, 2**32))
def test_random_play_always_ends_within_the_rules(config: dict[str, Any], seed: int) -> None:
    state, events = play(config, seed)
    check_invariants(state)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners in ((0,), (1,))
    assert state.turns_completed <= config["max_turns"]
    assert GAME.requests(state) == []
    assert all(isinstance(GAME.submit(state, seat, "A"), Refused) for seat in (0, 1))
    assert events[-1].kind == "game_over"


def secret_pairs(state: State, seat: int) -> set[str]:
    """The opponent's map as "S=6" / "S = 6" texts, minus pairs this seat found itself."""
    opponent = state.players[1 - seat]
    found = {s for s, _ in state.players[seat].correct_pairs}
    return {
        f"{s}{sep}{i}"
        for s, i in opponent.identity.items()
        if s not in found
        for sep in ("=", " = ")
    }


@SLOW
@given(CONFIGS, st.integers(0, 2**32))
def test_no_seat_ever_sees_the_opponents_secrets(config: dict[str, Any], seed: int) -> None:
    state, events = play(config, seed)
    publicly_found = {
        d["symbol"]
        for e in events
        if e.kind == "turn"
        for d in e.data["declarations"]
        if d["correct"]
    }
    for event in events:
        if event.kind == "game_over":
            continue
        for seat in (0, 1):
            if event.audience not in (PUBLIC,) and event.audience.seat != seat:
                continue
            opponent = state.players[1 - seat]
            hidden = [(s, i) for s, i in opponent.identity.items() if s not in publicly_found]
            blob = event.text + json.dumps(event.data)
            for symbol, identity in hidden:
                assert not re.search(rf"\b{symbol} ?= ?{identity}\b", blob), (event.kind, symbol)
            if event.audience.kind == "seat":
                assert (
                    "opponent" not in json.dumps(event.data).lower() or event.kind == "turn_private"
                )
                assert "watered" not in event.data and "sabotaged" not in event.data


@SLOW
@given(CONFIGS, st.integers(0, 2**32), st.integers(1, 60))
def test_save_load_continue_gives_the_same_match(
    config: dict[str, Any], seed: int, cut: int
) -> None:
    """Continuing from a JSON round trip of the state replays bit for bit."""
    rng_seed = seed ^ 0x5EED
    state, _ = play(config, seed, stop_after=cut)
    restored = GAME.load(json.loads(json.dumps(GAME.dump(state))))
    assert GAME.dump(restored) == GAME.dump(state)
    rng_a, rng_b = random.Random(rng_seed), random.Random(rng_seed)
    for _ in range(40):
        if not GAME.requests(state):
            break
        moves_a = {r.seat: choose(state, r.seat, rng_a) for r in GAME.requests(state)}
        moves_b = {r.seat: choose(restored, r.seat, rng_b) for r in GAME.requests(restored)}
        assert moves_a == moves_b
        state, events_a = GAME.resolve(state, moves_a)
        restored, events_b = GAME.resolve(restored, moves_b)
        assert [(e.audience, e.kind, e.data, e.text) for e in events_a] == [
            (e.audience, e.kind, e.data, e.text) for e in events_b
        ]
        assert GAME.dump(state) == GAME.dump(restored)


@settings(max_examples=25, deadline=None)
@given(CONFIGS, st.integers(0, 2**32))
def test_a_match_replays_from_config_seed_and_moves(config: dict[str, Any], seed: int) -> None:
    first, events_a = play(config, seed)
    second, events_b = play(config, seed)
    assert GAME.dump(first) == GAME.dump(second)
    assert [e.text for e in events_a] == [e.text for e in events_b]


def test_thousands_of_turns_of_random_play() -> None:
    turns = 0
    for seed in range(30):
        state, _ = play({"max_turns": None} | {"advantage": "P2"}, seed, stop_after=150)
        check_invariants(state)
        turns += state.turns_completed
    assert turns > 3000
