"""Prompt components: buttons while they fit, menus past that, pages past 25, multi-select, and
short ids whatever the choices' values."""

from __future__ import annotations

import re
from collections.abc import Mapping

import discord
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.host import SubmitResult
from bot.transport import request_from_json, request_to_json
from cogs.common import ack_text
from cogs.prompts import (
    MULTI_MOST,
    ChoiceButton,
    DeclareSelect,
    HelpButton,
    ScreenButton,
    SendButton,
    choice_keys,
    every_page,
    offered_values,
    picks_answer,
    picks_of,
    picks_word,
    prompt_view,
    turns_a_page,
    value_of,
)
from games.protocol import Choice, Presentation, Request
from tests.e2e.fake_discord import _component_errors

DECLARE_MENU: dict[str, Presentation] = {"declare": "menu"}
PRESENTATIONS: list[Presentation] = ["menu", "buttons", "steps"]


def request(
    choices: tuple[Choice, ...],
    presentation: Mapping[str, Presentation] | None = None,
    low: int = 1,
    high: int = 1,
) -> dict[str, object]:
    req = Request(
        0, "cast", "Turn 7 (X = 3): cast a rune.", choices, "cast A (0)", 60.0,
        min_choices=low, max_choices=high, presentation=dict(presentation or {}),
    )  # fmt: skip
    return request_to_json(req, match_id=12, step=9, deadline=1_900_000_000.0)


def rows_of(view: discord.ui.View) -> list[dict[str, object]]:
    rows = view.to_components()
    assert not _component_errors(rows), _component_errors(rows)  # Discord would accept them
    return rows


def reachable(payload: Mapping[str, object]) -> set[str]:
    """Every value some page of the prompt answers with, each page within Discord's limits."""
    found: set[str] = set()
    for view in every_page(payload):
        rows_of(view)
        found |= set(offered_values(view, payload))
    return found


async def test_runes_are_buttons_and_declarations_a_menu_by_the_games_hint() -> None:
    runes = tuple(Choice(s, f"{s} {i}", "rune") for i, s in enumerate("ABCDEFGH"))
    declares = tuple(Choice(s, f"Declare {s}", "declare") for s in "STUVWXYZ")
    view = prompt_view(request(runes + declares, DECLARE_MENU))
    assert view is not None and view.timeout is None
    items = view.children
    assert [type(i) for i in items] == [ChoiceButton] * 8 + [DeclareSelect, HelpButton]
    button = items[0]
    assert isinstance(button, ChoiceButton) and button.custom_id == "fx:12:9:A"
    menu = items[-2]
    assert isinstance(menu, DeclareSelect) and menu.custom_id == "fx:declare:12:9"
    assert [o.value for o in menu.item.options] == list("STUVWXYZ")
    assert all(isinstance(i, discord.ui.DynamicItem) for i in items)


async def test_without_a_hint_a_declare_group_is_just_buttons() -> None:
    """The cog knows no game's group names: only the request's hint makes a menu."""
    declares = tuple(Choice(s, f"Declare {s}", "declare") for s in "STUVWXYZ")
    view = prompt_view(request(declares))
    buttons = choice_items(view)
    assert len(buttons) == 8 and all(isinstance(i, ChoiceButton) for i in buttons)
    assert all(i.item.style == discord.ButtonStyle.primary for i in buttons)  # type: ignore[attr-defined]


async def test_a_menu_group_of_two_is_quiet_buttons() -> None:
    choices = (Choice("1", "1 coin", "coins"), Choice("declare", "Declare a win", "declare"))
    view = prompt_view(request(choices, DECLARE_MENU))
    assert view is not None
    coin, declare, _ = view.children
    assert isinstance(coin, ChoiceButton) and coin.item.style == discord.ButtonStyle.primary
    assert isinstance(declare, ChoiceButton) and declare.item.style == discord.ButtonStyle.secondary


async def test_no_choices_only_help() -> None:
    (only,) = prompt_view(request(())).children
    assert isinstance(only, HelpButton) and only.custom_id == "fh:12:9:?"


async def test_help_rides_where_a_row_has_room_and_survives_a_restart() -> None:
    for count, has_help in ((24, True), (25, False)):
        view = prompt_view(request(tuple(Choice(str(n), str(n)) for n in range(count))))
        assert any(isinstance(i, HelpButton) for i in view.children) == has_help
        assert len(rows_of(view)) == 5
    found = re.fullmatch(HelpButton.__discord_ui_compiled_template__, "fh:12:9:?")
    assert found is not None and (found["match"], found["step"]) == ("12", "9")


