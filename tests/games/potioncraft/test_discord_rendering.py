"""What the Discord host gets from the engine (``potioncraft.md`` §13, §14, §16): each turn's
table as one public event, craft menus with every way to pay, and the ``seed`` option that lets
a moderator (or a test) deal a chosen match."""

from __future__ import annotations

import pytest

from games.potioncraft import AGENTS, GAME, export_script, replay_script
from games.potioncraft.choices import WAYS_PER_POTION, crafts
from games.potioncraft.render import cards_text, hand_text, table_text
from games.potioncraft.state import State
from games.protocol import PUBLIC, Accepted, ConfigError, Request, Setup, derive_rng

from .helpers import DRAW, accepted, script, state_after, step

NAMES = ["Ann", "Ben", "Cy", "Di"]


# --- §16 [host extension]: the seed option ----------------------------------------------------


def test_s16_seed_option_deals_the_same_match_whatever_the_host_seed() -> None:
    one, _ = GAME.new_match(Setup(GAME.parse_config({"seed": 926}, 4), 4, 1, NAMES))
    two, _ = GAME.new_match(Setup(GAME.parse_config({"seed": 926}, 4), 4, 2, NAMES))
    plain, _ = GAME.new_match(Setup(GAME.parse_config({}, 4), 4, 926, NAMES))
    other, _ = GAME.new_match(Setup(GAME.parse_config({}, 4), 4, 1, NAMES))
    assert one.hands == two.hands == plain.hands and one.deck == plain.deck
    assert one.seed == two.seed == 926
    assert other.hands != one.hands
    assert "seed" not in GAME.parse_config({}, 4)  # a config without it is unchanged


@pytest.mark.parametrize("bad", [True, -1, 2**63, 1.5, "926", None, [1]])
def test_s16_seed_option_must_be_a_whole_number(bad: object) -> None:
    with pytest.raises(ConfigError) as caught:
        GAME.parse_config({"seed": bad}, 4)
    assert caught.value.field == "seed" and "whole number" in caught.value.message


def test_s16_seed_option_export_replays_the_live_match() -> None:
    config = GAME.parse_config({"seed": 77, "max_turns": 6}, 3)
    state, _ = GAME.new_match(Setup(config, 3, 5, ["A", "B", "C"]))
    agents = {s: AGENTS["normal"](s, derive_rng(3, "ai", s)) for s in range(3)}
    windows = []
    while not state.over:
        answers = {
            r.seat: agents[r.seat].act(r, GAME.view(state, r.seat)) for r in GAME.requests(state)
        }
        windows.append({seat: [raw] for seat, raw in answers.items()})
        state, _ = GAME.resolve(
            state, {seat: accepted(state, seat, raw) for seat, raw in answers.items()}
        )
    script = export_script(config, 5, ["A", "B", "C"], windows)
    assert script["seed"] == 77
    steps = list(replay_script(script))
    assert GAME.dump(steps[-1].state) == GAME.dump(state)


# --- §14: the table, once per turn, in public -------------------------------------------------


def test_s14_the_table_is_public_at_each_turn_start_and_shows_no_hand() -> None:
    state, events = GAME.new_match(Setup(GAME.parse_config({"seed": 3}, 4), 4, 0, NAMES))
    tables = [e for e in events if e.kind == "table"]
    assert len(tables) == 1 and tables[0].audience == PUBLIC
    text = tables[0].text
    assert text == table_text(state)
    assert f"{NAMES[state.active]} to play" in text and f"Deck: {len(state.deck)} cards" in text
    for seat in range(4):
        assert f"{NAMES[seat]}: {len(state.hands[seat])} cards in hand" in text
        assert hand_text(state.hands[seat]) not in text
        assert ", ".join(state.hands[seat]) not in text
    revealed = [p for p in state.revealed.values() if p]
    assert all(potion in text for potion in revealed)


