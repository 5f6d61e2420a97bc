"""What a player reads (issue 17): everything a decision needs, by name, never an id; short
prompts with the grammar and the whole board behind ``help``; ``describe`` the whole board;
``GameInfo.reference`` every card, tile and panel with what it does; many choices grouped;
acknowledgements that name what was accepted; names as typed."""

from __future__ import annotations

import json
import re
import statistics
from functools import cache, partial
from typing import Any

import pytest

from cogs.prompts import plan, stages_of
from games.flaky_flasks import AGENTS, GAME, GAME_INFO
from games.flaky_flasks.content import HOUSE, HOUSE_JSON, read_content
from games.flaky_flasks.engine import content_of
from games.flaky_flasks.render import hand_text
from games.moves import play_window
from games.protocol import (
    HELP_CHARS,
    TOPIC_CHARS,
    Accepted,
    ConfigError,
    Refused,
    Setup,
    derive_rng,
)
from games.text import names_text

NAMES = ["Alice", "Bob Smith", "Carol", "AI (normal)"]
# ids that are also plain words of the texts ("balanced" fumes)
WORDS = {"balanced"}
IDS = sorted((set(HOUSE.cards) | set(HOUSE.tiles) | set(HOUSE.panels)) - WORDS)
ID_WORD = re.compile(r"(?<![\w@:'-])(" + "|".join(IDS) + r")(?![\w'-])")


def _walk(seed: int, seats: int, config: dict[str, Any]) -> list[tuple[Any, list[Any]]]:
    """A match of normal and random players: each state with its requests."""
    parsed = GAME.parse_config(config, seats)
    state, _ = GAME.new_match(Setup(parsed, seats, seed, NAMES[:seats]))
    agents = [
        AGENTS["normal" if s % 2 == 0 else "random"](s, derive_rng(seed, s)) for s in range(seats)
    ]
    seen = []
    while GAME.requests(state):
        requests = GAME.requests(state)
        seen.append((state, requests))
        attempts = {r.seat: [agents[r.seat].act(r, GAME.view(state, r.seat))] for r in requests}
        played = play_window(requests, attempts, partial(GAME.submit, state))
        state, _ = GAME.resolve(state, played.moves)
    return seen


@cache
def walks() -> list[list[tuple[Any, list[Any]]]]:
    """Three matches' states and requests, played once, by the first test that reads them (not
    at import: every pytest worker imports this module, one runs its tests)."""
    return [_walk(seed, 2 + seed % 3, {"rounds": 6, "prompt_mode": "all"}) for seed in (1, 3, 5)]


@cache
def seen_requests() -> list[tuple[Any, Any]]:
    """Each request of ``walks`` with its state."""
    return [(state, r) for walk in walks() for state, requests in walk for r in requests]


def test_every_kind_of_window_is_seen() -> None:
    assert {r.kind for _, r in seen_requests()} == {
        "setup",
        "hex",
        "counter",
        "work",
        "market",
        "offer",
        "reply",
    }


def test_prompts_labels_and_help_name_things_never_by_id() -> None:
    for _state, request in seen_requests():
        texts = [request.prompt, request.help, *(c.label for c in request.choices)]
        texts += [c.stage for c in request.choices]
        for text in texts:
            found = ID_WORD.search(text)
            assert found is None, (found[0] if found else "", text)


def test_describe_and_the_public_table_name_things_never_by_id() -> None:
    for state, requests in [walk[k] for walk in walks() for k in range(0, len(walk), 7)]:
        for seat in [None, *(r.seat for r in requests)]:
            text = GAME.describe(state, seat)
            assert ID_WORD.search(text) is None, text
            assert len(text) <= 1900


def test_the_first_work_prompt_shows_the_hand_once_with_each_cards_symbols() -> None:
    state, _ = GAME.new_match(Setup(GAME.parse_config({}, 2), 2, 6, ["Alice", "Bob"]))
    (request, _) = GAME.requests(state)
    hand = state["g"]["players"][0]["hand"]
    assert request.prompt.count("Hand: ") == 1
    assert request.prompt.count(hand_text(content_of(state), hand)) == 1
    for card in hand:
        named = HOUSE.cards[card]
        assert named.name in request.prompt
    assert "▲1🔴 ▲1🔴" in request.prompt  # Ember Thorn's symbols, before it is played
    assert "broken: no tiles, what it sends is lost" in request.prompt
    assert "Simple Tonic: 2–6 symbols, all one shape; pays count+3 coins, 1 fame" in (
        request.prompt
    )