def choice_items(view: discord.ui.View) -> list[discord.ui.Item[discord.ui.View]]:
    return [item for item in view.children if not isinstance(item, HelpButton)]


def test_acknowledgements_name_what_was_accepted_and_for_what() -> None:
    result = SubmitResult(True, "take 1 card from the deck", 1, 0, 14, "turn 2")
    assert ack_text(result) == "✅ take 1 card from the deck — locked for turn 2."
    plant = SubmitResult(True, "Plant Azalea in pot 1.", 1, 0, 1, "the planting before turn 6")
    assert ack_text(plant) == "✅ Plant Azalea in pot 1 — locked for the planting before turn 6."
    bare = SubmitResult(True, "You bid your 3 coin.", 4, 0, 2)
    assert ack_text(bare) == "✅ You bid your 3 coin — locked (match 4)."
    revisable = SubmitResult(True, "You guess 4.", 4, 0, 2, "round 1", revisable=True)
    assert ack_text(revisable) == (
        "✅ You guess 4 — your answer for round 1; you can change it until the deadline."
    )


async def test_a_button_may_carry_a_word_and_still_parses_after_a_restart() -> None:
    button = ChoiceButton(4, 2, "declare", "Declare a win", True)
    found = re.fullmatch(ChoiceButton.__discord_ui_compiled_template__, button.custom_id)
    assert found is not None and found["key"] == "declare"


async def test_many_choices_go_to_menus_and_never_past_five_rows() -> None:
    coins = tuple(Choice(str(n), f"{n} coin", "coins") for n in range(40))
    view = prompt_view(request(coins))
    assert view is not None and len(rows_of(view)) == 3  # two menus and the Help button
    assert offered_values(view, request(coins)) == [str(n) for n in range(40)]
    menus = [i for i in view.children if isinstance(i, DeclareSelect)]
    assert [m.custom_id for m in menus] == ["fx:menu:12:9", "fx:menu:12:9:1"]


async def test_buttons_while_they_fit_beside_the_declarations() -> None:
    declares = tuple(Choice(s, f"Declare {s}", "declare") for s in "STUVWXYZ")
    for runes, buttons in ((20, 20), (21, 0)):
        choices = tuple(Choice(f"r{n}", f"rune {n}", "rune") for n in range(runes)) + declares
        payload = request(choices, DECLARE_MENU)
        view = prompt_view(payload)
        assert view is not None and len(rows_of(view)) <= 5
        assert sum(isinstance(i, ChoiceButton) for i in view.children) == buttons
        assert sorted(offered_values(view, payload)) == sorted(c.value for c in choices)


def test_a_long_or_odd_value_gets_an_index_key_and_maps_back() -> None:
    values = ["A", "Toad stool", "x" * 300, "A-1", "dup", "dup"]
    keys = choice_keys(values)
    assert keys == ["A", "#1", "#2", "A-1", "#4", "#5"]
    assert [value_of(k, values) for k in keys] == values
    assert value_of("#6", values) is None and value_of("B", values) is None  # an old prompt's


async def test_a_value_of_any_length_is_a_button_with_a_short_id() -> None:
    choices = (Choice("A", "Azalea", "flower"), Choice("y" * 300, "z" * 300, "coins"))
    payload = request(choices)
    view = prompt_view(payload)
    assert view is not None
    button = view.children[1]
    assert isinstance(button, ChoiceButton) and button.custom_id == "fx:12:9:#1"
    assert button.value == "y" * 300 and button.item.label == "z" * 79 + "…"
    found = re.fullmatch(ChoiceButton.__discord_ui_compiled_template__, button.custom_id)
    assert found is not None and found["key"] == "#1"
    rows_of(view)


async def test_past_five_menus_of_choices_one_menu_turns_pages() -> None:
    choices = tuple(Choice(f"card-{n}", f"Card {n}", "hand") for n in range(200))
    payload = request(choices)
    pages = list(every_page(payload))
    assert len(pages) == 9  # 24 a page, the 25th option turns the page
    first = pages[0].children
    assert len(first) == 2 and isinstance(first[0], DeclareSelect)
    options = first[0].item.options
    assert len(options) == 25 and options[-1].value == ">1"
    assert options[-1].label == "More… (page 2 of 9)"
    last = pages[-1].children[0]
    assert isinstance(last, DeclareSelect) and last.item.options[-1].value == ">0"
    assert reachable(payload) == {c.value for c in choices}


