"""The places where the engine and the replay once strayed from the rules page and the script
format (issue 17, "to the letter"), each named by its section."""

from __future__ import annotations

from games.flaky_flasks import GAME
from games.protocol import Accepted, Setup

from .helpers import trace, work


def test_script_s6_3_a_seat_whose_commands_are_all_refused_does_not_end_the_others_work() -> None:
    """Script page, Steps: each seat's list is processed independently, in order. P1 sends only
    refused commands; P2's commands after P1's refusals still count."""
    cp = trace(
        [work(P1=["play ember 9", "brew"], P2=["play frost 1", "prop 1", "brew"])],
        decks={"1": {"P1": ["ember"], "P2": ["frost"]}},
    )[0]
    assert cp["accepted"]["P2"] == ["play frost 1", "prop 1", "brew"]
    assert cp["rejected"]["P2"] == []
    assert cp["accepted"]["P1"] == [] and cp["rejected"]["P1"] == ["play ember 9", "brew"]
    assert cp["timeouts"] == ["P1"]
    assert cp["players"]["P2"]["potions"] == [{"n": 1, "symbols": ["T1B", "T1B"]}]


def test_script_s6_3_a_seat_with_refusals_then_a_timeout_leaves_the_others_going() -> None:
    cp = trace(
        [work(P1=["play ember 9", "TIMEOUT"], P2=["play frost 1", "prop 1", "done"])],
        decks={"1": {"P1": ["ember"], "P2": ["frost"]}},
    )[0]
    assert cp["accepted"]["P2"] == ["play frost 1", "prop 1", "done"]
    assert cp["players"]["P2"]["cauldron"] == ["T1B", "T1B"]
    assert cp["timeouts"] == ["P1"]


def test_s2_5_4_fumes_dissipate_at_the_end_of_the_last_round_too() -> None:
    steps = [work(P1=["done"], P2=["done"]), work(P1=["done"], P2=["done"])]
    cp = trace(steps, start={"round": 12, "fumes": {"light": 3, "dark": 1}})[-1]
    assert cp["game_over"]
    assert cp["fumes"] == {"light": 2, "dark": 0}


def test_s6_3_flow_resolve_takes_one_seats_command_while_the_other_works_on() -> None:
    """A work window resolved with one seat's command only (the lead's per-seat close rule):
    that seat's command applies at once, the other seat is still asked, nothing times out."""
    state, _ = GAME.new_match(Setup({}, 2, 7))
    assert [r.kind for r in GAME.requests(state)] == ["work", "work"]
    card = state["g"]["players"][0]["hand"][0]
    verdict = GAME.submit(state, 0, f"play {card} 1")
    assert isinstance(verdict, Accepted)
    state, _ = GAME.resolve(state, {0: verdict.move})
    g = state["g"]
    slot = g["players"][0]["slots"][0]
    assert slot is not None and slot["id"] == card
    assert [r.seat for r in GAME.requests(state)] == [0, 1]  # both still working
    assert g["players"][1]["stage"] == "play"
    state, _ = GAME.resolve(state, {1: "done"})
    assert [r.seat for r in GAME.requests(state)] == [0]  # seat 1 is done, seat 0 goes on
    state, _ = GAME.resolve(state, {0: "done"})
    assert state["g"]["turn"] == 2  # both done: Turn 2
