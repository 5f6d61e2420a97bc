"""§8 spells with AMBIGUITY 7, 12, 13, 14, 15, 16, 26, 28, 29."""

from __future__ import annotations

from .helpers import DRAW, accepted, last, refused, state_after, step, trace


def play(text: str, random: list[object] | None = None) -> dict[str, object]:
    return step("main", random=random, P1=[text])


def test_s8_1_circle_breaker_skips_the_next_seat() -> None:
    end = last(hands={"P1": ["Circle Breaker (Fortuna)"]},
               steps=[DRAW, play("play Circle Breaker (Fortuna)")])  # fmt: skip
    assert end["skips"] == {"P1": 0, "P2": 1, "P3": 0}
    assert end["piles"]["P1"] == ["Circle Breaker (Fortuna)"]


def test_s9_5_ambiguity_7_a_ward_cancels_a_circle_breaker_and_is_spent() -> None:
    end = last(hands={"P1": ["Circle Breaker (Fortuna)"]}, preset={"wards": {"P2": 2}},
               steps=[DRAW, play("play Circle Breaker (Fortuna)")])  # fmt: skip
    assert end["skips"]["P2"] == 0 and end["wards"]["P2"] == 1


def test_s8_2_twist_of_fate_reverses_the_direction_at_once() -> None:
    points = trace(
        hands={"P1": ["Twist of Fate (Maleficia)"]},
        steps=[DRAW, play("play Twist of Fate (Maleficia)"), step("main", P1=["end"])],
    )
    assert points[1]["direction"] == "ccw" and points[2]["active"] == "P3"


def test_ambiguity_14_two_player_twist_reverse_or_skip() -> None:
    hands = {"P1": ["Twist of Fate (Maleficia)"]}
    steps = [DRAW, play("play Twist of Fate (Maleficia)"), step("main", P1=["end"])]
    plain = trace(players=["P1", "P2"], hands=hands, steps=steps)
    assert plain[1]["direction"] == "ccw" and plain[2]["active"] == "P2"
    skip = trace(players=["P1", "P2"], hands=hands, steps=steps,
                 config={"two_player_twist": "skip"})  # fmt: skip
    assert skip[1]["direction"] == "cw" and skip[1]["skips"]["P2"] == 1
    assert skip[2]["active"] == "P1" and skip[2]["turn"] == 2


def test_s8_3_ambiguity_29_venom_brew_discards_a_recorded_random_card() -> None:
    end = last(
        hands={"P1": ["Venom Brew (Benedicta)"], "P2": ["Amethyst", "Bat Wing"]},
        steps=[DRAW, play("play Venom Brew (Benedicta) on P2", random=["Bat Wing"])],
    )
    assert end["hands"]["P2"] == ["Amethyst"] and end["piles"]["P2"] == ["Bat Wing"]
    assert end["piles"]["P1"] == ["Venom Brew (Benedicta)"]


def test_s8_3_venom_brew_on_an_empty_hand_draws_no_random_outcome() -> None:
    end = last(hands={"P1": ["Venom Brew (Benedicta)"]},
               steps=[DRAW, play("play Venom Brew (Benedicta) on P3")])  # fmt: skip
    assert end["piles"]["P3"] == [] and end["piles"]["P1"] == ["Venom Brew (Benedicta)"]


def test_s8_3_venom_brew_needs_another_player() -> None:
    state = state_after(hands={"P1": ["Venom Brew (Benedicta)"]}, steps=[DRAW])
    assert "another player" in refused(state, 0, "play Venom Brew (Benedicta) on P1")


def test_s8_4_astral_projection_keeps_one_and_restacks_the_others() -> None:
    points = trace(
        hands={"P1": ["Astral Projection (Fortuna)"]},
        main_deck=["Amethyst", "Bat Wing", "Starflower", "Nightshade", "Spider Silk"],
        steps=[DRAW, play("play Astral Projection (Fortuna)"),
               step("astral", P1=["keep Nightshade, Starflower, Bat Wing"])],
    )  # fmt: skip
    assert points[1]["pending"]["cards"] == ["Bat Wing", "Starflower", "Nightshade"]
    assert points[1]["deck"][:3] == ["Bat Wing", "Starflower", "Nightshade"]
    assert points[2]["hands"]["P1"] == ["Nightshade", "Amethyst"]
    assert points[2]["deck"] == ["Starflower", "Bat Wing", "Spider Silk"]


