"""The rules of Flaky Flasks (rules page §2-§10) on the plain game data ``g`` (a dict).

Everything here mutates the ``g`` it is given: the engine copies the state first. Chance comes
from ``chance``: the seeded RNG of a live match, or the orders a script gives (§3, script page).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from games.protocol import ConfigError, derive_rng
from games.text import excerpt

from .config import SCHEDULES
from .content import (
    MAX_CAULDRON,
    Action,
    Card,
    Content,
    Panel,
    canonical,
    make_symbol,
    sym_parts,
)
from .state import MARKET_KINDS, Config, G, Player, Slot, Window

P = Player  # one seat's data


# --- small reads ---------------------------------------------------------------------------------


def active(g: G) -> list[int]:
    return [s for s in range(len(g["players"])) if s not in g["out"]]


def turn_order(g: G) -> list[int]:
    """The round's clockwise order from its first player (out seats left out)."""
    n = len(g["players"])
    return [(g["first"] + k) % n for k in range(n) if (g["first"] + k) % n not in g["out"]]


def dominance(g: G) -> str:
    return dominance_of(*g["fumes"])


def dominance_of(light: int, dark: int) -> str:
    """Which fumes dominate: the more of the two, or balanced."""
    return "light" if light > dark else "dark" if dark > light else "balanced"


def funds(p: P) -> int:
    return int(p["temp"] + p["coins"])


def owned_tiles(p: P) -> list[str]:
    """Tile ids a player owns, placed or spare."""
    return [spec.split("@")[0] for channel in p["channels"] for spec in channel] + list(p["spare"])


def collection(p: P) -> list[str]:
    slotted = [slot["id"] for slot in p["slots"] if slot is not None]
    return [*p["deck"], *p["hand"], *p["discard"], *slotted]


def window(g: G) -> Window:
    """The open window; ValueError when none is (the match is over)."""
    if g["win"] is None:
        raise ValueError("no window is open")
    return g["win"]


def held(p: P, k: int) -> Slot:
    """The card on slot k (0-based); ValueError when the slot is empty."""
    slot = p["slots"][k]
    if slot is None:
        raise ValueError(f"slot {k + 1} is empty")
    return slot


def first_setting(content: Content, tile_id: str) -> str:
    settings = content.tiles[tile_id].settings
    return f"{tile_id}@{settings[0]}" if settings else tile_id


def place_tile(content: Content, p: P, tile_id: str, slots: int) -> str:
    """§8 rule 5: into the lowest-numbered empty channel, else spare; where it went."""
    for k in range(slots):
        if not p["channels"][k]:
            p["channels"][k] = [first_setting(content, tile_id)]
            return f"channel {k + 1}"
    p["spare"] = content.tcat([*p["spare"], tile_id])
    return "spare"


def remove_tile(content: Content, p: P, tile_id: str) -> None:
    """§9 rule 4: a spare copy first, else the copy nearest the cauldron of the highest
    channel holding it."""
    if tile_id in p["spare"]:
        p["spare"].remove(tile_id)
        return
    for channel in reversed(p["channels"]):
        for i in range(len(channel) - 1, -1, -1):
            if channel[i].split("@")[0] == tile_id:
                del channel[i]
                return
    raise ValueError(f"no tile {tile_id}")


def remove_card(p: P, card: str) -> None:
    """A card leaves the collection: from the deck, else the hand, the discard pile, a slot."""
    for pile in (p["deck"], p["hand"], p["discard"]):
        if card in pile:
            pile.remove(card)
            return
    for k, slot in enumerate(p["slots"]):
        if slot is not None and slot["id"] == card:
            p["slots"][k] = None
            return
    raise ValueError(f"no card {card}")


# --- panels --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Facts:
    """What the panels' conditions ask of a potion, read once from its symbols."""

    symbols: Sequence[str]
    values: list[int]
    shapes: set[str]
    colours: set[str]
    total: int

    @classmethod
    def of(cls, symbols: Sequence[str]) -> Facts:
        parts = [sym_parts(s) for s in symbols]
        values = [v for _, v, _ in parts]
        shapes = {s for s, _, _ in parts}
        return cls(symbols, values, shapes, {c for _, _, c in parts}, sum(values))


def qualifies(panel: Panel, symbols: Sequence[str], dom: str) -> bool:
    """Whether a potion meets every key of the panel's condition (§11)."""
    return meets(panel, Facts.of(symbols), dom)


