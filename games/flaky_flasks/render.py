"""Text for people: symbols, cards, tiles and panels by name with what they do, boards (§2.3
rendering), the table. Everything a player reads names things; ids are only typed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from games.text import names_text

from .content import Action, Card, Content, Panel, Tile, canonical
from .rules import P, best_panel, dominance, offer_parts, propagate_preview, sellable
from .state import MARKET_KINDS, G, PublicPlayer

SHAPE = {"T": "▲", "S": "■", "P": "⬟"}
COLOUR = {"R": "🔴", "G": "🟢", "B": "🔵"}
SETTING_WORDS = {
    "R": "R",
    "RED": "R",
    "G": "G",
    "GREEN": "G",
    "B": "B",
    "BLUE": "B",
    "T": "T",
    "TRIANGLE": "T",
    "S": "S",
    "SQUARE": "S",
    "P": "P",
    "PENTAGON": "P",
}
BROKEN = "broken: no tiles, what it sends is lost"


# --- symbols -------------------------------------------------------------------------------------


def sym(symbol: str) -> str:
    return f"{SHAPE[symbol[0]]}{symbol[1:-1]}{COLOUR[symbol[-1]]}"


def syms(symbols: Sequence[str]) -> str:
    return " ".join(sym(s) for s in canonical(symbols)) or "—"


def setting_text(setting: str) -> str:
    """A tile setting as shown: a colour dot or a shape."""
    return COLOUR.get(setting) or SHAPE[setting]


# --- cards -----------------------------------------------------------------------------------


def plural(n: int, word: str) -> str:
    """``1 coin``, ``3 coins``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def actions_text(actions: Sequence[Action], target: str = "the target") -> str:
    """What a list of effect actions does, in order (§6.2 rule 5); ``target`` names whom a
    targeted action hits (``you`` reads as the player being told)."""
    parts = []
    you = target == "you"
    for action in actions:
        do, n = action["do"], action.get("n", 0)
        who = target if action.get("who", "target") == "target" else "every other player"
        if do == "draw":
            parts.append(f"draw {n}")
        elif do == "charge":
            parts.append(f"+{n} Charge")
        elif do == "fume":
            parts.append(f"+{plural(n, action.get('kind', 'light') + ' fume')}")
        elif do == "swap_fumes":
            parts.append("light and dark fumes swap")
        elif do == "discard_last":
            verb, whose = ("discard", "your") if you and who == target else ("discards", "their")
            parts.append(f"{who} {verb} the last card of {whose} hand")
        else:
            whose = "your" if you and who == target else f"{who}'s"
            parts.append(f"{whose} tiles do nothing this turn")
    return "; ".join(parts) or "nothing more"


def card_effects(card: Card) -> list[str]:
    """Each effect and trait of a card, short: ``Charm: draw 2``."""
    out = []
    if "spoils" in card.traits:
        out.append("Spoils")
    if "fractured" in card.traits:
        out.append("Fractured")
    if card.bonus is not None:
        n, when = card.bonus
        held = "fumes are balanced" if when == "balanced" else f"{when} dominates"
        out.append(f"{n:+} per symbol while {held}")
    if card.manifest:
        out.append(f"Manifest: {actions_text(card.manifest)}")
    if card.charm:
        out.append(f"Charm: {actions_text(card.charm)}")
    if card.hex is not None:
        target = " on a player" if card.hex["target"] else ""
        out.append(f"Hex{target}: {actions_text(card.hex['do'])}")
    if card.counter is not None:
        extra = f"; {actions_text(card.counter['do'])}" if card.counter["do"] else ""
        out.append(f"Counter, {counter_cost(card)}: cancels{extra}")
    return out


def counter_cost(card: Card) -> str:
    charge = card.counter_charge()
    return f"pay {charge} Charge and keep it" if charge else "discard it"


def card_text(content: Content, card_id: str) -> str:
    """A card as a hand shows it: ``Bitter Root ▲1🟢 ■1🟢 (Charm: draw 2)``."""
    card = content.cards[card_id]
    if card.coin is not None:
        return f"{card.name} (coin {card.coin})"
    effects = card_effects(card)
    tail = f" ({'; '.join(effects)})" if effects else ""
    return f"{card.name} {syms(card.symbols)}{tail}"


