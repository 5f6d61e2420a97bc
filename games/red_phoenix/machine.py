"""The rules machine: turns, actions, experiments, damage, trade and the hand limit (rules page
§2-§11), as a stack of plain-data frames in the state so that any window can open in the middle
of a resolution and the match goes on from the answer.

Frames (the innermost last): ``turn`` (phases slow, act, mon, limit, done), ``exp`` (one
experiment of the active seat; its progress lives in the lab entry), ``dmg`` (a damage event
and its ward windows), ``trade`` (the partner's answer), ``discard`` (a hand-limit discard).
``run`` advances frames until a window opens (``pending``) or the game ends.

Randomness comes from the chance source in the state (``chance``): a live match draws from its
seed (``derive_rng(seed, "chance", n)``) and records every outcome; a replayed script takes the
script's outcomes in order.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.protocol import ConfigError, derive_rng
from games.text import excerpt, names_text

from .cards import CardSet, Result
from .state import (
    DamageFrame,
    EndReason,
    Experiment,
    Formula,
    Frame,
    Game,
    Level,
    Monster,
    Player,
    State,
    Timer,
    TurnFrame,
    WindowKind,
    add,
    damage_frame,
    hand_list,
    remove,
)
from .words import card_name, cards_text, result_name

ROMAN: dict[int, Level] = {1: "I", 2: "II", 3: "III"}


class ScriptShort(ConfigError):
    """A script needs a random outcome it does not give, or gives an impossible one."""


class Run:
    """One resolution over a cloned state: ``g`` is changed in place; ``log`` collects the
    public lines, ``private`` each seat's, ``hands`` the seats whose hand changed."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.g: Game = state.g
        self.cs: CardSet = state.cards
        self.cfg = state.config
        self.names = state.names
        self.log: list[str] = []
        self.private: dict[int, list[str]] = {}
        self.hands: set[int] = set()
        self.turn_started = False  # a turn began in this resolution (its table is posted)

    # --- small helpers ---------------------------------------------------------------------

    def name(self, seat: int) -> str:
        return self.names[seat]

    def p(self, seat: int) -> Player:
        return self.g["players"][seat]

    def say(self, line: str) -> None:
        self.log.append(line)

    def tell(self, seat: int, line: str) -> None:
        self.private.setdefault(seat, []).append(line)

    def alive(self) -> list[int]:
        return [s for s, p in enumerate(self.g["players"]) if p["alive"]]

    def clockwise(self, start: int) -> list[int]:
        n = len(self.g["players"])
        return [(start + k) % n for k in range(n)]

    def next_living(self, seat: int) -> int:
        n = len(self.g["players"])
        for k in range(1, n + 1):
            s = (seat + k) % n
            if self.g["players"][s]["alive"]:
                return s
        return seat

    def to_origin(self, card: str, n: int = 1) -> None:
        self.state.pile(card)[card] += n

    def from_origin(self, card: str) -> bool:
        """Take one card from its origin; False when none is left."""
        pile = self.state.pile(card)
        if pile.get(card, 0) <= 0:
            return False
        pile[card] -= 1
        return True

    def give(self, seat: int, card: str, n: int = 1) -> None:
        add(self.p(seat)["hand"], card, n)
        self.hands.add(seat)

    def take(self, seat: int, card: str, n: int = 1) -> None:
        remove(self.p(seat)["hand"], card, n)
        self.hands.add(seat)

    def hand_size(self, seat: int) -> int:
        return sum(self.p(seat)["hand"].values())

    def markers_free(self, seat: int) -> int:
        p = self.p(seat)
        if not p["alive"]:
            return 0
        return self.cfg["formula_markers"] - len(p["knows"]) - len(p["lab"])

    def formula(self, fid: str) -> Formula | None:
        return next((f for f in self.g["formulas"] if f["id"] == fid), None)

    def monster(self, mid: str) -> Monster | None:
        return next((m for m in self.g["monsters"] if m["id"] == mid), None)

    def discard_result(self, level: str, card: str) -> None:
        self.g["discards"][level].append(card)

    def push(self, frame: Frame) -> None:
        self.g["stack"].append(frame)

    def open(self, seat: int, kind: WindowKind, timer: Timer = "turn") -> None:
        self.g["pending"] = {"seat": seat, "kind": kind, "timer": timer}

    # --- chance -------------------------------------------------------------------------------

    def _rng_next(self, seed: int) -> random.Random:
        chance = self.g["chance"]
        rng = derive_rng(seed, "chance", chance["n"])
        chance["n"] += 1
        return rng

    def reshuffle(self, level: str, pile: list[str]) -> list[str]:
        """The new deck order (top first) of a reshuffled discard pile."""
        chance = self.g["chance"]
        if chance["seed"] is not None:
            order = sorted(pile)
            self._rng_next(chance["seed"]).shuffle(order)
            chance["reshuffles"][level].append(order)
            return list(order)
        index = chance["ri"][level]
        orders = chance["reshuffles"][level]
        where = f"reshuffles.{level}[{index}]"
        if index >= len(orders):
            raise ScriptShort(
                where, f"the level {level} deck is reshuffled here; the script gives no order"
            )
        order = orders[index]
        if (
            not isinstance(order, list)
            or sorted(map(str, order)) != sorted(pile)
            or not all(isinstance(c, str) for c in order)
        ):
            raise ScriptShort(where, f"must hold exactly the discard pile {sorted(pile)}")
        chance["ri"][level] = index + 1
        return list(order)

    def pick(self, seat: int) -> str:
        """A random card of ``seat``'s hand (steal, random discard)."""
        hand = self.p(seat)["hand"]
        chance = self.g["chance"]
        if chance["seed"] is not None:
            card = self._rng_next(chance["seed"]).choice(hand_list(hand))
            chance["picks"].append(card)
            return card
        index = chance["pi"]
        where = f"picks[{index}]"
        if index >= len(chance["picks"]):
            raise ScriptShort(
                where,
                f"a random card of {self.name(seat)}'s hand is taken here; the script gives none",
            )
        card = chance["picks"][index]
        if not isinstance(card, str) or hand.get(card, 0) <= 0:
            raise ScriptShort(
                where,
                f"{excerpt(card)} is not in {self.name(seat)}'s hand {excerpt(hand_list(hand))}",
            )
        chance["pi"] = index + 1
        return card

    # --- the loop ----------------------------------------------------------------------------

    def run(self) -> None:
        g = self.g
        while not g["over"] and g["pending"] is None:
            stack = g["stack"]
            if not stack:
                self.start_turn()
                continue
            frame = stack[-1]
            if frame["f"] == "turn":
                self.step_turn(frame)
            elif frame["f"] == "exp":
                self.step_exp(frame["seat"], frame["uid"])
            elif frame["f"] == "dmg":
                self.step_dmg(frame)
            elif frame["f"] == "trade":
                self.open(frame["to"], "trade_response", "reaction")
            else:  # discard
                self.open(frame["seat"], "discard", frame["timer"])

    def start_turn(self) -> None:
        g = self.g
        seat = g["first"] if g["turn"] == 0 else self.next_living(g["active"])
        player = self.p(seat)
        if player["turns"] >= self.cfg["max_rounds"]:
            self.finish(self.alive(), "round_limit")
            self.say(f"The round limit ({self.cfg['max_rounds']} turns each) ends the game.")
            return
        g["turn"] += 1
        g["active"] = seat
        player["turns"] += 1
        g["ap"] = self.cfg["ap_per_turn"]
        g["boost"] = 0
        for p in g["players"]:
            p["used"] = []
        g["rec"] = {"repro": [], "lic": [], "offers": 0, "traded": False}
        self.say(f"Turn {g['turn']}: {self.name(seat)}'s turn.")
        self.turn_started = True
        self.push({"f": "turn", "seat": seat, "phase": "slow"})

    def step_turn(self, frame: TurnFrame) -> None:
        seat = frame["seat"]
        phase = frame["phase"]
        if phase == "slow":
            for exp in self.p(seat)["lab"]:
                if exp["status"] == "waiting":
                    exp["status"] = "draw"
                    self.push({"f": "exp", "seat": seat, "uid": exp["uid"]})
                    return
            frame["phase"] = "act"
        elif phase == "act":
            self.open(seat, "action")
        elif phase == "mon":
            self.step_monsters(frame, seat)
        elif phase == "limit":
            frame["phase"] = "done"
            excess = self.hand_size(seat) - self.cfg["hand_limit"]
            if excess > 0:
                self.push({"f": "discard", "seat": seat, "timer": "turn", "n": excess})
        else:
            self.g["stack"].pop()

    def step_monsters(self, frame: TurnFrame, seat: int) -> None:
        g = self.g
        if "todo" not in frame:
            frame["todo"] = [
                m["id"] for m in g["monsters"] if m["owner"] == seat and m["arrived"] != g["turn"]
            ]
            frame["cur"] = None
        current = frame.get("cur")
        if current is not None:
            m = self.monster(current)
            frame["cur"] = None
            if m is not None:
                m["attacks_left"] -= 1
                if m["attacks_left"] <= 0:
                    self.drop_monster(m, "after its last attack")
        while frame["todo"]:
            mid = frame["todo"].pop(0)
            m = self.monster(mid)
            if m is None:
                continue
            frame["cur"] = mid
            self.say(f"{mid} ({self.cs.results[m['level']][m['card']].name}) attacks.")
            self.monster_attack(m)
            return
        del frame["todo"], frame["cur"]
        frame["phase"] = "limit"

    def drop_monster(self, m: Monster, why: str) -> None:
        self.g["monsters"].remove(m)
        self.discard_result(m["level"], m["card"])
        self.say(f"{m['id']} is discarded ({why}).")

    def monster_attack(self, m: Monster) -> None:
        owner = m["owner"]
        amounts = [0] * len(self.g["players"])
        amounts[owner] += m["damage"]
        for s in self.most_cards(owner):
            amounts[s] += m["damage"]
        self.damage(owner, amounts, f"{m['id']}'s attack")

    def most_cards(self, seat: int) -> list[int]:
        """The other living seat(s) with the most cards in hand (all tied)."""
        others = [s for s in self.alive() if s != seat]
        if not others:
            return []
        top = max(self.hand_size(s) for s in others)
        return [s for s in others if self.hand_size(s) == top]

    # --- experiments -------------------------------------------------------------------------

    def lab_entry(self, seat: int, uid: int) -> Experiment:
        for exp in self.p(seat)["lab"]:
            if exp["uid"] == uid:
                return exp
        raise ValueError(f"no experiment {uid}")

    def step_exp(self, seat: int, uid: int) -> None:
        exp = self.lab_entry(seat, uid)
        status = exp["status"]
        if status == "draw":
            self.draw(exp)
            method = self.cs.methods[exp["method"]]
            n = len(exp["drawn"])
            lo, hi = min(method.keep_min, n), min(method.keep_max, n)
            if lo < n:
                exp["status"] = "keep"
                exp["keep"] = [lo, hi]
                self.open(seat, "keep")
                return
            exp["kept"], exp["status"] = list(exp["drawn"]), "play"
        elif status == "play":
            self.play_next(seat, exp)
        elif status == "done":
            self.finish_exp(seat, exp)
            self.g["stack"].pop()

    def draw(self, exp: Experiment) -> None:
        level = ROMAN[exp["level"]]
        deck = self.g["decks"][level]
        count = self.cs.methods[exp["method"]].draw
        drawn: list[str] = []
        for _ in range(count):
            if not deck:
                pile = self.g["discards"][level]
                if not pile:
                    self.say(
                        f"The level {level} deck and its discard pile are empty: drawing stops."
                    )
                    break
                order = self.reshuffle(level, pile)
                pile.clear()
                deck.extend(order)
                self.say(f"The level {level} discard pile is shuffled into a new deck.")
            drawn.append(deck.pop(0))
        exp["drawn"] = drawn
        self.g["drawn"].extend([level, card] for card in drawn)
        shown = names_text([self.result_name(level, card) for card in drawn]) or "nothing"
        self.say(f"{self.name(self.g['active'])} draws {shown} (level {level}).")

    def keep(self, seat: int, exp: Experiment, positions: Sequence[int]) -> None:
        level = ROMAN[exp["level"]]
        kept = []
        for i, card in enumerate(exp["drawn"]):
            if i + 1 in positions:
                kept.append(card)
            else:
                self.discard_result(level, card)
        exp["kept"], exp["status"] = kept, "play"
        del exp["keep"]
        shown = names_text([self.result_name(level, card) for card in kept])
        self.say(f"{self.name(seat)} keeps {shown}.")

    def play_next(self, seat: int, exp: Experiment) -> None:
        """Finish what the card played last left pending, then play the next kept card
        (§5.6), or mark the experiment done."""
        post = exp.pop("post", None)
        if post is not None:
            self.after_card(seat, post)
        if exp["pos"] >= len(exp["kept"]):
            exp["status"] = "done"
            return
        card = exp["kept"][exp["pos"]]
        exp["pos"] += 1
        result = self.cs.results[ROMAN[exp["level"]]][card]
        if result.kind == "success":
            self.play_success(seat, exp, result)
        elif result.kind == "simple":
            self.play_simple(seat, exp, result)
        elif result.kind == "catastrophe":
            self.play_catastrophe(seat, exp, result)
        else:
            self.play_monster(seat, exp, result)

    def after_card(self, seat: int, post: list[str | int]) -> None:
        """A catastrophe's random discards, once its damage is done; a monster without
        attacks left goes after its arrival attack."""
        if post[0] == "discard":
            for _ in range(int(post[1])):
                if not self.p(seat)["hand"]:
                    break
                card = self.pick(seat)
                self.take(seat, card)
                self.to_origin(card)
                self.say(f"{self.name(seat)} discards {card_name(self.cs, card)} at random.")
            return
        m = self.monster(str(post[1]))
        if m is not None and m["attacks_left"] <= 0:
            self.drop_monster(m, "no attacks left")

    def play_success(self, seat: int, exp: Experiment, result: Result) -> None:
        card, level, who = result.id, result.level, self.name(seat)
        product = self.product(level, card)
        shown, made = result_name(self.cs, result), card_name(self.cs, product)
        if exp["value"] < result.score:
            self.discard_result(level, card)
            self.say(f"{shown}: not met (value {exp['value']} < {result.score}); discarded.")
            return
        taken = self.from_origin(product)
        if taken:
            self.give(seat, product)
            exp["gained"] = True
        self.say(
            f"{shown}: met! {who} takes {made}."
            if taken
            else f"{shown}: met, but no {made} is left."
        )
        exp["met"].append(card)
        if self.cs.ingredients[product].wins:
            self.say(f"{who} has made {self.cs.ingredients[product].name} and wins!")
            self.finish([seat], "gold")

    def play_simple(self, seat: int, exp: Experiment, result: Result) -> None:
        card, gain = result.id, result.gain
        self.discard_result(result.level, card)
        if self.cfg["simple_failure"] == "market" and gain is not None and self.from_origin(gain):
            self.give(seat, gain)
            exp["gained"] = True
            self.say(
                f"{result_name(self.cs, result)}: {self.name(seat)} takes"
                f" {card_name(self.cs, gain)} from the market."
            )
        else:
            self.say(f"{result_name(self.cs, result)}: no effect.")

    def play_catastrophe(self, seat: int, exp: Experiment, result: Result) -> None:
        self.discard_result(result.level, result.id)
        amounts = [0] * len(self.g["players"])
        amounts[seat] += result.self_damage
        if result.others_damage:
            for s in self.alive():
                if s != seat:
                    amounts[s] += result.others_damage
        if result.most_damage:
            for s in self.most_cards(seat):
                amounts[s] += result.most_damage
        self.say(f"{result.name}: a catastrophe.")
        if result.discard_random:
            exp["post"] = ["discard", result.discard_random]
        self.damage(seat, amounts, result.name)

    def play_monster(self, seat: int, exp: Experiment, result: Result) -> None:
        mid = f"M{self.g['nm']}"
        self.g["nm"] += 1
        m: Monster = {
            "id": mid,
            "card": result.id,
            "level": ROMAN[exp["level"]],
            "owner": seat,
            "hp": result.hp,
            "attacks_left": self.cfg["monster_attacks"],
            "arrived": self.g["turn"],
            "damage": result.damage,
        }
        self.g["monsters"].append(m)
        self.say(
            f"{result.name}: a monster! {mid} {result.name} (Health {result.hp},"
            f" attacks for {result.damage}) arrives before {self.name(seat)}."
        )
        exp["post"] = ["monster", mid]
        self.monster_attack(m)

    def result_name(self, level: str, card: str) -> str:
        return result_name(self.cs, self.cs.results[level][card])

    def product(self, level: str, card: str) -> str:
        """The product of a success card."""
        product = self.cs.results[level][card].product
        assert product is not None, card
        return product

    def finish_exp(self, seat: int, exp: Experiment) -> None:
        player = self.p(seat)
        player["lab"].remove(exp)
        who = self.name(seat)
        level = ROMAN[exp["level"]]
        if exp["met"]:
            fid = f"F{self.g['nf']}"
            self.g["nf"] += 1
            self.g["formulas"].append(
                {
                    "id": fid,
                    "creator": seat,
                    "level": exp["level"],
                    "value": exp["value"],
                    "ingredients": list(exp["cards"]),
                    "results": list(exp["met"]),
                    "products": [self.product(level, c) for c in exp["met"]],
                    "knowers": [seat],
                    "license": None,
                    "created": self.g["turn"],
                }
            )
            player["knows"].append(fid)
            made = self.g["formulas"][-1]
            self.say(
                f"{who} creates formula {fid}: {cards_text(self.cs, made['ingredients'])}"
                f" → {cards_text(self.cs, made['products'])}."
            )
        else:
            for card in exp["cards"]:
                self.to_origin(card)
            self.say(f"{who}'s experiment fails; its ingredients go back.")
        due = not exp["gained"] if self.cfg["consolation_rule"] == "no_card" else not exp["met"]
        consolation = self.cs.consolation
        if due and consolation is not None and self.from_origin(consolation):
            self.give(seat, consolation)
            self.say(f"{who} takes {card_name(self.cs, consolation)} as consolation.")

    # --- damage and elimination ----------------------------------------------------------------

    def damage(self, start: int, amounts: list[int], source: str) -> None:
        order = [s for s in self.clockwise(start) if amounts[s] > 0 and self.p(s)["alive"]]
        self.push(
            {
                "f": "dmg",
                "start": start,
                "amt": amounts,
                "order": order,
                "i": 0,
                "warded": [],
                "src": source,
            }
        )

    def ward_card(self, seat: int) -> str | None:
        player = self.p(seat)
        card: str
        for card in sorted(player["hand"]):
            if self.cs.ingredients[card].effect == "ward" and card not in player["used"]:
                return card
        return None

    def step_dmg(self, frame: DamageFrame) -> None:
        order = frame["order"]
        while frame["i"] < len(order):
            seat = order[frame["i"]]
            if self.p(seat)["alive"] and self.ward_card(seat) is not None:
                self.open(seat, "ward", "reaction")
                return
            frame["i"] += 1
        self.g["stack"].pop()
        lost = []
        parts = []
        for seat in self.clockwise(frame["start"]):
            amount = frame["amt"][seat]
            if amount <= 0 or not self.p(seat)["alive"] or seat in frame["warded"]:
                continue
            self.p(seat)["health"] -= amount
            lost.append(seat)
            parts.append(f"{self.name(seat)} loses {amount}")
        if parts:
            self.say(f"{frame['src']}: {'; '.join(parts)}.")
        dead = [s for s in lost if self.p(s)["health"] <= 0]
        if dead:
            self.eliminate(dead)

    def answer_ward(self, seat: int, ward: bool) -> None:
        frame = damage_frame(self.g)
        if ward:
            card = self.ward_card(seat)
            assert card is not None
            self.take(seat, card)
            self.to_origin(card)
            self.p(seat)["used"].append(card)
            frame["warded"].append(seat)
            self.say(f"{self.name(seat)} wards with {card_name(self.cs, card)} and loses nothing.")
        else:
            self.say(f"{self.name(seat)} does not ward.")
        frame["i"] += 1

    def eliminate(self, seats: Sequence[int], left: bool = False) -> None:
        """§9.2 for each seat, in the order given (clockwise from the event's start seat)."""
        g = self.g
        for seat in seats:
            player = self.p(seat)
            player["alive"] = False
            self.say(f"{self.name(seat)} {'leaves the game' if left else 'is eliminated'}.")
            for card, n in list(player["hand"].items()):
                self.to_origin(card, n)
            player["hand"] = {}
            self.hands.add(seat)
            player["coins"] = 0
            for exp in player["lab"]:
                level = ROMAN[exp["level"]]
                for card in exp["cards"]:
                    self.to_origin(card)
                if exp["status"] == "keep":
                    unplayed = list(exp["drawn"])
                elif exp["status"] in ("play", "done"):
                    unplayed = list(exp["kept"][exp["pos"] :])
                else:
                    unplayed = []
                for card in [*exp["met"], *unplayed]:
                    self.discard_result(level, card)
            player["lab"] = []
            for m in [m for m in g["monsters"] if m["owner"] == seat]:
                self.drop_monster(m, "its owner is out")
            for f in list(g["formulas"]):
                if seat in f["knowers"]:
                    f["knowers"].remove(seat)
                if f["creator"] == seat:
                    f["creator"], f["license"] = None, None
                if not f["knowers"]:
                    self.remove_formula(f, keep_for=None)
            player["knows"] = []
        alive = self.alive()
        if not alive:
            self.finish(sorted(seats), "last_alive")
        elif len(alive) == 1:
            self.finish(alive, "last_alive")
        elif g["active"] in seats:
            g["stack"] = []
            g["pending"] = None

    def remove_formula(self, f: Formula, keep_for: int | None) -> None:
        g = self.g
        g["formulas"].remove(f)
        level = ROMAN[f["level"]]
        for card in f["results"]:
            self.discard_result(level, card)
        for card in f["ingredients"]:
            if keep_for is None:
                self.to_origin(card)
            else:
                self.give(keep_for, card)
        for seat in f["knowers"]:
            self.p(seat)["knows"].remove(f["id"])
        f["knowers"] = []

    def finish(self, winners: Sequence[int], reason: EndReason) -> None:
        g = self.g
        g["over"], g["winners"], g["end_reason"] = True, sorted(winners), reason
        g["pending"] = None
        g["stack"] = []
