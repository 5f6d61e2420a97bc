"""Options, the card-set reader, bad input of every kind (fuzzed), leaving, exports and agents."""

from __future__ import annotations

import contextlib
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.play import play_match
from games.protocol import Accepted, ConfigError, Refused, Setup, derive_rng
from games.red_phoenix import AGENTS, GAME, GAME_INFO, export_script, replay_script, run_script
from games.red_phoenix.cards import house_raw, read_card_set
from games.red_phoenix.config import parse_config

from .helpers import last, script

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
JSONS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


def house_json() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(house_raw())
    return data


def new(seats: int = 3, seed: int = 1, **config: Any) -> Any:
    state, _ = GAME.new_match(Setup(GAME.parse_config(config, seats), seats, seed))
    return state


# --- §16 options -------------------------------------------------------------------------------


def test_s16_defaults() -> None:
    config = parse_config({}, 3)
    assert config["card_set"] == "house"
    assert (config["starting_health"], config["starting_coins"], config["ap_per_turn"]) == (
        10,
        2,
        3,
    )
    assert (config["coins_per_ap"], config["hand_limit"], config["formula_markers"]) == (3, 7, 10)
    assert (config["monster_attacks"], config["max_trade_offers"], config["max_rounds"]) == (
        2,
        2,
        60,
    )
    assert (config["window_s"], config["reaction_window_s"]) == (60, 30)
    assert (config["action_timeout"], config["simple_failure"], config["consolation_rule"]) == (
        "take_coins",
        "market",
        "no_card",
    )


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"hand_limit": 0}, "hand_limit"),
        ({"starting_coins": -1}, "starting_coins"),
        ({"ap_per_turn": True}, "ap_per_turn"),
        ({"max_rounds": "60"}, "max_rounds"),
        ({"action_timeout": "sleep"}, "action_timeout"),
        ({"simple_failure": None}, "simple_failure"),
        ({"consolation_rule": ["x"]}, "consolation_rule"),
        ({"colour": "red"}, "colour"),
        ({"card_set": "mine"}, "card_set"),
    ],
)
def test_s16_a_bad_option_names_its_key(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_config(raw, 3)
    assert error.value.field == field


def test_s16_seats_two_to_five() -> None:
    for seats in (1, 6):
        with pytest.raises(ConfigError):
            parse_config({}, seats)


def test_s16_starting_values_ap_and_coins_per_ap() -> None:
    data = script(
        [("P1", ["take 4"])],
        config={"starting_health": 6, "starting_coins": 0, "ap_per_turn": 4, "coins_per_ap": 2},
    )
    checkpoint = last(data)
    assert checkpoint["players"]["P1"]["coins"] == 8 and checkpoint["players"]["P2"]["health"] == 6


def test_s16_window_lengths_reach_the_requests_and_the_trace() -> None:
    state = new(window_s=45, reaction_window_s=12)
    (request,) = GAME.requests(state)
    assert request.kind == "action" and request.timeout_s == 45 and request.timer == "turn"
    assert request.clock is None  # AMBIGUITY 5: each action its own deadline
    assert GAME_INFO.timers == {"turn": 60.0, "reaction": 30.0}


def test_s16_max_trade_offers_zero_turns_trading_off() -> None:
    data = script([("P1", ["trade P2 give 1", "end"])], config={"max_trade_offers": 0})
    assert last(data)["rejected"] == ["trade P2 give 1"]


# --- Appendix A: card sets ------------------------------------------------------------------------


def test_appendix_a_house_set_reads_and_matches_the_seed_totals() -> None:
    cards = read_card_set(house_json())
    assert sum(i.copies for i in cards.ingredients.values()) == 118
    assert len(cards.methods) == 5
    assert sum(sum(level.values()) for level in cards.copies.values()) == 64
    assert [len(cards.deck(level)) for level in ("I", "II", "III")] == [24, 22, 18]


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("name",), "", "card_set.name"),
        (("consolation",), "unobtainium", "card_set.consolation"),
        (("ingredients", 0, "id"), "Salt", "card_set.ingredients[0].id"),
        (("ingredients", 0, "id"), "give", "card_set.ingredients[0].id"),
        (("ingredients", 0, "id"), "f12", "card_set.ingredients[0].id"),
        (("ingredients", 1, "id"), "salt", "card_set.ingredients[1].id"),
        (("ingredients", 0, "copies"), 0, "card_set.ingredients[0].copies"),
        (("ingredients", 0, "market", "stack", "5"), 9, "card_set.ingredients[0].market.stack.5"),
        (("ingredients", 7, "item", "effect"), "explode", "card_set.ingredients[7].item.effect"),
        (("ingredients", 19, "wins"), False, "card_set.ingredients"),
        (("methods", 0, "keep_max"), 5, "card_set.methods[0].keep_max"),
        (("results", "I", 0, "product"), "nothing", "card_set.results.I[0].product"),
        (("results", "I", 13, "gain"), "aether", "card_set.results.I[13].gain"),
        (("results", "II", 0, "kind"), "miracle", "card_set.results.II[0].kind"),
        (("results", "III", 15, "hp"), 0, "card_set.results.III[15].hp"),
        (("results", "III"), [], "card_set.results.III"),
    ],
)
def test_appendix_a_a_bad_card_set_is_refused_naming_the_field(
    path: tuple[Any, ...], value: Any, field: str
) -> None:
    data = house_json()
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ConfigError) as error:
        parse_config({"card_set": data}, 3)
    assert error.value.field == field


