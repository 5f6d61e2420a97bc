"""What players see: requests with their choices, views, descriptions and event texts (§12,
§13). The public table never holds a hand's contents; a seat's own look adds its hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

from games.protocol import JSON, Choice, Presentation, Request

from .actions import experiment_cost, experiment_moves, free_markers, reproduce_problem
from .cards import CardSet
from .machine import ROMAN
from .state import (
    Experiment,
    Formula,
    Monster,
    State,
    damage_frame,
    discard_frame,
    hand_list,
    trade_frame,
)

EVENT_CHARS = 1800
PROMPT_CHARS = 1400
ACTION_HELP = (
    "Your action (take N, buy C ..., experiment C C C [C] (then the method), "
    "fast/slow METHOD C C C [C], reproduce F#, "
    "dissolve F# [keep], use C [TARGET], trade SEAT [give ...] [get ...] [note TEXT], "
    "license F# FEE|off, end)."
)
MENU: dict[str, Presentation] = {
    "buy": "menu",
    "experiment": "menu",
    "use": "menu",
    "reproduce": "menu",
    "dissolve": "menu",
    "license": "menu",
    "trade": "menu",
    "take": "buttons",
}


def cut(text: str, limit: int = EVENT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def hand_text(hand: Sequence[str]) -> str:
    return "Your hand: [" + ", ".join(hand) + "]"


def knows_sorted(ids: Sequence[str]) -> list[str]:
    return sorted(ids, key=lambda fid: int(fid[1:]))


# --- the table -------------------------------------------------------------------------------


def lab_entry(exp: Experiment) -> dict[str, JSON]:
    return {
        "speed": exp["speed"],
        "method": exp["method"],
        "cards": list(exp["cards"]),
        "level": exp["level"],
        "value": exp["value"],
    }


def formula_entry(state: State, f: Formula) -> dict[str, JSON]:
    names = state.names
    return {
        "id": f["id"],
        "creator": None if f["creator"] is None else names[f["creator"]],
        "level": f["level"],
        "value": f["value"],
        "ingredients": list(f["ingredients"]),
        "results": list(f["results"]),
        "products": list(f["products"]),
        "knowers": [names[s] for s in f["knowers"]],
        "license": f["license"],
    }


def monster_entry(state: State, m: Monster) -> dict[str, JSON]:
    return {
        "id": m["id"],
        "card": m["card"],
        "owner": state.names[m["owner"]],
        "hp": m["hp"],
        "attacks_left": m["attacks_left"],
    }


def pending_entry(state: State) -> dict[str, JSON] | None:
    pending = state.g["pending"]
    if pending is None:
        return None
    reaction = pending["timer"] == "reaction"
    return {
        "seat": state.names[pending["seat"]],
        "kind": pending["kind"],
        "deadline_s": state.config["reaction_window_s" if reaction else "window_s"],
    }


def player_entry(state: State, seat: int) -> dict[str, JSON]:
    p = state.g["players"][seat]
    return {
        "alive": p["alive"],
        "health": p["health"],
        "coins": p["coins"],
        "hand_size": sum(p["hand"].values()),
        "knows": knows_sorted(p["knows"]),
        "markers_free": free_markers(state, seat),
        "used": sorted(p["used"]),
        "lab": [lab_entry(e) for e in p["lab"]],
        "turns": p["turns"],
    }


def table(state: State) -> dict[str, JSON]:
    """The public state (§13)."""
    g = state.g
    return {
        "turn": g["turn"],
        "active": state.names[g["active"]],
        "ap": g["ap"],
        "boost": g["boost"],
        "players": {state.names[s]: player_entry(state, s) for s in range(len(g["players"]))},
        "market": dict(g["market"]),
        "supply": dict(g["supply"]),
        "decks": {lv: len(d) for lv, d in g["decks"].items()},
        "discards": {lv: sorted(d) for lv, d in g["discards"].items()},
        "formulas": [formula_entry(state, f) for f in g["formulas"]],
        "monsters": [monster_entry(state, m) for m in g["monsters"]],
        "pending": pending_entry(state),
        "game_over": g["over"],
        "winners": [state.names[s] for s in g["winners"]],
        "end_reason": g["end_reason"],
        "card_set": state.cards.name,
    }


def view(state: State, seat: int | None) -> JSON:
    data = table(state)
    if seat is not None:
        data["you"] = {
            "seat": state.names[seat],
            "handle": state.handles[seat],
            "hand": hand_list(state.g["players"][seat]["hand"]),
        }
    return data


def describe(state: State, seat: int | None) -> str:
    g = state.g
    names = state.names
    lines = [
        f"{state.cards.name} — turn {g['turn']}, {names[g['active']]} to act "
        f"(AP {g['ap']}, boost {g['boost']})."
    ]
    if g["over"]:
        winners = ", ".join(names[s] for s in g["winners"]) or "nobody"
        lines = [f"Game over ({g['end_reason']}): {winners} won."]
    for s, p in enumerate(g["players"]):
        status = "" if p["alive"] else " (out)"
        lines.append(
            f"{names[s]}{status}: Health {p['health']}, coins {p['coins']}, "
            f"{sum(p['hand'].values())} cards, formulas {' '.join(knows_sorted(p['knows'])) or '-'}"
        )
        for e in p["lab"]:
            lines.append(
                f"  lab: {e['speed']} {e['method']} {' '.join(e['cards'])} "
                f"(L{e['level']} V{e['value']})"
            )
    cs = state.cards
    lines.append("Market: " + ", ".join(f"{c} {g['market'][c]}" for c in cs.market_types()))
    supply = [c for c in cs.ingredients if c in g["supply"]]
    lines.append("Supply: " + ", ".join(f"{c} {g['supply'][c]}" for c in supply))
    for f in g["formulas"]:
        fee = f" licence {f['license']}" if f["license"] is not None else ""
        lines.append(
            f"{f['id']}: {' '.join(f['ingredients'])} -> {' '.join(f['products'])}"
            f" (by {names[f['creator']] if f['creator'] is not None else 'nobody'}{fee})"
        )
    for m in g["monsters"]:
        lines.append(
            f"{m['id']} {m['card']} of {names[m['owner']]}: Health {m['hp']}, "
            f"attacks left {m['attacks_left']}"
        )
    if seat is not None:
        lines.append(hand_text(hand_list(g["players"][seat]["hand"])))
    return cut("\n".join(lines), 3000)


SUMMARY_CHARS = 1000


def summary(state: State) -> str:
    """The table at the start of a turn, for the channel (§13): whose turn, Health, coins and
    hand size per player, the market, the decks, the formulas and their knowers, the monsters.
    Never a hand's contents."""
    g = state.g
    names = state.names
    lines = [f"**Table, turn {g['turn']}: {names[g['active']]} to act.**"]
    for s, p in enumerate(g["players"]):
        if not p["alive"]:
            lines.append(f"{names[s]}: out")
            continue
        lab = f", {len(p['lab'])} in the lab" if p["lab"] else ""
        lines.append(
            f"{names[s]}: Health {p['health']}, coins {p['coins']}, "
            f"{sum(p['hand'].values())} cards{lab}"
        )
    # the card list's order: a state read back from storage may hold its keys sorted
    stacks = [(c, g["market"][c]) for c in state.cards.market_types()]
    market = ", ".join(f"{c} {n}" for c, n in stacks if n > 0)
    lines.append(f"Market: {market or 'empty'}")
    decks = ", ".join(f"{lv} {len(d)}" for lv, d in g["decks"].items())
    lines.append(f"Decks: {decks}")
    for f in g["formulas"]:
        knowers = ", ".join(names[k] for k in f["knowers"]) or "nobody"
        fee = f", licence {f['license']}" if f["license"] is not None else ""
        lines.append(
            f"{f['id']}: {' '.join(f['ingredients'])} -> {' '.join(f['products'])} "
            f"(known by {knowers}{fee})"
        )
    for m in g["monsters"]:
        lines.append(f"{m['id']} {m['card']} of {names[m['owner']]}: Health {m['hp']}")
    return cut("\n".join(lines), SUMMARY_CHARS)


