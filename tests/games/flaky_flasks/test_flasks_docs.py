"""docs/flaky-flasks.md is what the bot does: its structure (the player's part first, at most
~1,500 words), its worked example (the prompts exactly as the engine gives them), and every
typed answer it shows (each accepted, names and ids alike)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from cogs.flaky_flasks import parse_options
from games.flaky_flasks import GAME
from games.protocol import Accepted, Setup

DOC = (Path(__file__).resolve().parents[3] / "docs" / "flaky-flasks.md").read_text("utf-8")
PLAYER = DOC.split("\n# For moderators")[0]
VERBS = ("keep", "layout", "hex", "pass", "counter", "play", "charm", "prop", "boost", "brew")
VERBS += ("done", "sell", "buy", "offer", "accept", "refuse")
KIND = {"keep": "setup", "layout": "setup", "hex": "hex", "counter": "counter"}
KIND |= {v: "work" for v in ("play", "charm", "prop", "boost", "brew", "done")}
KIND |= {"sell": "market", "buy": "market", "offer": "offer", "accept": "reply"}
KIND |= {"refuse": "reply"}


ALONE = ("keep", "pass", "brew", "done", "accept", "refuse")  # answers of one word


def typed_examples() -> list[str]:
    """Every code span of the page that is an answer: it starts with a command word (a span
    naming only the command, ``prop``, or its grammar, ``charm <card>``, is not one)."""
    spans = re.findall(r"`([^`\n]+)`", DOC)
    return sorted(
        {s for s in spans if s.split()[0] in VERBS and "<" not in s and (" " in s or s in ALONE)}
    )


def test_the_page_has_the_shared_structure_and_a_short_players_part() -> None:
    heads = re.findall(r"^(#{1,2}) (.+)$", DOC, flags=re.MULTILINE)
    tops = [title for level, title in heads if level == "#"]
    assert tops == ["Flaky Flasks, as the bot plays it", "For moderators", "Reference"]
    assert len(PLAYER.split()) <= 1500
    for section in ("A worked example turn", "Answers you can type", "Your work"):
        assert section in PLAYER
    for section in ("## Options", "## Content sets", "## Scripts"):
        assert section in DOC.split("\n# For moderators")[1]


def test_the_worked_example_shows_the_prompts_exactly_as_the_bot_does() -> None:
    """Seed 6, Alice and Bob: the page's prompt blocks are Alice's prompts before her first
    answer and after her `prop 1`; the answers and acknowledgement it quotes are accepted."""
    blocks = re.findall(r"```text\n(.*?)\n```", PLAYER, flags=re.DOTALL)
    assert len(blocks) == 2
    state, _ = GAME.new_match(Setup(GAME.parse_config({}, 2), 2, 6, ["Alice", "Bob"]))
    shown = []
    for answer in ("play Ember Thorn 1", "play copper 2", "play Copper Coin 3", "prop 1", "done"):
        assert f"`{answer}`" in PLAYER
        (request,) = [r for r in GAME.requests(state) if r.seat == 0]
        shown.append(request.prompt)
        verdict = GAME.submit(state, 0, answer)
        assert isinstance(verdict, Accepted), verdict
        if answer == "play Ember Thorn 1":
            assert f"✅ {verdict.summary}" in " ".join(PLAYER.split())
        state, _ = GAME.resolve(state, {0: verdict.move})
    assert blocks == [shown[0], shown[4]]


def _state(kind: str, example: str = "") -> Any:
    """A match of Alice and Bob with ``kind`` open for Alice, and everything the page's
    examples name where they need it (a sandbox: only ``submit`` reads it)."""
    state, _ = GAME.new_match(Setup(GAME.parse_config({}, 2), 2, 6, ["Alice", "Bob"]))
    state = json.loads(json.dumps(state))
    g = state["g"]
    g["win"].update(kind=kind, prompted=[0], finished=[])
    alice, bob = g["players"]
    alice.update(
        hand=["brick", "root", "moth", "candle", "copper", "copper", "ember"],
        charge=1,
        cauldron=["T2R", "S1G"],
        coins=20,
        potions=[{"n": 1, "symbols": ["S1R", "S1G", "P2B"]}],
        channels=[["pipe"], ["press"], ["prism@R"], ["kiln"]],
        slots=[None, None, None, None],
        deck=[*alice["deck"], "glowcap"],
    )
    bob["channels"] = [["pipe"], ["kiln"], [], []]
    g["rows"]["river"]["1"] = ["glowcap", "silver", "root", "moth"]
    g["rows"]["tableau"]["1"] = ["kiln", "heater", "prism"]
    g["bargain"]["offer"] = {"from": 1, "text": "offer Alice give 2c get card:ember"}
    if example.startswith("prop "):  # its slot holds an ingredient (elsewhere it is free)
        alice["slots"][0] = {"id": "ember", "left": ["T1R", "T1R"]}
        alice["slots"][1] = {"id": "quartz", "left": ["S1R", "S2B", "S2B"]}
    return state


@pytest.mark.parametrize("example", typed_examples())
def test_every_typed_example_of_the_page_is_accepted(example: str) -> None:
    kind = KIND.get(example.split()[0], "hex")  # pass: any window that has it
    verdict = GAME.submit(_state(kind, example), 0, example)
    assert isinstance(verdict, Accepted), (example, verdict)
    assert verdict.summary and verdict.summary != verdict.move


def test_the_page_shows_enough_examples_and_names_read_as_ids() -> None:
    examples = typed_examples()
    assert len(examples) >= 20
    work = _state("work")
    named = GAME.submit(work, 0, "play Brick Salt 1")
    by_id = GAME.submit(work, 0, "play brick 1")
    assert isinstance(named, Accepted) and isinstance(by_id, Accepted)
    assert named.move == by_id.move == "play brick 1"
    market = _state("market")
    verdict = GAME.submit(market, 0, "buy Glowcap trash Copper Coin")
    assert isinstance(verdict, Accepted) and verdict.move == "buy glowcap trash copper"
    setup = GAME.submit(_state("setup"), 0, "layout 1=Straight Pipe,Kiln 2=Prism@G")
    assert isinstance(setup, Accepted) and setup.move == "layout 1=pipe,kiln 2=prism@G"


def test_the_options_line_example_is_read() -> None:
    line = re.search(r"`(bargain=false, [^`]*)`", DOC)
    assert line is not None
    config = GAME.parse_config(parse_options(line[1]), 3)
    assert config["bargain"] is False and config["fume_decay"] == 2
    assert config["work_window_s"] == 90 and config["seed"] == 42