def test_ambiguity_26_astral_with_one_card_keeps_it_without_a_window() -> None:
    end = last(hands={"P1": ["Astral Projection (Fortuna)"]}, main_deck=["Amethyst", "Bat Wing"],
               steps=[DRAW, play("play Astral Projection (Fortuna)")])  # fmt: skip
    assert end["pending"]["window"] == "main" and end["hands"]["P1"] == ["Amethyst", "Bat Wing"]


def test_s8_4_the_keep_must_list_every_seen_card() -> None:
    state = state_after(
        hands={"P1": ["Astral Projection (Fortuna)"]},
        steps=[DRAW, play("play Astral Projection (Fortuna)")],
    )
    assert "all the seen cards" in refused(state, 0, "keep Bat Wing, Amethyst")


def test_s8_6_ambiguity_12_cauldron_draws_and_raises_the_limit_until_a_craft() -> None:
    hand = ["Crackling Cauldron (Benedicta)", "Amethyst", "Amethyst", "Bat Wing", "Bat Wing",
            "Starflower", "Starflower", "Nightshade", "Nightshade"]  # fmt: skip
    points = trace(
        hands={"P1": hand},
        steps=[DRAW, play("play Crackling Cauldron (Benedicta)"), step("main", P1=["end"])],
    )
    assert points[1]["cauldron"]["P1"] is True and points[1]["table_count"]["P1"] == 10
    assert points[2]["active"] == "P2" and points[2]["cauldron"]["P1"] is True


def test_s8_7_ambiguity_13_summon_takes_the_topmost_copy_from_any_pile() -> None:
    preset = {"piles": {"P2": ["Amethyst", "Hex Seal (Fortuna)", "Amethyst", "Bat Wing"]}}
    end = last(
        hands={"P1": ["Summon from Beyond (Maleficia)"]}, preset=preset,
        steps=[DRAW, play("play Summon from Beyond (Maleficia) from P2 take Amethyst")],
    )  # fmt: skip
    assert end["piles"]["P2"] == ["Amethyst", "Hex Seal (Fortuna)", "Bat Wing"]
    spell = last(
        hands={"P1": ["Summon from Beyond (Maleficia)"]}, preset=preset,
        steps=[DRAW, play("play Summon from Beyond (Maleficia) from P2 take Hex Seal (Fortuna)")],
    )  # fmt: skip
    assert "Hex Seal (Fortuna)" in spell["hands"]["P1"]


def test_s8_7_a_summoned_foul_elixir_resolves_on_the_summoner() -> None:
    end = last(
        hands={"P1": ["Summon from Beyond (Maleficia)", "Amethyst"]},
        preset={"piles": {"P1": ["Foul Elixir (Fortuna)"]}},
        steps=[DRAW, play("play Summon from Beyond (Maleficia) from P1 take Foul Elixir"
                          " (Fortuna)", random=["Amethyst", "Pumpkin Guts"])],
    )  # fmt: skip
    assert end["piles"]["P1"] == ["Foul Elixir (Fortuna)", "Amethyst", "Pumpkin Guts",
                                  "Summon from Beyond (Maleficia)"]  # fmt: skip
    assert end["hands"]["P1"] == []


def test_s8_8_hex_seal_replaces_the_sealed_category() -> None:
    end = last(hands={"P1": ["Hex Seal (Benedicta)"]}, preset={"seal": "Occult Rituals"},
               steps=[DRAW, play("play Hex Seal (Benedicta) seal Witch's Pantry")])  # fmt: skip
    assert end["seal"] == "Witch's Pantry"


