"""The requests (rules page §12): each window's prompt says what the decision needs once, by
name (the hand with what each item does, what each experiment can draw, the formulas, the
market, the rivals); its choices are buttons and menus that send the page's own commands; its
``help`` holds the window's whole grammar and the whole table."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from games.protocol import HELP_CHARS, Choice, Presentation, Request

from .answers import (
    Checked,
    experiment_moves,
    free_markers,
    level_value,
    pending_offer,
    reproduce_problem,
    side_text,
    ward_card,
)
from .render import board_lines, cut, fit_lines
from .state import Formula, State, damage_frame, discard_frame
from .words import (
    card_name,
    cards_text,
    cost_text,
    deck_outlook,
    drawn_text,
    effect_text,
    hand_by_level,
    item_text,
    keep_text,
    method_brief,
    plural,
    roman,
    seat_word,
)

PROMPT_CHARS = 1200  # the host adds the choices and the deadline; a message holds 2,000
LABEL = 80  # a button's label
MAX_STAGES = 12  # ingredient sets offered as experiments (any other can be typed)
SET_TYPES = 8  # the highest-level cards of a hand the offered sets are made of
HELP_FOOTER = "Type help for every command and the whole table."
MENU: dict[str, Presentation] = {
    "buy": "menu",
    "experiment": "steps",
    "use": "steps",  # the item, then its target
    "reproduce": "menu",
    "dissolve": "menu",
    "license": "menu",
    "trade": "menu",
    "take": "buttons",
}
ACTION_GRAMMAR = (
    "Commands (cards and methods by name or id, any case; commas or 'and' between cards):",
    "take N: spend N AP for {coins} coins each",
    "buy CARD [CARD ...]: market cards (1 AP)",
    "slow METHOD CARD CARD CARD [CARD]: an experiment with 3 or 4 different cards"
    " (1 AP; its cards are drawn at the start of your next turn)",
    "fast METHOD CARD CARD CARD [CARD]: the same, drawn now (2 AP)",
    "reproduce F#: hand in one of each of its ingredients, take its products"
    " (1 AP; not in the turn it was made; once a turn)",
    "dissolve F# [keep]: take your formula off the table (1 AP; keep: its cards to your"
    " hand, 2 AP)",
    "use ITEM [on PLAYER or M#]: each item type once a turn (free)",
    "trade PLAYER [give ITEMS] [get ITEMS] [note TEXT]: ITEMS are cards, formulas (F#) and"
    " a number of coins (free; the player accepts or declines)",
    "license F# FEE | license F# off: others may reproduce your formula for FEE coins to"
    " you (free; one change a turn)",
    "end: your monsters attack, then you discard down to the hand limit",
    "Example: fast Blood Distillation Salt, Brimstone, Quicksilver and Vitriol",
)


def fit_prompt(lines: Sequence[str], limit: int = PROMPT_CHARS) -> str:
    """The lines that fit, the help line last."""
    return fit_lines([*lines, HELP_FOOTER], limit, f"… {HELP_FOOTER}")


def help_text(grammar: Sequence[str], state: State) -> str:
    return fit_lines([*grammar, "The table:", *board_lines(state)], HELP_CHARS, "…")


def requests(state: State) -> list[Request]:
    g = state.g
    pending = g["pending"]
    if g["over"] or pending is None:
        return []
    seat, kind = pending["seat"], pending["kind"]
    if kind == "action":
        return [action_request(state, seat)]
    if kind == "keep":
        return [keep_request(state, seat)]
    if kind == "ward":
        return [ward_request(state, seat)]
    if kind == "trade_response":
        return [trade_request(state, seat)]
    return [discard_request(state, seat)]


def timeout(state: State, reaction: bool) -> float:
    return float(state.config["reaction_window_s" if reaction else "window_s"])


def occasion(state: State) -> str:
    return f"turn {state.g['turn']}"


# --- the action window ---------------------------------------------------------------------------


def action_request(state: State, seat: int) -> Request:
    default = (
        "take coins with all AP left, then end the turn"
        if state.config["action_timeout"] == "take_coins"
        else "end the turn"
    )
    grammar = [line.format(coins=state.config["coins_per_ap"]) for line in ACTION_GRAMMAR]
    methods = " · ".join(method_brief(m) for m in state.cards.methods.values())
    grammar.insert(-1, f"METHOD (cost a level): {methods}")
    return Request(
        seat,
        "action",
        fit_prompt(action_lines(state, seat)),
        tuple(action_choices(state, seat)),
        default,
        timeout(state, False),
        occasion=occasion(state),
        presentation=MENU,
        help=help_text(grammar, state),
    )


def action_lines(state: State, seat: int) -> list[str]:
    g = state.g
    p = g["players"][seat]
    boost = f", boost +{g['boost']} for your next experiment" if g["boost"] else ""
    lines = [
        f"Turn {g['turn']}, your turn: {g['ap']} AP, {plural(p['coins'], 'coin')},"
        f" Health {p['health']}{boost}.",
        f"Hand: {hand_by_level(state.cards, p['hand'])}.",
    ]
    lines += experiment_lines(state, seat)
    lines += rival_lines(state, seat)
    lines += formula_lines(state, seat)
    if g["ap"] >= 1:
        lines.append(buy_line(state))
    return lines


def usable_types(state: State, seat: int) -> list[str]:
    """The seat's cards that can be ingredients, highest level first."""
    cs = state.cards
    hand = state.g["players"][seat]["hand"]
    usable = [c for c in hand if 1 <= cs.ingredients[c].level <= 3]
    return sorted(usable, key=lambda c: (-cs.ingredients[c].level, cs.ingredients[c].order))