async def test_a_multi_choice_request_is_one_menu_with_its_minimum_and_maximum() -> None:
    hand = tuple(Choice(s, f"Card {s}", "hand") for s in "ABCDEFG")
    payload = request(hand, low=2, high=3)
    view = prompt_view(payload)
    assert view is not None
    menu, _ = view.children
    assert isinstance(menu, DeclareSelect) and menu.custom_id == "fx:multi:12:9"
    assert (menu.item.min_values, menu.item.max_values) == (2, 3)
    assert menu.item.placeholder == "Choose 2 to 3…"
    rows_of(view)


def selects(view: discord.ui.View) -> list[DeclareSelect]:
    return [item for item in view.children if isinstance(item, DeclareSelect)]


def send_of(view: discord.ui.View) -> SendButton:
    (send,) = [item for item in view.children if isinstance(item, SendButton)]
    return send


def test_a_multi_pick_past_25_choices_is_menus_whose_picks_the_send_button_carries() -> None:
    """A Red Phoenix discard of more than 25 cards could only be picked within one page: the
    picks now add up over several menus, kept in the prompt (Send's id) until Send."""
    hand = tuple(Choice(f"card {i} of the long deck", f"Card {i}", "hand") for i in range(60))
    payload = request(hand, low=2, high=30)
    view = prompt_view(payload)
    rows_of(view)
    menus = selects(view)
    assert [len(m.item.options) for m in menus] == [25, 25, 10]
    assert [m.custom_id for m in menus] == ["fx:pick:12:9", "fx:pick:12:9:1", "fx:pick:12:9:2"]
    assert all((m.item.min_values, m.item.max_values) == (0, min(30, len(m.item.options)))
               for m in menus)  # fmt: skip
    assert menus[1].item.placeholder == "Choose 2 to 30 in all: 26–50…"
    send = send_of(view)
    assert send.custom_id == f"fx:done:12:9:p{picks_word((), 60)}"
    assert send.item.label == "✅ Send 0 picked (2 to 30 wanted)"
    assert [type(i) for i in view.children][-1] is HelpButton

    picked = {3, 30, 59}  # in three menus
    shown = prompt_view(payload, picked=picked)
    rows_of(shown)
    keys = choice_keys([c.value for c in hand])
    defaults = {o.value for m in selects(shown) for o in m.item.options if o.default}
    assert defaults == {keys[i] for i in picked}
    word = send_of(shown).word
    assert picks_of(word, 60) == picked
    assert (send_of(shown).item.label or "").startswith("✅ Send 3 picked")
    answer = picks_answer(request_from_json(payload), word)
    assert answer == "card 3 of the long deck,card 30 of the long deck,card 59 of the long deck"


def test_picks_past_four_menus_take_screens_and_every_id_fits_at_the_most_choices() -> None:
    hand = tuple(Choice(f"c{i}", f"Card {i}", "hand") for i in range(MULTI_MOST))
    payload = request(hand, low=1, high=MULTI_MOST)
    payload["match_id"], payload["step"] = 10**12, 10**6  # ids a long-lived host may reach
    every = list(every_page(payload))
    assert len(every) == 4  # 16 menus of 25, four a screen
    for screen, view in enumerate(every):
        rows_of(view)
        assert len(selects(view)) == 4
        (more,) = [item for item in view.children if isinstance(item, ScreenButton)]
        assert more.screen == (screen + 1) % 4 and (more.item.label or "").endswith("of 4)")
    everything = prompt_view(payload, picked=set(range(MULTI_MOST)))
    assert len(send_of(everything).custom_id) <= 100  # and Discord keeps it
    assert picks_of(send_of(everything).word, MULTI_MOST) == set(range(MULTI_MOST))
    assert reachable(payload) == {c.value for c in hand}
    past = request((*hand, Choice("one more", "One more", "hand")), low=1, high=2)
    assert not [item for item in prompt_view(past).children if isinstance(item, SendButton)]
    assert reachable(past) == {c.value for c in hand} | {"one more"}  # one paged menu


def test_picks_of_a_word_no_send_button_made_are_none() -> None:
    for word in ("", "!!", "p", "A" * 90):
        assert picks_of(word, 10) <= set(range(10))
    assert picks_of(picks_word({0, 9, 12}, 10), 10) == {0, 9}  # past the choices: left out


