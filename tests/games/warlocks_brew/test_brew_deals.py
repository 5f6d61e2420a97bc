"""The Deal Window (rules page §A7, and §A9 for face-down brews) with the decisions of
docs/warlocks-brew.md where the page is silent, hand-computed."""

from __future__ import annotations

import json

from games.protocol import MODERATORS, PUBLIC, to_seat
from games.warlocks_brew import GAME, run_script
from games.warlocks_brew.config import INGREDIENTS
from games.warlocks_brew.deals import MAX_PROPOSALS, MAX_WAITING
from games.warlocks_brew.state import State
from tests.games.warlocks_brew.brew_helpers import (
    accepted,
    answer,
    bids,
    deadline,
    prompt,
    refusal,
    start,
    texts,
    values,
)

N, B, T, M, R, W = INGREDIENTS[:6]
DECK = [T, B, N, W, M, R] * 4


def dealing(seats: int = 3, **options: object) -> State:
    """A match in its first Deal Window: P1 won the Toadstool with its 5 coin."""
    state, _ = start(DECK, seats, deal_window=30, **options)  # type: ignore[arg-type]
    state, _ = bids(state, "5", *["1", "2", "3", "4", "1"][: seats - 1])
    assert state.phase == "deals"
    return state


# --- the window ------------------------------------------------------------------------------


def test_a7_the_window_opens_between_auctions_only_when_it_is_on() -> None:
    state, _ = start(DECK)
    state, _ = bids(state, "5", "1", "2")
    assert state.phase == "bid" and state.auction == 2  # off by default
    state, events = start(DECK, deal_window=30)
    assert state.phase == "bid"  # none before the first auction
    state, events = bids(state, "5", "1", "2")
    assert state.phase == "deals" and state.auction == 1
    assert "Deal window: up to 30 s to trade ingredients in front" in texts(events, "deal_window")
    requests = GAME.requests(state)
    assert [r.seat for r in requests] == [0, 1, 2]
    for request in requests:
        assert (request.kind, request.close, request.timer) == ("deal", "each", "deal")
        assert (request.timeout_s, request.clock) == (30, "deals:1")


def test_a7_no_window_after_the_last_auction() -> None:
    state, _ = start([T], deal_window=30)
    state, _ = bids(state, "5", "1", "2")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason == "deck_empty"


def test_a7_the_window_ends_early_when_every_player_is_ready() -> None:
    state = dealing()
    state, events = answer(state, 0, "ready")
    assert [r.seat for r in GAME.requests(state)] == [1, 2] and events[-1].kind == "hidden_state"
    state, _ = answer(state, 1, "ready")
    state, events = answer(state, 2, "Ready")
    assert state.phase == "bid" and (state.auction, state.card) == (2, B)
    assert "The deal window is closed: no deal made." in texts(events, "deals_closed")


def test_a7_the_deadline_closes_the_window_and_waiting_offers_lapse() -> None:
    state = dealing()
    state, _ = answer(state, 0, "offer P2 give coin 1 for coin 2")
    state, events = deadline(state)
    assert state.phase == "bid" and state.offers == [] and state.auction == 2
    lapsed = [e for e in events if e.kind == "offer_lapsed"]
    assert [(e.audience, e.text) for e in lapsed] == [
        (to_seat(0), "Your offer 1 to P2 lapsed unanswered.")
    ]


# --- offers and deals ------------------------------------------------------------------------


def test_a7_a_deal_executes_at_once_when_its_partner_accepts() -> None:
    state = dealing()
    state, events = answer(state, 0, "offer p2 give toadstool, coin 1 for 2 coins")
    assert [e for e in events if e.audience == PUBLIC] == []  # nobody else hears of it
    assert "Offer 1 from P1: you get Toadstool and coin 1; you give coin 2." in prompt(state, 1)
    assert {"accept 1", "decline 1"} <= set(values(state, 1))
    state, events = answer(state, 1, "accept 1")
    assert (state.seats[0].brew, state.seats[1].brew) == ([], [T])
    assert (state.seats[0].hand, state.seats[1].hand) == ([2, 2, 3, 4], [1, 1, 3, 4, 5])
    assert texts(events, "deal") == (
        "Deal (offer 1): P1 gives P2 Toadstool and coin 1; P2 gives P1 coin 2."
    )


