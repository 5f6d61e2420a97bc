"""What each window asks of a seat, in words (rules page §12.3, Private): the prompt (what this
decision needs, once, by name), the choices (the page's commands as values, named labels,
grouped for menus) and the help (the typed grammar with examples and the full board).

Choice values are the moves themselves (ids), so a button sends exactly the page's command;
labels and prompts only ever name things.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from games.protocol import HELP_CHARS, Choice, Presentation

from .answers import hex_options
from .config import SCHEDULES
from .content import MAX_CAULDRON, Content
from .flow import market_items
from .render import (
    BROKEN,
    actions_text,
    best_sale_text,
    board,
    card_text,
    cards_count,
    channel_names,
    channel_text,
    counter_cost,
    fumes_text,
    hand_text,
    offer_text,
    panel_text,
    plural,
    potions_text,
    rows_text,
    sales_text,
    setting_text,
    slot_lines,
    sym,
    syms,
    tile_effect,
    tile_text,
)
from .rules import (
    P,
    active,
    best_panel,
    can_counter,
    collection,
    first_setting,
    funds,
    offer_parts,
    owned_tiles,
    propagate_preview,
    sellable,
    window,
)
from .state import Config, G

LABEL = 80  # a button's label
PROMPT_CHARS = 1200  # with the host's Choices line (600) and deadline line: one message
MORE = "… (help shows the rest)"


@dataclass(slots=True)
class Ask:
    """One seat's decision: prompt lines, choices, help sections, menu hints."""

    lines: list[str] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    help: list[str] = field(default_factory=list)
    presentation: dict[str, Presentation] = field(default_factory=dict)

    def add(self, value: str, label: str, group: str = "", stage: str = "") -> None:
        self.choices.append(Choice(value, clip(label, LABEL), group, clip(stage, 100)))

    @property
    def prompt(self) -> str:
        """The lines that fit ``PROMPT_CHARS`` (a huge hand or board on a big table: the
        last lines give way to a pointer to ``help``)."""
        text = "\n".join(self.lines)
        if len(text) <= PROMPT_CHARS:
            return text
        kept: list[str] = []
        for line in self.lines:
            if len("\n".join([*kept, line, MORE])) > PROMPT_CHARS:
                break
            kept.append(line)
        return "\n".join([*kept, MORE]) if kept else clip(text, PROMPT_CHARS)

    @property
    def help_text(self) -> str:
        """The help sections that fit ``HELP_CHARS``, in order (the grammar comes first)."""
        kept: list[str] = []
        for section in self.help:
            if len("\n".join([*kept, section])) <= HELP_CHARS:
                kept.append(section)
        return "\n".join(kept) or clip(self.help[0], HELP_CHARS)


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def occasion(g: G) -> str:
    """What an answer is for, as the acknowledgement names it: ``round 2, turn 1``."""
    kind = window(g)["kind"]
    if kind in ("hex", "counter", "work"):
        return f"round {g['round']}, turn {g['turn']}"
    phase = {"setup": "Setup", "market": "Market"}.get(kind, "Bargain")
    return f"the round {g['round']} {phase}"


def ask(content: Content, config: Config, g: G, seat: int) -> Ask:
    """The open window's decision for ``seat``."""
    kind = window(g)["kind"]
    built = Ask()
    BUILDERS[kind](built, content, config, g, seat)
    built.help += [
        *board(content, g, seat),
        "Panels on the board (count = number of symbols, total = sum of values):",
        *(panel_text(content.panels[pid]) for pid in g["panels"]),
        fumes_text(g) + ".",
        *rows_text(content, g),
    ]
    return built


# --- setup -----------------------------------------------------------------------------------