def experiment_blocker(state: State, seat: int) -> str | None:
    if state.g["ap"] < 1:
        return None
    if free_markers(state, seat) < 1:
        return "No experiment now: all your formula markers are in use (dissolve a formula)."
    if len(usable_types(state, seat)) < 3:
        return "No experiment yet: it takes 3 or 4 different cards (buy them in the market)."
    return None


def best_sets(state: State, seat: int) -> list[list[str]]:
    """For each level the seat can experiment at, its highest-value set of ingredients."""
    types = usable_types(state, seat)
    level = state.cards.ingredients
    sets = []
    for top in sorted({level[c].level for c in types}, reverse=True):
        fit = [c for c in types if level[c].level <= top]
        if len(fit) >= 3:
            sets.append(sorted(fit[:4]))
    return sets


def experiment_lines(state: State, seat: int) -> list[str]:
    blocked = experiment_blocker(state, seat)
    if blocked is not None or state.g["ap"] < 1:
        return [blocked] if blocked else []
    cs = state.cards
    lines = ["Experiments (slow, 1 AP: drawn at your next turn; fast, 2 AP: drawn now):"]
    for n, cards in enumerate(best_sets(state, seat)):
        level, value = level_value(state, cards)
        lv = roman(level)
        outlook = deck_outlook(cs, lv, state.g["decks"][lv], value, products=n == 0)
        lines.append(f"• Level {lv} at best value {value} ({cards_text(cs, cards)}): {outlook}.")
    methods = " · ".join(method_brief(m) for m in cs.methods.values())
    lines.append(f"Methods (cost a level): {methods}.")
    return lines


def buy_line(state: State) -> str:
    cs = state.cards
    prices: dict[int, list[str]] = {}
    for card in cs.market_types():
        if state.g["market"][card] > 0:
            ing = cs.ingredients[card]
            name = f"{ing.name} ({effect_text(ing)})" if ing.effect else ing.name
            prices.setdefault(ing.cost or 0, []).append(name)
    if not prices:
        return "The market is empty."
    parts = [f"{', '.join(names)} at {plural(cost, 'coin')}" for cost, names in prices.items()]
    return f"Market (buy, 1 AP): {'; '.join(parts)}."