def test_a7_only_coins_in_hand_and_ingredients_in_front_are_traded() -> None:
    state = dealing()  # P1's 5 coin is in front
    assert "P1 does not hold a 5 coin in hand" in refusal(
        state, 0, "offer P2 give coin 5 for nothing"
    )
    assert "P1 does not hold a Bat Wing in front" in refusal(
        state, 0, "offer P2 give Bat Wing for nothing"
    )
    assert "P2 does not hold a Toadstool" in refusal(
        state, 0, "offer P2 give nothing for Toadstool"
    )
    assert "names nothing" in refusal(state, 0, "offer P2 give nothing for nothing")
    assert "Name the player" in refusal(state, 0, "offer P9 give coin 1 for nothing")
    assert "offer NAME give ITEMS for ITEMS" in refusal(state, 0, "offer P2 coin 1")


def test_a7_an_offer_no_longer_possible_is_refused_with_the_reason() -> None:
    state = dealing()
    state, _ = answer(state, 0, "offer P2 give Toadstool for coin 2")
    state, _ = answer(state, 0, "offer P3 give Toadstool for coin 3")
    state, _ = answer(state, 2, "accept 2")
    assert state.seats[2].brew == [T]
    why = "P1 does not hold a Toadstool in front"
    assert f"It can no longer be made: {why}." in prompt(state, 1)
    assert "accept 1" not in values(state, 1) and "decline 1" in values(state, 1)
    assert refusal(state, 1, "accept 1") == f"Offer 1 can no longer be made: {why}."


def test_a7_an_answer_a_deal_made_impossible_in_the_same_resolution_is_refused() -> None:
    state = dealing()
    state, _ = answer(state, 0, "offer P2 give Toadstool for coin 2")
    state, _ = answer(state, 0, "offer P3 give Toadstool for coin 3")
    moves = {2: accepted(state, 2, "accept 2"), 1: accepted(state, 1, "accept 1")}
    state, events = GAME.resolve(state, moves)  # both arrived before the window resolved
    assert state.seats[2].brew == [T] and state.seats[1].brew == []
    too_late = next(e for e in events if e.kind == "too_late")
    assert too_late.audience == to_seat(1) and "can no longer be made" in too_late.text


def test_a7_a_declined_offer_is_told_to_its_proposer() -> None:
    state = dealing()
    state, _ = answer(state, 0, "offer P2 give coin 1 for coin 2")
    state, events = answer(state, 1, "decline")  # the one offer waiting
    assert state.offers == [] and state.seats[0].hand == [1, 2, 3, 4]
    assert [(e.audience, e.text) for e in events if e.kind == "offer_declined"] == [
        (to_seat(0), "P2 declined offer 1.")
    ]


def test_a7_the_win_check_runs_after_every_deal() -> None:
    state = dealing()
    state.seats[0].brew, state.seats[1].brew = [T, T], [B]
    state, _ = answer(state, 0, "offer P2 give coin 1 for nothing")
    state, _ = answer(state, 1, "accept 1")
    assert GAME.outcome(state) is None  # no triple
    state.seats[1].brew = [T]
    state, _ = answer(state, 0, "offer P2 give coin 2 for Toadstool")
    assert "Accepting it gives P1 three of a kind: P1 wins." in prompt(state, 1)
    state, events = answer(state, 1, "accept 2")
    outcome = GAME.outcome(state)
    assert outcome is not None and (outcome.winners, outcome.reason) == ((0,), "deal")
    assert "P1 completed three of a kind in a deal." in texts(events, "game_over")


def test_a7_a_deal_completing_both_parties_triples_is_a_shared_victory() -> None:
    state = dealing()
    state.seats[0].brew, state.seats[1].brew = [T, T, B], [B, B, T]
    state, _ = answer(state, 0, "offer P2 give Bat Wing for Toadstool")
    assert "Accepting it gives you both three of a kind: a shared victory." in prompt(state, 1)
    state, _ = answer(state, 1, "accept 1")
    outcome = GAME.outcome(state)
    assert outcome is not None and (outcome.winners, outcome.reason) == ((0, 1), "deal")


def test_a7_a_chameleon_traded_in_a_deal_can_complete_a_triple() -> None:
    state = dealing()
    state.seats[0].brew = [T, T]
    state.seats[1].add(B, "Chameleon")
    state, _ = answer(state, 0, "offer P2 give coin 1 for Bat Wing (Chameleon)")
    state, _ = answer(state, 1, "accept 1")
    assert GAME.outcome(state) is not None and state.seats[0].infused() == ["Bat Wing (Chameleon)"]


