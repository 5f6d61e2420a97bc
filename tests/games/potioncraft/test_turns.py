"""§2 setup, §3 the end, §4 the turn, §5 the draw, §11 decks running out, §13 timeouts."""

from __future__ import annotations

import pytest

from games.potioncraft import GAME
from games.potioncraft.cards import CARDS, COPIES, DECK_SIZE
from games.protocol import Setup

from .helpers import DRAW, FILLER, accepted, last, refused, state_after, step, trace

END = step("main", P1=["end"])


def test_s1_1_the_main_deck_holds_136_cards_in_catalog_order() -> None:
    assert DECK_SIZE == 136 and len(CARDS) == 55
    assert CARDS[0] == "Coffin Nails" and CARDS[27] == "Secret Ingredient"
    assert CARDS[28] == "Circle Breaker (Maleficia)" and CARDS[-1] == "Thief's Gamble (Fortuna)"
    assert COPIES["Bat Wing"] == 4 and COPIES["Hex Seal (Benedicta)"] == 1


@pytest.mark.parametrize(("seats", "deck"), [(2, 118), (3, 109), (4, 100), (5, 91), (6, 82)])
def test_s2_setup_deals_nine_each_and_reveals_one_potion_per_category(
    seats: int, deck: int
) -> None:
    state, _ = GAME.new_match(Setup(GAME.parse_config({}, seats), seats, 7))
    cards = sum(len(h) for h in state.hands) + len(state.deck) + sum(map(len, state.piles))
    assert cards + (1 if state.turn == 1 else 0) >= DECK_SIZE - 3  # a dormant Foul Elixir fired
    assert all(len(state.potion_decks[c]) == 4 for c in state.potion_decks)
    assert all(state.revealed[c] is not None for c in state.revealed)
    assert state.turn == 1 and state.pending is not None and state.pending["window"] == "draw"
    fresh, _ = GAME.new_match(Setup(GAME.parse_config({}, seats), seats, 8))
    if not any(fresh.piles):  # no Foul Elixir: the plain deal
        assert len(fresh.deck) == deck and [len(h) for h in fresh.hands] == [9] * seats


def test_s1_2_ambiguity_4_potion_set_all18_has_six_per_category() -> None:
    state, _ = GAME.new_match(Setup(GAME.parse_config({"potion_set": "all18"}, 3), 3, 1))
    assert all(len(state.potion_decks[c]) == 5 for c in state.potion_decks)


def test_s2_5_a_dealt_foul_elixir_fires_at_its_owners_first_turn() -> None:
    end = trace(
        hands={"P1": ["Foul Elixir (Fortuna)", "Amethyst", "Bat Wing", "Starflower"]},
        random=["Bat Wing", "Amethyst"],
        steps=[DRAW],
    )[0]
    assert end["piles"]["P1"] == ["Foul Elixir (Fortuna)", "Bat Wing", "Amethyst"]
    assert end["hands"]["P1"] == ["Starflower", "Pumpkin Guts"]


def test_ambiguity_3_foul_elixir_discards_option() -> None:
    end = trace(
        hands={"P1": ["Foul Elixir (Fortuna)", "Amethyst", "Bat Wing"]},
        config={"foul_elixir_discards": 1},
        random=["Bat Wing"],
        steps=[DRAW],
    )[0]
    assert end["piles"]["P1"] == ["Foul Elixir (Fortuna)", "Bat Wing"]


def test_s5_a_drawn_foul_elixir_resolves_and_counts_as_the_draw() -> None:
    end = last(
        hands={"P1": ["Amethyst", "Bat Wing", "Starflower"]},
        main_deck=["Foul Elixir (Maleficia)", "Nightshade"],
        steps=[step("draw", P1=["deck"], random=["Starflower", "Amethyst"])],
    )
    assert end["hands"]["P1"] == ["Bat Wing"]
    assert end["piles"]["P1"] == ["Foul Elixir (Maleficia)", "Starflower", "Amethyst"]
    assert end["deck"] == ["Nightshade"] and end["pending"]["window"] == "main"


