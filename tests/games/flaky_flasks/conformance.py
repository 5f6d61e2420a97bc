"""Flaky Flasks' case for the conformance suite (``tests/games/test_conformance.py``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from games.flaky_flasks import content
from games.flaky_flasks.config import RANGES, content_for, content_key
from games.flaky_flasks.content import COLOURS, MAX_VALUE, SHAPES
from games.protocol import JSON
from tests.games.steps import Largest

OPTIONS = {
    "bargain": st.booleans(),
    "prompt_mode": st.sampled_from(["eligible", "all"]),
    "fume_decay": st.integers(0, 5),
    "hand_size": st.integers(1, 10),
    "slots": st.integers(1, 8),
    "channel_length": st.integers(1, 6),
    "river_size": st.integers(1, 8),
    "tableau_size": st.integers(1, 8),
}


def window_bound(config: Mapping[str, JSON], seats: int) -> int:
    """The most windows a match can take, from the rules: per round a setup window; per turn
    a hex window per activation or pass, a counter window per Counter paid (a card, or a
    Charge), and a work window per command (plays, charms, props, boosts, then brew or done);
    per round a market window per sale, buy or pass, and an offer and a reply per player."""
    found = content_for(config, content_key(config))
    cards = len(found.starter_cards) + sum(c.copies for c in found.cards.values())
    tiles = len(found.starter_tiles) + sum(t.copies for t in found.tiles.values())
    symbols = cards * max((len(c.symbols) for c in found.cards.values()), default=1) * 4**6
    charge = cards * 99 + symbols * 99 * tiles  # every Charge a turn can gain bounds boosts
    turn = (
        seats * (cards + 1)
        + seats * cards
        + charge
        + seats * (int(config["slots"]) + cards + symbols + 2)
    )
    round_ = 1 + 2 * turn + seats * 3 + cards + tiles + 2 * seats
    return int(config["rounds"]) * round_


@st.composite
def configs(draw: st.DrawFn, host: bool = False) -> dict[str, JSON]:
    config: dict[str, JSON] = {"rounds": draw(st.sampled_from([6, 6, 9, 12]))}
    if host:
        config["rounds"] = 6
        config["hand_size"] = draw(st.integers(1, 5))
        return config
    chosen = draw(st.dictionaries(st.sampled_from(sorted(OPTIONS)), st.just(0), max_size=4))
    for key in chosen:
        config[key] = draw(OPTIONS[key])
    return config


CONFORMANCE_CASE = (configs(), window_bound, configs(host=True))


def _word(k: int) -> str:
    """A distinct word for the k-th added item (``Aa``, ``Ab``...)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return f"{letters[k // 26 % 26].upper()}{letters[k % 26]}"


def _symbols(k: int) -> list[str]:
    return [
        f"{SHAPES[(k + j) % 3]}{1 + (k * 5 + j * 7) % MAX_VALUE}{COLOURS[(k + 2 * j) % 3]}"
        for j in range(content.MAX_SYMBOLS)
    ]


def largest_content_set() -> dict[str, JSON]:
    """The house set grown to every bound of a content set (``games.flaky_flasks.content``):
    the most cards (each with the most symbols), tiles (Echo Chambers and Splitters among
    them) and panels, every market item with the most copies, and the largest start, whose
    tiles are all Echo Chambers so every channel doubles from the first turn."""
    data: dict[str, Any] = json.loads(json.dumps(content.HOUSE_JSON))
    effects: list[dict[str, Any]] = [
        {"hex": {"target": True, "do": [{"do": "fume", "kind": "dark", "n": content.MAX_AMOUNT},
                                        {"do": "discard_last", "who": "target"}]}},
        {"counter": {"cost": {"charge": 1}, "do": [{"do": "draw", "n": 2}]}},
        {"manifest": [{"do": "draw", "n": 2}, {"do": "charge", "n": content.MAX_AMOUNT}]},
        {"charm": [{"do": "draw", "n": 3}]},
        {"traits": ["fractured"]},
        {"bonus": {"n": 3, "if": "light"}},
    ]  # fmt: skip
    for k in range(content.MAX_CARDS - len(data["cards"])):
        data["cards"].append(
            {"id": f"card_{k}", "name": f"Herb {_word(k)}", "tier": 1 + k % 3,
             "cost": 3 + k % 9, "copies": 1, "symbols": _symbols(k), **effects[k % len(effects)]}
        )  # fmt: skip
    ops: list[dict[str, Any]] = [
        {"op": "echo"}, {"op": "split"}, {"op": "mul", "n": 3}, {"op": "add", "n": 4},
        {"op": "charge", "n": 2}, {"op": "colour"}, {"op": "shape"},
    ]  # fmt: skip
    for k in range(content.MAX_TILES - len(data["tiles"])):
        data["tiles"].append(
            {"id": f"tile_{k}", "name": f"Pipe {_word(k)}", "tier": 1 + k % 3, "cost": 4,
             "copies": 1, **ops[k % len(ops)]}
        )  # fmt: skip
    for k in range(content.MAX_PANELS - len(data["panels"])):
        data["panels"].append(
            {"id": f"panel_{k}", "name": f"Elixir {_word(k)}", "tier": 1 + k % 3,
             "when": {"min": 2 + k % 4, "max_sum": 20 + k, "distinct_values": k % 2 == 0},
             "coins": {"sum": 1, "count": 2}, "fame": {"sum": 1, "flat": 2}}
        )  # fmt: skip
    for entry in (*data["cards"], *data["tiles"]):
        if entry["tier"] > 0:
            entry["copies"] = content.MAX_COPIES
    starters = [card["id"] for card in data["cards"] if "symbols" in card]
    data["starter"] = {
        "cards": starters[: content.MAX_STARTER_CARDS],
        "tiles": ["echo"] * content.MAX_STARTER_TILES,
    }
    return data


LARGEST = [
    Largest(
        f"every option at its maximum, the largest content set, {seats} players",
        {
            **{key: high for key, (low, high) in RANGES.items() if key != "seed"},
            "content_set": largest_content_set(),
        },
        seats,
        agents=agents,
    )
    # every level (the cheap one where a seat is left: the whole match is played)
    for seats, agents in ((2, ("hard", "easy")), (4, ("easy", "normal", "easy", "hard")))
]
