"""Reading answers (rules page §12.2) and the legality of each (§3.3, §5.1, §6, §7, §10, §11):
``check`` turns a raw answer into the page's own command (ids, the stored move) with a summary
naming what it does, or a refusal saying why.

Beyond the page's grammar, an answer may name an ingredient or a method as the prompts show it
(``fast Blood Distillation Salt, Brimstone, Quicksilver and Vitriol``): names and ids are read
alike, case-insensitive, with commas and ``and`` between cards, ``×2`` after a card for two
copies and ``on`` before a target (``cards.words``). Keep and discard windows also take a bare
list without their keyword, as buttons and menus send it. The move is always the page's
command, so a stored match and its export replay on any implementation of the page.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from games.protocol import Accepted, Refused, Verdict
from games.text import excerpt, has_other_numerals, names_text, read_number

from .cards import words
from .state import Experiment, Formula, State, WindowKind, discard_frame, trade_frame
from .words import (
    card_name,
    cards_text,
    cost_text,
    counted,
    effect_text,
    item_text,
    plural,
    result_name,
    roman,
    seat_word,
)

FORMULA = re.compile(r"f([0-9]{1,9})")
MONSTER = re.compile(r"m([0-9]{1,9})")
COPY_MARK = re.compile(r"#[0-9]{1,3}\b")  # the menus' ``salt#2``: the second Salt
TIMES = re.compile(r"[x×]([0-9]{1,2})")
MAX_NOTE = 200
MAX_ANSWER = 2000
VERBS = "take, buy, slow, fast, reproduce, dissolve, use, trade, license or end"


class Bad(Exception):
    """A refused answer; the message says why."""


@dataclass(frozen=True, slots=True)
class Checked:
    move: str  # the page's command
    summary: str  # what it does, by name


def check(state: State, seat: int, raw: str) -> Verdict:
    """The verdict on ``raw`` from ``seat`` in ``state``; never raises, never changes it."""
    g = state.g
    pending = g["pending"]
    if g["over"] or pending is None:
        return Refused("the game is over")
    if seat != pending["seat"]:
        return Refused("no window of yours is open")
    if not isinstance(raw, str):
        return Refused("send a text answer")
    if has_other_numerals(raw):
        return Refused("write numbers with the digits 0-9")
    if len(raw) > MAX_ANSWER:
        return Refused("that answer is too long")
    try:
        checked = _check(state, seat, pending["kind"], raw)
    except Bad as error:
        return Refused(str(error))
    return Accepted(checked.move, checked.summary)


def tokens(text: str) -> list[str]:
    """An answer's words (``cards.words``), the menus' copy marks dropped."""
    return list(words(COPY_MARK.sub(" ", text)))


def _check(state: State, seat: int, kind: WindowKind, raw: str) -> Checked:
    toks = tokens(raw)
    if kind == "action":
        return check_action(state, seat, raw, toks)
    if kind == "keep":
        return check_keep(state, seat, toks)
    if kind == "ward":
        return check_ward(state, seat, toks)
    if kind == "trade_response":
        return check_trade_answer(state, toks)
    return check_discard(state, seat, toks)


def _one_of(toks: list[str], allowed: Sequence[str]) -> str:
    if len(toks) == 1 and toks[0] in allowed:
        return toks[0]
    raise Bad(f"answer {' or '.join(allowed)}")


def check_ward(state: State, seat: int, toks: list[str]) -> Checked:
    if _one_of(toks, ("ward", "pass")) == "pass":
        return Checked("pass", "Pass: no ward, you take the loss")
    card = ward_card(state, seat)
    name = card_name(state.cards, card) if card else "ward card"
    return Checked("ward", f"Ward with your {name}: you lose nothing from this event")


def ward_card(state: State, seat: int) -> str | None:
    """The card a ``ward`` spends (§8.2: the first id in string order not used this turn)."""
    player = state.g["players"][seat]
    for card in sorted(player["hand"]):
        if state.cards.ingredients[card].effect == "ward" and card not in player["used"]:
            return card
    return None


def check_trade_answer(state: State, toks: list[str]) -> Checked:
    answer = _one_of(toks, ("accept", "decline"))
    who = state.names[state.g["active"]]
    return Checked(answer, f"{answer.capitalize()} {who}'s trade")


# --- lists of cards --------------------------------------------------------------------------


@dataclass
class Reader:
    """A cursor over an answer's words that reads names (the longest that fits)."""

    state: State
    toks: list[str]
    at: int = 0

    def done(self) -> bool:
        return self.at >= len(self.toks)

    def peek(self) -> str:
        return self.toks[self.at] if not self.done() else ""

    def longest(self, table: Mapping[tuple[str, ...], str]) -> str | None:
        """The longest name of ``table`` at the cursor, read past; None when none fits."""
        end = min(len(self.toks), self.at + self.state.cards.name_words)
        for stop in range(end, self.at, -1):
            found = table.get(tuple(self.toks[self.at : stop]))
            if found is not None:
                self.at = stop
                return found
        return None

    def card(self) -> str:
        word = self.peek()
        card = self.longest(self.state.cards.card_words)
        if card is None:
            raise Bad(f"{excerpt(word)} is not a card of this game (type a card's name or id)")
        return card

    def method(self) -> str:
        word = self.peek()
        method = self.longest(self.state.cards.method_words)
        if method is None:
            names = [m.name for m in self.state.cards.methods.values()]
            raise Bad(f"{excerpt(word)} is not a method: {names_text(names)}")
        return method

    def cards(self) -> Counter[str]:
        """Cards to the end: ``Salt, Lead ×2 and Vitriol``."""
        found: Counter[str] = Counter()
        while not self.done():
            if self.peek() == "and" and found:
                self.at += 1
                continue
            card = self.card()
            found[card] += self.times()
        return found

    def times(self) -> int:
        """A ``×2`` after a card: that many copies (1 without)."""
        match = TIMES.fullmatch(self.peek())
        if match is None or not 1 <= int(match.group(1)) <= 99:
            return 1
        self.at += 1
        return int(match.group(1))


