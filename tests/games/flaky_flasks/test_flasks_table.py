"""What Discord needs of the engine: the ``seed`` option (a moderator's chosen deal, §16) and
the public table posted at the start of every phase (the issue's "one public post" per step)."""

from __future__ import annotations

import json
from collections import Counter
from functools import partial
from typing import Any

import pytest

from games.flaky_flasks import AGENTS, GAME, export_script, replay_script
from games.flaky_flasks.engine import PHASES, content_of, phase_of
from games.flaky_flasks.rules import owned_tiles
from games.moves import play_window
from games.protocol import PUBLIC, Accepted, ConfigError, Event, Setup, derive_rng


def _play(seed: int, seats: int, config: dict[str, Any]) -> tuple[list[Any], list[Any], Any]:
    """A normal-level match: the states before each window, each window's events, its attempts."""
    parsed = GAME.parse_config(config, seats)
    state, events = GAME.new_match(Setup(parsed, seats, 999, [f"N{s}" for s in range(seats)]))
    agents = [AGENTS["normal"](s, derive_rng(seed, s)) for s in range(seats)]
    befores: list[Any] = [None]
    all_events, windows = [events], []
    while GAME.requests(state):
        requests = GAME.requests(state)
        attempts = {r.seat: [agents[r.seat].act(r, GAME.view(state, r.seat))] for r in requests}
        befores.append(state)
        played = play_window(requests, attempts, partial(GAME.submit, state))
        state, events = GAME.resolve(state, played.moves)
        all_events.append(events)
        windows.append(attempts)
    return befores, all_events, (state, windows)


def test_s16_seed_option_deals_the_same_match_whatever_the_host_seed() -> None:
    config = GAME.parse_config({"rounds": 6, "seed": 77}, 3)
    one, _ = GAME.new_match(Setup(config, 3, 1))
    two, _ = GAME.new_match(Setup(config, 3, 2))
    assert one == two
    plain = GAME.parse_config({"rounds": 6}, 3)
    assert GAME.new_match(Setup(plain, 3, 77))[0]["g"] == one["g"]  # the seed it names
    assert GAME.new_match(Setup(plain, 3, 1))[0]["g"] != one["g"]


