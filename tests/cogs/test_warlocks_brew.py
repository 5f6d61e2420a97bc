"""The Warlock's Brew cog without Discord: the variants line, the setup text, the coin buttons."""

from __future__ import annotations

import discord
import pytest

from bot.store import MatchRecord
from bot.transport import request_to_json
from cogs.prompts import ChoiceButton, prompt_view
from cogs.warlocks_brew import options_text, parse_variants, setup_text
from games.protocol import ConfigError, Setup
from games.warlocks_brew import GAME


def parsed(text: str, seats: int = 3) -> dict[str, object]:
    return GAME.parse_config(parse_variants(text), seats)


def test_bare_names_switch_on_and_values_are_read() -> None:
    assert parse_variants("") == {}
    assert parse_variants("broke_buyers, limited_supply=4, small_selection=Toadstool") == {
        "broke_buyers": True,
        "limited_supply": 4,
        "small_selection": ["Toadstool"],
    }
    assert parse_variants("Broke Buyers; vision-of-blindness = off; No Unique = Rebid") == {
        "broke_buyers": True,
        "vision_of_blindness": False,
        "no_unique": "rebid",
    }


def test_list_options_take_joined_or_following_types() -> None:
    joined = parse_variants("small_selection=Bat Wing+toadstool/Wolfsbane|Nightshade")
    assert joined == {"small_selection": ["Bat Wing", "toadstool", "Wolfsbane", "Nightshade"]}
    following = parse_variants("impotent_ingredient=Bat Wing, Toadstool, broke_buyers")
    assert following == {"impotent_ingredient": ["Bat Wing", "Toadstool"], "broke_buyers": True}
    config = parsed("types=7, small_selection=bat wing, nightshade")
    assert config["small_selection"] == ["Bat Wing", "Nightshade"]


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("brokebuyers", "variants", "'brokebuyers' is not an option"),
        ("Toadstool", "variants", "'Toadstool' is not an option"),
        ("colour=red", "variants", "'colour' is not an option"),
        ("window=5", "variants", "window option"),
        ("deals", "deals", "the deal_window option"),
        ("limited_supply", "limited_supply", "must be a whole number"),
        ("limited_supply=", "limited_supply", "needs a value"),
        ("small_selection", "small_selection", "name the ingredient types"),
        ("copies=5, copies=4", "copies", "given twice"),
    ],
)
def test_unreadable_variants_name_the_problem(text: str, field: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parsed(text)
    assert caught.value.field == field and words in caught.value.message


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("limited_supply=6", "limited_supply"),
        ("two_players", "two_players"),
        ("vision_of_blindness, utter_darkness", "utter_darkness"),
        ("small_selection=Dragon Scale", "small_selection"),
        (
            "types=4, small_selection=Bat Wing+Toadstool+Eye of Newt+Mandrake Root",
            "small_selection",
        ),
        ("storefront_disaster=30", "storefront_disaster"),
        ("broke_buyers=maybe", "broke_buyers"),
    ],
)
def test_the_engine_checks_the_values(text: str, field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parsed(text)
    assert caught.value.field == field


def test_options_text_names_the_variants_and_the_deck() -> None:
    assert options_text(parsed("")) == "Variants: none. Deck: 30 cards."
    assert options_text(parsed("", seats=2)) == "Variants: Two Players. Deck: 30 cards."
    text = options_text(
        parsed("broke_buyers, limited_supply=1, small_selection=Toadstool, storefront_disaster=2")
    )
    assert text == (
        "Variants: Broke Buyers, Limited Supply 1, Small Selection (Toadstool),"
        " Storefront Disaster 2. Deck: 18 cards."
    )
    assert "rebid when no bid is unique" in options_text(parsed("no_unique=rebid"))


def test_setup_text() -> None:
    config = parsed("utter_darkness")
    record = MatchRecord(
        7, "warlocks-brew", 1, 2, (10, 11, 12), ("A", "B", "C"), (), config, 5, None, "setup",
        0, None, 0.0,
    )  # fmt: skip
    text = setup_text(record, ["<@10>", "<@11>", "<@12>"])
    assert text.startswith("🧪 Match **7**: Warlock's Brew, <@10> (P1), <@11> (P2) and <@12> (P3).")
    assert "Variants: Utter Darkness. Deck: 30 cards. Bids close after 45 s." in text
    assert text.endswith("Next: `/brew start match:m7`.")


def test_a_bid_prompt_has_one_button_per_coin_in_hand() -> None:
    state, _ = GAME.new_match(Setup(parsed("broke_buyers"), 3, seed=1))
    (request, *_) = GAME.requests(state)
    view = prompt_view(request_to_json(request, match_id=3, step=1, deadline=2e9))
    assert view is not None
    *coins, _help = view.children
    assert [item.custom_id for item in coins] == [f"fx:3:1:{c}" for c in "1234"]
    assert all(isinstance(item, ChoiceButton) for item in coins)


def test_utter_darkness_adds_the_declaration() -> None:
    state, _ = GAME.new_match(Setup(parsed("utter_darkness"), 3, seed=1))
    (request, *_) = GAME.requests(state)
    view = prompt_view(request_to_json(request, match_id=3, step=1, deadline=2e9))
    assert view is not None
    *coins, declare, _help = view.children
    assert len(coins) == 5 and isinstance(declare, ChoiceButton)
    assert declare.custom_id == "fx:3:1:declare"  # one declaration reads better as a button
    assert declare.item.style == discord.ButtonStyle.secondary
