"""What a player is shown at each decision (``potioncraft.md`` §13.2, §13.5, §14): everything the
decision needs, by name, once; the typed grammar and the board behind ``help``; the match's
content in the reference; acknowledgements that say what was accepted."""

from __future__ import annotations

import pytest

from bot.outbox import prompt_text
from games.play import play_match
from games.potioncraft import AGENTS, GAME, GAME_INFO
from games.potioncraft.cards import POTIONS, SPELL_TYPES, STANDARD_POTIONS, potion_label
from games.potioncraft.render import PROMPT_CHARS, hand_text, keeping, or_text
from games.potioncraft.rules import hand_reset_text
from games.potioncraft.state import Owned, State
from games.protocol import HELP_CHARS, PUBLIC, TOPIC_CHARS, Accepted, Request, Setup, derive_rng
from games.text import names_text

from .helpers import DRAW, refused, state_after, step

SIX = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]


def only(state: State) -> Request:
    (request,) = GAME.requests(state)
    return request


def line(prompt: str, start: str) -> str:
    return next(text for text in prompt.splitlines() if text.startswith(start))


# --- the potions on offer: recipe, category, perk, which cards fit ----------------------------


def test_s13_5_main_shows_each_potion_on_offer_with_its_recipe_and_the_cards_that_fit() -> None:
    hand = ["Coffin Nails", "Clear Quartz", "Four Leaf Clover", "White Sage", "Secret Ingredient",
            "Hex Seal (Fortuna)"]  # fmt: skip
    prompt = only(state_after(hands={"P1": hand}, steps=[DRAW])).prompt
    assert line(prompt, "• Severance Draught") == (
        "• Severance Draught (Maleficia; perk Potion reshuffle: new potions on offer):"
        " Coffin Nails ✔, Whispering Bark, Ghost Pepper Essence, Clear Quartz ✔"
        " → you can craft it now with your Secret Ingredient"
    )
    assert line(prompt, "• Mirror Dew") == (
        "• Mirror Dew (Benedicta; perk Mimic: in a craft, copies an ingredient already used):"
        " Clear Quartz ✔, Moonstone Powder, Fairy Dust, Frankincense ✔ as White Sage +"
        " Four Leaf Clover → you can craft it now with your Secret Ingredient"
    )
    assert line(prompt, "• Oracle's Dew").endswith(
        "Clear Quartz ✔, Mermaid Scale, Bat Wing, Lightning Bug Glow → 1 missing with your"
        " Secret Ingredient"
    )
    assert line(prompt, "Your spells: ") == (
        "Your spells: Hex Seal (Fortuna): seal an ingredient family: none of it counts in crafts."
    )
    assert "You own no potion yet: one of each category (Maleficia, Benedicta, Fortuna) wins." in (
        prompt
    )


def test_s13_5_the_offer_shows_seals_chains_owned_categories_and_empty_slots() -> None:
    state = state_after(
        hands={"P1": ["Coffin Nails", "Whispering Bark", "Ghost Pepper Essence", "Clear Quartz"]},
        preset={
            "seal": "Witch's Pantry",
            "chained": ["Severance Draught"],
            "potions": {"P1": ["Wispwine"]},
        },
        potion_decks={
            "Maleficia": ["Severance Draught"],
            "Benedicta": ["Mirror Dew"],
            "Fortuna": [],
        },
        steps=[DRAW],
    )
    prompt = only(state).prompt
    assert line(prompt, "• Severance Draught") == (
        "• Severance Draught (Maleficia; perk Potion reshuffle: new potions on offer)"
        " [chained: only its 4 exact cards]: Coffin Nails ✔, Whispering Bark ✔,"
        " Ghost Pepper Essence (sealed), Clear Quartz ✔ → 1 missing"
    )
    assert line(prompt, "• Mirror Dew").startswith("• Mirror Dew (Benedicta, which you have;")
    assert "• Fortuna: none left (only a Thief's Gamble can get one now)" in prompt
    assert "\nSealed: Witch's Pantry.\n" in prompt
    assert "You own Wispwine (Benedicta). Still needed to win: Maleficia and Fortuna." in prompt


