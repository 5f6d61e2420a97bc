"""Magic Infused (rules page §G2): the setup, the announcement, and each effect E1-E6 with the
decisions of docs/warlocks-brew.md where the page is silent, hand-computed."""

from __future__ import annotations

import json

import pytest

from games.protocol import MODERATORS, PUBLIC, Setup
from games.warlocks_brew import GAME
from games.warlocks_brew.config import INGREDIENTS
from games.warlocks_brew.effects import CHAMELEON, EFFECTS, triple_of
from games.warlocks_brew.engine import setup_deck
from tests.games.warlocks_brew.brew_helpers import (
    accepted,
    bids,
    prompt,
    refusal,
    start,
    texts,
    values,
)

N, B, T, M, R, W = INGREDIENTS[:6]


# --- G2: setup and announcement ------------------------------------------------------------


@pytest.mark.parametrize("k", range(7))
def test_g2_setup_puts_k_different_effects_on_k_random_cards(k: int) -> None:
    config = GAME.parse_config({"magic_infused": k}, 3)
    places = set()
    for seed in range(8):
        deck, _, _, effects = setup_deck(config, seed)
        named = [effect for effect in effects if effect]
        assert len(effects) == len(deck) == 30
        assert len(named) == len(set(named)) == k and set(named) <= set(EFFECTS)
        places.add(tuple(i for i, effect in enumerate(effects) if effect))
    assert len(places) == 1 if k == 0 else len(places) >= 6  # random cards, seed by seed


def test_g2_the_effects_in_play_are_public_which_card_carries_one_is_not() -> None:
    state, events = GAME.new_match(Setup({"magic_infused": 3}, 3, 5))
    start_post = texts(events, "start")
    hidden = [e for e in state.deck_effects if e]
    assert f"3 cards of the deck carry an effect: {hidden[0]}" in start_post or state.card_effect
    public = GAME.view(state, None)
    assert public["effects"] == [e for e in EFFECTS if e in state.effects]
    dumped = json.dumps(public)
    assert "deck_effects" not in dumped and "deck" not in public
    for seat in range(3):
        assert "deck_effects" not in json.dumps(GAME.view(state, seat))


def test_g2_an_effect_is_announced_when_its_card_is_revealed() -> None:
    state, events = start([f"{T} (Refund)", f"{B} (Potent)", N])
    post = texts(events, "auction")
    assert "Auction 1: Toadstool (Refund) is up." in post
    assert "Refund: the winning coin goes back to the winner's hand" in post
    assert prompt(state, 0).startswith("Auction 1: Toadstool (Refund).\nRefund: the winning coin")
    players = [e for e in events if e.audience != MODERATORS]
    assert "Bat Wing (Potent)" in texts(events) and "Bat Wing (Potent)" not in texts(players)
    assert GAME.view(state, None)["effects_in_deck"] == ["Potent"]


# --- E1 Potent -------------------------------------------------------------------------------


def test_g2_e1_potent_counts_as_two_at_the_deck_empty_count() -> None:
    state, _ = start([f"{T} (Potent)", B, N])
    state, _ = bids(state, "5", "1", "2")  # P1: Toadstool (Potent)
    state, _ = bids(state, "1", "5", "2")  # P2: Bat Wing
    state, _ = bids(state, "1", "2", "5")  # P3: Eye of Newt, the last card
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,)  # 2 against 1 and 1, not a tie
    assert "P1 2 (0 pairs), P2 1 (0 pairs), P3 1 (0 pairs)" in outcome.detail


def test_g2_e1_potent_still_counts_as_one_for_a_triple() -> None:
    state, _ = start([f"{T} (Potent)", T, B, N, W])
    state, _ = bids(state, "5", "1", "2")
    state, _ = bids(state, "4", "1", "2")  # P1: two Toadstools, one Potent: no triple
    assert GAME.outcome(state) is None and state.seats[0].size() == 3


def test_g2_e1_potent_counts_twice_when_a_moderator_ends_the_match() -> None:
    state, _ = start([f"{T} (Potent)", B, N, W])
    state, _ = bids(state, "5", "1", "2")
    state, _ = bids(state, "1", "5", "2")
    state, _ = GAME.end(state, "moderator")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0,)


# --- E2 Chameleon ----------------------------------------------------------------------------


