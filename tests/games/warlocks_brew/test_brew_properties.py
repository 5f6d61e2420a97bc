"""Property tests: any seat count and variant mix ends, coins are conserved, bids stay secret
until the reveal, and a dumped and loaded state continues exactly like the original."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games.protocol import Accepted, ConfigError, Event, Setup
from games.warlocks_brew import AGENTS, GAME
from games.warlocks_brew.config import INGREDIENTS
from games.warlocks_brew.state import State

MAX_WINDOWS = 400  # a deck of at most 48 cards; rebids add a few windows per auction
JUNK = ["", "7", "zero", "declare", "pass", "3 coins", " 2 "]


@st.composite
def setups(draw: st.DrawFn) -> tuple[dict[str, Any], int, int]:
    seats = draw(st.integers(2, 6))
    types = draw(st.integers(4, 8))
    copies = draw(st.integers(4, 6))
    in_play = list(INGREDIENTS[:types])
    hidden = draw(st.sampled_from(["", "vision_of_blindness", "utter_darkness"]))
    config: dict[str, Any] = {
        "types": types,
        "copies": copies,
        "no_unique": draw(st.sampled_from(["remove", "rebid"])),
        "broke_buyers": draw(st.booleans()),
        "limited_supply": draw(st.integers(0, 2)),
        "small_selection": draw(st.lists(st.sampled_from(in_play), max_size=3, unique=True)),
        "storefront_disaster": draw(st.integers(0, 6)),
        "snakeoil_salesman": draw(st.integers(0, 6)),
    }
    left = [t for t in in_play if t not in config["small_selection"]]
    config["impotent_ingredient"] = draw(st.lists(st.sampled_from(left), max_size=2, unique=True))
    if hidden:
        config[hidden] = True
    if seats == 2:
        config["two_players"] = draw(st.booleans())
    return config, seats, draw(st.integers(0, 2**32))


def _new(config: dict[str, Any], seats: int, seed: int) -> tuple[State, list[Event]]:
    try:
        return GAME.new_match(Setup(config, seats, seed))
    except ConfigError:
        assume(False)
        raise


def _play(
    state: State, seed: int, windows: int = MAX_WINDOWS
) -> tuple[State, list[dict[int, Any]], list[Event]]:
    """Play with a mix of agents, junk answers and timeouts; return the moves of each window."""
    rng = random.Random(seed)
    kinds = ["random", "hard", "easy", "normal"]
    agents = [AGENTS[kinds[i % 2]](i, random.Random(seed + i)) for i in range(len(state.seats))]
    log: list[dict[int, Any]] = []
    events: list[Event] = []
    while GAME.outcome(state) is None and len(log) < windows:
        moves: dict[int, Any] = {}
        for request in GAME.requests(state):
            if rng.random() < 0.1:
                moves[request.seat] = None  # the window closes on this seat
                continue
            raw = rng.choice(JUNK) if rng.random() < 0.1 else None
            if raw is None or not isinstance(GAME.submit(state, request.seat, raw), Accepted):
                raw = agents[request.seat].act(request, GAME.view(state, request.seat))
            verdict = GAME.submit(state, request.seat, raw)
            assert isinstance(verdict, Accepted), (raw, verdict)
            moves[request.seat] = verdict.move
        log.append(moves)
        state, new_events = GAME.resolve(state, moves)
        events += new_events
        for event in new_events:
            for seat, agent in enumerate(agents):
                if event.audience.kind == "public" or event.audience.seat == seat:
                    agent.observe(event)
    return state, log, events


def _coins(state: State, seats: list[int]) -> Counter[int]:
    return Counter(c for i in seats for s in [state.seats[i]] for c in s.hand + s.front + s.table)


def _check_coins(state: State) -> None:
    alive = state.active()
    if state.config["two_players"]:
        # Coins change hands between the two seats but never leave them.
        if len(alive) == 2:
            assert _coins(state, alive) == Counter(state.seats[0].dealt * 2)
        return
    for seat in alive:
        assert sorted(_coins(state, [seat]).elements()) == state.seats[seat].dealt


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setups())
def test_random_play_always_ends_and_conserves_coins(
    setup: tuple[dict[str, Any], int, int],
) -> None:
    config, seats, seed = setup
    state, _ = _new(config, seats, seed)
    windows = 0
    while GAME.outcome(state) is None:
        assert GAME.requests(state), "a running match always asks someone"
        state, _, _ = _play(state, seed + windows, windows=1)
        _check_coins(state)
        windows += 1
        assert windows <= MAX_WINDOWS
    assert GAME.requests(state) == []


@settings(max_examples=80, deadline=None)
@given(setups())
def test_no_view_shows_a_bid_before_the_reveal(setup: tuple[dict[str, Any], int, int]) -> None:
    config, seats, seed = setup
    state, _ = _new(config, seats, seed)
    rng = random.Random(seed)
    for _ in range(6):
        if GAME.outcome(state) is not None:
            break
        viewers: list[int | None] = [None, *range(seats)]
        before = {v: json.dumps(GAME.view(state, v), sort_keys=True) for v in viewers}
        moves = {}
        for request in GAME.requests(state):
            verdict = GAME.submit(state, request.seat, rng.choice(request.choices).value)
            assert isinstance(verdict, Accepted)
            moves[request.seat] = verdict.move
        # Every bid is in: still nobody's view has changed, so none can show a bid.
        assert {v: json.dumps(GAME.view(state, v), sort_keys=True) for v in viewers} == before
        for viewer in viewers:
            view = GAME.view(state, viewer)
            assert all("hand" not in p for p in view["players"])
            if config.get("vision_of_blindness") or config.get("utter_darkness"):
                assert all(p["brew"] is None for p in view["players"])
        state, events = GAME.resolve(state, moves)
        for event in events:
            if event.kind == "hand":  # a seat's private note holds only its own coins
                seat = event.audience.seat
                assert seat is not None and event.data["hand"] == sorted(state.seats[seat].hand)


@settings(max_examples=60, deadline=None)
@given(setups(), st.integers(0, 30))
def test_dump_load_then_continue_equals_continuing(
    setup: tuple[dict[str, Any], int, int], cut: int
) -> None:
    config, seats, seed = setup
    start, _ = _new(config, seats, seed)
    final, log, events = _play(start, seed)
    state = start
    for moves in log[:cut]:
        state, _ = GAME.resolve(state, moves)
    restored = GAME.load(json.loads(json.dumps(GAME.dump(state))))
    assert restored == state
    replayed: list[Event] = []
    for moves in log[cut:]:
        restored, new_events = GAME.resolve(restored, moves)
        replayed += new_events
    assert GAME.dump(restored) == GAME.dump(final)
    direct: list[Event] = []
    for moves in log:
        start, new_events = GAME.resolve(start, moves)
        direct += new_events
    assert direct == events
    assert replayed == events[len(events) - len(replayed) :]


def _containers(value: Any) -> list[int]:
    """The ids of every list and dict (and dataclass) inside ``value``, itself included."""
    if dataclasses.is_dataclass(value):
        inner = [getattr(value, f.name) for f in dataclasses.fields(value)]
        return [id(value), *(i for item in inner for i in _containers(item))]
    if isinstance(value, dict):
        return [id(value), *(i for item in value.values() for i in _containers(item))]
    if isinstance(value, list):
        return [id(value), *(i for item in value for i in _containers(item))]
    return []


def test_dump_is_asdict_and_clone_shares_nothing_it_may_change() -> None:
    """The written-out ``dump`` (the host's per-step snapshot) is exactly what
    ``dataclasses.asdict`` gave, key for key in order, and ``clone`` copies as before: only
    the config and the effects in play (never changed) are shared; with the Deal Window's
    offers and drafts and Magic Infused effects in play."""
    offers = drafts = 0
    for seed in range(3):
        state, _ = GAME.new_match(Setup({"deal_window": 30, "magic_infused": 3}, 3, seed))
        _, log, _ = _play(state, seed, windows=200)
        for moves in log:
            assert json.dumps(GAME.dump(state)) == json.dumps(dataclasses.asdict(state))
            clone = state.clone()
            assert clone == state
            kept = {id(state.config), id(state.effects), *_containers(state.config)}
            assert not (set(_containers(clone)) & set(_containers(state))) - kept
            offers += bool(state.offers)
            drafts += any(seat.draft for seat in state.seats)
            state, _ = GAME.resolve(state, moves)
    assert offers and drafts  # the deal window's parts were dumped and cloned