def _setup(built: Ask, content: Content, config: Config, g: G, seat: int) -> None:
    p = g["players"][seat]
    spare = ", ".join(tile_text(content, t) for t in p["spare"]) or "none"
    built.lines += [
        f"Round {g['round']} Setup: arrange your tiles for this round, or keep them.",
        *(f"Channel {line}" for line in _channel_lines(content, p)),
        f"Spare tiles: {spare}.",
        "Symbols pass a channel's tiles in order, from the slot to the cauldron; a slot whose"
        " channel is empty is broken. More connected slots send more cards a turn; tiles"
        " chained in one channel all act on the same card.",
        f"Your deck this round: {cards_count(content, collection(p))}.",
    ]
    built.add("keep", "Keep my layout")
    for value, label in layout_choices(content, config, p):
        built.add(value, label, "layout")
    built.presentation["layout"] = "menu"
    built.help.append(
        "layout k=TILES …: the tiles of each channel k, from the slot to the cauldron, by name"
        f" or id, e.g. layout 1=Straight Pipe,Kiln 2=Prism@G. A channel holds up to"
        f" {config['channel_length']} tiles; channels not named become empty and unplaced"
        " tiles are spare. Prism needs @R, @G or @B (its colour), Shaper @T, @S or @P (its"
        " shape). keep: no change."
    )


def _channel_lines(content: Content, p: P) -> list[str]:
    return [
        f"{k + 1}: {channel_text(content, ch) if ch else 'empty'}"
        for k, ch in enumerate(p["channels"])
    ]


def _layout_text(channels: Sequence[Sequence[str]]) -> str:
    """A layout answer as the engine accepts it: ``layout 1=pipe,kiln 3=prism@G``."""
    parts = [f"{k + 1}={','.join(ch)}" for k, ch in enumerate(channels) if ch]
    return " ".join(["layout", *parts])


def layout_choices(content: Content, config: Config, p: P) -> list[tuple[str, str]]:
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
                    effect = tile_effect(placed, other)
                    label = f"Keep my layout, {placed.name} in channel {k + 1}: {effect}"
                    found.setdefault(_layout_text(changed), label)
    found.pop(_layout_text(current), None)  # that is "keep"
    return list(found.items())


# --- the Ritual -----------------------------------------------------------------------------


def _hex(built: Ask, content: Content, config: Config, g: G, seat: int) -> None:
    p = g["players"][seat]
    options = hex_options(content, g, seat)
    how = (
        "A Hex is discarded to take effect; the others may counter it. Pass ends your Ritual."
        if options
        else "You hold no Hex card: pass."
    )
    built.lines += [
        f"Round {g['round']}, Turn {g['turn']} Ritual: your turn to Hex. {fumes_text(g)}.",
        hand_text(content, p["hand"]),
        how,
    ]
    for value in options:
        words = value.split(maxsplit=2)
        card = content.cards[words[1]]
        assert card.hex is not None
        on = f" on {words[2]}" if len(words) > 2 else ""
        effect = actions_text(card.hex["do"], words[2] if len(words) > 2 else "the target")
        built.add(value, f"{card.name}{on}: {effect}", "hex")
    built.add("pass", "Pass (end my Ritual)")
    built.presentation["hex"] = "menu"
    built.help.append(
        "hex <card> [<player>]: activate a Hex from your hand (by name or id), naming its target"
        " if it has one, e.g. hex Shadow Moth Bob. pass: end your Ritual. A Hex goes to your"
        " discard pile at once; players holding a Counter may cancel it."
    )


def _counter(built: Ask, content: Content, config: Config, g: G, seat: int) -> None:
    p = g["players"][seat]
    chain = g["ritual"]["chain"]
    top = chain[-1]
    owner, card = g["names"][top["seat"]], content.cards[top["card"]]
    if top["kind"] == "hex":
        assert card.hex is not None
        target = top.get("target")
        whom = "the target" if target is None else "you" if target == seat else g["names"][target]
        on = "" if target is None else f" on {whom}"
        effect = actions_text(card.hex["do"], whom)
        if target == seat and p["hand"] and "the last card of your hand" in effect:
            effect += f" ({content.cards[p['hand'][-1]].name})"
        what = f"{owner}'s Hex {card.name}{on} is about to resolve: {effect}."
    else:
        below = content.cards[chain[-2]["card"]]
        what = f"{owner} counters with {card.name}: it would cancel {below.name}."
    built.lines += [
        f"Round {g['round']}, Turn {g['turn']} Ritual: {what}",
        "Counter it or pass. If several counter, the first in turn order after"
        f" {owner} goes on; the others keep their cards. Charge {p['charge']}.",
    ]
    for card_id in can_counter(content, p):
        mine = content.cards[card_id]
        assert mine.counter is not None
        extra = actions_text(mine.counter["do"]) if mine.counter["do"] else "nothing more"
        built.add(
            f"counter {card_id}",
            f"Counter with {mine.name} ({counter_cost(mine)}): cancels it; {extra}",
            "counter",
        )
    built.add("pass", "Pass (let it resolve)")
    built.help.append(
        "counter <card>: cancel the effect on top with a Counter from your hand, e.g. counter"
        " Ward Candle; its cost is paid only if it goes on. pass: let it resolve. A Counter can"
        " itself be countered; the chain resolves from the top."
    )


