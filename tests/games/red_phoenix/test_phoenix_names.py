"""Everything by name (issue 17): answers name cards and methods as the prompts show them (or by
id, any case, rules page §12.2); prompts, help, the table and the reference say what each thing
does, by name; acknowledgements name what was accepted; stored moves and exports are the page's
own commands (§5.5, §11, §12.2-§12.3)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from games.protocol import Accepted, ConfigError, Refused, Setup
from games.red_phoenix import GAME, GAME_INFO
from games.red_phoenix.cards import house_raw, read_card_set
from games.red_phoenix.engine import apply_preset
from games.red_phoenix.state import Monster, State
from games.text import names_text

from .helpers import decks, last, script

NAMES = ["Ann", "Ben", "Cy"]
FOUR = ["brimstone", "quicksilver", "salt", "vitriol"]
MOVE = "fast blood_distillation brimstone quicksilver salt vitriol"


def new(seats: int = 3, seed: int = 3, **config: Any) -> State:
    config_ = GAME.parse_config(config, seats)
    state, _ = GAME.new_match(Setup(config_, seats, seed, [*NAMES, "Dee", "Eve"][:seats]))
    return state


def holding(cards: list[str], coins: int = 20, state: State | None = None) -> tuple[State, int]:
    """A state whose active seat holds ``cards`` and ``coins`` in its action window."""
    state = (state or new()).clone()
    seat = state.g["active"]
    apply_preset(state, seat, {"hand": cards, "coins": coins})
    return state, seat


def accepted(state: State, seat: int, raw: str) -> Accepted:
    verdict = GAME.submit(state, seat, raw)
    assert isinstance(verdict, Accepted), (raw, verdict)
    return verdict


def rival(state: State, seat: int) -> int:
    return next(s for s in range(len(state.names)) if s != seat)


def with_monster(state: State, owner: int, card: str = "dire_wolf") -> State:
    monster: Monster = {
        "id": f"M{state.g['nm']}",
        "card": card,
        "level": "II",
        "owner": owner,
        "hp": 3,
        "attacks_left": 2,
        "arrived": 0,
        "damage": 2,
    }
    state.g["monsters"].append(monster)
    state.g["nm"] += 1
    return state


# --- §12.2 names as the prompts show them, or ids, any case ---------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        MOVE,
        "fast blood distillation salt brimstone quicksilver vitriol",
        "FAST Blood Distillation Salt, Brimstone, Quicksilver and Vitriol",
        "fast BLOOD_distillation  vitriol,salt , Brimstone Quicksilver",
    ],
)
def test_s12_2_methods_and_cards_by_name_or_id_in_any_case(raw: str) -> None:
    state, seat = holding(FOUR)
    verdict = accepted(state, seat, raw)
    assert verdict.move == MOVE  # the page's command, with ids, whatever was typed


@pytest.mark.parametrize(
    ("raw", "move"),
    [
        ("use Alchemist's Hooch", "use hooch"),
        ("use alchemists hooch", "use hooch"),
        ("use Alchemist’s Hooch", "use hooch"),  # a phone's apostrophe
        ("use HOOCH", "use hooch"),
        ("use The Stone of Red Sol on Ben", "use red_sol Ben"),
        ("use stone of red sol ben", "use red_sol Ben"),
        ("use Greek Fire on ben", "use greek_fire Ben"),
        ("slow Gold Standard Salt Lead Vitriol", "slow gold_standard lead salt vitriol"),
        ("slow the gold standard salt lead vitriol", "slow gold_standard lead salt vitriol"),
        ("buy Salt ×2 and Lead", "buy lead salt salt"),
        ("buy salt x2, lead", "buy lead salt salt"),
        ("buy Acid Flask", "buy acid_flask"),
    ],
)
def test_s12_2_names_with_apostrophes_articles_copies_and_targets(raw: str, move: str) -> None:
    state, seat = holding(["hooch", "red_sol", "greek_fire", "salt", "lead", "vitriol"])
    state.g["players"][1]["hand"] = {"salt": 1}  # Ben has a card to steal
    if state.g["active"] == 1:
        state, seat = holding(["hooch", "red_sol", "greek_fire", "salt", "lead", "vitriol"])
    assert accepted(state, seat, raw).move == move


def test_s12_2_a_monster_by_its_id_or_its_cards_name_when_only_one_is_in_play() -> None:
    state, seat = holding(["greek_fire"])
    state = with_monster(state, rival(state, seat))
    assert accepted(state, seat, "use Greek Fire on Dire Wolf").move == "use greek_fire M1"
    assert accepted(state, seat, "use greek fire m1").move == "use greek_fire M1"
    state = with_monster(state, seat)
    refused = GAME.submit(state, seat, "use Greek Fire on Dire Wolf")
    assert refused == Refused("'dire wolf' is not a rival or a monster in play")


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("buy salt pepper", "'pepper' is not a card of this game (type a card's name or id)"),
        (
            "fast blood salt lead vitriol",
            "'blood' is not a method: Simple Decoction, Hasty Fusion, The Gold Standard, "
            "Blood Distillation and Magnum Opus",
        ),
        ("fast blood distillation salt salt lead", "the ingredients must be of different types"),
        ("use Salt", "Salt is not an item"),
        ("use Greek Fire", "you hold no Greek Fire"),
    ],
)
def test_s12_2_refusals_name_the_word_or_the_card(raw: str, reason: str) -> None:
    state, seat = holding([*FOUR, "lead"])
    assert GAME.submit(state, seat, raw) == Refused(reason)


def test_appendix_a_names_are_unique_and_never_a_word_of_the_grammar() -> None:
    def refused(change: Any) -> str:
        data = json.loads(house_raw())
        change(data)
        with pytest.raises(ConfigError) as error:
            read_card_set(data)
        return f"{error.value.field}: {error.value.message}"

    def method_named_salt(d: Any) -> None:
        d["methods"][4]["name"] = "SALT"

    def item_named_keep(d: Any) -> None:
        d["ingredients"][0]["name"] = "Keep"

    def monster_named_like_a_method(d: Any) -> None:
        d["results"]["III"][-1]["name"] = "Magnum  Opus"

    assert refused(method_named_salt) == (
        "card_set.methods[4].name: 'SALT' reads as the same name as card_set.ingredients[0]"
    )
    assert refused(item_named_keep) == (
        "card_set.ingredients[0].name: 'Keep' reads as a word of the answer grammar"
    )
    assert refused(monster_named_like_a_method) == (
        "card_set.results.III[15].name: 'Magnum  Opus' reads as the same name as "
        "card_set.methods[4]"
    )
    data = json.loads(house_raw())
    data["results"]["III"][0]["name"] = "Gold"  # a success shows by its product: no clash
    assert read_card_set(data).name == "House set 1"


# --- §5.5, §11, §12.2-§12.3: bare lists read, the page's command stored ---------------------------


def test_s5_5_s12_3_a_keep_window_reads_bare_numbers_and_stores_keep() -> None:
    data = script(
        [("P1", ["fast gold_standard salt lead cinnabar"]), ("P1", ["2"])],
        decks=decks(I=["fail:lead", "hooch@3"]),
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"], "coins": 5}}},
    )
    from .helpers import states

    state = states(data)[0]
    verdict = accepted(state, 0, "2")
    assert verdict.move == "keep 2"
    assert verdict.summary == "Keep Success: Alchemist's Hooch (3) (card 2)"
    assert last(data)["players"]["P1"]["hand"] == ["hooch"]


def test_s11_s12_3_a_discard_window_reads_names_and_menu_values_and_stores_discard() -> None:
    cards = [
        "salt",
        "salt",
        "lead",
        "cinnabar",
        "vitriol",
        "saltpeter",
        "brimstone",
        "hooch",
        "elixir",
    ]
    state, seat = holding(cards)
    state, _ = GAME.resolve(state, {seat: "end"})
    (request,) = GAME.requests(state)
    assert (request.kind, request.min_choices) == ("discard", 2)
    for raw in ("salt#2,salt", "Salt ×2", "discard salt, salt", "DISCARD Salt and Salt"):
        verdict = accepted(state, seat, raw)
        assert verdict.move == "discard salt salt", raw
        assert verdict.summary == "Discard Salt ×2"
    assert accepted(state, seat, "Lead, Elixir Vitae").move == "discard elixir lead"


LEVELS = ["random", "easy", "normal", "hard", "random"]


def ai_match(
    seats: int,
    seed: int,
    config: dict[str, Any],
    windows: list[dict[str, list[str | None]]] | None = None,
) -> Iterator[tuple[State, str]]:
    """An AI match of every level (random ones answer multi-selects with bare values), each
    window's state and answer; ``windows`` gets each answer as the host logs it; the final
    state comes last with an empty answer."""
    from games.protocol import derive_rng
    from games.red_phoenix import AGENTS

    state, events = GAME.new_match(Setup(GAME.parse_config(config, seats), seats, seed))
    agents = [AGENTS[LEVELS[(s + seed) % 5]](s, derive_rng(seed, "x", s)) for s in range(seats)]
    while GAME.outcome(state) is None:
        for event in events:
            for s, agent in enumerate(agents):
                if event.audience.reaches(s):
                    agent.observe(event)
        (request,) = GAME.requests(state)
        answer = agents[request.seat].act(request, GAME.view(state, request.seat))
        if windows is not None:
            windows.append({str(request.seat): [answer]})
        yield state, answer
        state, events = GAME.resolve(
            state, {request.seat: accepted(state, request.seat, answer).move}
        )
    yield state, ""


PAGE = {
    "keep": r"keep [0-9]+( [0-9]+)*",
    "ward": r"ward|pass",
    "trade_response": r"accept|decline",
}


def page_grammar(kind: str, cards: str, methods: str, seats: str) -> str:
    """The page's own commands (§3.3, §12.1-§12.2) with ids only, written independently of
    the engine's reader."""
    if kind in PAGE:
        return PAGE[kind]
    if kind == "discard":
        return rf"discard( ({cards}))+"
    item = rf"({cards}|F[0-9]+|[0-9]+)"
    return "|".join(
        [
            r"take [0-9]+",
            rf"buy( ({cards}))+",
            rf"(fast|slow) ({methods})( ({cards})){{3,4}}",
            r"reproduce F[0-9]+",
            r"dissolve F[0-9]+( keep)?",
            rf"use ({cards})( ({seats}|M[0-9]+))?",
            rf"trade ({seats})( give( {item})+)?( get( {item})+)?( note .*)?",
            r"license F[0-9]+ ([0-9]+|off)",
            r"end",
        ]
    )


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_s12_3_every_export_of_ai_matches_is_written_in_the_pages_commands(seats: int) -> None:
    """Random players answer multi-selects with bare values (``salt#2,lead``, ``1,2``) and
    the AI levels build their own commands: every export holds only the page's commands and
    replays to the match's end."""
    from games.red_phoenix import export_script, replay_script

    cs = read_card_set(json.loads(house_raw()))
    cards = "|".join(cs.ingredients)
    methods = "|".join(cs.methods)
    for seed in range(6):
        config = {"max_rounds": 12}
        windows: list[dict[str, list[str | None]]] = []
        final = [s for s, _ in ai_match(seats, seed, config, windows)][-1]
        script_ = export_script(config, seed, list(final.names), windows)
        steps = list(replay_script(json.loads(json.dumps(script_))))
        assert GAME.dump(steps[-1].state)["game"] == GAME.dump(final)["game"]
        handles = "|".join(final.handles)
        for step, written in zip(steps, script_["steps"], strict=True):
            kind = step.checkpoint["kind"]
            grammar = page_grammar(kind, cards, methods, handles)
            for attempt in written["attempts"]:
                assert re.fullmatch(grammar, attempt), (kind, attempt)