def test_appendix_a_a_set_that_cannot_end_is_refused() -> None:
    data = house_json()
    data["results"]["III"] = [r for r in data["results"]["III"] if r["kind"] != "success"]
    with pytest.raises(ConfigError, match="could not end"):
        parse_config({"card_set": data}, 2)


def test_ambiguity_1_a_groups_own_set_plays() -> None:
    data = house_json()
    data["name"] = "Our set"
    data["ingredients"][0]["market"]["cost"] = 0
    state = new(2, 5, card_set=data)
    assert GAME.view(state, None)["card_set"] == "Our set"
    agents = [AGENTS["normal"](s, random.Random(s)) for s in range(2)]
    end = play_match(GAME, state, [], agents)
    assert GAME.outcome(end) is not None


@FUZZ
@given(raw=JSONS)
def test_fuzz_card_set_reader_refuses_junk_with_config_error(raw: Any) -> None:
    with pytest.raises(ConfigError):
        parse_config({"card_set": raw}, 3)


@FUZZ
@given(raw=st.dictionaries(st.text(max_size=20), JSONS, max_size=5))
def test_fuzz_config_never_raises_anything_but_config_error(raw: dict[str, Any]) -> None:
    with contextlib.suppress(ConfigError):
        parse_config(raw, 3)


# --- bad answers ------------------------------------------------------------------------------


def _states() -> list[Any]:
    """States with each kind of window open."""
    data = script(
        [
            ("P1", ["use acid_flask P2"]),
            ("P2", ["ward"]),
            ("P1", ["fast gold_standard salt lead cinnabar"]),
        ],
        preset={
            "players": {
                "P1": {"hand": ["acid_flask", "salt", "lead", "cinnabar"]},
                "P2": {"hand": ["aether", "salt"]},
            }
        },
    )
    states = [step.state for step in replay_script(data)]
    traded = script([("P1", ["trade P2 give 1"])])
    states += [step.state for step in replay_script(traded)]
    discard = script(
        [("P1", ["end"])],
        config={"hand_limit": 1},
        preset={"players": {"P1": {"hand": ["salt", "lead"]}}},
    )
    states += [step.state for step in replay_script(discard)]
    return states


STATES = _states()


def test_the_fuzz_states_open_every_window_kind() -> None:
    kinds = {GAME.requests(state)[0].kind for state in STATES}
    assert kinds == {"action", "ward", "keep", "trade_response", "discard"}


@FUZZ
@given(index=st.integers(0, len(STATES) - 1), raw=st.text(max_size=60), seat=st.integers(-1, 3))
def test_fuzz_submit_never_raises_and_never_changes_the_state(
    index: int, raw: str, seat: int
) -> None:
    state = STATES[index]
    before = json.dumps(GAME.dump(state), sort_keys=True)
    verdict = GAME.submit(state, seat, raw)
    assert isinstance(verdict, Accepted | Refused)
    assert json.dumps(GAME.dump(state), sort_keys=True) == before
    if isinstance(verdict, Refused):
        assert verdict.reason and len(verdict.reason) < 300


@FUZZ
@given(
    index=st.integers(0, len(STATES) - 1),
    words=st.lists(
        st.sampled_from(
            [
                "take",
                "buy",
                "fast",
                "slow",
                "use",
                "trade",
                "give",
                "get",
                "note",
                "keep",
                "discard",
                "salt",
                "lead",
                "F1",
                "M1",
                "P2",
                "P1",
                "1",
                "2",
                "99",
                "simple_decoction",
                "aether",
                "license",
                "off",
                "dissolve",
                "reproduce",
                "end",
                ",",
                "ward",
                "accept",
            ]
        ),
        max_size=8,
    ),
)
def test_fuzz_grammar_words_accepted_moves_resolve(index: int, words: list[str]) -> None:
    state = STATES[index]
    seat = GAME.requests(state)[0].seat
    verdict = GAME.submit(state, seat, " ".join(words))
    if isinstance(verdict, Accepted):
        GAME.resolve(state, {seat: verdict.move})