def test_s5_ambiguity_9_own_pile_is_drawable_unless_the_option_is_off() -> None:
    preset = {"piles": {"P1": ["Amethyst"], "P2": ["Hex Seal (Fortuna)"]}}
    first = trace(preset=preset, steps=[DRAW])[0]
    state = state_after(preset=preset)
    assert accepted(state, 0, "pile P1") == "pile P1"
    assert "spell" in refused(state, 0, "pile P2")
    assert "empty" in refused(state, 0, "pile P3")
    off = state_after(preset=preset, config={"draw_own_pile": False})
    assert "own pile" in refused(off, 0, "pile P1")
    assert first["hands"]["P1"] == ["Pumpkin Guts"]


def test_s3_1_win_at_once_after_the_craft_completing_three_categories() -> None:
    hand = ["Clear Quartz", "Mermaid Scale", "Bat Wing"]
    preset = {"potions": {"P1": ["Severance Draught", "Mirror Dew (spent)"]}}
    decks = {"Maleficia": [], "Benedicta": [], "Fortuna": ["Oracle's Dew"]}
    craft = step("main", P1=["craft Oracle's Dew with Clear Quartz, Mermaid Scale, Bat Wing"])
    end = last(hands={"P1": hand}, preset=preset, potion_decks=decks, steps=[DRAW, craft])
    assert end["game_over"] and end["winners"] == ["P1"] and end["pending"] is None
    assert end["end_reason"] == "three_categories"


def test_ambiguity_8_win_check_end_of_turn_waits_for_the_end_step() -> None:
    hand = ["Clear Quartz", "Mermaid Scale", "Bat Wing"]
    preset = {"potions": {"P1": ["Severance Draught", "Mirror Dew (spent)"]}}
    decks = {"Maleficia": [], "Benedicta": [], "Fortuna": ["Oracle's Dew"]}
    craft = step("main", P1=["craft Oracle's Dew with Clear Quartz, Mermaid Scale, Bat Wing"])
    points = trace(
        hands={"P1": hand}, preset=preset, potion_decks=decks,
        config={"win_check": "end_of_turn"}, steps=[DRAW, craft, END, step("discard")],
    )  # fmt: skip
    assert not points[1]["game_over"] and not points[2]["game_over"]
    assert points[3]["game_over"] and points[3]["winners"] == ["P1"]


def test_s3_2_ambiguity_30_turn_limit_ranks_categories_then_potions() -> None:
    preset = {"potions": {"P2": ["Mirror Dew"], "P3": ["Wispwine", "Lover's Whisper"]}}
    decks = {"Maleficia": [], "Benedicta": [], "Fortuna": []}
    end = last(preset=preset, potion_decks=decks, config={"max_turns": 1}, steps=[DRAW, END])
    assert end["game_over"] and end["end_reason"] == "turn_limit" and end["winners"] == ["P3"]


def test_s3_2_a_tie_shares_the_victory() -> None:
    preset = {"potions": {"P2": ["Mirror Dew"], "P3": ["Wispwine"]}}
    decks = {"Maleficia": [], "Benedicta": [], "Fortuna": []}
    end = last(preset=preset, potion_decks=decks, config={"max_turns": 1}, steps=[DRAW, END])
    assert end["winners"] == ["P2", "P3"]


def test_s3_2_the_limit_counts_from_turns_done() -> None:
    end = last(preset={"turns_done": 4}, config={"max_turns": 5}, steps=[DRAW, END])
    assert end["game_over"] and end["turn"] == 5


def test_s4_1_ambiguity_15_skips_stack_and_a_skipped_turn_is_not_counted() -> None:
    points = trace(
        preset={"skips": {"P2": 2}},
        steps=[DRAW, END, step("draw", P3=["deck"]), step("main", P3=["end"]), DRAW, END],
    )
    assert points[1]["active"] == "P3" and points[1]["turn"] == 2
    assert points[1]["skips"]["P2"] == 1
    assert points[5]["active"] == "P3" and points[5]["turn"] == 4 and points[5]["skips"]["P2"] == 0