def test_s8_5_foul_elixir_is_never_playable() -> None:
    state = state_after(hands={"P2": ["Foul Elixir (Benedicta)"]}, start="P2")
    assert state.turn == 1 and "Foul Elixir (Benedicta)" not in state.hands[1]
    hand = state_after(hands={"P1": ["Hex Seal (Benedicta)"]}, steps=[DRAW])
    assert "not in your hand" in refused(hand, 0, "play Foul Elixir (Benedicta)")


THIEF = "Thief's Gamble (Fortuna)"
WAGER = ["Coffin Nails", "Eye of Newt", "Spider Silk", "Nightshade"]
GAMBLE = f"play {THIEF} on P2 steal Wispwine wager " + ", ".join(WAGER)


def test_s8_9_ambiguity_16_busted_thief_loses_the_next_turn() -> None:
    end = last(
        hands={"P1": [THIEF, *WAGER], "P2": ["Amethyst", "Bat Wing"]},
        preset={"potions": {"P2": ["Wispwine"]}},
        steps=[DRAW, play(GAMBLE)],
    )
    assert end["skips"]["P1"] == 1 and end["potions"]["P2"] == ["Wispwine"]
    assert end["piles"]["P1"] == [*WAGER, THIEF]


def test_s8_9_a_ward_cancels_the_gamble_before_the_wager() -> None:
    end = last(
        hands={"P1": [THIEF, *WAGER], "P2": ["Amethyst", "Amethyst"]},
        preset={"potions": {"P2": ["Wispwine"]}, "wards": {"P2": 1}},
        steps=[DRAW, play(GAMBLE)],
    )
    assert end["piles"]["P1"] == [THIEF] and end["wards"]["P2"] == 0
    assert end["potions"]["P2"] == ["Wispwine"] and len(end["hands"]["P1"]) == 5


def test_s8_9_the_target_picks_the_pair_in_a_pair_window() -> None:
    points = trace(
        hands={"P1": [THIEF, *WAGER], "P2": ["Amethyst", "Amethyst", "Bat Wing", "Bat Wing"]},
        preset={"potions": {"P2": ["Wispwine (spent)"]}},
        steps=[DRAW, play(GAMBLE), step("pair", P2=["pair Starflower", "pair Bat Wing"])],
    )
    pending = points[1]["pending"]
    assert pending["window"] == "pair" and pending["options"] == ["Amethyst", "Bat Wing"]
    assert points[1]["piles"]["P1"] == [] and THIEF not in points[1]["hands"]["P1"]
    end = points[2]
    assert end["rejected"]["P2"] == ["pair Starflower"]
    assert end["piles"]["P2"] == ["Bat Wing", "Bat Wing"]
    assert end["potions"]["P1"] == ["Wispwine (spent)"] and end["potions"]["P2"] == []
    assert end["piles"]["P1"] == [*WAGER, THIEF]


def test_s8_9_the_wager_is_four_other_cards_and_the_target_owns_the_potion() -> None:
    state = state_after(hands={"P1": [THIEF, *WAGER[:3]]}, preset={"potions": {"P2": ["Wispwine"]}},
                        steps=[DRAW])  # fmt: skip
    assert "wager" in refused(state, 0, GAMBLE)
    assert "does not own" in refused(state, 0, GAMBLE.replace("on P2", "on P3"))


def test_ambiguity_19_a_stolen_potion_is_not_ready_on_the_turn_of_the_theft() -> None:
    state = state_after(
        hands={"P1": [THIEF, *WAGER], "P2": ["Amethyst", "Amethyst"]},
        preset={"potions": {"P2": ["Petal Ward Elixir"]}},
        steps=[DRAW, play(GAMBLE.replace("Wispwine", "Petal Ward Elixir"))],
    )
    assert "not ready" in refused(state, 0, "perk Petal Ward Elixir")


def test_s8_general_spells_are_played_only_in_the_main_window() -> None:
    state = state_after(hands={"P1": ["Hex Seal (Benedicta)"]})
    assert "draw window" in refused(state, 0, "play Hex Seal (Benedicta) seal Witch's Pantry")
    assert accepted(state, 0, "deck") == "deck"