# --- work -----------------------------------------------------------------------------------


def _work(built: Ask, content: Content, config: Config, g: G, seat: int) -> None:
    p = g["players"][seat]
    playing = p["stage"] == "play"
    round_, turn = g["round"], g["turn"]
    if playing:
        head = "play cards into slots, then propagate them, then brew or say done."
    else:
        head = "you have propagated, so no more plays: propagate, boost, brew or done."
    built.lines.append(f"Round {round_}, Turn {turn}, your work: {head}")
    if playing:
        built.lines.append(hand_text(content, p["hand"]))
    slots = slot_lines(content, g, seat, preview=True, only_held=not playing)
    built.lines += ["Slots:", *slots] if slots else []
    if turn == 1 and playing and not any(p["slots"]):  # the round's first look: what sells
        built.lines += panels_news(content, config, g)
    cauldron = f"Cauldron: {syms(p['cauldron']) if p['cauldron'] else 'empty'}"
    if p["cauldron"]:
        cauldron += f" → {best_sale_text(content, g, p['cauldron'])}"
    brewed = f" · brewed this round: {potions_text(p)}" if p["potions"] else ""
    built.lines.append(cauldron + brewed)
    notes = _work_notes(content, g, p, playing)
    if notes:
        built.lines.append(" ".join(notes))
    _work_choices(built, content, config, g, seat)
    built.help.append(WORK_HELP)


WORK_HELP = (
    "Work commands (cards by name or id, any case):\n"
    "play <card> <slot>: e.g. play Brick Salt 1; any free slot (a broken one too).\n"
    "charm <card>: discard a card for its Charm, e.g. charm Bitter Root.\n"
    "prop <slot>: send the card's symbols through that slot's tiles into the cauldron; a"
    " Fractured card may send some: prop 2 S2B.\n"
    "boost <symbol>: 1 Charge for +1 on a cauldron symbol, e.g. boost T2R.\n"
    "brew: the whole cauldron (2+ symbols) becomes a potion and your work ends.\n"
    "done: end your work; the cauldron waits for Turn 2 (lost at Cleanup).\n"
    "After a prop, boost or brew you cannot play cards this turn. Symbols: T ▲, S ■, P ⬟;"
    " R 🔴, G 🟢, B 🔵 (T2R is ▲2🔴)."
)


def panels_news(content: Content, config: Config, g: G) -> list[str]:
    """The panels on the board, with what the new ones buy (the others were shown in earlier
    rounds; ``help`` shows every one)."""
    sched = SCHEDULES[config["rounds"]]
    last = g["round"] - 1
    new = sched.panels2.count(last) + sched.panels3.count(last) if last else len(g["panels"])
    fresh = g["panels"][len(g["panels"]) - min(new, len(g["panels"])) :]
    old = [content.panels[x].name for x in g["panels"] if x not in fresh]
    lines = [f"Panels: {', '.join(old)} (help shows what each buys)."] if old else []
    if fresh:
        head = "New panels" if old else "Panels"
        lines.append(f"{head} (count = number of symbols, total = sum of values):")
        lines += [panel_text(content.panels[x]) for x in fresh]
    return lines


