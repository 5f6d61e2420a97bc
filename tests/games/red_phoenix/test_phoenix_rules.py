"""Each rule of the rules page (``red-phoenix.md``), replayed as a short script; the test names
carry the section (``s5_5``) or the numbered decision (``ambiguity_12``) they check."""

from __future__ import annotations

from typing import Any

import pytest

from games.protocol import ConfigError

from .helpers import decks, last, script, trace

P1_COINS = {"preset": {"players": {"P1": {"coins": 20}}}}


def hand(checkpoint: dict[str, Any], seat: str) -> list[str]:
    cards: list[str] = checkpoint["players"][seat]["hand"]
    return cards


# --- §2 setup -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "stack"), [(2, 6), (3, 6), (4, 7), (5, 8)])
def test_s2_market_stacks_by_player_count(players: int, stack: int) -> None:
    names = [f"P{i + 1}" for i in range(players)]
    first = trace(script([("P1", ["end"])], players=names))[0]
    assert first["market"]["salt"] == stack and first["market"]["cinnabar"] == stack
    assert first["market"]["acid_flask"] == 6
    assert first["supply"] == {
        "aqua_fortis": 5,
        "dusky_resin": 5,
        "hooch": 5,
        "incense": 5,
        "fools_gold": 5,
        "aqua_regia": 4,
        "aether": 5,
        "tincture": 4,
        "red_sol": 4,
        "elixir": 5,
        "greek_fire": 5,
        "gold": 4,
    }
    for entry in first["players"].values():
        assert (entry["coins"], entry["health"], entry["markers_free"]) in [(2, 10, 10)]


def test_s2_first_seat_from_the_script() -> None:
    checkpoint = trace(script([("P2", ["end"])], first="P2"))[0]
    assert checkpoint["active"] == "P1" and checkpoint["turn"] == 2


# --- §3 turns ------------------------------------------------------------------------------------


def test_s3_1_s9_4_ambiguity_30_round_limit_living_seats_share() -> None:
    end = last(script([("P1", ["end"]), ("P2", ["end"])], config={"max_rounds": 1}))
    assert end["game_over"] and end["end_reason"] == "round_limit"
    assert end["winners"] == ["P1", "P2"] and end["pending"] is None


def test_s3_3_take_spends_ap_for_coins_and_refuses_more_than_left() -> None:
    checkpoint = last(script([("P1", ["take 0", "take 4", "take ３", "take 2"])]))
    assert checkpoint["rejected"] == ["take 0", "take 4", "take ３"]
    assert (checkpoint["ap"], checkpoint["players"]["P1"]["coins"]) == (1, 8)


def test_s3_3_buy_checks_market_type_stock_and_coins() -> None:
    checkpoint = last(
        script(
            [("P1", ["buy aqua_fortis", "buy salt salt salt", "buy gold", "buy", "buy salt lead"])]
        )
    )
    assert checkpoint["rejected"] == ["buy aqua_fortis", "buy salt salt salt", "buy gold", "buy"]
    assert hand(checkpoint, "P1") == ["lead", "salt"] and checkpoint["market"]["salt"] == 5
    assert checkpoint["players"]["P1"]["coins"] == 0


def test_s3_3_buy_cannot_take_more_than_the_stack() -> None:
    data = script(
        [("P1", ["buy salt salt salt salt salt salt salt", "buy salt salt salt salt salt salt"])],
        **P1_COINS,
    )
    checkpoint = last(data)
    assert checkpoint["rejected"] == ["buy salt salt salt salt salt salt salt"]
    assert checkpoint["market"]["salt"] == 0


def test_s3_3_action_timeout_takes_coins_with_all_ap_left() -> None:
    checkpoint = last(script([("P1", ["take 1"]), ("P1", ["TIMEOUT"])]))
    assert checkpoint["timeout"] and checkpoint["players"]["P1"]["coins"] == 2 + 3 + 6


def test_ambiguity_4_action_timeout_end_option_just_ends() -> None:
    checkpoint = last(script([("P1", ["take 1"]), ("P1", [])], config={"action_timeout": "end"}))
    assert checkpoint["players"]["P1"]["coins"] == 5 and checkpoint["active"] == "P2"


def test_s3_3_end_takes_no_argument_and_unknown_actions_are_refused() -> None:
    checkpoint = last(script([("P1", ["end now", "dance", "", "END"])]))
    assert checkpoint["rejected"] == ["end now", "dance", ""] and checkpoint["move"] == "END"


def test_s3_2_used_items_are_cleared_for_every_seat_each_turn() -> None:
    data = script(
        [("P1", ["use hooch"]), ("P1", ["end"])],
        preset={"players": {"P1": {"hand": ["hooch"], "health": 5}}},
    )
    first, second = trace(data)
    assert first["players"]["P1"]["used"] == ["hooch"] and first["players"]["P1"]["health"] == 8
    assert second["players"]["P1"]["used"] == []


# --- §5 experiments --------------------------------------------------------------------------


def test_s5_1_ingredients_must_be_three_or_four_different_held_cards_of_level_one_to_three() -> (
    None
):
    data = script(
        [
            (
                "P1",
                [
                    "slow simple_decoction salt lead",
                    "slow simple_decoction salt salt lead",
                    "slow simple_decoction salt lead gold",
                    "slow simple_decoction salt lead vitriol",
                    "slow no_such_method salt lead cinnabar",
                    "slow simple_decoction salt lead cinnabar",
                ],
            )
        ],
        preset={"players": {"P1": {"hand": ["salt", "salt", "lead", "cinnabar", "gold"]}}},
    )
    checkpoint = last(data)
    assert len(checkpoint["rejected"]) == 5
    assert checkpoint["players"]["P1"]["lab"][0]["cards"] == ["cinnabar", "lead", "salt"]