# --- §3.3 a licence off, with or without a fee --------------------------------------------------


def test_s3_3_license_off_is_legal_on_a_formula_without_a_fee() -> None:
    data = script(
        [
            ("P1", ["slow simple_decoction salt lead cinnabar"]),
            ("P1", ["end"]),
            ("P2", ["end"]),
            ("P1", ["license F1 off"]),
            ("P1", ["license F1 2"]),
        ],
        decks=decks(I=["hooch@3"]),
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"]}}},
    )
    steps = [step for step in __import__("games.red_phoenix", fromlist=["x"]).replay_script(data)]
    off = steps[3].checkpoint
    assert off["move"] == "license F1 off" and off["formulas"][0]["license"] is None
    again = steps[4].checkpoint  # one licence change per formula per turn (§6.4)
    assert again["rejected"] == ["license F1 2"] and again["timeout"] is True
    text = "\n".join(e.text for e in steps[3].events if e.audience.kind == "public")
    assert "P1 sets F1's licence off (it had none)." in text


# --- acknowledgements name what was accepted ------------------------------------------------------


def test_acknowledgements_name_exactly_what_was_accepted() -> None:
    state, seat = holding([*FOUR, "hooch", "greek_fire", "incense"])
    summaries = {raw: accepted(state, seat, raw).summary for raw in [
        "take 1",
        "take 2",
        "buy lead",
        "slow simple_decoction salt lead cinnabar".replace("lead cinnabar", "vitriol brimstone"),
        MOVE,
        "use hooch",
        "use incense",
        "use greek_fire Ben" if seat != 1 else "use greek_fire Ann",
        "trade Cy give 2 note thanks" if seat != 2 else "trade Ann give 2 note thanks",
        "end",
    ]}  # fmt: skip
    assert summaries["take 1"] == "Take 3 coins for 1 AP"
    assert summaries["take 2"] == "Take 6 coins for 2 AP"
    assert summaries["buy lead"] == "Buy Lead for 1 coin (1 AP)"
    assert summaries[MOVE] == (
        "Fast Blood Distillation with Salt, Brimstone, Quicksilver and Vitriol"
        " (level I, value 4; 1 Health, 2 AP)"
    )
    assert summaries["use hooch"] == "Use Alchemist's Hooch (heals 3 Health)"
    assert summaries["use incense"] == (
        "Use Odorless Incense (+2 to the value of your next experiment this turn)"
    )
    assert summaries["end"] == "End your turn"
    assert len(set(summaries.values())) == len(summaries)  # two moves never read alike


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5])
def test_acknowledgements_list_one_to_five_names_as_a_sentence(count: int) -> None:
    market = ["salt", "brimstone", "quicksilver", "vitriol", "saltpeter"][:count]
    state, seat = holding([])
    names = [state.cards.ingredients[c].name for c in market]
    verdict = accepted(state, seat, "buy " + " ".join(market))
    coins = f"{count} coin" + ("s" if count > 1 else "")
    assert verdict.summary == f"Buy {names_text(names)} for {coins} (1 AP)"
    assert (", " in verdict.summary) == (count >= 3)
    assert (" and " in verdict.summary) == (count >= 2)


