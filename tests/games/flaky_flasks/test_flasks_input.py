"""Bad input changes nothing and gets a specific message: answers, configs, content sets and
scripts, fuzzed over all of Unicode and wrongly typed nested JSON."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.flaky_flasks import GAME, run_script
from games.flaky_flasks.content import HOUSE_JSON, read_content
from games.protocol import Accepted, ConfigError, Refused, Setup

from .helpers import script

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def states() -> list[Any]:
    """A state at each kind of window (made by the first test that needs them, not at import:
    every pytest worker imports this module, one runs its tests)."""
    state, _ = GAME.new_match(
        Setup(GAME.parse_config({"prompt_mode": "all"}, 3), 3, 7, ["A", "B", "C"])
    )
    states = [state]
    kinds = {state["g"]["win"]["kind"]}
    from games.flaky_flasks.agents import AGENTS
    from games.protocol import derive_rng

    agents = [AGENTS["normal"](s, derive_rng(1, s)) for s in range(3)]
    while GAME.requests(state) and len(kinds) < 7 and state["g"]["round"] < 4:
        moves = {}
        for request in GAME.requests(state):
            verdict = GAME.submit(
                state,
                request.seat,
                agents[request.seat].act(request, GAME.view(state, request.seat)),
            )
            assert isinstance(verdict, Accepted)
            moves[request.seat] = verdict.move
        state, _ = GAME.resolve(state, moves)
        if state["g"]["win"] and state["g"]["win"]["kind"] not in kinds:
            kinds.add(state["g"]["win"]["kind"])
            states.append(state)
    return states


@FUZZ
@given(text=st.text(max_size=80), pick=st.integers(0, 100))
def test_submit_refuses_junk_without_changing_the_state(text: str, pick: int) -> None:
    state = states()[pick % len(states())]
    before = json.dumps(state, sort_keys=True)
    for request in GAME.requests(state):
        verdict = GAME.submit(state, request.seat, text)
        assert isinstance(verdict, Accepted | Refused)
        if isinstance(verdict, Refused):
            assert verdict.reason and len(verdict.reason) < 300
    assert json.dumps(state, sort_keys=True) == before


@FUZZ
@given(
    words=st.lists(
        st.sampled_from(
            [
                "play",
                "prop",
                "sell",
                "buy",
                "hex",
                "counter",
                "offer",
                "give",
                "get",
                "trash",
                "1",
                "2",
                "12",
                "0",
                "ember",
                "P1",
                "B",
                "3c",
                "card:moth",
                "tile:pipe",
                "layout",
                "1=pipe",
                "S2B",
                "T1R",
                "boost",
                "brew",
                "done",
                "pass",
                "keep",
                "accept",
                "refuse",
                "charm",
                "root",
                "99c",
                "x=y",
            ]
        ),
        max_size=6,
    ),
    pick=st.integers(0, 100),
)
def test_submit_handles_near_miss_grammar(words: list[str], pick: int) -> None:
    state = states()[pick % len(states())]
    for request in GAME.requests(state):
        verdict = GAME.submit(state, request.seat, " ".join(words))
        assert isinstance(verdict, Accepted | Refused)
        if isinstance(verdict, Accepted):  # the canonical move is accepted as it is
            assert isinstance(GAME.submit(state, request.seat, verdict.move), Accepted)


def test_the_states_cover_every_window_kind() -> None:
    assert {s["g"]["win"]["kind"] for s in states()} >= {"setup", "work", "market", "offer"}


@FUZZ
@given(raw=JSON_VALUES)
def test_parse_config_refuses_junk_with_a_field(raw: Any) -> None:
    try:
        GAME.parse_config(raw if isinstance(raw, dict) else {"rounds": raw}, 3)
    except ConfigError as error:
        assert error.field


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"rounds": 7}, "rounds"),
        ({"rounds": True}, "rounds"),
        ({"bargain": "yes"}, "bargain"),
        ({"prompt_mode": "some"}, "prompt_mode"),
        ({"fume_decay": 6}, "fume_decay"),
        ({"hand_size": 0}, "hand_size"),
        ({"slots": 9}, "slots"),
        ({"channel_length": 0}, "channel_length"),
        ({"river_size": 9}, "river_size"),
        ({"tableau_size": "3"}, "tableau_size"),
        ({"window_s": 0}, "window_s"),
        ({"colour": 1}, "colour"),
        ({"content_set": "mine"}, "content_set"),
        ({"content_set": {"name": "x"}}, "content_set.starter"),
    ],
)
def test_s16_bad_options_name_their_field(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as error:
        GAME.parse_config(raw, 3)
    assert error.value.field == field


def test_s16_player_count_is_two_to_four() -> None:
    for seats in (1, 5):
        with pytest.raises(ConfigError):
            GAME.parse_config({}, seats)


def _broken(path: list[Any], value: Any) -> dict[str, Any]:
    content = copy.deepcopy(HOUSE_JSON)
    target = content
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return content


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (["name"], "", "content_set.name"),
        (["cards", 0, "symbols", 1], "T13R", "content_set.cards[0].symbols[1]"),
        (["cards", 0, "symbols", 1], "X1R", "content_set.cards[0].symbols[1]"),
        (["cards", 3, "id"], "Ember", "content_set.cards[3].id"),
        (["cards", 3, "id"], "ember", "content_set.cards[3].id"),
        (["cards", 10, "coin"], -1, "content_set.cards[10].coin"),
        (["cards", 12, "traits", 0], "rotten", "content_set.cards[12].traits[0]"),
        (["cards", 14, "manifest", 0, "do"], "jam", "content_set.cards[14].manifest[0].do"),
        (["cards", 16, "hex", "do", 1, "who"], "everyone", "content_set.cards[16].hex.do[1].who"),
        (["cards", 16, "hex", "target"], False, "content_set.cards[16].hex.do[1].who"),
        (
            ["cards", 17, "counter", "cost"],
            {"charge": 0},
            "content_set.cards[17].counter.cost.charge",
        ),
        (
            ["cards", 17, "counter", "do", 0],
            {"do": "discard_last", "who": "others"},
            "content_set.cards[17].counter.do[0].do",
        ),
        (["tiles", 2, "op"], "explode", "content_set.tiles[2].op"),
        (["tiles", 2, "n"], KeyError, "content_set.tiles[2].n"),
        (["tiles", 2, "if_shape"], "Q", "content_set.tiles[2].if_shape"),
        (["panels", 0, "when", "min"], "2", "content_set.panels[0].when.min"),
        (["panels", 0, "when", "dominance"], "grey", "content_set.panels[0].when.dominance"),
        (["panels", 0, "coins", "bonus"], 1, "content_set.panels[0].coins.bonus"),
        (["starter", "cards", 0], "nothing", "content_set.starter.cards[0]"),
        (["starter", "tiles", 0], "kiln2", "content_set.starter.tiles[0]"),
        (["cards", 0, "glitter"], 1, "content_set.cards[0].glitter"),
    ],
)
def test_s11_a_bad_content_set_is_refused_naming_the_field(
    path: list[Any], value: Any, field: str
) -> None:
    with pytest.raises(ConfigError) as error:
        read_content(_broken(path, value))
    assert error.value.field == field


def test_s11_a_set_needs_a_tier_1_panel() -> None:
    content = copy.deepcopy(HOUSE_JSON)
    content["panels"] = [p for p in content["panels"] if p["tier"] != 1]
    with pytest.raises(ConfigError) as error:
        read_content(content)
    assert error.value.field == "content_set.panels"


@FUZZ
@given(raw=JSON_VALUES)
def test_s11_the_reader_refuses_junk_content(raw: Any) -> None:
    with pytest.raises(ConfigError):
        read_content(raw)


@FUZZ
@given(
    key=st.sampled_from(
        [
            "players",
            "first_player",
            "config",
            "content",
            "river",
            "tableau",
            "panels",
            "decks",
            "start",
            "steps",
            "seed",
            "format",
        ]
    ),
    value=JSON_VALUES,
)
def test_a_malformed_script_names_its_field(key: str, value: Any) -> None:
    base = script([{"window": "work", "attempts": {"P1": ["done"], "P2": ["done"]}}])
    base[key] = value
    try:
        run_script(base)
    except ConfigError as error:
        assert error.field


@FUZZ
@given(step=JSON_VALUES)
def test_a_malformed_step_names_its_field(step: Any) -> None:
    try:
        run_script(script([step]))
    except ConfigError as error:
        assert error.field.startswith("steps[0]") or error.field == "steps"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"steps": [{"window": "market", "attempts": {}}]}, "steps[0].window"),
        ({"steps": [{"window": "work", "attempts": {"P9": ["done"]}}]}, "steps[0].attempts.P9"),
        ({"steps": [{"window": "work", "attempts": {"P1": "done"}}]}, "steps[0].attempts.P1"),
        ({"steps": [{"window": "work", "attempts": {}, "seats": ["P1"]}]}, "steps[0].seats"),
        ({"decks": {"1": {"P1": ["moth"]}}}, "decks.1.P1"),
        ({"river": {"1": ["gold"]}}, "river.1"),
        ({"panels": {"2": ["tonic"]}, "start": {"round": 6}}, "panels.2"),
        ({"players": ["P1"]}, "players"),
        ({"players": ["P1", "P1"]}, "players"),
        ({"first_player": "P3"}, "first_player"),
        ({"config": {"rounds": 5}}, "config.rounds"),
        ({"content": {"name": 1}}, "content"),
        ({"start": {"round": 13}}, "start.round"),
        ({"start": {"players": {"P1": {"collection": ["gem"]}}}}, "start.players.P1.collection"),
        ({"format": "flaky-flasks-script/9"}, "format"),
        ({"extra": 1}, "extra"),
    ],
)
def test_script_errors_name_the_field_or_step(change: dict[str, Any], field: str) -> None:
    base = script([{"window": "work", "attempts": {"P1": ["done"], "P2": ["done"]}}])
    base.update(change)
    with pytest.raises(ConfigError) as error:
        run_script(base)
    assert error.value.field.startswith(field)


def test_a_step_after_the_end_is_an_error() -> None:
    steps = [{"window": "work", "attempts": {}}] * 2 + [{"window": "market", "attempts": {}}]
    base = script(steps, start={"round": 12})
    with pytest.raises(ConfigError) as error:
        run_script(base)
    assert error.value.field == "steps[2]"


def test_a_group_content_set_plays() -> None:
    content = copy.deepcopy(HOUSE_JSON)
    content["name"] = "ours"
    content["cards"][0]["symbols"] = ["T5R", "T5R"]
    base = script(
        [
            {
                "window": "work",
                "attempts": {"P1": ["play ember 1", "prop 1", "brew"], "P2": ["done"]},
            }
        ],
        content=content,
        decks={"1": {"P1": ["ember"]}},
    )
    checkpoint = run_script(base)["checkpoints"][0]
    assert checkpoint["players"]["P1"]["potions"] == [{"n": 1, "symbols": ["T5R", "T5R"]}]


@pytest.mark.parametrize("spec", ["prism", "prism@RG", "pipe@R", "kiln@", "gem", 3])
def test_a_start_preset_refuses_a_bad_tile_spec(spec: Any) -> None:
    base = script([], start={"players": {"P1": {"channels": [[spec]]}}})
    with pytest.raises(ConfigError) as error:
        run_script(base)
    assert error.value.field == "start.players.P1.channels[0]"


def test_a_start_preset_with_only_spare_keeps_the_starter_channels() -> None:
    base = script([{"window": "setup", "attempts": {"P1": ["keep"]}}],
                  start={"players": {"P1": {"spare": ["kiln"]}}})  # fmt: skip
    checkpoint = run_script(base)["checkpoints"][0]
    assert checkpoint["players"]["P1"]["channels"] == [["pipe"], [], [], []]
    assert checkpoint["players"]["P1"]["spare"] == ["kiln"]


def test_a_leave_step_and_a_v2_null_close_the_window() -> None:
    steps: list[Any] = [
        {
            "window": "work",
            "attempts": {"P1": ["play ember 1", None, "brew"], "P2": ["done"], "P3": []},
        },
        {"leave": "P3"},
        {"window": "work", "attempts": {"P1": ["done"], "P2": ["done"]}},
    ]
    base = script(steps, players=("P1", "P2", "P3"), decks={"1": {"P1": ["ember"]}})
    base["format"] = "flaky-flasks-script/2"
    cps = run_script(base)["checkpoints"]
    assert cps[0]["timeouts"] == ["P1", "P3"] and cps[0]["rejected"]["P1"] == ["brew"]
    assert cps[1]["left"] == "P3" and cps[1]["next_prompted"] == ["P1", "P2"]
    assert cps[2]["prompted"] == ["P1", "P2"]


def test_a_continues_step_is_one_command_per_seat() -> None:
    steps = [
        {"window": "work", "attempts": {"P1": ["play ember 1"], "P2": ["done"]}, "continues": True},
        {"window": "work", "attempts": {"P1": ["prop 1", "brew"]}, "continues": True},
        {"window": "work", "attempts": {"P1": ["brew"]}},
    ]
    cps = run_script(script(steps, decks={"1": {"P1": ["ember"]}}))["checkpoints"]
    assert [c["next"] for c in cps] == ["R1.T1.work", "R1.T1.work", "R1.T2.work"]
    assert cps[1]["rejected"]["P1"] == ["brew"]  # a second command in one host window
    assert cps[2]["players"]["P1"]["potions"][0]["symbols"] == ["T1R", "T1R"]
