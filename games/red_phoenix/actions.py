"""The answer grammar (§12.2) and the legality of every answer (§3.3, §5.1, §6, §7, §10, §11):
``check`` turns a raw answer into a canonical move or a refusal naming the reason; ``apply``
carries a canonical move (or the timeout default, None) out on a ``Run``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from games.protocol import Accepted, Refused, Verdict
from games.text import excerpt, has_other_numerals, read_number

from .machine import ROMAN, Run
from .state import (
    Experiment,
    Formula,
    Speed,
    State,
    TradeFrame,
    TradeSide,
    WindowKind,
    add,
    discard_frame,
    hand_list,
    trade_frame,
    turn_frame,
)

TOKEN = re.compile(r"\S+")
FORMULA = re.compile(r"[fF]([0-9]{1,9})")
MONSTER = re.compile(r"[mM]([0-9]{1,9})")
COPY = re.compile(r"([a-z][a-z0-9_]*)#([0-9]{1,3})")
MAX_NOTE = 200
SPLIT = re.compile(r"[\s,]+")


class Bad(Exception):
    """A refused answer; the message says why."""


@dataclass
class Side:
    cards: Counter[str] = field(default_factory=Counter)
    formulas: list[str] = field(default_factory=list)
    coins: int = 0

    def empty(self) -> bool:
        return not self.cards and not self.formulas and not self.coins

    def words(self) -> list[str]:
        out = sorted(self.cards.elements())
        out += self.formulas
        if self.coins:
            out.append(str(self.coins))
        return out


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
    if len(raw) > 2000:
        return Refused("that answer is too long")
    try:
        move = _check(state, seat, pending["kind"], raw)
    except Bad as error:
        return Refused(str(error))
    return Accepted(move, move)


def _check(state: State, seat: int, kind: WindowKind, raw: str) -> str:
    words = raw.split()
    if kind == "action":
        return check_action(state, seat, raw, words)
    if kind == "keep":
        return check_keep(state, seat, words)
    if kind == "ward":
        return _one_of(words, ("ward", "pass"))
    if kind == "trade_response":
        return _one_of(words, ("accept", "decline"))
    if kind == "method":
        return check_method(state, seat, words)
    if kind == "confirm":
        return _one_of(words, ("confirm", "back"))
    return check_discard(state, seat, words)


def _one_of(words: list[str], allowed: tuple[str, ...]) -> str:
    if len(words) == 1 and words[0].lower() in allowed:
        return words[0].lower()
    raise Bad(f"answer {' or '.join(allowed)}")


def _lists(words: list[str], keyword: str) -> list[str]:
    items = [w for w in SPLIT.split(" ".join(words)) if w]
    if items and items[0].lower() == keyword:
        items = items[1:]
    return items


def check_keep(state: State, seat: int, words: list[str]) -> str:
    exp = _resolving(state, seat)
    lo, hi = exp["keep"]
    n = len(exp["drawn"])
    picks = []
    for item in _lists(words, "keep"):
        number = read_number(item)
        if number is None or not 1 <= number <= n:
            raise Bad(f"keep takes positions 1 to {n}, got {excerpt(item)}")
        if number in picks:
            raise Bad(f"position {number} is named twice")
        picks.append(number)
    if not lo <= len(picks) <= hi:
        many = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise Bad(
            f"keep exactly {many} of the {n} drawn cards: "
            f"keep {' '.join(map(str, range(1, lo + 1)))}"
        )
    return "keep " + " ".join(map(str, sorted(picks)))


def _resolving(state: State, seat: int) -> Experiment:
    for exp in state.g["players"][seat]["lab"]:
        if exp["status"] == "keep":
            return exp
    raise Bad("no experiment waits for a keep choice")


def check_discard(state: State, seat: int, words: list[str]) -> str:
    n = discard_frame(state.g)["n"]
    hand = state.g["players"][seat]["hand"]
    cards: Counter[str] = Counter()
    for item in _lists(words, "discard"):
        low = item.lower()
        copy = COPY.fullmatch(low)
        card = copy.group(1) if copy else low
        if card not in state.cards.ingredients:
            raise Bad(f"{excerpt(item)} is not a card id")
        cards[card] += 1
    for card, count in cards.items():
        if hand.get(card, 0) < count:
            raise Bad(f"you hold {hand.get(card, 0)} {card}")
    if sum(cards.values()) != n:
        raise Bad(f"discard exactly {n} card{'s' if n != 1 else ''} (discard C C ...)")
    return "discard " + " ".join(sorted(cards.elements()))


# --- actions -------------------------------------------------------------------------------


def check_action(state: State, seat: int, raw: str, words: list[str]) -> str:
    if not words:
        raise Bad(
            "send an action: take N, buy, fast, slow, reproduce, dissolve, use, trade, "
            "license or end"
        )
    verb = words[0].lower()
    rest = words[1:]
    if verb == "trade":
        return check_trade(state, seat, raw)
    handler = ACTIONS.get(verb)
    if handler is None:
        raise Bad(
            f"unknown action {excerpt(words[0])}: take, buy, fast, slow, reproduce, "
            "dissolve, use, trade, license, end"
        )
    return handler(state, seat, rest)


def _card(state: State, word: str) -> str:
    card = word.lower()
    if card not in state.cards.ingredients:
        raise Bad(f"{excerpt(word)} is not a card id")
    return card


def _number(word: str, what: str) -> int:
    number = read_number(word)
    if number is None:
        raise Bad(f"{what} must be a whole number written with digits, got {excerpt(word)}")
    return number


def _formula(state: State, word: str) -> Formula:
    match = FORMULA.fullmatch(word)
    if match is None:
        raise Bad(f"{excerpt(word)} is not a formula id (F1, F2, ...)")
    fid = f"F{int(match.group(1))}"
    for f in state.g["formulas"]:
        if f["id"] == fid:
            return f
    raise Bad(f"there is no formula {fid} on the table")


def _ap(state: State, need: int) -> None:
    if state.g["ap"] < need:
        raise Bad(f"that needs {need} AP; you have {state.g['ap']}")


def a_take(state: State, seat: int, rest: list[str]) -> str:
    if len(rest) != 1:
        raise Bad("take N: the AP to spend")
    n = _number(rest[0], "N")
    if not 1 <= n <= state.g["ap"]:
        raise Bad(f"take 1 to {state.g['ap']} AP" if state.g["ap"] else "you have no AP left")
    return f"take {n}"


def a_buy(state: State, seat: int, rest: list[str]) -> str:
    if not rest:
        raise Bad("buy names at least one card")
    _ap(state, 1)
    cards = Counter(_card(state, w) for w in rest)
    cost = 0
    for card, n in cards.items():
        ing = state.cards.ingredients[card]
        if ing.cost is None:
            raise Bad(f"{card} is not sold in the market")
        if state.g["market"][card] < n:
            raise Bad(f"the market holds {state.g['market'][card]} {card}")
        cost += ing.cost * n
    coins = state.g["players"][seat]["coins"]
    if cost > coins:
        raise Bad(f"that costs {cost} coins; you have {coins}")
    return "buy " + " ".join(sorted(cards.elements()))


def experiment_cost(state: State, method_id: str, level: int) -> tuple[int, int]:
    method = state.cards.methods[method_id]
    return method.coins * level, method.health * level


def check_ingredients(state: State, seat: int, words: list[str]) -> list[str]:
    """An experiment's ingredients (§5.1): 3 or 4 held cards of different usable types."""
    cards = [_card(state, w) for w in words]
    if not 3 <= len(cards) <= 4:
        raise Bad("an experiment takes 3 or 4 ingredients")
    if len(set(cards)) != len(cards):
        raise Bad("the ingredients must be of different types")
    player = state.g["players"][seat]
    for card in cards:
        if player["hand"].get(card, 0) < 1:
            raise Bad(f"you hold no {card}")
        if not 1 <= state.cards.ingredients[card].level <= 3:
            raise Bad(f"{card} cannot be an ingredient")
    return cards