# --- prompts, help, the table and the reference, by name -----------------------------------------

ID = re.compile(r"[a-z]+_[a-z_]+|@|fail:")  # an id shown where a name belongs


def played_states(seats: int, seeds: range) -> list[State]:
    """Every state a window opened in, over AI matches of ``seeds``."""
    return [state for seed in seeds for state, _ in ai_match(seats, seed, {})]


def test_s12_3_every_prompt_says_things_by_name_and_keeps_the_grammar_in_help() -> None:
    from games.protocol import HELP_CHARS
    from games.red_phoenix.prompts import PROMPT_CHARS

    kinds = set()
    for state in played_states(3, range(3))[::3]:
        for request in GAME.requests(state):
            kinds.add(request.kind)
            shown = [request.prompt, request.help, *(c.label for c in request.choices)]
            shown += [c.stage for c in request.choices]
            for text in shown:
                assert not ID.search(text), (request.kind, text)
            assert len(request.prompt) <= PROMPT_CHARS and 0 < len(request.help) <= HELP_CHARS
            if request.kind == "action":
                assert "reproduce F#" in request.help and "reproduce F#" not in request.prompt
                assert "Turn " in request.prompt and "Hand: " in request.prompt
        assert not ID.search(GAME.describe(state, 0))
    assert {"action", "keep"} <= kinds


