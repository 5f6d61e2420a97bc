"""Prompt components: buttons for choices, a menu for declarations, ids carrying the window."""

from __future__ import annotations

import re

import discord

from bot.host import SubmitResult
from bot.transport import request_to_json
from cogs.common import ack_text
from cogs.prompts import ChoiceButton, DeclareSelect, prompt_view
from games.protocol import Choice, Request
from tests.e2e.fake_discord import _component_errors


def request(choices: tuple[Choice, ...]) -> dict[str, object]:
    req = Request(0, "cast", "Turn 7 (X = 3): cast a rune.", choices, "cast A (0)", 60.0)
    return request_to_json(req, match_id=12, step=9, deadline=1_900_000_000.0)


async def test_runes_are_buttons_and_declarations_a_menu() -> None:
    runes = tuple(Choice(s, f"{s} {i}", "rune") for i, s in enumerate("ABCDEFGH"))
    declares = tuple(Choice(s, f"Declare {s}", "declare") for s in "STUVWXYZ")
    view = prompt_view(request(runes + declares))
    assert view is not None and view.timeout is None
    items = view.children
    assert [type(i) for i in items] == [ChoiceButton] * 8 + [DeclareSelect]
    button = items[0]
    assert isinstance(button, ChoiceButton) and button.custom_id == "fx:12:9:A"
    menu = items[-1]
    assert isinstance(menu, DeclareSelect) and menu.custom_id == "fx:declare:12:9"
    assert [o.value for o in menu.item.options] == list("STUVWXYZ")
    assert not view.is_dispatchable() or all(isinstance(i, discord.ui.DynamicItem) for i in items)


async def test_no_choices_no_view() -> None:
    assert prompt_view(request(())) is None


def test_acknowledgements_name_the_turn() -> None:
    result = SubmitResult(True, "Cast C (5)", 1, 0, 14, "turn 7")
    assert ack_text(result) == ("✅ Cast C (5) locked for turn 7.")
    plant = SubmitResult(True, "Plant Azalea in pot 1", 1, 0, 1, "the planting before turn 6")
    assert ack_text(plant) == ("✅ Plant Azalea in pot 1 locked for the planting before turn 6.")


async def test_a_button_may_carry_a_word_and_still_parses_after_a_restart() -> None:
    button = ChoiceButton(4, 2, "declare", "Declare a win", "declare")
    found = re.fullmatch(ChoiceButton.__discord_ui_compiled_template__, button.custom_id)
    assert found is not None and found["value"] == "declare"


def all_values(view: discord.ui.View) -> list[str]:
    values = []
    for item in view.children:
        if isinstance(item, ChoiceButton):
            values.append(item.value)
        elif isinstance(item, DeclareSelect):
            values += [option.value for option in item.item.options]
    return values


def rows_of(view: discord.ui.View) -> list[dict[str, object]]:
    rows = view.to_components()
    assert not _component_errors(rows), _component_errors(rows)  # Discord would accept them
    return rows


async def test_many_choices_go_to_menus_and_never_past_five_rows() -> None:
    coins = tuple(Choice(str(n), f"{n} coin", "coins") for n in range(40))
    view = prompt_view(request(coins))
    assert view is not None and len(rows_of(view)) == 2
    assert all_values(view) == [str(n) for n in range(40)]
    menus = [i for i in view.children if isinstance(i, DeclareSelect)]
    assert [m.custom_id for m in menus] == ["fx:menu:12:9", "fx:menu:12:9:1"]


async def test_buttons_while_they_fit_beside_the_declarations() -> None:
    declares = tuple(Choice(s, f"Declare {s}", "declare") for s in "STUVWXYZ")
    for runes, buttons in ((20, 20), (21, 0)):
        choices = tuple(Choice(f"r{n}", f"rune {n}", "rune") for n in range(runes)) + declares
        view = prompt_view(request(choices))
        assert view is not None and len(rows_of(view)) <= 5
        assert sum(isinstance(i, ChoiceButton) for i in view.children) == buttons
        assert sorted(all_values(view)) == sorted(c.value for c in choices)


async def test_a_value_a_button_id_cannot_carry_goes_to_a_menu() -> None:
    choices = (Choice("A", "Azalea", "flower"), Choice("Toad stool", "Toadstool", "coins"))
    view = prompt_view(request(choices))
    assert view is not None
    (button, menu) = view.children
    assert isinstance(button, ChoiceButton) and isinstance(menu, DeclareSelect)
    assert [o.value for o in menu.item.options] == ["Toad stool"]
    found = re.fullmatch(DeclareSelect.__discord_ui_compiled_template__, menu.custom_id)
    assert found is not None and found["kind"] == "menu"
