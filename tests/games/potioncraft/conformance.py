"""Potioncraft's case for the conformance suite (``tests/games/test_conformance.py``)."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import strategies as st

from games.potioncraft.config import RANGES
from games.protocol import JSON
from tests.games.steps import Largest

OPTIONS = {
    "potion_set": st.sampled_from(["standard", "all18"]),
    "win_check": st.sampled_from(["immediate", "end_of_turn"]),
    "draw_own_pile": st.booleans(),
    "hand_reset_deal": st.sampled_from(["same", "full"]),
    "request_block_passes": st.booleans(),
    "two_player_twist": st.sampled_from(["reverse", "skip"]),
    "chain_mode": st.sampled_from(["exact4", "no_substitution"]),
    "foul_elixir_discards": st.integers(0, 3),
    "table_limit": st.integers(3, 12),
    "reaction_wait_full": st.booleans(),
}


def window_bound(config: Mapping[str, JSON], seats: int) -> int:
    """Per taken turn: the draw, at most ``max_actions`` actions each opening at most
    seats - 1 more windows (a Request passed down a chain of blocks; every other action opens
    at most one), the closing ``end`` and the discard."""
    turns = config["max_turns"]
    assert isinstance(turns, int), "the suite always sets a turn limit"
    actions = int(config["max_actions"])
    return turns * (1 + actions * (1 + max(1, seats - 1)) + 1 + 1)


CONFIGS = st.fixed_dictionaries(
    {"max_turns": st.integers(1, 12) | st.integers(20, 60), "max_actions": st.integers(1, 8)},
    optional=OPTIONS,
)
# short matches through the host: no perk is ready yet, so no reaction window opens
HOST_CONFIGS = st.fixed_dictionaries({"max_turns": st.integers(1, 2)})

CONFORMANCE_CASE = (CONFIGS, window_bound, HOST_CONFIGS)

# tests/games/test_bad_input.py: configs to start matches with (its scripts: the examples)
MATCH_CONFIGS = [{"max_turns": 20}, {"max_turns": 20, "potion_set": "all18", "max_actions": 5}]

# tests/games/steps.py: the largest options (a match at most max_turns long; its first
# windows show what a step costs as the table and the piles grow)
LARGEST = [
    Largest(
        "every option at its maximum, all 18 potions, 6 players",
        {
            **{key: high for key, (low, high) in RANGES.items() if key != "seed"},
            "potion_set": "all18",
            "request_block_passes": True,
            "reaction_wait_full": False,
        },
        6,
        windows=2000,
    )
]