def test_s12_3_the_experiment_outlook_names_what_each_deck_can_give() -> None:
    state, _ = holding([*FOUR, "dusky_resin", "hooch"])
    lines = GAME.requests(state)[0].prompt.splitlines()
    assert lines[1] == (
        "Hand: Level I: Salt, Brimstone, Quicksilver, Vitriol; Level II: Dusky Resin"
        " (2 damage), Alchemist's Hooch (heals 3)."
    )
    assert lines[3:5] == [
        "• Level II at best value 6 (Salt, Brimstone, Dusky Resin and Alchemist's Hooch):"
        " of 22 cards, 7 met (Luminiferous Aether, Tincture of the Alchemists, The Stone of"
        " Red Sol, Elixir Vitae and Greek Fire), 5 missed successes, 5 simple failures,"
        " 3 catastrophes, 2 monsters.",
        "• Level I at best value 4 (Salt, Brimstone, Quicksilver and Vitriol): of 24 cards,"
        " 10 met, 4 missed successes, 6 simple failures, 3 catastrophes, 1 monster.",
    ]
    assert lines[5].startswith("Methods (cost a level): Simple Decoction free, draw 1 · ")
    # the deck's cards left: a drawn card is no longer counted
    state.g["decks"]["II"] = [c for c in state.g["decks"]["II"] if c != "greek_fire@6"]
    lines = GAME.requests(state)[0].prompt.splitlines()
    assert "of 21 cards, 6 met (" in lines[3]