def sorted_ids(cards: Counter[str]) -> list[str]:
    return sorted(cards.elements())


def check_discard(state: State, seat: int, toks: list[str]) -> Checked:
    n = discard_frame(state.g)["n"]
    hand = state.g["players"][seat]["hand"]
    reader = Reader(state, toks[1:] if toks[:1] == ["discard"] else toks)
    cards = reader.cards()
    for card, count in cards.items():
        if hand.get(card, 0) < count:
            raise Bad(f"you hold {hand.get(card, 0)} {card_name(state.cards, card)}")
    if sum(cards.values()) != n:
        raise Bad(f"discard exactly {plural(n, 'card')} (discard CARD ...)")
    return Checked(
        "discard " + " ".join(sorted_ids(cards)), f"Discard {cards_text(state.cards, cards)}"
    )


def check_keep(state: State, seat: int, toks: list[str]) -> Checked:
    exp = resolving(state, seat)
    lo, hi = exp["keep"]
    n = len(exp["drawn"])
    picks: list[int] = []
    for item in toks[1:] if toks[:1] == ["keep"] else toks:
        number = read_number(item)
        if number is None or not 1 <= number <= n:
            raise Bad(f"keep takes the drawn cards' numbers, 1 to {n}, got {excerpt(item)}")
        if number in picks:
            raise Bad(f"card {number} is named twice")
        picks.append(number)
    if not lo <= len(picks) <= hi:
        many = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise Bad(f"keep {many} of the {n} drawn cards, by number: keep 1")
    picks.sort()
    level = roman(exp["level"])
    kept = [
        f"{result_name(state.cards, state.cards.results[level][exp['drawn'][i - 1]])} (card {i})"
        for i in picks
    ]
    return Checked("keep " + " ".join(map(str, picks)), f"Keep {names_text(kept)}")


