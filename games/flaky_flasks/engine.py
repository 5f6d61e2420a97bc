"""The Flaky Flasks engine: protocol v2 on top of the flow (``flow.py``) and the answers
(``answers.py``). The state is plain JSON: ``{"config": ..., "ckey": ..., "g": {...}}``."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from games.protocol import (
    JSON,
    MODERATORS,
    PUBLIC,
    Accepted,
    Choice,
    ConfigError,
    Event,
    Move,
    Outcome,
    Refused,
    Request,
    Secret,
    Setup,
    Verdict,
    derive_rng,
    to_seat,
)

from . import config as options
from .answers import Bad, check, hex_options
from .content import Content
from .flow import Flow, fresh, market_items
from .render import board, hand_text, public_board, public_player, syms, table
from .rules import (
    P,
    active,
    best_panel,
    can_counter,
    collection,
    funds,
    owned_tiles,
    propagate_preview,
    sellable,
    window,
)
from .state import Chance, Config, G, State

DEFAULTS_TEXT = {
    "setup": "keep your layout",
    "hex": "pass",
    "counter": "pass",
    "work": "done (what you did stands)",
    "market": "sell every sellable potion at its best panel, then pass",
    "offer": "pass",
    "reply": "refuse",
}
PHASES = {
    "setup": "Setup Phase",
    "hex": "Ritual",
    "counter": "Ritual",
    "work": "work",
    "market": "Market Phase",
    "offer": "Bargain Phase",
    "reply": "Bargain Phase",
}
TIMER = {"counter": "reaction"}  # every other window: "turn" (its own length, below)


def copy_g(g: G) -> G:
    """A deep copy of the game data (plain JSON), faster than ``copy.deepcopy``."""
    copied: G = json.loads(json.dumps(g))
    return copied


def content_of(state: State) -> Content:
    return options.content_for(state["config"], state["ckey"])


class FlakyFlasks:
    name = "flaky-flasks"
    title = "Flaky Flasks"
    min_seats = 2
    max_seats = 4

    def parse_config(self, raw: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        return options.parse_config(raw, seats)

    def new_match(self, setup: Setup) -> tuple[State, list[Event]]:
        names = list(setup.names) or [f"P{s + 1}" for s in range(setup.seats)]
        config = options.typed(options.parse_config(setup.config, setup.seats))
        seed = options.match_seed(config, setup.seed)  # the ``seed`` option, else the host's
        first = derive_rng(seed, "first").randrange(setup.seats)
        return start(config, names, {"seed": seed}, first, None)

    # --- requests and answers ------------------------------------------------------------------

    def requests(self, state: State) -> list[Request]:
        g = state["g"]
        if g["over"] or g["win"] is None:
            return []
        flow = Flow(content_of(state), state["config"], g)
        return [self._request(state, seat) for seat in flow.pending()]

    def _request(self, state: State, seat: int) -> Request:
        g, config = state["g"], state["config"]
        win = window(g)
        kind = win["kind"]
        choices, prompt = self._choices(state, seat)
        timeout = {
            "counter": config["reaction_window_s"],
            "work": config["work_window_s"],
        }.get(kind, config["window_s"])
        clock = win["label"] if kind in ("work", "market") else None
        head = f"Flaky Flasks {win['label']} ({kind}), {g['names'][seat]}."
        text = f"{head}\n{prompt}"
        if len(text) > 1400:
            text = text[:1399] + "…"
        return Request(
            seat,
            kind,
            text,
            tuple(choices),
            DEFAULTS_TEXT[kind],
            float(timeout),
            occasion=win["label"],
            timer=TIMER.get(kind, "turn"),
            clock=clock,
            presentation={
                "play": "menu",
                "buy": "menu",
                "trash": "menu",
                "sell": "menu",
                "hex": "menu",
                "offer": "menu",
                "layout": "menu",
            },
        )

    def _choices(self, state: State, seat: int) -> tuple[list[Choice], str]:
        g, content = state["g"], content_of(state)
        kind = window(g)["kind"]
        p = g["players"][seat]
        out: list[Choice] = []
        prompt = ""
        if kind == "setup":
            out.append(Choice("keep", "Keep my layout"))
            out += _layout_choices(content, state["config"], p)
            prompt = "\n".join(
                [
                    *board(content, g, seat),
                    "Rearrange your tiles (layout 1=pipe,kiln 2=prism@G …) or keep them:"
                    " channels not named become empty, unplaced tiles are spare.",
                    _deck_line(p),
                ]
            )
        elif kind == "hex":
            out += [Choice(v, v, "hex") for v in hex_options(content, g, seat)]
            out.append(Choice("pass", "Pass (end my Ritual)"))
            prompt = (
                f"Ritual: activate a Hex from your hand or pass. {hand_text(content, p['hand'])}"
            )
        elif kind == "counter":
            top = g["ritual"]["chain"][-1]
            card = content.cards[top["card"]]
            out += [
                Choice(f"counter {c}", f"Counter with {content.cards[c].name}"[:80])
                for c in can_counter(content, p)
            ]
            out.append(Choice("pass", "Pass"))
            prompt = (
                f"{g['names'][top['seat']]}'s {card.name} is about to resolve. Counter it or pass."
            )
        elif kind == "work":
            out, prompt = self._work_choices(state, seat)
        elif kind == "market":
            out, prompt = self._market_choices(state, seat)
        elif kind == "offer":
            out.append(Choice("pass", "No offer"))
            out += _offer_choices(content, g, seat)
            prompt = (
                "Bargain: offer <player> give <items> get <items>"
                " (items: 3c, card:<id>, tile:<id>), or pass. The menu offers coins at the"
                f" market price for one card or tile; you have {p['coins']} coins."
            )
        elif kind == "reply":
            offer = g["bargain"]["offer"]
            assert offer is not None, "a reply window answers an offer"
            out += [Choice("accept", "Accept"), Choice("refuse", "Refuse")]
            prompt = f"{g['names'][offer['from']]} proposes: {offer['text']}"
        return out, prompt

    def _work_choices(self, state: State, seat: int) -> tuple[list[Choice], str]:
        g, config, content = state["g"], state["config"], content_of(state)
        p = g["players"][seat]
        out: list[Choice] = []
        if p["stage"] == "play":
            free = [k for k in range(config["slots"]) if p["slots"][k] is None]
            for card_id in dict.fromkeys(p["hand"]):
                card = content.cards[card_id]
                for k in free:
                    tag = "" if p["channels"][k] else " (broken)"
                    out.append(
                        Choice(
                            f"play {card_id} {k + 1}",
                            f"Play {card.name} into slot {k + 1}{tag}"[:80],
                            "play",
                        )
                    )
                if card.charm:
                    out.append(Choice(f"charm {card_id}", f"Charm: {card.name}"[:80], "charm"))
        for k, slot in enumerate(p["slots"]):
            if slot is not None and slot["left"]:
                out.append(Choice(f"prop {k + 1}", f"Propagate slot {k + 1}", "prop"))
                if "fractured" in content.cards[slot["id"]].traits and len(set(slot["left"])) > 1:
                    for symbol in sorted(set(slot["left"])):
                        out.append(
                            Choice(
                                f"prop {k + 1} {symbol}",
                                f"Propagate {symbol} from slot {k + 1}",
                                "prop",
                            )
                        )
        if p["charge"] >= 1:
            for symbol in sorted(set(p["cauldron"])):
                if int(symbol[1:-1]) < 12:
                    out.append(Choice(f"boost {symbol}", f"Boost {symbol} (+1, 1 Charge)", "boost"))
        if len(p["cauldron"]) >= 2:
            out.append(Choice("brew", "Brew the cauldron"))
        out.append(Choice("done", "Done"))
        previews = []
        for k, slot in enumerate(p["slots"]):
            if slot is not None and slot["left"]:
                got, charge = propagate_preview(content, g, p, k, slot["left"])
                extra = f" (+{charge} Charge)" if charge else ""
                previews.append(f"prop {k + 1} → {syms(got) if got else 'voided'}{extra}")
        empty = [str(k + 1) for k in range(len(p["slots"])) if p["slots"][k] is None]
        connected = [k for k in empty if p["channels"][int(k) - 1]]
        lines = [*board(content, g, seat), hand_text(content, p["hand"])]
        lines.append(f"Stage: {p['stage']}. Free slots: {', '.join(empty) or 'none'}"
                     f" (connected: {', '.join(connected) or 'none'}).")  # fmt: skip
        lines += previews
        return out, "\n".join(lines)

    def _market_choices(self, state: State, seat: int) -> tuple[list[Choice], str]:
        g, content = state["g"], content_of(state)
        p = g["players"][seat]
        out: list[Choice] = []
        lines = [f"Funds {funds(p)} ({p['temp']} temporary first)."]
        for potion in p["potions"]:
            options_ = sellable(content, g, potion["symbols"])
            best = best_panel(options_)
            for pid, coins, fame in options_:
                mark = " ★" if best is not None and pid == best[0] else ""
                out.append(
                    Choice(
                        f"sell {potion['n']} {pid}",
                        f"Sell #{potion['n']} as {content.panels[pid].name}:"
                        f" {coins}c {fame} fame{mark}"[:80],
                        "sell",
                    )
                )
            lines.append(f"Potion {potion['n']}: {syms(potion['symbols'])}")
        money = funds(p)
        mine = sorted(set(collection(p)), key=content.card_rank.__getitem__)
        for kind, item, cost in market_items(g, content):
            if cost > money:
                continue
            name = content.cards[item].name if kind == "river" else content.tiles[item].name
            out.append(Choice(f"buy {item}", f"Buy {name} ({cost})"[:80], "buy"))
            if kind == "river":
                # the useful trashes: a starter card, or the card itself (any card may be typed)
                starters = [c for c in mine if content.cards[c].tier == 0]
                for trash in sorted({*starters, item}, key=content.card_rank.__getitem__):
                    out.append(
                        Choice(
                            f"buy {item} trash {trash}",
                            f"Buy {name}, trash {content.cards[trash].name}"[:80],
                            "trash",
                        )
                    )
        out.append(Choice("pass", "Pass (leave the Market)"))
        return out, "\n".join(lines)

    def submit(self, state: State, seat: int, raw: str) -> Verdict:
        g = state["g"]
        if g["over"] or g["win"] is None:
            return Refused("The match is over.")
        flow = Flow(content_of(state), state["config"], g)
        if seat not in flow.pending():
            return Refused("Nothing is asked of you now.")
        if not isinstance(raw, str):
            return Refused("Send a text answer.")
        try:
            move = check(content_of(state), state["config"], g, seat, window(g)["kind"], raw)
        except Bad as bad:
            return Refused(str(bad))
        return Accepted(move, f"Accepted: {move}")

    def resolve(self, state: State, moves: Mapping[int, Move | None]) -> tuple[State, list[Event]]:
        g = copy_g(state["g"])
        before = {s: list(p["hand"]) for s, p in enumerate(g["players"])}
        phase = phase_of(g)
        flow = Flow(content_of(state), state["config"], g)
        flow.resolve({seat: (m if isinstance(m, str) else None) for seat, m in moves.items()})
        g["steps"] += 1
        new: State = {"config": state["config"], "ckey": state["ckey"], "g": g}
        return new, self._events(new, flow, before, phase)

    def _events(
        self,
        state: State,
        flow: Flow,
        before: Mapping[int, list[str]],
        phase: tuple[int, int, str] | None = None,
    ) -> list[Event]:
        g, content = state["g"], content_of(state)
        events = []
        if flow.lines:
            text = "\n".join(flow.lines)
            if len(text) > 1700:
                text = text[:1699] + "…"
            events.append(
                Event(PUBLIC, "report", {"lines": list(flow.lines), "round": g["round"]}, text)
            )
        now = phase_of(g)
        if now != phase and not g["over"]:  # a new phase: the table, once, in public
            summary = table_summary(content, g, state["config"]["rounds"])
            events.append(
                Event(
                    PUBLIC,
                    "table",
                    {"summary": summary, "round": now[0], "phase": now[2]},
                    summary,
                )
            )
        for seat, p in enumerate(g["players"]):
            if p["hand"] != before.get(seat) and seat not in g["out"]:
                events.append(
                    Event(
                        to_seat(seat),
                        "hand",
                        {"hand": list(p["hand"])},
                        hand_text(content, p["hand"]),
                    )
                )
        hands = {g["names"][s]: list(p["hand"]) for s, p in enumerate(g["players"])}
        decks = {g["names"][s]: list(p["deck"]) for s, p in enumerate(g["players"])}
        events.append(
            Event(
                MODERATORS,
                "hidden",
                {"hands": hands, "decks": decks},
                f"Hands: {json.dumps(hands)}"[:1800],
            )
        )
        if g["over"]:
            winners = [g["names"][s] for s in g["winners"]]
            events.append(
                Event(
                    PUBLIC, "over", {"winners": winners}, f"Game over: {' and '.join(winners)} win."
                )
            )
        return events

    def end(self, state: State, reason: str) -> tuple[State, list[Event]]:
        g = copy_g(state["g"])
        flow = Flow(content_of(state), state["config"], g)
        if not g["over"]:
            flow.game_over(f"ended by {reason}")
        new: State = {"config": state["config"], "ckey": state["ckey"], "g": g}
        return new, self._events(new, flow, {})

    def leave(self, state: State, seat: int) -> tuple[State, list[Event]]:
        g = state["g"]
        if g["over"] or not 0 <= seat < len(g["players"]) or seat in g["out"]:
            raise ValueError(f"seat {seat} cannot leave now")
        g = copy_g(g)
        before = {s: list(p["hand"]) for s, p in enumerate(g["players"])}
        phase = phase_of(g)
        flow = Flow(content_of(state), state["config"], g)
        flow.leave(seat)
        g["steps"] += 1
        new: State = {"config": state["config"], "ckey": state["ckey"], "g": g}
        return new, self._events(new, flow, before, phase)

    def outcome(self, state: State) -> Outcome | None:
        g = state["g"]
        if not g["over"]:
            return None
        return Outcome(tuple(g["winners"]), g["reason"])

    # --- what people see ------------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> JSON:
        g, content = state["g"], content_of(state)
        win = g["win"]
        view: dict[str, Any] = {
            "turn": g["steps"],
            "round": g["round"],
            "rounds": state["config"]["rounds"],
            "phase_turn": g["turn"],
            "first_player": g["names"][g["first"]],
            "window": None if win is None else {"kind": win["kind"], "label": win["label"]},
            "fumes": {"light": g["fumes"][0], "dark": g["fumes"][1]},
            "panels": list(g["panels"]),
            "river": g["rows"]["river"],
            "tableau": g["rows"]["tableau"],
            "players": [public_player(content, g, s) for s in range(len(g["players"]))],
            "chain": g["ritual"]["chain"],
            "over": g["over"],
            "winners": [g["names"][s] for s in g["winners"]],
            "config": state["config"],
            "content_key": state["ckey"],
        }
        if seat is not None:
            p = g["players"][seat]
            view["seat"] = seat
            view["me"] = {"hand": list(p["hand"]), "deck": content.cat(list(p["deck"]))}
        return view

    def describe(self, state: State, seat: int | None) -> str:
        g, content = state["g"], content_of(state)
        lines = [table(content, g)]
        for s in range(len(g["players"])):
            lines += board(content, g, s)
        if seat is not None:
            p = g["players"][seat]
            lines.append(hand_text(content, p["hand"]))
        return "\n".join(lines)

    def secrets(self, state: State, seat: int) -> Collection[Secret]:
        hand = state["g"]["players"][seat]["hand"]
        if not hand:
            return []
        content = content_of(state)
        return [Secret((hand_text(content, hand),), ({"hand": list(hand)},))]

    def dump(self, state: State) -> JSON:
        return state

    def load(self, data: JSON) -> State:
        loaded: State = copy.deepcopy(data)
        return loaded


def _layout_text(channels: Sequence[Sequence[str]]) -> str:
    """A layout answer in the form the engine accepts it: ``layout 1=pipe,kiln 3=prism@G``."""
    parts = [f"{k + 1}={','.join(ch)}" for k, ch in enumerate(channels) if ch]
    return " ".join(["layout", *parts])


def _layout_choices(content: Content, config: Config, p: P) -> list[Choice]:
    """Complete layouts a player can pick from a menu (any other is typed): the tiles spread
    over the channels, dearest first; chained into as few channels as possible; and the current
    layout with one tile's setting changed. Settings stay as they are (a spare tile: its first)."""
    slots, length = config["slots"], config["channel_length"]
    current = [list(ch) for ch in p["channels"]]
    specs = [spec for ch in current for spec in ch]
    for tile in p["spare"]:
        settings = content.tiles[tile].settings
        specs.append(f"{tile}@{settings[0]}" if settings else tile)
    specs.sort(key=lambda spec: (-content.tiles[spec.split("@")[0]].cost, spec))
    spread: list[list[str]] = [[] for _ in range(slots)]
    for i, spec in enumerate(specs[: slots * length]):
        spread[i % slots].append(spec)
    chained = [specs[k * length : (k + 1) * length] for k in range(slots)]
    found = {
        _layout_text(spread): "Spread my tiles over the channels, dearest first",
        _layout_text(chained): "Chain my tiles into as few channels as possible",
    }
    for k, channel in enumerate(current):
        for i, spec in enumerate(channel):
            tile_id, _, setting = spec.partition("@")
            placed = content.tiles[tile_id]
            for other in placed.settings:
                if other != setting:
                    changed = [list(ch) for ch in current]
                    changed[k][i] = f"{tile_id}@{other}"
                    label = f"Keep my layout, {placed.name} in channel {k + 1} set to {other}"
                    found.setdefault(_layout_text(changed), label[:80])
    found.pop(_layout_text(current), None)  # that is "keep"
    return [Choice(value, label, "layout") for value, label in found.items()]


