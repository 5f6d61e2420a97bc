"""The engine through the protocol: requests, answers, resolution, variants, views, end, events."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.protocol import MODERATORS, PUBLIC, Accepted, Event, Refused, to_seat
from games.warlocks_brew import GAME
from games.warlocks_brew.config import INGREDIENTS
from games.warlocks_brew.engine import start_match
from games.warlocks_brew.state import State

N, B, T, M, R, W = INGREDIENTS[:6]  # Newt, Bat Wing, Toadstool, Mandrake, Raven, Wolfsbane
LONG_DECK = [T, B, N, W, M, R] * 4


def start(seats: int = 3, deck: list[str] | None = None, **options: Any) -> State:
    config = GAME.parse_config(options, seats)
    names = [f"P{i + 1}" for i in range(seats)]
    state, _ = start_match(config, names, deck or LONG_DECK)
    return state


def play(state: State, *raws: str | None) -> tuple[State, list[Event]]:
    """One window: seat i answers raws[i] (None: no answer, the window times out)."""
    moves: dict[int, Any] = {}
    for request in GAME.requests(state):
        raw = raws[request.seat] if request.seat < len(raws) else None
        if raw is not None:
            verdict = GAME.submit(state, request.seat, raw)
            assert isinstance(verdict, Accepted), verdict
            moves[request.seat] = verdict.move
        else:
            moves[request.seat] = None
    return GAME.resolve(state, moves)


def reveal(events: list[Event]) -> dict[str, Any]:
    return dict(next(e for e in events if e.kind == "reveal").data)


# --- requests and answers -------------------------------------------------------------------


def test_one_bid_request_per_seat_with_its_coins() -> None:
    state = start(4)
    requests = GAME.requests(state)
    assert [r.seat for r in requests] == [0, 1, 2, 3]
    for request in requests:
        assert request.kind == "bid"
        assert [c.value for c in request.choices] == ["1", "2", "3", "4", "5"]
        assert request.timeout_s == 45 and request.default == "lowest coin"
        assert not request.revisable
    assert GAME.requests(start(3, window=20))[0].timeout_s == 20


@pytest.mark.parametrize(
    ("raw", "move"), [("3", "3"), (" 3 ", "3"), ("3 coin", "3"), ("5 COINS", "5")]
)
def test_answers_are_normalised(raw: str, move: str) -> None:
    assert GAME.submit(start(), 0, raw) == Accepted(move, f"You bid your {move} coin.")


def test_refusals_explain_and_change_nothing() -> None:
    state = start()
    state, _ = play(state, "4", "2", "2")  # P1 wins with the 4: it is in front now
    before = json.dumps(GAME.dump(state), sort_keys=True)
    refusal = GAME.submit(state, 0, "4")
    assert isinstance(refusal, Refused) and refusal.reason.startswith("You don't hold a 4 coin")
    for raw in ("", "four", "6", "0", "-1", "3.5", "declare"):
        refusal = GAME.submit(state, 0, raw)
        assert isinstance(refusal, Refused) and refusal.reason.startswith("Send a coin value 1-5")
    assert json.dumps(GAME.dump(state), sort_keys=True) == before


def test_seat_without_request_is_refused() -> None:
    state = start()
    assert isinstance(GAME.submit(state, 5, "1"), Refused)


def test_timeout_default_is_the_lowest_coin_in_hand() -> None:
    state = start()
    state, _ = play(state, "1", "2", "2")  # P1's 1 is in front
    state, events = play(state, None, "5", "4")
    result = reveal(events)
    assert result["bids"][0] == 2 and result["timeouts"] == [0]


def test_resolve_rejects_illegal_moves_and_leaves_the_state_alone() -> None:
    state = start()
    before = GAME.dump(state)
    with pytest.raises(ValueError):
        GAME.resolve(state, {0: "9"})
    new, _ = GAME.resolve(state, {0: "5"})
    assert GAME.dump(state) == before and new is not state


# --- the auction ------------------------------------------------------------------------------


def test_highest_unique_bid_wins_and_coin_stays_in_front() -> None:
    state, events = play(start(), "5", "5", "3")
    assert reveal(events)["winner"] == 2
    assert state.seats[2].front == [3] and state.seats[2].brew == [T]
    assert state.seats[0].hand == [1, 2, 3, 4, 5]


def test_three_coins_in_front_go_back_after_the_third_win() -> None:
    state = start()
    for coin in ("5", "4", "3"):
        state, events = play(state, coin, "1", "1")
    assert reveal(events)["returned"] == [0]
    assert state.seats[0].hand == [1, 2, 3, 4, 5] and state.seats[0].front == []


def test_triple_wins() -> None:
    state = start(deck=[T, T, T, B])
    for coin in ("5", "4", "3"):
        state, _ = play(state, coin, "1", "1")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,) and outcome.reason == "triple"
    assert GAME.requests(state) == []


def test_deck_empty_most_ingredients_wins() -> None:
    state = start(deck=[T, B, N])
    state, _ = play(state, "5", "1", "1")
    state, _ = play(state, "4", "1", "1")
    state, events = play(state, "1", "5", "1")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,) and outcome.reason == "deck_empty"
    assert events[-2].kind == "game_over" and events[-2].audience == PUBLIC


def test_deck_empty_full_tie_is_a_shared_victory() -> None:
    state = start(deck=[T, B, N])
    state, _ = play(state, "5", "1", "1")
    state, _ = play(state, "1", "5", "1")
    state, _ = play(state, "1", "1", "5")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0, 1, 2)


def test_two_player_coin_goes_to_the_other_hand() -> None:
    state, _ = play(start(2), "3", "2")
    assert state.seats[0].hand == [1, 2, 4, 5] and state.seats[0].front == []
    assert state.seats[1].hand == [1, 2, 3, 3, 4, 5]
    choices = [c.value for c in GAME.requests(state)[1].choices]
    assert choices == ["1", "2", "3", "4", "5"]  # a doubled coin is one button


def test_empty_hand_passes_without_a_request() -> None:
    state = start(2)
    for raws in (("5", "1"), ("4", "1"), ("3", "1"), ("2", "2"), ("1", "1")):
        state, _ = play(state, *raws)
    assert state.seats[0].hand == []
    assert [r.seat for r in GAME.requests(state)] == [1]
    assert isinstance(GAME.submit(state, 0, "1"), Refused)
    state, events = play(state, None, "3")
    result = reveal(events)
    assert result["winner"] == 1 and result["bids"] == [None, 3] and result["timeouts"] == []
    assert "P1 passes (no coins)" in next(e for e in events if e.kind == "reveal").text
    assert state.seats[0].hand == [3]


# --- hidden brews -----------------------------------------------------------------------------


def test_vision_of_blindness_brews_face_down_owner_peeks() -> None:
    state, events = play(start(vision_of_blindness=True), "5", "1", "1")
    public = GAME.view(state, None)
    assert all(p["brew"] is None for p in public["players"])
    assert public["players"][0]["brew_size"] == 1
    assert GAME.view(state, 0)["you"]["brew"] == {T: 1}
    assert GAME.view(state, 1)["you"]["brew"] == {}
    post = next(e for e in events if e.kind == "auction")
    assert "1 face down" in post.text and T not in post.text.split("\n", 1)[1]
    own = [e for e in events if e.kind == "hand" and e.audience == to_seat(0)]
    assert own and own[0].data["brew"] == {T: 1}


def test_vision_of_blindness_keeps_the_automatic_triple_win() -> None:
    state = start(deck=[T, T, T, B], vision_of_blindness=True)
    for coin in ("5", "4", "3"):
        state, _ = play(state, coin, "1", "1")
    assert GAME.outcome(state) is not None


def _utter(seats: int = 3, deck: list[str] | None = None) -> State:
    return start(seats, deck or [T, T, T, B, N, W, M, R], utter_darkness=True)


def test_utter_darkness_no_peek_no_automatic_win() -> None:
    state = _utter()
    for coin in ("5", "4", "3"):
        state, _ = play(state, coin, "1", "1")
    assert GAME.outcome(state) is None  # three Toadstool, but nobody declared
    assert GAME.view(state, 0)["you"]["brew"] is None
    assert state.seats[0].front == []  # the three-coin return is still automatic
    assert any(c.value == "declare" for c in GAME.requests(state)[0].choices)


def test_utter_darkness_right_declaration_wins() -> None:
    state = _utter()
    for coin in ("5", "4", "3"):
        state, _ = play(state, coin, "1", "1")
    state, events = play(state, "declare", "2", "3")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,) and outcome.reason == "declared"
    assert reveal(events)["declared"] == [{"seat": 0, "correct": True, "brew": {T: 3}}]


def test_utter_darkness_wrong_declaration_eliminates_and_play_goes_on() -> None:
    state = _utter()
    state, _ = play(state, "5", "1", "1")
    state, events = play(state, "2", "declare", "3")
    result = reveal(events)
    assert result["declared"] == [{"seat": 1, "correct": False, "brew": {}}]
    assert result["winner"] == 2  # the auction is settled among the others
    assert state.seats[1].eliminated and state.seats[1].hand == []
    assert [r.seat for r in GAME.requests(state)] == [0, 2]
    assert isinstance(GAME.submit(state, 1, "1"), Refused)
    state, _ = play(state, "declare", None, "1")  # P1 holds two Toadstool: wrong
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (2,) and outcome.reason == "last_survivor"


def test_utter_darkness_everyone_wrong_means_nobody_wins() -> None:
    state, _ = play(_utter(2), "declare", "declare")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == () and outcome.reason == "all_eliminated"


def test_utter_darkness_simultaneous_right_declarations_share() -> None:
    state = _utter(3, [T, B, T, B, T, B, N])
    for raws in (("5", "1", "1"), ("1", "5", "1"), ("4", "1", "1"), ("1", "4", "1")):
        state, _ = play(state, *raws)
    state, _ = play(state, "3", "1", "1")  # P1: T T T
    state, _ = play(state, "1", "3", "2")  # P2: B B B
    state, _ = play(state, "declare", "declare", "1")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0, 1)


def test_utter_darkness_last_call_then_count_of_survivors() -> None:
    state = _utter(3, [T, B, N])
    state, _ = play(state, "5", "1", "1")
    state, _ = play(state, "4", "1", "1")
    state, events = play(state, "1", "5", "1")
    assert state.phase == "last_call" and "last_call" in [e.kind for e in events]
    requests = GAME.requests(state)
    assert [(r.seat, r.kind, r.default) for r in requests] == [
        (0, "declare", "pass"),
        (1, "declare", "pass"),
        (2, "declare", "pass"),
    ]
    assert isinstance(GAME.submit(state, 0, "3"), Refused)
    state, _ = play(state, "declare", "pass", None)  # P1 (2 cards) is wrong: out
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (1,) and outcome.reason == "deck_empty"


def test_utter_darkness_last_call_right_declaration() -> None:
    state = _utter(3, [T, T, T])
    for coin in ("5", "4", "3"):
        state, _ = play(state, coin, "1", "1")
    state, _ = play(state, "declare", "pass", "pass")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,) and outcome.reason == "declared"


# --- rebid option -----------------------------------------------------------------------------


def test_rebid_asks_only_the_tied_bidders_with_coins() -> None:
    state = start(4, no_unique="rebid")
    state, events = play(state, "5", "5", "2", "2")
    assert reveal(events)["rebid"] is True and state.round == 2
    assert [r.seat for r in GAME.requests(state)] == [0, 1, 2, 3]
    assert [c.value for c in GAME.requests(state)[0].choices] == ["1", "2", "3", "4"]
    view = GAME.view(state, None)
    assert view["players"][0]["table"] == [5]


def test_rebid_until_nobody_can_bid_removes_the_card() -> None:
    state = start(4, no_unique="rebid")
    rounds = [
        ("5", "5", "4", "4"),
        ("3", "3", "2", "2"),
        ("1", "1", "5", "5"),
        ("2", "2", "1", "1"),
    ]
    for raws in rounds:
        state, events = play(state, *raws)
        assert reveal(events)["rebid"] is True
    state, events = play(state, "4", "4", "3", "3")  # every hand is empty now
    result = reveal(events)
    assert result["removed"] is True and result["rebid"] is False
    assert result["returned"] == [0, 1, 2, 3]  # five coins in front each: all go back
    assert all(s.hand == [1, 2, 3, 4, 5] and not s.front and not s.table for s in state.seats)
    assert state.auction == 2 and state.round == 1


# --- end, views, events, serialisation ------------------------------------------------------


def test_host_end_counts_like_an_empty_deck() -> None:
    state, _ = play(start(), "5", "1", "1")
    ended, events = GAME.end(state, "time is up")
    outcome = GAME.outcome(ended)
    assert outcome is not None and outcome.winners == (0,) and outcome.reason == "ended"
    assert events[0].kind == "ended" and "time is up" in events[0].text
    assert GAME.outcome(state) is None  # the old state is untouched
    assert GAME.end(ended, "again") == (ended, [])


def test_host_end_during_a_rebid_returns_the_table_coins() -> None:
    state, _ = play(start(4, no_unique="rebid"), "5", "5", "2", "2")
    ended, _ = GAME.end(state, "stop")
    assert all(sorted(s.hand) == [1, 2, 3, 4, 5] and not s.table for s in ended.seats)


def test_views_hide_hands_of_others() -> None:
    state = start()
    public = GAME.view(state, None)
    assert "you" not in public and "hand" not in public["players"][0]
    mine = GAME.view(state, 1)
    assert mine["you"] == {
        "seat": 1,
        "hand": [1, 2, 3, 4, 5],
        "brew": {},
        "infused": [],
        "offers": [],
        "draft": None,
        "proposals": 0,
    }
    assert json.loads(json.dumps(mine)) == mine


def test_event_audiences_per_auction() -> None:
    _, events = play(start(), "5", "1", "1")
    kinds = [(e.kind, str(e.audience)) for e in events]
    assert kinds == [
        ("reveal", "public"),
        ("auction", "public"),
        ("hidden_state", "moderators"),
    ]
    post = events[1]
    assert post.data["card"] == B and post.data["deck_left"] == len(LONG_DECK) - 2
    assert post.data["players"][0]["brew"] == {T: 1} and post.data["players"][0]["front"] == [5]
    assert "P1 5; P2 1; P3 1" in events[0].text
    assert all(e.audience in (PUBLIC, MODERATORS) or e.kind == "hand" for e in events)


def test_dump_is_plain_json_and_load_restores() -> None:
    state, _ = play(start(), "5", "1", "1")
    data = json.loads(json.dumps(GAME.dump(state)))
    assert GAME.load(data) == state
    data["seats"][0]["hand"].append(99)  # the loaded state owns its lists
    assert 99 not in GAME.load(GAME.dump(state)).seats[0].hand