def resolving(state: State, seat: int) -> Experiment:
    for exp in state.g["players"][seat]["lab"]:
        if exp["status"] == "keep":
            return exp
    raise Bad("no experiment waits for a keep choice")


# --- actions ---------------------------------------------------------------------------------


def check_action(state: State, seat: int, raw: str, toks: list[str]) -> Checked:
    if not toks:
        raise Bad(f"send an action: {VERBS}")
    verb = toks[0]
    if verb == "trade":
        return check_trade(state, seat, raw)
    handler = ACTIONS.get(verb)
    if handler is None:
        raise Bad(f"unknown action {excerpt(verb)}: {VERBS} (help lists them)")
    return handler(state, seat, Reader(state, toks, 1))


def _number(word: str, what: str) -> int:
    number = read_number(word)
    if number is None:
        raise Bad(f"{what} must be a whole number written with digits, got {excerpt(word)}")
    return number


def formula_of(state: State, word: str) -> Formula:
    match = FORMULA.fullmatch(word)
    if match is None:
        raise Bad(f"{excerpt(word)} is not a formula (F1, F2, ...)")
    fid = f"F{int(match.group(1))}"
    for f in state.g["formulas"]:
        if f["id"] == fid:
            return f
    raise Bad(f"there is no formula {fid} on the table")


def _ap(state: State, need: int) -> None:
    if state.g["ap"] < need:
        raise Bad(f"that needs {need} AP; you have {state.g['ap']}")


def _nothing_after(reader: Reader, form: str) -> None:
    if not reader.done():
        raise Bad(f"{form}: {excerpt(reader.peek())} is one word too many")


def a_take(state: State, seat: int, reader: Reader) -> Checked:
    if reader.done():
        raise Bad("take N: the AP to spend on coins")
    n = _number(reader.peek(), "N")
    reader.at += 1
    if reader.peek() == "ap":
        reader.at += 1
    _nothing_after(reader, "take N")
    ap = state.g["ap"]
    if not 1 <= n <= ap:
        raise Bad(f"take 1 to {ap} AP" if ap else "you have no AP left")
    coins = n * state.config["coins_per_ap"]
    return Checked(f"take {n}", f"Take {coins} coins for {n} AP")


def a_buy(state: State, seat: int, reader: Reader) -> Checked:
    cards = reader.cards()
    if not cards:
        raise Bad("buy names at least one card: buy Salt Lead")
    _ap(state, 1)
    cs = state.cards
    cost = 0
    for card, n in cards.items():
        price = cs.ingredients[card].cost
        if price is None:
            raise Bad(f"{card_name(cs, card)} is not sold in the market")
        if state.g["market"][card] < n:
            raise Bad(f"the market holds {state.g['market'][card]} {card_name(cs, card)}")
        cost += price * n
    coins = state.g["players"][seat]["coins"]
    if cost > coins:
        raise Bad(f"that costs {plural(cost, 'coin')}; you have {coins}")
    return Checked(
        "buy " + " ".join(sorted_ids(cards)),
        f"Buy {cards_text(cs, sorted_ids(cards))} for {plural(cost, 'coin')} (1 AP)",
    )


def experiment_cost(state: State, method_id: str, level: int) -> tuple[int, int]:
    method = state.cards.methods[method_id]
    return method.coins * level, method.health * level


def check_ingredients(state: State, seat: int, cards: Counter[str]) -> list[str]:
    """An experiment's ingredients (§5.1): 3 or 4 held cards of different usable types."""
    cs = state.cards
    if not 3 <= sum(cards.values()) <= 4:
        raise Bad("an experiment takes 3 or 4 ingredients")
    if any(n > 1 for n in cards.values()):
        raise Bad("the ingredients must be of different types")
    player = state.g["players"][seat]
    for card in cards:
        if player["hand"].get(card, 0) < 1:
            raise Bad(f"you hold no {card_name(cs, card)}")
        if not 1 <= cs.ingredients[card].level <= 3:
            raise Bad(f"{card_name(cs, card)} cannot be an ingredient")
    return sorted(cards)


