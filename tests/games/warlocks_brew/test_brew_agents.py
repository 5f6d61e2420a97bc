"""Warlock's Brew's AI players: the odds they reckon with, what they learn, what they pay for."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest

from games.play import play_match
from games.protocol import Event, Request, Setup, to_seat
from games.warlocks_brew import AGENTS, DEFAULT_AGENT, GAME
from games.warlocks_brew.agents import (
    MAKES_TRIPLE,
    PLAIN,
    BidderAgent,
    EasyAgent,
    Habits,
    NormalBidder,
    Odds,
    RandomAgent,
)
from games.warlocks_brew.config import parse_config
from games.warlocks_brew.engine import start_match


def brute_odds(coin: int, rivals: list[dict[int, float]]) -> tuple[float, list[float]]:
    """Every combination of bids, the highest unique bid winning."""
    won, theirs = 0.0, [0.0] * len(rivals)
    for combo in itertools.product(*(r.items() for r in rivals)):
        chance, bids = 1.0, {-1: coin}
        for i, (value, p) in enumerate(combo):
            chance *= p
            bids[i] = value
        counts = Counter(bids.values())
        unique = [value for value, n in counts.items() if n == 1]
        if unique:
            winner = next(seat for seat, value in bids.items() if value == max(unique))
            if winner == -1:
                won += chance
            else:
                theirs[winner] += chance
    return won, theirs


def test_odds_match_every_combination_of_bids() -> None:
    rng = random.Random(1)
    for _ in range(40):
        rivals = []
        for _ in range(rng.randint(1, 5)):
            hand = rng.sample(range(1, 6), rng.randint(1, 5))
            weights = [rng.random() for _ in hand]
            rivals.append({coin: w / sum(weights) for coin, w in zip(hand, weights, strict=True)})
        odds = Odds(rivals)
        for coin in range(1, 6):
            won, theirs = odds.of(coin)
            expected_won, expected_theirs = brute_odds(coin, rivals)
            assert won == pytest.approx(expected_won)
            assert theirs == pytest.approx(expected_theirs)


def test_levels_and_default() -> None:
    assert set(AGENTS) == {"random", "easy", "normal", "hard"}
    assert DEFAULT_AGENT == "normal"
    assert AGENTS["normal"] is NormalBidder and AGENTS["hard"] is BidderAgent
    assert AGENTS["easy"] is EasyAgent and AGENTS["random"] is RandomAgent


def test_habits_start_even_and_learn_how_high_a_rival_bids() -> None:
    habits = Habits()
    even = habits.distribution(PLAIN, [1, 2, 3, 4, 5])
    assert all(p == pytest.approx(0.2) for p in even.values())
    for _ in range(30):
        habits.learn(MAKES_TRIPLE, [1, 2, 3, 4, 5], 5)
    learned = habits.distribution(MAKES_TRIPLE, [1, 3, 5])
    assert learned[5] > 0.8 and habits.distribution(PLAIN, [1, 3, 5])[5] == pytest.approx(1 / 3)


def auction(
    brews: list[list[str]], card: str, seats: int = 3, effect: str = "", **options: Any
) -> Any:
    """A state whose next card is ``card`` (with ``effect``), the seats holding these brews."""
    options.setdefault("magic_infused", 1 if effect else 0)
    config = parse_config(options, seats)
    deck = [card, "Wolfsbane", "Wolfsbane", "Bat Wing"]
    effects = [effect, "", "", ""]
    state, _ = start_match(config, [f"P{i + 1}" for i in range(seats)], deck, effects=effects)
    for seat, brew in zip(state.seats, brews, strict=True):
        seat.brew = list(brew)
    return state


def bid(agent: Any, state: Any, seat: int) -> str:
    request: Request = GAME.requests(state)[seat]
    answer: str = agent.act(request, GAME.view(state, seat))
    return answer


def test_pays_for_its_own_triple_and_to_block_a_rivals() -> None:
    own = auction([["Toadstool", "Toadstool"], [], []], "Toadstool")
    block = auction([[], ["Toadstool", "Toadstool"], []], "Toadstool")
    plain = auction([[], [], []], "Toadstool")
    agent = BidderAgent(0, random.Random(0))
    worth_own = agent.worths(GAME.view(own, 0), [1, 2, 3, 4, 5])
    worth_block = agent.worths(GAME.view(block, 0), [1, 2, 3, 4, 5])
    worth_plain = agent.worths(GAME.view(plain, 0), [1, 2, 3, 4, 5])
    assert int(bid(agent, own, 0)) >= 4  # random rivals: a 4 or 5 wins most often
    assert max(worth_own.values()) > 0.4 > 0.1 > max(worth_plain.values())
    assert max(worth_block.values()) - min(worth_block.values()) > 0.1  # the bid matters
    assert int(bid(agent, block, 0)) >= 4


def test_easy_pays_its_top_coin_for_its_triple() -> None:
    state = auction([["Bat Wing"] * 2, [], []], "Toadstool")
    state.seats[0].brew = ["Toadstool", "Toadstool"]
    assert bid(EasyAgent(0, random.Random(0)), state, 0) == "5"


def test_remembers_face_down_brews_from_the_reveals() -> None:
    """Under Vision of Blindness rivals' brews show as counts only: the bidder remembers
    what each won from the public reveals, and blocks a triple it saw coming."""
    state, events = GAME.new_match(Setup({"vision_of_blindness": True}, 3, 4))
    agent = BidderAgent(0, random.Random(0))
    for event in events:
        agent.observe(event)
    for card in ("Toadstool", "Toadstool"):
        data = {"card": card, "effect": "", "winner": 1, "declared": [], "bids": [1, 5, 2]}
        agent.observe(Event(to_seat(0), "reveal", data, ""))
    view = GAME.view(state, 0)
    assert view["players"][1]["brew"] is None
    assert agent.memory.brew(view, 1) == Counter({"Toadstool": 2})


def test_hard_varies_its_bids_as_rivals_tie_with_it() -> None:
    agent = BidderAgent(0, random.Random(0))
    calm = agent.noise_now()
    agent.asked = ("Toadstool", {})
    for _ in range(20):
        agent.asked = ("Toadstool", {})
        agent.observe(
            Event(
                to_seat(0),
                "reveal",
                {"card": "Toadstool", "winner": None, "declared": [], "bids": [4, 4, 2]},
                "",
            )
        )
    assert calm < 0.05 < 0.3 < agent.noise_now()
    assert NormalBidder(0, random.Random(0)).noise_now() == NormalBidder.noise


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_every_answer_is_accepted_in_every_variant(level: str) -> None:
    configs: list[tuple[dict[str, Any], int]] = [
        ({}, 2),
        ({"two_players": False, "broke_buyers": True}, 2),
        ({"no_unique": "rebid", "storefront_disaster": 4}, 4),
        ({"utter_darkness": True}, 3),
        ({"vision_of_blindness": True, "types": 7}, 6),
        ({"magic_infused": 6, "deal_window": 30}, 3),
        ({"magic_infused": 6, "deal_window": 30, "utter_darkness": True}, 4),
        ({"magic_infused": 5, "deal_window": 20, "vision_of_blindness": True}, 3),
        ({"magic_infused": 6, "deal_window": 30}, 2),
    ]
    for seed, (config, seats) in enumerate(configs):
        state, events = GAME.new_match(Setup(config, seats, seed))
        agents = [
            AGENTS[level if i % 2 == 0 else "random"](i, random.Random(i)) for i in range(seats)
        ]
        assert GAME.outcome(play_match(GAME, state, events, agents)) is not None


def test_normal_beats_random_at_three_seats() -> None:
    wins = 0.0
    for seed in range(45):
        seat = seed % 3
        state, events = GAME.new_match(Setup({}, 3, seed))
        agents = [
            (NormalBidder if i == seat else RandomAgent)(i, random.Random(seed * 7 + i))
            for i in range(3)
        ]
        outcome = GAME.outcome(play_match(GAME, state, events, agents))
        assert outcome is not None
        wins += 1 / len(outcome.winners) if seat in outcome.winners else 0
    assert wins >= 24  # over half, against a fair third; bench/ai.py measures hundreds


# --- Magic Infused (G2) and deals (A7) -------------------------------------------------------


def gain(brew: list[str], card: str, effect: str) -> float:
    """What the card on offer is worth to P1 holding ``brew``."""
    state = auction([brew, [], []], card, effect=effect)
    return BidderAgent(0, random.Random(0))._gain(GAME.view(state, 0), 0, card)


def test_g2_the_ai_values_a_chameleon_and_a_potent_card() -> None:
    assert gain(["Toadstool", "Toadstool"], "Bat Wing", "Chameleon") == 1.0  # its triple
    assert gain(["Toadstool"], "Bat Wing", "Chameleon") > gain(["Toadstool"], "Bat Wing", "")
    assert gain([], "Bat Wing", "Potent") > gain([], "Bat Wing", "")


def test_g2_e4_the_ai_avoids_a_cursed_card_when_it_hurts() -> None:
    pair = ["Toadstool", "Toadstool"]
    assert gain(pair, "Eye of Newt", "Cursed") < gain(pair, "Eye of Newt", "") - 0.1
    assert gain([*pair, "Bat Wing"], "Toadstool", "Cursed") == 1.0  # the Bat Wing goes back
    assert gain(pair, "Toadstool", "Cursed") < 1.0  # a Toadstool would have to go back


def test_g2_e4_the_ai_sends_back_the_card_it_misses_least() -> None:
    state = auction([["Toadstool", "Toadstool", "Bat Wing"], [], []], "Toadstool", effect="Cursed")
    state, _ = GAME.resolve(state, {0: "5", 1: "1", 2: "2"})
    request = GAME.requests(state)[0]
    assert request.kind == "curse"
    assert bid(NormalBidder(0, random.Random(0)), state, 0) == "Bat Wing"  # and wins


def dealing(brews: list[list[str]], hands: list[list[int]] | None = None) -> Any:
    state = auction([[], [], []], "Wolfsbane", deal_window=30)
    state, _ = GAME.resolve(state, {0: "5", 1: "1", 2: "2"})  # P1: Wolfsbane; deals
    for seat, brew in zip(state.seats, brews, strict=True):
        seat.brew = list(brew)
    for seat, hand in zip(state.seats, hands or [], strict=False):
        seat.hand = list(hand)
    return state


def offer_to_p1(state: Any, line: str) -> Any:
    state, _ = GAME.resolve(state, {1: line})
    return state


def test_a7_the_ai_accepts_a_deal_that_helps_it() -> None:
    state = dealing([["Toadstool", "Bat Wing"], ["Toadstool", "Eye of Newt"], []])
    state = offer_to_p1(state, "offer P1 give Toadstool for Bat Wing")  # a pair for P1 (and no
    assert bid(NormalBidder(0, random.Random(0)), state, 0) == "accept 1"  # loss it minds)
    state = dealing([["Toadstool", "Bat Wing"], ["Eye of Newt"], []])
    state = offer_to_p1(state, "offer P1 give coin 1 for Bat Wing")
    assert bid(NormalBidder(0, random.Random(0)), state, 0) == "decline 1"  # a card for a 1


def test_a7_the_ai_never_accepts_a_deal_completing_the_partners_triple() -> None:
    state = dealing([["Toadstool", "Bat Wing"], ["Bat Wing", "Bat Wing"], []])
    state = offer_to_p1(state, "offer P1 give coin 4, coin 5 for Bat Wing")
    assert bid(NormalBidder(0, random.Random(0)), state, 0) == "decline 1"


def test_a7_the_ai_proposes_a_deal_completing_its_own_triple() -> None:
    state = dealing([["Toadstool", "Toadstool", "Eye of Newt"], ["Toadstool", "Bat Wing"], []])
    answer = bid(NormalBidder(0, random.Random(0)), state, 0)
    assert answer == "offer P2 give Eye of Newt for Toadstool"
    state, _ = GAME.resolve(state, {0: answer})
    assert bid(NormalBidder(0, random.Random(0)), state, 0) == "ready"  # one offer a window


def test_a7_the_ai_proposes_a_swap_of_singles_into_two_pairs() -> None:
    state = dealing([["Toadstool", "Bat Wing"], ["Toadstool", "Bat Wing"], []])
    answer = bid(NormalBidder(0, random.Random(0)), state, 0)
    assert answer == "offer P2 give Bat Wing for Toadstool"  # a pair each
    state, _ = GAME.resolve(state, {0: answer})
    assert bid(NormalBidder(1, random.Random(0)), state, 1) == "accept 1"  # and P2 agrees


def test_a7_easy_takes_a_deal_that_helps_it_and_proposes_none() -> None:
    state = dealing([["Toadstool", "Bat Wing"], ["Toadstool", "Bat Wing"], []])
    assert bid(EasyAgent(0, random.Random(0)), state, 0) == "ready"  # no swap offered
    state = offer_to_p1(state, "offer P1 give Toadstool for Bat Wing")
    assert bid(EasyAgent(0, random.Random(0)), state, 0) == "accept 1"


def test_g2_a7_normal_beats_random_at_three_seats_with_effects_and_deals() -> None:
    wins = 0.0
    for seed in range(45):
        seat = seed % 3
        state, events = GAME.new_match(Setup({"magic_infused": 6, "deal_window": 30}, 3, seed))
        agents = [
            (NormalBidder if i == seat else RandomAgent)(i, random.Random(seed * 7 + i))
            for i in range(3)
        ]
        outcome = GAME.outcome(play_match(GAME, state, events, agents))
        assert outcome is not None
        wins += 1 / len(outcome.winners) if seat in outcome.winners else 0
    assert wins >= 24  # over half, against a fair third; bench/ai.py measures hundreds
