"""The Red Phoenix cog without Discord: the options line, the card set file, the setup text, and
every prompt of played matches within Discord's limits (rules page §12.3, §16)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.store import MatchRecord
from bot.transport import request_to_json
from cogs.options import FILE_BYTES
from cogs.prompts import every_page, offered_values, prompt_view
from cogs.red_phoenix import (
    card_set_from_bytes,
    options_text,
    parse_options,
    setup_config,
    setup_text,
)
from games.play import play_match
from games.protocol import HELP_CHARS, Agent, ConfigError, Setup, derive_rng
from games.red_phoenix import AGENTS, GAME
from games.red_phoenix.cards import card_set_of, house_raw
from games.red_phoenix.prompts import PROMPT_CHARS
from games.red_phoenix.reference import reference_text

NAMES = ["Ann", "Ben", "Cy"]


def parsed(text: str, seats: int = 3) -> dict[str, Any]:
    return GAME.parse_config(parse_options(text), seats)


def record(config: dict[str, Any], timers: dict[str, float] | None = None) -> MatchRecord:
    return MatchRecord(
        7, "red-phoenix", 1, 2, (10, 11, 12), tuple(NAMES), (), config, 5, None, "setup",
        0, None, 0.0, timers or {},
    )  # fmt: skip


# --- §16 the options line ---------------------------------------------------------------------


def test_s16_options_line_sets_the_rules_options() -> None:
    assert parse_options("") == {}
    assert parse_options("Starting Health = 6; max-rounds=12, simple_failure=Nothing") == {
        "starting_health": 6,
        "max_rounds": 12,
        "simple_failure": "nothing",
    }
    assert parse_options("seed=42, action timeout = end") == {"seed": 42, "action_timeout": "end"}
    config = parsed("starting_coins=0, consolation_rule=no_success")
    assert config["starting_coins"] == 0 and config["consolation_rule"] == "no_success"
    assert setup_config("max_rounds=3", 20, 4) == {
        "max_rounds": 3,
        "window_s": 20,
        "reaction_window_s": 4,
    }


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("colour=red", "options", "'colour' is not an option; known: starting_health"),
        ("window_s=3", "options", "set by the command's `window` option"),
        ("reaction_window_s=3", "options", "`reaction_window` option"),
        ("card_set=mine", "options", "a card set is given as an attached JSON file"),
        ("max_rounds", "max_rounds", "needs a value"),
        ("max_rounds=", "max_rounds", "needs a value"),
        ("max_rounds=ten", "max_rounds", "must be a whole number 1 to 200, got 'ten'"),
        ("max_rounds=-1", "max_rounds", "must be a whole number"),
        ("max_rounds=٣", "max_rounds", "must be a whole number"),
        ("simple_failure=maybe", "simple_failure", "must be one of market, nothing"),
        ("max_rounds=3, max_rounds=4", "max_rounds", "given twice"),
    ],
)
def test_s16_unreadable_options_name_the_problem(text: str, field: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_options(text)
    assert caught.value.field == field and words in caught.value.message


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("max_rounds=0", "max_rounds"),
        ("hand_limit=9999999", "hand_limit"),
        ("seed=" + "9" * 20, "seed"),
        ("ap_per_turn=1000000", "ap_per_turn"),  # issue 18: a million buttons a prompt
        ("max_rounds=201", "max_rounds"),
    ],
)
def test_s16_the_engine_checks_the_values(text: str, field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parsed(text)
    assert caught.value.field == field


def test_s16_ap_per_turn_1000000_is_refused_in_one_line_naming_it() -> None:
    with pytest.raises(ConfigError) as caught:
        parsed("AP per turn = 1000000")
    assert str(caught.value) == "ap_per_turn: must be a whole number from 1 to 10, got 1000000"


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


# --- the card set file --------------------------------------------------------------------------


def test_appendix_a_card_set_file_is_read_as_json() -> None:
    house = json.loads(house_raw())
    assert card_set_from_bytes(house_raw().encode()) == house
    assert card_set_from_bytes(b"\xef\xbb\xbf" + house_raw().encode()) == house  # a BOM


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"{not json", "the file is not valid JSON (line 1)"),
        (b"", "the file is not valid JSON (line 1)"),
        (b"[1, 2]", "the file must hold one JSON object"),
        (b'"house"', "the file must hold one JSON object"),
        (b"\xff\xfe\x00", "the file is not UTF-8 text"),
        (b" " * (FILE_BYTES + 1), f"the file has {FILE_BYTES + 1} bytes"),
    ],
)
def test_appendix_a_unreadable_card_set_files_are_refused(data: bytes, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        card_set_from_bytes(data)
    assert caught.value.field == "card_set" and words in caught.value.message


def test_appendix_a_a_bad_card_set_names_its_field() -> None:
    cards = json.loads(house_raw())
    cards["results"]["I"][3]["product"] = "unobtainium"
    with pytest.raises(ConfigError) as caught:
        GAME.parse_config({"card_set": card_set_from_bytes(json.dumps(cards).encode())}, 3)
    assert caught.value.field == "card_set.results.I[3].product"


@given(st.binary(max_size=300))
def test_appendix_a_any_bytes_are_read_or_refused(data: bytes) -> None:
    try:
        value = card_set_from_bytes(data)
    except ConfigError as error:
        assert error.field == "card_set"
        return
    try:
        GAME.parse_config({"card_set": value}, 3)
    except ConfigError as error:
        assert error.field.startswith("card_set")


# --- the setup text -----------------------------------------------------------------------------


def test_s12_3_setup_text_names_the_card_set_options_and_timers() -> None:
    text = setup_text(record(parsed("")), ["<@10>", "<@11>", "<@12>"])
    assert text.startswith(
        "🔥 Match **7**: Red Phoenix of the Alchemists, <@10> (P1), <@11> (P2) and <@12> (P3)."
        " Card set: House set 1. Options: the rules page's defaults."
    )
    assert "Action windows: 60 s; Reaction windows: 30 s." in text
    assert text.endswith("Next: `/phoenix start match:m7`.")
    cards = json.loads(house_raw())
    cards["name"] = "Our Set"
    config = parsed("starting_health=6, max_rounds=9, simple_failure=nothing, seed=3")
    config["card_set"] = cards
    text = setup_text(record(config, {"turn": 20.0, "reaction": 4.0}), ["a", "b", "c"])
    assert "Card set: Our Set (the moderator's own)." in text
    assert (
        "Options: starting Health 6, round limit 9, simple failure gives nothing."
        " Dealt from a chosen seed. Action windows: 20 s; Reaction windows: 4 s." in text
    )
    assert options_text(parsed("action_timeout=end")) == "Options: on an action's time-out end."


# --- §12.3 every prompt of played matches fits Discord --------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_s12_3_every_prompt_of_a_played_match_fits_and_offers_every_choice(seed: int) -> None:
    seats = 3 + seed % 3
    config = GAME.parse_config({"max_rounds": 12}, seats)
    state, events = GAME.new_match(Setup(config, seats, seed))
    agents: list[Agent] = [
        AGENTS["normal" if s == 0 else "random"](s, derive_rng(seed, "cog", s))
        for s in range(seats)
    ]
    kinds: set[str] = set()

    class Checking:
        """The normal or random agent, checking each prompt it is shown."""

        def __init__(self, agent: Agent) -> None:
            self.agent = agent

        def observe(self, event: Any) -> None:
            self.agent.observe(event)

        def act(self, request: Any, view: Any) -> str:
            kinds.add(request.kind)
            payload = request_to_json(request, match_id=1, step=1, deadline=2e9)
            assert len(request.prompt) <= PROMPT_CHARS and len(request.help) <= HELP_CHARS
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
    assert {"action", "keep"} <= kinds


def test_s12_3_phoenix_cards_lists_every_card_by_name_with_what_it_does() -> None:
    cards = card_set_of("house")
    text = reference_text({})
    assert text.startswith("How an experiment works\n")
    for ingredient in cards.ingredients.values():
        assert f"\n{ingredient.name} (" in text
    for level in cards.results:
        assert f"Level {level} results ({len(cards.deck(level))} cards)" in text
    assert "Acid Flask (Level I; 2 coins in the market; item: 1 damage to a rival or a" in text
    assert "Magnum Opus: 1 coin and 1 Health a level, draw 3, keep 1" in text
    assert "Singed Fingers ×2 (catastrophe): you lose 1." in text
    assert "_" not in text and "@" not in text  # names, never ids
