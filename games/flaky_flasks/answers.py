"""The typed answers of every window (rules page §12.2): read a text, check it against the
state, and give its canonical form (the move) or a reason a player understands."""

from __future__ import annotations

from collections import Counter

from games.text import excerpt, read_number

from .content import Content, parse_symbol
from .rules import (
    P,
    can_counter,
    collection,
    funds,
    hex_cards,
    owned_tiles,
    owns,
    sellable,
)
from .state import MARKET_KINDS, Config, G

MAX_ANSWER = 400


class Bad(Exception):
    """A refused answer; the message is the reason."""


def _number(token: str, what: str) -> int:
    value = read_number(token)
    if value is None:
        raise Bad(f"{what} must be a number written with the digits 0-9, not {excerpt(token)}.")
    return value


def _card_in_hand(content: Content, hand: list[str], token: str) -> str:
    card = token.lower()
    if card not in content.cards:
        raise Bad(f"There is no card {excerpt(token)}.")
    if card not in hand:
        raise Bad(f"{content.cards[card].name} is not in your hand.")
    return card


def check(content: Content, config: Config, g: G, seat: int, kind: str, raw: str) -> str:
    """The canonical move for ``raw`` in the seat's open window of ``kind``; Bad if refused."""
    if len(raw) > MAX_ANSWER:
        raise Bad(f"That answer is too long ({len(raw)} characters).")
    words = raw.split()
    if not words:
        raise Bad("Send an answer, e.g. " + EXAMPLES[kind] + ".")
    verb = words[0].lower()
    p = g["players"][seat]
    if kind == "setup":
        if verb == "keep" and len(words) == 1:
            return "keep"
        if verb == "layout":
            return _layout(content, config, p, words[1:])
    elif kind == "hex":
        if verb == "pass" and len(words) == 1:
            return "pass"
        if verb == "hex" and len(words) in (2, 3):
            card_id = _card_in_hand(content, p["hand"], words[1])
            card = content.cards[card_id]
            if card.hex is None:
                raise Bad(f"{card.name} has no Hex effect.")
            if card.hex["target"]:
                if len(words) != 3:
                    raise Bad(f"{card.name} needs a target: hex {card_id} <player>.")
                target = words[2]
                if target not in g["names"] or target == g["names"][seat]:
                    raise Bad(f"The target must be another player, not {excerpt(target)}.")
                if g["names"].index(target) in g["out"]:
                    raise Bad(f"{target} has left the match.")
                return f"hex {card_id} {target}"
            if len(words) == 3:
                raise Bad(f"{card.name} takes no target.")
            return f"hex {card_id}"
    elif kind == "counter":
        if verb == "pass" and len(words) == 1:
            return "pass"
        if verb == "counter" and len(words) == 2:
            card_id = _card_in_hand(content, p["hand"], words[1])
            card = content.cards[card_id]
            if card.counter is None:
                raise Bad(f"{card.name} has no Counter effect.")
            if card_id not in can_counter(content, p):
                raise Bad(
                    f"{card.name} costs {card.counter_charge()} Charge; you have {p['charge']}."
                )
            return f"counter {card_id}"
    elif kind == "work":
        return _work(content, config, g, p, verb, words)
    elif kind == "market":
        return _market(content, g, p, verb, words)
    elif kind == "offer":
        if verb == "pass" and len(words) == 1:
            return "pass"
        if verb == "offer":
            return _offer(content, g, seat, words)
    elif kind == "reply" and verb in ("accept", "refuse") and len(words) == 1:
        return verb
    raise Bad(f"{excerpt(raw)} is not an answer here; e.g. {EXAMPLES[kind]}.")


EXAMPLES = {
    "setup": "keep, or layout 1=pipe,kiln 2=prism@G",
    "hex": "hex moth P2, or pass",
    "counter": "counter candle, or pass",
    "work": "play ember 1, charm root, prop 1, boost T2R, brew or done",
    "market": "sell 1 balanced, buy kiln, buy silver trash copper, or pass",
    "offer": "offer P2 give 3c card:silver get tile:kiln, or pass",
    "reply": "accept or refuse",
}