@FUZZ
@given(raw=JSONS)
def test_fuzz_scripts_fail_only_with_config_error(raw: Any) -> None:
    with pytest.raises(ConfigError):
        run_script(raw)


@FUZZ
@given(
    steps=st.lists(JSONS, max_size=3),
    extra=st.dictionaries(
        st.sampled_from(["first", "picks", "reshuffles", "preset", "config", "card_set", "seed"]),
        JSONS,
        max_size=2,
    ),
)
def test_fuzz_script_fields(steps: list[Any], extra: dict[str, Any]) -> None:
    data = {**script([]), **extra, "steps": steps}
    with contextlib.suppress(ConfigError):
        run_script(data)


# --- leaving, ending, exports --------------------------------------------------------------------


def test_leave_with_two_seats_the_other_wins() -> None:
    state = new(2)
    after, _ = GAME.leave(state, 1)
    outcome = GAME.outcome(after)
    assert outcome is not None and outcome.winners == (0,)
    with pytest.raises(ValueError):
        GAME.leave(after, 0)


def test_leave_with_three_seats_the_seat_is_out_and_its_cards_go_back() -> None:
    data = script(
        [("P1", ["trade P2 give 1"])],
        players=("P1", "P2", "P3"),
        preset={"players": {"P2": {"hand": ["salt", "hooch"]}}},
    )
    state = list(replay_script(data))[-1].state
    after, _ = GAME.leave(state, 1)
    assert GAME.outcome(after) is None
    assert GAME.requests(after)[0].seat == 0 and GAME.requests(after)[0].kind == "action"
    assert after.g["market"]["salt"] == 6 and after.g["supply"]["hooch"] == 5
    again, _ = GAME.leave(after, 0)  # the active seat leaves: its turn ends at once
    outcome = GAME.outcome(again)
    assert outcome is not None and outcome.winners == (2,)


def test_end_shares_among_living_seats() -> None:
    state, _ = GAME.end(new(3), "moderator")
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == (0, 1, 2) and outcome.reason == "round_limit"


def _played(seed: int, seats: int) -> tuple[Any, list[dict[int, list[str]]]]:
    """A match of agents, with each window's attempts (the move's text, now and then junk)."""
    rng = random.Random(seed)
    state = new(seats, seed, max_rounds=8)
    agents = [
        AGENTS["normal" if s == 0 else "random"](s, random.Random(seed + s)) for s in range(seats)
    ]
    windows: list[dict[int, list[str]]] = []
    while GAME.requests(state):
        (request,) = GAME.requests(state)
        texts = ["junk"] if rng.random() < 0.2 else []
        if rng.random() < 0.9:
            texts.append(agents[request.seat].act(request, GAME.view(state, request.seat)))
        windows.append({request.seat: texts})
        verdicts = [GAME.submit(state, request.seat, t) for t in texts]
        move = next((v.move for v in verdicts if isinstance(v, Accepted)), None)
        state, _ = GAME.resolve(state, {request.seat: move})
    return state, windows


@pytest.mark.parametrize(("seed", "seats"), [(1, 2), (2, 3), (3, 4), (4, 5)])
def test_export_replays_the_live_match_state_for_state(seed: int, seats: int) -> None:
    final, windows = _played(seed, seats)
    names = [f"P{i + 1}" for i in range(seats)]
    exported = export_script({"max_rounds": 8}, seed, names, windows)
    exported = json.loads(json.dumps(exported))
    replayed = list(replay_script(exported))
    assert len(replayed) == len(windows)
    assert json.dumps(GAME.dump(replayed[-1].state), sort_keys=True) == json.dumps(
        GAME.dump(final), sort_keys=True
    )
    # without the seed, the written outcomes alone give the same trace
    del exported["seed"]
    exported["format"] = "red-phoenix-script/2"
    again = run_script(exported)["checkpoints"]
    assert again == [step.checkpoint for step in replayed]


def test_ai_matches_end_and_the_normal_ai_beats_random_players() -> None:
    share = 0.0
    for seed in range(30):
        strong = seed % 3
        state, events = GAME.new_match(Setup(GAME.parse_config({}, 3), 3, seed))
        agents = [
            AGENTS["normal" if s == strong else "random"](s, derive_rng(seed, "agent", s))
            for s in range(3)
        ]
        end = play_match(GAME, state, events, agents)
        outcome = GAME.outcome(end)
        assert outcome is not None
        if strong in outcome.winners:
            share += 1 / len(outcome.winners)
    assert share / 30 > 0.5