def test_work_prompts_are_short_and_say_each_thing_once() -> None:
    work = [len(r.prompt) for _, r in seen_requests() if r.kind == "work"]
    assert max(work) <= 1100 and statistics.median(work) <= 800, (max(work), work)
    for _, request in seen_requests():
        assert len(request.prompt) <= 1400
        lines = [line for line in request.prompt.splitlines() if len(line) > 30]
        assert len(lines) == len(set(lines)), request.prompt  # no line twice


def test_help_holds_the_grammar_and_the_board_within_its_limit() -> None:
    grammar = {
        "work": "play <card> <slot>",
        "market": "sell <potion> <panel>",
        "setup": "layout k=TILES",
        "hex": "hex <card> [<player>]",
        "counter": "counter <card>",
        "offer": "offer <player> give <items> get <items>",
        "reply": "accept",
    }
    for state, request in seen_requests():
        assert 0 < len(request.help) <= HELP_CHARS
        assert grammar[request.kind] in request.help, request.help
        assert grammar[request.kind] not in request.prompt  # the prompt never repeats it
        if request.kind in ("work", "market", "setup"):
            name = state["g"]["names"][request.seat]
            assert f"{name} · " in request.help  # the seat's board


def test_the_reference_lists_every_card_tile_and_panel_within_discords_limits() -> None:
    state = walks()[0][0][0]
    topics = GAME_INFO.reference(state)
    text = "\n".join(t.text for t in topics)
    for item in (*HOUSE.cards.values(), *HOUSE.tiles.values(), *HOUSE.panels.values()):
        assert item.name in text
    assert all(len(t.text) <= TOPIC_CHARS and t.title for t in topics)
    assert "Kiln (tier 1, cost 5): value +2, ▲ symbols only" in text
    assert "Shadow Moth (cost 4, 3 in the market): ▲1🔵 ⬟1🔵; Hex on a player" in text
    assert "(on the board)" in text  # the revealed panels are marked
    assert ID_WORD.search(text) is None
    for word in ("Charge", "Hex", "Counter", "Fumes", "Spoils", "Fractured", "Manifest"):
        assert f"{word}:" in topics[0].text


def test_a_big_content_set_reference_is_split_into_numbered_topics() -> None:
    big = json.loads(json.dumps(HOUSE_JSON))
    for k in range(60 - len(big["cards"])):  # as many cards as a set may hold
        big["cards"].append(
            {"id": f"extra{k}", "name": f"Extra Herb {k}", "tier": 1, "cost": 3, "copies": 1,
             "symbols": ["T1R", "S2G", "P3B"], "charm": [{"do": "draw", "n": 1}]}
        )  # fmt: skip
    config = GAME.parse_config({"content_set": big}, 2)
    state, _ = GAME.new_match(Setup(config, 2, 1))
    topics = GAME_INFO.reference(state)
    parts = [t.title for t in topics if t.title.startswith("Cards, tier 1 (")]
    assert len(parts) >= 3 and parts[0] == f"Cards, tier 1 (1/{len(parts)})"
    assert all(len(t.text) <= TOPIC_CHARS for t in topics)
    assert "Extra Herb 27" in "\n".join(t.text for t in topics)


def test_many_choices_are_offered_in_groups() -> None:
    big = [(s, r) for s, r in seen_requests() if len(r.choices) >= 40]
    assert big
    for _, request in big:
        groups: dict[str, int] = {}
        for choice in request.choices:
            groups[choice.group] = groups.get(choice.group, 0) + 1
        for group, count in groups.items():
            if count >= 3:
                assert request.presentation.get(group) in ("menu", "steps"), (group, request.kind)
    first = next(r for s, r in seen_requests() if r.kind == "work" and "Panels" in r.prompt)
    data = {"choices": [{"value": c.value, "label": c.label, "group": c.group,
                         "stage": c.stage} for c in first.choices],
            "presentation": dict(first.presentation)}  # fmt: skip
    _, _, menus = plan(data)
    steps = [m for m in menus if m.steps is not None]
    assert steps and steps[0].kind == "play"  # first the card, then its slot
    indices = [i for i, c in enumerate(first.choices) if c.group == "play"]
    stages = stages_of(data["choices"], indices)
    assert stages is not None and all(" " in name for name, _ in stages)