def public_event(
    lines: Sequence[str], data: Mapping[str, JSON], table_text: str = ""
) -> tuple[Mapping[str, JSON], str]:
    if not table_text:
        return {"lines": list(lines), "table": dict(data)}, cut("\n".join(lines))
    text = cut("\n".join(lines), EVENT_CHARS - len(table_text) - 1) + "\n" + table_text
    return {"lines": list(lines), "table": dict(data), "summary": table_text}, text


def moderator_event(state: State) -> tuple[Mapping[str, JSON], str]:
    hands = {state.names[s]: hand_list(p["hand"]) for s, p in enumerate(state.g["players"])}
    text = "\n".join(f"{name}: {', '.join(hand) or '(empty)'}" for name, hand in hands.items())
    return {"hands": hands}, cut(text)


# --- requests --------------------------------------------------------------------------------


def requests(state: State) -> list[Request]:
    g = state.g
    pending = g["pending"]
    if g["over"] or pending is None:
        return []
    seat, kind = pending["seat"], pending["kind"]
    reaction = pending["timer"] == "reaction"
    timeout = float(state.config["reaction_window_s" if reaction else "window_s"])
    # AMBIGUITY 5: one action per window, each with its own window_s deadline (no turn clock)
    occasion = f"turn {g['turn']}"
    head = status_line(state, seat)
    if kind == "action":
        choices = action_choices(state, seat)
        default = (
            "take coins with all AP left, then end the turn"
            if state.config["action_timeout"] == "take_coins"
            else "end the turn"
        )
        prompt = f"{head}\n{ACTION_HELP}"
        return [
            Request(
                seat,
                kind,
                cut(prompt, PROMPT_CHARS),
                tuple(choices),
                default,
                timeout,
                occasion=occasion,
                presentation=MENU,
            )
        ]
    if kind in ("method", "confirm"):
        return [guide_requests(state, seat, kind, head, timeout)]
    if kind == "keep":
        exp = next(e for e in g["players"][seat]["lab"] if e["status"] == "keep")
        lo, hi = exp["keep"]
        level = ROMAN[exp["level"]]
        lines = []
        for i, card in enumerate(exp["drawn"]):
            lines.append(f"{i + 1}: {card_label(state, level, card, exp['value'])}")
        prompt = (
            f"{head}\nDrawn (value {exp['value']}):\n"
            + "\n".join(lines)
            + f"\nKeep {lo}"
            + (f" to {hi}" if hi > lo else "")
            + " (keep i ...)."
        )
        if hi == 1:
            choices = [
                Choice(f"keep {i + 1}", cut(f"keep {i + 1}: {lines[i][3:]}", 80), "keep")
                for i in range(len(exp["drawn"]))
            ]
            return [
                Request(
                    seat,
                    kind,
                    cut(prompt, PROMPT_CHARS),
                    tuple(choices),
                    "keep the best-ranked card",
                    timeout,
                    occasion=occasion,
                )
            ]
        choices = [Choice(str(i + 1), cut(lines[i], 80), "keep") for i in range(len(exp["drawn"]))]
        return [
            Request(
                seat,
                kind,
                cut(prompt, PROMPT_CHARS),
                tuple(choices),
                "keep the best-ranked cards",
                timeout,
                occasion=occasion,
                min_choices=lo,
                max_choices=hi,
            )
        ]
    if kind == "ward":
        frame = damage_frame(g)
        amount = frame["amt"][seat]
        wards = [
            c
            for c in sorted(g["players"][seat]["hand"])
            if state.cards.ingredients[c].effect == "ward"
        ]
        ward = state.cards.ingredients[wards[0]].name if wards else "ward card"
        prompt = f"{head}\n{frame['src']} would cost you {amount} Health. Ward with your {ward}?"
        choices = [Choice("ward", "Ward (lose nothing)", "ward"), Choice("pass", "Pass", "ward")]
        return [
            Request(
                seat,
                kind,
                cut(prompt, PROMPT_CHARS),
                tuple(choices),
                "pass",
                timeout,
                occasion=occasion,
                timer="reaction",
            )
        ]
    if kind == "trade_response":
        offer = trade_frame(g)
        active = state.names[g["active"]]
        from .actions import side_text

        prompt = (
            f"{head}\n{active} offers you a trade: you get {side_text(offer['give'])}; "
            f"you give {side_text(offer['get'])}."
        )
        if offer["note"]:
            prompt += f'\nNote: "{offer["note"]}"'
        choices = [Choice("accept", "Accept", "trade"), Choice("decline", "Decline", "trade")]
        return [
            Request(
                seat,
                kind,
                cut(prompt, PROMPT_CHARS),
                tuple(choices),
                "decline",
                timeout,
                occasion=occasion,
                timer="reaction",
            )
        ]
    n = discard_frame(g)["n"]
    hand = hand_list(g["players"][seat]["hand"])
    values: list[str] = []
    seen: dict[str, int] = {}
    for card in hand:
        seen[card] = seen.get(card, 0) + 1
        values.append(card if seen[card] == 1 else f"{card}#{seen[card]}")
    choices = [Choice(v, v, "discard") for v in values]
    limit = state.config["hand_limit"]
    prompt = f"{head}\nYou hold more than {limit} cards: discard {n} (discard C ...)."
    return [
        Request(
            seat,
            kind,
            cut(prompt, PROMPT_CHARS),
            tuple(choices),
            "discard the lowest-level cards",
            timeout,
            occasion=occasion,
            min_choices=n,
            max_choices=n,
            timer="reaction" if reaction else "turn",
        )  # its own deadline (§11)
    ]