def test_g2_e2_chameleon_is_the_wild_third_of_a_triple() -> None:
    state, _ = start([T, T, f"{B} (Chameleon)", N])
    state, _ = bids(state, "5", "1", "2")
    state, _ = bids(state, "4", "1", "2")
    assert "As a Chameleon it completes three for: you." in prompt(state, 0)
    state, events = bids(state, "3", "1", "2")
    outcome = GAME.outcome(state)
    assert outcome is not None and (outcome.winners, outcome.reason) == ((0,), "triple")
    assert "P1 brewed three Toadstool." in texts(events, "game_over")


def test_g2_e2_at_most_one_chameleon_in_a_triple_and_never_one_of_the_two() -> None:
    assert triple_of([T, B], ["", CHAMELEON]) is None  # one and a wild: two
    assert triple_of([T, T, T], [CHAMELEON, CHAMELEON, ""]) is None  # two wilds: one too many
    assert triple_of([T, T, N], ["", CHAMELEON, ""]) is None  # the Chameleon Toadstool is wild
    assert triple_of([T, T, T], ["", CHAMELEON, ""]) == T  # two Toadstools and a Chameleon


def test_g2_e2_chameleon_counts_as_its_own_type_for_pairs_at_the_count() -> None:
    """Decided: the Chameleon is wild only for a triple; A4's pairs count printed types."""
    state, _ = start([T, f"{B} (Chameleon)", N, W, M])
    state, _ = bids(state, "5", "1", "2")  # P1: Toadstool
    state, _ = bids(state, "4", "1", "2")  # P1: Bat Wing (Chameleon): no pair
    state, _ = bids(state, "1", "5", "2")  # P2: Eye of Newt
    state, _ = bids(state, "1", "4", "2")  # P2: Wolfsbane
    state, _ = GAME.end(state, "moderator")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0, 1)  # 2 cards, 0 pairs each


def test_g2_e2_chameleon_makes_a_declared_triple_under_utter_darkness() -> None:
    state, _ = start([T, T, f"{B} (Chameleon)", N, W], utter_darkness=True)
    for coin in ("5", "4", "3"):
        state, _ = bids(state, coin, "1", "2")  # P1 wins all three; no automatic win
    assert GAME.outcome(state) is None
    state, _ = bids(state, "declare", "1", "2")
    outcome = GAME.outcome(state)
    assert outcome is not None and (outcome.winners, outcome.reason) == ((0,), "declared")


# --- E3 Refund -------------------------------------------------------------------------------


def test_g2_e3_refund_sends_the_winning_coin_back_to_hand() -> None:
    state, events = start([f"{T} (Refund)", B, N])
    state, events = bids(state, "5", "3", "1")
    assert state.seats[0].hand == [1, 2, 3, 4, 5] and state.seats[0].front == []
    assert (
        "P1 wins Toadstool (Refund) with the 5 coin. Refund: the coin goes back to P1's hand."
        in texts(events, "reveal")
    )


def test_g2_e3_refund_under_the_two_player_rule_keeps_the_coin_with_the_winner() -> None:
    state, _ = start([f"{T} (Refund)", B, N], seats=2)
    state, _ = bids(state, "4", "2")
    assert state.seats[0].hand == [1, 2, 3, 4, 5] and state.seats[1].hand == [1, 2, 3, 4, 5]


def test_g2_e3_refund_without_a_winner_leaves_the_coins_in_front() -> None:
    state, _ = start([f"{T} (Refund)", B, N])
    state, _ = bids(state, "3", "3", "3")
    assert [seat.front for seat in state.seats] == [[3], [3], [3]]


# --- E4 Cursed -------------------------------------------------------------------------------


def cursed_start(brew: list[str], **options: object) -> object:
    """P1 holds ``brew`` and wins the Cursed Toadstool with its 5 coin."""
    state, _ = start([f"{T} (Cursed)", N, W, M], **options)  # type: ignore[arg-type]
    for card in brew:
        state.seats[0].add(card, "")
    state, events = bids(state, "5", "1", "2")
    return state, events