def rival_lines(state: State, seat: int) -> list[str]:
    g = state.g
    rivals = []
    for other, q in enumerate(g["players"]):
        if other == seat:
            continue
        who = seat_word(state.names, state.handles, other)
        rivals.append(
            f"{who} Health {q['health']}, {plural(sum(q['hand'].values()), 'card')},"
            f" {plural(q['coins'], 'coin')}"
            if q["alive"]
            else f"{who} out"
        )
    lines = [f"Rivals: {'; '.join(rivals)}."]
    for m in g["monsters"]:
        name = state.cards.results[m["level"]][m["card"]].name
        owner = "you" if m["owner"] == seat else state.names[m["owner"]]
        lines.append(
            f"Monster {m['id']} {name} before {owner}: Health {m['hp']}, attacks for"
            f" {m['damage']} ({plural(m['attacks_left'], 'attack')} left)."
        )
    return lines


def formula_status(state: State, seat: int, f: Formula) -> str:
    """What a formula line says about reproducing it now (§6.2)."""
    g = state.g
    missing = [c for c in f["ingredients"] if g["players"][seat]["hand"].get(c, 0) < 1]
    if f["created"] == g["turn"]:
        return "made this turn, reproduce it from your next turn"
    if [seat, f["id"]] in g["rec"]["repro"]:
        return "reproduced this turn"
    if missing:
        return f"you lack {cards_text(state.cards, missing)}"
    problem = reproduce_problem(state, seat, f)
    return "reproduce now (1 AP)" if problem is None else problem


def formula_lines(state: State, seat: int) -> list[str]:
    """The formulas the seat may reproduce (its own, or licensed), each with what stops it."""
    cs = state.cards
    lines = []
    for f in state.g["formulas"]:
        knows = f["id"] in state.g["players"][seat]["knows"]
        if not knows and (f["license"] is None or f["creator"] is None):
            continue
        fee = "" if knows else f", licence {plural(f['license'] or 0, 'coin')}"
        lines.append(
            f"{f['id']}: {cards_text(cs, f['ingredients'])} → {cards_text(cs, f['products'])}"
            f"{fee}: {formula_status(state, seat, f)}."
        )
    return lines


def label(text: str) -> str:
    return cut(text, LABEL)


def action_choices(state: State, seat: int) -> list[Choice]:
    g = state.g
    cpa = state.config["coins_per_ap"]
    out = [
        Choice(f"take {n}", f"Take {n * cpa} coins ({n} AP)", "take") for n in range(1, g["ap"] + 1)
    ]
    if g["ap"] >= 1:
        out += buy_choices(state, seat)
    out += experiment_choices(state, seat)
    out += formula_choices(state, seat)
    out += item_choices(state, seat)
    out += trade_choices(state, seat)
    out.append(Choice("end", "End your turn", "end"))
    return out


def buy_choice(state: State, cards: Sequence[str], why: str = "") -> Choice:
    cs = state.cards
    cost = sum(cs.ingredients[c].cost or 0 for c in cards)
    what = f"{why}{cards_text(cs, cards)}"
    return Choice(
        "buy " + " ".join(sorted(cards)), label(f"Buy {what} ({plural(cost, 'coin')})"), "buy"
    )


def buy_choices(state: State, seat: int) -> list[Choice]:
    """Each affordable market card; four different plain cards the seat lacks (an
    experiment's worth); the missing ingredients of each formula it may reproduce."""
    g = state.g
    cs = state.cards
    p = g["players"][seat]
    stocked = [c for c in cs.market_types() if g["market"][c] > 0]
    out = [buy_choice(state, [c]) for c in stocked if (cs.ingredients[c].cost or 0) <= p["coins"]]
    missing = [c for c in stocked if c not in p["hand"] and cs.ingredients[c].effect is None][:4]
    while missing and sum(cs.ingredients[c].cost or 0 for c in missing) > p["coins"]:
        missing.pop()
    offered = {c.value for c in out}
    if len(missing) >= 2:
        out.append(buy_choice(state, missing))
        offered.add(out[-1].value)
    for f in g["formulas"]:
        wanted = formula_purchase(state, seat, f)
        if wanted and "buy " + " ".join(sorted(wanted)) not in offered:
            out.append(buy_choice(state, wanted, f"what {f['id']} needs: "))
            offered.add(out[-1].value)
    return out