def check_experiment(state: State, seat: int, speed: str, rest: list[str]) -> str:
    if not rest:
        raise Bad(f"{speed} METHOD C C C [C]")
    method = rest[0].lower()
    if method not in state.cards.methods:
        raise Bad(f"{excerpt(rest[0])} is not a method: {', '.join(state.cards.methods)}")
    cards = check_ingredients(state, seat, rest[1:])
    player = state.g["players"][seat]
    _ap(state, 2 if speed == "fast" else 1)
    level = max(state.cards.ingredients[c].level for c in cards)
    coins, health = experiment_cost(state, method, level)
    if player["coins"] < coins:
        raise Bad(
            f"{method} at level {ROMAN[level]} costs {coins} coins; you have {player['coins']}"
        )
    if health and player["health"] <= health:
        raise Bad(
            f"{method} at level {ROMAN[level]} costs {health} Health; you need more than that"
        )
    if free_markers(state, seat) < 1:
        raise Bad("you have no free formula marker")
    return f"{speed} {method} " + " ".join(sorted(cards))


def free_markers(state: State, seat: int) -> int:
    player = state.g["players"][seat]
    if not player["alive"]:
        return 0
    return state.config["formula_markers"] - len(player["knows"]) - len(player["lab"])


def experiment_moves(state: State, seat: int, cards: list[str]) -> list[str]:
    """Every legal ``slow|fast METHOD cards`` move with these ingredients, methods in the card
    list's order, slow before fast."""
    moves = []
    for method in state.cards.methods:
        for speed in ("slow", "fast"):
            try:
                moves.append(check_experiment(state, seat, speed, [method, *cards]))
            except Bad:
                continue
    return moves


