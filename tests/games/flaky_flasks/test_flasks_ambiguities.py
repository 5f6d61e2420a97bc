"""The numbered AMBIGUITY decisions of the rules page (§15), each checked."""

from __future__ import annotations

from games.flaky_flasks import GAME
from games.protocol import Accepted, Refused, Setup

from .helpers import STARTER, step, trace, work


def test_ambiguity_6_the_pipe_starts_in_channel_1() -> None:
    cp = trace([work(P1=["done"], P2=["done"])])[0]
    assert cp["players"]["P1"]["channels"] == [["pipe"], [], [], []]


def test_ambiguity_7_a_coin_occupies_its_slot_through_turn_2() -> None:
    cps = trace(
        [work(P1=["play copper 1", "done"], P2=["done"]), work(P1=["play ember 1"], P2=["done"])],
        decks={"1": {"P1": ["copper", "viper", "frost", "brick", "moss", "ember"]}},
    )
    assert cps[0]["players"]["P1"]["slots"][0] == "copper"
    assert cps[1]["rejected"]["P1"] == ["play ember 1"]
    assert cps[1]["next"] == "R1.offer1"  # the copper's 1 temporary coin bought nothing


def test_ambiguity_9_an_unpropagated_card_is_saved_only_until_cleanup() -> None:
    steps = [
        work(P1=["play ember 2", "done"], P2=["done"]),
        work(P1=["prop 2", "done"], P2=["done"]),
    ]
    cps = trace(steps, decks={"1": {"P1": ["ember"]}})
    assert cps[0]["players"]["P1"]["slots"][1] == "ember"
    assert cps[1]["accepted"]["P1"] == ["prop 2", "done"]
    assert cps[1]["players"]["P1"]["slots"] == [None] * 4  # Cleanup discarded everything


def test_ambiguity_10_fractured_leftovers_stay_on_the_card() -> None:
    presets = {"P1": {"collection": [*STARTER, "quartz"]}}
    cp = trace(
        [work(P1=["play quartz 1", "prop 1 S1R", "prop 1 S2B", "done"], P2=["done"])],
        decks={"1": {"P1": ["quartz"]}},
        start={"round": 1, "players": presets},
    )[0]
    assert cp["players"]["P1"]["slots"][0] == "quartz:S2B"
    assert cp["players"]["P1"]["cauldron"] == ["S1R", "S2B"]


def test_ambiguity_10_a_whole_card_cannot_be_split_unless_fractured() -> None:
    cp = trace([work(P1=["play ember 1", "prop 1 T1R", "prop 1 T1R T1R", "done"], P2=["done"])],
               decks={"1": {"P1": ["ember"]}})[0]  # fmt: skip
    assert cp["rejected"]["P1"] == ["prop 1 T1R"]
    assert cp["players"]["P1"]["cauldron"] == ["T1R", "T1R"]


def test_ambiguity_15_selling_does_not_end_the_market_sub_turn() -> None:
    steps = [
        work(P1=["play ember 1", "prop 1", "brew"], P2=["done"]),
        work(P1=["play brick 1", "prop 1", "brew"], P2=["done"]),
        step("market", P1=["sell 1 tonic", "sell 2 tonic", "pass"]),
    ]
    cp = trace(steps, decks={"1": {"P1": ["ember", "viper", "frost", "moss", "ice", "brick"]}})[-1]
    assert cp["accepted"]["P1"] == ["sell 1 tonic", "sell 2 tonic", "pass"]
    assert cp["players"]["P1"]["coins"] == 10 and cp["players"]["P1"]["fame"] == 2


def test_ambiguity_17_the_card_just_bought_may_be_trashed() -> None:
    presets = {"P1": {"coins": 5}}
    steps = [work(P1=["done"], P2=["done"]), work(P1=["done"], P2=["done"]),
             step("market", P1=["buy glowcap trash glowcap"])]  # fmt: skip
    cp = trace(steps, start={"round": 1, "players": presets}, river={"1": ["glowcap"]})[-1]
    assert "glowcap" not in cp["players"]["P1"]["deck"] and cp["players"]["P1"]["coins"] == 0


def test_ambiguity_21_one_offer_per_player_and_an_illegal_offer_is_refused() -> None:
    offers = ["offer P2 give card:gold get", "offer P2 give card:ember get card:ember"]
    turn = work(P1=["done"], P2=["done"])
    steps = [turn, turn, step("offer", P1=offers), step("reply", P2=["accept"]),
             step("offer", P2=["pass"])]  # fmt: skip
    cps = trace(steps)
    assert cps[2]["rejected"]["P1"] == ["offer P2 give card:gold get"]
    assert cps[-1]["next"] == "R2.T1.work"


def test_ambiguity_26_the_market_runs_in_the_rounds_clockwise_order() -> None:
    presets = {s: {"coins": 5} for s in ("A", "B", "C")}
    steps = [work(A=["done"], B=["done"], C=["done"]), work(A=["done"], B=["done"], C=["done"])]
    cp = trace(
        steps, players=("A", "B", "C"), first_player="B", start={"round": 1, "players": presets}
    )[-1]
    assert cp["next"] == "R1.market1" and cp["next_prompted"] == ["B"]


def test_ambiguity_29_potions_are_numbered_1_and_2_per_round() -> None:
    steps = [
        work(P1=["play ember 1", "prop 1", "brew"], P2=["done"]),
        work(P1=["play brick 1", "prop 1", "brew"], P2=["done"]),
    ]
    cp = trace(steps, decks={"1": {"P1": ["ember", "viper", "frost", "moss", "ice", "brick"]}})[-1]
    assert [p["n"] for p in cp["players"]["P1"]["potions"]] == [1, 2]


def test_ambiguity_30_one_work_window_with_stages() -> None:
    cp = trace([work(P1=["play ember 1", "boost T1R", "prop 1", "play viper 2", "brew", "done"],
                     P2=["done"])], decks={"1": {"P1": ["ember", "viper"]}})[0]  # fmt: skip
    assert cp["accepted"]["P1"] == ["play ember 1", "prop 1", "brew"]
    assert cp["rejected"]["P1"] == ["boost T1R", "play viper 2", "done"]


def test_ambiguity_32_only_moderators_see_hands_and_deck_orders() -> None:
    state, events = GAME.new_match(Setup(GAME.parse_config({}, 2), 2, 3))
    public = [e for e in events if e.audience.kind == "public"]
    hand = state["g"]["players"][0]["hand"]
    assert all("hand" not in e.data and "Your hand" not in e.text for e in public)
    moderators = [e for e in events if e.audience.kind == "moderators"]
    assert moderators and moderators[0].data["hands"]["P1"] == hand


def test_submit_refuses_an_unasked_seat_and_after_the_end() -> None:
    state, _ = GAME.new_match(Setup(GAME.parse_config({}, 2), 2, 3))
    assert isinstance(GAME.submit(state, 5, "done"), Refused)
    assert isinstance(GAME.submit(state, 0, "done"), Accepted)
    over, _ = GAME.end(state, "moderator")
    assert GAME.outcome(over) is not None and isinstance(GAME.submit(over, 0, "done"), Refused)
