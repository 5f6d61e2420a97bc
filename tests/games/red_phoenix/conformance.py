"""Red Phoenix's case for the conformance suite (``tests/games/test_conformance.py``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from games.protocol import JSON
from games.red_phoenix import cards
from games.red_phoenix.cards import card_set_of, house_raw
from games.red_phoenix.config import RANGES
from tests.games.red_phoenix.helpers import examples, script_of
from tests.games.steps import Largest

OPTIONS = {
    "starting_health": st.integers(1, 12),
    "starting_coins": st.integers(0, 12),
    "ap_per_turn": st.integers(1, 4),
    "coins_per_ap": st.integers(1, 4),
    "hand_limit": st.integers(1, 8),
    "formula_markers": st.integers(1, 10),
    "monster_attacks": st.integers(0, 3),
    "max_trade_offers": st.integers(0, 3),
    "action_timeout": st.sampled_from(["take_coins", "end"]),
    "simple_failure": st.sampled_from(["market", "nothing"]),
    "consolation_rule": st.sampled_from(["no_card", "no_success"]),
}


def window_bound(config: Mapping[str, JSON], seats: int) -> int:
    """The most windows a match can take (§3.3: every action but end costs AP or is limited per
    turn; §3.1: at most ``max_rounds`` turns per seat). Per turn: each AP action (a fast
    experiment: a keep window, then a damage event with a ward window per seat for each kept
    card), each item type once (its damage event's wards), a licence change per formula, the
    trade offers (offer, answer, discard), the end, each monster's attack and wards, the
    hand-limit discard, and the slow experiments resolved at the start of the turn."""
    cards = card_set_of(config["card_set"])
    draw = max(m.draw for m in cards.methods.values())
    experiment = 1 + draw * (1 + seats)
    markers = int(config["formula_markers"])
    monsters = sum(
        cards.copies[level][rid]
        for level, results in cards.results.items()
        for rid, result in results.items()
        if result.kind == "monster"
    )
    per_turn = (
        int(config["ap_per_turn"]) * (1 + experiment)
        + len(cards.ingredients) * (1 + seats)
        + seats * markers
        + int(config["max_trade_offers"]) * 3
        + 1
        + monsters * (1 + seats)
        + 1
        + markers * experiment
    )
    return int(config["max_rounds"]) * seats * per_turn


configs = st.fixed_dictionaries({"max_rounds": st.integers(3, 8)}, optional=OPTIONS)
host_configs = st.fixed_dictionaries(
    {"max_rounds": st.integers(1, 2)}, optional={"starting_coins": st.integers(2, 10)}
)

CONFORMANCE_CASE = (configs, window_bound, host_configs)


def _word(k: int) -> str:
    """A distinct two-letter word for the k-th added card (``Ab``)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return f"{letters[k // 26 % 26].upper()}{letters[k % 26]}"


def largest_card_set() -> dict[str, JSON]:
    """The house set grown to every bound of a card set (``games.red_phoenix.cards``): the
    most ingredient types (each in the market, most of them items), methods and result cards,
    with the most copies, and result decks of the most cards."""
    data: dict[str, Any] = json.loads(house_raw())
    effects = [{"effect": "damage", "amount": 3}, {"effect": "steal", "amount": 2}, None,
               {"effect": "heal", "amount": 2}, {"effect": "ward"}]  # fmt: skip
    for k in range(cards.MAX_TYPES - len(data["ingredients"])):
        item: dict[str, Any] = {
            "id": f"extra_{_word(k).lower()}",
            "name": f"Extra {_word(k)}",
            "level": 1 + k % 3,
            "copies": cards.MAX_COPIES,
            "market": {"cost": 1 + k % 3, "stack": {s: cards.MAX_COPIES for s in "2345"}},
        }
        if effects[k % len(effects)] is not None:
            item["item"] = effects[k % len(effects)]
        data["ingredients"].append(item)
    for item in data["ingredients"]:
        item["copies"] = cards.MAX_COPIES
    for k in range(cards.MAX_METHODS - len(data["methods"])):
        data["methods"].append(
            {"id": f"method_{_word(k).lower()}", "name": f"Method {_word(k)}", "draw": 10,
             "keep_min": 1, "keep_max": 10, "coins": 1, "health": 0}
        )  # fmt: skip
    types = [item["id"] for item in data["ingredients"] if item["level"] <= 3]
    for level, results in data["results"].items():
        for k in range(cards.MAX_RESULTS - len(results)):
            kind = ("success", "monster", "catastrophe", "simple")[k % 4]
            card: dict[str, Any] = {"id": f"extra_{k}", "kind": kind}
            if kind == "success":
                card |= {"product": types[k % len(types)], "score": 3 + k % 5}
            elif kind == "monster":
                card |= {"name": f"Beast {_word(k)} {level}", "hp": 5, "damage": 2}
            elif kind == "catastrophe":
                card |= {"damage": {"self": 1, "others": 1}, "discard_random": 1}
            else:
                card |= {"gain": "salt"}
            results.append(card)
        for card in results:
            card["copies"] = cards.MAX_DECK // cards.MAX_RESULTS
    return data


def unlike_card_set() -> dict[str, JSON]:
    """The largest card set at its hardest for the planners' odds: every method draws ten
    cards and keeps them all, each at its own Health cost, and every result card beyond the
    house's costs its own Health at once (about 60 kinds of card a level that no odds can
    weigh together)."""
    data: dict[str, Any] = largest_card_set()
    for k, method in enumerate(data["methods"]):
        method |= {"draw": 10, "keep_min": 1, "keep_max": 10, "health": k % 4}
    for results in data["results"].values():
        for k, card in enumerate(results):
            if card["id"].startswith("extra_"):
                card.clear()
                card |= {"id": f"extra_{k}", "kind": "catastrophe", "damage": {"self": 1 + k}}
                card["copies"] = cards.MAX_DECK // cards.MAX_RESULTS
    return data


# tests/games/steps.py: the largest inputs. At every option's maximum the computer players win
# on their first turn (99 coins buy a Gold attempt), so random players grow that board; the
# levels play the largest sets at the usual options, on the set at its hardest for their odds
LARGEST = [
    *(
        Largest(
            f"every option at its maximum, the largest card set, {seats} players",
            {
                **{key: high for key, (low, high) in RANGES.items() if key != "seed"},
                "card_set": largest_card_set(),
            },
            seats,
            agents=("random",),
        )
        for seats in (2, 5)
    ),
    Largest("the largest card set, 2 players", {"card_set": largest_card_set()}, 2,
            agents=("normal", "hard")),
    Largest(
        "the largest card set at its hardest for the odds, 99 Health, 5 players",
        {"card_set": unlike_card_set(), "starting_health": RANGES["starting_health"][1]},
        5,
    ),
]  # fmt: skip

# tests/games/test_bad_input.py: the rules page's worked examples as scripts (without the
# example's own id, title and expected trace, which a script does not hold)
EXAMPLE_SCRIPTS = [script_of(example) for example in examples()]
