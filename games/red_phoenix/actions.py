"""Carrying an accepted move out (a page command, ``answers.check``'s move) or the open window's
timeout default (None) on a ``Run``: rules page §3.3, §5.1, §6, §7, §10, §11; the public lines
name every card."""

from __future__ import annotations

from collections import Counter

from .answers import parse_trade, pending_offer, side_text
from .machine import ROMAN, Run
from .state import Experiment, Speed, TradeFrame, discard_frame, hand_list, turn_frame
from .words import cards_text, item_text, method_text, plural, roman


def apply(run: Run, move: str | None) -> None:
    """The open window's move (None: its timeout default), then the machine runs on."""
    g = run.g
    pending = g["pending"]
    assert pending is not None, "no window is open"
    g["pending"] = None
    seat, kind = pending["seat"], pending["kind"]
    if move is None:
        run.say(f"{run.name(seat)}'s {kind.replace('_', ' ')} window timed out.")
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
    else:
        apply_discard(run, seat, move)
    run.run()


def apply_discard(run: Run, seat: int, move: str | None) -> None:
    frame = discard_frame(run.g)
    run.g["stack"].pop()
    cards = move.split()[1:] if move else default_discard(run, seat, frame["n"])
    for card in cards:
        run.take(seat, card)
        run.to_origin(card)
    run.say(f"{run.name(seat)} discards {cards_text(run.cs, sorted(cards))} (hand limit).")


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


def apply_action(run: Run, seat: int, move: str | None) -> None:
    if move is None or move == "end":
        end_turn(run, seat, timed_out=move is None)
        return
    words = move.split()
    verb = words[0]
    if verb == "take":
        take_coins(run, seat, int(words[1]))
    elif verb == "buy":
        buy(run, seat, words[1:])
    elif verb in ("fast", "slow"):
        declare(run, seat, "fast" if verb == "fast" else "slow", words[1], words[2:])
    elif verb == "reproduce":
        reproduce(run, seat, words[1])
    elif verb == "dissolve":
        dissolve(run, seat, words[1], keep=len(words) == 3)
    elif verb == "use":
        use_item(run, seat, words[1], words[2] if len(words) > 2 else None)
    elif verb == "license":
        license_formula(run, seat, words[1], None if words[2] == "off" else int(words[2]))
    elif verb == "trade":
        offer_trade(run, seat, move)


def end_turn(run: Run, seat: int, timed_out: bool) -> None:
    g = run.g
    who = run.name(seat)
    if timed_out and run.cfg["action_timeout"] == "take_coins" and g["ap"] >= 1:
        gain = g["ap"] * run.cfg["coins_per_ap"]
        run.p(seat)["coins"] += gain
        run.say(f"{who} takes {gain} coins with the {g['ap']} AP left.")
        g["ap"] = 0
    run.say(f"{who} ends the turn.")
    turn_frame(g)["phase"] = "mon"


def take_coins(run: Run, seat: int, n: int) -> None:
    coins = n * run.cfg["coins_per_ap"]
    run.g["ap"] -= n
    run.p(seat)["coins"] += coins
    run.say(f"{run.name(seat)} takes {coins} coins ({n} AP).")