def a_experiment(state: State, seat: int, rest: list[str]) -> str:
    """``experiment C C C [C]``: the guided experiment's first step (the ingredients); the
    method and a confirmation follow in windows of their own, and only the confirmation
    spends anything."""
    if not rest:
        raise Bad("experiment C C C [C]")
    cards = sorted(check_ingredients(state, seat, rest))
    _ap(state, 1)
    if free_markers(state, seat) < 1:
        raise Bad("you have no free formula marker")
    if not experiment_moves(state, seat, cards):
        raise Bad(f"no method is within your means with {' '.join(cards)}")
    return "experiment " + " ".join(cards)


def check_method(state: State, seat: int, words: list[str]) -> str:
    """The guided experiment's method: ``slow|fast METHOD`` (the ingredients are chosen
    already; naming them again is fine) or ``back``."""
    if len(words) == 1 and words[0].lower() == "back":
        return "back"
    guide = state.g.get("guide")
    cards = list(guide["cards"]) if guide is not None else []
    if not words or words[0].lower() not in ("slow", "fast"):
        raise Bad("answer slow METHOD, fast METHOD or back")
    named = sorted(w.lower() for w in words[2:])
    if named and named != cards:
        raise Bad(f"this experiment is with {' '.join(cards)}; answer back to choose others")
    return check_experiment(state, seat, words[0].lower(), [*words[1:2], *cards])


def a_fast(state: State, seat: int, rest: list[str]) -> str:
    return check_experiment(state, seat, "fast", rest)


def a_slow(state: State, seat: int, rest: list[str]) -> str:
    return check_experiment(state, seat, "slow", rest)


def reproduce_problem(state: State, seat: int, f: Formula) -> str | None:
    g = state.g
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
    for card in f["ingredients"]:
        if player["hand"].get(card, 0) < 1:
            return f"{f['id']} needs {', '.join(f['ingredients'])}; you hold no {card}"
    if not any(state.pile(p)[p] > 0 for p in f["products"]):
        return f"none of {f['id']}'s products is left"
    return None


def licence_fee(f: Formula) -> int | None:
    """The fee another seat pays to reproduce ``f`` (§6.4): None when it has none or its
    creator is out."""
    return f["license"] if f["creator"] is not None else None


