"""§7 crafting, §9.6 Mimic, §9.7 Pairs-wild, with AMBIGUITY 2, 17, 18, 22, 23, 24."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.potioncraft import crafting
from games.potioncraft.cards import CARDS, CATEGORY_NAMES, COPIES

from .helpers import DRAW, accepted, last, refused, state_after, step

HAND = [
    "Coffin Nails",
    "Whispering Bark",
    "Ghost Pepper Essence",
    "Clear Quartz",
    "Ashes of a Burnt Letter",
    "Eye of Newt",
    "Secret Ingredient",
    "Hex Seal (Fortuna)",
]
SD = "craft Severance Draught with"


def main_state(**changes: object):  # type: ignore[no-untyped-def]
    hands = {"P1": changes.pop("hand", HAND)}
    return state_after(hands=hands, steps=[DRAW], **changes)


def test_s7_1_three_direct_cards_craft() -> None:
    state = main_state()
    text = f"{SD} Coffin Nails, Whispering Bark, Ghost Pepper Essence"
    assert accepted(state, 0, text) == text


def test_ambiguity_18_exactly_three_fulfilments_no_card_left_over() -> None:
    state = main_state()
    assert "do not craft" in refused(state, 0, f"{SD} Coffin Nails, Whispering Bark")
    four = f"{SD} Coffin Nails, Whispering Bark, Ghost Pepper Essence, Clear Quartz"
    assert "do not craft" in refused(state, 0, four)


def test_s7_1_substitution_by_the_two_other_ingredients_of_the_category() -> None:
    state = main_state()
    accepted(state, 0, f"{SD} Ashes of a Burnt Letter, Eye of Newt, Whispering Bark, Clear Quartz")
    refused(state, 0, f"{SD} Ashes of a Burnt Letter, Whispering Bark, Clear Quartz")


def test_ambiguity_2_the_secret_ingredient_stands_for_one_ingredient() -> None:
    state = main_state()
    accepted(state, 0, f"{SD} Secret Ingredient, Whispering Bark, Clear Quartz")


def test_s7_1_spells_are_never_part_of_a_craft() -> None:
    reason = refused(main_state(), 0, f"{SD} Hex Seal (Fortuna), Whispering Bark, Clear Quartz")
    assert "spells" in reason


def test_s7_1_only_a_revealed_potion_with_cards_in_hand() -> None:
    state = main_state()
    reason = refused(state, 0, "craft Witch's Chain with Coffin Nails, Bat Wing")
    assert reason.startswith("Witch's Chain is not on offer (on offer: Maleficia: Severance")
    assert "not in your hand" in refused(state, 0, f"{SD} Coffin Nails, Nightshade, Clear Quartz")


def test_s7_2_ambiguity_17_a_sealed_category_counts_in_no_way() -> None:
    state = main_state(preset={"seal": "Witch's Pantry"})
    refused(state, 0, f"{SD} Coffin Nails, Whispering Bark, Ghost Pepper Essence")
    accepted(state, 0, f"{SD} Coffin Nails, Whispering Bark, Clear Quartz")
    sealed = main_state(preset={"seal": "Occult Rituals"})
    refused(sealed, 0, f"{SD} Ashes of a Burnt Letter, Eye of Newt, Whispering Bark, Clear Quartz")


def test_s7_3_ambiguity_22_chained_needs_all_four_exact_cards() -> None:
    state = main_state(preset={"chained": ["Severance Draught"]})
    accepted(state, 0, f"{SD} Coffin Nails, Whispering Bark, Ghost Pepper Essence, Clear Quartz")
    refused(state, 0, f"{SD} Coffin Nails, Whispering Bark, Ghost Pepper Essence")
    refused(
        state, 0, f"{SD} Secret Ingredient, Whispering Bark, Ghost Pepper Essence, Clear Quartz"
    )


def test_ambiguity_22_chain_mode_no_substitution_three_direct_cards() -> None:
    state = main_state(
        preset={"chained": ["Severance Draught"]}, config={"chain_mode": "no_substitution"}
    )
    accepted(state, 0, f"{SD} Coffin Nails, Whispering Bark, Ghost Pepper Essence")
    refused(state, 0, f"{SD} Coffin Nails, Whispering Bark, Ghost Pepper Essence, Clear Quartz")
    refused(state, 0, f"{SD} Ashes of a Burnt Letter, Eye of Newt, Whispering Bark, Clear Quartz")


def test_s7_4_crafting_ends_the_chain_and_the_cauldron_bonus() -> None:
    end = last(
        hands={"P1": HAND},
        preset={"chained": ["Severance Draught"], "cauldron": {"P1": True}},
        potion_decks={"Maleficia": ["Severance Draught", "Witch's Chain"], "Benedicta": [],
                      "Fortuna": []},
        steps=[DRAW, step("main", P1=[f"{SD} Coffin Nails, Whispering Bark, Ghost Pepper"
                                      " Essence, Clear Quartz"])],
    )  # fmt: skip
    assert end["chained"] == [] and end["cauldron"]["P1"] is False
    assert end["revealed"]["Maleficia"] == "Witch's Chain"
    assert end["piles"]["P1"][-1] == "Clear Quartz"
    assert end["mimic_log"] == ["Coffin Nails", "Whispering Bark", "Clear Quartz",
                                "Ghost Pepper Essence"]  # fmt: skip


def test_ambiguity_34_an_empty_potion_deck_leaves_the_slot_empty() -> None:
    end = last(
        hands={"P1": HAND},
        steps=[DRAW, step("main", P1=[f"{SD} Coffin Nails, Whispering Bark, Clear Quartz"])],
    )
    assert end["revealed"]["Maleficia"] is None


def test_s9_6_ambiguity_23_mimic_is_a_virtual_logged_ingredient() -> None:
    preset = {"potions": {"P1": ["Mirror Dew"]}, "mimic_log": ["Coffin Nails"]}
    decks = {"Maleficia": ["Severance Draught"], "Benedicta": ["Wispwine"], "Fortuna": []}
    state = main_state(preset=preset, potion_decks=decks)
    mimic = f"{SD} Whispering Bark, Ghost Pepper Essence using Mirror Dew"
    accepted(state, 0, f"{mimic} as Coffin Nails")
    assert "Mimic log" in refused(state, 0, f"{mimic} as Clear Quartz")
    assert "name the ingredient" in refused(state, 0, mimic)
    end = last(
        hands={"P1": HAND}, preset=preset, potion_decks=decks,
        steps=[DRAW, step("main", P1=[f"{mimic} as Coffin Nails"])],
    )  # fmt: skip
    assert end["potions"]["P1"] == ["Mirror Dew (spent)", "Severance Draught"]
    assert end["piles"]["P1"] == ["Whispering Bark", "Ghost Pepper Essence"]


def test_s9_7_ambiguity_24_pairs_wild_one_pair_as_one_wild() -> None:
    hand = ["Coffin Nails", "Whispering Bark", "Bat Wing", "Bat Wing", "Amethyst"]
    preset = {"potions": {"P1": ["Illusion's Glee"]}}
    decks = {"Maleficia": ["Severance Draught"], "Benedicta": [], "Fortuna": []}
    state = main_state(hand=hand, preset=preset, potion_decks=decks)
    text = f"{SD} Coffin Nails, Whispering Bark, Bat Wing, Bat Wing"
    accepted(state, 0, f"{text} using Illusion's Glee")
    refused(state, 0, text)
    assert "no `as`" in refused(state, 0, f"{text} using Illusion's Glee as Bat Wing")
    sealed = main_state(hand=hand, preset={**preset, "seal": "Witch's Pantry"}, potion_decks=decks)
    refused(sealed, 0, f"{text} using Illusion's Glee")


def test_ambiguity_19_a_craft_perk_is_not_ready_on_the_turn_it_was_claimed() -> None:
    hand = ["Clear Quartz", "Moonstone Powder", "Fairy Dust", "Coffin Nails", "Whispering Bark"]
    decks = {"Maleficia": ["Severance Draught"], "Benedicta": ["Mirror Dew"], "Fortuna": []}
    state = state_after(
        hands={"P1": hand}, potion_decks=decks, preset={"mimic_log": ["Ghost Pepper Essence"]},
        steps=[DRAW, step("main", P1=["craft Mirror Dew with Clear Quartz, Moonstone Powder,"
                                      " Fairy Dust"])],
    )  # fmt: skip
    reason = refused(
        state, 0, f"{SD} Coffin Nails, Whispering Bark using Mirror Dew as Ghost Pepper Essence"
    )
    assert "not ready" in reason


def test_s7_1_how_many_ingredients_a_hand_lacks_fast_path_equals_the_full_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The prompts' "N missing": recipes of four families are counted directly; the count
    equals the search over every way to cover them (which all18's two other recipes use)."""
    deck = [card for card in CARDS for _ in range(COPIES[card])]
    rng = random.Random(7)
    for _ in range(3000):
        hand = Counter(rng.sample(deck, rng.randint(0, 12)))
        seal = rng.choice([None, None, *CATEGORY_NAMES])
        chained, mode = rng.random() < 0.2, rng.choice(["exact4", "no_substitution"])
        potion = rng.choice(sorted(crafting.DISTINCT_FAMILIES))
        fast = crafting.missing(potion, hand, seal=seal, chained=chained, chain_mode=mode)
        with monkeypatch.context() as patch:
            patch.setattr(crafting, "DISTINCT_FAMILIES", frozenset())
            full = crafting.missing(potion, hand, seal=seal, chained=chained, chain_mode=mode)
        assert fast[0] == full[0], (potion, hand, seal, chained, mode)