def status_line(state: State, seat: int) -> str:
    g = state.g
    p = g["players"][seat]
    hand = hand_list(p["hand"])
    line = f"Health {p['health']}, coins {p['coins']}"
    if seat == g["active"]:
        line += f", AP {g['ap']}, boost {g['boost']}"
    return f"{line}. {hand_text(hand)}."


def card_label(state: State, level: str, card: str, value: int) -> str:
    result = state.cards.results[level][card]
    if result.kind == "success":
        met = "met" if value >= result.score else "not met"
        return f"{card} (success {result.score}, {met})"
    if result.kind == "simple":
        return f"{card} (simple failure)"
    if result.kind == "catastrophe":
        return f"{card} ({result.name}, catastrophe)"
    return f"{card} ({result.name}, monster)"


def action_choices(state: State, seat: int) -> list[Choice]:
    g = state.g
    cs = state.cards
    p = g["players"][seat]
    ap = g["ap"]
    out: list[Choice] = []
    cpa = state.config["coins_per_ap"]
    for n in range(1, ap + 1):
        out.append(Choice(f"take {n}", f"Take {n * cpa} coins ({n} AP)", "take"))
    if ap >= 1:
        affordable = [
            c
            for c in cs.market_types()
            if g["market"][c] > 0 and (cs.ingredients[c].cost or 0) <= p["coins"]
        ]
        for card in affordable:
            out.append(
                Choice(f"buy {card}", f"Buy {card} ({cs.ingredients[card].cost} coins)", "buy")
            )
        missing = [
            c
            for c in cs.market_types()
            if g["market"][c] > 0 and c not in p["hand"] and cs.ingredients[c].effect is None
        ][:4]
        while missing and sum(cs.ingredients[c].cost or 0 for c in missing) > p["coins"]:
            missing.pop()
        if len(missing) >= 2:
            text = "buy " + " ".join(sorted(missing))
            out.append(Choice(text, text, "buy"))
        out += ingredient_choices(state, seat, {c.value for c in out})
    out += experiment_choices(state, seat)
    for f in g["formulas"]:
        if reproduce_problem(state, seat, f) is None:
            out.append(
                Choice(
                    f"reproduce {f['id']}",
                    f"Reproduce {f['id']} -> {' '.join(f['products'])}"[:80],
                    "reproduce",
                )
            )
    for f in g["formulas"]:
        if f["creator"] != seat:
            continue
        if ap >= 1:
            out.append(Choice(f"dissolve {f['id']}", f"Dissolve {f['id']}", "dissolve"))
        if ap >= 2:
            out.append(
                Choice(
                    f"dissolve {f['id']} keep", f"Dissolve {f['id']}, keep its cards", "dissolve"
                )
            )
        if f["id"] not in g["rec"]["lic"]:
            out.append(Choice(f"license {f['id']} 2", f"License {f['id']} for 2 coins", "license"))
            if f["license"] is not None:
                out.append(
                    Choice(
                        f"license {f['id']} off", f"Withdraw the licence of {f['id']}", "license"
                    )
                )
    out += item_choices(state, seat)
    if (
        not g["rec"]["traded"]
        and g["rec"]["offers"] < state.config["max_trade_offers"]
        and p["coins"] >= 1
    ):
        for other, q in enumerate(g["players"]):
            if other != seat and q["alive"]:
                handle = state.handles[other]
                out.append(
                    Choice(
                        f"trade {handle} give 1", f"Offer {state.names[other]} 1 coin"[:80], "trade"
                    )
                )
    out.append(Choice("end", "End the turn", "end"))
    return out