def test_s5_1_s5_3_fast_needs_two_ap() -> None:
    data = script(
        [
            ("P1", ["take 2"]),
            (
                "P1",
                [
                    "fast simple_decoction salt lead cinnabar",
                    "slow simple_decoction salt lead cinnabar",
                ],
            ),
        ],
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"]}}},
    )
    checkpoint = last(data)
    assert checkpoint["rejected"] == ["fast simple_decoction salt lead cinnabar"]
    assert checkpoint["ap"] == 0


def test_ambiguity_8_health_cost_must_leave_one_health_and_is_not_damage() -> None:
    data = script(
        [
            (
                "P1",
                [
                    "fast blood_distillation aether elixir greek_fire",
                    "fast magnum_opus aether elixir salt",
                ],
            )
        ],
        preset={
            "players": {
                "P1": {"health": 3, "coins": 5, "hand": ["aether", "elixir", "greek_fire", "salt"]}
            }
        },
    )
    checkpoint = last(data)
    assert checkpoint["rejected"] == [
        "fast blood_distillation aether elixir greek_fire",
        "fast magnum_opus aether elixir salt",
    ]
    data["preset"]["players"]["P1"]["health"] = 4
    data["steps"] = [
        {"seat": "P1", "attempts": ["fast blood_distillation aether elixir greek_fire"]}
    ]
    checkpoint = trace(data)[0]
    assert checkpoint["move"] == "fast blood_distillation aether elixir greek_fire"
    assert checkpoint["players"]["P1"]["health"] == 1


def test_s6_1_ambiguity_16_no_free_marker_no_experiment() -> None:
    data = script(
        [("P1", ["slow simple_decoction salt lead cinnabar"])],
        config={"formula_markers": 1},
        preset={
            "players": {
                "P1": {"hand": ["salt", "lead", "cinnabar", "vitriol", "brimstone", "quicksilver"]}
            }
        },
    )
    assert last(data)["rejected"] == []
    data["steps"] = [
        {"seat": "P1", "attempts": ["slow simple_decoction salt lead cinnabar"]},
        {"seat": "P1", "attempts": ["slow simple_decoction vitriol brimstone quicksilver", "end"]},
    ]
    checkpoint = last(data)
    assert checkpoint["rejected"] == ["slow simple_decoction vitriol brimstone quicksilver"]
    assert checkpoint["players"]["P1"]["markers_free"] == 0


def test_s5_2_value_is_level_sum_plus_pending_boost_and_a_boost_ingredient_counts_its_level() -> (
    None
):
    data = script(
        [("P1", ["use incense"]), ("P1", ["slow simple_decoction tincture salt lead"])],
        preset={"players": {"P1": {"hand": ["incense", "tincture", "salt", "lead"]}}},
    )
    checkpoint = last(data)
    assert checkpoint["players"]["P1"]["lab"][0]["value"] == 3 + 1 + 1 + 2
    assert checkpoint["players"]["P1"]["lab"][0]["level"] == 3 and checkpoint["boost"] == 0


def test_s7_3_ambiguity_7_unused_boost_is_lost_at_the_end_of_the_turn() -> None:
    data = script(
        [("P1", ["use incense"]), ("P1", ["end"])],
        preset={"players": {"P1": {"hand": ["incense"]}}},
    )
    first, second = trace(data)
    assert first["boost"] == 2 and second["boost"] == 0


def test_ambiguity_6_several_slow_experiments_resolve_in_declaration_order() -> None:
    data = script(
        [
            ("P1", ["slow simple_decoction salt lead cinnabar"]),
            ("P1", ["slow simple_decoction vitriol brimstone quicksilver"]),
            ("P1", ["end"]),
            ("P2", ["end"]),
        ],
        decks=decks(I=["hooch@3", "fail:salt"]),
        preset={
            "players": {
                "P1": {"hand": ["salt", "lead", "cinnabar", "vitriol", "brimstone", "quicksilver"]}
            }
        },
    )
    checkpoint = last(data)
    assert checkpoint["drawn"] == [["I", "hooch@3"], ["I", "fail:salt"]]
    assert checkpoint["formulas"][0]["ingredients"] == ["cinnabar", "lead", "salt"]
    assert hand(checkpoint, "P1") == ["hooch", "salt"]


def test_ambiguity_27_an_empty_deck_reshuffles_its_pile_in_the_scripts_order() -> None:
    from games.red_phoenix.cards import house

    raw = json_house()
    raw["results"]["I"] = [
        {"id": "hooch@30", "kind": "success", "product": "hooch", "score": 30},
        {"id": "fail:salt", "kind": "simple", "gain": "salt"},
    ]
    hand_cards = ["salt", "lead", "cinnabar", "vitriol", "brimstone", "quicksilver"]
    data = script(
        [
            ("P1", ["fast hasty_fusion salt lead cinnabar"]),
            ("P1", ["end"]),
            ("P2", ["end"]),
            ("P1", ["fast simple_decoction vitriol brimstone quicksilver"]),
        ],
        card_set=raw,
        decks={
            "I": ["hooch@30", "fail:salt"],
            "II": house().deck("II"),
            "III": house().deck("III"),
        },
        reshuffles={"I": [["hooch@30", "fail:salt"]]},
        preset={"players": {"P1": {"hand": hand_cards}}},
    )
    checkpoint = last(data)
    assert checkpoint["drawn"] == [["I", "hooch@30"]] and checkpoint["decks"]["I"] == 1
    data["reshuffles"] = {"I": [["fail:salt", "fail:salt"]]}
    with pytest.raises(ConfigError, match=r"reshuffles\.I\[0\]"):
        trace(data)
    del data["reshuffles"]
    with pytest.raises(ConfigError, match=r"reshuffles\.I\[0\]"):
        trace(data)


