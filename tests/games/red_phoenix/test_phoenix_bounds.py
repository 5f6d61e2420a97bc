"""What a card set may hold (docs/red-phoenix.md, Your own card set; Appendix A sets only the
lowest values): a step's state stays small whatever a group writes (issue 18: result decks of
11,000 cards a level stored 500 KB a step)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from games.protocol import ConfigError
from games.red_phoenix import cards
from games.red_phoenix.cards import house_raw, read_card_set
from tests.games.red_phoenix.conformance import largest_card_set


def house() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(house_raw())
    return data


def test_appendix_a_the_largest_set_within_every_bound_is_read() -> None:
    read_card_set(largest_card_set())


def test_appendix_a_a_result_deck_of_more_than_120_cards_is_refused() -> None:
    data = house()
    data["results"]["II"][0]["copies"] = cards.MAX_COPIES  # 60 twice, and 20 more cards beside
    data["results"]["II"][1]["copies"] = cards.MAX_COPIES
    with pytest.raises(ConfigError) as caught:
        read_card_set(data)
    refusal = "card_set.results.II: holds 140 cards with their copies; at most 120"
    assert str(caught.value) == refusal


@pytest.mark.parametrize(
    ("key", "most"),
    [("ingredients", cards.MAX_TYPES), ("methods", cards.MAX_METHODS)],
)
def test_appendix_a_a_list_past_its_bound_is_refused_naming_it(key: str, most: int) -> None:
    data = largest_card_set()
    extra = copy.deepcopy(data[key][-1])
    data[key].append({**extra, "id": "one_more", "name": "One More"})
    assert len(data[key]) == most + 1
    with pytest.raises(ConfigError) as caught:
        read_card_set(data)
    assert caught.value.field == f"card_set.{key}"


def test_appendix_a_more_than_60_result_cards_a_level_is_refused() -> None:
    data = largest_card_set()
    data["results"]["III"].append({"id": "one_more", "kind": "simple", "gain": None})
    with pytest.raises(ConfigError) as caught:
        read_card_set(data)
    assert caught.value.field == "card_set.results.III"
