"""Typed answers (``potioncraft.md`` §13.3): names as the bot shows them, any case; the stored
move and the export are always the page's own command, so an export replays on any
implementation of the page."""

from __future__ import annotations

import pytest

from games.potioncraft import GAME, export_script, replay_script
from games.potioncraft.cards import DISPLAY_NAMES, POTIONS, potion_label
from games.potioncraft.rules import open_draw
from games.potioncraft.state import State
from games.protocol import Setup

from .helpers import DRAW, accepted, refused, script, state_after, step

NAMES = ["Ann", "Bob", "AI 3 (easy)"]
TWIST = {
    "Maleficia": ["Severance Draught"],
    "Benedicta": ["Mirror Dew"],
    "Fortuna": ["Twist of Fate"],
}


def named(**changes: object) -> State:
    return state_after(players=["Ann", "Bob", "Cy"], **changes)


@pytest.mark.parametrize("typed", ["pile Bob", "pile bob", "PILE P2", "pile p2", "  pile   BOB "])
def test_s13_3_a_player_is_typed_by_name_or_seat_any_case(typed: str) -> None:
    state = named(preset={"piles": {"Bob": ["Amethyst"]}})
    assert accepted(state, 0, typed) == "pile Bob"  # the page's command: the seat's name


def test_s13_3_a_name_with_spaces_is_typed_whole_or_by_its_unique_start() -> None:
    state, _ = GAME.new_match(Setup(GAME.parse_config({"seed": 4}, 3), 3, 0, NAMES))
    active = state.active
    for seat in range(3):
        state.piles[seat] = ["Amethyst"]
    open_draw(state)  # a position with every pile drawable
    third = "AI 3 (easy)"
    assert accepted(state, active, f"pile {third}") == f"pile {third}"
    assert accepted(state, active, "pile ai 3") == f"pile {third}"
    assert accepted(state, active, "pile P3") == f"pile {third}"
    reason = refused(state, active, "pile P4")
    assert "players: Ann (P1), Bob (P2), AI 3 (easy) (P3)" in reason


def test_s13_3_a_seat_label_never_hides_a_player_of_that_name() -> None:
    state = state_after(players=["P2", "Bob", "Cy"], preset={"piles": {"P2": ["Amethyst"],
                        "Bob": ["Bat Wing"]}})  # fmt: skip
    assert accepted(state, 0, "pile p2") == "pile P2"  # the player named P2, not seat 2
    assert accepted(state, 0, "pile bob") == "pile Bob"


def test_s1_2_names_are_unique_the_potion_twist_of_fate_is_wheel_of_fortune() -> None:
    shown = [potion_label(p) for p in POTIONS]
    spells = {"Twist of Fate"}  # the spell type keeps the page's name
    assert len(set(shown)) == len(shown) and not spells & set(shown)
    assert DISPLAY_NAMES == {"Twist of Fate": "Wheel of Fortune"}


@pytest.mark.parametrize(
    "typed",
    [
        "craft Wheel of Fortune with Eye of Newt, Hair of a Virgin, Amethyst",
        "craft wheel of fortune with eye of newt, hair of a virgin, amethyst",
        "craft Twist of Fate with Eye of Newt, Hair of a Virgin, Amethyst",
        "CRAFT twist of fate (potion) WITH Eye of Newt,Hair of a Virgin ,  Amethyst",
    ],
)
def test_s13_3_the_potion_is_typed_as_shown_or_by_the_page_name(typed: str) -> None:
    state = state_after(
        hands={"P1": ["Eye of Newt", "Hair of a Virgin", "Amethyst"]},
        potion_decks=TWIST,
        steps=[DRAW],
    )
    move = "craft Twist of Fate with Eye of Newt, Hair of a Virgin, Amethyst"
    assert accepted(state, 0, typed) == move


def test_s13_3_a_steal_and_a_perk_name_the_potion_as_shown_and_store_the_page_name() -> None:
    thief = "Thief's Gamble (Fortuna)"
    wager = ["Coffin Nails", "Eye of Newt", "Spider Silk", "Nightshade"]
    decks = {"Maleficia": ["Severance Draught"], "Benedicta": ["Mirror Dew"],
             "Fortuna": ["Oracle's Dew"]}  # fmt: skip
    state = state_after(
        hands={"P1": [thief, *wager]},
        preset={"potions": {"P2": ["Twist of Fate"]}},
        potion_decks=decks,
        steps=[DRAW],
    )
    steal = next(c.value for c in GAME.requests(state)[0].choices if " steal " in c.value)
    assert steal.startswith(f"play {thief} on P2 steal Wheel of Fortune wager ")
    assert accepted(state, 0, steal) == steal.replace("Wheel of Fortune", "Twist of Fate")
    own = state_after(preset={"potions": {"P1": ["Twist of Fate"]}}, potion_decks=decks,
                      steps=[DRAW])  # fmt: skip
    assert "perk Wheel of Fortune" in [c.value for c in GAME.requests(own)[0].choices]
    assert accepted(own, 0, "perk wheel of fortune") == "perk Twist of Fate"


