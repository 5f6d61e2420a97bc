"""§9 perks and §10 blocking, with AMBIGUITY 5, 6, 20, 21, 22, 25, 26, 27."""

from __future__ import annotations

from games.potioncraft.script import replay_script

from .helpers import DRAW, last, refused, script, state_after, step, trace


def perk(text: str, random: list[object] | None = None) -> dict[str, object]:
    return step("main", random=random, P1=[text])


def test_s9_1_a_perk_needs_a_ready_face_up_potion_and_its_arguments() -> None:
    preset = {"potions": {"P1": ["Witch's Chain", "Wispwine (spent)", "Mirror Dew"]}}
    state = state_after(preset=preset, potion_decks={"Maleficia": ["Severance Draught"],
                        "Benedicta": [], "Fortuna": []}, steps=[DRAW])  # fmt: skip
    assert "face down" in refused(state, 0, "perk Wispwine ask Amethyst")
    assert "inside a craft" in refused(state, 0, "perk Mirror Dew")
    assert "write perk" in refused(state, 0, "perk Witch's Chain")
    assert "do not own" in refused(state, 0, "perk Lover's Whisper ask Amethyst")


def test_s9_4_chain_marks_a_revealed_potion_once() -> None:
    preset = {"potions": {"P1": ["Witch's Chain"]}}
    end = last(preset=preset, steps=[DRAW, perk("perk Witch's Chain on Oracle's Dew")])
    assert end["chained"] == ["Oracle's Dew"] and end["potions"]["P1"] == ["Witch's Chain (spent)"]
    state = state_after(preset={**preset, "chained": ["Oracle's Dew"]}, steps=[DRAW])
    assert "already chained" in refused(state, 0, "perk Witch's Chain on Oracle's Dew")


def test_s9_2_ambiguity_25_reshuffle_ends_chains_and_keeps_empty_slots_empty() -> None:
    decks = {"Maleficia": ["Witch's Chain"], "Benedicta": ["Mirror Dew", "Wispwine"],
             "Fortuna": []}  # fmt: skip
    end = last(
        preset={"potions": {"P1": ["Severance Draught"]}, "chained": ["Mirror Dew"]},
        potion_decks=decks,
        steps=[DRAW, perk("perk Severance Draught", random=[
            {"Maleficia": ["Witch's Chain"], "Benedicta": ["Wispwine", "Mirror Dew"]}])],
    )  # fmt: skip
    assert end["revealed"] == {"Maleficia": "Witch's Chain", "Benedicta": "Wispwine",
                               "Fortuna": None}  # fmt: skip
    assert end["chained"] == [] and end["potion_decks"]["Benedicta"] == ["Mirror Dew"]


def test_s9_5_ward_perk_gives_a_standing_ward() -> None:
    end = last(preset={"potions": {"P1": ["Petal Ward Elixir"]}},
               steps=[DRAW, perk("perk Petal Ward Elixir")])  # fmt: skip
    assert end["wards"]["P1"] == 1


def test_s9_8_ambiguity_26_foresight_sees_two_per_player_and_restacks() -> None:
    deck = ["Amethyst", "Bat Wing", "Starflower", "Nightshade", "Spider Silk", "Coffin Nails",
            "Eye of Newt", "White Sage"]  # fmt: skip
    points = trace(
        main_deck=deck, preset={"potions": {"P1": ["Dreambinder Elixir"]}},
        potion_decks={"Maleficia": [], "Benedicta": [], "Fortuna": []},
        steps=[DRAW, perk("perk Dreambinder Elixir"), step("foresight", P1=[
            "order Eye of Newt, Coffin Nails, Spider Silk, Nightshade, Starflower, Bat Wing"])],
    )  # fmt: skip
    assert points[1]["pending"]["cards"] == deck[1:7]
    assert points[2]["deck"] == ["Eye of Newt", "Coffin Nails", "Spider Silk", "Nightshade",
                                 "Starflower", "Bat Wing", "White Sage"]  # fmt: skip


def test_s9_9_ambiguity_27_recycle_shuffles_piles_and_deck_together() -> None:
    preset = {"potions": {"P1": ["Twist of Fate"]}, "piles": {"P2": ["Amethyst"]}}
    decks = {"Maleficia": [], "Benedicta": [], "Fortuna": []}
    end = last(
        main_deck=["Bat Wing", "Starflower"], preset=preset, potion_decks=decks,
        steps=[DRAW, perk("perk Twist of Fate", random=[["Starflower", "Amethyst"]])],
    )  # fmt: skip
    assert end["deck"] == ["Starflower", "Amethyst"] and end["piles"]["P2"] == []


def hand_reset(**changes: object) -> list[dict[str, object]]:
    changes.setdefault("preset", {"potions": {"P1": ["Silence of the Grave"]}})
    return trace(**changes)


def test_s9_3_ambiguity_5_nobody_eligible_opens_no_window() -> None:
    points = hand_reset(
        hands={"P1": ["Amethyst"], "P2": ["Bat Wing"], "P3": []},
        main_deck=["Starflower"],
        steps=[DRAW, perk("perk Silence of the Grave",
                          random=[["Bat Wing", "Amethyst", "Starflower"]])],
    )  # fmt: skip
    end = points[1]
    assert end["pending"]["window"] == "main"
    assert end["hands"] == {"P1": ["Amethyst", "Bat Wing"], "P2": ["Starflower"], "P3": []}