def level_value(state: State, cards: Sequence[str]) -> tuple[int, int]:
    """An experiment's level and value with this turn's pending boost (§5.2)."""
    levels = [state.cards.ingredients[c].level for c in cards]
    return max(levels), sum(levels) + state.g["boost"]


def experiment(state: State, seat: int, speed: str, method: str, cards: Counter[str]) -> Checked:
    """``slow|fast METHOD C C C [C]`` checked (§5.1), with what it costs."""
    ids = check_ingredients(state, seat, cards)
    player = state.g["players"][seat]
    ap = 2 if speed == "fast" else 1
    _ap(state, ap)
    level, value = level_value(state, ids)
    coins, health = experiment_cost(state, method, level)
    name = state.cards.methods[method].name
    if player["coins"] < coins:
        raise Bad(f"{name} at level {roman(level)} costs {coins} coins; you have {player['coins']}")
    if health and player["health"] <= health:
        raise Bad(f"{name} at level {roman(level)} costs {health} Health; you need more than that")
    if free_markers(state, seat) < 1:
        raise Bad("you have no free formula marker")
    cost = cost_text(coins, health)
    cost = f"{cost}, {ap} AP" if cost != "free" else f"{ap} AP"
    return Checked(
        f"{speed} {method} " + " ".join(ids),
        f"{speed.capitalize()} {name} with {cards_text(state.cards, ids)}"
        f" (level {roman(level)}, value {value}; {cost})",
    )


def free_markers(state: State, seat: int) -> int:
    player = state.g["players"][seat]
    if not player["alive"]:
        return 0
    return state.config["formula_markers"] - len(player["knows"]) - len(player["lab"])


def experiment_moves(state: State, seat: int, cards: Sequence[str]) -> list[Checked]:
    """Every legal ``slow|fast METHOD cards`` with these ingredients, methods in the card
    set's order, slow before fast."""
    moves = []
    for method in state.cards.methods:
        for speed in ("slow", "fast"):
            try:
                moves.append(experiment(state, seat, speed, method, Counter(cards)))
            except Bad:
                continue
    return moves


def a_experiment(speed: str) -> Callable[[State, int, Reader], Checked]:
    def check_it(state: State, seat: int, reader: Reader) -> Checked:
        if reader.done():
            raise Bad(f"{speed} METHOD CARD CARD CARD [CARD]")
        method = reader.method()
        return experiment(state, seat, speed, method, reader.cards())

    return check_it


def licence_fee(f: Formula) -> int | None:
    """The fee another seat pays to reproduce ``f`` (§6.4): None when it has none or its
    creator is out."""
    return f["license"] if f["creator"] is not None else None


def reproduce_problem(state: State, seat: int, f: Formula) -> str | None:
    g = state.g
    cs = state.cards
    player = g["players"][seat]
    knows = f["id"] in player["knows"]
    fee = licence_fee(f)
    if not knows and fee is None:
        return f"you do not know {f['id']} and it has no licence fee"
    if not knows and fee is not None and player["coins"] < fee:
        return f"the licence fee of {f['id']} is {fee}; you have {player['coins']} coins"
    if g["ap"] < 1:
        return "that needs 1 AP; you have 0"
    if f["created"] == g["turn"]:
        return f"{f['id']} was created this turn; reproduce it on a later turn"
    if [seat, f["id"]] in g["rec"]["repro"]:
        return f"you reproduced {f['id']} this turn already"
    missing = [c for c in f["ingredients"] if player["hand"].get(c, 0) < 1]
    if missing:
        return (
            f"{f['id']} needs {cards_text(cs, f['ingredients'])}; "
            f"you lack {cards_text(cs, missing)}"
        )
    if not any(state.pile(p)[p] > 0 for p in f["products"]):
        return f"none of {f['id']}'s products is left"
    return None