@pytest.mark.parametrize("bad", [-1, 2**63, True, "7", 1.5, None, [1]])
def test_s16_seed_option_refuses_what_is_not_a_seed(bad: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        GAME.parse_config({"seed": bad}, 2)
    assert caught.value.field == "seed"


def test_s16_seed_option_exports_its_seed_and_replays() -> None:
    _, _, (final, windows) = _play(5, 2, {"rounds": 6, "seed": 31})
    names = ["N0", "N1"]
    script = json.loads(json.dumps(export_script({"rounds": 6, "seed": 31}, 999, names, windows)))
    assert script["seed"] == 31 and "seed" not in script["config"]
    again = list(replay_script(script))[-1].state
    assert again["g"] == json.loads(json.dumps(final["g"]))  # its config lacks only the seed
    script["config"]["seed"] = 31
    with pytest.raises(ConfigError) as caught:
        list(replay_script(script))
    assert caught.value.field == "config.seed"


def _tables(events: list[Event]) -> list[Event]:
    return [e for e in events if e.kind == "table"]


@pytest.mark.parametrize(("seed", "seats"), [(1, 3), (2, 4), (3, 2)])
def test_the_table_is_posted_once_at_the_start_of_every_phase(seed: int, seats: int) -> None:
    befores, all_events, (final, _) = _play(seed, seats, {"rounds": 6, "seed": seed})
    states = [*befores[1:], final]
    phases: list[tuple[int, int, str]] = []
    for index, (events, after) in enumerate(zip(all_events, states, strict=True)):
        tables = _tables(events)
        before = befores[index]
        opens = before is None or phase_of(before["g"]) != phase_of(after["g"])
        if after["g"]["over"]:
            assert not tables
            continue
        assert len(tables) == (1 if opens else 0), index
        for table in tables:
            assert table.audience == PUBLIC and len(table.text) <= 1800
            r, turn, phase = phase_of(after["g"])
            phases.append((r, turn, phase))
            name = f"Turn {turn}: {phase}" if turn else phase
            assert table.text.startswith(f"**Table, round {r}/6: {name}**"), table.text
            g = after["g"]
            for seat, p in enumerate(g["players"]):
                assert f"**{g['names'][seat]}** · {p['fame']} fame · {p['coins']} coins" in (
                    table.text
                )
                # one line per channel, numbered
                for k in range(len(p["channels"])):
                    assert f"\n  {k + 1}: " in table.text
            assert "Cards tier 1:" in table.text and "Panels:" in table.text
            assert f"Fumes: light {g['fumes'][0]}, dark {g['fumes'][1]}" in table.text
    # every round shows its work phase of both turns and its Market
    for r in range(1, 7):
        assert (r, 1, "work") in phases and (r, 2, "work") in phases
        assert (r, 0, PHASES["market"]) in phases


def test_the_table_never_shows_a_hand() -> None:
    befores, all_events, (final, _) = _play(4, 3, {"rounds": 6, "seed": 4})
    states = [*befores[1:], final]
    shown = 0
    for events, after in zip(all_events, states, strict=True):
        for table in _tables(events):
            for seat in range(3):
                for secret in GAME.secrets(after, seat):
                    for text in secret.texts:
                        assert text not in table.text
                        shown += 1
    assert shown > 50


def test_s9_offer_menu_lists_complete_offers_at_market_price_within_the_coins() -> None:
    befores, _, _ = _play(2, 3, {"rounds": 6, "seed": 2})
    offers = [s for s in befores[1:] if s["g"]["win"]["kind"] == "offer"]
    assert offers
    checked = 0
    for state in offers:
        for coins in (0, 4, 30):
            state = json.loads(json.dumps(state))
            g = state["g"]
            (request,) = GAME.requests(state)
            g["players"][request.seat]["coins"] = coins
            content = content_of(state)
            (request,) = GAME.requests(state)
            made = [c for c in request.choices if c.value != "pass"]
            assert request.choices[0].value == "pass"
            if coins == 0:
                assert not made
            for choice in made:
                words = choice.value.split()
                assert words[0] == "offer" and words[2] == "give" and words[4] == "get"
                price = int(words[3][:-1])
                assert 1 <= price <= coins and len(choice.label) <= 80
                kind, item = words[5].split(":")
                items = content.cards if kind == "card" else content.tiles
                assert price == max(1, items[item].cost)  # the market price
                amount = f"{price} coin" if price == 1 else f"{price} coins"
                assert choice.label.endswith(f" {amount} for their {items[item].name}")
                assert choice.stage == f"{words[1]}'s {kind}s"  # whose cards or tiles first
                verdict = GAME.submit(state, request.seat, choice.value)
                assert isinstance(verdict, Accepted) and verdict.move == choice.value
                checked += 1
            if coins == 30:
                assert made and request.presentation.get("offer") == "steps"
    assert checked > 20


def test_s4_setup_menu_offers_complete_layouts_and_the_prompt_shows_the_board() -> None:
    befores, _, _ = _play(2, 3, {"rounds": 6, "seed": 2})
    setups = [s for s in befores[1:] if s["g"]["win"]["kind"] == "setup"]
    assert setups
    kinds: set[str] = set()
    for state in setups:
        for request in GAME.requests(state):
            p = state["g"]["players"][request.seat]
            # the board: each channel, the spare tiles, every tile by name with what it does
            assert "\nChannel 1: " in request.prompt and "\nSpare tiles: " in request.prompt
            content = content_of(state)
            for tile in owned_tiles(p):
                named = content.tiles[tile]
                shown = f"{named.name} (" if named.op != "none" else named.name
                assert shown in request.prompt and tile not in request.prompt
            assert request.choices[0].value == "keep"
            assert request.presentation.get("layout") == "menu"
            tiles = sorted([*(s.split("@")[0] for ch in p["channels"] for s in ch), *p["spare"]])
            for choice in request.choices[1:]:
                assert choice.group == "layout" and len(choice.label) <= 80
                kinds.add(choice.label.split()[0])
                verdict = GAME.submit(state, request.seat, choice.value)
                assert isinstance(verdict, Accepted) and verdict.move == choice.value
                # the layout places only the player's own tiles, none twice
                placed = [s.split("@")[0] for part in choice.value.split()[1:]
                          for s in part.split("=")[1].split(",")]  # fmt: skip
                assert not Counter(placed) - Counter(tiles)
                layout = [[] for _ in p["channels"]]  # type: list[list[str]]
                for part in choice.value.split()[1:]:
                    k, listed = part.split("=")
                    layout[int(k) - 1] = listed.split(",")
                assert layout != p["channels"]  # "keep" is the current layout
    assert {"Spread", "Chain"} <= kinds


@pytest.mark.parametrize(("seed", "seats"), [(1, 3), (2, 4)])
def test_s4_the_views_turn_is_the_phase_a_table_opens(seed: int, seats: int) -> None:
    """The host's turn (one post where nobody else decides, one log digest) is the phase of §4:
    the view's ``turn`` moves exactly when a phase's table opens it (or the match ends), never
    with a window in the middle of one (a Hex, a work command, a sale)."""
    befores, all_events, (final, _) = _play(seed, seats, {"rounds": 6, "seed": seed})
    states = [*befores[1:], final]
    turns = [GAME.view(state, None)["turn"] for state in states]
    for index in range(1, len(states)):
        opened = bool(_tables(all_events[index])) or states[index]["g"]["over"]
        assert (turns[index] != turns[index - 1]) == opened, index
    assert turns[-1] == sum(len(_tables(events)) for events in all_events) + 1  # and the end
    assert turns == sorted(turns) and len(set(turns)) >= 6 * 5
    assert len(turns) > 3 * len(set(turns))  # most phases take several windows
    assert [GAME.view(state, None)["steps"] for state in states] == list(range(len(states)))