def a_reproduce(state: State, seat: int, rest: list[str]) -> str:
    if len(rest) != 1:
        raise Bad("reproduce F#")
    f = _formula(state, rest[0])
    problem = reproduce_problem(state, seat, f)
    if problem:
        raise Bad(problem)
    return f"reproduce {f['id']}"


def a_dissolve(state: State, seat: int, rest: list[str]) -> str:
    if len(rest) not in (1, 2) or (len(rest) == 2 and rest[1].lower() != "keep"):
        raise Bad("dissolve F# or dissolve F# keep")
    f = _formula(state, rest[0])
    if f["creator"] != seat:
        raise Bad(f"only the creator of {f['id']} may dissolve it")
    keep = len(rest) == 2
    _ap(state, 2 if keep else 1)
    return f"dissolve {f['id']}" + (" keep" if keep else "")


def target_seat(state: State, word: str) -> int | None:
    low = word.lower()
    for seat, handle in enumerate(state.handles):
        if handle.lower() == low:
            return seat
    return None


def a_use(state: State, seat: int, rest: list[str]) -> str:
    if not 1 <= len(rest) <= 2:
        raise Bad("use C [TARGET]")
    card = _card(state, rest[0])
    player = state.g["players"][seat]
    if player["hand"].get(card, 0) < 1:
        raise Bad(f"you hold no {card}")
    ing = state.cards.ingredients[card]
    if ing.effect is None:
        raise Bad(f"{card} is not an item")
    if ing.effect == "ward":
        raise Bad(f"{card} wards only as a reaction to damage")
    if card in player["used"]:
        raise Bad(f"you used {card} this turn already")
    if ing.effect in ("heal", "coins", "boost"):
        if len(rest) != 1:
            raise Bad(f"{card} takes no target")
        return f"use {card}"
    if len(rest) != 2:
        raise Bad(
            f"use {card} TARGET: a player" + (" or a monster" if ing.effect == "damage" else "")
        )
    word = rest[1]
    monster = MONSTER.fullmatch(word)
    if monster is not None and ing.effect == "damage":
        mid = f"M{int(monster.group(1))}"
        if not any(m["id"] == mid for m in state.g["monsters"]):
            raise Bad(f"there is no monster {mid} in play")
        return f"use {card} {mid}"
    target = target_seat(state, word)
    if target is None:
        raise Bad(
            f"{excerpt(word)} is not a player"
            + (" or a monster in play" if ing.effect == "damage" else "")
        )
    if target == seat:
        raise Bad("target another player")
    if not state.g["players"][target]["alive"]:
        raise Bad(f"{state.handles[target]} is out of the game")
    if ing.effect == "steal" and not state.g["players"][target]["hand"]:
        raise Bad(f"{state.handles[target]} holds no card")
    return f"use {card} {state.handles[target]}"


def a_license(state: State, seat: int, rest: list[str]) -> str:
    if len(rest) != 2:
        raise Bad("license F# FEE or license F# off")
    f = _formula(state, rest[0])
    if f["creator"] != seat:
        raise Bad(f"only the creator of {f['id']} may license it")
    if f["id"] in state.g["rec"]["lic"]:
        raise Bad(f"the licence of {f['id']} changed this turn already")
    if rest[1].lower() == "off":
        if f["license"] is None:
            raise Bad(f"{f['id']} has no licence fee to clear")
        return f"license {f['id']} off"
    fee = _number(rest[1], "FEE")
    if fee < 1:
        raise Bad("FEE must be at least 1")
    return f"license {f['id']} {fee}"


def a_end(state: State, seat: int, rest: list[str]) -> str:
    if rest:
        raise Bad("end takes nothing after it")
    return "end"


@dataclass
class Offer:
    partner: int
    give: Side
    get: Side
    note: str


