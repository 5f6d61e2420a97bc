"""The Flaky Flasks cog without Discord: the options line, the content set file, the setup
text, and every prompt of played matches within Discord's limits (rules page §11, §16)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.store import MatchRecord
from bot.transport import request_to_json
from cogs.flaky_flasks import (
    content_from_bytes,
    options_text,
    parse_options,
    setup_config,
    setup_text,
)
from cogs.options import FILE_BYTES
from cogs.prompts import every_page, offered_values, prompt_view
from games.flaky_flasks import AGENTS, GAME
from games.play import play_match
from games.protocol import Agent, ConfigError, Setup, derive_rng

NAMES = ["Ann", "Ben", "Cy"]
HOUSE = Path(__file__).resolve().parents[2] / "games" / "flaky_flasks" / "house.json"


def house_raw() -> str:
    return HOUSE.read_text(encoding="utf-8")


def parsed(text: str, seats: int = 3) -> dict[str, Any]:
    return GAME.parse_config(parse_options(text), seats)


def record(config: dict[str, Any], timers: dict[str, float] | None = None) -> MatchRecord:
    return MatchRecord(
        7, "flaky-flasks", 1, 2, (10, 11, 12), tuple(NAMES), (), config, 5, None, "setup",
        0, None, 0.0, timers or {},
    )  # fmt: skip


# --- §16 the options line ---------------------------------------------------------------------


def test_s16_options_line_sets_the_rules_options() -> None:
    assert parse_options("") == {}
    assert parse_options("Fume Decay = 2; hand-size=6, prompt_mode=ALL, bargain=off") == {
        "fume_decay": 2,
        "hand_size": 6,
        "prompt_mode": "all",
        "bargain": False,
    }
    assert parse_options("seed=42, work window s = 90") == {"seed": 42, "work_window_s": 90}
    config = parsed("slots=3, channel_length=2, bargain=yes")
    assert config["slots"] == 3 and config["channel_length"] == 2 and config["bargain"] is True
    assert setup_config("fume_decay=0", 6, 20, 4) == {
        "fume_decay": 0,
        "rounds": 6,
        "window_s": 20,
        "reaction_window_s": 4,
    }
    assert setup_config("", None, None, None) == {}


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("colour=red", "options", "'colour' is not an option; known: bargain"),
        ("window_s=3", "options", "set by the command's `window` option"),
        ("reaction_window_s=3", "options", "`reaction_window` option"),
        ("rounds=6", "options", "`rounds` option"),
        ("content_set=mine", "options", "a content set is given as an attached JSON file"),
        ("fume_decay", "fume_decay", "needs a value"),
        ("fume_decay=", "fume_decay", "needs a value"),
        ("fume_decay=two", "fume_decay", "must be a whole number 0 to 5, got 'two'"),
        ("fume_decay=-1", "fume_decay", "must be a whole number"),
        ("fume_decay=٣", "fume_decay", "must be a whole number"),
        ("bargain=maybe", "bargain", "must be true or false, got 'maybe'"),
        ("prompt_mode=some", "prompt_mode", "must be one of eligible, all"),
        ("slots=3, slots=4", "slots", "given twice"),
    ],
)
def test_s16_unreadable_options_name_the_problem(text: str, field: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_options(text)
    assert caught.value.field == field and words in caught.value.message


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("fume_decay=6", "fume_decay"),
        ("hand_size=0", "hand_size"),
        ("work_window_s=" + "9" * 12, "work_window_s"),
        ("seed=" + "9" * 20, "seed"),
    ],
)
def test_s16_the_engine_checks_the_values(text: str, field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parsed(text)
    assert caught.value.field == field


@given(st.text(max_size=200))
def test_s16_any_options_text_parses_or_names_a_field(text: str) -> None:
    try:
        config = parse_options(text)
    except ConfigError as error:
        assert error.field and error.message
        return
    try:
        GAME.parse_config(config, 3)
    except ConfigError as error:
        assert error.field


# --- §11 the content set file -----------------------------------------------------------------


def test_s11_content_set_file_is_read_as_json() -> None:
    house = json.loads(house_raw())
    assert content_from_bytes(house_raw().encode()) == house
    assert content_from_bytes(b"\xef\xbb\xbf" + house_raw().encode()) == house  # a BOM
    config = GAME.parse_config({"content_set": content_from_bytes(house_raw().encode())}, 2)
    assert config["content_set"] == house


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"{not json", "the file is not valid JSON (line 1)"),
        (b"", "the file is not valid JSON (line 1)"),
        (b"[1, 2]", "the file must hold one JSON object"),
        (b'"house"', "the file must hold one JSON object"),
        (b"\xff\xfe\x00", "the file is not UTF-8 text"),
        (b"[" * 100_000, "the file is not valid JSON"),
        (b" " * (FILE_BYTES + 1), f"the file has {FILE_BYTES + 1} bytes"),
    ],
)
def test_s11_unreadable_content_set_files_are_refused(data: bytes, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        content_from_bytes(data)
    assert caught.value.field == "content_set" and words in caught.value.message


def test_s11_a_bad_content_set_names_its_field() -> None:
    content = json.loads(house_raw())
    content["cards"][3]["symbols"] = ["T3R", "X99"]
    with pytest.raises(ConfigError) as caught:
        content_from_bytes(json.dumps(content).encode())
    assert caught.value.field.startswith("content_set.cards[3].symbols")


@given(st.binary(max_size=300))
def test_s11_any_bytes_are_read_or_refused(data: bytes) -> None:
    try:
        value = content_from_bytes(data)
    except ConfigError as error:
        assert error.field.startswith("content_set")
        return
    GAME.parse_config({"content_set": value}, 3)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=30,
)


@given(JSON_VALUES, st.sampled_from(["name", "starter", "cards", "tiles", "panels"]))
def test_s11_any_json_in_a_file_is_read_or_refused_naming_a_field(value: Any, key: str) -> None:
    house = json.loads(house_raw())
    for document in (value, {**house, key: value}):
        try:
            content_from_bytes(json.dumps(document).encode())
        except ConfigError as error:
            assert error.field.startswith("content_set") and error.message
            assert "\n" not in error.message


# --- the setup text -----------------------------------------------------------------------------


def test_setup_text_names_the_content_rounds_options_and_windows() -> None:
    text = setup_text(record(parsed("")), ["<@10>", "<@11>", "<@12>"])
    assert text.startswith(
        "⚗️ Match **7**: Flaky Flasks, <@10> (P1), <@11> (P2) and <@12> (P3). 12 rounds;"
        " content: the house set. Options: the rules page's defaults."
    )
    assert "Windows: 60 s; work: 120 s; Counters: 20 s." in text
    assert text.endswith("Next: `/flasks start match:m7`.")
    content = json.loads(house_raw())
    content["name"] = "Our Set"
    config = GAME.parse_config(
        {**setup_config("bargain=false, fume_decay=2, seed=3", 6, 20, 4), "content_set": content},
        3,
    )
    text = setup_text(record(config, {"reaction": 4.0}), ["a", "b", "c"])
    assert "6 rounds; content: Our Set (the moderator's own)." in text
    assert (
        "Options: bargaining off, fume decay 2. Dealt from a chosen seed."
        " Windows: 20 s; work: 120 s; Counters: 4 s." in text
    )
    assert options_text(parsed("prompt_mode=all")) == "Options: Hex and Counter prompts to all."


# --- every prompt of played matches fits Discord --------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_every_prompt_of_a_played_match_fits_and_offers_every_choice(seed: int) -> None:
    seats = 2 + seed % 3
    config = GAME.parse_config({"rounds": 6}, seats)
    state, events = GAME.new_match(Setup(config, seats, seed))
    agents: list[Agent] = [
        AGENTS["normal" if s % 2 == 0 else "random"](s, derive_rng(seed, "cog", s))
        for s in range(seats)
    ]
    kinds: set[str] = set()

    class Checking:
        """The normal (brewer) or random agent, checking each prompt it is shown."""

        def __init__(self, agent: Agent) -> None:
            self.agent = agent

        def observe(self, event: Any) -> None:
            self.agent.observe(event)

        def act(self, request: Any, view: Any) -> str:
            kinds.add(request.kind)
            payload = request_to_json(request, match_id=1, step=1, deadline=2e9)
            assert len(request.prompt) <= 1500
            assert all(len(c.label) <= 80 for c in request.choices)
            offered: set[str] = set()
            for view_ in every_page(payload):
                assert len(view_.children) <= 25
                offered |= set(offered_values(view_, payload))
            assert offered == {c.value for c in request.choices}
            assert prompt_view(payload) is not None
            return self.agent.act(request, view)

    final = play_match(
        GAME, state, events, [Checking(a) for a in agents], derive_rng(seed, "order")
    )
    assert GAME.outcome(final) is not None
    assert {"setup", "work", "market", "offer"} <= kinds