def test_g2_e4_cursed_winner_chooses_another_card_for_the_bottom_of_the_deck() -> None:
    state, events = cursed_start([T, B])
    assert state.phase == "curse" and "P1 now sends one other ingredient back" in texts(events)
    assert values(state, 0) == [T, B] and [r.seat for r in GAME.requests(state)] == [0]
    assert refusal(state, 1, T) == "You have nothing to decide right now."
    state, events = GAME.resolve(state, {0: accepted(state, 0, "toadstool")})
    assert state.deck[-1] == T and state.seats[0].brew == [B, T]
    assert "Cursed: P1 sends Toadstool back to the bottom of the deck." in texts(events)
    assert GAME.outcome(state) is None and state.phase == "bid"


def test_g2_e4_cursed_card_completes_a_triple_only_if_what_goes_back_keeps_it() -> None:
    state, _ = cursed_start([T, T, B])
    won, _ = GAME.resolve(state, {0: accepted(state, 0, B)})
    outcome = GAME.outcome(won)
    assert outcome is not None and (outcome.winners, outcome.reason) == ((0,), "triple")
    lost, _ = GAME.resolve(state, {0: accepted(state, 0, T)})
    assert GAME.outcome(lost) is None  # two Toadstools and a Bat Wing


def test_g2_e4_cursed_timeout_sends_back_the_ingredient_held_fewest() -> None:
    state, _ = cursed_start([B, T, N, N])
    request = GAME.requests(state)[0]
    assert request.default == "your Bat Wing goes back"
    assert "If you don't choose in time: your Bat Wing goes back." in (request.prompt)
    assert request.timer == "curse" and request.timeout_s == 20
    state, events = GAME.resolve(state, {0: None})
    assert state.deck[-1] == B
    assert "(the window closed: the default)" in texts(events, "cursed")


def test_g2_e4_cursed_is_skipped_with_no_other_card() -> None:
    state, events = cursed_start([])
    assert state.phase == "bid" and state.auction == 2 and state.seats[0].brew == [T]
    assert "Cursed: P1 holds no other ingredient, so nothing goes back." in texts(events)


def test_g2_e4_cursed_on_the_last_card_puts_a_card_back_and_play_goes_on() -> None:
    state, _ = start([f"{T} (Cursed)"])
    state.seats[0].add(B, "")
    state, _ = bids(state, "5", "1", "2")
    state, _ = GAME.resolve(state, {0: None})
    assert GAME.outcome(state) is None and (state.auction, state.card) == (2, B)


def test_g2_e4_cursed_under_utter_darkness_goes_by_place_and_tells_nobody_the_card() -> None:
    state, events = cursed_start([B, N], utter_darkness=True)
    request = GAME.requests(state)[0]
    assert values(state, 0) == ["card 1", "card 2"] and request.default == "your card 1 goes back"
    assert "you may not look" in request.prompt and B not in request.prompt
    state, events = GAME.resolve(state, {0: accepted(state, 0, "2")})
    assert state.seats[0].brew == [B, T] and state.deck[-1] == N
    cursed = texts([e for e in events if e.audience == PUBLIC], "cursed")
    assert cursed == "Cursed: P1 sends one face-down card back to the bottom of the deck."
    assert next(e for e in events if e.kind == "cursed").data["card"] is None


# --- E5 Bargain Bin --------------------------------------------------------------------------


def test_g2_e5_bargain_bin_goes_to_the_lowest_unique_bid() -> None:
    state, _ = start([f"{T} (Bargain Bin)", B, N], seats=4)
    state, events = bids(state, "5", "4", "4", "1")  # unique: 5 and 1
    assert state.seats[3].brew == [T] and state.seats[3].front == [1]
    assert "P4 wins Toadstool (Bargain Bin) with the 1 coin: the lowest unique bid wins." in (
        texts(events, "reveal")
    )


def test_g2_e5_bargain_bin_with_no_unique_bid_removes_the_card() -> None:
    state, _ = start([f"{T} (Bargain Bin)", B, N], seats=4)
    state, _ = bids(state, "3", "3", "2", "2")
    assert state.discarded == [T] and [s.front for s in state.seats] == [[3], [3], [2], [2]]


def test_g2_e5_bargain_bin_rebids_go_to_the_lowest_unique_bid_too() -> None:
    state, _ = start([f"{T} (Bargain Bin)", B, N], seats=4, no_unique="rebid")
    state, _ = bids(state, "5", "5", "2", "2")
    assert state.round == 2
    state, _ = bids(state, "4", "3", "3", "1")
    assert state.seats[3].brew == [T]