def a_reproduce(state: State, seat: int, reader: Reader) -> Checked:
    f = formula_of(state, reader.peek()) if not reader.done() else None
    reader.at += 1
    if f is None:
        raise Bad("reproduce F#: a formula (F1, F2, ...)")
    _nothing_after(reader, "reproduce F#")
    problem = reproduce_problem(state, seat, f)
    if problem:
        raise Bad(problem)
    cs = state.cards
    fee = "" if f["id"] in state.g["players"][seat]["knows"] else f", a fee of {f['license']}"
    return Checked(
        f"reproduce {f['id']}",
        f"Reproduce {f['id']}: {cards_text(cs, f['ingredients'])} for "
        f"{cards_text(cs, f['products'])} (1 AP{fee})",
    )


def a_dissolve(state: State, seat: int, reader: Reader) -> Checked:
    f = formula_of(state, reader.peek()) if not reader.done() else None
    reader.at += 1
    if f is None:
        raise Bad("dissolve F# or dissolve F# keep")
    keep = reader.peek() == "keep"
    reader.at += int(keep)
    _nothing_after(reader, "dissolve F# or dissolve F# keep")
    if f["creator"] != seat:
        raise Bad(f"only the creator of {f['id']} may dissolve it")
    _ap(state, 2 if keep else 1)
    cards = cards_text(state.cards, f["ingredients"])
    return Checked(
        f"dissolve {f['id']}" + (" keep" if keep else ""),
        f"Dissolve {f['id']}, " + (f"taking {cards} into your hand (2 AP)" if keep else "1 AP"),
    )


def target_seat(state: State, toks: Sequence[str]) -> int | None:
    """The seat these words name: its one-word handle or its name, as prompts show them."""
    key = tuple(toks)
    for seat, (handle, name) in enumerate(zip(state.handles, state.names, strict=True)):
        if key in (words(handle), words(name)):
            return seat
    return None


def monster_target(state: State, toks: Sequence[str]) -> str | None:
    """The monster these words name: ``M2``, or its card's name when only one such is in play."""
    if len(toks) == 1 and (match := MONSTER.fullmatch(toks[0])) is not None:
        mid = f"M{int(match.group(1))}"
        if not any(m["id"] == mid for m in state.g["monsters"]):
            raise Bad(f"there is no monster {mid} in play")
        return mid
    level_names = state.cards.results
    named = [
        m["id"]
        for m in state.g["monsters"]
        if words(level_names[m["level"]][m["card"]].name) == tuple(toks)
    ]
    return named[0] if len(named) == 1 else None


def a_use(state: State, seat: int, reader: Reader) -> Checked:
    if reader.done():
        raise Bad("use ITEM [TARGET]")
    cs = state.cards
    card = reader.card()
    name = card_name(cs, card)
    player = state.g["players"][seat]
    if player["hand"].get(card, 0) < 1:
        raise Bad(f"you hold no {name}")
    ing = cs.ingredients[card]
    if ing.effect is None:
        raise Bad(f"{name} is not an item")
    if ing.effect == "ward":
        raise Bad(f"{name} wards only out of turn, when damage would hit you")
    if card in player["used"]:
        raise Bad(f"you used {name} this turn already")
    rest = reader.toks[reader.at + (reader.peek() == "on") :]
    if ing.effect in ("heal", "coins", "boost"):
        if rest:
            raise Bad(f"{name} takes no target")
        return Checked(f"use {card}", f"Use {name} ({item_text(ing)})")
    what = "a rival" + (" or a monster" if ing.effect == "damage" else "")
    if not rest:
        raise Bad(f"use {name} on {what}")
    monster = monster_target(state, rest) if ing.effect == "damage" else None
    if monster is not None:
        return Checked(f"use {card} {monster}", f"Use {name} on {monster} ({effect_text(ing)})")
    return Checked(*_use_on_seat(state, seat, card, rest, what))