def test_secrets_are_the_hand_and_views_hide_other_hands() -> None:
    data = script([("P1", ["end"])], preset={"players": {"P2": {"hand": ["hooch", "salt"]}}})
    state = list(replay_script(data))[-1].state
    (secret,) = GAME.secrets(state, 1)
    text = "Your hand (2 cards): Level I: Salt; Level II: Alchemist's Hooch (heals 3)."
    assert secret.texts == (text,)
    hand = '["hooch", "salt"]'
    assert hand not in json.dumps(GAME.view(state, 0)) and hand in json.dumps(GAME.view(state, 1))
    assert hand not in json.dumps(GAME.view(state, None))
    assert text in GAME.describe(state, 1)
    assert "Your hand" not in GAME.describe(state, None)
    assert GAME.secrets(state, 0) == []


def test_s13_stolen_cards_are_private_results_of_thief_and_victim() -> None:
    data = script(
        [("P1", ["use aqua_fortis P2"])],
        players=("P1", "P2", "P3"),
        picks=["lead"],
        preset={"players": {"P1": {"hand": ["aqua_fortis"]}, "P2": {"hand": ["lead", "salt"]}}},
    )
    (step,) = list(replay_script(data))
    thief = [s.texts for s in GAME.secrets(step.state, 0)]
    victim = [s.texts for s in GAME.secrets(step.state, 1)]
    assert ("You stole Lead from P2.",) in thief and ("P1 stole Lead from you.",) in victim
    public = [e for e in step.events if e.audience.kind == "public"]
    assert public and all("stole Lead" not in e.text for e in public)
    assert "P1 uses Aqua Fortis and steals 1 card from P2." in public[0].text
    seat3 = [e.text for e in step.events if e.audience.reaches(2)]
    assert all("Lead" not in text.split("Market")[0] for text in seat3 if "stole" in text)


def conservation(state: Any) -> tuple[dict[str, int], dict[str, int]]:
    """Every ingredient card (market, supply, hands, labs, formulas) and every result card
    (decks, discard piles, formulas, monsters, labs) counted by type and by level."""
    g = state.g
    cards: dict[str, int] = {}
    results = {
        level: len(g["decks"][level]) + len(g["discards"][level]) for level in ("I", "II", "III")
    }

    def add(card: str, n: int = 1) -> None:
        cards[card] = cards.get(card, 0) + n

    for pile in ("market", "supply"):
        for card, n in g[pile].items():
            add(card, n)
    roman = {1: "I", 2: "II", 3: "III"}
    for player in g["players"]:
        for card, n in player["hand"].items():
            add(card, n)
        for exp in player["lab"]:
            for card in exp["cards"]:
                add(card)
            held = (
                exp["drawn"] if exp["status"] == "keep" else exp["met"] + exp["kept"][exp["pos"] :]
            )
            results[roman[exp["level"]]] += len(held)
    for f in g["formulas"]:
        for card in f["ingredients"]:
            add(card)
        results[roman[f["level"]]] += len(f["results"])
    for m in g["monsters"]:
        results[m["level"]] += 1
    return cards, results


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    seats=st.integers(2, 5),
    config=st.fixed_dictionaries(
        {"max_rounds": st.integers(3, 25)},
        optional={
            "hand_limit": st.integers(1, 7),
            "starting_health": st.integers(2, 10),
            "monster_attacks": st.integers(0, 3),
            "starting_coins": st.integers(0, 10),
        },
    ),
)
def test_s4_every_card_is_somewhere_at_every_window(
    seed: int, seats: int, config: dict[str, Any]
) -> None:
    state = new(seats, seed, **config)
    start = conservation(state)
    agents = [
        AGENTS["random" if s % 2 else "normal"](s, random.Random(seed + s)) for s in range(seats)
    ]
    while GAME.requests(state):
        (request,) = GAME.requests(state)
        verdict = GAME.submit(
            state, request.seat, agents[request.seat].act(request, GAME.view(state, request.seat))
        )
        assert isinstance(verdict, Accepted)
        state, _ = GAME.resolve(state, {request.seat: verdict.move})
        assert conservation(state) == start
        for player in state.g["players"]:
            assert player["coins"] >= 0 and player["health"] <= int(state.config["starting_health"])
            assert min(player["hand"].values(), default=1) > 0