# --- E6 Free Sample --------------------------------------------------------------------------


def test_g2_e6_free_sample_goes_to_the_player_with_the_fewest_ingredients() -> None:
    state, _ = start([T, N, f"{B} (Free Sample)", W, M])
    state, _ = bids(state, "5", "1", "2")  # P1: Toadstool
    state, events = bids(state, "1", "5", "2")  # P2: Eye of Newt; then the sample, to P3
    assert state.seats[2].brew == [B] and state.seats[2].infused() == ["Bat Wing (Free Sample)"]
    assert (state.auction, state.card) == (4, W)  # not auctioned: the next card is up
    assert "It goes to P3, who has the fewest ingredients." in texts(events, "free_sample")


def test_g2_e6_free_sample_with_a_tie_for_the_fewest_leaves_the_game() -> None:
    state, _ = start([T, f"{B} (Free Sample)", N, W])
    state, events = bids(state, "5", "1", "2")
    assert state.discarded == [B] and state.auction == 3
    assert "P2 and P3 tie for the fewest ingredients: it leaves the game." in texts(events)


def test_g2_e6_free_sample_as_the_first_card_is_removed_everyone_has_none() -> None:
    state, _ = start([f"{B} (Free Sample)", T, N])
    assert state.discarded == [B] and (state.auction, state.card) == (2, T)


def test_g2_e6_free_sample_counts_cards_not_potent_doubles() -> None:
    """Decided: "fewest ingredients" counts cards; Potent doubles only at the deck-empty count."""
    state, _ = start([f"{T} (Potent)", f"{B} (Free Sample)", M])
    state.seats[1].brew, state.seats[2].brew = [N, W], [R, W]
    state, _ = bids(state, "5", "1", "2")  # P1: Toadstool (Potent): 1 card, counted 2
    assert state.seats[0].brew == [T, B]  # 1 card against 2 and 2 (2, 2 and 2 would tie)


def test_g2_e6_free_sample_that_completes_a_triple_wins() -> None:
    state, _ = start([T, N, f"{B} (Free Sample)", W])
    state.seats[0].brew, state.seats[1].brew, state.seats[2].brew = [M, M], [R, R], [B, B]
    state, _ = bids(state, "5", "1", "2")  # P1: three cards
    state, events = bids(state, "1", "5", "2")  # P2: three cards; the sample goes to P3
    outcome = GAME.outcome(state)
    assert outcome is not None and (outcome.winners, outcome.reason) == ((2,), "triple")
    assert "P3 brewed three Bat Wing." in texts(events, "game_over")


def test_g2_e6_free_sample_as_the_last_card_then_the_count() -> None:
    state, _ = start([T, f"{B} (Free Sample)"], seats=2, two_players=False)
    state, _ = bids(state, "5", "1")  # P1: Toadstool; the sample to P2; the deck is empty
    outcome = GAME.outcome(state)
    assert outcome is not None and (outcome.reason, outcome.winners) == ("deck_empty", (0, 1))


def test_g2_e6_no_deal_window_follows_a_free_sample() -> None:
    """Decided: a Deal Window follows an auction; a Free Sample is handed out at its reveal."""
    state, _ = start([T, N, f"{B} (Free Sample)", W], deal_window=30)
    state, _ = bids(state, "5", "1", "2")
    assert state.phase == "deals"
    for seat in range(3):
        state, _ = GAME.resolve(state, {seat: "ready"})
    state, _ = bids(state, "1", "5", "2")
    for seat in range(3):
        state, _ = GAME.resolve(state, {seat: "ready"})
    assert state.phase == "bid" and (state.auction, state.card) == (4, W)  # sample then bids


def test_g2_e4_a_cursed_winner_who_leaves_takes_the_choice_along() -> None:
    state, _ = cursed_start([B])
    state, _ = GAME.leave(state, 0)
    assert state.phase == "bid" and state.cursed is None and state.auction == 2
    assert [r.seat for r in GAME.requests(state)] == [1, 2]


def test_g2_e4_another_player_leaving_leaves_the_cursed_choice_waiting() -> None:
    state, _ = cursed_start([B])
    state, _ = GAME.leave(state, 2)
    assert state.phase == "curse" and [r.seat for r in GAME.requests(state)] == [0]
