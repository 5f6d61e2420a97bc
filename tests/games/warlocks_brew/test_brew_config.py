"""Config defaults and validation, deck building and the setup variants."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from games.protocol import MODERATORS, PUBLIC, ConfigError, Setup
from games.warlocks_brew import GAME
from games.warlocks_brew.config import INGREDIENTS


def test_defaults() -> None:
    config = GAME.parse_config({}, 3)
    assert config["window"] == 45
    assert (config["types"], config["copies"]) == (6, 5)
    assert config["no_unique"] == "remove"
    assert config["two_players"] is False
    assert GAME.parse_config({}, 2)["two_players"] is True  # A5: on by default for 2 seats


def test_parsed_config_parses_to_itself() -> None:
    config = GAME.parse_config({"limited_supply": 1, "small_selection": ["toadstool"]}, 4)
    assert GAME.parse_config(config, 4) == config
    assert config["small_selection"] == ["Toadstool"]


@pytest.mark.parametrize(
    ("raw", "seats", "field"),
    [
        ({"window": 0}, 3, "window"),
        ({"window": "45"}, 3, "window"),
        ({"window": True}, 3, "window"),
        ({"types": 3}, 3, "types"),
        ({"types": 9}, 3, "types"),
        ({"copies": 7}, 3, "copies"),
        ({"copies": 5.0}, 3, "copies"),
        ({"no_unique": "shrug"}, 3, "no_unique"),
        ({"two_players": True}, 3, "two_players"),
        ({"two_players": "yes"}, 2, "two_players"),
        ({"broke_buyers": 1}, 3, "broke_buyers"),
        ({"limited_supply": -1}, 3, "limited_supply"),
        ({"limited_supply": 3}, 3, "limited_supply"),  # 5 - 3 = 2 copies of every type
        ({"small_selection": "Toadstool"}, 3, "small_selection"),
        ({"small_selection": ["Unicorn Horn"]}, 3, "small_selection"),
        ({"small_selection": ["Nightshade"]}, 3, "small_selection"),  # only 6 types in play
        ({"small_selection": ["Toadstool", "toadstool"]}, 3, "small_selection"),
        ({"small_selection": list(INGREDIENTS[:6])}, 3, "small_selection"),
        ({"impotent_ingredient": list(INGREDIENTS[:6])}, 3, "impotent_ingredient"),
        (
            {"impotent_ingredient": ["Toadstool"], "small_selection": ["Toadstool"]},
            3,
            "impotent_ingredient",
        ),
        ({"storefront_disaster": 18}, 3, "storefront_disaster"),  # 6 types x (5 - 2) = 18
        ({"snakeoil_salesman": 10, "storefront_disaster": 8}, 3, "snakeoil_salesman"),
        ({"vision_of_blindness": True, "utter_darkness": True}, 3, "utter_darkness"),
        ({"magic_infused": 7}, 3, "magic_infused"),  # G2: one card for each of six effects
        ({"magic_infused": True}, 3, "magic_infused"),
        ({"magic_infused": 6, "small_selection": list(INGREDIENTS[1:6])}, 3, "magic_infused"),
        ({"deal_window": -1}, 3, "deal_window"),
        ({"deal_window": 601}, 3, "deal_window"),
        ({"deal_window": "30"}, 3, "deal_window"),
        ({"deals": True}, 3, "deals"),
        ({"colour": "blue"}, 3, "colour"),
        ({}, 1, "seats"),
        ({}, 7, "seats"),
    ],
)
def test_bad_config_names_the_field(raw: dict[str, Any], seats: int, field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        GAME.parse_config(raw, seats)
    assert caught.value.field == field


def test_setups_at_the_edge_of_reachable_are_accepted() -> None:
    GAME.parse_config({"small_selection": list(INGREDIENTS[:5])}, 3)  # one type left
    GAME.parse_config({"impotent_ingredient": list(INGREDIENTS[:5])}, 3)
    GAME.parse_config({"storefront_disaster": 17}, 3)  # can never empty every type below 3
    GAME.parse_config({"limited_supply": 2}, 3)


def _deck_of(config: dict[str, Any], seed: int = 7, seats: int = 3) -> list[str]:
    state, _ = GAME.new_match(Setup(config, seats, seed))
    assert state.card is not None
    return [state.card, *state.deck]


def test_house_deck_is_six_types_of_five() -> None:
    counts = Counter(_deck_of({}))
    assert counts == {name: 5 for name in INGREDIENTS[:6]}


@pytest.mark.parametrize(("types", "copies"), [(4, 4), (7, 5), (8, 6)])
def test_types_and_copies_options(types: int, copies: int) -> None:
    counts = Counter(_deck_of({"types": types, "copies": copies}))
    assert counts == {name: copies for name in INGREDIENTS[:types]}


def test_limited_supply_small_selection_impotent() -> None:
    counts = Counter(
        _deck_of(
            {
                "limited_supply": 1,
                "small_selection": ["Wolfsbane"],
                "impotent_ingredient": ["Bat Wing"],
            }
        )
    )
    assert counts == {
        "Eye of Newt": 4,
        "Bat Wing": 1,
        "Toadstool": 4,
        "Mandrake Root": 4,
        "Raven Feather": 4,
    }


def test_broke_buyers_deals_no_five() -> None:
    state, _ = GAME.new_match(Setup({"broke_buyers": True}, 3, 1))
    assert all(seat.hand == [1, 2, 3, 4] for seat in state.seats)
    assert [c.value for c in GAME.requests(state)[0].choices] == ["1", "2", "3", "4"]


def test_storefront_cards_are_set_aside_and_visible_to_all() -> None:
    state, events = GAME.new_match(Setup({"storefront_disaster": 4}, 3, 5))
    assert len(state.storefront) == 4 and len(state.deck) + 1 == 26
    assert Counter([state.card, *state.deck, *state.storefront]) == Counter(_deck_of({}, 5))
    assert GAME.view(state, None)["storefront"] == state.storefront
    start = next(e for e in events if e.kind == "start")
    assert start.audience == PUBLIC and start.data["storefront"] == sorted(state.storefront)


def test_snakeoil_cards_are_set_aside_and_hidden_from_every_player() -> None:
    state, events = GAME.new_match(Setup({"snakeoil_salesman": 5}, 3, 5))
    assert len(state.snakeoil) == 5 and len(state.deck) + 1 == 25
    for seat in (None, 0, 1, 2):
        view = GAME.view(state, seat)
        assert view["snakeoil_count"] == 5 and "snakeoil" not in view
    for event in events:
        if event.audience != MODERATORS:
            assert "snakeoil" not in event.data
    moderators = [e for e in events if e.audience == MODERATORS]
    assert moderators and moderators[0].data["snakeoil"] == state.snakeoil


def test_deck_is_determined_by_the_seed_alone() -> None:
    random.seed(1)
    first = _deck_of({}, seed=99)
    random.seed(2)
    assert _deck_of({}, seed=99) == first
    assert _deck_of({}, seed=100) != first


def test_names_default_and_must_match_seats() -> None:
    state, _ = GAME.new_match(Setup({}, 3, 1))
    assert [s.name for s in state.seats] == ["P1", "P2", "P3"]
    with pytest.raises(ConfigError) as caught:
        GAME.new_match(Setup({}, 3, 1, ["a", "b"]))
    assert caught.value.field == "names"