def _offer_choices(content: Content, g: G, seat: int) -> list[Choice]:
    """Complete offers a player can make from a menu: its market price in coins for one card
    or tile another player owns (any other offer is typed)."""
    coins = g["players"][seat]["coins"]
    out = []
    for t in active(g):
        if t == seat:
            continue
        them, name = g["players"][t], g["names"][t]
        cards = sorted(set(collection(them)), key=content.card_rank.__getitem__)
        tiles = sorted(set(owned_tiles(them)), key=content.tile_rank.__getitem__)
        wanted = [("card", c, content.cards[c].name, content.cards[c].cost) for c in cards]
        wanted += [("tile", x, content.tiles[x].name, content.tiles[x].cost) for x in tiles]
        for kind, item, title, cost in wanted:
            price = max(1, cost)
            if price <= coins:
                value = f"offer {name} give {price}c get {kind}:{item}"
                label = f"Offer {name} {price} coins for their {title}"
                out.append(Choice(value, label[:80], "offer"))
    return out


def phase_of(g: G) -> tuple[int, int, str]:
    """(round, turn, phase name) of the open window: a new one opens a phase's table post."""
    win = g["win"]
    kind = "over" if win is None else PHASES[win["kind"]]
    turn = g["turn"] if kind in ("Ritual", "work") else 0
    return g["round"], turn, kind