def test_s5_4_drawing_stops_when_deck_and_pile_are_empty() -> None:
    from games.red_phoenix.cards import house

    raw = json_house()
    raw["results"]["I"] = [
        {"id": "hooch@3", "kind": "success", "product": "hooch", "score": 3},
        {"id": "gold@3", "kind": "success", "product": "gold", "score": 30},
    ]
    data = script(
        [
            ("P1", ["fast hasty_fusion salt lead cinnabar"]),
            ("P1", ["end"]),
            ("P2", ["end"]),
            ("P1", ["fast hasty_fusion salt lead cinnabar"]),
        ],
        card_set=raw,
        decks={"I": ["hooch@3", "gold@3"], "II": house().deck("II"), "III": house().deck("III")},
        reshuffles={"I": [["gold@3"]]},
        preset={
            "players": {"P1": {"hand": ["salt", "lead", "cinnabar", "salt", "lead", "cinnabar"]}}
        },
    )
    checkpoints = trace(data)
    assert checkpoints[0]["drawn"] == [["I", "hooch@3"], ["I", "gold@3"]]
    assert checkpoints[-1]["drawn"] == [["I", "gold@3"]]  # the pile held only gold@3
    assert checkpoints[-1]["decks"]["I"] == 0


def json_house() -> dict[str, Any]:
    import json

    from games.red_phoenix.cards import house_raw

    data: dict[str, Any] = json.loads(house_raw())
    return data


def test_s5_5_ambiguity_9_keep_timeout_keeps_the_best_ranked_card() -> None:
    data = script(
        [
            ("P1", ["fast gold_standard salt lead cinnabar"]),
            ("P1", ["keep", "keep 1 2", "keep 4", "TIMEOUT"]),
        ],
        decks=decks(I=["homunculus", "fail:salt"]),
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"]}}},
    )
    checkpoint = last(data)
    assert checkpoint["rejected"] == ["keep", "keep 1 2", "keep 4"] and checkpoint["timeout"]
    assert checkpoint["monsters"] == [] and checkpoint["discards"]["I"] == [
        "fail:salt",
        "homunculus",
    ]
    assert hand(checkpoint, "P1") == ["salt"]  # the simple failure's gain, no consolation


def test_s5_5_keep_timeout_prefers_a_met_success() -> None:
    data = script(
        [("P1", ["fast gold_standard salt lead cinnabar"]), ("P1", [])],
        decks=decks(I=["fail:salt", "fools_gold@6", "hooch@3"]),
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"]}}},
    )
    # an unmet success (rank 1) ranks above a simple failure (rank 2): nothing gained
    assert hand(last(data), "P1") == ["aqua_regia"]
    data["decks"] = decks(I=["fools_gold@6", "hooch@3"])
    assert hand(last(data), "P1") == ["hooch"]


def test_ambiguity_13_success_and_simple_failure_together_make_one_formula() -> None:
    data = script(
        [("P1", ["fast hasty_fusion salt lead cinnabar"])],
        decks=decks(I=["fail:vitriol", "hooch@3"]),
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"]}}},
    )
    checkpoint = last(data)
    assert hand(checkpoint, "P1") == ["hooch", "vitriol"]
    assert checkpoint["formulas"][0]["results"] == ["hooch@3"]
    assert checkpoint["players"]["P1"]["markers_free"] == 9


def test_ambiguity_11_simple_failure_nothing_option() -> None:
    data = script(
        [("P1", ["fast simple_decoction salt lead cinnabar"])],
        decks=decks(I=["fail:vitriol"]),
        config={"simple_failure": "nothing"},
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"]}}},
    )
    assert hand(last(data), "P1") == ["aqua_regia"]  # nothing gained: consolation


def test_s5_7_ambiguity_10_12_unmet_success_discarded_and_consolation() -> None:
    data = script(
        [("P1", ["fast simple_decoction salt lead cinnabar"])],
        decks=decks(I=["fools_gold@6"]),
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"]}}},
    )
    checkpoint = last(data)
    assert hand(checkpoint, "P1") == ["aqua_regia"] and checkpoint["supply"]["aqua_regia"] == 3
    assert checkpoint["market"]["salt"] == 6  # ingredients of a failed experiment go back


def test_s5_6_catastrophe_random_discards_take_the_scripts_picks() -> None:
    data = script(
        [("P1", ["fast simple_decoction aether elixir greek_fire"])],
        decks={
            **decks(),
            "III": ["quicksilver_poisoning"]
            + [c for c in decks()["III"] if c != "quicksilver_poisoning"],
        },
        picks=["lead", "salt"],
        preset={
            "players": {
                "P1": {"hand": ["aether", "elixir", "greek_fire", "salt", "lead", "cinnabar"]}
            }
        },
    )
    checkpoint = last(data)
    assert checkpoint["players"]["P1"]["health"] == 8 and hand(checkpoint, "P1") == [
        "aqua_regia",
        "cinnabar",
    ]
    data["picks"] = ["lead"]
    with pytest.raises(ConfigError, match=r"picks\[1\]"):
        trace(data)
    data["picks"] = ["lead", "gold"]
    with pytest.raises(ConfigError, match=r"picks\[1\]"):
        trace(data)


