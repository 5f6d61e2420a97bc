"""docs/warlocks-brew.md, checked against the bot: its worked auction is a real run's texts, and
every example a player or a moderator could type is accepted as the page says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from games.protocol import Accepted, Setup
from games.warlocks_brew import GAME
from games.warlocks_brew.config import INGREDIENTS, parse_config
from games.warlocks_brew.effects import EFFECTS
from tests.games.warlocks_brew.brew_helpers import answer, bids, prompt, start

N, B, T = INGREDIENTS[:3]

PAGE = (Path(__file__).parents[3] / "docs" / "warlocks-brew.md").read_text(encoding="utf-8")
WORKED = json.loads((Path(__file__).parent / "worked_auction.json").read_text(encoding="utf-8"))


def part(title: str) -> str:
    start = PAGE.index(f"\n## {title}\n")
    end = re.compile(r"^#{1,2} ", re.MULTILINE).search(PAGE, start + len(title) + 5)
    return PAGE[start : end.start() if end else len(PAGE)]


def fenced(text: str) -> list[str]:
    return re.findall(r"^```\n(.*?)\n```$", text, re.MULTILINE | re.DOTALL)


def worked_state() -> Any:
    state, _ = GAME.new_match(Setup({}, 3, WORKED["seed"], WORKED["names"]))
    for moves in WORKED["moves"][:-1]:
        state, _ = GAME.resolve(state, {int(seat): move for seat, move in moves.items()})
    return state


def test_the_page_has_a_players_part_then_moderators_then_reference() -> None:
    players = PAGE[: PAGE.index("\n# For moderators\n")]
    assert PAGE.index("\n# For moderators\n") < PAGE.index("\n# Reference\n")
    assert len(re.findall(r"\S+", players)) <= 1500
    for title in ("The game in one paragraph", "An auction", "A worked auction", "Winning"):
        assert f"\n## {title}\n" in players


def test_the_worked_auction_is_what_the_bot_showed() -> None:
    state = worked_state()
    prompt, post = fenced(part("A worked auction"))
    assert GAME.requests(state)[0].prompt == prompt
    moves = {int(seat): move for seat, move in WORKED["moves"][-1].items()}
    assert "Ann sends\n`1`" in part("A worked auction") and moves[0] == "1"
    _, events = GAME.resolve(state, moves)
    assert next(e.text for e in events if e.kind == "reveal") == post


def test_a_typed_bid_is_accepted_as_the_page_says() -> None:
    state, _ = GAME.new_match(Setup({}, 3, 1))
    text = part("An auction")
    assert "type its\n   value, e.g. `3` (`3 coins` works too)" in text
    for typed in ("3", "3 coins"):
        verdict = GAME.submit(state, 0, typed)
        assert isinstance(verdict, Accepted) and verdict.move == "3"


def test_declare_and_pass_are_accepted_under_utter_darkness() -> None:
    assert "(or\ntype `declare`)" in PAGE and "may `declare` or `pass`" in PAGE
    state, _ = GAME.new_match(Setup({"utter_darkness": True}, 3, 1))
    assert isinstance(GAME.submit(state, 0, "declare"), Accepted)
    state.phase = "last_call"
    assert isinstance(GAME.submit(state, 0, "pass"), Accepted)


def test_every_option_in_the_table_is_an_option_and_its_example_is_accepted() -> None:
    rows = [line for line in part("Options").splitlines() if line.startswith("| `")]
    names = [re.findall(r"`([^`]+)`", row)[0] for row in rows]
    assert set(names) == set(parse_config({}, 3))
    assert '`["Wolfsbane"]`' in part("Options")
    assert parse_config({"small_selection": ["Wolfsbane"]}, 3)["small_selection"] == ["Wolfsbane"]


def test_g2_the_effects_table_is_the_engines() -> None:
    rows = [line for line in part("Magic Infused: cards with effects").splitlines()]
    named = [re.findall(r"\*\*([^*]+)\*\*", row)[0] for row in rows if row.startswith("| **")]
    assert named == list(EFFECTS)
    assert "(`Toadstool (Cursed)`)" in PAGE and "20 s; if you let it pass" in PAGE


def test_a7_the_typed_deal_commands_on_the_page_are_accepted() -> None:
    text = part("Deals")
    for typed in ("offer Bo give Toadstool, coin 3 for Bat Wing", "accept 3", "decline 3", "ready"):
        assert f"`{typed}`" in text
    state, _ = start([T, B, N] * 3, names=["Ann", "Bo", "Cy"], deal_window=30)
    state, _ = bids(state, "5", "1", "2")  # Ann: Toadstool; a deal window
    state.seats[1].add(B, "")
    state.next_offer = 3
    state, _ = answer(state, 1, "offer Ann give Bat Wing for coin 2")
    assert "Offer 3 from Bo: you get Bat Wing; you give coin 2." in prompt(state, 0)
    for typed in ("offer Bo give Toadstool, coin 3 for Bat Wing", "accept 3", "decline 3", "ready"):
        verdict = GAME.submit(state, 0, typed)
        assert isinstance(verdict, Accepted), (typed, verdict)
    reference = part("Deals, in full")
    state.seats[0].add(T, "")
    more = (
        "offer Bo give Toadstool, coin 3 for Bat Wing favour no bids on Newt",
        "offer Bo 2 Toadstool for nothing",
        "propose Bo",
        "accept",
    )
    flat = " ".join(reference.split())
    for said in (
        "favour no bids on Newt`",
        "(`give` is optional; `2 Toadstool` is two;",
        "`propose Bo`",
    ):
        assert said in flat, said
    assert "`accept` alone answers the one offer waiting" in flat
    for typed in more:
        verdict = GAME.submit(state, 0, typed)
        assert isinstance(verdict, Accepted), (typed, verdict)