def ingredient_choices(state: State, seat: int, offered: set[str]) -> list[Choice]:
    """``buy`` the missing ingredients of each formula the seat may reproduce, when the market
    has them and the seat can pay."""
    g = state.g
    cs = state.cards
    p = g["players"][seat]
    out = []
    for f in g["formulas"]:
        usable = f["id"] in p["knows"] or (f["license"] is not None and f["creator"] is not None)
        missing = [c for c in f["ingredients"] if p["hand"].get(c, 0) < 1]
        if not usable or not missing or f["created"] == g["turn"]:
            continue
        if any(cs.ingredients[c].cost is None or g["market"][c] < 1 for c in missing):
            continue
        if sum(cs.ingredients[c].cost or 0 for c in missing) > p["coins"]:
            continue
        text = "buy " + " ".join(sorted(missing))
        if text not in offered:
            offered.add(text)
            label = cut(f"Buy the ingredients of {f['id']}: {text[4:]}", 80)
            out.append(Choice(text, label, "buy"))
    return out


def experiment_choices(state: State, seat: int) -> list[Choice]:
    """The guided experiment's first step: one choice per set of ingredients with at least one
    method within the seat's means (the method and a confirmation follow)."""
    g = state.g
    cs = state.cards
    p = g["players"][seat]
    if free_markers(state, seat) < 1 or g["ap"] < 1:
        return []
    types = sorted(
        (c for c in p["hand"] if 1 <= cs.ingredients[c].level <= 3),
        key=lambda c: (-cs.ingredients[c].level, cs.ingredients[c].order),
    )
    combos: list[tuple[str, ...]] = []
    for size in (4, 3):
        if len(types) >= size:
            combos.append(tuple(types[:size]))
    if len(types) >= 4:
        combos += [c for c in combinations(types[:5], 3) if c not in combos][:2]
    out = []
    for combo in combos:
        cards = sorted(combo)
        if not experiment_moves(state, seat, cards):
            continue
        level = max(cs.ingredients[c].level for c in combo)
        value = sum(cs.ingredients[c].level for c in combo) + g["boost"]
        text = "experiment " + " ".join(cards)
        label = f"Experiment: {' '.join(cards)} (level {ROMAN[level]}, value {value})"
        out.append(Choice(text, cut(label, 80), "experiment"))
    return out