def _work_notes(content: Content, g: G, p: P, playing: bool) -> list[str]:
    """The short rules this prompt's choices need: coins, Charge, fumes, the turn's end."""
    notes = []
    hand = [content.cards[c] for c in p["hand"]] if playing else []
    if any(card.coin is not None for card in hand):
        notes.append(
            "A coin in a slot stays there until Cleanup, then pays its value as temporary coins"
            " in the Market."
        )
    if p["charge"]:
        notes.append(f"Charge {p['charge']}: boost adds +1 to a cauldron symbol for 1 Charge.")
    cards = hand + [content.cards[s["id"]] for s in p["slots"] if s is not None]
    dominance_panels = any("dominance" in content.panels[x].when for x in g["panels"])
    if dominance_panels or any(card.bonus is not None for card in cards):
        notes.append(fumes_text(g) + ".")
    if g["turn"] == 1:
        notes.append("Unbrewed, the cauldron waits for Turn 2.")
    else:
        notes.append("Unbrewed symbols are lost at Cleanup.")
    return notes


def _work_choices(built: Ask, content: Content, config: Config, g: G, seat: int) -> None:
    p = g["players"][seat]
    if p["stage"] == "play":
        free = [k for k in range(config["slots"]) if p["slots"][k] is None]
        for card_id in dict.fromkeys(p["hand"]):
            card = content.cards[card_id]
            stage = card_text(content, card_id)
            for k in free:
                where = channel_names(content, p["channels"][k])
                built.add(
                    f"play {card_id} {k + 1}",
                    f"{card.name} into slot {k + 1} ({where})",
                    "play",
                    stage,
                )
            if card.charm:
                built.add(
                    f"charm {card_id}",
                    f"Charm {card.name}: {actions_text(card.charm)}",
                    "charm",
                )
        built.presentation["play"] = "steps"
        built.presentation["charm"] = "menu"
    for value, label in prop_choices(content, g, p):
        built.add(value, label, "prop")
    built.presentation["prop"] = "menu"
    if p["charge"] >= 1:
        for symbol in sorted(set(p["cauldron"])):
            level = int(symbol[1:-1])
            if level < 12:
                boosted = f"{symbol[0]}{level + 1}{symbol[-1]}"
                built.add(f"boost {symbol}", f"Boost {sym(symbol)} to {sym(boosted)}", "boost")
        built.presentation["boost"] = "menu"
    if len(p["cauldron"]) >= 2:
        best = best_panel(sellable(content, g, p["cauldron"]))
        sells = f": sells as {content.panels[best[0]].name}" if best else ""
        built.add("brew", f"Brew {syms(p['cauldron'])}{sells}")
    kept = "the cauldron waits for Turn 2" if g["turn"] == 1 else "end my work"
    if g["turn"] == 2 and p["cauldron"]:
        kept += " (the cauldron's symbols are lost)"
    built.add("done", f"Done: {kept}")


def lost_because(p: P) -> str:
    """Why a propagation adds nothing: the cauldron is full (§2.3), or the slot is broken."""
    return "the cauldron is full" if len(p["cauldron"]) >= MAX_CAULDRON else BROKEN


def prop_choices(content: Content, g: G, p: P) -> list[tuple[str, str]]:
    """Each slot's propagation, and for a Fractured card each part of its symbols that is one
    symbol or all but one (every part for up to three symbols; any other part is typed), with
    what it would add to the cauldron."""
    out = []
    for k, slot in enumerate(p["slots"]):
        if slot is None or not slot["left"]:
            continue
        name = content.cards[slot["id"]].name
        parts: list[tuple[str, ...]] = [tuple(slot["left"])]
        if "fractured" in content.cards[slot["id"]].traits:
            left = sorted(slot["left"])
            sizes = {1, len(left) - 1} - {0, len(left)}
            parts += sorted(
                dict.fromkeys(c for n in sizes for c in combinations(left, n)),
                key=lambda part: (len(part), part),
            )
        for part in parts:
            got, _ = propagate_preview(content, g, p, k, part)
            adds = syms(got) if got else f"nothing ({lost_because(p)})"
            if len(part) == len(slot["left"]):
                out.append((f"prop {k + 1}", f"Propagate slot {k + 1} ({name}): adds {adds}"))
            else:
                value = " ".join(["prop", str(k + 1), *part])
                out.append((value, f"Propagate {syms(part)} from slot {k + 1}: adds {adds}"))
    return out


# --- the Market -----------------------------------------------------------------------------