def test_s8_1_catastrophe_most_cards_hits_all_tied_rivals() -> None:
    data = script(
        [("P1", ["fast simple_decoction aether elixir greek_fire"])],
        players=("P1", "P2", "P3", "P4"),
        decks={
            **decks(),
            "III": ["phoenix_flare"] + [c for c in decks()["III"] if c != "phoenix_flare"],
        },
        preset={
            "players": {
                "P1": {"hand": ["aether", "elixir", "greek_fire"]},
                "P2": {"hand": ["salt", "lead"]},
                "P3": {"hand": ["salt", "lead"]},
                "P4": {"hand": ["salt"]},
            }
        },
    )
    checkpoint = last(data)
    health = {s: p["health"] for s, p in checkpoint["players"].items()}
    assert health == {"P1": 8, "P2": 8, "P3": 8, "P4": 10}


def test_s9_1_ambiguity_25_gold_ends_the_game_at_once() -> None:
    data = script(
        [("P1", ["fast hasty_fusion aether elixir greek_fire"])],
        decks={
            **decks(),
            "III": ["gold@8", "collapse"]
            + [c for c in decks()["III"] if c not in ("gold@8", "collapse")][:0]
            + [c for c in _without(decks()["III"], ["gold@8", "collapse"])],
        },
        preset={"players": {"P1": {"hand": ["aether", "elixir", "greek_fire"]}}},
    )
    checkpoint = last(data)
    assert (
        checkpoint["game_over"]
        and checkpoint["winners"] == ["P1"]
        and checkpoint["end_reason"] == "gold"
    )
    assert checkpoint["players"]["P1"]["health"] == 10 and hand(checkpoint, "P1") == ["gold"]
    with pytest.raises(ConfigError, match="ended"):
        trace({**data, "steps": [*data["steps"], {"seat": "P2", "attempts": ["end"]}]})


def _without(cards: list[str], gone: list[str]) -> list[str]:
    out = list(cards)
    for card in gone:
        out.remove(card)
    return out


def level3(*top: str) -> list[str]:
    return list(top) + _without(decks()["III"], list(top))


def test_s9_2_ambiguity_26_elimination_in_own_experiment_returns_the_cards() -> None:
    data = script(
        [("P1", ["fast hasty_fusion aether elixir greek_fire"])],
        decks={**decks(), "III": level3("collapse", "gold@8")},
        preset={
            "players": {
                "P1": {"health": 4, "hand": ["aether", "elixir", "greek_fire", "salt"]},
                "P2": {"coins": 3},
            }
        },
    )
    checkpoint = last(data)
    assert (
        checkpoint["game_over"]
        and checkpoint["winners"] == ["P2"]
        and checkpoint["end_reason"] == "last_alive"
    )
    p1 = checkpoint["players"]["P1"]
    assert (p1["alive"], p1["health"], p1["coins"], p1["hand"], p1["lab"], p1["markers_free"]) == (
        False,
        0,
        0,
        [],
        [],
        0,
    )
    assert checkpoint["supply"]["aether"] == 5 and checkpoint["market"]["salt"] == 6
    assert checkpoint["discards"]["III"] == ["collapse", "gold@8"]


def test_s9_3_s9_5_ambiguity_24_everyone_dies_at_once_and_shares() -> None:
    data = script(
        [("P1", ["fast simple_decoction aether elixir greek_fire"])],
        decks={**decks(), "III": level3("inferno")},
        preset={
            "players": {
                "P1": {"health": 3, "hand": ["aether", "elixir", "greek_fire"]},
                "P2": {"health": 1},
            }
        },
    )
    checkpoint = last(data)
    assert checkpoint["winners"] == ["P1", "P2"] and checkpoint["end_reason"] == "last_alive"


def test_s9_2_three_seats_an_eliminated_rival_leaves_and_play_goes_on() -> None:
    data = script(
        [("P1", ["use greek_fire P3"]), ("P1", ["end"])],
        players=("P1", "P2", "P3"),
        preset={
            "players": {
                "P1": {"hand": ["greek_fire"]},
                "P3": {"health": 3, "hand": ["salt", "hooch"]},
            }
        },
    )
    first, second = trace(data)
    assert not first["players"]["P3"]["alive"] and first["market"]["salt"] == 6
    assert first["supply"]["hooch"] == 5 and not first["game_over"]
    assert second["active"] == "P2"


# --- §6 formulas ------------------------------------------------------------------------------

FORMULA_STEPS: list[tuple[str, list[str]]] = [
    ("P1", ["fast simple_decoction salt lead cinnabar"]),
]
FORMULA_SETUP = {
    "decks": decks(I=["hooch@3"]),
    "preset": {
        "players": {
            "P1": {"coins": 20, "hand": ["salt", "lead", "cinnabar", "salt", "lead", "cinnabar"]},
            "P2": {"coins": 20},
        }
    },
}