def test_s13_5_a_craft_by_a_perk_and_the_ready_perks_are_named() -> None:
    state = state_after(
        hands={"P1": ["Moonstone Powder", "Fairy Dust"]},
        preset={
            "potions": {"P1": ["Heartfire Infusion", "Silence of the Grave"]},
            "mimic_log": ["Clear Quartz", "Nightshade"],
        },
        potion_decks={
            "Maleficia": ["Severance Draught"],
            "Benedicta": ["Mirror Dew"],
            "Fortuna": ["Dreambinder Elixir"],
        },
        steps=[DRAW],
    )
    prompt = only(state).prompt
    assert line(prompt, "• Mirror Dew").endswith(
        "→ you can craft it now using Heartfire Infusion as Clear Quartz"
    )
    assert line(prompt, "Perks ready to use: ") == (
        "Perks ready to use: Heartfire Infusion: Mimic: in a craft, copies an ingredient"
        " already used (now: Clear Quartz); Silence of the Grave: Hand reset: every hand dealt"
        " anew."
    )


def test_s7_4_a_refused_craft_names_the_recipe() -> None:
    """The issue's example: a wrong craft says what the potion needs."""
    state = state_after(
        hands={"P1": ["Bat Wing", "Fairy Dust", "Nightshade"]},
        potion_decks={
            "Maleficia": ["Severance Draught"],
            "Benedicta": ["Wispwine"],
            "Fortuna": ["Oracle's Dew"],
        },
        steps=[DRAW],
    )
    assert refused(state, 0, "craft wispwine with bat wing, fairy dust, nightshade") == (
        "those cards do not craft Wispwine: its recipe is Frankincense, Lightning Bug Glow,"
        " Raven Feather, Crushed Pearl; list exactly the cards spent for 3 of them, each its"
        " card, or the other 2 of its family, or the Secret Ingredient"
    )


# --- the other windows ------------------------------------------------------------------------


def test_s13_5_the_draw_names_each_pile_top_and_the_potions_it_brings_nearer() -> None:
    state = state_after(
        hands={"P1": ["Clear Quartz", "Mermaid Scale"]},
        preset={"piles": {"P2": ["Bat Wing"], "P3": ["Amethyst"]}},
    )
    prompt = only(state).prompt
    assert line(prompt, "Draw the deck's top card") == (
        "Draw the deck's top card (unseen), or take a pile's top card: Bat Wing (P2's pile)"
        " → completes Oracle's Dew; Amethyst (P3's pile)."
    )
    assert prompt.startswith("Turn 1: your draw.")


def test_s13_5_the_discard_says_why_and_which_cards_no_potion_uses() -> None:
    hand = ["Coffin Nails", "Coffin Nails", "Eye of Newt", "Amethyst", "Bat Wing", "Starflower",
            "Nightshade", "Spider Silk", "White Sage"]  # fmt: skip
    request = only(state_after(hands={"P1": hand}, steps=[DRAW, step("main", P1=["end"])]))
    assert request.prompt.splitlines()[0] == (
        "Turn 1, end of your turn: 10 cards in hand + 3 × 0 potions = 10, over the limit of 9:"
        " discard exactly 1 card."
    )
    assert (
        "No potion on offer needs now: Coffin Nails (one of 2), Eye of Newt, Spider Silk,"
        " Nightshade, White Sage, Starflower, Amethyst." in request.prompt
    )
    assert request.prompt.count("Your hand") == 1


def request_state(hand: list[str]) -> State:
    return state_after(hands={"P1": hand}, steps=[DRAW, step("main", P1=["end"])])


def test_s13_5_block_prompts_say_what_happens_unless_you_block() -> None:
    reset = state_after(
        hands={"P2": ["Hex Seal (Benedicta)", "Amethyst"]},
        preset={"potions": {"P1": ["Silence of the Grave"]}},
        steps=[DRAW, step("main", P1=["perk Silence of the Grave"])],
    )
    assert only(reset).prompt.splitlines()[:2] == [
        "P1 uses Silence of the Grave (Maleficia): Hand reset. Unless you block, your 2 cards"
        " go into the deck and you are dealt as many new ones.",
        "You may block with a Benedicta spell (it goes to your pile, its own effect does not"
        " happen): Hex Seal (Benedicta). Or pass.",
    ]
    ask = state_after(
        hands={"P2": ["Hex Seal (Fortuna)", "Amethyst"]},
        preset={"potions": {"P1": ["Wispwine"]}},
        steps=[DRAW, step("main", P1=["perk Wispwine ask Amethyst"])],
    )
    assert only(ask).prompt.startswith(
        "P1 uses Wispwine (Benedicta): Request for Amethyst. Unless you block, you give P1 one"
        " Amethyst; if you block, the next player holding one is asked."
    )


