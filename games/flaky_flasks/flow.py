"""The round's flow (rules page §4-§10): which window opens next, what each answer does, and
every automatic step between windows. A ``Flow`` works on a copy of the game data ``g``.

A *window* here is the rules page's window (``R1.T1.work``, ``R1.market2``). The ``work`` and
``market`` windows take several commands from a seat (play, prop, ...; sell): the host asks one
command per seat at a time, on one turn clock, until each seat's final answer or its timeout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from games.text import names_text

from .config import SCHEDULES
from .content import MAX_CAULDRON, Content, canonical
from .render import items_text, offer_text, sym, syms
from .rules import (
    P,
    active,
    apply_actions,
    best_panel,
    can_counter,
    deal_tier,
    draw,
    funds,
    held,
    hex_cards,
    offer_parts,
    place_tile,
    propagate,
    remove_card,
    resolve_chain,
    reveal,
    sellable,
    shuffle_deck,
    transfer,
    turn_order,
    unlocks_after,
    window,
)
from .state import MARKET_KINDS, Chance, Config, G, MarketKind, Potion, WindowKind


def new_player(content: Content, cards: Sequence[str], slots: int) -> P:
    return {
        "fame": 0,
        "coins": 0,
        "temp": 0,
        "charge": 0,
        "hand": [],
        "deck": content.cat(list(cards)),
        "discard": [],
        "slots": [None] * slots,
        "channels": [[] for _ in range(slots)],
        "spare": [],
        "cauldron": [],
        "potions": [],
        "brewed": 0,
        "sales": [],
        "jammed": False,
        "market_passed": False,
        "stage": "done",
    }


def fresh(
    content: Content,
    config: Config,
    names: Sequence[str],
    chance: Chance,
    first: int,
) -> G:
    """§3: the table before round 1 (or before a script's start round)."""
    players = []
    for _ in names:
        p = new_player(content, content.starter_cards, config["slots"])
        for tile in content.starter_tiles:
            place_tile(content, p, tile, config["slots"])
        players.append(p)
    tier1 = [pid for pid, panel in content.panels.items() if panel.tier == 1]
    g: G = {
        "names": list(names),
        "chance": chance,
        "round": 1,
        "first": first,
        "turn": 0,
        "fumes": [0, 0],
        "panels": tier1,
        "piles": {},
        "rows": {"river": {}, "tableau": {}},
        "decks": {"river": {}, "tableau": {}},
        "players": players,
        "out": [],
        "win": None,
        "serial": 0,
        "counts": {"hex": 0, "counter": 0, "market": 0},
        "ritual": {"order": [], "idx": 0, "chain": [], "passed": False},
        "market": {"order": [], "pos": 0},
        "bargain": {"order": [], "idx": 0, "offer": None},
        "over": False,
        "reason": "",
        "winners": [],
        "standings": [],
        "steps": 0,
        "shuffled": {},
    }
    deal_tier(g, content, 1, config["river_size"], config["tableau_size"])
    return g


def unlock_to(g: G, content: Content, config: Config, start: int) -> None:
    """A script's start preset: the unlocks the schedule made before round ``start``."""
    sched = SCHEDULES[config["rounds"]]
    for tier, after, panels in ((2, sched.tier2, sched.panels2), (3, sched.tier3, sched.panels3)):
        if after < start:
            deal_tier(g, content, tier, config["river_size"], config["tableau_size"])
        count = sum(1 for r in panels if r < start)
        if count:
            reveal(g, content, tier, count)


class Flow:
    """Applies answers and runs the automatic steps until the next window opens."""

    def __init__(self, content: Content, config: Config, g: G) -> None:
        self.c, self.cfg, self.g = content, config, g
        self.lines: list[str] = []  # public report lines of this resolution
        self.asides = 0  # how many of them no seat's next decision turns on (``Event.aside``)

    def name(self, seat: int) -> str:
        return str(self.g["names"][seat])

    def say(self, text: str, aside: bool = False) -> None:
        self.lines.append(text)
        self.asides += aside

    # --- windows --------------------------------------------------------------------------------

    def open(self, kind: WindowKind, prompted: Sequence[int]) -> None:
        g = self.g
        r = g["round"]
        if kind == "hex" or kind == "counter":
            g["counts"][kind] += 1
            label = f"R{r}.T{g['turn']}.{kind}{g['counts'][kind]}"
        elif kind == "work":
            label = f"R{r}.T{g['turn']}.work"
        elif kind == "market":
            g["counts"]["market"] += 1
            label = f"R{r}.market{g['counts']['market']}"
        elif kind in ("offer", "reply"):
            label = f"R{r}.{kind}{g['bargain']['idx'] + 1}"
        else:
            label = f"R{r}.setup"
        g["serial"] += 1
        g["win"] = {
            "kind": kind,
            "label": label,
            "serial": g["serial"],
            "prompted": sorted(prompted),
            "finished": [],
            "log": [],
            "counters": [],
        }

    def pending(self) -> list[int]:
        win = self.g["win"]
        if win is None:
            return []
        return [s for s in win["prompted"] if s not in win["finished"] and s not in self.g["out"]]

    def resolve(self, moves: Mapping[int, str | None]) -> None:
        """One host window: one move (or None: the default) per pending seat."""
        pending = self.pending()
        for seat in sorted(moves):  # seats are independent in a window: seating order
            if seat in pending:
                self.answer(seat, moves[seat])
        if window(self.g)["kind"] == "work" and any(moves.get(s, "") is None for s in pending):
            # a seat without a move: the work window's one deadline has passed (§6.3), so
            # every seat still working is done, keeping what it did
            for seat in self.pending():
                self.answer(seat, None)
        if not self.pending():
            self.close()

    def finish(self, seat: int) -> None:
        window(self.g)["finished"].append(seat)

    def answer(self, seat: int, move: str | None) -> None:
        kind = window(self.g)["kind"]
        words = move.split() if move is not None else []
        if kind == "setup":
            if words and words[0] == "layout":
                self.layout(seat, words[1:])
            self.finish(seat)
        elif kind == "work":
            if move is None:
                window(self.g)["log"].append(f"{self.name(seat)}: time is up")
                words = ["done"]
            self.work(seat, words)
            if words[0] in ("brew", "done"):
                self.g["players"][seat]["stage"] = "done"
                self.finish(seat)
        elif kind == "market":
            if move is None:
                self.market_default(seat)
                words = ["pass"]
            self.market(seat, words)
            if words[0] in ("buy", "pass"):
                self.finish(seat)
        elif kind == "hex":
            self.hex(seat, move)
            self.finish(seat)
        elif kind == "counter":
            if words and words[0] == "counter":
                window(self.g)["counters"].append([seat, words[1]])
            self.finish(seat)
        elif kind == "offer":
            if move is not None and words[0] == "offer":
                self.g["bargain"]["offer"] = {"from": seat, "text": move}
                self.say(f"{self.name(seat)} offers {offer_text(self.c, self.g, move)}")
            else:
                self.say(f"{self.name(seat)} makes no offer", aside=True)  # nothing to answer
            self.finish(seat)
        elif kind == "reply":
            self.reply(seat, words[0] if words else "refuse")
            self.finish(seat)

    def close(self) -> None:
        g = self.g
        win = window(g)
        kind = win["kind"]
        if kind == "setup":
            self.after_setup()
        elif kind == "hex":
            if g["ritual"]["chain"]:
                self.open_counter()
            else:
                self.next_ritual()
        elif kind == "counter":
            self.close_counter()
        elif kind == "work":
            self.lines += win["log"]
            self.after_work()
        elif kind == "market":
            self.next_market()
        elif kind == "offer":
            offer = g["bargain"]["offer"]
            if offer is not None:
                self.open("reply", [offer_parts(g, offer["text"])[0]])
            else:
                g["bargain"]["idx"] += 1
                self.next_offer()
        elif kind == "reply":
            g["bargain"]["offer"] = None
            g["bargain"]["idx"] += 1
            self.next_offer()

    # --- round start and the Setup Phase --------------------------------------------------------

    def start_round(self) -> None:
        g = self.g
        g["counts"] = {"hex": 0, "counter": 0, "market": 0}
        g["shuffled"] = {}
        g["turn"] = 0
        for p in g["players"]:
            p["sales"] = []
            p["brewed"] = 0
        self.say(f"Round {g['round']} begins; {self.name(g['first'])} is first.")
        prompted = [s for s in active(g) if self.needs_setup(g["players"][s])]
        if prompted:
            self.open("setup", prompted)
        else:
            self.after_setup()

    def needs_setup(self, p: P) -> bool:
        tiles = [*(s.split("@")[0] for ch in p["channels"] for s in ch), *p["spare"]]
        return len(tiles) >= 2 or any(self.c.tiles[t].settings for t in tiles)

    def layout(self, seat: int, specs: Sequence[str]) -> None:
        p = self.g["players"][seat]
        owned = [*(s.split("@")[0] for ch in p["channels"] for s in ch), *p["spare"]]
        channels: list[list[str]] = [[] for _ in range(self.cfg["slots"])]
        for token in specs:
            k, _, listed = token.partition("=")
            channels[int(k) - 1] = [s for s in listed.split(",") if s]
        for ch in channels:
            for spec in ch:
                owned.remove(spec.split("@")[0])
        p["channels"], p["spare"] = channels, self.c.tcat(owned)
        self.say(f"{self.name(seat)} rearranges their tiles")

    def after_setup(self) -> None:
        g = self.g
        for seat in active(g):
            shuffle_deck(g, self.c, seat)
        g["turn"] = 1
        self.start_turn()

    # --- turns: Draw, Ritual, work, Discard ----------------------------------------------------

    def start_turn(self) -> None:
        g = self.g
        g["counts"]["hex"] = g["counts"]["counter"] = 0
        for seat in active(g):
            draw(g["players"][seat], self.cfg["hand_size"])
        order = turn_order(g)
        if g["turn"] == 2:
            order.reverse()
        g["ritual"] = {"order": order, "idx": 0, "chain": [], "passed": False}
        self.next_ritual()

    def next_ritual(self) -> None:
        g = self.g
        ritual = g["ritual"]
        while ritual["idx"] < len(ritual["order"]):
            seat = ritual["order"][ritual["idx"]]
            eligible = self.cfg["prompt_mode"] == "all" or hex_cards(self.c, g["players"][seat])
            if seat not in g["out"] and not ritual["passed"] and eligible:
                self.open("hex", [seat])
                return
            ritual["idx"] += 1
            ritual["passed"] = False
        for seat in active(g):
            g["players"][seat]["stage"] = "play"
        self.open("work", active(g))

    def hex(self, seat: int, move: str | None) -> None:
        g = self.g
        words = (move or "pass").split(maxsplit=2)  # a target's name may hold spaces
        if words[0] != "hex":
            g["ritual"]["passed"] = True
            return
        card_id = words[1]
        target = g["names"].index(words[2]) if len(words) > 2 else None
        p = g["players"][seat]
        p["hand"].remove(card_id)
        p["discard"].append(card_id)
        g["ritual"]["chain"] = [{"seat": seat, "card": card_id, "kind": "hex", "target": target}]
        card = self.c.cards[card_id]
        on = f" on {self.name(target)}" if target is not None else ""
        self.say(f"{self.name(seat)} activates the Hex {card.name}{on}")

    def open_counter(self) -> None:
        g = self.g
        owner = g["ritual"]["chain"][-1]["seat"]
        prompted = [
            s
            for s in active(g)
            if s != owner
            and (self.cfg["prompt_mode"] == "all" or can_counter(self.c, g["players"][s]))
        ]
        if prompted:
            self.open("counter", prompted)
        else:
            self.after_chain()

    def close_counter(self) -> None:
        g = self.g
        counters = {int(seat): str(card) for seat, card in window(g)["counters"]}
        owner = g["ritual"]["chain"][-1]["seat"]
        order = g["ritual"]["order"]
        n = len(g["players"])
        full = (
            order
            if owner not in order
            else order[order.index(owner) + 1 :] + order[: order.index(owner) + 1]
        )
        if owner not in order:  # the owner left: seating order after them
            full = [(owner + k) % n for k in range(1, n)]
        for seat in full:
            if seat in counters:
                card_id = counters[seat]
                card = self.c.cards[card_id]
                p = g["players"][seat]
                cost = card.counter_charge()
                if cost:
                    p["charge"] -= cost
                else:
                    p["hand"].remove(card_id)
                    p["discard"].append(card_id)
                g["ritual"]["chain"].append({"seat": seat, "card": card_id, "kind": "counter"})
                self.say(f"{self.name(seat)} counters with {card.name}")
                self.open_counter()
                return
        self.after_chain()

    def after_chain(self) -> None:
        self.lines += resolve_chain(self.c, self.g)
        self.next_ritual()

    def work(self, seat: int, words: Sequence[str]) -> None:
        g, c = self.g, self.c
        p = g["players"][seat]
        log = window(g)["log"]
        who = self.name(seat)
        verb = words[0]
        if verb == "play":
            card_id, k = words[1], int(words[2]) - 1
            card = c.cards[card_id]
            p["hand"].remove(card_id)
            p["slots"][k] = {"id": card_id, "left": list(card.symbols)}
            log.append(f"{who} plays {card.name} into slot {k + 1}")
            if card.manifest:
                log += apply_actions(c, g, seat, card.manifest, None)
        elif verb == "charm":
            card = c.cards[words[1]]
            p["hand"].remove(words[1])
            p["discard"].append(words[1])
            log.append(f"{who} uses the Charm of {card.name}")
            log += apply_actions(c, g, seat, card.charm, None)
        elif verb == "prop":
            k = int(words[1]) - 1
            chosen = list(words[2:]) or list(held(p, k)["left"])
            out = propagate(c, g, p, k, chosen)
            p["stage"] = "propagate"
            what = syms(out) if out else "nothing (a broken slot)"
            if len(p["cauldron"]) >= MAX_CAULDRON:
                what = f"{syms(out) or 'nothing'} (the cauldron is full: more is lost)"
            log.append(f"{who} propagates slot {k + 1}: {what} into the cauldron")
        elif verb == "boost":
            symbol = words[1]
            i = p["cauldron"].index(symbol)
            shape, value, colour = symbol[0], int(symbol[1:-1]), symbol[-1]
            p["cauldron"][i] = f"{shape}{value + 1}{colour}"
            p["charge"] -= 1
            p["stage"] = "propagate"
            log.append(f"{who} boosts {sym(symbol)} to {sym(p['cauldron'][i])}")
        elif verb == "brew":
            p["brewed"] += 1
            potion: Potion = {"n": p["brewed"], "symbols": canonical(p["cauldron"])}
            p["potions"].append(potion)
            p["cauldron"] = []
            log.append(f"{who} brews potion {potion['n']}: {syms(potion['symbols'])}")
        else:
            log.append(f"{who} is done")

    def after_work(self) -> None:
        g = self.g
        for seat in active(g):
            p = g["players"][seat]
            p["discard"] += p["hand"]
            p["hand"] = []
            for k, slot in enumerate(p["slots"]):
                if slot is not None and "spoils" in self.c.cards[slot["id"]].traits:
                    p["discard"].append(slot["id"])
                    p["slots"][k] = None
        for p in g["players"]:
            p["jammed"] = False
        if g["turn"] == 1:
            g["turn"] = 2
            self.start_turn()
        else:
            self.cleanup()
            self.start_market()

    def cleanup(self) -> None:
        g = self.g
        g["turn"] = 0
        for seat in active(g):
            p = g["players"][seat]
            p["charge"] = 0
            for k, slot in enumerate(p["slots"]):
                if slot is not None:
                    coin = self.c.cards[slot["id"]].coin
                    if coin is not None:
                        p["temp"] += coin
                    p["discard"].append(slot["id"])
                    p["slots"][k] = None
            p["cauldron"] = []
            p["deck"] = self.c.cat([*p["deck"], *p["hand"], *p["discard"]])
            p["hand"], p["discard"] = [], []

    # --- the Market ------------------------------------------------------------------------------

    def start_market(self) -> None:
        g = self.g
        g["market"] = {"order": turn_order(g), "pos": 0}
        for p in g["players"]:
            p["market_passed"] = False
        self.next_market()

    def can_act(self, seat: int) -> bool:
        g, c = self.g, self.c
        p = g["players"][seat]
        if any(sellable(c, g, potion["symbols"]) for potion in p["potions"]):
            return True
        money = funds(p)
        for kind in MARKET_KINDS:
            for row in g["rows"][kind].values():
                if any(i is not None and c.cost(i) <= money for i in row):
                    return True
        return False

    def next_market(self) -> None:
        g = self.g
        market = g["market"]
        order = market["order"]
        for _ in range(2 * len(order) + 1):
            live = [s for s in order if s not in g["out"] and not g["players"][s]["market_passed"]]
            if not live:
                break
            seat = order[market["pos"] % len(order)]
            market["pos"] = (market["pos"] + 1) % len(order)
            p = g["players"][seat]
            if seat in g["out"] or p["market_passed"]:
                continue
            if not self.can_act(seat):
                p["market_passed"] = True
                self.say(f"{self.name(seat)} has nothing to do in the Market and passes")
                continue
            self.open("market", [seat])
            return
        self.end_market()

    def market_default(self, seat: int) -> None:
        """§8 rule 4: sell every sellable potion at its best panel, in potion order."""
        p = self.g["players"][seat]
        for potion in list(p["potions"]):
            best = best_panel(sellable(self.c, self.g, potion["symbols"]))
            if best is not None:
                self.sell(seat, potion["n"], best[0])

    def sell(self, seat: int, n: int, panel_id: str) -> None:
        g = self.g
        p = g["players"][seat]
        potion = next(x for x in p["potions"] if x["n"] == n)
        pay = next(x for x in sellable(self.c, g, potion["symbols"]) if x[0] == panel_id)
        p["coins"] += pay[1]
        p["fame"] += pay[2]
        p["potions"].remove(potion)
        p["sales"].append({"potion": n, "panel": panel_id, "coins": pay[1], "fame": pay[2]})
        name = self.c.panels[panel_id].name
        self.say(
            f"{self.name(seat)} sells potion {n} ({syms(potion['symbols'])}) as {name}:"
            f" {pay[1]} coins, {pay[2]} fame"
        )

    def market(self, seat: int, words: Sequence[str]) -> None:
        g, c = self.g, self.c
        p = g["players"][seat]
        if words[0] == "sell":
            self.sell(seat, int(words[1]), words[2])
        elif words[0] == "buy":
            item = words[1]
            kind: MarketKind = "river" if item in c.cards else "tableau"
            cost = c.cost(item)
            for tier, row in g["rows"][kind].items():
                if item in row:
                    i = row.index(item)
                    deck = g["decks"][kind][tier]
                    row[i] = deck.pop(0) if deck else None
                    break
            paid_temp = min(p["temp"], cost)
            p["temp"] -= paid_temp
            p["coins"] -= cost - paid_temp
            if kind == "river":
                p["deck"] = c.cat([*p["deck"], item])
                self.say(f"{self.name(seat)} buys {c.cards[item].name} for {cost}")
                if len(words) > 3:
                    remove_card(p, words[3])
                    self.say(f"{self.name(seat)} trashes {c.cards[words[3]].name}")
            else:
                where = place_tile(c, p, item, self.cfg["slots"])
                self.say(
                    f"{self.name(seat)} buys {c.tiles[item].name} for {cost}; it goes to {where}"
                )
        else:
            p["market_passed"] = True
            self.say(f"{self.name(seat)} passes")

    def end_market(self) -> None:
        g = self.g
        for p in g["players"]:
            p["potions"] = []
            p["temp"] = 0
            p["market_passed"] = False
        sched = SCHEDULES[self.cfg["rounds"]]
        if g["round"] >= self.cfg["rounds"]:
            self.dissipate()  # §2.5.4: at the end of every round, the last one too
            self.game_over("all rounds played")
        elif self.cfg["bargain"] and g["round"] <= sched.bargain_last:
            g["bargain"] = {"order": turn_order(g), "idx": 0, "offer": None}
            self.next_offer()
        else:
            self.round_end()

    # --- the Bargain -----------------------------------------------------------------------------

    def next_offer(self) -> None:
        g = self.g
        bargain = g["bargain"]
        while bargain["idx"] < len(bargain["order"]):
            seat = bargain["order"][bargain["idx"]]
            if seat not in g["out"] and len(active(g)) > 1:
                self.open("offer", [seat])
                return
            bargain["idx"] += 1
        self.round_end()

    def reply(self, seat: int, word: str) -> None:
        g = self.g
        offer = g["bargain"]["offer"]
        assert offer is not None, "a reply window answers an offer"
        proposer = offer["from"]
        if word != "accept" or proposer in g["out"]:
            self.say(f"{self.name(seat)} refuses {self.name(proposer)}'s offer")
            return
        _, give, get = offer_parts(g, offer["text"])
        slots = self.cfg["slots"]
        a, b = g["players"][proposer], g["players"][seat]
        transfer(self.c, g, a, b, give, slots)
        transfer(self.c, g, b, a, get, slots)
        deal = f"{items_text(self.c, give)} for {items_text(self.c, get)}"
        self.say(f"{self.name(seat)} accepts {self.name(proposer)}'s offer ({deal})")

    # --- round end and game end -----------------------------------------------------------------

    def dissipate(self) -> None:
        """§10.1 step 1: each fume counter drops by ``fume_decay``, never below 0."""
        decay = self.cfg["fume_decay"]
        self.g["fumes"] = [max(0, f - decay) for f in self.g["fumes"]]

    def round_end(self) -> None:
        g = self.g
        self.dissipate()
        self.lines += unlocks_after(g, self.c, self.cfg, g["round"])
        n = len(g["players"])
        for k in range(1, n + 1):
            if (g["first"] + k) % n not in g["out"]:
                g["first"] = (g["first"] + k) % n
                break
        g["round"] += 1
        self.start_round()

    def game_over(self, reason: str) -> None:
        g = self.g
        g["over"], g["reason"], g["win"], g["turn"] = True, reason, None, 0
        live = active(g)
        players = g["players"]
        ranked = sorted(live, key=lambda s: (-players[s]["fame"], -players[s]["coins"], s))
        top = ranked[0]
        g["winners"] = [
            s
            for s in ranked
            if (players[s]["fame"], players[s]["coins"])
            == (players[top]["fame"], players[top]["coins"])
        ]
        g["standings"] = ranked + sorted(g["out"])
        winners = names_text([self.name(s) for s in g["winners"]])
        verb = "wins" if len(g["winners"]) == 1 else "share the victory"
        self.say(f"Game over ({reason}): {winners} {verb}.")
        for rank, s in enumerate(g["standings"], 1):
            self.say(
                f"{rank}. {self.name(s)}: {players[s]['fame']} fame, {players[s]['coins']} coins"
            )

    def leave(self, seat: int) -> None:
        g = self.g
        g["out"].append(seat)
        self.say(f"{self.name(seat)} leaves the match")
        live = active(g)
        if len(live) == 1:
            self.game_over("the other players left")
            return
        win = window(g)
        kind = win["kind"]
        if seat in win["prompted"] and seat not in win["finished"]:
            if kind == "hex":
                g["ritual"]["passed"] = True
            win["finished"].append(seat)
        offer = g["bargain"]["offer"]
        if kind == "reply" and offer is not None and offer["from"] == seat:
            win["finished"] = list(win["prompted"])
        if not self.pending():
            self.close()


def market_items(g: G, content: Content) -> list[tuple[str, str, int]]:
    """Open items: (kind, id, cost), distinct, rows in tier order."""
    seen: dict[str, tuple[str, str, int]] = {}
    for kind in MARKET_KINDS:
        for tier in sorted(g["rows"][kind]):
            for item in g["rows"][kind][tier]:
                if item is not None and item not in seen:
                    seen[item] = (kind, item, content.cost(item))
    return list(seen.values())