def test_s14_one_table_per_turn_begun_and_none_within_a_turn() -> None:
    state, _ = GAME.new_match(
        Setup(GAME.parse_config({"seed": 8, "max_turns": 12}, 4), 4, 0, NAMES)
    )
    agents = {s: AGENTS["normal"](s, derive_rng(8, "t", s)) for s in range(4)}
    turns_begun, tables = 0, 0
    while not state.over:
        requests = GAME.requests(state)
        moves = {
            r.seat: accepted(state, r.seat, agents[r.seat].act(r, GAME.view(state, r.seat)))
            for r in requests
        }
        before = state.turn
        state, events = GAME.resolve(state, moves)
        found = [e for e in events if e.kind == "table"]
        tables += len(found)
        turns_begun += 0 if state.over else state.turn - before
        assert all(e.audience == PUBLIC for e in found)
        if found:  # after the turn's other public events, with the table as it is now
            assert found[0].text == table_text(state)
            public = [e for e in events if e.audience == PUBLIC]
            assert public[-1] is found[0]
            for seat in range(4):
                if len(state.hands[seat]) >= 2:
                    assert ", ".join(state.hands[seat]) not in found[0].text
    assert tables == turns_begun >= 8


def test_s14_a_leave_that_passes_the_turn_posts_the_next_table() -> None:
    state, _ = GAME.new_match(Setup(GAME.parse_config({"seed": 3}, 4), 4, 0, NAMES))
    active = state.active
    after, events = GAME.leave(state, active)
    assert [e.kind for e in events if e.audience == PUBLIC][-1] == "table"
    assert "left" in next(e.text for e in events if e.kind == "table")
    idle = (after.active + 2) % 4
    _, events = GAME.leave(after, idle if not after.out[idle] else (idle + 1) % 4)
    assert not [e for e in events if e.kind == "table"]  # the turn goes on: no new table


# --- §13.4: craft menus with every way to pay -------------------------------------------------


def test_s13_4_the_craft_menu_offers_each_way_to_pay_all_legal() -> None:
    hand = ["Clear Quartz", "Mermaid Scale", "Bat Wing", "Lightning Bug Glow", "Secret Ingredient"]
    state = state_after(hands={"P1": hand}, steps=[DRAW])
    (request,) = GAME.requests(state)
    oracle = [c for c in request.choices if c.value.startswith("craft Oracle's Dew with")]
    assert 3 <= len(oracle) <= WAYS_PER_POTION
    direct = "craft Oracle's Dew with Mermaid Scale, Clear Quartz, Bat Wing"
    assert direct in [c.value for c in oracle]
    assert any("Secret Ingredient" in c.value for c in oracle)  # the wild for one ingredient
    for choice in oracle:
        assert accepted(state, 0, choice.value) == choice.value  # checked before it is sent
        assert choice.label.startswith("Oracle's Dew: ") and len(choice.label) <= 80
        assert choice.group == "craft"
    assert len(set(crafts(state, 0))) == len(crafts(state, 0))
    # the prompt names one craft per potion, the menu holds the rest
    assert request.prompt.count("Oracle's Dew") == 1


def test_s1_2_the_twist_of_fate_potion_is_shown_as_wheel_of_fortune_and_stored_as_the_page() -> (
    None
):
    hand = ["Eye of Newt", "Hair of a Virgin", "Amethyst", "Twist of Fate (Fortuna)"]
    state = state_after(
        hands={"P1": hand},
        potion_decks={
            "Maleficia": ["Severance Draught"],
            "Benedicta": ["Mirror Dew"],
            "Fortuna": ["Twist of Fate"],
        },
        steps=[DRAW],
    )
    (request,) = GAME.requests(state)
    crafts = [c for c in request.choices if c.group == "craft"]
    assert [c.label for c in crafts] == [
        "Wheel of Fortune: Eye of Newt, Hair of a Virgin, Amethyst"
    ]
    assert crafts[0].value == "craft Wheel of Fortune with Eye of Newt, Hair of a Virgin, Amethyst"
    assert "Wheel of Fortune (Fortuna" in request.prompt
    assert "Twist of Fate (Fortuna): the direction of play is reversed" in request.prompt
    page = "craft Twist of Fate with Eye of Newt, Hair of a Virgin, Amethyst"
    assert accepted(state, 0, crafts[0].value) == page  # the stored move: the page's name
    assert accepted(state, 0, page) == page  # the page's name is typed too
    assert accepted(state, 0, page.replace("Twist of Fate", "twist of fate (potion)")) == page