def test_a_pick_and_another_screen_edit_the_prompt_and_send_answers() -> None:
    """How the bot treats the raw interactions (another process may defer them for it): a
    pick or a screen edits the prompt, like a page turn; Send is an answer."""

    def pressed(custom_id: str, values: list[str] | None = None) -> dict[str, object]:
        data: dict[str, object] = {"custom_id": custom_id}
        if values is not None:
            data["values"] = values
        return {"type": 3, "data": data}

    assert turns_a_page(pressed("fx:pick:12:9:1", ["#30"]))
    assert turns_a_page(pressed("fx:screen:12:9:s1"))
    assert not turns_a_page(pressed("fx:done:12:9:pAAE"))
    assert not turns_a_page(pressed("fx:multi:12:9", ["#3"]))


def test_a_multi_choice_answer_is_the_values_joined_and_survives_the_payload() -> None:
    hand = tuple(Choice(s, f"Card {s}", "hand") for s in "ABC")
    req = request_from_json(request(hand, {"hand": "menu"}, low=0, high=2))
    assert (req.min_choices, req.max_choices, req.presentation) == (0, 2, {"hand": "menu"})
    assert req.join_answer(["A", "C"]) == "A,C"
    assert req.split_answer("A, C") == ["A", "C"]
    single = request_from_json(request(hand))
    assert single.split_answer("A,C") == ["A,C"]  # one choice: the text is the value
    old = request(hand)
    for key in ("min_choices", "max_choices", "separator", "presentation"):
        del old[key]  # a prompt stored before these existed
    assert request_from_json(old) == single


values_st = st.text(st.characters(codec="utf-8"), min_size=1, max_size=300)


@st.composite
def requests(draw: st.DrawFn) -> dict[str, object]:
    count = draw(st.integers(0, 200))
    words = st.sampled_from(["A", "b-2", "declare", "x" * 20]) | values_st
    groups = st.sampled_from(["", "rune", "declare", "12", "g" * 40])
    choices = tuple(
        Choice(draw(words), draw(st.text(max_size=120)), draw(groups)) for _ in range(count)
    )
    high = draw(st.integers(1, max(1, count)))
    low = draw(st.integers(0, high))
    hints = draw(st.dictionaries(groups, st.sampled_from(PRESENTATIONS), max_size=3))
    return request(choices, hints, low, high)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=requests())
async def test_any_request_renders_within_discords_limits_and_reaches_every_choice(
    payload: dict[str, object],
) -> None:
    choices = payload["choices"]
    assert isinstance(choices, list)
    assert reachable(payload) == {c["value"] for c in choices}
    for view in every_page(payload):
        for item in view.children:
            if isinstance(item, DeclareSelect):
                select = item.item
                assert len(select.placeholder or "") <= 150
                if payload["max_choices"] == 1:
                    assert (select.min_values, select.max_values) == (1, 1)
                else:
                    assert select.max_values <= payload["max_choices"]  # type: ignore[operator]


def test_a_steps_group_asks_the_stage_first_then_its_choices_with_a_way_back() -> None:
    crafts = tuple(
        Choice(f"craft {potion} with {pay}", f"{potion}: {pay}", "craft", potion)
        for potion, pay in [("Mirror Dew", "A, B, C"), ("Mirror Dew", "A, B, D"), ("Aqua", "E, F")]
    )
    end = Choice("end", "End the turn")
    payload = request((*crafts, end), {"craft": "steps"})
    first = prompt_view(payload)
    assert first is not None
    (menu,) = [i for i in first.children if isinstance(i, DeclareSelect)]
    assert [(o.label, o.value, o.description) for o in menu.item.options] == [
        ("Mirror Dew", ">1", "2 ways"),
        ("Aqua", ">2", "1 way"),
    ]
    assert offered_values(first, payload) == ["end"]  # the End button; no craft yet
    second = prompt_view(payload, pages={("craft", 0): 1})
    assert second is not None
    (menu,) = [i for i in second.children if isinstance(i, DeclareSelect)]
    assert [o.label for o in menu.item.options] == [
        "Mirror Dew: A, B, C",
        "Mirror Dew: A, B, D",
        "← Back",
    ]
    assert menu.item.options[-1].value == ">0" and menu.item.placeholder == "Mirror Dew: choose…"
    assert reachable(payload) == {c.value for c in (*crafts, end)}