def test_market_purchases_come_in_two_steps_the_item_then_the_trash() -> None:
    markets = [r for _, r in seen_requests() if r.kind == "market" and any(c.group == "buy" for c in
               r.choices)]  # fmt: skip
    assert markets
    for request in markets:
        assert request.presentation["buy"] == "steps"
        for choice in request.choices:
            if choice.group == "buy":
                assert choice.stage and choice.label.startswith("Buy ")
                item = choice.value.split()[1]
                assert HOUSE.named(item) in choice.stage


# --- acknowledgements -------------------------------------------------------------------


def test_acknowledgements_name_exactly_what_was_accepted() -> None:
    said: dict[str, set[str]] = {}
    for state, request in seen_requests():
        for choice in request.choices[:6]:
            verdict = GAME.submit(state, request.seat, choice.value)
            assert isinstance(verdict, Accepted), (choice.value, verdict)
            assert verdict.summary != verdict.move and ID_WORD.search(verdict.summary) is None
            said.setdefault(choice.value.split()[0], set()).add(verdict.summary)
    assert any(s.startswith("Play ") and " into slot " in s for s in said["play"])
    assert any(re.match(r"Propagate slot \d \([^)]+\): .* into the cauldron", s)
               for s in said["prop"])  # fmt: skip
    assert any(re.match(r"Sell potion \d as [\w ]+ for \d+ coins and \d+ fame", s)
               for s in said["sell"])  # fmt: skip
    assert any(re.match(r"Buy [\w' ]+ for \d+", s) for s in said["buy"])
    assert any(s.startswith("Brew potion ") for s in said["brew"])
    assert said["done"] == {"Done with your work this turn"}
    assert said["keep"] == {"Keep your tile layout"}
    assert any(s.startswith("Offer ") and " for " in s for s in said["offer"])


# --- typed names ------------------------------------------------------------------------


def _work_state() -> Any:
    state, _ = GAME.new_match(Setup(GAME.parse_config({}, 2), 2, 6, ["Alice", "Bob Smith"]))
    return state


@pytest.mark.parametrize(
    ("typed", "move"),
    [
        ("play Ember Thorn 1", "play ember 1"),
        ("PLAY ember thorn 1", "play ember 1"),
        ("play EMBER 2", "play ember 2"),
        ("play Ember Thorn into slot 3", "play ember 3"),
        ("play copper coin 4", "play copper 4"),
    ],
)
def test_s12_1_5_cards_are_typed_by_name_or_id_in_any_case(typed: str, move: str) -> None:
    verdict = GAME.submit(_work_state(), 0, typed)
    assert isinstance(verdict, Accepted) and verdict.move == move


def test_s12_2_a_card_not_in_hand_is_refused_naming_the_hand() -> None:
    verdict = GAME.submit(_work_state(), 0, "play Glowcap 1")
    assert isinstance(verdict, Refused)
    assert "Glowcap is not in your hand (Ember Thorn, Copper Coin" in verdict.reason
    verdict = GAME.submit(_work_state(), 0, "play Dragons Milk 1")
    assert isinstance(verdict, Refused) and "There is no card 'Dragons Milk'" in verdict.reason


def _sandbox(kind: str, hand: list[str]) -> Any:
    state = json.loads(json.dumps(_work_state()))
    g = state["g"]
    g["win"].update(kind=kind, prompted=[0], finished=[])
    g["players"][0].update(hand=hand, coins=30, channels=[["pipe"], ["kiln"], ["prism@R"], []])
    g["players"][1]["channels"] = [["pipe"], ["heater"], [], []]
    g["players"][0]["deck"].append("serpent")
    g["rows"]["river"]["1"] = ["wisp", "salamander", "root", "moth"]
    return state


@pytest.mark.parametrize(
    ("kind", "typed", "move"),
    [
        ("hex", "hex Shadow Moth Bob Smith", "hex moth Bob Smith"),
        ("hex", "hex moth bob smith", "hex moth Bob Smith"),
        ("market", "buy Will-o'-Wisp", "buy wisp"),
        ("market", "buy will o wisp trash Ember Thorn", "buy wisp trash ember"),
        ("market", "buy Salamander Scale trash salamander", "buy salamander trash salamander"),
        ("setup", "layout 1=Straight Pipe, Kiln 2=prism @ green", "layout 1=pipe,kiln 2=prism@G"),
        ("setup", "layout 3=PRISM@b", "layout 3=prism@B"),
        ("offer", "offer Bob Smith give 3c card:Sea Serpent Fin get tile:Heater",
         "offer Bob Smith give 3c card:serpent get tile:heater"),
        ("offer", "offer bob smith give get tile:heater", "offer Bob Smith give get tile:heater"),
    ],
)  # fmt: skip
def test_s12_1_5_every_grammar_takes_names_with_spaces(kind: str, typed: str, move: str) -> None:
    verdict = GAME.submit(_sandbox(kind, ["moth", "ember"]), 0, typed)
    assert isinstance(verdict, Accepted), verdict
    assert verdict.move == move


