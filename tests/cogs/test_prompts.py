"""Prompt components: buttons for choices, a menu for declarations, ids carrying the window."""

from __future__ import annotations

import discord

from bot.host import SubmitResult
from bot.transport import request_to_json
from cogs.common import ack_text
from cogs.prompts import ChoiceButton, DeclareSelect, prompt_view
from games.protocol import Choice, Request


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
    import re

    button = ChoiceButton(4, 2, "declare", "Declare a win", "declare")
    found = re.fullmatch(ChoiceButton.__discord_ui_compiled_template__, button.custom_id)
    assert found is not None and found["value"] == "declare"
