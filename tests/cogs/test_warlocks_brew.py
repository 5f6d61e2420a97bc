"""The Warlock's Brew cog without Discord: the variants line, the setup text, the coin buttons,
the fullest deal prompts."""

from __future__ import annotations

import json
from typing import Any

import discord
import pytest

from bot.outbox import prompt_text
from bot.store import MatchRecord
from bot.transport import request_to_json
from cogs.prompts import ChoiceButton, every_page, offered_values, prompt_view
from cogs.warlocks_brew import options_text, parse_variants, setup_text
from games.protocol import HELP_CHARS, Accepted, ConfigError, Request, Setup
from games.warlocks_brew import GAME
from games.warlocks_brew.config import INGREDIENTS
from games.warlocks_brew.effects import EFFECTS
from tests.games.test_conformance import CONTENT, check_components


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


def test_g2_a7_options_text_names_magic_infused_and_the_deal_window() -> None:
    text = options_text(parsed("magic_infused=3, deal_window"))
    assert text == (
        "Variants: Magic Infused (3 effect cards), Deal Window (30 s after each auction)."
        " Deck: 30 cards."
    )


def largest_deal_window() -> Any:
    """Six players with the longest names, P1 holding much, three offers waiting for it with
    the longest favours and as many of its own: the fullest deal prompt there can be."""
    names = [f"{'Ƶ' * 30}{seat}" for seat in range(6)]
    config = parsed("magic_infused=6, deal_window=30, copies=6, types=8", seats=6)
    state, _ = GAME.new_match(Setup(config, 6, 3, names))
    state.phase, state.card = "deals", None
    cards = [name for name in INGREDIENTS for _ in range(3)]
    for card, effect in zip(cards, [*EFFECTS, *[""] * 30], strict=False):
        state.seats[0].add(card, effect)
    state.seats[0].hand = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    for seat in range(1, 6):
        state.seats[seat].add(INGREDIENTS[seat], "")
    long, held = "x" * 300, ", ".join(state.seats[0].labels())
    for by in (1, 2, 3):
        item = f"{INGREDIENTS[by]}"
        raw = f"offer {names[0]} give {item}, coin 1 for {held} favour {long}"
        state, _ = GAME.resolve(state, {by: str(accepted(state, by, raw))})
    for to in (1, 2, 3):
        raw = f"offer {names[to]} give {held} for {INGREDIENTS[to]} favour {long}"
        state, _ = GAME.resolve(state, {0: str(accepted(state, 0, raw))})
    return state


def accepted(state: Any, seat: int, raw: str) -> object:
    verdict = GAME.submit(state, seat, raw)
    assert isinstance(verdict, Accepted), verdict
    return verdict.move


def fits_discord(request: Request) -> None:
    assert len(prompt_text(request, 2e9 + 30, 2e9)) <= CONTENT
    assert len(request.help) <= HELP_CHARS
    payload = json.loads(json.dumps(request_to_json(request, 10**12, 10**6, 2e9)))
    offered: set[str] = set()
    for view in every_page(payload):
        check_components(view)
        offered |= set(offered_values(view, payload))
    assert offered == {choice.value for choice in request.choices}


def test_a7_the_fullest_deal_prompts_fit_discord() -> None:
    state = largest_deal_window()
    request = next(r for r in GAME.requests(state) if r.seat == 0)
    assert request.kind == "deal" and request.prompt.count("Offer ") == 3
    fits_discord(request)
    state.offers.clear()
    state.seats[0].proposals = 0
    state, _ = GAME.resolve(state, {0: accepted(state, 0, f"propose {state.seats[1].name}")})
    give = next(r for r in GAME.requests(state) if r.seat == 0)
    assert len(give.choices) == 18  # 12 different cards, 5 coin values, Nothing: one menu
    assert "Toadstool (one of 3)" in [c.label for c in give.choices]
    assert "type more, e.g. `2 Toadstool, coin 3, coin 3`" in give.prompt
    fits_discord(give)
    state, _ = GAME.resolve(state, {4: accepted(state, 4, f"propose {state.seats[0].name}")})
    state, _ = GAME.resolve(state, {4: accepted(state, 4, "nothing")})
    ask = next(r for r in GAME.requests(state) if r.seat == 4)
    assert len(ask.choices) == 18
    fits_discord(ask)


def test_a9_a7_a_face_down_brew_past_a_menu_is_typed_by_place() -> None:
    config = parsed("magic_infused=6, deal_window=30, copies=6, types=8, utter_darkness")
    state, _ = GAME.new_match(Setup(config, 3, 3))
    state.phase, state.card = "deals", None
    for card in INGREDIENTS * 4:
        state.seats[0].add(card, "")
    state, _ = GAME.resolve(state, {0: accepted(state, 0, "propose P2")})
    give = next(r for r in GAME.requests(state) if r.seat == 0)
    assert len(give.choices) == 25 and give.choices[-1].value == "nothing"
    assert "type the others by place, e.g. `card 30`" in give.prompt
    fits_discord(give)
    assert accepted(state, 0, "card 30, card 2") == "give card 2, card 30"