def hand_text(content: Content, hand: Sequence[str]) -> str:
    """A hand, in hand order (draw order: the last card is the one a Hex discards)."""
    if not hand:
        return "Hand: empty."
    return "Hand: " + " · ".join(card_text(content, c) for c in hand) + "."


def cards_count(content: Content, ids: Sequence[str]) -> str:
    """Card names with counts, in catalogue order: ``Copper Coin ×3, Ember Thorn``."""
    counted = Counter(ids)
    parts = [
        f"{content.cards[c].name} ×{counted[c]}" if counted[c] > 1 else content.cards[c].name
        for c in content.cat(list(counted))
    ]
    return ", ".join(parts) or "none"


# --- tiles and channels ------------------------------------------------------------------------


def tile_effect(tile: Tile, setting: str = "") -> str:
    """What a tile does to each symbol passing through it (§2.3), short."""
    op, n = tile.op, tile.n
    if op == "none":
        text = "connects"
    elif op == "add":
        text = f"+{n}"
    elif op == "mul":
        text = f"×{n}"
    elif op == "colour":
        text = f"colour → {COLOUR[setting]}" if setting else "sets the colour"
    elif op == "shape":
        text = f"shape → {SHAPE[setting]}" if setting else "sets the shape"
    elif op == "split":
        text = "splits a value into two halves"
    elif op == "echo":
        text = "each symbol becomes two"
    else:
        return f"+{n} Charge per prop"
    only = [SHAPE[tile.if_shape]] if tile.if_shape else []
    only += [COLOUR[tile.if_colour]] if tile.if_colour else []
    return f"{''.join(only)} {text}" if only else text


def tile_text(content: Content, spec: str) -> str:
    """A placed or spare tile: ``Kiln (▲ +2)``, ``Prism (colour → 🟢)``."""
    tile_id, _, setting = spec.partition("@")
    tile = content.tiles[tile_id]
    return f"{tile.name} ({tile_effect(tile, setting)})"


def tile_rule(tile: Tile) -> str:
    """A tile's full rule, for the reference."""
    op = tile.op
    if op == "split":
        rule = "a symbol of value v ≥ 2 becomes two of the same shape and colour, ⌈v/2⌉ and ⌊v/2⌋"
    elif op == "echo":
        rule = "each symbol becomes two identical symbols"
    elif op == "colour":
        rule = "each symbol takes the colour of its setting (🔴, 🟢 or 🔵: Prism@R, @G, @B)"
    elif op == "shape":
        rule = "each symbol takes the shape of its setting (▲, ■ or ⬟: Shaper@T, @S, @P)"
    elif op == "charge":
        rule = f"no change; you gain {tile.n} Charge each time you propagate through it"
    else:
        rule = {"none": "no change (it connects)", "add": f"value +{tile.n}"}.get(
            op, f"value ×{tile.n}"
        )
    only = [f"{SHAPE[tile.if_shape]} symbols"] if tile.if_shape else []
    only += [f"{COLOUR[tile.if_colour]} symbols"] if tile.if_colour else []
    return f"{rule}, {' and '.join(only)} only" if only else rule


def channel_names(content: Content, channel: Sequence[str]) -> str:
    """A channel by its tiles' names, for a button: ``Straight Pipe ▶ Kiln ▶ ⚗``."""
    if not channel:
        return "broken"
    names = [content.tiles[s.partition("@")[0]].name for s in channel]
    return " ▶ ".join([*names, "⚗"])


def channel_text(content: Content, channel: Sequence[str]) -> str:
    """A channel from slot to cauldron: ``Straight Pipe ▶ Kiln (▲ +2) ▶ ⚗`` (a tile that
    changes nothing shows by its name alone)."""
    if not channel:
        return BROKEN
    tiles = []
    for spec in channel:
        tile = content.tiles[spec.partition("@")[0]]
        tiles.append(tile.name if tile.op == "none" else tile_text(content, spec))
    return " ▶ ".join([*tiles, "⚗"])