def _use_on_seat(state: State, seat: int, card: str, rest: list[str], what: str) -> list[str]:
    name = card_name(state.cards, card)
    target = target_seat(state, rest)
    if target is None:
        raise Bad(f"{excerpt(' '.join(rest))} is not {what} in play")
    if target == seat:
        raise Bad("target another player")
    if not state.g["players"][target]["alive"]:
        raise Bad(f"{state.names[target]} is out of the game")
    if state.cards.ingredients[card].effect == "steal" and not state.g["players"][target]["hand"]:
        raise Bad(f"{state.names[target]} holds no card")
    who = seat_word(state.names, state.handles, target)
    effect = effect_text(state.cards.ingredients[card])
    return [f"use {card} {state.handles[target]}", f"Use {name} on {who} ({effect})"]


def a_license(state: State, seat: int, reader: Reader) -> Checked:
    if len(reader.toks) - reader.at != 2:
        raise Bad("license F# FEE or license F# off")
    f = formula_of(state, reader.peek())
    word = reader.toks[reader.at + 1]
    if f["creator"] != seat:
        raise Bad(f"only the creator of {f['id']} may license it")
    if f["id"] in state.g["rec"]["lic"]:
        raise Bad(f"the licence of {f['id']} changed this turn already")
    if word == "off":  # §3.3: legal with or without a fee set (it clears whatever there is)
        return Checked(f"license {f['id']} off", f"License {f['id']} off: no fee, no licence")
    fee = _number(word, "FEE")
    if fee < 1:
        raise Bad("FEE must be at least 1")
    return Checked(
        f"license {f['id']} {fee}",
        f"License {f['id']}: anyone may reproduce it for {plural(fee, 'coin')} to you",
    )


def a_end(state: State, seat: int, reader: Reader) -> Checked:
    _nothing_after(reader, "end")
    return Checked("end", "End your turn")


ACTIONS: dict[str, Callable[[State, int, Reader], Checked]] = {
    "take": a_take,
    "buy": a_buy,
    "fast": a_experiment("fast"),
    "slow": a_experiment("slow"),
    "reproduce": a_reproduce,
    "dissolve": a_dissolve,
    "use": a_use,
    "license": a_license,
    "end": a_end,
}


# --- trade (§10) -----------------------------------------------------------------------------


@dataclass
class Side:
    cards: Counter[str] = field(default_factory=Counter)
    formulas: list[str] = field(default_factory=list)
    coins: int = 0

    def empty(self) -> bool:
        return not self.cards and not self.formulas and not self.coins

    def command(self) -> list[str]:
        return [
            *sorted(self.cards.elements()),
            *self.formulas,
            *([str(self.coins)] * bool(self.coins)),
        ]


@dataclass
class Offer:
    partner: int
    give: Side
    get: Side
    note: str


NOTE = re.compile(r"\S+")


def split_note(raw: str) -> tuple[str, str]:
    """The answer before its note, and the note (§12.2: the word ``note``, from the third
    word on, starts the note: everything after it, trimmed, kept as typed)."""
    for index, span in enumerate(NOTE.finditer(raw)):
        if index >= 2 and span.group().lower() == "note":
            return raw[: span.start()], raw[span.end() :].strip()
    return raw, ""


def parse_trade(state: State, raw: str) -> Offer:
    head, note = split_note(raw)
    toks = tokens(head)
    if len(toks) < 2:
        raise Bad("trade PLAYER [give ITEMS] [get ITEMS] [note TEXT]")
    partner = target_seat(state, toks[1:2])
    if partner is None:
        raise Bad(f"{excerpt(toks[1])} is not a player")
    give, get = Side(), Side()
    reader = Reader(state, toks, 2)
    seen: list[str] = []
    while not reader.done():
        word = reader.peek()
        if word not in ("give", "get") or word in seen or (word == "give" and seen):
            raise Bad("items start with give, then get, each at most once")
        seen.append(word)
        reader.at += 1
        side = give if word == "give" else get
        _read_side(reader, side)
        if side.empty():
            raise Bad(f"{word} names no item")
    if len(note) > MAX_NOTE:
        raise Bad(f"keep the note under {MAX_NOTE} characters")
    if note and not note.isprintable():
        raise Bad("the note must be printable text")
    return Offer(partner, give, get, note)