def _market(built: Ask, content: Content, config: Config, g: G, seat: int) -> None:
    p = g["players"][seat]
    temp = (
        f": {plural(p['coins'], 'coin')} + {p['temp']} temporary (spent first, lost after the"
        " Market)"
        if p["temp"]
        else ""
    )
    built.lines.append(f"Round {g['round']} Market, your turn. Funds {funds(p)}{temp}.")
    for potion in p["potions"]:
        options = sellable(content, g, potion["symbols"])
        sells = f"sells as {sales_text(content, options)}" if options else "no panel buys it"
        built.lines.append(f"Potion {potion['n']} {syms(potion['symbols'])}: {sells}.")
        best = best_panel(options)
        for pid, coins, fame in options:
            mark = " ★ best" if best is not None and pid == best[0] else ""
            built.add(
                f"sell {potion['n']} {pid}",
                f"Sell potion {potion['n']} as {content.panels[pid].name}: {coins} coins,"
                f" {fame} fame{mark}",
                "sell",
            )
    built.presentation["sell"] = "menu"
    built.lines += _for_sale(content, g, p)
    if p["potions"]:
        built.lines.append("Selling is free and keeps your turn; unsold potions are lost.")
    built.lines.append(
        "One purchase ends your turn (a card may trash one of yours); pass leaves the Market."
    )
    _buy_choices(built, content, g, p)
    built.add("pass", "Pass (leave the Market)")
    built.help.append(
        "Market commands (names or ids, any case):\n"
        "sell <potion> <panel>: e.g. sell 1 Balanced Elixir (free; your turn goes on).\n"
        "buy <item>: a card goes to your deck; a tile to your lowest empty channel, else spare."
        " e.g. buy Kiln.\n"
        "buy <card> trash <card>: also remove a card of yours from the game for good, e.g. buy"
        " Glowcap trash Copper Coin.\n"
        "pass: leave this Market. If time runs out, every potion sells at its best panel."
    )


def _for_sale(content: Content, g: G, p: P) -> list[str]:
    """The open items you can afford, by name and cost with what they are; then the others,
    by name and cost."""
    money = funds(p)
    can, dear = [], []
    for kind, item, cost in market_items(g, content):
        if cost > money:
            dear.append(f"{content.named(item)} {cost}")
        elif kind == "river":
            can.append(f"{card_text(content, item)} [{cost}]")
        else:
            placed = tile_text(content, first_setting(content, item))
            can.append(f"tile {placed} → {lands(p)} [{cost}]")
    lines = [f"You can buy: {' · '.join(can)}."] if can else ["Your funds buy nothing yet."]
    if dear:
        lines.append(f"Too dear for {funds(p)}: {', '.join(dear)}.")
    return lines


def lands(p: P) -> str:
    """Where a bought tile goes (§8 rule 5): the lowest empty channel, else spare."""
    empty = [k for k, ch in enumerate(p["channels"]) if not ch]
    return f"channel {empty[0] + 1}" if empty else "spare"


def _buy_choices(built: Ask, content: Content, g: G, p: P) -> None:
    money = funds(p)
    mine = content.cat(list(set(collection(p))))
    starters = [c for c in mine if content.cards[c].tier == 0]
    for kind, item, cost in market_items(g, content):
        if cost > money:
            continue
        if kind == "tableau":  # tiles a menu of their own: with the cards, too many stages
            label = f"Buy {tile_text(content, item)} tile for {cost}"
            built.add(f"buy {item}", label, "tiles")
            continue
        name = content.cards[item].name
        stage = f"{card_text(content, item)}, {cost}"
        built.add(f"buy {item}", f"Buy {name} for {cost}", "buy", stage)
        # the useful trashes: a starter card, or the card itself (any card may be typed)
        for trash in content.cat(list({*starters, item})):
            built.add(
                f"buy {item} trash {trash}",
                f"Buy {name}, trash {content.cards[trash].name}",
                "buy",
                stage,
            )
    built.presentation["buy"] = "steps"
    built.presentation["tiles"] = "menu"


# --- the Bargain ------------------------------------------------------------------------------


