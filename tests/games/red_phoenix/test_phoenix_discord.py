"""What the engine adds for play on Discord (rules page §12.3, §13, §16): the guided experiment
(the ingredients, then the method, then confirm), the table posted at each turn's start, and the
``seed`` option that deals a chosen match again."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.protocol import PUBLIC, Accepted, ConfigError, Refused, Setup
from games.red_phoenix import GAME, export_script, replay_script
from games.red_phoenix.engine import apply_preset
from games.red_phoenix.render import hand_text, summary
from games.red_phoenix.state import State, hand_list

NAMES = ["Ann", "Ben", "Cy"]
FOUR = ["brimstone", "quicksilver", "salt", "vitriol"]


def new(seed: int = 3, **config: Any) -> State:
    state, _ = GAME.new_match(Setup(GAME.parse_config(config, 3), 3, seed, NAMES))
    return state


def with_hand(state: State, cards: list[str], coins: int = 20) -> tuple[State, int]:
    """The state with the active seat holding ``cards`` and ``coins`` (its action window open)."""
    state = state.clone()
    seat = state.g["active"]
    apply_preset(state, seat, {"hand": cards, "coins": coins})
    return state, seat


def answer(state: State, seat: int, raw: str) -> State:
    verdict = GAME.submit(state, seat, raw)
    assert isinstance(verdict, Accepted), (raw, verdict)
    state, _ = GAME.resolve(state, {seat: verdict.move})
    return state


def values(state: State) -> list[str]:
    return [c.value for c in GAME.requests(state)[0].choices]


# --- §12.3 the guided experiment ----------------------------------------------------------------


def test_s12_3_action_window_offers_ingredient_sets_not_every_method() -> None:
    state, _ = with_hand(new(), FOUR)
    offered = values(state)
    assert "experiment " + " ".join(FOUR) in offered
    assert not [v for v in offered if v.startswith(("slow ", "fast "))]
    labels = [c.label for c in GAME.requests(state)[0].choices if c.group == "experiment"]
    assert "Experiment: brimstone quicksilver salt vitriol (level I, value 4)" in labels
    assert all(len(label) <= 80 for label in labels)


def test_s12_3_guided_experiment_ingredients_then_method_then_confirm() -> None:
    state, seat = with_hand(new(), FOUR)
    ap, hand = state.g["ap"], hand_list(state.g["players"][seat]["hand"])
    state = answer(state, seat, "Experiment salt VITRIOL brimstone quicksilver")
    request = GAME.requests(state)[0]
    assert (request.kind, request.seat, request.timer) == ("method", seat, "turn")
    assert state.g["ap"] == ap and hand_list(state.g["players"][seat]["hand"]) == hand
    offered = [c.value for c in request.choices]
    assert offered[-1] == "back"
    assert "slow gold_standard brimstone quicksilver salt vitriol" in offered
    assert "fast magnum_opus brimstone quicksilver salt vitriol" in offered
    label = next(c.label for c in request.choices if c.value.startswith("slow gold_standard"))
    assert label == "Slow, The Gold Standard: 2 coins, 1 AP (draw 2, keep 1)"
    # the method alone is enough once the ingredients are chosen
    verdict = GAME.submit(state, seat, "slow gold_standard")
    assert verdict == Accepted(
        "slow gold_standard brimstone quicksilver salt vitriol",
        "slow gold_standard brimstone quicksilver salt vitriol",
    )
    state = answer(state, seat, "slow gold_standard")
    confirm = GAME.requests(state)[0]
    assert confirm.kind == "confirm" and [c.value for c in confirm.choices] == ["confirm", "back"]
    assert "The Gold Standard: 2 coins, 1 AP" in confirm.prompt and "Confirm?" in confirm.prompt
    assert state.g["ap"] == ap  # nothing is spent before the confirmation
    state = answer(state, seat, "confirm")
    assert state.g["ap"] == ap - 1 and state.g["players"][seat]["coins"] == 18
    assert [e["method"] for e in state.g["players"][seat]["lab"]] == ["gold_standard"]
    assert GAME.requests(state)[0].kind == "action" and "guide" not in state.g


@pytest.mark.parametrize("where", ["method", "confirm"])
def test_s12_3_back_returns_to_the_action_window_with_nothing_spent(where: str) -> None:
    start, seat = with_hand(new(), FOUR)
    state = answer(start, seat, "experiment " + " ".join(FOUR))
    if where == "confirm":
        state = answer(state, seat, "fast simple_decoction")
    state = answer(state, seat, "back")
    assert GAME.requests(state)[0].kind == "action"
    assert state.g["ap"] == start.g["ap"] and state.g["players"] == start.g["players"]
    assert "guide" not in state.g


@pytest.mark.parametrize("where", ["method", "confirm"])
def test_s12_1_ambiguity_5_a_guided_window_timing_out_is_the_action_time_out(where: str) -> None:
    state, seat = with_hand(new(), FOUR, coins=0)
    state = answer(state, seat, "experiment " + " ".join(FOUR))
    if where == "confirm":
        state = answer(state, seat, "slow simple_decoction")
    state, events = GAME.resolve(state, {seat: None})
    text = "\n".join(e.text for e in events if e.audience == PUBLIC)
    assert f"{NAMES[seat]}'s action window timed out." in text  # the guide stays private
    assert "takes 9 coins with the 3 AP left." in text and "ends the turn." in text
    assert state.g["active"] != seat and "guide" not in state.g


def test_s12_3_guided_answers_are_checked() -> None:
    state, seat = with_hand(new(), [*FOUR, "lead"], coins=0)
    refused = {
        "experiment salt vitriol": "an experiment takes 3 or 4 ingredients",
        "experiment salt salt vitriol": "the ingredients must be of different types",
        "experiment salt vitriol cinnabar": "you hold no cinnabar",
        "experiment": "experiment C C C [C]",
    }
    for raw, reason in refused.items():
        assert GAME.submit(state, seat, raw) == Refused(reason), raw
    state = answer(state, seat, "experiment salt vitriol lead")
    for raw, reason in {
        "slow gold_standard": "gold_standard at level I costs 2 coins; you have 0",
        "slow simple_decoction salt vitriol quicksilver": (
            "this experiment is with lead salt vitriol; answer back to choose others"
        ),
        "confirm": "answer slow METHOD, fast METHOD or back",
        "slow nothing": "'nothing' is not a method: simple_decoction, hasty_fusion, "
        "gold_standard, blood_distillation, magnum_opus",
    }.items():
        assert GAME.submit(state, seat, raw) == Refused(reason), raw
    state = answer(state, seat, "slow simple_decoction lead vitriol salt")
    assert GAME.submit(state, seat, "slow simple_decoction") == Refused("answer confirm or back")


def test_s12_3_no_method_within_means_is_refused_at_the_ingredients() -> None:
    state, seat = with_hand(new(), FOUR)
    state.g["players"][seat]["lab"] = [{"status": "waiting"}] * 10  # every marker in use
    assert GAME.submit(state, seat, "experiment " + " ".join(FOUR)) == Refused(
        "you have no free formula marker"
    )


def test_s12_3_the_guided_steps_post_nothing_public() -> None:
    state, seat = with_hand(new(), FOUR)
    for raw in ("experiment " + " ".join(FOUR), "slow simple_decoction"):
        verdict = GAME.submit(state, seat, raw)
        assert isinstance(verdict, Accepted)
        state, events = GAME.resolve(state, {seat: verdict.move})
        assert not [e for e in events if e.audience == PUBLIC]


@given(st.text(max_size=60))
def test_s12_2_guided_windows_never_raise_on_any_text(raw: str) -> None:
    state, seat = with_hand(new(), FOUR)
    method = answer(state, seat, "experiment " + " ".join(FOUR))
    confirm = answer(method, seat, "slow simple_decoction")
    for s in (method, confirm):
        before = json.dumps(GAME.dump(s), sort_keys=True)
        assert isinstance(GAME.submit(s, seat, raw), Accepted | Refused)
        assert json.dumps(GAME.dump(s), sort_keys=True) == before


# --- §13 the table at each turn's start ----------------------------------------------------------


def test_s13_the_table_is_posted_when_a_turn_starts_and_never_a_hand() -> None:
    state, seat = with_hand(new(), FOUR)
    state, events = GAME.resolve(state, {seat: "end"})
    public = [e for e in events if e.audience == PUBLIC]
    assert len(public) == 1
    table = public[0].data["summary"]
    assert public[0].text.endswith("\n" + table)  # after the step's own lines
    active = NAMES[state.g["active"]]
    assert table.startswith(f"**Table, turn 2: {active} to act.**")
    assert f"{NAMES[seat]}: Health 10, coins 20, 4 cards" in table
    assert "Market: salt 5, brimstone 5, quicksilver 5, vitriol 5, saltpeter 6," in table
    assert "Decks: I 24, II 22, III 18" in table
    assert hand_text(FOUR) not in public[0].text and "brimstone quicksilver" not in table
    state, events = GAME.resolve(state, {state.g["active"]: "take 1"})
    assert "summary" not in next(e for e in events if e.audience == PUBLIC).data


def test_s13_the_table_keeps_the_card_lists_order_after_storage() -> None:
    state = new()
    stored = GAME.load(json.loads(json.dumps(GAME.dump(state), sort_keys=True)))
    assert summary(stored) == summary(state)
    assert GAME.describe(stored, None) == GAME.describe(state, None)


# --- §16 the seed option -------------------------------------------------------------------------


def test_s16_seed_option_deals_the_same_match_whatever_the_hosts_seed() -> None:
    one, _ = GAME.new_match(Setup(GAME.parse_config({"seed": 42}, 3), 3, 1, NAMES))
    two, _ = GAME.new_match(Setup(GAME.parse_config({"seed": 42}, 3), 3, 999, NAMES))
    other, _ = GAME.new_match(Setup(GAME.parse_config({}, 3), 3, 42, NAMES))
    assert GAME.dump(one) == GAME.dump(two)
    assert one.g["decks"] == other.g["decks"] and one.g["first"] == other.g["first"]
    assert "seed" not in GAME.parse_config({}, 3)


@pytest.mark.parametrize("bad", [-1, 2**63, True, "7", 1.5, None, [1]])
def test_s16_seed_option_is_checked(bad: object) -> None:
    with pytest.raises(ConfigError) as error:
        GAME.parse_config({"seed": bad}, 3)
    assert error.value.field == "seed"


def test_s16_a_seeded_match_exports_a_script_that_replays() -> None:
    config = GAME.parse_config({"seed": 42, "max_rounds": 1}, 3)
    state, _ = GAME.new_match(Setup(config, 3, 5, NAMES))
    windows: list[dict[str, list[str | None]]] = []
    while GAME.outcome(state) is None:
        seat = GAME.requests(state)[0].seat
        windows.append({str(seat): ["end"]})
        state, _ = GAME.resolve(state, {seat: "end"})
    script = export_script({"seed": 42, "max_rounds": 1}, 5, NAMES, windows)
    assert script["seed"] == 42 and "seed" not in script["config"]
    steps = list(replay_script(script))
    assert len(steps) == len(windows)
    assert GAME.dump(steps[-1].state)["game"] == GAME.dump(state)["game"]