def test_s6_2_ambiguity_14_reproduce_not_in_creation_turn_once_per_turn() -> None:
    data = script(
        [
            *FORMULA_STEPS,
            ("P1", ["reproduce F1", "end"]),
            ("P2", ["end"]),
            ("P1", ["reproduce f1"]),
            ("P1", ["reproduce F1", "reproduce F2", "end"]),
        ],
        **FORMULA_SETUP,
    )
    checkpoints = trace(data)
    assert checkpoints[1]["rejected"] == ["reproduce F1"]
    assert (
        hand(checkpoints[3], "P1") == ["hooch", "hooch"] and checkpoints[3]["supply"]["hooch"] == 3
    )
    assert checkpoints[4]["rejected"] == ["reproduce F1", "reproduce F2"]


def test_s6_2_ambiguity_14_reproduce_refused_when_no_product_is_left() -> None:
    data = script(
        [*FORMULA_STEPS, ("P1", ["end"]), ("P2", ["end"]), ("P1", ["reproduce F1", "end"])],
        decks=decks(I=["hooch@3"]),
        preset={
            "players": {
                "P1": {"hand": ["salt", "lead", "cinnabar", "salt", "lead", "cinnabar"]},
                "P2": {"hand": ["hooch", "hooch", "hooch", "hooch"]},
            }
        },
    )
    assert last(data)["rejected"] == ["reproduce F1"]


def test_s6_3_ambiguity_18_dissolve_keep_returns_cards_and_markers() -> None:
    data = script(
        [
            *FORMULA_STEPS,
            ("P2", []) if False else ("P1", ["end"]),
            ("P2", ["dissolve F1", "end"]),
            ("P1", ["dissolve F1 keep"]),
        ],
        **FORMULA_SETUP,
    )
    checkpoints = trace(data)
    assert checkpoints[2]["rejected"] == ["dissolve F1"]
    end = checkpoints[-1]
    assert end["formulas"] == [] and end["ap"] == 1 and end["players"]["P1"]["markers_free"] == 10
    assert hand(end, "P1") == ["cinnabar", "cinnabar", "hooch", "lead", "lead", "salt", "salt"]
    assert end["discards"]["I"] == ["hooch@3"]


def test_s6_4_ambiguity_17_licence_fee_to_creator_one_change_per_turn() -> None:
    data = script(
        [
            *FORMULA_STEPS,
            ("P1", ["license F1 3"]),
            ("P1", ["license F1 off", "license F1 0", "end"]),
            ("P2", ["buy salt lead cinnabar"]),
            ("P2", ["reproduce F1"]),
            ("P2", ["end"]),
            ("P1", ["license F1 off"]),
            ("P1", ["license F1 off", "end"]),
        ],
        **FORMULA_SETUP,
    )
    checkpoints = trace(data)
    assert checkpoints[2]["rejected"] == ["license F1 off", "license F1 0"]
    after = checkpoints[4]
    assert after["players"]["P2"]["coins"] == 20 - 3 - 3 and after["players"]["P1"]["coins"] == 23
    assert after["players"]["P2"]["knows"] == [] and hand(after, "P2") == ["hooch"]
    assert checkpoints[6]["formulas"][0]["license"] is None
    assert checkpoints[7]["rejected"] == ["license F1 off"]


# --- §7 items -----------------------------------------------------------------------------------


def test_ambiguity_31_healing_is_capped_at_starting_health() -> None:
    data = script(
        [("P1", ["use elixir"])], preset={"players": {"P1": {"hand": ["elixir"], "health": 8}}}
    )
    assert last(data)["players"]["P1"]["health"] == 10


def test_s7_1_ambiguity_21_coins_item_and_targets() -> None:
    data = script(
        [
            ("P1", ["use fools_gold P2", "use fools_gold"]),
            (
                "P1",
                ["use greek_fire", "use greek_fire P1", "use greek_fire P3", "use greek_fire p2"],
            ),
        ],
        preset={"players": {"P1": {"hand": ["fools_gold", "greek_fire"]}}},
    )
    first, second = trace(data)
    assert first["players"]["P1"]["coins"] == 6
    assert second["rejected"] == ["use greek_fire", "use greek_fire P1", "use greek_fire P3"]
    assert second["players"]["P2"]["health"] == 7


def test_s7_2_ambiguity_19_ward_is_not_usable_on_ones_turn() -> None:
    data = script([("P1", ["use aether", "end"])], preset={"players": {"P1": {"hand": ["aether"]}}})
    assert last(data)["rejected"] == ["use aether"]


def test_s7_1_steal_takes_random_cards_by_the_scripts_picks() -> None:
    data = script(
        [("P1", ["use red_sol P2"])],
        picks=["lead", "lead"],
        preset={"players": {"P1": {"hand": ["red_sol"]}, "P2": {"hand": ["lead", "lead", "salt"]}}},
    )
    checkpoint = last(data)
    assert hand(checkpoint, "P1") == ["lead", "lead"] and hand(checkpoint, "P2") == ["salt"]


def test_s7_1_steal_needs_a_card_to_take() -> None:
    data = script(
        [("P1", ["use aqua_fortis P2", "end"])],
        preset={"players": {"P1": {"hand": ["aqua_fortis"]}}},
    )
    assert last(data)["rejected"] == ["use aqua_fortis P2"]