def test_s12_3_keep_ward_trade_and_discard_prompts_say_what_each_answer_does() -> None:
    data = script(
        [("P1", ["fast gold_standard salt lead cinnabar"])],
        decks=decks(I=["singed_fingers", "dusky_resin@3"]),
        preset={"players": {"P1": {"hand": ["salt", "lead", "cinnabar"], "coins": 5}}},
    )
    from .helpers import states

    keep = GAME.requests(states(data)[0])[0]
    assert keep.prompt.splitlines()[1:3] == [
        "1. Singed Fingers: you lose 1.",
        "2. Success: Dusky Resin (3): met, you take Dusky Resin and keep a formula.",
    ]
    assert [c.label for c in keep.choices] == [
        "Keep 1: Singed Fingers: you lose 1",
        "Keep 2: Success: Dusky Resin (3): met, you take Dusky Resin and keep a formula",
    ]
    state, seat = holding(["greek_fire"])
    target = rival(state, seat)
    state.g["players"][target]["hand"] = {"aether": 1}
    verdict = accepted(state, seat, f"use greek_fire {state.names[target]}")
    state, _ = GAME.resolve(state, {seat: verdict.move})
    ward = GAME.requests(state)[0]
    assert ward.kind == "ward" and ward.seat == target
    assert ward.prompt.splitlines()[:2] == [
        f"{state.names[seat]}'s Greek Fire would cost you 3 of your 10 Health.",
        "Ward: your Luminiferous Aether goes back to the supply and you lose nothing from"
        " this event. Pass: you lose 3.",
    ]


@pytest.mark.parametrize("seats", [2, 5])
def test_s12_3_every_text_fits_discord_on_the_largest_table(seats: int) -> None:
    """Every card type in the active hand (twice), every other hand full, 40 formulas it may
    reproduce, five monsters, and a card set with the longest names the format allows."""
    from bot.outbox import prompt_text
    from games.protocol import HELP_CHARS, TOPIC_CHARS

    data = json.loads(house_raw())
    for i, item in enumerate(data["ingredients"]):
        item["name"] = f"{item['name']} {'of the Long Name ' * 3}{i}"[:60]
    state = new(seats, card_set=data, formula_markers=20)
    seat = state.g["active"]
    cards = list(state.cards.ingredients)
    for s, player in enumerate(state.g["players"]):
        player["hand"] = {c: 2 for c in cards} if s == seat else {c: 1 for c in cards[:12]}
    for n in range(1, 41):
        fid = f"F{n}"
        state.g["formulas"].append(
            {
                "id": fid,
                "creator": n % seats,
                "level": 1 + n % 2,
                "value": 4,
                "ingredients": cards[n % 5 : n % 5 + 4],
                "results": ["hooch@3"],
                "products": ["hooch", "incense"],
                "knowers": list(range(seats)),
                "license": 3,
                "created": 0,
            }
        )
        for player in state.g["players"]:
            player["knows"].append(fid)
    for owner in range(5):
        with_monster(state, owner % seats)
    (request,) = GAME.requests(state)  # its time: bench/red_phoenix_engine.py
    assert len(prompt_text(request, 2e9, 2e9 - 60)) <= 2000
    assert len(request.help) <= HELP_CHARS and all(len(c.label) <= 80 for c in request.choices)
    assert len(GAME.describe(state, seat)) <= 1900
    for topic in GAME_INFO.reference(state) if GAME_INFO.reference else []:
        assert len(topic.text) <= TOPIC_CHARS
    state, _ = GAME.resolve(state, {seat: "end"})  # monsters attack, then the discard
    for request in GAME.requests(state):
        assert len(prompt_text(request, 2e9, 2e9 - 60)) <= 2000