def _read_side(reader: Reader, side: Side) -> None:
    """Cards, formulas and at most one coin amount (``3`` or ``3 coins``)."""
    while not reader.done() and reader.peek() not in ("give", "get"):
        word = reader.peek()
        number = read_number(word)
        formula = FORMULA.fullmatch(word)
        if word in ("and", "coin", "coins"):
            reader.at += 1
        elif number is not None:
            if side.coins:
                raise Bad("at most one coin amount per side")
            if number < 1:
                raise Bad("a coin amount is at least 1")
            side.coins = number
            reader.at += 1
        elif formula is not None:
            fid = f"F{int(formula.group(1))}"
            if fid in side.formulas:
                raise Bad(f"{fid} is named twice")
            side.formulas.append(fid)
            reader.at += 1
        else:
            card = reader.card()
            side.cards[card] += reader.times()


def check_trade(state: State, seat: int, raw: str) -> Checked:
    g = state.g
    offer = parse_trade(state, raw)
    partner = offer.partner
    if partner == seat:
        raise Bad("trade with another player")
    if not g["players"][partner]["alive"]:
        raise Bad(f"{state.names[partner]} is out of the game")
    if g["rec"]["traded"]:
        raise Bad("a trade was done this turn already")
    if g["rec"]["offers"] >= state.config["max_trade_offers"]:
        raise Bad(f"at most {state.config['max_trade_offers']} trade offers per turn")
    if offer.give.empty() and offer.get.empty():
        raise Bad("at least one card, coin or formula must change hands")
    for side, owner, receiver in ((offer.give, seat, partner), (offer.get, partner, seat)):
        _check_side(state, side, owner, receiver, seat)
    text = f"trade {state.handles[partner]}"
    if not offer.give.empty():
        text += " give " + " ".join(offer.give.command())
    if not offer.get.empty():
        text += " get " + " ".join(offer.get.command())
    if offer.note:
        text += " note " + offer.note
    who = seat_word(state.names, state.handles, partner)
    summary = (
        f"Offer {who} a trade: you give {side_text(state, offer.give)}, "
        f"you get {side_text(state, offer.get)}"
    )
    return Checked(text, summary)


def _check_side(state: State, side: Side, owner: int, receiver: int, seat: int) -> None:
    g = state.g
    holder = g["players"][owner]
    who = "you" if owner == seat else state.names[owner]
    if side.coins > holder["coins"]:
        raise Bad(f"{who} cannot pay {side.coins} coins")
    for card, n in side.cards.items():
        if holder["hand"].get(card, 0) < n:
            raise Bad(f"{who} cannot hand over {counted(card_name(state.cards, card), n)}")
    for fid in side.formulas:
        f = next((f for f in g["formulas"] if f["id"] == fid), None)
        if f is None:
            raise Bad(f"there is no formula {fid} on the table")
        if f["creator"] != owner:
            raise Bad(f"only the creator of {fid} may teach it")
        if receiver in f["knowers"]:
            raise Bad(f"{state.names[receiver]} knows {fid} already")
    if side.formulas and free_markers(state, receiver) < len(side.formulas):
        raise Bad(f"{state.names[receiver]} has too few free formula markers")


def side_text(state: State, side: Side) -> str:
    """One side of a trade by name: ``Salt ×2, F1 and 3 coins``."""
    parts = [counted(card_name(state.cards, c), n) for c, n in sorted(side.cards.items())]
    parts += side.formulas
    if side.coins:
        parts.append(plural(side.coins, "coin"))
    return names_text(parts) or "nothing"


def pending_offer(state: State) -> tuple[Side, Side, str]:
    """The open trade offer's sides (what the active seat gives, gets) and note."""
    frame = trade_frame(state.g)
    give, get = frame["give"], frame["get"]
    return (
        Side(Counter(give["cards"]), list(give["formulas"]), give["coins"]),
        Side(Counter(get["cards"]), list(get["formulas"]), get["coins"]),
        frame["note"],
    )