def owned_text(content: Content, p: P) -> str:
    """Every tile a player owns: placed ones by channel, then the spare ones."""
    placed = [
        f"{tile_text(content, spec)} in {k + 1}"
        for k, ch in enumerate(p["channels"])
        for spec in ch
    ]
    spare = [f"{tile_text(content, t)} spare" for t in p["spare"]]
    return ", ".join([*placed, *spare]) or "none"


# --- panels -----------------------------------------------------------------------------------


def panel_rule(panel: Panel) -> str:
    """What a potion needs to sell to a panel (§11 ``when``), in words."""
    when = panel.when
    parts = []
    low, high = when.get("min"), when.get("max")
    if low is not None and high is not None:
        parts.append(f"{low}–{high} symbols")
    elif low is not None:
        parts.append(f"{low}+ symbols")
    elif high is not None:
        parts.append(f"at most {high} symbols")
    words = {
        "one_shape": "all one shape",
        "one_colour": "all one colour",
        "all_shapes": "all three shapes",
        "all_colours": "all three colours",
        "distinct_values": "all values different",
    }
    parts += [text for key, text in words.items() if when.get(key)]
    if "max_identical" in when:
        parts.append(f"no symbol more than {when['max_identical']} times")
    if "shapes" in when:
        parts.append("only " + "".join(SHAPE[s] for s in when["shapes"]))
    if "colours" in when:
        parts.append("only " + "".join(COLOUR[c] for c in when["colours"]))
    if "dominance" in when:
        want = when["dominance"]
        parts.append("fumes balanced" if want == "balanced" else f"{want} dominant")
    if "sum" in when:
        parts.append(f"total exactly {when['sum']}")
    if "min_sum" in when:
        parts.append(f"total at least {when['min_sum']}")
    if "max_sum" in when:
        parts.append(f"total at most {when['max_sum']}")
    if "has_value" in when:
        parts.append(f"a symbol of value {when['has_value']}")
    return ", ".join(parts) or "any potion"


def formula_text(formula: tuple[int, int, int]) -> str:
    """A payout formula: ``total``, ``count+3``, ``2×total``."""
    parts = []
    for factor, word in zip(formula[:2], ("total", "count"), strict=True):
        if factor:
            parts.append(word if factor == 1 else f"{factor}×{word}")
    text = "+".join(parts)
    flat = formula[2]
    if flat or not text:
        text = f"{text}{flat:+}" if text else str(flat)
    return text


def panel_text(panel: Panel) -> str:
    """``Balanced Elixir: 3–6 symbols, …; pays total coins, total fame``."""
    coins, fame = formula_text(panel.coins), formula_text(panel.fame)
    return f"{panel.name}: {panel_rule(panel)}; pays {coins} coins, {fame} fame"


def sales_text(content: Content, options: Sequence[tuple[str, int, int]]) -> str:
    """Where a potion sells now: ``Simple Tonic 5 coins 1 fame, Balanced Elixir 4/4``."""
    return ", ".join(
        f"{content.panels[pid].name} ({coins} coins, {fame} fame)" for pid, coins, fame in options
    )


def best_sale_text(content: Content, g: G, symbols: Sequence[str]) -> str:
    """A cauldron's best sale now, or that nothing buys it."""
    if len(symbols) < 2:
        return "not yet a potion (2+ symbols)"
    best = best_panel(sellable(content, g, symbols))
    if best is None:
        return "no panel buys it"
    return f"best sale: {content.panels[best[0]].name}, {best[1]} coins, {best[2]} fame"


# --- trades ---------------------------------------------------------------------------------------


def items_text(content: Content, items: Sequence[str]) -> str:
    """Trade items by name: ``3 coins, Glowcap and Kiln`` (``nothing`` when empty)."""
    coins = sum(int(i[:-1]) for i in items if ":" not in i)
    named = [content.named(i.partition(":")[2]) for i in items if ":" in i]
    return names_text([plural(coins, "coin")] * bool(coins) + named) or "nothing"