def test_a_steps_group_of_more_stages_than_a_menu_lists_them_over_pages() -> None:
    """A Flaky Flasks hand of 27 cards (a Charm draws) into 4 slots: 108 plays were one menu of
    5 pages; the cards (stages) are listed over 2 pages, each card's slots a page of its own."""
    plays = tuple(
        Choice(f"play card_{c} {k}", f"Card {c} into slot {k}", "play", f"Card {c}")
        for c in range(27)
        for k in range(1, 5)
    )
    payload = request((*plays, Choice("done", "Done")), {"play": "steps"})
    first = prompt_view(payload)
    (menu,) = selects(first)
    labels = [o.label for o in menu.item.options]
    assert labels[:2] == ["Card 0", "Card 1"] and len(labels) == 25
    assert labels[-1] == "More… (page 2 of 2)" and menu.item.options[-1].value == ">1"
    second = prompt_view(payload, pages={("play", 0): 1})
    (menu,) = selects(second)
    assert [o.label for o in menu.item.options] == [
        "Card 24",
        "Card 25",
        "Card 26",
        "Back to page 1…",
    ]
    card_25 = prompt_view(payload, pages={("play", 0): 2 + 25})
    (menu,) = selects(card_25)
    assert [o.label for o in menu.item.options][-1] == "← Back"
    assert menu.item.options[-1].value == ">1"  # back to the page that lists it
    assert menu.item.placeholder == "Card 25: choose…"
    assert reachable(payload) == {c.value for c in plays} | {"done"}


def test_a_steps_stage_past_a_page_is_several_stages() -> None:
    crafts = tuple(Choice(f"craft X {n}", f"X {n}", "craft", "X") for n in range(30))
    crafts += (Choice("craft Y", "Y", "craft", "Y"),)
    (menu,) = selects(prompt_view(request(crafts, {"craft": "steps"})))
    assert [(o.label, o.description) for o in menu.item.options] == [
        ("X", "24 ways"), ("X (2)", "6 ways"), ("Y", "1 way"),
    ]  # fmt: skip
    assert reachable(request(crafts, {"craft": "steps"})) == {c.value for c in crafts}


def test_a_steps_group_of_one_stage_or_without_stages_is_one_menu() -> None:
    one = tuple(Choice(f"craft X with {n}", f"X: {n}", "craft", "X") for n in "ABC")
    loose = tuple(Choice(f"craft {n}", n, "craft") for n in "ABC")
    for choices in (one, loose):
        view = prompt_view(request(choices, {"craft": "steps"}))
        assert view is not None
        (menu,) = [i for i in view.children if isinstance(i, DeclareSelect)]
        assert [o.value.startswith(">") for o in menu.item.options] == [False] * 3


def test_more_menu_groups_than_rows_join_one_menu_that_asks_the_group_first() -> None:
    """Issue 18: Red Phoenix's action prompt has seven groups of menus; they all became one
    menu of 300 choices, 13 pages to turn. The two-step group stays; the others join one menu
    that asks the group first (a group past a page takes two stages)."""
    groups = {"buy": 30, "use": 4, "reproduce": 3, "dissolve": 4, "license": 3, "trade_offer": 3}
    choices = [Choice(f"{g} {k}", f"{g.capitalize()} {k}", g) for g, n in groups.items()
               for k in range(n)]  # fmt: skip
    choices += [Choice(f"exp {s} {k}", f"Exp {k}", "experiment", f"Set {s}")
                for s in range(12) for k in range(20)]  # fmt: skip
    choices += [Choice(f"take {n}", f"Take {n}", "take") for n in range(1, 11)]
    hints: dict[str, Presentation] = {g: "menu" for g in groups} | {"experiment": "steps"}
    payload = request(tuple(choices), hints)
    first = prompt_view(payload)
    menus = [i for i in first.children if isinstance(i, DeclareSelect)]
    joined = next(m for m in menus if m.kind == "menu")
    assert [o.label for o in joined.item.options] == [
        "Buy", "Buy (2)", "Use", "Reproduce", "Dissolve", "License", "Trade offer",
    ]  # fmt: skip
    assert any(m.kind == "experiment" for m in menus)
    pages = list(every_page(payload))
    assert all(len(view.children) <= 25 for view in pages)
    assert reachable(payload) == {c.value for c in choices}