def test_s13_4_a_main_window_fits_discord_rows() -> None:
    """Crafts, spells and perks are three menus and End turn a button: at most five rows."""
    state = state_after(
        hands={
            "P1": [
                "Clear Quartz",
                "Mermaid Scale",
                "Bat Wing",
                "Secret Ingredient",
                "Hex Seal (Fortuna)",
                "Venom Brew (Maleficia)",
            ]
        },
        preset={"potions": {"P1": ["Petal Ward Elixir"]}},
        steps=[DRAW, step("main", P1=["perk Petal Ward Elixir"])],
    )
    (request,) = GAME.requests(state)
    groups = {c.group for c in request.choices}
    assert groups <= {"craft", "spell", "perk", "turn"}
    hints = {g: request.presentation.get(g) for g in groups - {"turn"}}
    assert all(hint == ("steps" if g == "craft" else "menu") for g, hint in hints.items())


# --- §14: each player's own hand, always current -----------------------------------------------


def test_s14_a_hand_changed_by_another_player_is_sent_to_its_owner_only() -> None:
    steps = list(
        replay_script(
            script(
                hands={"P1": ["Venom Brew (Benedicta)"], "P2": ["Amethyst", "Bat Wing"]},
                steps=[
                    DRAW,
                    step("main", P1=["play Venom Brew (Benedicta) on P2"], random=["Bat Wing"]),
                ],
            )
        )
    )
    draw, venom = steps
    assert not [e for e in draw.events if e.kind == "hand"]  # P1's main prompt shows it
    notices = [e for e in venom.events if e.kind == "hand"]
    assert [(e.audience.seat, e.text) for e in notices] == [(1, "Your hand (1): Amethyst.")]
    assert all(e.audience.kind == "seat" for e in notices)


END_STEP_HAND = ["Coffin Nails", "Coffin Nails", "Eye of Newt", "Amethyst", "Bat Wing",
                 "Starflower", "Nightshade", "Spider Silk", "White Sage"]  # fmt: skip


def next_request(state: State, seat: int) -> tuple[State, Request]:
    """The state once every window before ``seat``'s next prompt has timed out, and that
    prompt."""
    while True:
        requests = GAME.requests(state)
        mine = [r for r in requests if r.seat == seat and not r.silent]
        if mine:
            return state, mine[0]
        state, _ = GAME.resolve(state, {r.seat: None for r in requests})


def test_s14_s4_an_answered_end_step_discard_sends_no_hand_of_its_own() -> None:
    """The discard's acknowledgement tells the hand it leaves, and the seat's next prompt
    shows it: no message comes between them (issue 20: a DM a prompt)."""
    state = state_after(hands={"P1": END_STEP_HAND}, steps=[DRAW, step("main", P1=["end"])])
    (request,) = GAME.requests(state)
    assert request.kind == "discard" and hand_text(state.hands[0]) in request.prompt
    verdict = GAME.submit(state, 0, "discard Amethyst")
    assert isinstance(verdict, Accepted)
    after, events = GAME.resolve(state, {0: verdict.move})
    assert after.active == 1 and not [e for e in events if e.kind == "hand"]
    assert verdict.summary.endswith(f"; you keep 9 cards: {cards_text(after.hands[0])}")
    later, draw = next_request(after, 0)
    assert draw.kind == "draw" and later.hands[0] == after.hands[0]
    assert hand_text(after.hands[0]) in draw.prompt and "timed out" not in draw.prompt