def meets(panel: Panel, potion: Facts, dom: str) -> bool:
    n, total, values = len(potion.symbols), potion.total, potion.values
    shapes, colours, symbols = potion.shapes, potion.colours, potion.symbols
    if n < 2:
        return False
    when = panel.when
    return (
        when.get("min", n) <= n <= when.get("max", n)
        and (not when.get("one_shape") or len(shapes) == 1)
        and (not when.get("one_colour") or len(colours) == 1)
        and (not when.get("all_shapes") or len(shapes) == 3)
        and (not when.get("all_colours") or len(colours) == 3)
        and ("max_identical" not in when or max(Counter(symbols).values()) <= when["max_identical"])
        and (not when.get("distinct_values") or len(set(values)) == n)
        and ("shapes" not in when or shapes <= set(when["shapes"]))
        and ("colours" not in when or colours <= set(when["colours"]))
        and when.get("dominance", dom) == dom
        and when.get("sum", total) == total
        and when.get("min_sum", total) <= total <= when.get("max_sum", total)
        and ("has_value" not in when or when["has_value"] in values)
    )


def payout(panel: Panel, symbols: Sequence[str], total: int | None = None) -> tuple[int, int]:
    """(coins, fame) for selling ``symbols`` at the panel (``total``: their values' sum)."""
    n = len(symbols)
    if total is None:
        total = sum(sym_parts(s)[1] for s in symbols)

    def pay(f: tuple[int, int, int]) -> int:
        return max(0, f[0] * total + f[1] * n + f[2])

    return pay(panel.coins), pay(panel.fame)


def sellable(content: Content, g: G, symbols: Sequence[str]) -> list[tuple[str, int, int]]:
    """Each revealed panel the potion qualifies for now, in board order: (id, coins, fame)."""
    return sellable_at(content, g["panels"], dominance(g), symbols)


def sellable_at(
    content: Content, panels: Sequence[str], dom: str, symbols: Sequence[str]
) -> list[tuple[str, int, int]]:
    """Each of ``panels`` the potion qualifies for under dominance ``dom``: (id, coins, fame)."""
    out = []
    facts = Facts.of(symbols)
    for pid in panels:
        panel = content.panels[pid]
        if meets(panel, facts, dom):
            coins, fame = payout(panel, symbols, facts.total)
            out.append((pid, coins, fame))
    return out


def best_panel(options: Sequence[tuple[str, int, int]]) -> tuple[str, int, int] | None:
    """§8 rule 4: the highest fame, then coins, then the earliest on the board."""
    best = None
    for option in options:
        if best is None or (option[2], option[1]) > (best[2], best[1]):
            best = option
    return best


# --- propagation ----------------------------------------------------------------------------------