def test_a7_no_automatic_win_after_a_deal_under_utter_darkness() -> None:
    state = dealing(utter_darkness=True)
    state.seats[0].brew, state.seats[1].brew = [T, T], [B, T]
    state, _ = answer(state, 0, "offer P2 give coin 1 for card 2")
    state, _ = answer(state, 1, "accept 1")
    assert state.seats[0].has_triple() and GAME.outcome(state) is None  # it must declare


def test_a7_favour_is_recorded_verbatim_cannot_ping_and_is_cut() -> None:
    state = dealing()
    favour = "@everyone I owe <@123> and <@&9> a 5 " + "x" * 300
    state, _ = answer(state, 0, f"offer P2 give nothing for nothing favour {favour}")
    recorded = state.offers[0].favour
    assert len(recorded.replace("\u200b", "")) == 200 and "@everyone" not in recorded
    assert recorded.startswith("@\u200beveryone I owe <@\u200b123> and <@\u200b&9> a 5 xx")
    state, events = answer(state, 1, "accept 1")
    assert f"Favour (recorded, not enforced): “{recorded}”." in texts(events, "deal")


def test_a7_a_deal_proposed_step_by_step() -> None:
    state = dealing()
    state, _ = answer(state, 0, "propose P2")
    request = GAME.requests(state)[0]
    assert request.kind == "deal_give" and "step 1 of 3: what do you give P2?" in request.prompt
    assert [c.value for c in request.choices] == [
        T,
        "coin 1",
        "coin 2",
        "coin 3",
        "coin 4",
        "nothing",
    ]
    assert request.max_choices == 6
    state, _ = answer(state, 0, "coin 4,nothing,coin 1")
    assert values(state, 0) == ["coin 1", "coin 2", "coin 3", "coin 4", "coin 5", "nothing"]
    state, _ = answer(state, 0, "coin 5")
    assert values(state, 0) == ["send", "cancel"]
    assert "you give coin 1 and coin 4; you get coin 5." in prompt(state, 0)
    state, _ = answer(state, 0, "favour a 5 for a 4 and a 1")
    assert "Favour: “a 5 for a 4 and a 1”." in prompt(state, 0)
    assert "favour already" in refusal(state, 0, "favour another")
    state, _ = answer(state, 0, "send")
    offer = state.offers[0]
    assert (offer.by, offer.to, offer.give, offer.ask) == (0, 1, ["coin 1", "coin 4"], ["coin 5"])
    assert GAME.requests(state)[0].kind == "deal" and state.seats[0].proposals == 1


def test_a7_a_draft_can_be_cancelled_and_an_empty_one_cannot_be_sent() -> None:
    state = dealing()
    state, _ = answer(state, 0, "propose P3")
    state, _ = answer(state, 0, "nothing")
    state, _ = answer(state, 0, "nothing")
    assert values(state, 0) == ["cancel"] and "names nothing" in refusal(state, 0, "send")
    state, _ = answer(state, 0, "cancel")
    assert state.seats[0].draft is None and GAME.requests(state)[0].kind == "deal"


def test_a7_three_offers_a_window_and_three_waiting_for_one_player() -> None:
    state = dealing(seats=5)
    for _ in range(MAX_PROPOSALS):
        state, _ = answer(state, 0, "offer P2 give coin 1 for nothing")
    assert not any(v.startswith("propose") for v in values(state, 0))
    assert "3 offers, the most in one window" in refusal(
        state, 0, "offer P3 give coin 1 for nothing"
    )
    assert len(state.offers) == MAX_WAITING
    assert "propose P2" not in values(state, 2)
    assert "P2 has 3 offers to answer already" in refusal(state, 2, "propose P2")


def test_a7_a_ready_player_still_answers_offers_made_to_it() -> None:
    state = dealing()
    state, _ = answer(state, 1, "ready")
    assert 1 not in [r.seat for r in GAME.requests(state)]
    state, _ = answer(state, 0, "offer P2 give coin 1 for nothing")
    assert values(state, 1) == ["accept 1", "decline 1"]
    assert "You are Ready: answer the offer made to you" in prompt(state, 1)
    assert "You are Ready" in refusal(state, 1, "propose P3")
    state, _ = answer(state, 1, "decline 1")
    assert 1 not in [r.seat for r in GAME.requests(state)]