def parse_trade(state: State, raw: str) -> Offer:
    spans = list(TOKEN.finditer(raw))
    note = ""
    for index, span in enumerate(spans):
        if index >= 2 and span.group().lower() == "note":
            note = raw[span.end() :].strip()
            spans = spans[:index]
            break
    words = [s.group() for s in spans]
    if len(words) < 2:
        raise Bad("trade SEAT [give ITEMS] [get ITEMS] [note TEXT]")
    partner = target_seat(state, words[1])
    if partner is None:
        raise Bad(f"{excerpt(words[1])} is not a player")
    give, get = Side(), Side()
    current: Side | None = None
    seen: list[str] = []
    for word in words[2:]:
        low = word.lower()
        if low in ("give", "get"):
            if low in seen or (low == "give" and "get" in seen):
                raise Bad("give comes before get, each at most once")
            if current is not None and current.empty():
                raise Bad(f"{seen[-1]} names no item")
            seen.append(low)
            current = give if low == "give" else get
            continue
        if current is None:
            raise Bad("start the items with give or get")
        number = read_number(word)
        formula = FORMULA.fullmatch(word)
        if number is not None:
            if current.coins:
                raise Bad("at most one coin amount per side")
            if number < 1:
                raise Bad("a coin amount is at least 1")
            current.coins = number
        elif formula is not None:
            fid = f"F{int(formula.group(1))}"
            if fid in current.formulas:
                raise Bad(f"{fid} is named twice")
            current.formulas.append(fid)
        else:
            current.cards[_card(state, word)] += 1
    if current is not None and current.empty():
        raise Bad(f"{seen[-1]} names no item")
    if len(note) > MAX_NOTE:
        raise Bad(f"keep the note under {MAX_NOTE} characters")
    if note and not note.isprintable():
        raise Bad("the note must be printable text")
    return Offer(partner, give, get, note)


def check_trade(state: State, seat: int, raw: str) -> str:
    g = state.g
    offer = parse_trade(state, raw)
    partner = offer.partner
    if partner == seat:
        raise Bad("trade with another player")
    if not g["players"][partner]["alive"]:
        raise Bad(f"{state.handles[partner]} is out of the game")
    if g["rec"]["traded"]:
        raise Bad("a trade was done this turn already")
    if g["rec"]["offers"] >= state.config["max_trade_offers"]:
        raise Bad(f"at most {state.config['max_trade_offers']} trade offers per turn")
    if offer.give.empty() and offer.get.empty():
        raise Bad("at least one card, coin or formula must change hands")
    for side, owner, receiver in ((offer.give, seat, partner), (offer.get, partner, seat)):
        holder = g["players"][owner]
        who = "you" if owner == seat else state.handles[owner]
        if side.coins > holder["coins"]:
            raise Bad(f"{who} cannot pay {side.coins} coins")
        for card, n in side.cards.items():
            if holder["hand"].get(card, 0) < n:
                raise Bad(f"{who} cannot hand over {n} {card}")
        for fid in side.formulas:
            f = next((f for f in g["formulas"] if f["id"] == fid), None)
            if f is None:
                raise Bad(f"there is no formula {fid} on the table")
            if f["creator"] != owner:
                raise Bad(f"only the creator of {fid} may teach it")
            if receiver in f["knowers"]:
                raise Bad(f"{state.handles[receiver]} knows {fid} already")
        if side.formulas and free_markers(state, receiver) < len(side.formulas):
            raise Bad(f"{state.handles[receiver]} has too few free formula markers")
    text = f"trade {state.handles[partner]}"
    if not offer.give.empty():
        text += " give " + " ".join(offer.give.words())
    if not offer.get.empty():
        text += " get " + " ".join(offer.get.words())
    if offer.note:
        text += " note " + offer.note
    return text


ACTIONS: dict[str, Callable[[State, int, list[str]], str]] = {
    "take": a_take,
    "buy": a_buy,
    "fast": a_fast,
    "slow": a_slow,
    "reproduce": a_reproduce,
    "dissolve": a_dissolve,
    "use": a_use,
    "license": a_license,
    "end": a_end,
    "experiment": a_experiment,
}


# --- carrying moves out ----------------------------------------------------------------------