def _layout(content: Content, config: Config, p: P, tokens: list[str]) -> str:
    seen: dict[int, list[str]] = {}
    placed: list[str] = []
    for token in tokens:
        k_text, eq, listed = token.partition("=")
        if not eq:
            raise Bad(f"Write each channel as k=tile,tile, not {excerpt(token)}.")
        k = _number(k_text, "A channel")
        if not 1 <= k <= config["slots"]:
            raise Bad(f"Channels are 1 to {config['slots']}, not {k}.")
        if k in seen:
            raise Bad(f"Channel {k} is named twice.")
        specs = [s for s in listed.split(",") if s] if listed else []
        if listed and len(specs) != len(listed.split(",")):
            raise Bad(f"Channel {k} has an empty tile name.")
        if len(specs) > config["channel_length"]:
            raise Bad(f"A channel holds at most {config['channel_length']} tiles.")
        out = []
        for spec in specs:
            tile_id, at, setting = spec.partition("@")
            tile_id = tile_id.lower()
            if tile_id not in content.tiles:
                raise Bad(f"There is no tile {excerpt(tile_id)}.")
            tile = content.tiles[tile_id]
            if tile.settings:
                setting = setting.upper()
                if not at or len(setting) != 1 or setting not in tile.settings:
                    raise Bad(
                        f"{tile.name} needs a setting: {tile_id}@X, X one of"
                        f" {'/'.join(tile.settings)}."
                    )
                out.append(f"{tile_id}@{setting}")
            else:
                if at:
                    raise Bad(f"{tile.name} has no setting.")
                out.append(tile_id)
            placed.append(tile_id)
        seen[k] = out
    if Counter(placed) - Counter(owned_tiles(p)):
        raise Bad("You do not own all of those tiles.")
    parts = [f"{k}={','.join(seen[k])}" for k in sorted(seen) if seen[k]]
    return " ".join(["layout", *parts])


def _work(
    content: Content,
    config: Config,
    g: G,
    p: P,
    verb: str,
    words: list[str],
) -> str:
    stage = p["stage"]
    if verb == "done" and len(words) == 1:
        return "done"
    if verb == "play" and len(words) == 3:
        if stage != "play":
            raise Bad("You can play no more cards once you have propagated, boosted or brewed.")
        card_id = _card_in_hand(content, p["hand"], words[1])
        k = _number(words[2], "A slot")
        if not 1 <= k <= config["slots"]:
            raise Bad(f"Slots are 1 to {config['slots']}, not {k}.")
        if p["slots"][k - 1] is not None:
            raise Bad(f"Slot {k} is not empty.")
        return f"play {card_id} {k}"
    if verb == "charm" and len(words) == 2:
        if stage != "play":
            raise Bad("Charms are used in the play stage, before propagating.")
        card_id = _card_in_hand(content, p["hand"], words[1])
        if not content.cards[card_id].charm:
            raise Bad(f"{content.cards[card_id].name} has no Charm.")
        return f"charm {card_id}"
    if verb == "prop" and len(words) >= 2:
        k = _number(words[1], "A slot")
        if not 1 <= k <= config["slots"]:
            raise Bad(f"Slots are 1 to {config['slots']}, not {k}.")
        slot = p["slots"][k - 1]
        if slot is None or not slot["left"]:
            raise Bad(f"Slot {k} holds no ingredient to propagate.")
        if len(words) == 2:
            return f"prop {k}"
        chosen = []
        for token in words[2:]:
            symbol = parse_symbol(token)
            if symbol is None:
                raise Bad(f"{excerpt(token)} is not a symbol like S2B.")
            chosen.append(symbol)
        if Counter(chosen) - Counter(slot["left"]):
            raise Bad(f"Those symbols are not all left on the card in slot {k}.")
        if Counter(chosen) == Counter(slot["left"]):
            return f"prop {k}"
        if "fractured" not in content.cards[slot["id"]].traits:
            raise Bad(
                f"{content.cards[slot['id']].name} is not Fractured: it sends all its symbols."
            )
        return " ".join(["prop", str(k), *chosen])
    if verb == "boost" and len(words) == 2:
        symbol = parse_symbol(words[1])
        if symbol is None:
            raise Bad(f"{excerpt(words[1])} is not a symbol like S2B.")
        if p["charge"] < 1:
            raise Bad("Boosting needs 1 Charge; you have none.")
        if symbol not in p["cauldron"]:
            raise Bad(f"{symbol} is not in your cauldron.")
        if int(symbol[1:-1]) >= 12:
            raise Bad(f"{symbol} is already at 12.")
        return f"boost {symbol}"
    if verb == "brew" and len(words) == 1:
        if len(p["cauldron"]) < 2:
            raise Bad("A potion needs at least 2 symbols in the cauldron.")
        return "brew"
    raise Bad(f"{excerpt(' '.join(words))} is not a work command; e.g. {EXAMPLES['work']}.")