def offer_text(content: Content, g: G, text: str, whom: str = "") -> str:
    """An offer move in words, after "offers": ``Bob 3 coins for Kiln`` (``whom`` names the
    target another way: ``you``)."""
    target, give, get = offer_parts(g, text)
    gets = items_text(content, get)
    return f"{whom or g['names'][target]} {items_text(content, give)} for {gets}"


# --- boards -----------------------------------------------------------------------------------


def fumes_text(g: G) -> str:
    light, dark = g["fumes"]
    dom = dominance(g)
    said = "balanced" if dom == "balanced" else f"{dom} dominant"
    return f"Fumes: light {light}, dark {dark} ({said})"


def slot_lines(
    content: Content, g: G, seat: int, *, preview: bool, only_held: bool = False
) -> list[str]:
    """One line per slot of a seat's board: what it holds and its channel; with ``preview``,
    what ``prop k`` would add to the cauldron and what it would then sell for. Free broken
    slots share one line; what "broken" means is said once."""
    p = g["players"][seat]
    lines, broken = [], []
    for k, channel in enumerate(p["channels"]):
        slot = p["slots"][k]
        if only_held and (slot is None or not slot["left"]):
            continue  # after a propagation: only what may still be propagated
        if slot is None and not channel:
            broken.append(k + 1)
            continue
        holds = "free"
        if slot is not None:
            card = content.cards[slot["id"]]
            holds = f"{card.name} {syms(slot['left'])}" if card.coin is None else card.name
            holds += f" (coin {card.coin})" if card.coin is not None else ""
        path = channel_text(content, channel) if channel else "broken"
        line = f"{k + 1}: {holds} · {path}"
        if preview and slot is not None and slot["left"]:
            got, charge = propagate_preview(content, g, p, k, slot["left"])
            extra = f", +{charge} Charge" if charge else ""
            then = best_sale_text(content, g, [*p["cauldron"], *got])
            line += f" → prop {k + 1} adds {syms(got) if got else 'nothing'}{extra}; then {then}"
        lines.append(line)
    if broken:
        lines.append(f"{_numbers(broken)}: free · {BROKEN}")
    elif any(
        not ch and s is not None and s["left"]
        for ch, s in zip(p["channels"], p["slots"], strict=True)
    ):
        lines.append(f"(broken: {BROKEN[8:]})")  # an ingredient sits in a broken slot
    if preview:
        lines += _all_props(content, g, p)
    return lines


def _all_props(content: Content, g: G, p: P) -> list[str]:
    """With two slots or more to propagate: what propagating them all adds and sells for."""
    held = [k for k, s in enumerate(p["slots"]) if s is not None and s["left"] and p["channels"][k]]
    if len(held) < 2:
        return []
    added = []
    for k in held:
        slot = p["slots"][k]
        assert slot is not None
        added += propagate_preview(content, g, p, k, slot["left"])[0]
    then = best_sale_text(content, g, [*p["cauldron"], *added])
    return [f"All of {_numbers([k + 1 for k in held])} add {syms(added)}; then {then}"]


def _numbers(numbers: Sequence[int]) -> str:
    """``2–4`` for a run, else ``1, 3``."""
    if len(numbers) > 2 and numbers[-1] - numbers[0] == len(numbers) - 1:
        return f"{numbers[0]}–{numbers[-1]}"
    return ", ".join(map(str, numbers))


def potions_text(p: P) -> str:
    return "; ".join(f"potion {x['n']} {syms(x['symbols'])}" for x in p["potions"]) or "none"


def head_line(g: G, seat: int) -> str:
    p = g["players"][seat]
    out = " (left)" if seat in g["out"] else ""
    temp = f" (+{p['temp']} temporary)" if p["temp"] else ""
    return (
        f"{g['names'][seat]}{out} · {p['fame']} fame · {plural(p['coins'], 'coin')}{temp}"
        f" · Charge {p['charge']}"
    )


