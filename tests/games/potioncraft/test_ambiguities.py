"""The AMBIGUITY decisions not already named by a test elsewhere: 1, 4 (the patched recipe),
6, 28, 32 and 33, and the potion that shares a spell's name (§1.2)."""

from __future__ import annotations

from collections import Counter

from games.potioncraft import GAME
from games.potioncraft.cards import POTIONS, SPELL_CATEGORY, SPELL_TYPE, SPELLS

from .helpers import DRAW, accepted, last, state_after, step, trace


def test_ambiguity_1_each_spell_type_has_one_copy_per_potion_category() -> None:
    assert len(SPELLS) == 27
    per_type = Counter(SPELL_TYPE[s] for s in SPELLS)
    assert set(per_type.values()) == {3}
    assert {SPELL_CATEGORY[s] for s in SPELLS if SPELL_TYPE[s] == "Hex Seal"} == {
        "Maleficia",
        "Benedicta",
        "Fortuna",
    }


def test_ambiguity_4_oracles_dew_is_patched_and_recipes_never_repeat_a_family() -> None:
    assert "Bat Wing" in POTIONS["Oracle's Dew"].recipe
    assert "Amethyst" not in POTIONS["Oracle's Dew"].recipe
    assert "Fairy Dust" in POTIONS["Maledicta Vitae"].recipe


def test_s1_2_the_potion_twist_of_fate_is_written_without_brackets() -> None:
    hand = ["Amethyst", "Hair of a Virgin", "Eye of Newt"]
    state = state_after(
        hands={"P1": hand},
        potion_decks={"Maleficia": [], "Benedicta": [], "Fortuna": ["Twist of Fate"]},
        steps=[DRAW],
    )
    move = "craft Twist of Fate with Eye of Newt, Hair of a Virgin, Amethyst"
    assert accepted(state, 0, move.replace("Fate with", "Fate (potion) with")) == move


def test_ambiguity_6_a_hand_reset_asks_every_eligible_player_at_once() -> None:
    state = state_after(
        hands={"P2": ["Hex Seal (Benedicta)"], "P3": ["Venom Brew (Benedicta)"]},
        preset={"potions": {"P1": ["Maledicta Vitae"]}},
        steps=[DRAW, step("main", P1=["perk Maledicta Vitae"])],
    )
    assert [r.seat for r in GAME.requests(state)] == [1, 2]


def test_ambiguity_28_a_spell_lands_after_its_effect_and_a_craft_in_listed_order() -> None:
    end = last(
        hands={"P1": ["Venom Brew (Fortuna)", "Coffin Nails", "Clear Quartz", "Whispering Bark"],
               "P2": ["Bat Wing"]},
        preset={"piles": {"P1": ["Amethyst"]}},
        steps=[DRAW, step("main", P1=["play Venom Brew (Fortuna) on P2"], random=["Bat Wing"]),
               step("main", P1=["craft Severance Draught with Whispering Bark, Clear Quartz,"
                                " Coffin Nails"])],
    )  # fmt: skip
    assert end["piles"]["P1"] == ["Amethyst", "Venom Brew (Fortuna)", "Whispering Bark",
                                  "Clear Quartz", "Coffin Nails"]  # fmt: skip
    assert end["piles"]["P2"] == ["Bat Wing"]


def test_ambiguity_32_the_discard_default_takes_the_last_cards_in_catalog_order() -> None:
    hand = ["Coffin Nails", "Bat Wing", "Hex Seal (Benedicta)", "Circle Breaker (Fortuna)",
            "Secret Ingredient", "Amethyst", "Starflower", "Nightshade", "Spider Silk"]  # fmt: skip
    points = trace(hands={"P1": hand}, preset={"potions": {"P1": ["Wispwine"]}},
                   steps=[DRAW, step("main", P1=["end"]), step("discard")])  # fmt: skip
    assert points[1]["pending"]["count"] == 4
    assert points[2]["moves"]["P1"] == (
        "discard Bat Wing, Secret Ingredient, Circle Breaker (Fortuna), Hex Seal (Benedicta)"
    )
    assert points[2]["piles"]["P1"][-1] == "Hex Seal (Benedicta)"


def test_ambiguity_33_every_pile_is_public_whole() -> None:
    state = state_after(preset={"piles": {"P2": ["Amethyst", "Hex Seal (Fortuna)", "Bat Wing"]}})
    public = GAME.view(state, None)
    assert public["seats"][1]["pile"] == ["Amethyst", "Hex Seal (Fortuna)", "Bat Wing"]
    assert "hand" not in public and public["seats"][0]["hand_size"] == 0