def formula_purchase(state: State, seat: int, f: Formula) -> list[str]:
    """The market cards the seat lacks to reproduce ``f`` on a later action, when it may and
    can pay for them all; else nothing."""
    g = state.g
    cs = state.cards
    p = g["players"][seat]
    usable = f["id"] in p["knows"] or (f["license"] is not None and f["creator"] is not None)
    missing = [c for c in f["ingredients"] if p["hand"].get(c, 0) < 1]
    if not usable or not missing or f["created"] == g["turn"]:
        return []
    if any(cs.ingredients[c].cost is None or g["market"][c] < 1 for c in missing):
        return []
    if sum(cs.ingredients[c].cost or 0 for c in missing) > p["coins"]:
        return []
    return missing


def experiment_sets(state: State, seat: int) -> list[list[str]]:
    """The ingredient sets offered, best first (highest level, then value): every 3 or 4
    different usable cards, at most ``MAX_STAGES`` of them."""
    types = usable_types(state, seat)[:SET_TYPES]
    level = state.cards.ingredients
    sets = [list(c) for size in (4, 3) for c in combinations(types, size)]
    sets.sort(key=lambda s: (-max(level[c].level for c in s), -sum(level[c].level for c in s)))
    return [sorted(s) for s in sets[: MAX_STAGES * 2]]


def experiment_choices(state: State, seat: int) -> list[Choice]:
    """Every legal way to run the best ingredient sets: a menu of the sets, then of each
    set's methods (``steps``); each value is the whole page command."""
    if free_markers(state, seat) < 1 or state.g["ap"] < 1:
        return []
    cs = state.cards
    out: list[Choice] = []
    stages = 0
    for cards in experiment_sets(state, seat):
        moves = experiment_moves(state, seat, cards)
        if not moves or stages == MAX_STAGES:
            continue
        stages += 1
        level, value = level_value(state, cards)
        stage = cut(f"{cards_text(cs, cards)}: level {roman(level)}, value {value}", 100)
        out += [Choice(m.move, method_label(state, m), "experiment", stage) for m in moves]
    return out


def method_label(state: State, checked: Checked) -> str:
    """``Slow · Blood Distillation: 1 Health, 1 AP (draw 2, keep 1)``."""
    speed, method_id, *cards = checked.move.split()
    method = state.cards.methods[method_id]
    level, _ = level_value(state, cards)
    costs = [cost_text(method.coins * level, method.health * level)]
    costs = [c for c in costs if c != "free"] + ["2 AP" if speed == "fast" else "1 AP"]
    return label(f"{speed.capitalize()} · {method.name}: {', '.join(costs)} ({keep_text(method)})")


def formula_choices(state: State, seat: int) -> list[Choice]:
    g = state.g
    cs = state.cards
    out = []
    for f in g["formulas"]:
        if reproduce_problem(state, seat, f) is None:
            products = cards_text(cs, f["products"])
            out.append(
                Choice(
                    f"reproduce {f['id']}", label(f"Reproduce {f['id']} → {products}"), "reproduce"
                )
            )
    for f in g["formulas"]:
        if f["creator"] != seat:
            continue
        if g["ap"] >= 1:
            out.append(Choice(f"dissolve {f['id']}", f"Dissolve {f['id']} (1 AP)", "dissolve"))
        if g["ap"] >= 2:
            out.append(
                Choice(
                    f"dissolve {f['id']} keep",
                    f"Dissolve {f['id']}, its cards to your hand (2 AP)",
                    "dissolve",
                )
            )
        if f["id"] not in g["rec"]["lic"]:
            out.append(
                Choice(f"license {f['id']} 2", f"License {f['id']} for 2 coins a use", "license")
            )
            if f["license"] is not None:
                out.append(
                    Choice(f"license {f['id']} off", f"Withdraw {f['id']}'s licence", "license")
                )
    return out


