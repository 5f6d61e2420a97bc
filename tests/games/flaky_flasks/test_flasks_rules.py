"""Every rule of the rules page, by section (names carry the section numbers)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from games.flaky_flasks.content import HOUSE, HOUSE_JSON
from games.flaky_flasks.rules import best_panel, payout, qualifies, run_channel, sellable

from .helpers import STARTER, step, trace, work

C = HOUSE


def panel(pid: str) -> Any:
    return C.panels[pid]


# --- §2.1-§2.3 symbols and tiles ---------------------------------------------------------------


def test_s2_3_catalyst_then_heater_is_the_seeds_example() -> None:
    assert run_channel(C, ["catalyst", "heater"], ["P1G", "P1G"], False) == (["P4G", "P4G"], 0)
    assert run_channel(C, ["catalyst", "heater"], ["T1R"], False) == (["T2R"], 0)


def test_s2_1_values_are_clamped_after_every_tile() -> None:
    assert run_channel(C, ["crucible"], ["P8B"], False)[0] == ["P12B"]
    assert run_channel(C, ["crucible", "amplifier"], ["P5B"], False)[0] == ["P12B"]


def test_s2_3_split_echo_colour_shape_and_filters() -> None:
    assert run_channel(C, ["splitter"], ["S5R", "S1G"], False)[0] == ["S3R", "S2R", "S1G"]
    assert run_channel(C, ["echo"], ["T2B"], False)[0] == ["T2B", "T2B"]
    assert run_channel(C, ["prism@G", "shaper@P"], ["T2B"], False)[0] == ["P2G"]
    assert run_channel(C, ["kiln", "press"], ["T1R", "S1R", "P1R"], False)[0] == [
        "T3R",
        "S3R",
        "P1R",
    ]
    # a split symbol goes on through the later tiles
    assert run_channel(C, ["splitter", "heater"], ["S4R"], False)[0] == ["S3R", "S3R"]


def test_s2_3_dynamo_gives_charge_once_per_prop_and_a_jam_stops_every_tile() -> None:
    assert run_channel(C, ["dynamo", "dynamo"], ["T1R", "T1R", "T1R"], False) == (["T1R"] * 3, 2)
    assert run_channel(C, ["dynamo", "kiln"], ["T1R"], True) == (["T1R"], 0)


# --- §2.4 panels -------------------------------------------------------------------------------


def test_s2_4_balanced_elixir_checks_the_seeds_examples() -> None:
    balanced = panel("balanced")
    assert qualifies(balanced, ["S2R", "T1R", "P1R"], "balanced")
    assert payout(balanced, ["S2R", "T1R", "P1R"]) == (4, 4)
    assert payout(balanced, ["S2R", "S2R", "S4R"]) == (8, 8)
    assert not qualifies(balanced, ["S2R"] * 4, "balanced")  # 4 identical symbols
    assert not qualifies(balanced, ["S6R", "S6G", "S1B"], "balanced")  # sum 13 > 12 (AMBIGUITY 28)


def test_s2_4_every_house_panel_condition() -> None:
    assert qualifies(panel("tonic"), ["T1R", "T5B"], "balanced")
    assert not qualifies(panel("tonic"), ["T1R", "S5B"], "balanced")
    assert qualifies(panel("tricolor"), ["T1R", "T1G", "T1B"], "balanced")
    assert qualifies(panel("mono"), ["T1R", "S1R", "P9R"], "balanced")
    assert qualifies(panel("pyramid"), ["T1R"] * 4, "balanced") and not qualifies(
        panel("pyramid"), ["T1R"] * 3, "x"
    )
    assert qualifies(panel("cube"), ["S1R", "S2G", "S3B", "S4R"], "balanced")
    assert qualifies(panel("twilight"), ["T1R"] * 4, "dark") and not qualifies(
        panel("twilight"), ["T1R"] * 4, "light"
    )
    assert qualifies(panel("dawn"), ["T1R"] * 4, "light")
    assert qualifies(panel("grand"), ["T1R", "S1G", "P1B", "T1R", "T1R"], "balanced")
    assert qualifies(panel("dozen"), ["T12R", "T12G"], "balanced") and payout(
        panel("dozen"), ["T12R", "T12G"]
    ) == (12, 36)
    assert qualifies(panel("royal"), ["T12R", "T1G"], "balanced") and payout(
        panel("royal"), ["T12R", "T1G"]
    ) == (10, 23)
    assert qualifies(panel("equinox"), ["T1R"] * 5, "balanced") and payout(
        panel("equinox"), ["T1R"] * 5
    ) == (0, 10)
    assert payout(panel("hoard"), ["T1R"] * 8) == (8, 16)
    assert not qualifies(panel("hoard"), ["T1R"] * 7, "balanced")


def test_s8_4_best_panel_is_highest_fame_then_coins_then_board_order() -> None:
    assert best_panel([("a", 1, 5), ("b", 9, 5), ("c", 20, 4)]) == ("b", 9, 5)
    assert best_panel([("a", 3, 5), ("b", 3, 5)]) == ("a", 3, 5)
    assert best_panel([]) is None
    table = {"panels": ["tonic", "balanced", "tricolor"], "fumes": [0, 0]}
    assert [p for p, _, _ in sellable(C, table, ["T1R", "T1R"])] == ["tonic"]


def _round_start(rounds: int, round_: int) -> dict[str, Any]:
    steps = [work(P1=["done"], P2=["done"])]
    return trace(steps, config={"rounds": rounds}, start={"round": round_})[0]


@pytest.mark.parametrize(
    ("rounds", "round_", "panels", "tiers"),
    [
        (6, 2, 3, ["1"]),
        (6, 3, 5, ["1", "2"]),
        (6, 4, 6, ["1", "2"]),
        (6, 5, 8, ["1", "2", "3"]),
        (6, 6, 9, ["1", "2", "3"]),
        (9, 4, 4, ["1", "2"]),
        (9, 7, 7, ["1", "2", "3"]),
        (12, 5, 4, ["1", "2"]),
        (12, 9, 7, ["1", "2", "3"]),
        (12, 12, 9, ["1", "2", "3"]),
    ],
)
def test_s2_4_unlock_schedule_by_rounds_option(
    rounds: int, round_: int, panels: int, tiers: list[str]
) -> None:
    checkpoint = _round_start(rounds, round_)
    assert len(checkpoint["panels"]) == panels
    assert sorted(checkpoint["river"]) == tiers == sorted(checkpoint["tableau"])


# --- §4 round structure, §5 setup ---------------------------------------------------------------


def test_s4_turn_2_order_is_reversed_and_market_uses_clockwise_order() -> None:
    presets = {s: {"collection": [*STARTER, "moth"]} for s in ("A", "B", "C")}
    decks = {"1": {s: ["moth"] for s in ("A", "B", "C")}}
    steps = [
        step("hex", B=["pass"]),
        step("hex", C=["pass"]),
        step("hex", A=["pass"]),
    ]
    cps = trace(
        steps,
        players=("A", "B", "C"),
        first_player="B",
        decks=decks,
        start={"round": 1, "players": presets},
    )
    assert [cp["next_prompted"] for cp in cps] == [["C"], ["A"], ["A", "B", "C"]]


def test_s5_setup_prompts_a_player_with_a_tile_that_has_a_setting() -> None:
    presets = {"P1": {"channels": [["prism@R"]]}, "P2": {}}
    cps = trace([step("setup", P1=["layout 2=prism@b"])], start={"round": 1, "players": presets})
    assert cps[0]["prompted"] == ["P1"]
    assert cps[0]["players"]["P1"]["channels"] == [[], ["prism@B"], [], []]
    assert cps[0]["accepted"]["P1"] == ["layout 2=prism@b"]


@pytest.mark.parametrize(
    "bad",
    [
        "layout 1=kiln",  # not owned
        "layout 5=pipe",  # no channel 5
        "layout 1=pipe,pipe,pipe,pipe",  # too long and not owned
        "layout 1=pipe@R",  # no setting on a pipe
        "layout 1=pipe 1=press",  # channel named twice
        "layout 1",
        "layout x=pipe",
        "shuffle",
    ],
)
def test_s5_3_illegal_layouts_are_refused(bad: str) -> None:
    presets = {"P1": {"channels": [["pipe", "press"]]}}
    cps = trace([step("setup", P1=[bad, "keep"])], start={"round": 1, "players": presets})
    assert cps[0]["rejected"]["P1"] == [bad]
    assert cps[0]["players"]["P1"]["channels"] == [["pipe", "press"], [], [], []]


def test_s5_4_a_layout_leaves_unplaced_tiles_spare() -> None:
    presets = {"P1": {"channels": [["pipe", "press"]]}}
    cps = trace([step("setup", P1=["layout"])], start={"round": 1, "players": presets})
    assert cps[0]["players"]["P1"]["channels"] == [[], [], [], []]
    assert cps[0]["players"]["P1"]["spare"] == ["pipe", "press"]


# --- §6.2 Ritual --------------------------------------------------------------------------------


def _ritual(
    collections: dict[str, list[str]], decks: dict[str, list[str]], steps: list[Any], **extra: Any
) -> list[Any]:
    presets = {s: {"collection": c} for s, c in collections.items()}
    names = tuple(collections)
    return trace(
        steps,
        players=names,
        first_player=names[0],
        decks={"1": decks},
        start={"round": 1, "players": presets},
        **extra,
    )


def test_s6_2_sage_counter_spends_charge_and_keeps_the_card() -> None:
    cols = {"P1": [*STARTER, "moth", "static"], "P2": [*STARTER, "sage", "sunbloom"]}
    decks = {"P1": ["moth"], "P2": ["sunbloom", "sage"]}
    cps = _ritual(
        cols,
        decks,
        [
            step("hex", P1=["hex moth P2"]),  # P2 has no Charge: no counter window
            step("hex", P2=["hex sunbloom"]),  # P2 gains 2 Charge; P1 has no counter
        ],
    )
    assert cps[0]["next"] == "R1.T1.hex2"
    assert cps[0]["players"]["P2"]["hand"] == ["sunbloom", "sage", "ember", "viper"]
    assert cps[1]["players"]["P2"]["charge"] == 2
    assert cps[1]["fumes"] == {"light": 2, "dark": 1}


def test_s6_2_three_counters_cancel_the_hex() -> None:
    cols = {"P1": [*STARTER, "moth", "candle"], "P2": [*STARTER, "candle", "candle"]}
    decks = {"P1": ["moth", "candle"], "P2": ["candle", "candle"]}
    cps = _ritual(
        cols,
        decks,
        [
            step("hex", P1=["hex moth P2"]),
            step("counter", P2=["counter candle"]),
            step("counter", P1=["counter candle"]),
            step("counter", P2=["counter candle"]),
        ],
    )
    last = cps[-1]
    # 3 counters: the top one resolves (+1 light) and cancels P1's candle; P2's first candle
    # then resolves (+1 light) and cancels the Hex: no dark fume, P2 keeps its last card
    assert last["fumes"] == {"light": 2, "dark": 0}
    assert last["players"]["P2"]["hand"] == ["ember", "viper", "frost"]
    assert last["next"] == "R1.T1.work"


def test_s6_2_prompt_mode_all_asks_everyone_for_hexes_and_counters() -> None:
    cps = trace([step("hex", P1=["pass"]), step("hex", P2=["pass"])], config={"prompt_mode": "all"})
    assert [cp["next"] for cp in cps] == ["R1.T1.hex2", "R1.T1.work"]


def test_s6_2_nightshade_hits_every_other_player_and_rust_mist_jams() -> None:
    cols = {"A": [*STARTER, "nightshade", "rustmist"], "B": STARTER, "C": STARTER}
    decks = {"A": ["nightshade", "rustmist"], "B": [], "C": []}
    cps = _ritual(
        cols,
        decks,
        [
            step("hex", A=["hex nightshade"]),
            step("hex", A=["hex rustmist", "hex rustmist B"]),
            work(A=["done"], B=["play ember 1", "prop 1", "done"], C=["done"]),
        ],
    )
    assert cps[0]["fumes"]["dark"] == 2
    assert cps[0]["players"]["B"]["hand"] == ["ember", "viper", "frost", "brick"]
    assert cps[0]["players"]["C"]["discard"] == ["moss"]
    assert cps[1]["players"]["B"]["jammed"] is True
    assert cps[1]["rejected"]["A"] == ["hex rustmist"]
    assert cps[2]["players"]["B"]["jammed"] is False  # jams end with the turn


def test_s6_2_eclipse_swaps_the_fumes() -> None:
    cols = {"P1": [*STARTER, "eclipse"], "P2": STARTER}
    cps = _ritual(cols, {"P1": ["eclipse"], "P2": []}, [step("hex", P1=["hex eclipse"])])
    assert cps[0]["fumes"] == {"light": 0, "dark": 0}


# --- §6.3 work ----------------------------------------------------------------------------------


def test_s6_3_refusals_in_work() -> None:
    cps = trace(
        [
            work(
                P1=[
                    "brew",
                    "prop 1",
                    "play copper 2",
                    "prop 2",
                    "play ember 5",
                    "play ember 1",
                    "prop 1",
                    "play viper 2",
                    "boost T1R",
                    "brew",
                    "brew",
                ],
                P2=["done", "done"],
            )
        ],
        decks={"1": {"P1": ["ember", "viper", "copper"], "P2": []}},
    )
    cp = cps[0]
    assert cp["accepted"]["P1"] == ["play copper 2", "play ember 1", "prop 1", "brew"]
    assert cp["rejected"]["P1"] == [
        "brew",
        "prop 1",
        "prop 2",
        "play ember 5",
        "play viper 2",
        "boost T1R",
        "brew",
    ]
    assert cp["rejected"]["P2"] == ["done"]


def test_s6_3_2_a_broken_path_voids_the_symbols() -> None:
    cp = trace(
        [work(P1=["play ember 2", "prop 2", "done"], P2=["done"])], decks={"1": {"P1": ["ember"]}}
    )[0]
    assert cp["players"]["P1"]["cauldron"] == []
    assert cp["players"]["P1"]["slots"] == [None, None, None, None]


def test_s6_4_spoils_leave_the_slot_and_unpropagated_cards_stay() -> None:
    presets = {"P1": {"collection": [*STARTER, "salamander"]}}
    cp = trace(
        [work(P1=["play salamander 2", "play ember 3", "done"], P2=["done"])],
        decks={"1": {"P1": ["salamander", "ember"]}},
        start={"round": 1, "players": presets},
    )[0]
    assert cp["players"]["P1"]["slots"] == [None, None, "ember", None]
    assert "salamander" in cp["players"]["P1"]["discard"]


def test_s6_3_2_sunstone_bonus_while_light_is_dominant() -> None:
    presets = {"P1": {"collection": [*STARTER, "sunstone"]}}
    cp = trace(
        [work(P1=["play sunstone 1", "prop 1", "done"], P2=["done"])],
        decks={"12": {"P1": ["sunstone"]}},
        start={"round": 12, "fumes": {"light": 1}, "players": presets},
    )[0]
    assert cp["players"]["P1"]["cauldron"] == ["T7R", "T8R"]


# --- §7 Cleanup, §8 Market ------------------------------------------------------------------------


def test_s8_buy_pays_temporary_coins_first_refills_and_trashes() -> None:
    presets = {"P1": {"coins": 10}}
    steps = [
        work(P1=["play copper 2", "play copper 3", "done"], P2=["done"]),
        work(P1=["done"], P2=["done"]),
        step("market", P1=["buy silver trash copper"]),
    ]
    cps = trace(
        steps,
        decks={"1": {"P1": ["copper", "copper"]}},
        start={"round": 1, "players": presets},
        config={"bargain": False},
    )
    assert cps[1]["players"]["P1"]["temp_coins"] == 2
    after = cps[2]["players"]["P1"]
    assert (after["coins"], after["temp_coins"]) == (7, 0)
    assert after["deck"].count("copper") == 2 and after["deck"].count("silver") == 1
    assert cps[2]["river"]["1"] == ["glowcap", "silver", "silver", "glowcap"]  # leftmost, refilled


def test_s14_2_an_empty_tier_deck_leaves_the_position_empty() -> None:
    content = copy.deepcopy(HOUSE_JSON)
    for card in content["cards"]:
        if card["tier"] == 1:
            card["copies"] = 1 if card["id"] == "silver" else 0
    presets = {"P1": {"coins": 100}}
    steps = [
        work(P1=["done"], P2=["done"]),
        work(P1=["done"], P2=["done"]),
        step("market", P1=["buy silver"]),
    ]
    cps = trace(
        steps,
        start={"round": 1, "players": presets},
        config={"river_size": 2, "bargain": False},
        content=content,
    )
    assert cps[0]["river"]["1"] == ["silver", None]
    assert cps[-1]["river"]["1"] == [None, None]


def test_s8_5_bought_tiles_fill_the_lowest_empty_channel_then_spare() -> None:
    presets = {"P1": {"coins": 100, "channels": [["pipe"], ["elbow"], ["elbow"], ["elbow"]]}}
    steps = [
        step("setup", P1=["keep"]),
        work(P1=["done"], P2=["done"]),
        work(P1=["done"], P2=["done"]),
        step("market", P1=["buy prism"]),
    ]
    cps = trace(
        steps,
        start={"round": 1, "players": presets},
        config={"bargain": False},
        tableau={"1": ["prism"]},
    )
    assert cps[-1]["players"]["P1"]["spare"] == ["prism"]


def test_s8_2_a_player_with_nothing_to_do_is_passed_without_a_window() -> None:
    cps = trace([work(P1=["done"], P2=["done"]), work(P1=["done"], P2=["done"])])
    assert cps[-1]["next"] == "R1.offer1"


# --- §9 Bargain ---------------------------------------------------------------------------------


def test_s9_4_tiles_move_one_at_a_time_so_a_freed_channel_is_refilled() -> None:
    presets = {
        "P1": {"channels": [["pipe"], ["kiln"], [], []]},
        "P2": {"channels": [["pipe"], [], [], []], "coins": 3},
    }
    steps = [
        step("setup", P1=["keep"]),
        work(P1=["done"], P2=["done"]),
        work(P1=["done"], P2=["done"]),
        step("offer", P1=["offer P2 give tile:kiln get tile:pipe 2c"]),
        step("reply", P2=["accept"]),
    ]
    cps = trace(steps, start={"round": 1, "players": presets})
    p1, p2 = cps[-1]["players"]["P1"], cps[-1]["players"]["P2"]
    assert p1["channels"] == [["pipe"], ["pipe"], [], []] and p1["coins"] == 2
    assert p2["channels"] == [[], ["kiln"], [], []] and p2["coins"] == 1


def test_s9_option_bargain_false_skips_the_phase() -> None:
    cps = trace(
        [work(P1=["done"], P2=["done"]), work(P1=["done"], P2=["done"])], config={"bargain": False}
    )
    assert cps[-1]["next"] == "R2.T1.work" and cps[-1]["round"] == 2


def test_s9_1_no_bargain_after_the_tier_3_unlock() -> None:
    cps = trace(
        [work(P1=["done"], P2=["done"]), work(P1=["done"], P2=["done"])], start={"round": 9}
    )
    assert cps[-1]["next"] == "R10.T1.work"


# --- §10 scoring --------------------------------------------------------------------------------


def test_s10_3_a_tie_on_fame_and_coins_is_a_shared_victory() -> None:
    presets = {"P1": {"fame": 5, "coins": 2}, "P2": {"fame": 5, "coins": 2}, "P3": {"fame": 1}}
    steps = [
        work(P1=["done"], P2=["done"], P3=["done"]),
        work(P1=["done"], P2=["done"], P3=["done"]),
    ]
    cp = trace(steps, players=("P1", "P2", "P3"), start={"round": 12, "players": presets})[-1]
    assert (
        cp["game_over"] and cp["winners"] == ["P1", "P2"] and cp["standings"] == ["P1", "P2", "P3"]
    )


def test_s10_1_fumes_decay_by_the_option_and_first_player_rotates() -> None:
    steps = [work(P1=["done"], P2=["done"]), work(P1=["done"], P2=["done"])]
    cp = trace(
        steps, start={"round": 9, "fumes": {"light": 5, "dark": 1}}, config={"fume_decay": 3}
    )[-1]
    assert cp["fumes"] == {"light": 2, "dark": 0} and cp["first_player"] == "P2"


def test_ambiguity_34_a_short_deck_draws_what_is_left() -> None:
    presets = {"P1": {"collection": ["ember", "viper"]}}
    cp = trace([work(P1=["done"], P2=["done"])], start={"round": 1, "players": presets})[0]
    assert cp["players"]["P1"]["hand"] == [] and cp["players"]["P1"]["deck"] == []


def test_option_hand_size_and_slots() -> None:
    cp = trace(
        [work(P1=["play ember 6", "done"], P2=["done"])],
        config={"hand_size": 2, "slots": 6},
        decks={"1": {"P1": ["ember", "viper", "frost"]}},
    )[0]
    assert cp["players"]["P1"]["hand"] == ["frost", "brick"]
    assert len(cp["players"]["P1"]["slots"]) == 6