def test_s9_an_offer_to_a_player_whose_name_has_spaces_resolves() -> None:
    state = _sandbox("offer", ["ember"])
    verdict = GAME.submit(state, 0, "offer Bob Smith give 2c get tile:heater")
    assert isinstance(verdict, Accepted)
    state, events = GAME.resolve(state, {0: verdict.move})
    (reply,) = GAME.requests(state)
    assert reply.seat == 1 and reply.kind == "reply"
    assert "Alice offers you a trade." in reply.prompt
    assert "You would give: Heater (+1), from channel 2 (its slot breaks)." in reply.prompt
    assert "You would get: 2 coins." in reply.prompt
    state, events = GAME.resolve(state, {1: "accept"})
    report = "\n".join(e.text for e in events if e.kind == "report")
    assert "Bob Smith accepts Alice's offer (2 coins for Heater)" in report
    assert "heater" in [s.split("@")[0] for ch in state["g"]["players"][0]["channels"] for s in ch]


def test_names_are_unique_within_a_content_set() -> None:
    clash = json.loads(json.dumps(HOUSE_JSON))
    clash["tiles"][1]["name"] = "ember thorn!"  # the Copper Elbow, named like a card
    with pytest.raises(ConfigError) as caught:
        read_content(clash)
    assert caught.value.field == "content_set.tiles[1].name"
    assert "'ember'" in caught.value.message
    other = json.loads(json.dumps(HOUSE_JSON))
    other["cards"][0]["name"] = "Kiln"  # a card named as a tile's id
    with pytest.raises(ConfigError) as caught:
        read_content(other)
    assert caught.value.field == "content_set.tiles[3].id"


# --- names in templates ----------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_names_text_in_the_end_with_every_number_of_winners(seats: int) -> None:
    """A shared victory of 1 to 4 players reads as a sentence: "Alice, Bob and Carol win."."""
    from .helpers import trace, work

    names = tuple(f"P{s + 1}" for s in range(seats))
    for winners in range(1, seats + 1):
        presets = {n: {"fame": 9 if k < winners else 1} for k, n in enumerate(names)}
        steps = [work(**{n: ["done"] for n in names}), work(**{n: ["done"] for n in names})]
        from games.flaky_flasks import replay_script

        script = {
            "format": "flaky-flasks-script/1",
            "players": list(names),
            "steps": steps,
            "start": {"round": 12, "players": presets},
        }
        last = list(replay_script(script))[-1]
        over = [e.text for e in last.events if e.kind == "over"]
        expected = names_text(list(names[:winners]))
        verb = "wins" if winners == 1 else "win"
        assert over == [f"Game over: {expected} {verb}."]
        report = "\n".join(e.text for e in last.events if e.kind == "report")
        shared = "wins" if winners == 1 else "share the victory"
        assert f"Game over (all rounds played): {expected} {shared}." in report
        assert " and " not in expected or expected.count(" and ") == 1
        assert trace(steps, players=names, start=script["start"])[-1]["winners"] == list(
            names[:winners]
        )


def test_on_the_biggest_table_every_prompt_still_fits_one_message() -> None:
    """8 slots, channels of 6, hands of 10: a prompt gives way line by line (pointing to
    ``help``) so that with the host's Choices and deadline lines it stays one message."""
    from bot.outbox import prompt_text
    from games.flaky_flasks.prompts import MORE, PROMPT_CHARS

    config = {"rounds": 6, "slots": 8, "channel_length": 6, "hand_size": 10}
    cut = 0
    for _, requests in _walk(2, 4, config):
        for request in requests:
            assert len(request.prompt) <= PROMPT_CHARS and len(request.help) <= HELP_CHARS
            assert len(prompt_text(request, 1e9 + 60, 1e9)) <= 2000
            assert all(len(c.label) <= 80 for c in request.choices)
            cut += request.prompt.endswith(MORE)
            assert request.prompt.count("Hand: ") <= 1
    assert cut  # the rule was exercised