def buy(run: Run, seat: int, cards: list[str]) -> None:
    run.g["ap"] -= 1
    for card in cards:
        run.g["market"][card] -= 1
        run.p(seat)["coins"] -= run.cs.ingredients[card].cost or 0
        run.give(seat, card)
    run.say(f"{run.name(seat)} buys {cards_text(run.cs, cards)}.")


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
    cost = method_text(m, level).split(": ", 1)[1]
    run.say(
        f"{run.name(seat)} starts a {speed} experiment, {m.name} ({cost}), with"
        f" {cards_text(run.cs, cards)}: level {roman(level)}, value {value}."
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
        paid = f", paying {plural(fee, 'coin')} to {run.name(creator)}"
    got = [product for product in f["products"] if run.from_origin(product)]
    for product in got:
        run.give(seat, product)
    run.say(
        f"{run.name(seat)} reproduces {fid}{paid} and takes {cards_text(run.cs, got)}"
        f" ({cards_text(run.cs, f['ingredients'])} go back)."
    )


def dissolve(run: Run, seat: int, fid: str, keep: bool) -> None:
    run.g["ap"] -= 2 if keep else 1
    f = run.formula(fid)
    assert f is not None
    run.remove_formula(f, seat if keep else None)
    cards = cards_text(run.cs, f["ingredients"])
    run.say(
        f"{run.name(seat)} dissolves {fid}"
        + (f", taking {cards} back into their hand." if keep else f" ({cards} go back).")
    )


def license_formula(run: Run, seat: int, fid: str, fee: int | None) -> None:
    f = run.formula(fid)
    assert f is not None
    had = f["license"]
    f["license"] = fee
    run.g["rec"]["lic"].append(fid)
    who = run.name(seat)
    if fee is not None:
        run.say(f"{who} licenses {fid}: anyone may reproduce it for {plural(fee, 'coin')}.")
    elif had is not None:
        run.say(f"{who} withdraws the licence of {fid}.")
    else:
        run.say(f"{who} sets {fid}'s licence off (it had none).")


def use_item(run: Run, seat: int, card: str, target: str | None) -> None:
    player = run.p(seat)
    ing = run.cs.ingredients[card]
    run.take(seat, card)
    run.to_origin(card)
    player["used"].append(card)
    who, name = run.name(seat), ing.name
    if ing.effect == "heal":
        player["health"] = min(run.cfg["starting_health"], player["health"] + ing.amount)
        run.say(f"{who} uses {name} ({item_text(ing)}): Health {player['health']}.")
    elif ing.effect == "coins":
        player["coins"] += ing.amount
        run.say(f"{who} uses {name}: +{ing.amount} coins.")
    elif ing.effect == "boost":
        run.g["boost"] += ing.amount
        run.say(f"{who} uses {name}: boost +{ing.amount} (pending {run.g['boost']}).")
    elif ing.effect == "damage":
        assert target is not None
        damage_with(run, seat, card, target)
    else:
        assert target is not None
        steal(run, seat, card, run.state.handles.index(target))


def damage_with(run: Run, seat: int, card: str, target: str) -> None:
    ing = run.cs.ingredients[card]
    who = run.name(seat)
    m = run.monster(target)
    if m is not None:
        m["hp"] -= ing.amount
        monster = run.cs.results[m["level"]][m["card"]].name
        run.say(f"{who} uses {ing.name} on {target} ({monster}): Health {max(m['hp'], 0)}.")
        if m["hp"] <= 0:
            run.drop_monster(m, "killed")
        return
    victim = run.state.handles.index(target)
    amounts = [0] * len(run.g["players"])
    amounts[victim] = ing.amount
    run.say(f"{who} uses {ing.name} on {run.name(victim)} ({ing.amount} damage).")
    run.damage(victim, amounts, f"{who}'s {ing.name}")


def steal(run: Run, seat: int, card: str, victim: int) -> None:
    ing = run.cs.ingredients[card]
    taken = []
    for _ in range(min(ing.amount, run.hand_size(victim))):
        stolen = run.pick(victim)
        run.take(victim, stolen)
        run.give(seat, stolen)
        taken.append(stolen)
    who, whom = run.name(seat), run.name(victim)
    run.say(f"{who} uses {ing.name} and steals {plural(len(taken), 'card')} from {whom}.")
    run.tell(seat, f"You stole {cards_text(run.cs, taken)} from {whom}.")
    run.tell(victim, f"{who} stole {cards_text(run.cs, taken)} from you.")


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
    who, partner = run.name(seat), run.name(offer.partner)
    run.say(f"{who} offers a trade to {partner}: {public_offer(frame)}.")
    give, get, _ = pending_offer(run.state)
    detail = (
        f"Trade offer: {who} gives {side_text(run.state, give)}; "
        f"{partner} gives {side_text(run.state, get)}."
    )
    run.tell(seat, detail)
    run.tell(offer.partner, detail)


def public_offer(frame: TradeFrame) -> str:
    """An offer as the channel sees it (§13): card counts, never which cards."""

    def side(cards: dict[str, int], formulas: list[str], coins: int) -> str:
        parts = [plural(sum(cards.values()), "card")] if cards else []
        parts += formulas
        parts += [plural(coins, "coin")] if coins else []
        return ", ".join(parts) or "nothing"

    give, get = frame["give"], frame["get"]
    text = (
        f"gives {side(give['cards'], give['formulas'], give['coins'])}, "
        f"gets {side(get['cards'], get['formulas'], get['coins'])}"
    )
    if frame["note"]:
        text += f' (note: "{frame["note"]}")'
    return text


def apply_trade_answer(run: Run, seat: int, accept: bool) -> None:
    g = run.g
    frame = take_offer(run)
    active = g["active"]
    if not accept:
        run.say(f"{run.name(seat)} declines the trade.")
        return
    g["rec"]["traded"] = True
    for side, giver, receiver in ((frame["give"], active, seat), (frame["get"], seat, active)):
        run.p(giver)["coins"] -= side["coins"]
        run.p(receiver)["coins"] += side["coins"]
        for card, n in Counter(side["cards"]).items():
            run.take(giver, card, n)
            run.give(receiver, card, n)
        for fid in side["formulas"]:
            f = run.formula(fid)
            assert f is not None
            f["knowers"].append(receiver)
            run.p(receiver)["knows"].append(fid)
    run.say(f"{run.name(seat)} accepts the trade.")
    excess = run.hand_size(seat) - run.cfg["hand_limit"]
    if excess > 0:
        run.push({"f": "discard", "seat": seat, "timer": "reaction", "n": excess})


def take_offer(run: Run) -> TradeFrame:
    """The trade offer being answered, taken off the stack."""
    frame = run.g["stack"].pop()
    assert frame["f"] == "trade", frame["f"]
    return frame