def test_s14_s13_1_a_timed_out_end_step_discard_is_told_in_the_next_prompt() -> None:
    state = state_after(hands={"P1": END_STEP_HAND}, steps=[DRAW, step("main", P1=["end"])])
    after, events = GAME.resolve(state, {0: None})
    (discard,) = [e for e in events if e.kind == "discard"]
    assert discard.data["cards"] == ["Bat Wing"]  # the hand's last card in catalog order
    assert not [e for e in events if e.kind == "hand"]
    later, draw = next_request(after, 0)
    lines = draw.prompt.splitlines()
    assert lines[1:3] == [
        "Your discard at the end of turn 1 timed out: you discarded Bat Wing.",
        hand_text(later.hands[0]),
    ]
    assert later.hands[0] == after.hands[0]
    moved, _ = GAME.resolve(later, {0: None})
    (main,) = GAME.requests(moved)
    assert main.kind == "main" and "timed out" not in main.prompt  # told once


def test_s14_s8_9_a_timed_out_pair_is_told_in_the_next_prompt() -> None:
    thief, wager = "Thief's Gamble (Fortuna)", ["Coffin Nails", "Eye of Newt", "Spider Silk"]
    gamble = f"play {thief} on P2 steal Wispwine wager " + ", ".join([*wager, "Nightshade"])
    state = state_after(
        hands={"P1": [thief, *wager, "Nightshade"], "P2": ["Amethyst", "Amethyst", "Bat Wing",
                                                           "Bat Wing", "White Sage"]},
        preset={"potions": {"P2": ["Wispwine (spent)"]}},
        steps=[DRAW, step("main", P1=[gamble])],
    )  # fmt: skip
    (pair,) = GAME.requests(state)
    assert pair.kind == "pair" and pair.seat == 1
    after, events = GAME.resolve(state, {1: None})
    assert after.hands[1] == ["White Sage", "Bat Wing", "Bat Wing"]
    assert not [e for e in events if e.kind == "hand"]
    later, draw = next_request(after, 1)
    assert draw.prompt.splitlines()[1:3] == [
        "Your answer to P1's Thief's Gamble timed out: you discarded your pair of Amethyst.",
        hand_text(later.hands[1]),
    ]


def test_s14_no_hand_notice_once_the_match_is_over() -> None:
    state = state_after(
        hands={"P1": ["Mermaid Scale", "Clear Quartz", "Bat Wing"], "P2": ["Amethyst"]},
        preset={"potions": {"P1": ["Witch's Chain", "Wispwine"]}},
        steps=[DRAW],
    )
    craft = "craft Oracle's Dew with Mermaid Scale, Clear Quartz, Bat Wing"
    after, events = GAME.resolve(state, {0: accepted(state, 0, craft)})
    assert after.over and after.winners == [0] and after.hands[0] != state.hands[0]
    assert not [e for e in events if e.kind == "hand"]


def test_s14_a_pair_window_timeout_is_marked_in_public() -> None:
    thief, wager = (
        "Thief's Gamble (Fortuna)",
        ["Coffin Nails", "Eye of Newt", "Spider Silk", "Nightshade"],
    )
    gamble = f"play {thief} on P2 steal Wispwine wager " + ", ".join(wager)
    state = state_after(
        hands={"P1": [thief, *wager], "P2": ["Amethyst", "Amethyst", "Bat Wing", "Bat Wing"]},
        preset={"potions": {"P2": ["Wispwine (spent)"]}},
        steps=[DRAW, step("main", P1=[gamble])],
    )
    (request,) = GAME.requests(state)
    assert request.kind == "pair" and request.timer == "reaction"
    _, events = GAME.resolve(state, {1: None})
    public = [e.text for e in events if e.audience == PUBLIC]
    assert (
        "P2 reveals and discards Amethyst, Amethyst (timed out). P1 steals Wispwine (spent)."
        in public
    )
    _, events = GAME.resolve(state, {1: accepted(state, 1, "pair Bat Wing")})
    assert not [e for e in events if "timed out" in e.text]