def method_label(state: State, move: str) -> str:
    """``"Slow, The Gold Standard: 2 coins, 1 AP (draw 2, keep 1)"``."""
    speed, method_id, *cards = move.split()
    level = max(state.cards.ingredients[c].level for c in cards)
    method = state.cards.methods[method_id]
    coins, health = experiment_cost(state, method_id, level)
    costs = [f"{coins} coins"] if coins else []
    costs += [f"{health} Health"] if health else []
    costs.append("2 AP" if speed == "fast" else "1 AP")
    keep = (
        f"keep {method.keep_min}"
        if method.keep_min == method.keep_max
        else f"keep {method.keep_min}-{method.keep_max}"
    )
    return cut(
        f"{speed.capitalize()}, {method.name}: {', '.join(costs)} (draw {method.draw}, {keep})",
        80,
    )


def guide_requests(state: State, seat: int, kind: str, head: str, timeout: float) -> Request:
    """The guided experiment's method window, then its confirmation."""
    g = state.g
    guide = g["guide"]
    cards = list(guide["cards"])
    cs = state.cards
    level = max(cs.ingredients[c].level for c in cards)
    value = sum(cs.ingredients[c].level for c in cards) + g["boost"]
    what = f"{' '.join(cards)} (level {ROMAN[level]}, value {value})"
    back = Choice("back", "Back to your actions", "back")
    if kind == "method":
        moves = experiment_moves(state, seat, cards)
        choices = [Choice(m, method_label(state, m), "method") for m in moves]
        prompt = (
            f"{head}\nExperiment with {what}. Choose the method "
            "(slow: resolved at the start of your next turn; fast: now, 2 AP), or go back."
        )
        default = "the action window's time-out"
        return Request(
            seat,
            kind,
            cut(prompt, PROMPT_CHARS),
            (*choices, back),
            default,
            timeout,
            occasion=f"turn {g['turn']}",
            presentation={"method": "menu"},
        )
    move = str(guide["move"])
    prompt = f"{head}\nExperiment with {what}: {method_label(state, move)}. Confirm?"
    return Request(
        seat,
        kind,
        cut(prompt, PROMPT_CHARS),
        (Choice("confirm", "Confirm the experiment", "confirm"), back),
        "the action window's time-out",
        timeout,
        occasion=f"turn {g['turn']}",
    )


