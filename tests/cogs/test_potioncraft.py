"""The Potioncraft cog without Discord: the options line, the setup text, and the prompts a phone
gets (every offered answer reachable by a button or a menu, within Discord's limits)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.store import MatchRecord
from bot.transport import request_to_json
from cogs.potioncraft import options_text, parse_options, setup_config, setup_text
from cogs.prompts import every_page, offered_values, plan
from cogs.setup import refusal as explain
from games.potioncraft import AGENTS, GAME
from games.potioncraft.config import DEFAULTS
from games.protocol import JSON, ConfigError, Setup, derive_rng

NAMES = ["Ann", "Ben", "Cy", "Di"]


def parsed(text: str, seats: int = 4) -> dict[str, JSON]:
    return GAME.parse_config(parse_options(text), seats)


def test_names_ignore_case_spaces_and_dashes_and_bare_names_switch_on() -> None:
    assert parse_options("") == {} and parse_options(" ; , ") == {}
    assert parse_options("Potion Set = all18; max-turns=40, reaction wait full") == {
        "potion_set": "all18",
        "max_turns": 40,
        "reaction_wait_full": True,
    }
    assert parse_options("draw_own_pile=off, request block passes = No") == {
        "draw_own_pile": False,
        "request_block_passes": False,
    }
    assert parse_options("max_turns=none, seed=926, win check=END-OF-TURN") == {
        "max_turns": None,
        "seed": 926,
        "win_check": "end_of_turn",
    }
    config = parsed("hand_reset_deal=full, two_player_twist=skip, chain_mode=no substitution")
    assert config["hand_reset_deal"] == "full" and config["chain_mode"] == "no_substitution"
    assert config["window_s"] == DEFAULTS["window_s"]


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("colour=red", "options", "'colour' is not an option; known: table_limit"),
        ("window_s=5", "options", "`window` option"),
        ("reaction_s=5", "options", "`reaction_window` option"),
        ("max_turns", "max_turns", "needs a value"),
        ("max_turns=", "max_turns", "needs a value after ="),
        ("max_turns=ten", "max_turns", "must be a whole number 1 to 100000"),
        ("max_turns=0", "max_turns", "must be a whole number 1 to 100000"),
        ("table_limit=-1", "table_limit", "must be a whole number 0 to 99"),
        ("potion_set=all", "potion_set", "must be one of standard, all18"),
        ("draw_own_pile=maybe", "draw_own_pile", "must be true or false"),
        ("seed=-3", "seed", "must be a whole number"),
        ("seed=99999999999999999999", "seed", "must be a whole number 0 to 2**63 - 1"),
        ("max_actions=3, max actions=4", "max_actions", "given twice"),
    ],
)
def test_unreadable_options_name_the_problem(text: str, field: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parsed(text)
    assert caught.value.field == field and words in caught.value.message, caught.value


def test_refusals_are_one_line() -> None:
    bad = explain(ConfigError("options", "'x' is not an option"))
    assert bad == "Bad options: 'x' is not an option."
    assert (
        explain(ConfigError("max_turns", "given twice")) == "Bad option `max_turns`: given twice."
    )


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_options_text_is_a_config_or_a_config_error(text: str) -> None:
    try:
        config = parse_options(text)
        GAME.parse_config(config, 4)
    except ConfigError as error:
        assert "\n" not in error.message and len(error.message) < 400


def test_timers_go_into_the_config_too() -> None:
    config = setup_config("max_turns=9", 30, 7)
    assert config == {"max_turns": 9, "window_s": 30, "reaction_s": 7}
    assert setup_config("", None, None) == {}


def record(config: dict[str, JSON]) -> MatchRecord:
    return MatchRecord(
        4, "potioncraft", 1, 2, (1, 2), ("Ann", "Ben"), (), config, 5, None, "setup", 0, None,
        0.0, {"reaction": 20.0},
    )  # fmt: skip


def test_setup_text_names_the_changed_options_and_the_timers() -> None:
    config = parsed("max_turns=40, reaction_wait_full, draw_own_pile=false, seed=5")
    text = setup_text(record(config), ["<@1>", "<@2>"])
    assert "Match **4**: Potioncraft, <@1> (P1) and <@2> (P2)." in text
    assert "turn limit 40" in text and "block windows run their full length" in text
    assert "no drawing from your own pile" in text and "Dealt from a chosen seed." in text
    assert "Turn windows: 60 s; Block windows: 20 s." in text
    assert "`/potion start match:m4`" in text
    assert options_text(parsed("")) == "Options: the rules page's defaults."
    assert "no turn limit" in options_text(parsed("max_turns=none"))
    every = parsed(
        "table_limit=11, potion_set=all18, win_check=end_of_turn, draw_own_pile=off,"
        " hand_reset_deal=full, request_block_passes=no, two_player_twist=skip,"
        " chain_mode=no_substitution, max_turns=50, foul_elixir_discards=1,"
        " reaction_wait_full, max_actions=9"
    )
    assert options_text(every) == (
        "Options: table limit 11, potion set all18, win check end of turn, no drawing from your"
        " own pile, Hand reset deals full, a blocked Request ends, Twist of Fate with 2 players:"
        " skip, chained potions: no substitution, turn limit 50, Foul Elixir discards 1,"
        " block windows run their full length, actions per turn at most 9."
    )


# --- the prompts ------------------------------------------------------------------------------


def requests_of_a_match(seed: int, windows: int = 400) -> list[dict[str, JSON]]:
    """Every request of a match of normal AIs, as the host sends them to the prompts cog."""
    config = GAME.parse_config({"seed": seed, "max_turns": 60}, 4)
    state, _ = GAME.new_match(Setup(config, 4, 0, NAMES))
    agents = {s: AGENTS["normal"](s, derive_rng(seed, "cog", s)) for s in range(4)}
    found: list[dict[str, JSON]] = []
    while not state.over and len(found) < windows:
        requests = GAME.requests(state)
        moves = {}
        for request in requests:
            found.append(request_to_json(request, 1, len(found) + 1, 0.0))
            answer = agents[request.seat].act(request, GAME.view(state, request.seat))
            verdict = GAME.submit(state, request.seat, answer)
            moves[request.seat] = getattr(verdict, "move", None)
        state, _ = GAME.resolve(state, moves)
    return found


@pytest.mark.parametrize("seed", [732, 11])
def test_every_offered_answer_is_a_button_or_a_menu_option_within_discord_limits(
    seed: int,
) -> None:
    kinds = set()
    for payload in requests_of_a_match(seed):
        values = [c["value"] for c in payload["choices"]]
        reachable: set[str] = set()
        for view in every_page(payload):
            assert len(view.children) <= 25
            reachable |= set(offered_values(view, payload))
        assert reachable == set(values), payload["kind"]
        buttons, quiet, menus = plan(payload)
        rows = -(-len(buttons + quiet) // 5) + len(menus)
        assert rows <= 5
        kinds.add(payload["kind"])
        if payload["kind"] == "main":  # craft / spell / perk menus, End turn a button
            assert all(m.kind in ("craft", "spell", "perk", "menu") for m in menus)
    assert {"draw", "main"} <= kinds