def _offer(built: Ask, content: Content, config: Config, g: G, seat: int) -> None:
    p = g["players"][seat]
    built.lines += [
        f"Round {g['round']} Bargain: you may propose one trade to another player, who accepts"
        f" or refuses. You have {plural(p['coins'], 'coin')}; fame cannot be traded.",
        *(_bought_line(content, g, t) for t in active(g) if t != seat),
        "The menu offers a card's or tile's market price for it; type other offers.",
    ]
    built.add("pass", "No offer")
    for value, label, whose in offer_choices(content, g, seat):
        built.add(value, label, "offer", whose)
    built.presentation["offer"] = "steps"  # whose cards or tiles first: a big table owns many
    built.help.append(
        "offer <player> give <items> get <items>: items are coins (3c), cards (card:Glowcap)"
        " and tiles (tile:Kiln), by name or id, either side may be empty, e.g. offer Bob give"
        " 3c get tile:Kiln. pass: no offer."
    )
    built.help += [
        f"{g['names'][t]} owns cards {cards_count(content, collection(g['players'][t]))};"
        f" tiles {', '.join(content.tiles[x].name for x in owned_tiles(g['players'][t]))}."
        for t in active(g)
        if t != seat
    ]


def _bought_line(content: Content, g: G, seat: int) -> str:
    """What a player owns beyond the starter kit: what an offer may ask for."""
    p = g["players"][seat]
    cards = [c for c in collection(p) if content.cards[c].tier > 0]
    tiles = [content.tiles[t].name for t in content.tcat(owned_tiles(p))]
    return (
        f"{g['names'][seat]} has {plural(p['coins'], 'coin')}; cards beyond the starter deck:"
        f" {cards_count(content, cards)}; tiles: {', '.join(tiles) or 'none'}."
    )


def offer_choices(content: Content, g: G, seat: int) -> list[tuple[str, str, str]]:
    """Complete offers a player can make from a menu: its market price in coins for one card
    or tile another player owns (any other offer is typed); each with its label and whose
    cards or tiles it asks for (``Bob's tiles``)."""
    coins = g["players"][seat]["coins"]
    out = []
    for t in active(g):
        if t == seat:
            continue
        them, name = g["players"][t], g["names"][t]
        cards = content.cat(list(set(collection(them))))
        tiles = content.tcat(list(set(owned_tiles(them))))
        wanted = [("card", c, content.cards[c].name, content.cards[c].cost) for c in cards]
        wanted += [("tile", x, content.tiles[x].name, content.tiles[x].cost) for x in tiles]
        for kind, item, title, cost in wanted:
            price = max(1, cost)
            if price <= coins:
                value = f"offer {name} give {price}c get {kind}:{item}"
                label = f"Offer {name} {plural(price, 'coin')} for their {title}"
                out.append((value, label, f"{name}'s {kind}s"))
    return out


def _reply(built: Ask, content: Content, config: Config, g: G, seat: int) -> None:
    offer = g["bargain"]["offer"]
    assert offer is not None, "a reply window answers an offer"
    proposer = g["names"][offer["from"]]
    _, give, get = offer_parts(g, offer["text"])
    built.lines += [
        f"Round {g['round']} Bargain: {proposer} offers you a trade. Accept, and it happens at"
        " once; or refuse.",
        *_trade_lines(content, g["players"][seat], "You would give", get),
        *_trade_lines(content, g["players"][offer["from"]], "You would get", give),
    ]
    built.add("accept", "Accept")
    built.add("refuse", "Refuse")
    built.help.append("accept: make the trade now. refuse: no trade.")


def _trade_lines(content: Content, owner: P, head: str, items: Sequence[str]) -> list[str]:
    """What a side of a trade is: each card with its symbols, each tile with what it does
    and, for one the owner has placed, the channel it leaves (§9 rule 4)."""
    parts = []
    for item in items:
        kind, _, ident = item.partition(":")
        if kind == "card":
            parts.append(card_text(content, ident))
        elif kind == "tile":
            parts.append(tile_text(content, ident) + _tile_source(owner, ident))
        else:
            parts.append(plural(int(item[:-1]), "coin"))
    return [f"{head}: {'; '.join(parts)}."] if parts else []


def _tile_source(owner: P, tile_id: str) -> str:
    """Where a traded tile leaves from: a spare copy, else the last channel holding it."""
    if tile_id in owner["spare"]:
        return ", a spare one"
    for k in range(len(owner["channels"]) - 1, -1, -1):
        channel = owner["channels"][k]
        if any(spec.partition("@")[0] == tile_id for spec in channel):
            broken = " (its slot breaks)" if len(channel) == 1 else ""
            return f", from channel {k + 1}{broken}"
    return ""


