"""What a content set may hold (docs/flaky-flasks.md, Content sets) and the cauldron's house
bound (§2.3): a step's state stays small whatever a group writes (issue 18: a 500-symbol card
and 48 Echo Chambers stored ~70 MB a turn)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from games.flaky_flasks import content as limits
from games.flaky_flasks.content import HOUSE_JSON, MAX_CAULDRON, read_content
from games.protocol import ConfigError
from tests.games.flaky_flasks.conformance import largest_content_set
from tests.games.flaky_flasks.helpers import trace


def house() -> dict[str, Any]:
    data: dict[str, Any] = copy.deepcopy(HOUSE_JSON)
    return data


def grown(key: str, count: int) -> dict[str, Any]:
    """The house set with ``key`` (cards, tiles or panels) grown to ``count`` entries."""
    data = house()
    model = data[key][-1]
    for k in range(count - len(data[key])):
        data[key].append({**model, "id": f"extra-{k}", "name": f"Extra {k} {key}"})
    return data


def changed(path: list[Any], value: Any) -> dict[str, Any]:
    data = house()
    node: Any = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


def test_s11_the_largest_set_within_every_bound_is_read() -> None:
    read_content(largest_content_set())


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (grown("cards", limits.MAX_CARDS + 1), "content_set.cards"),
        (grown("tiles", limits.MAX_TILES + 1), "content_set.tiles"),
        (grown("panels", limits.MAX_PANELS + 1), "content_set.panels"),
        (changed(["cards", 11, "symbols"], ["T1R"] * (limits.MAX_SYMBOLS + 1)),
         "content_set.cards[11].symbols"),
        (changed(["cards", 11, "copies"], limits.MAX_COPIES + 1), "content_set.cards[11].copies"),
        (changed(["tiles", 1, "copies"], limits.MAX_COPIES + 1), "content_set.tiles[1].copies"),
        (changed(["cards", 11, "cost"], limits.MAX_PRICE + 1), "content_set.cards[11].cost"),
        (changed(["cards", 10, "coin"], limits.MAX_PRICE + 1), "content_set.cards[10].coin"),
        (changed(["cards", 15, "charm"], [{"do": "draw", "n": 1}] * (limits.MAX_ACTIONS + 1)),
         "content_set.cards[15].charm"),
        (changed(["cards", 15, "charm", 0, "n"], limits.MAX_AMOUNT + 1),
         "content_set.cards[15].charm[0].n"),
        (changed(["panels", 0, "when", "min"], limits.MAX_COUNT + 1),
         "content_set.panels[0].when.min"),
        (changed(["panels", 0, "coins", "flat"], -limits.MAX_FACTOR - 1),
         "content_set.panels[0].coins.flat"),
        (changed(["starter", "cards"], ["ember"] * (limits.MAX_STARTER_CARDS + 1)),
         "content_set.starter.cards"),
        (changed(["starter", "tiles"], ["pipe"] * (limits.MAX_STARTER_TILES + 1)),
         "content_set.starter.tiles"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)  # fmt: skip
def test_s11_a_set_past_a_bound_is_refused_naming_the_field(data: Any, field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        read_content(data)
    assert caught.value.field == field, str(caught.value)


def test_s2_3_a_cauldron_holds_at_most_60_symbols() -> None:
    """Six symbols through six Echo Chambers would be 384: the cauldron takes the first 60, and
    a propagation into a full cauldron adds nothing."""
    data = house()
    data["cards"][0]["symbols"] = ["T1R"] * limits.MAX_SYMBOLS  # ember
    echoes = {"channels": [["echo"] * 6, ["echo"] * 6, [], []]}
    steps = [
        {"window": "setup", "attempts": {"P1": ["keep"], "P2": ["keep"]}},
        {
            "window": "work",
            "attempts": {
                "P1": ["play ember 1", "play viper 2", "prop 1", "prop 2", "brew"],
                "P2": ["done"],
            },
        },
    ]
    checkpoints = trace(
        steps,
        content=data,
        config={"channel_length": 6},
        start={"players": {"P1": echoes}},
        decks={"1": {"P1": ["ember", "viper"]}},
    )  # fmt: skip
    potions = checkpoints[-1]["players"]["P1"]["potions"]
    assert len(potions) == 1 and len(potions[0]["symbols"]) == MAX_CAULDRON
    assert set(potions[0]["symbols"]) == {"T1R"}  # the first 60: ember's, none of viper's