def board(content: Content, g: G, seat: int) -> list[str]:
    """A seat's whole board, for ``describe``: head, slots, cauldron, spare tiles, potions."""
    p = g["players"][seat]
    spare = ", ".join(tile_text(content, t) for t in p["spare"]) or "none"
    return [
        head_line(g, seat),
        *slot_lines(content, g, seat, preview=False),
        f"⚗ Cauldron: {syms(p['cauldron']) if p['cauldron'] else 'empty'} · spare tiles: {spare}"
        f" · potions: {potions_text(p)}",
        f"Hand {len(p['hand'])} · deck {len(p['deck'])} · discard {len(p['discard'])}",
    ]


def rows_text(content: Content, g: G) -> list[str]:
    """The open market rows by name and cost, with what is left in each tier deck."""
    lines = []
    for kind in MARKET_KINDS:
        title = "Cards" if kind == "river" else "Tiles"
        for tier in sorted(g["rows"][kind]):
            row = g["rows"][kind][tier]
            shown = ", ".join(
                f"{content.named(i)} {content.cost(i)}" if i is not None else "—" for i in row
            )
            left = len(g["decks"][kind][tier])
            lines.append(f"{title} tier {tier}: {shown} ({left} left)")
    return lines


def table(content: Content, g: G) -> str:
    """The shared table: round, first player, fumes, panels, market rows."""
    lines = [
        f"Round {g['round']} · first player {g['names'][g['first']]} · {fumes_text(g)}",
        "Panels: " + ", ".join(content.panels[p].name for p in g["panels"]),
        *rows_text(content, g),
    ]
    return "\n".join(lines)


def public_player(content: Content, g: G, seat: int) -> PublicPlayer:
    p = g["players"][seat]
    return {
        "name": g["names"][seat],
        "fame": p["fame"],
        "coins": p["coins"],
        "temp_coins": p["temp"],
        "charge": p["charge"],
        "hand_size": len(p["hand"]),
        "deck_size": len(p["deck"]),
        "discard": content.cat(list(p["discard"])),
        "slots": p["slots"],
        "channels": p["channels"],
        "spare": p["spare"],
        "cauldron": canonical(p["cauldron"]),
        "potions": p["potions"],
        "sales": p["sales"],
        "jammed": p["jammed"],
        "market_passed": p["market_passed"],
        "stage": p["stage"],
        "collection": sorted(Counter([*p["deck"], *p["hand"], *p["discard"]]).items()),
        "out": seat in g["out"],
    }


def public_board(content: Content, g: G, seat: int, *, potions: bool = True) -> list[str]:
    """A board for the public table: a head line (fame, coins, Charge, pile sizes, never the
    hand), one line per channel, then cauldron, spare tiles and potions (their symbols, or
    only their count when ``potions`` is false to keep the post short)."""
    p = g["players"][seat]
    out = " (left)" if seat in g["out"] else ""
    lines = [
        f"**{g['names'][seat]}**{out} · {p['fame']} fame · {p['coins']} coins"
        f" (+{p['temp']} temp) · Charge {p['charge']} · hand {len(p['hand'])},"
        f" deck {len(p['deck'])}, discard {len(p['discard'])}"
    ]
    for k, channel in enumerate(p["channels"]):
        slot = p["slots"][k]
        names = [content.tiles[s.partition("@")[0]].name for s in channel]
        settings = [s.partition("@")[2] for s in channel]
        shown = [f"{n}@{s}" if s else n for n, s in zip(names, settings, strict=True)]
        pipe = "─".join(shown) + " ▶ ⚗" if channel else "✕ broken"
        holds = ""
        if slot is not None:
            card = content.cards[slot["id"]]
            left = f" {syms(slot['left'])}" if card.coin is None else ""
            holds = f" · holds {card.name}{left}"
        lines.append(f"  {k + 1}: {pipe}{holds}")
    spare = ", ".join(content.tiles[t].name for t in p["spare"]) or "—"
    made = potions_text(p) if potions else str(len(p["potions"]))
    lines.append(f"  ⚗ {syms(p['cauldron'])} · spare {spare} · potions {made}")
    return lines
