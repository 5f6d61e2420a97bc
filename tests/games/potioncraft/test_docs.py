"""``docs/potioncraft.md`` is the rules page as the bot plays it: every typed answer it gives as an
example is accepted in a position where it applies, and its worked example turn is what the
engine shows for that seed, prompt for prompt."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from games.potioncraft import GAME
from games.potioncraft.cards import CATEGORY_OF, POTIONS, SPELL_TYPE
from games.potioncraft.grammar import Act, canonical, parse
from games.potioncraft.state import State
from games.protocol import Accepted, Setup

from .helpers import state_after, step

DOC = Path(__file__).resolve().parents[3] / "docs" / "potioncraft.md"
PLAYERS = ["Alice", "Bob", "Carol"]
KEYWORDS = ("deck", "pile", "play", "craft", "perk", "end", "keep", "order", "discard", "block",
            "pass", "pair")  # fmt: skip
FILLER = ["Coffin Nails", "Eye of Newt", "Spider Silk", "Nightshade", "Unicorn Hair",
          "Ghoul Tongue", "Starflower", "Crushed Pearl", "Pumpkin Guts", "Yew Tree Branch",
          "Mermaid Scale"]  # fmt: skip


def typed_examples() -> list[str]:
    """Every inline code span of the page that is a complete typed answer (no placeholder)."""
    spans = re.findall(r"`([^`\n]+)`", DOC.read_text())
    return sorted(
        {
            span
            for span in spans
            if span.split(" ")[0].casefold() in KEYWORDS and "<" not in span and "…" not in span
        }
    )


def test_the_page_has_typed_examples_of_every_common_answer() -> None:
    kinds = {example.split(" ")[0].casefold() for example in typed_examples()}
    assert {"deck", "pile", "play", "craft", "perk", "end", "discard", "block", "pass"} <= kinds


def position(act: Act) -> tuple[State, int]:
    """A three-player position where ``act`` answers the open window, and the seat to send it."""
    base: dict[str, Any] = {"players": PLAYERS}
    if act.kind in ("deck", "pile"):
        piles = {p: ["Amethyst"] for p in PLAYERS}
        return state_after(**base, preset={"piles": piles}), 0
    if act.kind == "craft":
        assert act.potion is not None
        category = POTIONS[act.potion].category
        decks = {"Maleficia": ["Severance Draught"], "Benedicta": ["Mirror Dew"],
                 "Fortuna": ["Oracle's Dew"]} | {category: [act.potion]}  # fmt: skip
        preset: dict[str, Any] = {}
        if act.using is not None:
            preset = {"potions": {"Alice": [act.using]}, "mimic_log": [act.name] * bool(act.name)}
        state = state_after(**base, hands={"Alice": list(act.cards)}, potion_decks=decks,
                            preset=preset, steps=[draw()])  # fmt: skip
        return state, 0
    if act.kind == "play":
        assert act.card is not None
        hand = [act.card, *act.cards]
        preset = (
            {"piles": {"Bob": [act.name]}} if SPELL_TYPE[act.card] == "Summon from Beyond" else {}
        )
        if act.potion is not None:
            preset = {"potions": {"Bob": [act.potion]}}
        return state_after(**base, hands={"Alice": hand}, preset=preset, steps=[draw()]), 0
    if act.kind == "perk":
        assert act.potion is not None
        return state_after(**base, preset={"potions": {"Alice": [act.potion]}}, steps=[draw()]), 0
    if act.kind == "end":
        return state_after(**base, steps=[draw()]), 0
    if act.kind == "discard":
        hand = list(act.cards) + [c for c in FILLER if c not in act.cards][:8]  # 1 drawn: 9 + N
        steps = [draw(), step("main", Alice=["end"])]
        return state_after(**base, hands={"Alice": hand}, steps=steps), 0
    if act.kind in ("block", "pass"):
        spell = act.card or "Hex Seal (Benedicta)"
        reset = step("main", Alice=["perk Silence of the Grave"])
        state = state_after(**base, hands={"Bob": [spell]},
                            preset={"potions": {"Alice": ["Silence of the Grave"]}},
                            steps=[draw(), reset])  # fmt: skip
        return state, 1
    assert act.kind == "pair" and act.card is not None
    thief, wager = "Thief's Gamble (Fortuna)", FILLER[:4]
    other = next(c for c in ("Amethyst", "Frankincense") if c != act.card)
    state = state_after(
        **base,
        hands={"Alice": [thief, *wager], "Bob": [act.card, act.card, other, other]},
        preset={"potions": {"Bob": ["Wispwine"]}},
        steps=[
            draw(),
            step("main", Alice=[f"play {thief} on Bob steal Wispwine wager " + ", ".join(wager)]),
        ],
    )
    return state, 1


def draw() -> dict[str, Any]:
    return step("draw", Alice=["deck"])


@pytest.mark.parametrize("example", typed_examples())
def test_every_typed_example_of_the_page_is_accepted(example: str) -> None:
    act = parse(example, PLAYERS)
    state, seat = position(act)
    verdict = GAME.submit(state, seat, example)
    assert isinstance(verdict, Accepted), (example, verdict)
    assert verdict.move == canonical(act, PLAYERS)
    if example.casefold() == "pile p2":
        assert verdict.move == "pile Bob"


# --- the worked example turn -------------------------------------------------------------------


def blocks() -> list[str]:
    """The page's fenced blocks in the worked example section."""
    section = DOC.read_text().split("## A worked example turn")[1].split("\n## ")[0]
    return re.findall(r"```\n(.*?)\n```", section, re.S)


def test_the_worked_example_is_what_the_engine_shows() -> None:
    names = ["Human", "AI 1 (normal)", "AI 2 (normal)"]
    state, _ = GAME.new_match(Setup(GAME.parse_config({}, 3), 3, 91, names))
    draw_prompt, main_prompt, after_craft = blocks()
    (request,) = GAME.requests(state)
    assert request.prompt == draw_prompt
    state, events = GAME.resolve(state, {0: "deck"})
    assert "You draw Lightning Bug Glow." in [e.text for e in events]
    (request,) = GAME.requests(state)
    assert request.prompt == main_prompt
    typed = "craft wispwine with raven feather, lightning bug glow, clear quartz, amethyst"
    verdict = GAME.submit(state, 0, typed)
    assert isinstance(verdict, Accepted)
    assert verdict.summary == (
        "Craft Wispwine with Raven Feather, Lightning Bug Glow, Clear Quartz and Amethyst"
    )
    state, events = GAME.resolve(state, {0: verdict.move})
    assert (
        "Human crafts Wispwine (Raven Feather, Lightning Bug Glow, Clear Quartz, Amethyst)."
        " New Benedicta potion: Heartfire Infusion." in [e.text for e in events]
    )
    (request,) = GAME.requests(state)
    assert request.prompt.startswith(after_craft + "\n")
    assert len(state.hands[0]) + 3 * len(state.potions[0]) == 9  # `end`: nothing to discard
    assert CATEGORY_OF["Clear Quartz"] == CATEGORY_OF["Amethyst"] == CATEGORY_OF["Crushed Pearl"]