def apply(run: Run, move: str | None) -> None:
    """The open window's move (None: its timeout default), then the machine runs on."""
    g = run.g
    pending = g["pending"]
    assert pending is not None, "no window is open"
    g["pending"] = None
    seat, kind = pending["seat"], pending["kind"]
    who = run.name(seat)
    if move is None:  # a guided experiment's window is, to the channel, the action window
        shown = "action" if kind in ("method", "confirm") else kind.replace("_", " ")
        run.say(f"{who}'s {shown} window timed out.")
    if kind == "action":
        apply_action(run, seat, move)
    elif kind == "keep":
        exp = next(e for e in run.p(seat)["lab"] if e["status"] == "keep")
        positions = [int(w) for w in move.split()[1:]] if move else default_keep(run, exp)
        run.keep(seat, exp, positions)
    elif kind == "ward":
        run.answer_ward(seat, move == "ward")
    elif kind == "trade_response":
        apply_trade_answer(run, seat, move == "accept")
    elif kind in ("method", "confirm"):
        apply_guide(run, seat, kind, move)
    else:
        frame = discard_frame(g)
        g["stack"].pop()
        cards = move.split()[1:] if move else default_discard(run, seat, frame["n"])
        for card in cards:
            run.take(seat, card)
            run.to_origin(card)
        run.say(f"{who} discards {' '.join(sorted(cards))} (hand limit).")
    run.run()


def default_keep(run: Run, exp: Experiment) -> list[int]:
    """§5.5's ranking: met successes first (at most hi), else the lo best-ranked cards."""
    lo, hi = exp["keep"]
    level = ROMAN[exp["level"]]

    def rank(card: str) -> int:
        result = run.cs.results[level][card]
        if result.kind == "success":
            return 0 if exp["value"] >= result.score else 1
        return {"simple": 2, "catastrophe": 3, "monster": 4}[result.kind]

    ranked = [(rank(card), i + 1) for i, card in enumerate(exp["drawn"])]
    met = [pos for r, pos in ranked if r == 0][:hi]
    if len(met) >= lo:
        return met
    return sorted(pos for _, pos in sorted(ranked)[:lo])


def default_discard(run: Run, seat: int, n: int) -> list[str]:
    cards = sorted(hand_list(run.p(seat)["hand"]), key=run.cs.rank)
    return cards[:n]


def apply_guide(run: Run, seat: int, kind: str, move: str | None) -> None:
    """A guided experiment's method or confirmation window (§12.1): ``back`` returns to the
    action window; a time-out is the action window's own (AMBIGUITY 5)."""
    g = run.g
    guide = g.pop("guide")
    if move is None:
        apply_action(run, seat, None)
    elif move == "back":
        return  # the turn's action window opens again
    elif kind == "method":
        g["guide"] = {"cards": guide["cards"], "move": move}
        run.open(seat, "confirm")
    else:
        apply_action(run, seat, guide["move"])


def apply_action(run: Run, seat: int, move: str | None) -> None:
    g = run.g
    frame = turn_frame(g)
    who = run.name(seat)
    player = run.p(seat)
    if move is None or move == "end":
        if move is None and run.cfg["action_timeout"] == "take_coins" and g["ap"] >= 1:
            gain = g["ap"] * run.cfg["coins_per_ap"]
            player["coins"] += gain
            run.say(f"{who} takes {gain} coins with the {g['ap']} AP left.")
            g["ap"] = 0
        run.say(f"{who} ends the turn.")
        frame["phase"] = "mon"
        return
    words = move.split()
    verb = words[0]
    if verb == "experiment":  # the guided experiment: its method window next, nothing spent
        g["guide"] = {"cards": words[1:], "move": None}
        run.open(seat, "method")
        return
    if verb == "take":
        n = int(words[1])
        g["ap"] -= n
        player["coins"] += n * run.cfg["coins_per_ap"]
        run.say(f"{who} takes {n * run.cfg['coins_per_ap']} coins ({n} AP).")
    elif verb == "buy":
        g["ap"] -= 1
        for card in words[1:]:
            g["market"][card] -= 1
            player["coins"] -= run.cs.ingredients[card].cost or 0
            run.give(seat, card)
        run.say(f"{who} buys {' '.join(words[1:])}.")
    elif verb in ("fast", "slow"):
        declare(run, seat, "fast" if verb == "fast" else "slow", words[1], words[2:])
    elif verb == "reproduce":
        reproduce(run, seat, words[1])
    elif verb == "dissolve":
        g["ap"] -= 2 if len(words) == 3 else 1
        f = run.formula(words[1])
        assert f is not None
        run.remove_formula(f, seat if len(words) == 3 else None)
        run.say(
            f"{who} dissolves {words[1]}"
            + (", keeping its ingredients." if len(words) == 3 else ".")
        )
    elif verb == "use":
        use_item(run, seat, words[1], words[2] if len(words) > 2 else None)
    elif verb == "license":
        f = run.formula(words[1])
        assert f is not None
        f["license"] = None if words[2] == "off" else int(words[2])
        g["rec"]["lic"].append(f["id"])
        run.say(
            f"{who} withdraws the licence of {f['id']}."
            if f["license"] is None
            else f"{who} licenses {f['id']} for {f['license']} coins."
        )
    elif verb == "trade":
        offer_trade(run, seat, move)