def item_choices(state: State, seat: int) -> list[Choice]:
    g = state.g
    cs = state.cards
    p = g["players"][seat]
    out = []
    rivals = [s for s, q in enumerate(g["players"]) if s != seat and q["alive"]]
    for card in sorted(p["hand"], key=cs.rank):
        ing = cs.ingredients[card]
        if ing.effect is None or ing.effect == "ward" or card in p["used"]:
            continue
        stage = label(f"{ing.name} ({item_text(ing)})")
        if ing.effect in ("heal", "coins", "boost"):
            out.append(Choice(f"use {card}", label(f"Use {stage}"), "use", stage))
            continue
        for s in rivals:
            if ing.effect == "steal" and not g["players"][s]["hand"]:
                continue
            out.append(
                Choice(
                    f"use {card} {state.handles[s]}",
                    label(f"Use {ing.name} on {state.names[s]} ({effect_text(ing)})"),
                    "use",
                    stage,
                )
            )
        if ing.effect == "damage":
            for m in g["monsters"]:
                name = cs.results[m["level"]][m["card"]].name
                out.append(
                    Choice(
                        f"use {card} {m['id']}",
                        label(f"Use {ing.name} on {m['id']} {name} (Health {m['hp']})"),
                        "use",
                        stage,
                    )
                )
    return out


def trade_choices(state: State, seat: int) -> list[Choice]:
    g = state.g
    if g["rec"]["traded"] or g["rec"]["offers"] >= state.config["max_trade_offers"]:
        return []
    if g["players"][seat]["coins"] < 1:
        return []
    return [
        Choice(
            f"trade {state.handles[other]} give 1",
            label(f"Offer {state.names[other]} 1 coin, for nothing"),
            "trade",
        )
        for other, q in enumerate(g["players"])
        if other != seat and q["alive"]
    ]


# --- the keep window -----------------------------------------------------------------------------


def keep_request(state: State, seat: int) -> Request:
    g = state.g
    cs = state.cards
    exp = next(e for e in g["players"][seat]["lab"] if e["status"] == "keep")
    lo, hi = exp["keep"]
    level = roman(exp["level"])
    drawn = [
        drawn_text(cs, cs.results[level][card], exp["value"], state.config) for card in exp["drawn"]
    ]
    many = f"{lo}" if lo == hi else f"{lo} to {hi}"
    method = cs.methods[exp["method"]].name
    lines = [
        f"Your {exp['speed']} experiment, {method}, with {cards_text(cs, exp['cards'])}"
        f" (level {level}, value {exp['value']}) drew {plural(len(drawn), 'card')};"
        f" keep {many}. The rest"
        " are discarded; kept cards play in the order drawn:",
        *(f"{i}. {text}." for i, text in enumerate(drawn, start=1)),
        f"You have Health {g['players'][seat]['health']}.",
    ]
    grammar = [
        f"keep N [N ...]: the numbers of the {many} cards to keep, e.g. keep 1.",
        "A success is met when the experiment's value reaches its score: you take its"
        " product and, after the last kept card, the experiment stays as a formula.",
        "If nothing you keep reaches your hand, you take a consolation card.",
    ]
    if hi == 1:  # one button a card, each sending its own keep
        choices = [
            Choice(f"keep {i}", label(f"Keep {i}: {text}"), "keep")
            for i, text in enumerate(drawn, start=1)
        ]
    else:  # a multi-select sending the numbers, which keep reads as they are
        choices = [Choice(str(i), label(f"{i}: {text}"), "keep") for i, text in enumerate(drawn, 1)]
    return Request(
        seat,
        "keep",
        fit_prompt(lines),
        tuple(choices),
        "keep the best-ranked card" + ("s" if hi > 1 else ""),
        timeout(state, False),
        occasion=occasion(state),
        min_choices=lo if hi > 1 else 1,
        max_choices=hi,
        help=help_text(grammar, state),
    )


# --- reactions ----------------------------------------------------------------------------------


