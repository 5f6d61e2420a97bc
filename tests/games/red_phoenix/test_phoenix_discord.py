"""What the engine adds for play on Discord (rules page §12.3, §13, §16): experiments offered as
a two-step menu (the ingredients, then the method) whose every value is the page's command, the
table posted at each turn's start, and the ``seed`` option that deals a chosen match again."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.transport import request_to_json
from cogs.prompts import plan
from games.protocol import PUBLIC, Accepted, ConfigError, Setup
from games.red_phoenix import GAME, export_script, replay_script
from games.red_phoenix.engine import apply_preset
from games.red_phoenix.prompts import MAX_STAGES
from games.red_phoenix.render import hand_text, summary
from games.red_phoenix.state import State

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


# --- §12.3 experiments: the ingredients, then the method ------------------------------------------


def test_s12_3_experiments_are_offered_as_ingredient_sets_then_their_methods() -> None:
    state, _ = with_hand(new(), FOUR)
    request = GAME.requests(state)[0]
    assert request.presentation["experiment"] == "steps"
    offered = [c for c in request.choices if c.group == "experiment"]
    stage = "Salt, Brimstone, Quicksilver and Vitriol: level I, value 4"
    four = [c for c in offered if c.stage == stage]
    assert [c.value for c in four][:2] == [
        "slow simple_decoction brimstone quicksilver salt vitriol",
        "fast simple_decoction brimstone quicksilver salt vitriol",
    ]
    gold = next(c for c in four if c.value.startswith("slow gold_standard"))
    assert gold.label == "Slow · The Gold Standard: 2 coins, 1 AP (draw 2, keep 1)"
    # the four sets of three follow the set of four: five stages, ten ways each
    assert len({c.stage for c in offered}) == 5 and len(four) == 10
    assert all(len(c.label) <= 80 and len(c.stage) <= 100 for c in offered)


def test_s12_3_every_offered_experiment_is_the_pages_command_and_spends_at_once() -> None:
    state, seat = with_hand(new(), FOUR)
    ap = state.g["ap"]
    move = "slow gold_standard brimstone quicksilver salt vitriol"
    assert move in values(state)
    after = answer(state, seat, move)
    assert after.g["ap"] == ap - 1 and after.g["players"][seat]["coins"] == 18
    assert [e["method"] for e in after.g["players"][seat]["lab"]] == ["gold_standard"]
    assert GAME.requests(after)[0].kind == "action"


def test_s12_3_the_experiment_menu_shows_as_two_steps_on_discord() -> None:
    state, _ = with_hand(new(), [*FOUR, "lead", "cinnabar"])
    request = GAME.requests(state)[0]
    payload = request_to_json(request, 1, 1, 0.0)
    _, _, menus = plan(payload)
    steps = next(m for m in menus if m.kind == "experiment")
    assert steps.steps is not None and len(steps.steps) == MAX_STAGES
    assert all(len(members) == 10 for _, members in steps.steps)


def test_s12_3_no_experiment_is_offered_without_a_free_marker_and_the_prompt_says_why() -> None:
    state, seat = with_hand(new(), FOUR)
    state.g["players"][seat]["knows"] = [f"F{i}" for i in range(1, 11)]  # every marker in use
    request = GAME.requests(state)[0]
    assert not [c for c in request.choices if c.group == "experiment"]
    assert "all your formula markers are in use" in request.prompt


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
    assert f"{NAMES[seat]}: Health 10, 20 coins, 4 cards" in table
    assert "Market: Salt 5, Brimstone 5, Quicksilver 5, Vitriol 5, Saltpeter 6," in table
    assert "Result decks: Level I 24 (discards 0), Level II 22 (discards 0)," in table
    hand = hand_text(state.cards, state.g["players"][seat]["hand"])
    assert hand not in public[0].text and "Brimstone, Quicksilver" not in table
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