def declare(run: Run, seat: int, speed: Speed, method: str, cards: list[str]) -> None:
    g = run.g
    player = run.p(seat)
    level = max(run.cs.ingredients[c].level for c in cards)
    value = sum(run.cs.ingredients[c].level for c in cards) + g["boost"]
    g["boost"] = 0
    m = run.cs.methods[method]
    g["ap"] -= 2 if speed == "fast" else 1
    player["coins"] -= m.coins * level
    player["health"] -= m.health * level
    for card in cards:
        run.take(seat, card)
    uid = g["nx"]
    g["nx"] += 1
    player["lab"].append(
        {
            "uid": uid,
            "speed": speed,
            "method": method,
            "cards": sorted(cards),
            "level": level,
            "value": value,
            "status": "waiting" if speed == "slow" else "draw",
            "drawn": [],
            "kept": [],
            "pos": 0,
            "met": [],
            "gained": False,
        }
    )
    run.say(
        f"{run.name(seat)} starts a {speed} experiment: {method} with {' '.join(sorted(cards))}"
        f" (level {ROMAN[level]}, value {value})."
    )
    if speed == "fast":
        run.push({"f": "exp", "seat": seat, "uid": uid})


def reproduce(run: Run, seat: int, fid: str) -> None:
    g = run.g
    f = run.formula(fid)
    assert f is not None
    player = run.p(seat)
    g["ap"] -= 1
    g["rec"]["repro"].append([seat, fid])
    for card in f["ingredients"]:
        run.take(seat, card)
        run.to_origin(card)
    paid = ""
    creator, fee = f["creator"], f["license"]
    if fid not in player["knows"]:
        assert creator is not None and fee is not None, "checked by reproduce_problem"
        player["coins"] -= fee
        run.p(creator)["coins"] += fee
        paid = f", paying {fee} coins to {run.name(creator)}"
    got = []
    for product in f["products"]:
        if run.from_origin(product):
            run.give(seat, product)
            got.append(product)
    run.say(f"{run.name(seat)} reproduces {fid}{paid} and takes {' '.join(got)}.")