def test_ambiguity_20_ward_counts_against_the_item_type_in_the_turn_in_progress() -> None:
    data = script(
        [("P1", ["use acid_flask P2"]), ("P2", ["ward"]), ("P1", ["use dusky_resin P2"])],
        preset={
            "players": {
                "P1": {"hand": ["acid_flask", "dusky_resin"]},
                "P2": {"hand": ["aether", "aether"]},
            }
        },
    )
    checkpoints = trace(data)
    assert checkpoints[0]["pending"] == {"seat": "P2", "kind": "ward", "deadline_s": 30}
    assert checkpoints[1]["players"]["P2"]["health"] == 10 and checkpoints[1]["players"]["P2"][
        "used"
    ] == ["aether"]
    assert checkpoints[2]["players"]["P2"]["health"] == 8  # no second ward this turn
    assert checkpoints[2]["pending"]["kind"] == "action"


def test_s8_2_ward_timeout_passes() -> None:
    data = script(
        [("P1", ["use acid_flask P2"]), ("P2", ["maybe", "TIMEOUT"])],
        preset={"players": {"P1": {"hand": ["acid_flask"]}, "P2": {"hand": ["aether"]}}},
    )
    checkpoint = last(data)
    assert checkpoint["rejected"] == ["maybe"] and checkpoint["players"]["P2"]["health"] == 9


def test_s7_1_damage_item_kills_a_monster_for_no_reward() -> None:
    data = script(
        [("P1", ["fast simple_decoction salt lead cinnabar"]), ("P1", ["use greek_fire M1"])],
        decks=decks(I=["homunculus"]),
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar", "greek_fire"]}}},
    )
    checkpoint = last(data)
    assert checkpoint["monsters"] == [] and checkpoint["discards"]["I"] == ["homunculus"]


# --- §8.3 monsters ------------------------------------------------------------------------------


def test_s8_3_ambiguity_22_monster_attacks_twice_more_then_is_discarded() -> None:
    steps = [("P1", ["fast simple_decoction salt lead cinnabar"]), ("P1", ["end"])]
    steps += [("P2", ["end"]), ("P1", ["end"])] * 2 + [("P2", ["end"])]
    data = script(
        steps,
        decks=decks(I=["homunculus"]),
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"]}}},
    )
    checkpoints = trace(data)
    health = [c["players"]["P1"]["health"] for c in checkpoints]
    assert health == [9, 9, 9, 8, 8, 7, 7]
    assert checkpoints[3]["monsters"][0]["attacks_left"] == 1 and checkpoints[5]["monsters"] == []


def test_monster_attacks_option_zero_discards_after_arrival() -> None:
    data = script(
        [("P1", ["fast simple_decoction salt lead cinnabar"])],
        decks=decks(I=["homunculus"]),
        config={"monster_attacks": 0},
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"]}}},
    )
    checkpoint = last(data)
    assert checkpoint["monsters"] == [] and checkpoint["players"]["P2"]["health"] == 9


# --- §10 trade ---------------------------------------------------------------------------------


def test_s10_ambiguity_29_trade_declined_by_timeout_and_the_offer_cap() -> None:
    data = script(
        [
            ("P1", ["trade P2 give 1"]),
            ("P2", ["TIMEOUT"]),
            ("P1", ["trade P2 get 1"]),
            ("P2", ["decline"]),
            ("P1", ["trade P2 give 1", "end"]),
        ],
    )
    checkpoints = trace(data)
    assert checkpoints[1]["timeout"] and checkpoints[1]["players"]["P1"]["coins"] == 2
    assert checkpoints[-1]["rejected"] == ["trade P2 give 1"]


def test_s10_trade_grammar_refusals() -> None:
    data = script(
        [
            (
                "P1",
                [
                    "trade P1 give 1",
                    "trade P9 give 1",
                    "trade P2",
                    "trade P2 get 1 give 1",
                    "trade P2 give",
                    "trade P2 give 1 2",
                    "trade P2 give F1",
                    "trade P2 give 5",
                    "trade P2 note hello",
                    "trade P2 give salt",
                    "trade P2 give 1 get salt",
                    "trade P2 give 2 note a deal GIVE",
                ],
            )
        ],
        config={"max_trade_offers": 3},
    )
    checkpoint = last(data)
    assert len(checkpoint["rejected"]) == 11
    assert checkpoint["pending"]["kind"] == "trade_response"


def test_ambiguity_15_only_the_creator_teaches_and_the_receiver_needs_a_marker() -> None:
    data = script(
        [
            *FORMULA_STEPS,
            ("P1", ["trade P2 give F1"]),
            ("P2", ["accept"]),
            ("P1", ["end"]),
            ("P2", ["trade P1 give F1", "end"]),
        ],
        **FORMULA_SETUP,
    )
    checkpoints = trace(data)
    assert checkpoints[2]["formulas"][0]["knowers"] == ["P1", "P2"]
    assert checkpoints[-1]["rejected"] == ["trade P1 give F1"]
    setup = {**FORMULA_SETUP, "config": {"formula_markers": 1}}
    data = script([*FORMULA_STEPS, ("P1", ["trade P2 give F1"])], **setup)
    # P2 knows nothing yet: one marker is enough
    assert last(data)["pending"]["kind"] == "trade_response"
    data = script(
        [
            ("P1", ["slow simple_decoction salt lead cinnabar"]),
            ("P1", ["end"]),
            ("P2", ["slow simple_decoction salt lead cinnabar"]),
            ("P2", ["end"]),
            ("P1", ["trade P2 give F1", "end"]),
        ],
        config={"formula_markers": 1},
        decks=decks(I=["hooch@3", "hooch@3"]),
        preset={"players": {s: {"hand": ["salt", "lead", "cinnabar"]} for s in ("P1", "P2")}},
    )
    assert last(data)["rejected"] == ["trade P2 give F1"]  # P2's one marker is on its experiment