def test_s13_5_the_pair_prompt_offers_a_choice() -> None:
    thief, wager = "Thief's Gamble (Fortuna)", ["Coffin Nails", "Eye of Newt", "Spider Silk",
                                                "Nightshade"]  # fmt: skip
    state = state_after(
        hands={"P1": [thief, *wager], "P2": ["Amethyst", "Amethyst", "Bat Wing", "Bat Wing"]},
        preset={"potions": {"P2": ["Wispwine"]}},
        steps=[
            DRAW,
            step("main", P1=[f"play {thief} on P2 steal Wispwine wager " + ", ".join(wager)]),
        ],
    )
    assert only(state).prompt == (
        "P1's Thief's Gamble on your Wispwine found pairs in your hand: P1 takes Wispwine, and"
        " you discard the pair you choose: Amethyst or Bat Wing."
    )


def test_s13_5_astral_and_foresight_name_what_each_seen_card_brings() -> None:
    astral = state_after(
        hands={"P1": ["Astral Projection (Fortuna)", "Clear Quartz", "Mermaid Scale"]},
        steps=[DRAW, step("main", P1=["play Astral Projection (Fortuna)"])],
    )
    assert only(astral).prompt.splitlines()[0] == (
        "Astral Projection: the deck's top cards, top first: Bat Wing → Severance Draught 1"
        " missing and completes Oracle's Dew; Amethyst; Starflower. Keep one; the others go"
        " back on top of the deck in the order you list them."
    )
    foresight = state_after(
        preset={"potions": {"P1": ["Dreambinder Elixir"]}},
        potion_decks={
            "Maleficia": ["Severance Draught"],
            "Benedicta": ["Mirror Dew"],
            "Fortuna": ["Oracle's Dew"],
        },
        steps=[DRAW, step("main", P1=["perk Dreambinder Elixir"])],
    )
    assert only(foresight).prompt.startswith(
        "Foresight: the deck's top 5 cards, top first: Bat Wing → Severance Draught 2 missing"
        " and Oracle's Dew 2 missing; Amethyst; Starflower; Nightshade; Spider Silk. Put them"
        " all back in the order you choose, the new top first: the next draws from the deck"
        " take them in that order (P2 plays next)."
    )


def test_s14_the_first_prompt_shows_the_hand_once() -> None:
    state, events = GAME.new_match(Setup(GAME.parse_config({"seed": 5}, 3), 3, 0, SIX[:3]))
    active = state.active
    mine = [e for e in events if e.audience.kind == "seat" and e.audience.seat == active]
    assert not [e for e in mine if "Your hand" in e.text]
    prompt = only(state).prompt
    assert prompt.count("Your hand") == 1 and hand_text(state.hands[active]) in prompt
    others = [e.audience.seat for e in events if e.kind == "hand"]
    assert sorted(others) == sorted(set(range(3)) - {active})  # the others hear of theirs


# --- help, /look and the reference --------------------------------------------------------------


def test_s13_3_help_holds_the_typed_grammar_and_the_board() -> None:
    state = state_after(players=SIX, hands={"Alice": ["Clear Quartz"]},
                        steps=[step("draw", Alice=["deck"])])  # fmt: skip
    request = only(state)
    assert "`craft <potion on offer> with <card>, <card>, <card>`" in request.help
    assert "`play Thief's Gamble (…) on <player> steal <potion> wager <4 cards>`" in request.help
    assert "Alice (P1), Bob (P2), Carol (P3), Dave (P4), Erin (P5), Frank (P6)" in request.help
    assert "Frank: 0 cards in hand, no potions; pile 0 (empty)." in request.help
    assert "`craft" not in request.prompt and "`play" not in request.prompt  # said once
    draw = only(state_after(players=SIX))
    assert "e.g. `pile Bob` or `pile P2`" in draw.help


def test_s14_look_shows_the_seat_its_situation_and_the_public_only_the_table() -> None:
    state = state_after(hands={"P1": ["Clear Quartz", "Amethyst"], "P2": ["Bat Wing"]},
                        steps=[DRAW])  # fmt: skip
    mine = GAME.describe(state, 0)
    assert mine.startswith(hand_text(state.hands[0]))
    assert "• Oracle's Dew (Fortuna; perk Foresight: reorder the deck's top cards): Clear" in mine
    assert "P2: 1 card in hand, no potions; pile 0 (empty)." in mine
    public = GAME.describe(state, None)
    assert "Your hand" not in public and "✔" not in public
    assert "• Oracle's Dew (Fortuna; perk Foresight: reorder the deck's top cards): Clear" in public