def use_item(run: Run, seat: int, card: str, target: str | None) -> None:
    player = run.p(seat)
    ing = run.cs.ingredients[card]
    run.take(seat, card)
    run.to_origin(card)
    player["used"].append(card)
    who = run.name(seat)
    if ing.effect == "heal":
        cap = run.cfg["starting_health"]
        player["health"] = min(cap, player["health"] + ing.amount)
        run.say(f"{who} uses {card}: Health {player['health']}.")
    elif ing.effect == "coins":
        player["coins"] += ing.amount
        run.say(f"{who} uses {card}: +{ing.amount} coins.")
    elif ing.effect == "boost":
        run.g["boost"] += ing.amount
        run.say(f"{who} uses {card}: boost +{ing.amount} (pending {run.g['boost']}).")
    elif ing.effect == "damage":
        assert target is not None
        if MONSTER.fullmatch(target):
            m = run.monster(target)
            assert m is not None
            m["hp"] -= ing.amount
            run.say(f"{who} uses {card} on {target}: Health {max(m['hp'], 0)}.")
            if m["hp"] <= 0:
                run.drop_monster(m, "killed")
        else:
            victim = run.state.handles.index(target)
            amounts = [0] * len(run.g["players"])
            amounts[victim] = ing.amount
            run.say(f"{who} uses {card} on {run.name(victim)}.")
            run.damage(victim, amounts, card)
    else:  # steal
        assert target is not None
        victim = run.state.handles.index(target)
        taken = []
        for _ in range(min(ing.amount, run.hand_size(victim))):
            stolen = run.pick(victim)
            run.take(victim, stolen)
            run.give(seat, stolen)
            taken.append(stolen)
        run.say(f"{who} uses {card} and steals {len(taken)} card(s) from {run.name(victim)}.")
        run.tell(seat, f"You stole {' '.join(taken)} from {run.name(victim)}.")
        run.tell(victim, f"{who} stole {' '.join(taken)} from you.")


def offer_trade(run: Run, seat: int, move: str) -> None:
    offer = parse_trade(run.state, move)
    run.g["rec"]["offers"] += 1
    frame: TradeFrame = {
        "f": "trade",
        "to": offer.partner,
        "give": {
            "cards": dict(offer.give.cards),
            "formulas": offer.give.formulas,
            "coins": offer.give.coins,
        },
        "get": {
            "cards": dict(offer.get.cards),
            "formulas": offer.get.formulas,
            "coins": offer.get.coins,
        },
        "note": offer.note,
    }
    run.push(frame)
    run.say(f"{run.name(seat)} offers a trade to {run.name(offer.partner)}: {public_offer(frame)}.")
    gives, gets = side_text(frame["give"]), side_text(frame["get"])
    detail = f"Trade offer: {run.name(seat)} gives {gives}; gets {gets}."
    run.tell(seat, detail)
    run.tell(offer.partner, detail)


def side_text(side: TradeSide) -> str:
    parts = [f"{n} {c}" for c, n in sorted(side["cards"].items())]
    parts += side["formulas"]
    if side["coins"]:
        parts.append(f"{side['coins']} coins")
    return ", ".join(parts) or "nothing"


def public_offer(frame: TradeFrame) -> str:
    def side(s: TradeSide) -> str:
        parts = []
        if s["cards"]:
            parts.append(f"{sum(s['cards'].values())} card(s)")
        parts += s["formulas"]
        if s["coins"]:
            parts.append(f"{s['coins']} coins")
        return ", ".join(parts) or "nothing"

    text = f"gives {side(frame['give'])}, gets {side(frame['get'])}"
    if frame["note"]:
        text += f' (note: "{frame["note"]}")'
    return text


def apply_trade_answer(run: Run, seat: int, accept: bool) -> None:
    g = run.g
    frame = trade_frame(g)
    g["stack"].pop()
    active = g["active"]
    if not accept:
        run.say(f"{run.name(seat)} declines the trade.")
        return
    g["rec"]["traded"] = True
    for side, giver, receiver in ((frame["give"], active, seat), (frame["get"], seat, active)):
        run.p(giver)["coins"] -= side["coins"]
        run.p(receiver)["coins"] += side["coins"]
        for card, n in side["cards"].items():
            run.take(giver, card, n)
            add(run.p(receiver)["hand"], card, n)
            run.hands.add(receiver)
        for fid in side["formulas"]:
            f = run.formula(fid)
            assert f is not None
            f["knowers"].append(receiver)
            run.p(receiver)["knows"].append(fid)
    run.say(f"{run.name(seat)} accepts the trade.")
    excess = run.hand_size(seat) - run.cfg["hand_limit"]
    if excess > 0:
        run.push({"f": "discard", "seat": seat, "timer": "reaction", "n": excess})
