"""``/cards``: a match's content reference paged within Discord's embed limits, every topic
once and in order; ``help``: the prompt's reference, or the prompt and how to answer it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cogs.cards import clip, page_embed, reference_pages
from cogs.prompts import help_text
from games.protocol import HELP_CHARS, TOPIC_CHARS, Choice, Request, Topic
from tests.e2e.fake_discord.limits import embed_errors

TOPICS = st.lists(
    st.builds(Topic, st.text(max_size=300), st.text(max_size=TOPIC_CHARS)), max_size=120
)


@given(TOPICS)
def test_every_topic_is_on_one_page_in_order_and_every_page_fits_an_embed(
    topics: list[Topic],
) -> None:
    pages = reference_pages(topics)
    assert sum(map(len, pages)) == len(topics)
    for number, fields in enumerate(pages, start=1):
        embed = page_embed("Toy Guess: the cards of match m1" * 10, fields, number, len(pages))
        assert embed_errors([embed.to_dict()]) == []
        assert 1 <= len(fields) <= 25
    shown = [name for fields in pages for name, _ in fields]
    assert shown == [clip(topic.title, 256) for topic in topics]  # each once, in order


def request(help_: str = "", choices: int = 3, most: int = 1) -> Request:
    options = tuple(Choice(f"c{n}", f"Card {n}") for n in range(choices))
    return Request(0, "pick", "Pick a card.", options, "you pass", 60.0, max_choices=most,
                   help=help_)  # fmt: skip


def test_help_is_the_games_reference_for_the_decision() -> None:
    text = help_text(request("Pick the card you want: c0 is worth 3, c1 and c2 are worth 1."), 4)
    assert text == (
        "❔ **Help: your prompt in match m4**\n"
        "Pick the card you want: c0 is worth 3, c1 and c2 are worth 1."
    )
    assert len(help_text(request("x" * HELP_CHARS), 10**12)) <= 2000


def test_without_a_reference_help_is_the_prompt_and_how_to_answer() -> None:
    assert help_text(request(), 4).splitlines()[1:] == [
        "Pick a card.",
        "Use a button or the menu, or type one of: c0 (Card 0), c1 (Card 1), c2 (Card 2)."
        " If you don't answer in time: you pass.",
    ]
    several = help_text(request(most=2), 4)
    assert "Pick 1 to 2 in the menu, or type them joined by ',' (as in `c0,c1`)" in several
    many = help_text(request(choices=400), 4)
    assert len(many) <= 2000 and "more (see the menu)" in many