Builder = Callable[[Ask, Content, Config, G, int], None]
BUILDERS: Mapping[str, Builder] = {
    "setup": _setup,
    "hex": _hex,
    "counter": _counter,
    "work": _work,
    "market": _market,
    "offer": _offer,
    "reply": _reply,
}


# --- acknowledgements -----------------------------------------------------------------------


def summary(content: Content, g: G, seat: int, move: str) -> str:
    """An accepted move in words, naming exactly what it does: ``Play Brick Salt into slot 1``."""
    words = move.split()
    verb = words[0]
    p = g["players"][seat]
    if verb in ("play", "charm", "prop", "boost", "brew", "done"):
        return _work_summary(content, g, p, words)
    if verb == "layout":
        named = [
            f"channel {k} " + " ▶ ".join(spec_name(content, s) for s in specs.split(","))
            for k, _, specs in (part.partition("=") for part in words[1:])
        ]
        return "Layout: " + (", ".join(named) or "every channel empty") + "; the rest spare"
    if verb == "hex":
        parts = move.split(maxsplit=2)
        on = f" on {parts[2]}" if len(parts) > 2 else ""
        return f"Hex {content.cards[parts[1]].name}{on}"
    if verb == "counter":
        return f"Counter with {content.cards[words[1]].name}"
    if verb == "sell":
        potion = next(x for x in p["potions"] if x["n"] == int(words[1]))
        pay = next(x for x in sellable(content, g, potion["symbols"]) if x[0] == words[2])
        panel = content.panels[words[2]].name
        return f"Sell potion {words[1]} as {panel} for {pay[1]} coins and {pay[2]} fame"
    if verb == "buy":
        item = content.named(words[1])
        trash = f" and trash {content.cards[words[3]].name}" if len(words) > 3 else ""
        return f"Buy {item} for {content.cost(words[1])}{trash}"
    if verb == "offer":
        return f"Offer {offer_text(content, g, move)}"
    if verb in ("accept", "refuse"):
        offer = g["bargain"]["offer"]
        who = g["names"][offer["from"]] if offer is not None else "the"
        return f"{verb.capitalize()} {who}'s offer"
    if verb == "pass":
        return PASSES[window(g)["kind"]]
    return "Keep your tile layout" if verb == "keep" else move


PASSES = {
    "hex": "Pass: your Ritual ends",
    "counter": "Pass: let it resolve",
    "market": "Pass: you leave this Market",
    "offer": "No offer",
}


def spec_name(content: Content, spec: str) -> str:
    """A placed tile by name, with its setting: ``Kiln``, ``Prism 🟢``."""
    tile_id, _, setting = spec.partition("@")
    name = content.tiles[tile_id].name
    return f"{name} {setting_text(setting)}" if setting else name


def _work_summary(content: Content, g: G, p: P, words: list[str]) -> str:
    verb = words[0]
    if verb == "play":
        return f"Play {content.cards[words[1]].name} into slot {words[2]}"
    if verb == "charm":
        card = content.cards[words[1]]
        return f"Charm {card.name} ({actions_text(card.charm)})"
    if verb == "prop":
        k = int(words[1]) - 1
        slot = p["slots"][k]
        assert slot is not None
        chosen = words[2:] or slot["left"]
        got, _ = propagate_preview(content, g, p, k, chosen)
        adds = f"{syms(got)} into the cauldron" if got else f"nothing ({lost_because(p)})"
        part = f"{syms(chosen)} of " if words[2:] else ""
        return f"Propagate {part}slot {k + 1} ({content.cards[slot['id']].name}): {adds}"
    if verb == "boost":
        symbol = words[1]
        boosted = f"{symbol[0]}{int(symbol[1:-1]) + 1}{symbol[-1]}"
        return f"Boost {sym(symbol)} to {sym(boosted)}"
    if verb == "brew":
        return f"Brew potion {p['brewed'] + 1}: {syms(p['cauldron'])}"
    return "Done with your work this turn"