def test_ambiguity_20_hand_reset_deal_full_fills_to_the_table_limit() -> None:
    deck = ["Coffin Nails", "Eye of Newt", "Spider Silk", "Nightshade", "White Sage"]
    points = hand_reset(
        hands={"P1": ["Amethyst"], "P2": ["Bat Wing"], "P3": []},
        main_deck=["Starflower", *deck],
        config={"hand_reset_deal": "full", "table_limit": 4},
        steps=[DRAW, perk("perk Silence of the Grave", random=[
            ["Bat Wing", "Amethyst", "Starflower", *deck]])],
    )  # fmt: skip
    end = points[1]
    assert [len(end["hands"][p]) for p in ("P1", "P2", "P3")] == [1, 4, 3]


def test_ambiguity_3_a_foul_elixir_dealt_by_hand_reset_resolves_after_the_deal() -> None:
    points = hand_reset(
        hands={"P1": ["Amethyst"], "P2": ["Bat Wing", "Starflower"], "P3": []},
        main_deck=["Nightshade", "Foul Elixir (Fortuna)"],
        steps=[DRAW, perk("perk Silence of the Grave", random=[
            ["Amethyst", "Nightshade", "Foul Elixir (Fortuna)", "Bat Wing", "Starflower"],
            "Bat Wing"])],
    )  # fmt: skip
    end = points[1]
    assert end["hands"]["P2"] == [] and end["deck"] == ["Starflower"]
    assert end["piles"]["P2"] == ["Foul Elixir (Fortuna)", "Bat Wing"]


def request(**changes: object) -> list[dict[str, object]]:
    return trace(preset={"potions": {"P1": ["Wispwine"]}}, players=["P1", "P2", "P3", "P4"],
                 **changes)  # fmt: skip


def test_s9_10_ambiguity_21_a_block_passes_the_request_down_the_chain() -> None:
    points = request(
        hands={"P2": ["Amethyst", "Hex Seal (Fortuna)"], "P3": ["Amethyst", "Venom Brew (Fortuna)"],
               "P4": ["Amethyst"]},
        steps=[DRAW, perk("perk Wispwine ask Amethyst"),
               step("block", P2=["block Hex Seal (Fortuna)"]),
               step("block", P3=["block Venom Brew (Fortuna)"])],
    )  # fmt: skip
    assert points[1]["pending"]["seats"] == ["P2"] and points[1]["pending"]["potion"] == "Wispwine"
    assert points[2]["pending"]["seats"] == ["P3"]
    end = points[3]
    assert end["hands"]["P4"] == [] and "Amethyst" in end["hands"]["P1"]
    assert end["piles"]["P2"] == ["Hex Seal (Fortuna)"] and end["hands"]["P2"] == ["Amethyst"]


def test_ambiguity_21_request_block_passes_false_ends_the_request() -> None:
    points = request(
        hands={"P2": ["Amethyst", "Hex Seal (Fortuna)"], "P4": ["Amethyst"]},
        config={"request_block_passes": False},
        steps=[DRAW, perk("perk Wispwine ask Amethyst"),
               step("block", P2=["block Hex Seal (Fortuna)"])],
    )  # fmt: skip
    end = points[2]
    assert end["hands"]["P4"] == ["Amethyst"] and end["pending"]["window"] == "main"


def test_s10_only_a_spell_of_the_beating_category_blocks() -> None:
    state = state_after(
        preset={"potions": {"P1": ["Wispwine"]}},
        hands={"P2": ["Amethyst", "Hex Seal (Fortuna)", "Hex Seal (Maleficia)"]},
        steps=[DRAW, perk("perk Wispwine ask Amethyst")],
    )
    assert "Fortuna spell" in refused(state, 1, "block Hex Seal (Maleficia)")


def test_s9_10_nobody_holding_the_ingredient_gives_nothing() -> None:
    end = request(steps=[DRAW, perk("perk Wispwine ask Amethyst")])[-1]
    assert end["pending"]["window"] == "main" and end["potions"]["P1"] == ["Wispwine (spent)"]


def test_s9_10_only_ingredients_may_be_asked_for() -> None:
    state = state_after(preset={"potions": {"P1": ["Wispwine"]}}, steps=[DRAW])
    assert "not an ingredient" in refused(state, 0, "perk Wispwine ask Secret Ingredient")


def test_s14_the_channel_is_told_no_more_than_the_table() -> None:
    steps = list(replay_script(script(
        hands={"P1": ["Amethyst"], "P2": ["Hex Seal (Benedicta)", "Bat Wing"]},
        preset={"potions": {"P1": ["Silence of the Grave"]}},
        steps=[DRAW, perk("perk Silence of the Grave")],
    )))  # fmt: skip
    public = [e.text for e in steps[-1].events if e.audience.kind == "public"]
    assert "Reaction window open." in public
    assert not any("P2" in text for text in public)
