"""``docs/red-phoenix.md`` as a test: every typed example in it is an answer the bot accepts in
the window it is for, the worked example turn shows the prompts the bot shows (replayed from
its seed), and the player's part comes first, within about 1,500 words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games.protocol import Accepted, Setup
from games.red_phoenix import GAME, replay_script
from games.red_phoenix.engine import apply_preset
from games.red_phoenix.state import Formula, State

from .helpers import decks, script
from .test_phoenix_names import with_monster

DOC = Path(__file__).resolve().parents[3] / "docs" / "red-phoenix.md"
TEXT = DOC.read_text(encoding="utf-8")
PLAYERS_PART = TEXT.split("\n# For moderators", 1)[0]
SPAN = re.compile(r"`([^`\n]+)`")
PLACEHOLDER = re.compile(r"\b(N|CARD|METHOD|FEE|ITEMS?|PLAYER|TEXT|MONSTER)\b|F#|M#|…|\|")
ACTIONS = ("take", "buy", "slow", "fast", "reproduce", "dissolve", "use", "trade", "license", "end")
EXAMPLE = re.compile(r"```text\n(.*?)\n```|^\* `([^`]+)` → ✅ ([^\n]+)$", re.S | re.M)
WINDOWS = {"keep": "keep", "ward": "ward", "pass": "ward", "accept": "trade", "decline": "trade"}


def examples() -> list[str]:
    """Every code span that is a whole answer: it starts with a command and holds no
    placeholder of the grammar."""
    found = []
    for span in SPAN.findall(TEXT):
        words = span.split()
        first = words[0].lower() if words else ""
        whole = len(words) > 1 or first in ("end", "ward", "pass", "accept", "decline")
        if (
            (first in ACTIONS or first in WINDOWS or first == "discard")
            and whole
            and not (PLACEHOLDER.search(span))
        ):
            found.append(span)
    return list(dict.fromkeys(found))


def bare_lists() -> list[str]:
    """The bare lists the keep and discard windows take, as the page lists them."""
    sentence = re.search(r"Keep and discard windows also take the bare list[^.]*\.", TEXT, re.S)
    assert sentence is not None
    return SPAN.findall(sentence.group())


def action_state() -> tuple[State, int]:
    """Ann's action window with every card the examples use, her own formula F1 (made on an
    earlier turn) and a monster M1 in play."""
    config = GAME.parse_config({"seed": 3}, 3)
    state, _ = GAME.new_match(Setup(config, 3, 0, ["Ann", "Ben", "Cy"]))
    seat = state.g["active"]
    hand = ["salt", "lead", "vitriol", "brimstone", "quicksilver", "hooch", "greek_fire"]
    apply_preset(state, seat, {"hand": [*hand, "acid_flask"], "coins": 20})
    formula: Formula = {
        "id": "F1",
        "creator": seat,
        "level": 1,
        "value": 3,
        "ingredients": ["lead", "salt", "vitriol"],
        "results": ["hooch@3"],
        "products": ["hooch"],
        "knowers": [seat],
        "license": None,
        "created": 0,
    }
    state.g["formulas"].append(formula)
    state.g["players"][seat]["knows"].append("F1")
    state.g["nf"] = 2
    ben = state.names.index("Ben")
    state.g["players"][ben]["hand"] = {"salt": 1}  # for the trade asking Ben for a Salt
    return with_monster(state, (seat + 1) % 3), seat


def window_state(kind: str) -> State:
    """A keep, ward, trade or discard window open for P1 (or P2, answering a trade)."""
    if kind == "keep":
        steps = [("P1", ["fast gold_standard salt lead cinnabar"])]
        preset = {"P1": {"hand": ["salt", "lead", "cinnabar"], "coins": 5}}
        data = script(steps, decks=decks(I=["fail:lead", "hooch@3"]), preset={"players": preset})
    elif kind == "ward":
        steps = [("P1", ["end"]), ("P2", ["use greek_fire P1"])]
        preset = {"P1": {"hand": ["aether"]}, "P2": {"hand": ["greek_fire"]}}
        data = script(steps, preset={"players": preset})
    elif kind == "trade":
        data = script([("P1", ["trade P2 give 1"])])
    else:
        cards = ["salt", "salt", "lead", "cinnabar", "vitriol", "saltpeter", "brimstone", "hooch"]
        cards.append("elixir")  # nine cards: two to discard
        data = script([("P1", ["end"])], preset={"players": {"P1": {"hand": cards}}})
    state = list(replay_script(data))[-1].state
    assert GAME.requests(state)[0].kind == {"trade": "trade_response"}.get(kind, kind)
    return state


def accepts(state: State, raw: str) -> bool:
    seat = GAME.requests(state)[0].seat
    return isinstance(GAME.submit(state, seat, raw), Accepted)


def test_the_docs_hold_the_typed_examples_this_test_reads() -> None:
    found = examples()
    assert len(found) >= 20
    assert "fast blood_distillation brimstone quicksilver salt vitriol" in found
    assert bare_lists() == ["2", "Salt, Lead", "salt,salt#2"]


@pytest.mark.parametrize("raw", examples())
def test_every_typed_example_of_the_docs_is_accepted(raw: str) -> None:
    first = raw.split()[0].lower()
    if first in WINDOWS:
        assert accepts(window_state(WINDOWS[first]), raw), raw
    elif first == "discard":
        assert accepts(window_state("discard"), raw), raw
    else:
        state, seat = action_state()
        verdict = GAME.submit(state, seat, raw)
        assert isinstance(verdict, Accepted), (raw, verdict)


@pytest.mark.parametrize("raw", bare_lists())
def test_every_bare_list_of_the_docs_is_read_by_a_keep_or_a_discard_window(raw: str) -> None:
    assert accepts(window_state("keep"), raw) or accepts(window_state("discard"), raw), raw


def test_the_example_turn_shows_the_prompts_and_acknowledgements_the_bot_shows() -> None:
    """The example, replayed from its seed: Ann gives each answer the page lists (the bot's
    acknowledgement as quoted), the others end their turns, and every prompt the page shows
    is Ann's prompt at that point."""
    head, body = PLAYERS_PART.split("<!-- example:", 1)[1].split("-->", 1)
    setting = dict(item.split("=") for item in head.split())
    names = setting["players"].split(",")
    config = GAME.parse_config({"seed": int(setting["seed"])}, len(names))
    state, _ = GAME.new_match(Setup(config, len(names), 0, names))
    you = names.index(setting["you"])
    shown = answered = 0
    for block, answer, ack in EXAMPLE.findall(body.split("\n## ", 1)[0]):
        state = others_pass(state, you)
        if block:
            assert GAME.requests(state)[0].prompt == block
            shown += 1
            continue
        verdict = GAME.submit(state, you, answer)
        assert isinstance(verdict, Accepted) and verdict.summary == ack, (answer, verdict)
        state, _ = GAME.resolve(state, {you: verdict.move})
        answered += 1
    assert (shown, answered) == (3, 5)


def others_pass(state: State, you: int) -> State:
    """The other players end every turn of theirs."""
    while GAME.requests(state)[0].seat != you:
        seat = GAME.requests(state)[0].seat
        state, _ = GAME.resolve(state, {seat: "end"})
    return state


def test_the_players_part_comes_first_within_about_1500_words() -> None:
    assert TEXT.startswith("# Red Phoenix of the Alchemists, as the bot plays it\n")
    assert len(PLAYERS_PART.split()) <= 1500
    assert TEXT.index("\n# For moderators") < TEXT.index("\n# Reference")
    assert "## Options" in TEXT.split("\n# For moderators", 1)[1].split("\n# Reference")[0]
    assert "## Script format" in TEXT.split("\n# Reference", 1)[1]