@pytest.mark.parametrize("potion_set", ["standard", "all18"])
def test_s1_2_the_reference_names_every_potion_and_spell_of_the_match(potion_set: str) -> None:
    state, _ = GAME.new_match(Setup(GAME.parse_config({"potion_set": potion_set}, 6), 6, 3))
    assert GAME_INFO.reference is not None
    topics = GAME_INFO.reference(state)
    text = "\n".join(t.text for t in topics)
    assert all(len(t.text) <= TOPIC_CHARS for t in topics)
    in_set = STANDARD_POTIONS if potion_set == "standard" else tuple(POTIONS)
    for potion in in_set:
        recipe = ", ".join(f"{i} (" for i in POTIONS[potion].recipe[:1])
        assert f"{potion_label(potion)}" in text and recipe in text
    assert ("Bind of the Forgotten" in text) == (potion_set == "all18")
    assert "Wheel of Fortune (the rules page's potion Twist of Fate): Amethyst (CE)" in text
    for kind in SPELL_TYPES:
        assert f"\n{kind}: " in text
    for state_hand in state.hands:
        assert ", ".join(state_hand) not in text


def test_s16_the_reference_follows_the_options() -> None:
    config = GAME.parse_config({"foul_elixir_discards": 3, "request_block_passes": False,
                                "two_player_twist": "skip", "hand_reset_deal": "full",
                                "chain_mode": "no_substitution"}, 2)  # fmt: skip
    state, _ = GAME.new_match(Setup(config, 2, 3))
    assert GAME_INFO.reference is not None
    text = "\n".join(t.text for t in GAME_INFO.reference(state))
    assert "it and 3 random cards of that hand" in text
    assert "(then the request ends)" in text
    assert "Twist of Fate: with 2 players: the other player loses their next turn." in text
    assert "is dealt up to the table limit, less 3 per potion." in text
    assert "crafted only with 3 of its exact ingredient cards" in text
    assert "needs 3 exact cards, no substitution" in text


# --- lengths on the largest table -------------------------------------------------------------


def test_every_prompt_help_and_look_fits_discord_on_six_seats() -> None:
    """§13.1 on Discord: prompts (with the host's choices and deadline lines) within 2,000
    characters, each prompt's own text within PROMPT_CHARS, help within HELP_CHARS, /look
    within 2,000, over whole 6-seat matches of AIs and random players."""
    kinds: set[str] = set()
    for seed in range(3):
        config = GAME.parse_config({"max_turns": 60, "potion_set": "all18"}, 6)
        state, _ = GAME.new_match(Setup(config, 6, seed, SIX))
        agents = [
            AGENTS["random" if s % 2 else "normal"](s, derive_rng(seed, "len", s)) for s in range(6)
        ]
        while not state.over:
            moves = {}
            for request in GAME.requests(state):
                kinds.add(request.kind)
                assert len(request.prompt) <= PROMPT_CHARS
                assert len(prompt_text(request, 1e9 + 60, 1e9)) <= 2000
                assert 0 < len(request.help) <= HELP_CHARS
                assert len(GAME.describe(state, request.seat)) <= 2000
                raw = agents[request.seat].act(request, GAME.view(state, request.seat))
                verdict = GAME.submit(state, request.seat, raw)
                assert isinstance(verdict, Accepted)
                moves[request.seat] = verdict.move
            state, _ = GAME.resolve(state, moves)
        assert len(GAME.describe(state, None)) <= 2000
    assert {"draw", "main", "discard"} <= kinds


# --- acknowledgements ---------------------------------------------------------------------------