# --- §11 hand limit -------------------------------------------------------------------------------


def test_s11_ambiguity_28_end_of_turn_discard_default_lowest_level_first() -> None:
    data = script(
        [("P1", ["end"]), ("P1", ["discard salt", "discard hooch hooch", "TIMEOUT"])],
        config={"hand_limit": 2},
        preset={"players": {"P1": {"hand": ["hooch", "lead", "salt", "elixir"]}}},
    )
    first, second = trace(data)
    assert first["pending"] == {"seat": "P1", "kind": "discard", "deadline_s": 60}
    assert second["rejected"] == ["discard salt", "discard hooch hooch"]
    assert hand(second, "P1") == ["elixir", "hooch"] and second["active"] == "P2"


def test_s11_discard_accepts_menu_values_and_case() -> None:
    data = script(
        [("P1", ["end"]), ("P1", ["SALT,salt#2"])],
        config={"hand_limit": 1},
        preset={"players": {"P1": {"hand": ["salt", "salt", "lead"]}}},
    )
    assert hand(last(data), "P1") == ["lead"]


# --- §12.2 grammar and script errors --------------------------------------------------------------


def test_s12_2_keywords_and_ids_are_case_insensitive() -> None:
    data = script(
        [("P1", ["BUY Salt LEAD"]), ("P1", ["Use Acid_Flask p2"])],
        preset={"players": {"P1": {"coins": 4, "hand": ["acid_flask"]}}},
    )
    checkpoint = last(data)
    assert checkpoint["players"]["P2"]["health"] == 9


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"format": "red-phoenix-script/9"}, "format"),
        ({"players": ["P1"]}, "players"),
        ({"players": ["P1", "p1"]}, "players"),
        ({"first": "P7"}, "first"),
        ({"decks": {"I": [], "II": [], "III": []}}, "decks.I"),
        ({"config": {"hand_limit": 0}}, "config.hand_limit"),
        ({"config": {"colour": 1}}, "config.colour"),
        ({"extra": 1}, "extra"),
        ({"steps": [{"seat": "P2", "attempts": ["end"]}]}, "steps[0].seat"),
        ({"steps": [{"seat": "P1", "attempts": ["end", "end"]}]}, "steps[0].attempts[1]"),
        ({"steps": [{"seat": "P1", "attempts": ["TIMEOUT", "end"]}]}, "steps[0].attempts[1]"),
        ({"preset": {"players": {"P1": {"hand": ["gold"] * 5}}}}, "preset.players.P1.hand"),
        ({"preset": {"players": {"P1": {"mood": 1}}}}, "preset.players.P1.mood"),
    ],
)
def test_script_errors_name_the_field(change: dict[str, Any], field: str) -> None:
    data = {**script([("P1", ["end"])]), **change}
    with pytest.raises(ConfigError) as error:
        trace(data)
    assert error.value.field == field


# --- more of §8 and §9 ---------------------------------------------------------------------------


def test_ambiguity_23_ward_windows_clockwise_from_the_start_then_losses_together() -> None:
    data = script(
        [
            ("P2", ["fast simple_decoction aether elixir greek_fire"]),
            ("P3", ["pass"]),
            ("P1", ["ward"]),
        ],
        players=("P1", "P2", "P3"),
        first="P2",
        decks={**decks(), "III": level3("inferno")},
        preset={
            "players": {
                "P1": {"hand": ["aether"]},
                "P2": {"hand": ["aether", "elixir", "greek_fire"]},
                "P3": {"hand": ["aether"]},
            }
        },
    )
    checkpoints = trace(data)
    assert checkpoints[0]["pending"]["seat"] == "P3"  # P2 used its Aether as an ingredient
    assert checkpoints[1]["pending"]["seat"] == "P1"
    assert checkpoints[1]["players"]["P3"]["health"] == 10  # nothing applied yet
    health = {s: p["health"] for s, p in checkpoints[2]["players"].items()}
    assert health == {"P1": 10, "P2": 7, "P3": 9}


def test_s9_2_a_formula_outlives_its_eliminated_creator_without_creator_or_licence() -> None:
    data = script(
        [
            *FORMULA_STEPS,
            ("P1", ["license F1 2"]),
            ("P1", ["trade P2 give F1"]),
            ("P2", ["accept"]),
            ("P1", ["end"]),
            ("P2", ["use greek_fire P1"]),
        ],
        players=("P1", "P2", "P3"),
        decks=decks(I=["hooch@3"]),
        preset={
            "players": {
                "P1": {"health": 3, "hand": ["salt", "lead", "cinnabar"]},
                "P2": {"hand": ["greek_fire"]},
            }
        },
    )
    checkpoint = last(data)
    assert not checkpoint["players"]["P1"]["alive"]
    (formula,) = checkpoint["formulas"]
    assert (formula["creator"], formula["license"], formula["knowers"]) == (None, None, ["P2"])


def test_s9_2_a_formula_nobody_knows_any_more_is_discarded() -> None:
    data = script(
        [*FORMULA_STEPS, ("P1", ["end"]), ("P2", ["use greek_fire P1"])],
        players=("P1", "P2", "P3"),
        decks=decks(I=["hooch@3"]),
        preset={
            "players": {
                "P1": {"health": 3, "hand": ["salt", "lead", "cinnabar"]},
                "P2": {"hand": ["greek_fire"]},
            }
        },
    )
    checkpoint = last(data)
    assert checkpoint["formulas"] == [] and checkpoint["discards"]["I"] == ["hooch@3"]
    assert checkpoint["market"]["salt"] == 6


