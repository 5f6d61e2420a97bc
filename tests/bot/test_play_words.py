"""``floral-host play``'s own words and readings, without a process: what a typed line
submits, how a game's Discord text shows in a terminal, and the end of a match in words."""

from __future__ import annotations

import io
from typing import cast

import pytest
from rich.console import Console

from bot.host import Host
from bot.host.model import OpenPrompt, SubmitResult
from bot.terminal import render
from bot.terminal.answers import AnswerError, completions, how_to_answer, read_answer
from bot.terminal.markdown import rich_text, timestamp
from bot.terminal.session import NOT_SHOWN_YET, Screen, Session
from games import registry
from games.protocol import Choice, Request, Topic

FLOWERS = Request(
    0,
    "plant",
    "Choose a flower.",
    (Choice("A", "Azalea"), Choice("C", "Chrysanthemum"), Choice("H", "Hyacinth")),
    "plant nothing",
    60.0,
)
COINS = Request(0, "bid", "Bid a coin.", (Choice("2", "2 coin"), Choice("5", "5 coin")), "", 45.0)
HAND = Request(
    0,
    "pick",
    "Pick 1 to 2 cards.",
    (Choice("ember", "Ember Thorn"), Choice("viper", "Viper Root"), Choice("jade", "Jade")),
    "nothing",
    60.0,
    min_choices=1,
    max_choices=2,
)


def plain(renderable: object, width: int = 100) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


@pytest.mark.parametrize(
    ("request_", "typed", "raw"),
    [
        (FLOWERS, "2", "C"),  # by its number in the list
        (FLOWERS, " 3 ", "H"),
        (FLOWERS, "h", "H"),  # by its answer, any case
        (FLOWERS, "azalea", "A"),  # by its label
        (FLOWERS, "declare 3 A", "declare 3 A"),  # the game's typed grammar, as typed
        (COINS, "2", "2"),  # answers that are numbers are what a number means
        (COINS, "1", "1"),  # not a position: the game refuses a coin you do not hold
        (HAND, "1 3", "ember,jade"),  # several numbers, several choices
        (HAND, "1,2", "ember,viper"),
        (HAND, "ember jade", "ember,jade"),  # several answers with spaces
        (HAND, "Jade", "jade"),
    ],
)
def test_what_a_typed_line_submits(request_: Request, typed: str, raw: str) -> None:
    assert read_answer(request_, typed) == raw


@pytest.mark.parametrize(
    ("request_", "typed", "problem"),
    [
        (FLOWERS, "4", "There is no choice 4: pick a number from 1 to 3."),
        (FLOWERS, "0", "There is no choice 0: pick a number from 1 to 3."),
        (FLOWERS, "1 2", "Pick at most 1 here."),
        (HAND, "1 2 3", "Pick at most 2 here."),
        (HAND, "2 2", "Pick each choice once."),
    ],
)
def test_a_number_that_picks_nothing_is_refused_in_words(
    request_: Request, typed: str, problem: str
) -> None:
    with pytest.raises(AnswerError) as refused:
        read_answer(request_, typed)
    assert str(refused.value) == problem


def test_how_to_answer_says_numbers_only_where_the_list_is_numbered() -> None:
    assert how_to_answer(FLOWERS) == "Type a number, or the answer itself."
    assert how_to_answer(COINS) == "Type one of the answers."
    assert how_to_answer(HAND).startswith("Pick 1 to 2: type their numbers")


def test_the_choices_are_listed_by_number_under_their_groups() -> None:
    request = Request(
        0,
        "action",
        "Your action.",
        (Choice("take 1", "Take 3 coins", "take"), Choice("end", "End the turn", "end")),
        "end",
        60.0,
    )
    shown = plain(render.question(request, "red-phoenix", 42.0))
    assert "1 Take 3 coins" in shown and "2 End the turn" in shown
    assert "take 1" not in shown  # a numbered choice shows its label, never its raw value
    lines = [line.strip("│ ") for line in shown.splitlines()]
    assert lines.index("Take") < lines.index("End")  # a heading per group
    assert "⏳ 42 s · if you don't answer: end" in shown
    coins = plain(render.question(COINS, "warlocks-brew"))
    assert "2 coin" in coins and "1 2 coin" not in coins  # a number answer is not numbered


def test_completion_offers_the_answers_then_the_names() -> None:
    offered = dict(completions(FLOWERS, ["Human", "AI (normal)"], ""))
    assert list(offered) == ["A", "C", "H"] and offered["A"] == "Azalea"
    assert [text for text, _ in completions(None, ["Human", "AI (normal)"], "trade A")] == [
        "trade AI (normal)"
    ]


def test_discord_markdown_shows_as_styles_line_by_line() -> None:
    text = rich_text("**Table**, turn 2\n1 ▸ [pipe]──▶ ⚗\n> quoted *now*", "flaky-flasks")
    assert text.plain == "Table, turn 2\n1 ▸ [pipe]──▶ ⚗\n│ quoted now"
    assert any(span.style.bold for span in text.spans if hasattr(span.style, "bold"))
    assert "snake_case_id" in rich_text("snake_case_id and 2 * 3 * 4").plain


@pytest.mark.parametrize(
    ("discord", "terminal"),
    [
        ("see `/look`", "see view"),
        ("use `/garden`", "use view"),
        ("`/cards` lists them", "cards lists them"),
        ("(`/rules floral-extract` explains them.)", "(the rules page docs/g.md explains them.)"),
        ("send `/submit answer:4`", "send 4"),
        ("`/match leave`", "/match leave"),
    ],
)
def test_a_discord_command_in_a_game_text_becomes_the_terminals(
    discord: str, terminal: str
) -> None:
    assert rich_text(discord, "g").plain == terminal