def item_choices(state: State, seat: int) -> list[Choice]:
    g = state.g
    cs = state.cards
    p = g["players"][seat]
    out = []
    rivals = [s for s, q in enumerate(g["players"]) if s != seat and q["alive"]]
    for card in sorted(p["hand"]):
        ing = cs.ingredients[card]
        if ing.effect is None or ing.effect == "ward" or card in p["used"]:
            continue
        if ing.effect in ("heal", "coins", "boost"):
            out.append(Choice(f"use {card}", f"Use {card} ({ing.effect} {ing.amount})", "use"))
            continue
        for s in rivals:
            if ing.effect == "steal" and not g["players"][s]["hand"]:
                continue
            out.append(
                Choice(
                    f"use {card} {state.handles[s]}",
                    cut(f"Use {card} on {state.names[s]}", 80),
                    "use",
                )
            )
        if ing.effect == "damage":
            for m in g["monsters"]:
                out.append(
                    Choice(f"use {card} {m['id']}", f"Use {card} on {m['id']} ({m['card']})", "use")
                )
    return out


# --- the card set ------------------------------------------------------------------------------


def card_set_text(cs: CardSet) -> str:
    """A match's card set in words (rules page §12.3 ``/phoenix cards``): every ingredient and
    item, the methods, and each result deck's cards with their copies."""
    lines = [f"{cs.name}", "", "Ingredients and items (id: name, level, copies):"]
    for ing in cs.ingredients.values():
        parts = [f"level {ing.level}", f"{ing.copies} copies"]
        parts.append(f"market {ing.cost} coins" if ing.cost is not None else "supply")
        if ing.effect is not None:
            parts.append(f"item: {ing.effect}" + (f" {ing.amount}" if ing.effect != "ward" else ""))
        if ing.wins:
            parts.append("wins the game")
        lines.append(f"{ing.id}: {ing.name}, {', '.join(parts)}")
    consolation = cs.consolation or "none"
    lines += ["", f"Consolation: {consolation}", "", "Methods (costs per level):"]
    for m in cs.methods.values():
        keep = (
            f"keep {m.keep_min}" if m.keep_min == m.keep_max else f"keep {m.keep_min}-{m.keep_max}"
        )
        lines.append(f"{m.id}: {m.name}, draw {m.draw}, {keep}, {m.coins} coins, {m.health} Health")
    for level, cards in cs.results.items():
        total = sum(cs.copies[level].values())
        lines += ["", f"Results {level} ({total} cards):"]
        for rid, r in cards.items():
            copies = cs.copies[level][rid]
            times = f" ×{copies}" if copies > 1 else ""
            if r.kind == "success":
                what = f"success {r.score}: {r.product}"
            elif r.kind == "simple":
                what = f"simple failure: {r.gain or 'nothing'}"
            elif r.kind == "catastrophe":
                what = (
                    f"catastrophe {r.name}: self {r.self_damage}, others {r.others_damage}, "
                    f"most cards {r.most_damage}"
                    + (f", discard {r.discard_random}" if r.discard_random else "")
                )
            else:
                what = f"monster {r.name}: Health {r.hp}, damage {r.damage}"
            lines.append(f"{rid}{times}: {what}")
    return "\n".join(lines)