def ward_request(state: State, seat: int) -> Request:
    frame = damage_frame(state.g)
    amount = frame["amt"][seat]
    health = state.g["players"][seat]["health"]
    card = ward_card(state, seat)
    ward = card_name(state.cards, card) if card else "ward card"
    dies = " and eliminate you" if amount >= health else ""
    lines = [
        f"{frame['src']} would cost you {amount} of your {health} Health{dies}.",
        f"Ward: your {ward} goes back to the supply and you lose nothing from this event."
        f" Pass: you lose {amount}.",
    ]
    grammar = [
        "ward: spend your ward card; you lose no Health in this damage event.",
        "pass: keep the card and take the loss. Each item type once a turn, yours or not.",
    ]
    choices = (Choice("ward", f"Ward with your {ward}", "ward"), Choice("pass", "Pass", "ward"))
    return Request(
        seat,
        "ward",
        fit_prompt(lines),
        choices,
        "pass",
        timeout(state, True),
        occasion=occasion(state),
        timer="reaction",
        help=help_text(grammar, state),
    )


def formula_words(state: State, fids: Sequence[str]) -> list[str]:
    cs = state.cards
    out = []
    for f in state.g["formulas"]:
        if f["id"] in fids:
            out.append(
                f"{f['id']}: {cards_text(cs, f['ingredients'])} → {cards_text(cs, f['products'])}"
            )
    return out


def trade_request(state: State, seat: int) -> Request:
    g = state.g
    give, get, note = pending_offer(state)
    active = state.names[g["active"]]
    held = sum(g["players"][seat]["hand"].values())
    lines = [
        f"{active} offers you a trade: you get {side_text(state, give)};"
        f" you give {side_text(state, get)}.",
        *(f"Formula {text}." for text in formula_words(state, [*give.formulas, *get.formulas])),
    ]
    if note:
        lines.append(f'Note (a promise, not binding): "{note}"')
    lines.append(
        f"You hold {plural(held, 'card')}; over {state.config['hand_limit']} after the trade,"
        " you discard the excess at once."
    )
    grammar = [
        "accept: everything changes hands at once (a formula given: you learn it, one marker).",
        "decline: nothing changes.",
    ]
    return Request(
        seat,
        "trade_response",
        fit_prompt(lines),
        (Choice("accept", "Accept", "trade"), Choice("decline", "Decline", "trade")),
        "decline",
        timeout(state, True),
        occasion=occasion(state),
        timer="reaction",
        help=help_text(grammar, state),
    )


# --- the hand limit ------------------------------------------------------------------------------


def discard_request(state: State, seat: int) -> Request:
    g = state.g
    cs = state.cards
    frame = discard_frame(g)
    n = frame["n"]
    hand = g["players"][seat]["hand"]
    choices: list[Choice] = []
    for card in sorted(hand, key=cs.rank):
        ing = cs.ingredients[card]
        text = f"{ing.name} (Level {roman(ing.level)}" + (
            f"; {item_text(ing)})" if ing.effect else ")"
        )
        choices += [
            Choice(card if k == 1 else f"{card}#{k}", label(text), "discard")
            for k in range(1, min(hand[card], n) + 1)  # never more copies than discarded
        ]
    limit = state.config["hand_limit"]
    when = "End of your turn" if frame["timer"] == "turn" else "After the trade"
    lines = [
        f"{when}: you hold {plural(n + limit, 'card')}, more than {limit}: discard"
        f" {plural(n, 'card')} (they go back to the market or supply).",
        f"Hand: {hand_by_level(cs, hand)}.",
    ]
    grammar = [
        f"discard CARD [CARD ...]: exactly {plural(n, 'card')}, by name or id;"
        " Salt ×2 (or Salt Salt) for two copies.",
        "On time-out the lowest-level cards go, in the card list's order.",
    ]
    return Request(
        seat,
        "discard",
        fit_prompt(lines),
        tuple(choices),
        "discard the lowest-level cards",
        timeout(state, frame["timer"] == "reaction"),
        occasion=occasion(state),
        min_choices=n,
        max_choices=n,
        timer=frame["timer"],
        help=help_text(grammar, state),
    )