def run_channel(
    content: Content,
    channel: Sequence[str],
    symbols: Sequence[str],
    jammed: bool,
    room: int = MAX_CAULDRON,
) -> tuple[list[str], int]:
    """§6.3.2 step 3: the symbols after the channel's tiles, and the Charge its tiles give; at
    most ``room`` of them (the first ones: the cauldron holds ``MAX_CAULDRON``, §2.3's house
    bound), cut after every tile so that Echo Chambers in a row cost no more than one."""
    out, charge = list(symbols[: max(0, room)]), 0
    for spec in channel:
        tile_id, _, setting = spec.partition("@")
        tile = content.tiles[tile_id]
        if jammed or tile.op == "none":
            continue
        if tile.op == "charge":
            charge += tile.n
            continue
        after: list[str] = []
        for symbol in out:
            shape, value, colour = sym_parts(symbol)
            if (tile.if_shape and shape != tile.if_shape) or (
                tile.if_colour and colour != tile.if_colour
            ):
                after.append(symbol)
            elif tile.op == "add":
                after.append(make_symbol(shape, value + tile.n, colour))
            elif tile.op == "mul":
                after.append(make_symbol(shape, value * tile.n, colour))
            elif tile.op == "colour":
                after.append(make_symbol(shape, value, setting))
            elif tile.op == "shape":
                after.append(make_symbol(setting, value, colour))
            elif tile.op == "split" and value >= 2:
                after += [
                    make_symbol(shape, (value + 1) // 2, colour),
                    make_symbol(shape, value // 2, colour),
                ]
            elif tile.op == "echo":
                after += [symbol, symbol]
            else:
                after.append(symbol)
        out = after[: max(0, room)]
    return out, charge


def propagate_preview(
    content: Content, g: G, p: P, k: int, chosen: Sequence[str]
) -> tuple[list[str], int]:
    """What ``prop k`` with ``chosen`` would add to the cauldron, and the Charge it gives."""
    card = content.cards[held(p, k)["id"]]
    channel = p["channels"][k]
    if not channel:
        return [], 0
    room = MAX_CAULDRON - len(p["cauldron"])
    out, charge = run_channel(content, channel, chosen, p["jammed"], room)
    if card.bonus is not None and dominance(g) == card.bonus[1]:
        n = card.bonus[0]
        out = [make_symbol(s, v + n, c) for s, v, c in map(sym_parts, out)]
    return out, charge


def propagate(content: Content, g: G, p: P, k: int, chosen: Sequence[str]) -> list[str]:
    slot = held(p, k)
    left = list(slot["left"])
    for symbol in chosen:
        left.remove(symbol)
    out, charge = propagate_preview(content, g, p, k, chosen)
    p["charge"] += charge
    p["cauldron"] += out
    if left:
        p["slots"][k] = {"id": slot["id"], "left": left}
    else:
        p["discard"].append(slot["id"])
        p["slots"][k] = None
    return out


# --- effects -------------------------------------------------------------------------------------


def draw(p: P, n: int) -> list[str]:
    """§6.1: from the top; a short deck gives what is left (AMBIGUITY 34)."""
    drawn: list[str] = p["deck"][:n]
    del p["deck"][:n]
    p["hand"] += drawn
    return drawn


def apply_actions(
    content: Content, g: G, owner: int, actions: Sequence[Action], target: int | None
) -> list[str]:
    """§6.2 rule 5, in the listed order; a description of each change."""
    said: list[str] = []
    names = g["names"]
    for action in actions:
        do = action["do"]
        me = g["players"][owner]
        if do == "draw":
            got = draw(me, action["n"])
            said.append(f"{names[owner]} draws {len(got)} card{'s' if len(got) != 1 else ''}")
        elif do == "charge":
            me["charge"] += action["n"]
            said.append(f"{names[owner]} gains {action['n']} Charge")
        elif do == "fume":
            g["fumes"][0 if action["kind"] == "light" else 1] += action["n"]
            n = action["n"]
            said.append(f"+{n} {action['kind']} fume{'s' if n != 1 else ''}")
        elif do == "swap_fumes":
            g["fumes"].reverse()
            said.append("light and dark fumes swap")
        else:
            if action["who"] == "target":
                seats = [target] if target is not None and target not in g["out"] else []
            else:
                seats = [s for s in active(g) if s != owner]
            for seat in seats:
                other = g["players"][seat]
                if do == "discard_last":
                    if other["hand"]:
                        card = other["hand"].pop()
                        other["discard"].append(card)
                        said.append(f"{names[seat]} discards {content.cards[card].name}")
                    else:
                        said.append(f"{names[seat]} has no card to discard")
                else:
                    other["jammed"] = True
                    said.append(f"{names[seat]}'s tiles are jammed")
    return said


def can_counter(content: Content, p: P) -> list[str]:
    """The distinct Counter cards in hand whose cost the player can pay now."""
    out = []
    for card_id in dict.fromkeys(p["hand"]):
        card = content.cards[card_id]
        if card.counter is not None and p["charge"] >= card.counter_charge():
            out.append(card_id)
    return out


def hex_cards(content: Content, p: P) -> list[str]:
    return [c for c in dict.fromkeys(p["hand"]) if content.cards[c].hex is not None]


def resolve_chain(content: Content, g: G) -> list[str]:
    """§6.2 rule 4: top-down; an uncancelled Counter cancels the entry below it."""
    said: list[str] = []
    cancelled = False
    for entry in reversed(g["ritual"]["chain"]):
        card: Card = content.cards[entry["card"]]
        name = g["names"][entry["seat"]]
        if cancelled:
            said.append(f"{name}'s {card.name} is cancelled")
            cancelled = False
            continue
        if entry["kind"] == "counter":
            assert card.counter is not None
            said += apply_actions(content, g, entry["seat"], card.counter["do"], None)
            cancelled = True
        else:
            assert card.hex is not None
            said.append(f"{name}'s {card.name} resolves")
            said += apply_actions(content, g, entry["seat"], card.hex["do"], entry.get("target"))
    g["ritual"]["chain"] = []
    return said


# --- chance: the seeded RNG (live) or the script's orders -----------------------------------------


def ordered(
    g: G, content: Content, kind: str, key: Sequence[str], pile: list[str], rank: Mapping[str, int]
) -> list[str]:
    """A pile's order: shuffled from the seed, or the script's prefix then catalogue order."""
    seed = g["chance"].get("seed")
    if seed is not None:
        order = sorted(pile, key=rank.__getitem__)
        derive_rng(seed, kind, *key).shuffle(order)
        return order
    prefix = g["chance"].get(kind, {})
    for part in key:
        prefix = prefix.get(part, {}) if isinstance(prefix, Mapping) else {}
    prefix = list(prefix) if isinstance(prefix, list) else []
    rest = Counter(pile)
    for item in prefix:
        if rest[item] <= 0:
            where = ".".join([kind, *key])
            raise ConfigError(where, f"{excerpt(item)} is not left in that pile")
        rest[item] -= 1
    return prefix + sorted(rest.elements(), key=rank.__getitem__)


def deal_tier(g: G, content: Content, tier: int, river: int, tableau: int) -> None:
    t = str(tier)
    sizes = {"river": river, "tableau": tableau}
    ranks = {"river": content.card_rank, "tableau": content.tile_rank}
    for kind in MARKET_KINDS:
        size, rank = sizes[kind], ranks[kind]
        deck = ordered(g, content, kind, (t,), content.market_deck(kind, tier), rank)
        g.setdefault("dealt", {}).setdefault(kind, {})[t] = list(deck)
        g["rows"][kind][t] = [deck.pop(0) if deck else None for _ in range(size)]
        g["decks"][kind][t] = deck


def reveal(g: G, content: Content, tier: int, count: int) -> list[str]:
    t = str(tier)
    if t not in g["piles"]:
        g["piles"][t] = ordered(g, content, "panels", (t,), content.pool(tier), content.panel_rank)
        g.setdefault("dealt", {}).setdefault("panels", {})[t] = list(g["piles"][t])
    shown: list[str] = g["piles"][t][:count]
    del g["piles"][t][:count]
    g["panels"] += shown
    return shown


def unlocks_after(g: G, content: Content, config: Config, r: int) -> list[str]:
    """§2.4: the unlocks due after round r."""
    sched = SCHEDULES[config["rounds"]]
    said = []
    for tier, after, panels in ((2, sched.tier2, sched.panels2), (3, sched.tier3, sched.panels3)):
        if r == after:
            deal_tier(g, content, tier, config["river_size"], config["tableau_size"])
            said.append(f"Tier {tier} cards and tiles unlock: new rows open in the Market")
        count = panels.count(r)
        if count:
            shown = reveal(g, content, tier, count)
            said += [f"panel {content.panels[pid].name} is revealed" for pid in shown]
    return said


def shuffle_deck(g: G, content: Content, seat: int) -> None:
    p = g["players"][seat]
    key = (str(g["round"]), g["names"][seat])
    p["deck"] = ordered(g, content, "decks", key, p["deck"], content.card_rank)
    g["shuffled"][g["names"][seat]] = list(p["deck"])


# --- trades --------------------------------------------------------------------------------------


def owns(p: P, items: Sequence[str]) -> bool:
    coins = sum(int(i[:-1]) for i in items if i.endswith("c") and ":" not in i)
    cards = Counter(i[5:] for i in items if i.startswith("card:"))
    tiles = Counter(i[5:] for i in items if i.startswith("tile:"))
    return (
        p["coins"] >= coins
        and not cards - Counter(collection(p))
        and not tiles - Counter(owned_tiles(p))
    )


def offer_parts(g: G, text: str) -> tuple[int, list[str], list[str]]:
    """An offer move (``offer <seat> give <items> get <items>``, the seat's name may hold
    spaces, the items never do): the target seat, what is given and what is asked for."""
    for seat, name in enumerate(g["names"]):
        head = f"offer {name} give"
        if text == head or text.startswith(f"{head} "):
            words = text[len(head) :].split()
            cut = words.index("get")
            return seat, words[:cut], words[cut + 1 :]
    raise ValueError(f"not an offer: {text!r}")


def transfer(content: Content, g: G, giver: P, taker: P, items: Sequence[str], slots: int) -> None:
    """§9 rule 4: coins, then cards in order, then tiles one at a time."""
    coins = sum(int(i[:-1]) for i in items if i.endswith("c") and ":" not in i)
    giver["coins"] -= coins
    taker["coins"] += coins
    for item in items:
        if item.startswith("card:"):
            remove_card(giver, item[5:])
            taker["deck"] = content.cat([*taker["deck"], item[5:]])
    for item in items:
        if item.startswith("tile:"):
            remove_tile(content, giver, item[5:])
            place_tile(content, taker, item[5:], slots)


def potions_text(symbols: Sequence[str]) -> str:
    return " ".join(canonical(symbols))