def test_a_discord_timestamp_becomes_a_time() -> None:
    assert timestamp(1_000, "R", now=958.0) == "in 42 s"
    assert rich_text("closes <t:99999999999:R>").plain.startswith("closes in ")


SEATS_2 = render.Seats(("Human", "AI (normal)"))


@pytest.mark.parametrize(
    ("winners", "scores", "first_line"),
    [
        ([0], [4, 2], "You won: 4 points to 2."),
        ([1], [2, 4], "AI (normal) wins: 4 points to 2."),
        ([0, 1], [3, 3], "You share the win with AI (normal): 3 points to 3."),
        ([], None, "Nobody wins."),
        ([1], None, "AI (normal) wins."),
    ],
)
def test_the_end_in_words(winners: list[int], scores: list[int] | None, first_line: str) -> None:
    outcome = {"winners": winners, "reason": "turn_limit", "detail": "After turn 100."}
    text = render.ending_text(outcome, SEATS_2, scores, "points")
    assert text == f"{first_line}\nHow it ended: turn limit. After turn 100."


@pytest.mark.parametrize("seats", range(3, 7))
def test_the_end_names_every_winner_at_any_table(seats: int) -> None:
    names = ("Human", *(f"AI {seat} (normal)" for seat in range(1, seats)))
    outcome = {"winners": list(range(1, seats)), "reason": "", "detail": ""}
    text = render.ending_text(outcome, render.Seats(names), list(range(seats)), "points")
    others = ", ".join(names[1:-1]) + f" and {names[-1]}"
    assert (
        text
        == f"{others} win: you 0, "
        + ", ".join(f"{name} {seat}" for seat, name in enumerate(names) if seat)
        + " points."
    )


def test_a_score_label_of_several_words_leads() -> None:
    outcome = {"winners": [1], "reason": "triple", "detail": "AI (normal) brewed three Bat Wing."}
    text = render.ending_text(outcome, SEATS_2, [1, 3], "most of one ingredient")
    assert text == (
        "AI (normal) wins: most of one ingredient 3 to 1.\n"
        "How it ended: triple. AI (normal) brewed three Bat Wing."
    )


def test_cards_shows_the_reference_or_says_there_is_none() -> None:
    topics = [Topic("Bat Wing", "An **ingredient**."), Topic("Toadstool", "Another one.")]
    assert "Bat Wing" in plain(render.cards_view("G", "g", topics, ""))
    found = plain(render.cards_view("G", "g", topics, "toad"))
    assert "Toadstool" in found and "Bat Wing" not in found
    assert "has no card reference yet" in plain(render.cards_view("G", "g", [], ""))
    long = [Topic(f"Potion {n}", "x" * 900) for n in range(6)]
    index = plain(render.cards_view("G", "g", long, ""))
    assert "Potion 5" in index and "xxx" not in index and "cards all" in index
    assert plain(render.cards_view("G", "g", long, "all")).count("x" * 50) >= 6


def test_help_shows_the_games_reference_else_the_choices() -> None:
    reference = Request(0, "cast", "Cast.", FLOWERS.choices, "nothing", 60.0, help="Type `cast X`.")
    shown = plain(render.help_view(reference, False, "g", interactive=True))
    assert "Type cast X." in shown and "Tab" in shown and "quit" in shown
    bare = plain(render.help_view(FLOWERS, True, "g", interactive=False))
    assert "3 Hyacinth" in bare and "You have answered" in bare and "Tab" not in bare


def test_view_shows_your_hand_as_a_table_where_the_reference_names_its_cards() -> None:
    view = {"turn": 1, "you": {"hand": ["Bat Wing", "Toadstool"]}}
    topics = [Topic("Bat Wing", "Worth **2**."), Topic("Moon Dust", "Worth 3.")]
    shown = plain(render.view_view("Turn 1.", "g", view, topics))
    assert "Your hand" in shown and "Worth 2." in shown and "Toadstool" in shown
    assert "Your hand" not in plain(render.view_view("Turn 1.", "g", view, []))
    assert render.hand_of({"hand": [1, 2]}) is None  # coins are not cards to look up


class OneQuestionHost:
    """The host as an answer meets it: one question open for you; what is submitted."""

    def __init__(self, step: int) -> None:
        self.open = OpenPrompt(1, step, FLOWERS, 1e12, False)
        self.submitted: list[tuple[str, int | None]] = []

    def prompts_for(self, user: int) -> list[OpenPrompt]:
        return [self.open]

    async def submit(
        self, match_id: int, user: int, raw: str, *, step: int | None = None
    ) -> SubmitResult:
        self.submitted.append((raw, step))
        return SubmitResult(True, f"You plant {raw}.", match_id, 0, step)


@pytest.mark.parametrize(
    ("shown_step", "submitted"),
    [
        (None, []),  # the question read closed, the next not shown yet: refused in words
        (2, [("C", 2)]),  # the open question is the one shown: its second choice
        (1, [("C", 1)]),  # an older one is shown: the host refuses it, not a list unread
    ],
)
async def test_a_number_picks_from_the_question_you_read_never_one_not_shown_yet(
    shown_step: int | None, submitted: list[tuple[str, int]]
) -> None:
    host = OneQuestionHost(step=2)
    out = io.StringIO()
    session = Session(
        cast(Host, host), registry.load("floral-extract"), 1, render.Seats(("You", "AI")),
        Screen(out, interactive=False, on_closed=None), question=FLOWERS, question_step=shown_step,
    )  # fmt: skip
    await session.answer("2")
    assert host.submitted == submitted
    assert (NOT_SHOWN_YET in out.getvalue()) == (shown_step is None)
    await session.answer("hyacinth")  # an answer itself names what it picks: always taken
    assert host.submitted[-1] == ("H", 2)