def test_a7_offers_stay_between_their_two_parties_until_made() -> None:
    state = dealing()
    state, events = answer(state, 0, "offer P2 give coin 1 for coin 2 favour secret pact")
    for seat in (None, 2):
        shown = json.dumps(GAME.view(state, seat)) + GAME.describe(state, seat)
        assert "secret pact" not in shown and "coin 1" not in shown
    assert "secret pact" not in prompt(state, 2)
    assert all(e.audience == MODERATORS for e in events)
    assert "secret pact" in GAME.describe(state, 0) and "secret pact" in GAME.describe(state, 1)


def test_a7_a_player_who_leaves_takes_their_offers_along() -> None:
    state = dealing()
    state, _ = answer(state, 0, "offer P2 give coin 1 for nothing")
    state, _ = answer(state, 2, "propose P1")
    state, _ = GAME.leave(state, 0)
    assert state.offers == [] and state.seats[2].draft is None and state.phase == "deals"
    state, _ = answer(state, 1, "ready")
    state, _ = answer(state, 2, "ready")
    assert state.phase == "bid" and state.auction == 2


# --- face down (§A9) -------------------------------------------------------------------------


def test_a9_a7_face_down_deals_name_cards_by_place_and_hide_their_type() -> None:
    state = dealing(vision_of_blindness=True)  # P1: Toadstool
    state.seats[0].add(B, "")
    assert "name a card by its place" in refusal(state, 0, "offer P2 give Bat Wing for nothing")
    assert "card 1: Toadstool, card 2: Bat Wing" in prompt(state, 0)  # the owner peeks
    state, _ = answer(state, 0, "offer P2 give card 2 for coin 1")
    assert "you get P1's card 2; you give coin 1." in prompt(state, 1)
    assert "Your offer 1 to P2: you give your card 2; you get coin 1." in prompt(state, 0)
    state, events = answer(state, 1, "accept 1")
    public = texts([e for e in events if e.audience == PUBLIC])
    assert "P1 gives P2 1 face-down card; P2 gives P1 coin 1." in public and B not in public
    assert [(e.audience, e.text) for e in events if e.kind == "received"] == [
        (to_seat(1), "You received: Bat Wing.")
    ]


def test_a9_a7_a_card_named_by_place_that_has_moved_is_refused() -> None:
    state = dealing(vision_of_blindness=True)
    state.seats[0].add(B, "")
    state, _ = answer(state, 0, "offer P2 give card 2 for nothing")
    state, _ = answer(state, 0, "offer P3 give card 1 for nothing")
    state, _ = answer(state, 2, "accept 2")
    assert "P1's cards have moved since the offer was made" in refusal(state, 1, "accept 1")


# --- the script ------------------------------------------------------------------------------


def test_a7_deal_steps_replay_from_a_script() -> None:
    script = {
        "format": "warlocks-brew-script/2",
        "players": ["A", "B", "C"],
        "deck": [T, B, N],
        "config": {"window": 45},
        "variants": {"deal_window": 30},
        "steps": [
            {"bids": {"A": ["5"], "B": ["1"], "C": ["2"]}},
            {"deals": {"A": ["offer B give Toadstool for coin 3"]}},
            {"deals": {"C": ["accept 1"], "B": ["accept 1"]}},
            {"deals": {}},
        ],
    }
    checkpoints = run_script(script)["checkpoints"]
    assert checkpoints[1]["moves"] == {"A": "offer B give Toadstool for coin 3"}
    assert checkpoints[1]["offers"] == [1] and checkpoints[1]["deals"] == []
    assert checkpoints[2]["rejected"]["C"] == ["accept 1"] and checkpoints[2]["deals"] == [
        {"offer": 1, "by": "A", "to": "B"}
    ]
    assert checkpoints[2]["brews"]["B"] == {T: 1} and checkpoints[2]["hands"]["A"] == [
        1,
        2,
        3,
        3,
        4,
    ]
    assert checkpoints[3]["closed"] and checkpoints[3]["moves"] == {}
    assert checkpoints[3]["deck_left"] == 1  # the next card is up


def test_a7_a_moderator_ending_the_match_in_a_deal_window_counts_it() -> None:
    state = dealing()
    state, _ = answer(state, 0, "offer P2 give coin 1 for nothing")
    state, _ = GAME.end(state, "moderator")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.reason == "ended" and outcome.winners == (0,)
    assert state.offers == [] and GAME.requests(state) == []