def test_s3_4_an_active_seat_killed_by_its_own_monster_ends_its_turn_and_the_monster_goes() -> None:
    data = script(
        [
            ("P1", ["fast simple_decoction salt lead cinnabar"]),
            ("P1", ["end"]),
            ("P1", []),
            ("P2", ["end"]),
            ("P3", ["end"]),
            ("P1", ["end"]),
        ],
        players=("P1", "P2", "P3"),
        config={"hand_limit": 1},
        decks=decks(I=["homunculus"]),
        preset={
            "players": {
                "P1": {"health": 2, "hand": ["salt", "lead", "cinnabar", "hooch", "elixir"]}
            }
        },
    )
    checkpoints = trace(data)
    assert checkpoints[0]["players"]["P1"]["health"] == 1
    assert checkpoints[1]["pending"]["kind"] == "discard"  # the end-of-turn discard of turn 1
    end = checkpoints[-1]
    assert not end["players"]["P1"]["alive"] and end["monsters"] == []
    assert end["active"] == "P2" and end["pending"] == {
        "seat": "P2",
        "kind": "action",
        "deadline_s": 60,
    }
    assert end["discards"]["I"] == ["homunculus"]


def test_ambiguity_3_an_empty_supply_produces_nothing_and_consoles() -> None:
    data = script(
        [("P1", ["fast simple_decoction salt lead cinnabar"])],
        decks=decks(I=["hooch@3"]),
        preset={
            "players": {"P1": {"hand": ["salt", "lead", "cinnabar"]}, "P2": {"hand": ["hooch"] * 5}}
        },
    )
    checkpoint = last(data)
    assert checkpoint["supply"]["hooch"] == 0 and checkpoint["formulas"][0]["products"] == ["hooch"]
    assert hand(checkpoint, "P1") == ["aqua_regia"]


def test_ambiguity_2_only_the_acid_flask_item_is_sold() -> None:
    first = trace(script([("P1", ["buy hooch", "buy aether", "buy acid_flask"])]))[0]
    assert first["rejected"] == ["buy hooch", "buy aether"]
    assert set(first["market"]) == {
        "salt",
        "brimstone",
        "quicksilver",
        "vitriol",
        "saltpeter",
        "lead",
        "cinnabar",
        "acid_flask",
    }


def test_ambiguity_5_each_action_is_a_window_with_its_own_deadline() -> None:
    from games.red_phoenix import GAME

    from .helpers import states

    data = script([("P1", ["take 1"]), ("P1", ["end"])])
    first, second = states(data)
    (one,) = GAME.requests(first)
    (two,) = GAME.requests(second)
    assert (one.kind, one.seat, one.clock, one.timeout_s) == ("action", 0, None, 60)
    assert (two.kind, two.seat, two.clock, two.timeout_s) == ("action", 1, None, 60)
    values = {c.value for c in one.choices}
    assert {"take 1", "take 2", "end"} <= values and "take 3" not in values


def test_s12_1_every_window_has_its_own_deadline_of_its_timer_kind() -> None:
    from games.red_phoenix import GAME

    from .helpers import states

    data = script(
        [
            ("P1", ["fast gold_standard salt lead cinnabar"]),
            ("P1", ["keep 1"]),
            ("P1", ["use acid_flask P2"]),
            ("P2", ["pass"]),
            ("P1", ["end"]),
        ],
        config={"hand_limit": 1},
        decks=decks(I=["hooch@3", "fail:salt"]),
        preset={
            "players": {
                "P1": {"hand": ["salt", "lead", "cinnabar", "acid_flask", "elixir"]},
                "P2": {"hand": ["aether"]},
            }
        },
    )
    requests = [GAME.requests(state)[0] for state in states(data)]
    kinds = [(r.kind, r.timer, r.clock, r.timeout_s) for r in requests]
    assert kinds == [
        ("keep", "turn", None, 60),
        ("action", "turn", None, 60),
        ("ward", "reaction", None, 30),
        ("action", "turn", None, 60),
        ("discard", "turn", None, 60),
    ]


def test_s5_5_a_method_keeping_one_to_two_opens_a_multi_select_keep() -> None:
    from games.red_phoenix import GAME

    from .helpers import states

    raw = json_house()
    raw["methods"].append(
        {
            "id": "twin_retort",
            "name": "Twin Retort",
            "draw": 3,
            "keep_min": 1,
            "keep_max": 2,
            "coins": 0,
            "health": 0,
        }
    )
    data = script(
        [("P1", ["fast twin_retort salt lead cinnabar"]), ("P1", ["keep 1 2 3", "3,1"])],
        card_set=raw,
        decks=decks(I=["hooch@3", "fail:lead", "incense@4"]),
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar", "vitriol"]}}},
    )
    first = states(data)[0]
    (request,) = GAME.requests(first)
    assert (request.kind, request.min_choices, request.max_choices) == ("keep", 1, 2)
    assert [c.value for c in request.choices] == ["1", "2", "3"]
    checkpoint = last(data)
    assert checkpoint["rejected"] == ["keep 1 2 3"] and checkpoint["move"] == "3,1"
    assert hand(checkpoint, "P1") == ["hooch", "vitriol"]
    assert checkpoint["discards"]["I"] == ["fail:lead", "incense@4"]  # unmet incense@4 (value 3)