def test_reference_names_every_card_of_the_matchs_set_with_what_it_does() -> None:
    from games.protocol import TOPIC_CHARS

    data = json.loads(house_raw())
    data["name"] = "Our set"
    data["ingredients"][0]["name"] = "Sea Salt"
    state = new(card_set=data)
    assert GAME_INFO.reference is not None
    topics = GAME_INFO.reference(state)
    text = "\n".join(f"{t.title}\n{t.text}" for t in topics)
    assert all(len(t.text) <= TOPIC_CHARS for t in topics) and not ID.search(text)
    cs = state.cards
    for ingredient in cs.ingredients.values():
        assert f"{ingredient.name} (Level" in text or f"{ingredient.name} (making" in text
    for method in cs.methods.values():
        assert f"\n{method.name}: " in text
    for level, results in cs.results.items():
        assert f"Level {level} results ({len(cs.deck(level))} cards)" in text
        for result in results.values():
            if result.kind in ("catastrophe", "monster"):
                assert f"\n{result.name}" in text
    assert "Sea Salt (Level I; 1 coin in the market), 8 copies" in text
    assert "Simple Failure: Sea Salt, Brimstone," in text
    assert (
        "Success: Gold (scores 8 ×2, 9 ×2, 10, 11, 13): value ≥ score: you take Gold and win."
        in text
    )
    assert "Basilisk (monster): comes into play before you (Health 5) and hits you" in text
    assert "Formulas on the table" not in text  # none yet
    state, seat = holding(["salt", "lead", "vitriol"], state=state)
    state, _ = GAME.resolve(state, {seat: "slow simple_decoction lead salt vitriol"})
    state.g["formulas"].append(
        {
            "id": "F1",
            "creator": seat,
            "level": 1,
            "value": 3,
            "ingredients": ["lead", "salt", "vitriol"],
            "results": ["hooch@3"],
            "products": ["hooch"],
            "knowers": [seat],
            "license": 2,
            "created": 0,
        }
    )
    later = {t.title: t.text for t in GAME_INFO.reference(state)}
    who = state.names[seat]
    assert later["Formulas on the table"] == (
        f"F1: Sea Salt, Vitriol and Lead → Alchemist's Hooch (level I, by {who},"
        f" known by {who}, licence 2 coins)"
    )
    assert later["Experiments in the labs"] == (
        f"{who}: slow Simple Decoction with Sea Salt, Vitriol and Lead (level I, value 3)"
    )


def test_s13_describe_names_the_table_and_only_the_asking_seats_hand() -> None:
    state, seat = holding(["hooch", "salt"])
    mine = GAME.describe(state, seat)
    assert "Your hand (2 cards): Level I: Salt; Level II: Alchemist's Hooch (heals 3)." in mine
    assert "Market: Salt 5 (1 coin), Brimstone 6 (1 coin)," in mine
    assert "Result decks: Level I 24 (discards 0)" in mine
    assert "Your hand" not in GAME.describe(state, None)
    assert "Your hand" not in GAME.describe(state, rival(state, seat)) or "Salt;" not in (
        GAME.describe(state, rival(state, seat))
    )