def table_summary(content: Content, g: G, rounds: int) -> str:
    """The public table at a phase's start: round and phase, fumes, panels, market rows and
    every board (one line per channel), fame and coins; hand sizes, never a hand."""
    r, turn, phase = phase_of(g)
    name = f"Turn {turn}: {phase}" if turn else phase
    head = [f"**Table, round {r}/{rounds}: {name}**", table(content, g)]
    for potions in (True, False):
        lines = list(head)
        for seat in range(len(g["players"])):
            lines += public_board(content, g, seat, potions=potions)
        text = "\n".join(lines)
        if len(text) <= 1800:
            return text
    return text[:1799] + "…"


def _deck_line(p: P) -> str:
    from collections import Counter

    return "Your deck: " + ", ".join(f"{c}×{n}" for c, n in Counter(collection(p)).items())


def start(
    config: Config,
    names: Sequence[str],
    chance: Chance,
    first: int,
    preset: Callable[[G, Content], None] | None,
) -> tuple[State, list[Event]]:
    """A match from its config: round 1 (or a script's start preset, ``preset(g)``)."""
    ckey = options.content_key(config)
    content = options.content_for(config, ckey)
    g = fresh(content, config, names, chance, first)
    if preset is not None:
        preset(g, content)
    flow = Flow(content, config, g)
    flow.start_round()
    state: State = {"config": config, "ckey": ckey, "g": g}
    events = [
        Event(
            PUBLIC,
            "start",
            {"players": list(names)},
            f"Flaky Flasks: {', '.join(names)}; {config['rounds']} rounds.",
        )
    ]
    events += FlakyFlasks()._events(state, flow, {})
    return state, events


def raise_config(field: str, message: str) -> None:
    raise ConfigError(field, message)