def test_s4_5_ambiguity_11_discard_exactly_the_excess_of_the_hand_only() -> None:
    potions = ["Severance Draught", "Wispwine", "Oracle's Dew", "Witch's Chain"]
    preset = {"potions": {"P1": potions}}
    decks = {"Maleficia": [], "Benedicta": [], "Fortuna": []}
    points = trace(
        hands={"P1": ["Amethyst", "Bat Wing"]}, preset=preset, potion_decks=decks,
        steps=[DRAW, END],
    )  # fmt: skip
    assert points[1]["pending"]["window"] == "discard" and points[1]["pending"]["count"] == 3


def test_s4_5_below_the_limit_nothing_is_discarded() -> None:
    end = last(hands={"P1": ["Amethyst"]}, steps=[DRAW, END])
    assert end["active"] == "P2" and end["piles"]["P1"] == []


def test_s4_5_the_discard_must_be_exactly_n_hand_cards() -> None:
    hand = ["Coffin Nails"] * 4 + ["Eye of Newt"] * 4 + ["Starflower"]
    state = state_after(hands={"P1": hand}, steps=[DRAW, END])
    assert "exactly 1" in refused(state, 0, "discard Amethyst, Bat Wing")
    assert "not in your hand" in refused(state, 0, "discard Nightshade")
    assert accepted(state, 0, "Coffin Nails #2") == "discard Coffin Nails"  # a menu's 2nd copy


def test_ambiguity_10_the_deck_is_rebuilt_lazily_from_the_piles() -> None:
    preset = {"piles": {"P2": ["Amethyst", "Foul Elixir (Fortuna)"], "P3": ["Bat Wing"]}}
    end = last(
        main_deck=[], preset=preset,
        steps=[step("draw", P1=["deck"], random=[["Bat Wing", "Foul Elixir (Fortuna)",
                                                  "Amethyst"]])],
    )  # fmt: skip
    assert end["hands"]["P1"] == ["Bat Wing"]
    assert end["deck"] == ["Foul Elixir (Fortuna)", "Amethyst"]
    assert end["piles"] == {"P1": [], "P2": [], "P3": []}


def test_s11_no_card_anywhere_draws_nothing() -> None:
    end = last(main_deck=[], steps=[DRAW])
    assert end["hands"]["P1"] == [] and end["pending"]["window"] == "main"


def test_s13_2_an_absent_player_draws_ends_and_discards_spells_first() -> None:
    hand = [*FILLER[:5], "Hex Seal (Fortuna)", "Coffin Nails", "Eye of Newt", "Starflower"]
    points = trace(hands={"P1": hand}, steps=[step("draw"), step("main"), step("discard")])
    assert points[0]["timeouts"] == ["P1"] and points[0]["moves"] == {"P1": "deck"}
    assert points[1]["moves"] == {"P1": "end"}
    assert points[2]["moves"] == {"P1": "discard Hex Seal (Fortuna)"}


def test_s13_1_out_of_turn_attempts_are_refused_and_recorded() -> None:
    first = trace(steps=[step("draw", P1=["deck"], P2=["deck"])])[0]
    assert first["rejected"]["P2"] == ["deck"] and first["moves"] == {"P1": "deck"}


def test_s13_3_normalisation_case_spaces_and_typographic_apostrophes() -> None:
    hand = ["Clear Quartz", "Mermaid Scale", "Bat Wing"]
    state = state_after(hands={"P1": hand}, steps=[DRAW])
    text = "  CRAFT   oracle\u2019s dew with clear quartz,mermaid scale ,  BAT WING "
    assert (
        accepted(state, 0, text) == "craft Oracle's Dew with Clear Quartz, Mermaid Scale, Bat Wing"
    )
    assert accepted(state_after(preset={"piles": {"P2": ["Amethyst"]}}), 0, "PILE p2") == "pile P2"
