"""The typed answers of every window (rules page §12.2): read a text, check it against the
state, and give its canonical form (the move: the rules page's command, with ids) or a reason a
player understands.

Cards, tiles and panels are named as the prompts show them or by their ids, in any case
(``play Brick Salt 1`` is ``play brick 1``; ``Content.find``); a player by their name as shown
(exactly, else in any case when that is unambiguous). Names may hold spaces.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from games.text import excerpt, read_number

from .content import Content, parse_symbol
from .render import SETTING_WORDS
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


EXAMPLES = {
    "setup": "keep, or layout 1=Straight Pipe,Kiln 2=Prism@G",
    "hex": "hex <card> <player> (or hex <card> for a Hex without a target), or pass",
    "counter": "counter <card>, or pass",
    "work": "play Ember Thorn 1, charm Bitter Root, prop 1, boost T2R, brew or done",
    "market": "sell 1 Balanced Elixir, buy Kiln, buy Glowcap trash Copper Coin, or pass",
    "offer": "offer <player> give 3c card:Glowcap get tile:Kiln, or pass",
    "reply": "accept or refuse",
}


def _number(token: str, what: str) -> int:
    value = read_number(token)
    if value is None:
        raise Bad(f"{what} must be a number written with the digits 0-9, not {excerpt(token)}.")
    return value


def _names(content: Content, ids: Sequence[str]) -> str:
    return ", ".join(content.cards[c].name for c in dict.fromkeys(ids)) or "nothing"


def find_card(content: Content, tokens: Sequence[str]) -> str:
    """The card ``tokens`` name (its name or id, any case); Bad if none."""
    text = " ".join(tokens)
    card = content.find(text)
    if card is None or card not in content.cards:
        raise Bad(f"There is no card {excerpt(text)}.")
    return card


def card_in_hand(content: Content, hand: list[str], tokens: Sequence[str]) -> str:
    card = find_card(content, tokens)
    if card not in hand:
        raise Bad(f"{content.cards[card].name} is not in your hand ({_names(content, hand)}).")
    return card


def find_seat(g: G, text: str) -> int | None:
    """The seat named ``text``: exactly, else in any case when only one seat matches."""
    if text in g["names"]:
        return g["names"].index(text)
    folded = [s for s, name in enumerate(g["names"]) if name.casefold() == text.casefold()]
    return folded[0] if len(folded) == 1 else None


def other_seat(g: G, seat: int, text: str, what: str) -> int:
    """Another seat still in the match, named by ``text``; Bad otherwise."""
    target = find_seat(g, text)
    if target is None or target == seat:
        others = [g["names"][s] for s in range(len(g["names"])) if s != seat]
        raise Bad(f"{what} another player ({', '.join(others)}), not {excerpt(text)}.")
    if target in g["out"]:
        raise Bad(f"{g['names'][target]} has left the match.")
    return target


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
        if verb == "hex" and len(words) >= 2:
            return _hex(content, g, seat, words[1:])
    elif kind == "counter":
        if verb == "pass" and len(words) == 1:
            return "pass"
        if verb == "counter" and len(words) >= 2:
            card_id = card_in_hand(content, p["hand"], words[1:])
            card = content.cards[card_id]
            if card.counter is None:
                raise Bad(f"{card.name} has no Counter effect.")
            if card_id not in can_counter(content, p):
                raise Bad(
                    f"{card.name} costs {card.counter_charge()} Charge; you have {p['charge']}."
                )
            return f"counter {card_id}"
    elif kind == "work":
        return _work(content, config, p, verb, words)
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


def _hex(content: Content, g: G, seat: int, tokens: list[str]) -> str:
    """``hex <card> [<player>]``: the longest run of words naming a card, then the target."""
    hand = g["players"][seat]["hand"]
    for cut in range(len(tokens), 0, -1):
        card_id = content.find(" ".join(tokens[:cut]))
        if card_id is None or card_id not in content.cards:
            continue
        card = content.cards[card_id]
        if card_id not in hand:
            raise Bad(f"{card.name} is not in your hand ({_names(content, hand)}).")
        if card.hex is None:
            raise Bad(f"{card.name} has no Hex effect.")
        rest = " ".join(tokens[cut:])
        if not card.hex["target"]:
            if rest:
                raise Bad(f"{card.name} takes no target.")
            return f"hex {card_id}"
        if not rest:
            raise Bad(f"{card.name} needs a target: hex {card.name} <player>.")
        target = other_seat(g, seat, rest, "The target must be")
        return f"hex {card_id} {g['names'][target]}"
    raise Bad(f"There is no card {excerpt(' '.join(tokens))}.")


def _layout(content: Content, config: Config, p: P, tokens: list[str]) -> str:
    """``layout 1=Straight Pipe,Kiln 2=Prism@G``: a token with ``=`` opens a channel; the
    tokens after it without one continue its list (names may hold spaces)."""
    groups: list[str] = []
    for token in tokens:
        if "=" in token:
            groups.append(token)
        elif groups:
            groups[-1] += f" {token}"
        else:
            raise Bad(f"Write each channel as k=tile,tile, not {excerpt(token)}.")
    seen: dict[int, list[str]] = {}
    placed: list[str] = []
    for group in groups:
        k_text, _, listed = group.partition("=")
        k = _number(k_text, "A channel")
        if not 1 <= k <= config["slots"]:
            raise Bad(f"Channels are 1 to {config['slots']}, not {k}.")
        if k in seen:
            raise Bad(f"Channel {k} is named twice.")
        specs = [s.strip() for s in listed.split(",")] if listed.strip() else []
        if any(not s for s in specs):
            raise Bad(f"Channel {k} has an empty tile name.")
        if len(specs) > config["channel_length"]:
            raise Bad(f"A channel holds at most {config['channel_length']} tiles.")
        seen[k] = [_tile_spec(content, spec) for spec in specs]
        placed += [spec.partition("@")[0] for spec in seen[k]]
    if Counter(placed) - Counter(owned_tiles(p)):
        raise Bad("You do not own all of those tiles.")
    parts = [f"{k}={','.join(seen[k])}" for k in sorted(seen) if seen[k]]
    return " ".join(["layout", *parts])


def _tile_spec(content: Content, spec: str) -> str:
    """``Prism@G`` (or ``prism @ green``) as the canonical ``prism@G``."""
    name, at, setting = spec.partition("@")
    tile_id = content.find(name)
    if tile_id is None or tile_id not in content.tiles:
        raise Bad(f"There is no tile {excerpt(name.strip())}.")
    tile = content.tiles[tile_id]
    if not tile.settings:
        if at:
            raise Bad(f"{tile.name} has no setting.")
        return tile_id
    letter = SETTING_WORDS.get(setting.strip().upper(), "")
    if not at or letter not in tile.settings:
        choices = "/".join(tile.settings)
        raise Bad(f"{tile.name} needs a setting: {tile.name}@X, X one of {choices}.")
    return f"{tile_id}@{letter}"


def _slot_number(token: str, config: Config) -> int:
    k = _number(token, "A slot")
    if not 1 <= k <= config["slots"]:
        raise Bad(f"Slots are 1 to {config['slots']}, not {k}.")
    return k


def _work(content: Content, config: Config, p: P, verb: str, words: list[str]) -> str:
    stage = p["stage"]
    if verb == "done" and len(words) == 1:
        return "done"
    if verb == "play" and len(words) >= 3:
        if stage != "play":
            raise Bad("You can play no more cards once you have propagated, boosted or brewed.")
        tokens = words[1:-1]
        while len(tokens) > 1 and tokens[-1].lower() in ("into", "slot", "in"):
            tokens = tokens[:-1]  # "play Brick Salt into slot 1"
        card_id = card_in_hand(content, p["hand"], tokens)
        k = _slot_number(words[-1], config)
        slot = p["slots"][k - 1]
        if slot is not None:
            raise Bad(f"Slot {k} holds {content.cards[slot['id']].name}.")
        return f"play {card_id} {k}"
    if verb == "charm" and len(words) >= 2:
        if stage != "play":
            raise Bad("Charms are used in the play stage, before propagating.")
        card_id = card_in_hand(content, p["hand"], words[1:])
        if not content.cards[card_id].charm:
            raise Bad(f"{content.cards[card_id].name} has no Charm.")
        return f"charm {card_id}"
    if verb == "prop" and len(words) >= 2:
        return _prop(content, config, p, words)
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


def _prop(content: Content, config: Config, p: P, words: list[str]) -> str:
    k = _slot_number(words[1], config)
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
        raise Bad(f"{content.cards[slot['id']].name} is not Fractured: it sends all its symbols.")
    return " ".join(["prop", str(k), *chosen])


def _market(content: Content, g: G, p: P, verb: str, words: list[str]) -> str:
    if verb == "pass" and len(words) == 1:
        return "pass"
    if verb == "sell" and len(words) >= 3:
        tokens = words[1:]
        if tokens[0].lower() == "potion":
            tokens = tokens[1:]  # "sell potion 1 as Balanced Elixir"
        n = _number(tokens[0], "A potion")
        potion = next((x for x in p["potions"] if x["n"] == n), None)
        if potion is None:
            raise Bad(f"You hold no potion {n}.")
        named = tokens[2:] if len(tokens) > 2 and tokens[1].lower() == "as" else tokens[1:]
        panel = content.find(" ".join(named))
        if panel is None or panel not in g["panels"]:
            raise Bad(f"{excerpt(' '.join(named))} is not a panel on the board.")
        if panel not in [x[0] for x in sellable(content, g, potion["symbols"])]:
            raise Bad(f"Potion {n} does not qualify for {content.panels[panel].name}.")
        return f"sell {n} {panel}"
    if verb == "buy" and len(words) >= 2:
        return _buy(content, g, p, words[1:])
    raise Bad(f"{excerpt(' '.join(words))} is not a market answer; e.g. {EXAMPLES['market']}.")


def _buy(content: Content, g: G, p: P, tokens: list[str]) -> str:
    """``buy <item>`` or ``buy <card> trash <card>`` (names may hold spaces, even "trash")."""
    cuts = [i for i, t in enumerate(tokens) if t.lower() == "trash" and 0 < i < len(tokens) - 1]
    for cut in [len(tokens), *cuts]:
        item = content.find(" ".join(tokens[:cut]))
        if item is None or item in content.panels:
            continue
        rows = [r for kind in MARKET_KINDS for r in g["rows"][kind].values()]
        if not any(item in row for row in rows):
            raise Bad(f"{content.named(item)} is not for sale in an open row.")
        cost = content.cost(item)
        if cost > funds(p):
            raise Bad(f"{content.named(item)} costs {cost}; you have {funds(p)}.")
        if cut == len(tokens):
            return f"buy {item}"
        if item not in content.cards:
            raise Bad("Only a bought card comes with a trash: buy <card> trash <card>.")
        trash = find_card(content, tokens[cut + 1 :])
        if trash not in [*collection(p), item]:
            raise Bad(f"{content.cards[trash].name} is not a card of your collection.")
        return f"buy {item} trash {trash}"
    raise Bad(f"There is nothing called {excerpt(' '.join(tokens))} to buy.")


def _offer(content: Content, g: G, seat: int, words: list[str]) -> str:
    lowered = [w.lower() for w in words]
    if "give" not in lowered[2:] or "get" not in lowered[3:]:
        raise Bad("Write offer <player> give <items> get <items>.")
    give_at = lowered.index("give", 2)
    target = other_seat(g, seat, " ".join(words[1:give_at]), "An offer goes to")
    get_at = lowered.index("get", give_at + 1)
    give = _items(content, words[give_at + 1 : get_at])
    get = _items(content, words[get_at + 1 :])
    if not give and not get:
        raise Bad("An offer names at least one item.")
    if not owns(g["players"][seat], give):
        raise Bad("You do not own everything you offer to give.")
    name = g["names"][target]
    if not owns(g["players"][target], get):
        raise Bad(f"{name} does not own everything you ask for.")
    return " ".join(["offer", name, "give", *give, "get", *get])


def _items(content: Content, tokens: list[str]) -> list[str]:
    """Trade items: ``3c``, ``card:<card>``, ``tile:<tile>``; a name's later words follow it."""
    groups: list[list[str]] = []
    for token in tokens:
        low = token.lower()
        is_coins = low.endswith("c") and read_number(low[:-1]) is not None
        if is_coins or low.startswith(("card:", "tile:")) or not groups:
            groups.append([token])
        else:
            groups[-1].append(token)
    items = []
    for group in groups:
        head = group[0].lower()
        if head.endswith("c") and len(group) == 1 and read_number(head[:-1]):
            items.append(f"{int(head[:-1])}c")
            continue
        kind, _, first = group[0].partition(":")
        found = content.find(" ".join([first, *group[1:]]))
        kind = kind.lower()
        pool = content.cards if kind == "card" else content.tiles if kind == "tile" else {}
        if found is not None and found in pool:
            items.append(f"{kind}:{found}")
        else:
            raise Bad(f"{excerpt(' '.join(group))} is not an item (3c, card:<card>, tile:<tile>).")
    return items


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