def test_acknowledgements_name_what_was_accepted_distinctly() -> None:
    hand = ["Clear Quartz", "Mermaid Scale", "Bat Wing", "Venom Brew (Fortuna)",
            "Hex Seal (Fortuna)", "Circle Breaker (Maleficia)"]  # fmt: skip
    state = state_after(hands={"P1": hand}, preset={"piles": {"P2": ["Amethyst"]}})

    def summary(seat: int, raw: str, at: State = state) -> str:
        verdict = GAME.submit(at, seat, raw)
        assert isinstance(verdict, Accepted)
        return verdict.summary

    assert summary(0, "deck") == "Draw from the deck"
    assert summary(0, "pile P2") == "Take Amethyst from P2's pile"
    main = state_after(hands={"P1": hand}, steps=[DRAW])
    said = [
        summary(0, raw, main)
        for raw in (
            "craft Oracle's Dew with Mermaid Scale, Clear Quartz, Bat Wing",
            "play Venom Brew (Fortuna) on P3",
            "play Hex Seal (Fortuna) seal Witch's Pantry",
            "play Circle Breaker (Maleficia)",
            "end",
        )
    ]
    assert said == [
        "Craft Oracle's Dew with Mermaid Scale, Clear Quartz and Bat Wing",
        "Play Venom Brew (Fortuna) on P3: they discard a random card",
        "Play Hex Seal (Fortuna): seal Witch's Pantry",
        "Play Circle Breaker (Maleficia): P2 loses their next turn",
        "End your turn",
    ]
    discard = request_state(["Coffin Nails"] * 2 + ["Eye of Newt", "Amethyst", "Bat Wing",
                            "Starflower", "Nightshade", "Spider Silk", "White Sage"])  # fmt: skip
    assert summary(0, "Amethyst", discard) == (  # §14: no hand notice follows the discard
        "Discard Amethyst; you keep 9 cards: Coffin Nails ×2, Eye of Newt, Spider Silk, Nightshade,"
        " White Sage, Starflower, Pumpkin Guts, Bat Wing"
    )


def test_s14_a_discard_acknowledgement_counts_the_cards_kept() -> None:
    assert keeping(["Amethyst", "Bat Wing"], ["Amethyst"]) == "; you keep 1 card: Bat Wing"
    assert keeping(["Bat Wing", "Bat Wing"], ["Bat Wing", "Bat Wing"]) == "; you keep no card"


# --- templates with names, proof-read with 1 to 6 names ------------------------------------------


@pytest.mark.parametrize("count", range(1, 7))
def test_templates_with_names_read_well_with_one_to_six(count: int) -> None:
    names = SIX[:count]
    listed = names_text(names)
    reset = hand_reset_text(names, list(range(count)))
    if count == 1:
        assert reset == "Alice folds their hand and is dealt 0 cards."
        assert or_text(names) == "Alice"
    else:
        dealt = names_text([str(n) for n in range(count)])
        assert reset == f"{listed} fold their hands and are dealt {dealt} cards."
        assert or_text(names) == listed.rsplit(" and ", 1)[0] + f" or {names[-1]}"
    assert " and " not in or_text(names)
    assert ", and" not in reset and " and and" not in reset


@pytest.mark.parametrize("count", range(1, 7))
def test_the_end_of_the_round_names_the_winners_as_a_sentence(count: int) -> None:
    """§3.2: the ranking's winners, 1 to 6 of them, in one sentence."""
    state, _ = GAME.new_match(Setup(GAME.parse_config({"potion_set": "all18"}, 6), 6, 1, SIX))
    benedicta = [p for p in POTIONS if POTIONS[p].category == "Benedicta"]
    for seat in range(count):
        state.potions[seat] = [Owned(benedicta[seat])]
    ended, events = GAME.end(state, "moderator")
    text = next(e.text for e in events if e.kind == "win" and e.audience == PUBLIC)
    verb = "wins" if count == 1 else "share the victory"
    assert text == f"The round is ended: {names_text(SIX[:count])} {verb}."
    assert sorted(ended.winners) == list(range(count))


def test_a_whole_match_of_ais_finishes() -> None:
    state, events = GAME.new_match(Setup(GAME.parse_config({}, 3), 3, 2, SIX[:3]))
    agents = [AGENTS["normal"](s, derive_rng(2, "w", s)) for s in range(3)]
    assert GAME.outcome(play_match(GAME, state, events, agents)) is not None


@pytest.mark.parametrize("seats", range(2, 7))
def test_the_start_names_the_players_as_a_sentence(seats: int) -> None:
    _, events = GAME.new_match(Setup(GAME.parse_config({}, seats), seats, 1, SIX[:seats]))
    start = next(e for e in events if e.kind == "start")
    assert start.text == f"Potioncraft begins: {names_text(SIX[:seats])}."
    assert ", and" not in start.text and start.text.count(" and ") == 1
