"""What a bidder reads where they decide (the prompt, its help) and the match's reference."""

from __future__ import annotations

from typing import Any

from games.protocol import HELP_CHARS, TOPIC_CHARS, Setup
from games.warlocks_brew import GAME, GAME_INFO
from games.warlocks_brew.config import parse_config
from games.warlocks_brew.engine import start_match

T, B, N = "Toadstool", "Bat Wing", "Eye of Newt"


def start(deck: list[str], seats: int = 3, **options: Any) -> Any:
    config = parse_config(options, seats)
    state, _ = start_match(config, ["Ann", "Bo", "Cy"][:seats], deck)
    return state


def test_the_prompt_says_who_holds_the_card_what_rivals_can_bid_and_the_hand_once() -> None:
    state = start([T, T, T, B, B])
    state, events = GAME.resolve(state, {0: "5", 1: "1", 2: "2"})  # Ann wins a Toadstool
    assert not [e for e in events if e.kind == "hand"]  # the hand is in the prompt, once
    ann, bo = GAME.requests(state)[0], GAME.requests(state)[1]
    assert ann.prompt.splitlines() == [
        "Auction 2: Toadstool.",
        "Toadstool held: you 1. Copies still to come: 1.",
        "Rivals can bid: Bo 1, 2, 3, 4, 5; Cy 1, 2, 3, 4, 5.",
        "Your hand: 1, 2, 3, 4. Bid one coin.",
    ]
    assert bo.prompt.splitlines()[1:3] == [
        "Toadstool held: Ann 1. Copies still to come: 1.",
        "Rivals can bid: Ann 1, 2, 3, 4; Cy 1, 2, 3, 4, 5.",
    ]
    state, _ = GAME.resolve(state, {0: "4", 1: "1", 2: "2"})
    assert "Toadstool held: Ann 2 (one more wins)." in GAME.requests(state)[1].prompt


def test_a_face_down_brew_stays_hidden_in_the_prompts() -> None:
    state = start([T, T, T, B], vision_of_blindness=True)
    state, events = GAME.resolve(state, {0: "5", 1: "1", 2: "2"})
    assert [e.text for e in events if e.kind == "hand" and e.audience.seat == 0] == [
        "Your brew (peek): Toadstool."
    ]
    assert "Toadstool held: you 1." in GAME.requests(state)[0].prompt
    assert "Toadstool held: nobody you can see." in GAME.requests(state)[1].prompt


def test_the_help_gives_the_grammar_and_the_whole_table() -> None:
    state, _ = GAME.new_match(Setup({"no_unique": "rebid", "utter_darkness": True}, 6, 3))
    request = GAME.requests(state)[0]
    assert request.help.startswith("Send a coin value you hold (1-5) or 'declare'.")
    assert "the tied bidders bid again" in request.help
    assert "P6: brew 0 face down" in request.help and len(request.help) <= HELP_CHARS


def test_the_reference_lists_the_ingredients_and_the_variants() -> None:
    state, _ = GAME.new_match(
        Setup({"broke_buyers": True, "small_selection": [B], "storefront_disaster": 2}, 3, 1)
    )
    topics = GAME_INFO.reference(state)  # type: ignore[misc]
    assert [t.title for t in topics] == ["Ingredients", "Variants", "Bidding"]
    ingredients, variants, _ = (t.text for t in topics)
    assert "Toadstool: 5 copies" in ingredients and B not in ingredients.split("\n")[0]
    assert "25 cards in all. Each player holds coins 1, 2, 3, 4." in ingredients
    assert "Set aside face up: " in ingredients
    assert variants.splitlines()[:2] == [
        "Broke Buyers: nobody gets the 5 coin.",
        "Small Selection: these ingredients are left out: Bat Wing.",
    ]
    assert all(len(t.text) <= TOPIC_CHARS for t in topics)


def test_the_reference_counts_what_has_been_seen() -> None:
    state = start([N, N, T, B, B])
    state, _ = GAME.resolve(state, {0: "5", 1: "1", 2: "2"})  # Ann wins an Eye of Newt
    ingredients = GAME_INFO.reference(state)[0].text  # type: ignore[misc]
    assert f"{N}: 5 copies, 3 not seen yet" in ingredients  # one won, one on offer
    plain, _ = GAME.new_match(Setup({}, 2, 1))
    assert (
        GAME_INFO.reference(plain)[1].text
        == "Two Players: the auction winner's coin goes to the other player's hand."
    )  # type: ignore[misc]


NAMES = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"]
LISTED = {
    1: "Ann",
    2: "Ann and Bo",
    3: "Ann, Bo and Cy",
    4: "Ann, Bo, Cy and Di",
    5: "Ann, Bo, Cy, Di and Ed",
    6: "Ann, Bo, Cy, Di, Ed and Flo",
}


def test_templates_list_one_to_six_names_as_a_sentence() -> None:
    from games.warlocks_brew import render

    for seats in range(2, 7):
        config = parse_config({"no_unique": "rebid"}, seats)
        state, events = start_match(config, NAMES[:seats], [T, T, T, B])
        assert events[0].text.startswith(f"Warlock's Brew: {LISTED[seats]}.\n")
        for count in range(1, seats + 1):
            state.winners = list(range(count))
            state.rebidders = list(range(count))
            state.round = 2
            post = render.game_over_post(state).text.splitlines()[0]
            expected = (
                f"{LISTED[1]} wins." if count == 1 else f"shared victory for {LISTED[count]}."
            )
            assert post.startswith(f"Game over: {expected}")
            assert f"Rebid: {LISTED[count]} bid again." in render.auction_post(state).text


def test_the_last_call_help_says_what_declare_and_pass_do() -> None:
    state = start([T], utter_darkness=True)
    state, _ = GAME.resolve(state, {0: "5", 1: "1", 2: "2"})  # the last card: the last call
    request = GAME.requests(state)[0]
    assert request.kind == "declare"
    assert request.help.startswith("Send 'declare' to reveal your brew: three of one")
    assert "Send 'pass' to let the count decide" in request.help
