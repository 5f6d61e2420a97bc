"""Red Phoenix's case for the conformance suite (``tests/games/test_conformance.py``)."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import strategies as st

from games.protocol import JSON
from games.red_phoenix.cards import card_set_of

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