def _market(content: Content, g: G, p: P, verb: str, words: list[str]) -> str:
    if verb == "pass" and len(words) == 1:
        return "pass"
    if verb == "sell" and len(words) == 3:
        n = _number(words[1], "A potion")
        potion = next((x for x in p["potions"] if x["n"] == n), None)
        if potion is None:
            raise Bad(f"You hold no potion {n}.")
        panel = words[2].lower()
        if panel not in g["panels"]:
            raise Bad(f"{excerpt(words[2])} is not a panel on the board.")
        if panel not in [x[0] for x in sellable(content, g, potion["symbols"])]:
            raise Bad(f"Potion {n} does not qualify for {content.panels[panel].name}.")
        return f"sell {n} {panel}"
    if verb == "buy" and len(words) in (2, 4):
        item = words[1].lower()
        rows = [r for kind in MARKET_KINDS for r in g["rows"][kind].values()]
        if not any(item in row for row in rows):
            raise Bad(f"{excerpt(words[1])} is not in an open row.")
        cost = content.cost(item)
        if cost > funds(p):
            raise Bad(f"It costs {cost}; you have {funds(p)}.")
        if len(words) == 2:
            return f"buy {item}"
        if words[2].lower() != "trash" or item not in content.cards:
            raise Bad("Write buy <card> trash <card>; only a bought card comes with a trash.")
        trash = words[3].lower()
        if trash not in [*collection(p), item]:
            raise Bad(f"{excerpt(words[3])} is not a card of your collection.")
        return f"buy {item} trash {trash}"
    raise Bad(f"{excerpt(' '.join(words))} is not a market answer; e.g. {EXAMPLES['market']}.")


def _offer(content: Content, g: G, seat: int, words: list[str]) -> str:
    if len(words) < 4 or words[2].lower() != "give" or "get" not in [w.lower() for w in words[3:]]:
        raise Bad("Write offer <player> give <items> get <items>.")
    target = words[1]
    if target not in g["names"] or target == g["names"][seat]:
        raise Bad(f"An offer goes to another player, not {excerpt(target)}.")
    t = g["names"].index(target)
    if t in g["out"]:
        raise Bad(f"{target} has left the match.")
    lowered = [w.lower() for w in words]
    ge = lowered.index("get", 3)
    sides = []
    for items in (words[3:ge], words[ge + 1 :]):
        side = []
        for token in items:
            low = token.lower()
            card = low.startswith("card:") and low[5:] in content.cards
            if card or (low.startswith("tile:") and low[5:] in content.tiles):
                side.append(low)
            elif low.endswith("c") and read_number(low[:-1]) and int(low[:-1]) >= 1:
                side.append(f"{int(low[:-1])}c")
            else:
                raise Bad(f"{excerpt(token)} is not an item (3c, card:<id> or tile:<id>).")
        sides.append(side)
    give, get = sides
    if not give and not get:
        raise Bad("An offer names at least one item.")
    if not owns(g["players"][seat], give):
        raise Bad("You do not own everything you offer to give.")
    if not owns(g["players"][t], get):
        raise Bad(f"{target} does not own everything you ask for.")
    return " ".join(["offer", target, "give", *give, "get", *get])


def hex_options(content: Content, g: G, seat: int) -> list[str]:
    p = g["players"][seat]
    out = []
    for card_id in hex_cards(content, p):
        card = content.cards[card_id]
        assert card.hex is not None
        if card.hex["target"]:
            out += [
                f"hex {card_id} {g['names'][t]}"
                for t in range(len(g["players"]))
                if t != seat and t not in g["out"]
            ]
        else:
            out.append(f"hex {card_id}")
    return out