def test_s13_3_a_hand_s_count_is_typed_as_shown() -> None:
    hand = ["Coffin Nails", "Coffin Nails", "Eye of Newt", "Amethyst", "Bat Wing", "Starflower",
            "Nightshade", "Spider Silk", "White Sage", "Bat Wing"]  # fmt: skip
    state = state_after(hands={"P1": hand}, steps=[DRAW, step("main", P1=["end"])])
    assert "Coffin Nails ×2" in GAME.requests(state)[0].prompt
    assert accepted(state, 0, "discard Coffin Nails ×2") == "discard Coffin Nails, Coffin Nails"
    assert accepted(state, 0, "discard bat wing x2") == "discard Bat Wing, Bat Wing"
    assert refused(state, 0, "discard Amethyst ×2") == "you hold 1 Amethyst, not 2"
    assert "at most 4 copies" in refused(state, 0, "discard Bat Wing ×5")


# --- §13.3: a bare discard list, and the export ------------------------------------------------

FULL = ["Coffin Nails", "Coffin Nails", "Eye of Newt", "Amethyst", "Bat Wing", "Starflower",
        "Nightshade", "Spider Silk", "White Sage"]  # fmt: skip


def test_s13_3_a_bare_discard_list_is_stored_as_the_page_s_discard_command() -> None:
    state = state_after(hands={"P1": FULL}, steps=[DRAW, step("main", P1=["end"])])
    assert accepted(state, 0, "Amethyst") == "discard Amethyst"
    assert accepted(state, 0, "Coffin Nails #2") == "discard Coffin Nails"


def test_s13_3_an_export_writes_each_accepted_answer_as_the_page_s_command() -> None:
    """A bare discard list (what a menu sends), a seat typed as ``P2`` and a potion as shown
    are exported as the page's commands; a refused attempt stays as it was sent."""
    config = GAME.parse_config({"seed": 11}, 3)
    names = ["Ann", "Bob", "Cy"]
    state, _ = GAME.new_match(Setup(config, 3, 0, names))
    windows: list[dict[int, list[str | None]]] = []
    sent = {"bare": False, "seat": False}
    while state.turn < 8 and not state.over:
        (request,) = GAME.requests(state)
        seat = request.seat
        if request.kind == "discard":
            raws = [
                "nonsense",
                request.join_answer([c.value for c in request.choices][: request.min_choices]),
            ]
            sent["bare"] = True
        elif request.kind == "draw" and len(request.choices) > 1:
            other = request.choices[1].value.removeprefix("pile ")
            raws = [f"pile P{names.index(other) + 1}"]
            sent["seat"] = True
        else:
            raws = [request.choices[-1].value]  # end, or the last offered answer
        windows.append({seat: list(raws)})
        moves = {seat: accepted(state, seat, raws[-1])}
        state, _ = GAME.resolve(state, moves)
    assert sent == {"bare": True, "seat": True}
    exported = export_script(config, 0, names, windows)
    written = [a for s in exported["steps"] for raws in s["attempts"].values() for a in raws]
    discards = [s for s in exported["steps"] if s["window"] == "discard"]
    assert discards and all(
        raws[0] == "nonsense" and raws[1].startswith("discard ")
        for s in discards
        for raws in s["attempts"].values()
    )
    assert not any(a and a.startswith("pile P") for a in written)
    again = list(replay_script(exported))
    assert GAME.dump(again[-1].state) == GAME.dump(state)


def test_s13_3_a_trace_shows_the_page_s_commands() -> None:
    steps = list(
        replay_script(
            script(
                hands={"P1": FULL},
                preset={"piles": {"P2": ["Amethyst"]}},
                steps=[
                    step("draw", P1=["pile p2"]),
                    step("main", P1=["end"]),
                    step("discard", P1=["Amethyst, Bat Wing"]),
                ],
            )
        )
    )
    assert [s.checkpoint["moves"]["P1"] for s in steps] == [
        "pile P2",
        "end",
        "discard Bat Wing",
    ]
