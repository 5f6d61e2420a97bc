"""What each audience sees (``potioncraft.md`` §14): views, descriptions, prompts, the help behind
a prompt, secrets. Everything a decision needs is in its prompt, by name: the potions on offer
with their recipes and which of the player's cards fit them, the player's spells with what they
do, the perks ready to use. The typed grammar and the whole board are in the request's help."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from games.protocol import HELP_CHARS, JSON, Secret
from games.text import names_text

from .cards import (
    BLOCKED_BY,
    PERK_GIST,
    PERK_TEXT,
    POTION_CATEGORIES,
    POTIONS,
    SIBLINGS,
    SPELL_TYPE,
    WILD,
    potion_label,
)
from .choices import first_crafts
from .crafting import CARD, SEALED, SWAP, fit_marks, missing
from .grammar import Act
from .reference import spell_effect
from .rules import (
    categories,
    eligible_blocks,
    limit,
    name,
    next_seat,
    order_from,
    ready,
    table_count,
    without,
)
from .state import State

PROMPT_CHARS = 1250  # a prompt's own text; the host adds the choices and the deadline (2,000)

DEFAULTS_TEXT = {
    "draw": "you draw from the deck",
    "main": "your turn ends",
    "astral": "you keep the top card, the rest stay as they are",
    "foresight": "the order stays as it is",
    "discard": "the last cards of your hand as shown are discarded (spells first)",
    "block": "you pass",
    "pair": "the first pair is discarded",
}


# --- cards and hands --------------------------------------------------------------------------


def cards_text(cards: Sequence[str]) -> str:
    """Cards in the order given, each name once with its count: ``Bat Wing ×2, Amethyst``."""
    counts = Counter(cards)
    return ", ".join(
        card if counts[card] == 1 else f"{card} ×{counts[card]}" for card in dict.fromkeys(cards)
    )


def hand_text(hand: list[str]) -> str:
    """A hand as its owner sees it: the phrase that is a leak anywhere else."""
    return f"Your hand ({len(hand)}): {cards_text(hand)}." if hand else "Your hand: empty."


def secrets(state: State, seat: int) -> list[Secret]:
    hand, pending = state.hands[seat], state.pending
    found = []
    if hand and not state.out[seat]:
        found.append(Secret(texts=(hand_text(hand),), data=({"hand": list(hand)},)))
    if pending is not None and seat in pending["seats"] and "cards" in pending:
        found.append(Secret(data=({"seen": list(pending["cards"])},)))
    return found


# --- the potions on offer ---------------------------------------------------------------------


def perk_text(potion: str) -> str:
    perk = POTIONS[potion].perk
    return f"{PERK_TEXT[perk]}: {PERK_GIST[perk]}"


def _ingredient_mark(ingredient: str, mark: str) -> str:
    if mark == CARD:
        return f"{ingredient} ✔"
    if mark == SWAP:
        return f"{ingredient} ✔ as {' + '.join(SIBLINGS[ingredient])}"
    if mark == SEALED:
        return f"{ingredient} (sealed)"
    return ingredient


def _status(state: State, seat: int, potion: str, ways: dict[str, str]) -> str:
    lacking, wild = _missing(state, potion, Counter(state.hands[seat]))
    if potion in ways:
        using = ways[potion]
        if " using " in using:
            return f"you can craft it now using {potion_label(using.split(' using ')[1])}"
        return "you can craft it now" + (f" with your {WILD}" if wild else "")
    if not lacking:
        return "not craftable now"
    return f"{lacking} missing" + (f" with your {WILD}" if wild else "")


def offer_line(state: State, category: str, seat: int | None, gist: bool = True) -> str:
    """One slot of the revealed row; for a seat, which of its cards fit and what it lacks."""
    potion = state.revealed[category]
    if potion is None:
        return f"• {category}: none left (only a Thief's Gamble can get one now)"
    owned = seat is not None and any(o.category == category for o in state.potions[seat])
    head = f"• {potion_label(potion)} ({category}{', which you have' if owned else ''};"
    perk = POTIONS[potion].perk
    head += f" perk {perk_text(potion) if gist else PERK_TEXT[perk]})"
    if potion in state.chained:
        head += f" [chained: {chain_need(state)}]"
    recipe = POTIONS[potion].recipe
    if seat is None:
        return f"{head}: {', '.join(recipe)}"
    marks = fit_marks(potion, Counter(state.hands[seat]), state.seal, potion in state.chained)
    listed = ", ".join(_ingredient_mark(i, m) for i, m in zip(recipe, marks, strict=True))
    ways = {w.removeprefix("craft ").split(" with ")[0]: w for w in first_crafts(state, seat)}
    return f"{head}: {listed} → {_status(state, seat, potion, ways)}"


def chain_need(state: State) -> str:
    if state.config["chain_mode"] == "exact4":
        return "only its 4 exact cards"
    return "3 exact cards, no substitution"


def offer_text(state: State, seat: int | None, gist: bool = True) -> str:
    """The revealed row, a line per potion; ``gist``: with what each perk does (the main
    phase's prompt and /look; the other prompts name the perk only)."""
    head = "On offer (a potion needs 3 of its 4 ingredients"
    head += "; ✔ in your hand):" if seat is not None else "):"
    lines = [head] + [offer_line(state, c, seat, gist) for c in POTION_CATEGORIES]
    if state.seal:
        lines.append(f"Sealed: {state.seal}.")
    return "\n".join(lines)


def _missing(state: State, potion: str, hand: Counter[str]) -> tuple[int, bool]:
    return missing(
        potion,
        hand,
        seal=state.seal,
        chained=potion in state.chained,
        chain_mode=str(state.config["chain_mode"]),
    )


def helps(state: State, seat: int, card: str) -> str:
    """What one more ``card`` would do for ``seat``'s crafts: the potions it brings nearer
    (empty: none)."""
    hand = Counter(state.hands[seat])
    more = hand + Counter([card])
    better = []
    for potion in state.revealed.values():
        if potion is None:
            continue
        now, then = _missing(state, potion, hand)[0], _missing(state, potion, more)[0]
        if then < now:
            better.append(
                f"completes {potion_label(potion)}"
                if then == 0
                else f"{potion_label(potion)} {then} missing"
            )
    return names_text(better)


def cards_helping(state: State, seat: int, cards: Sequence[str], where: Sequence[str]) -> str:
    """``cards`` (each ``where`` it is), each with the potions it brings nearer."""
    parts, helped = [], False
    for card, place in zip(cards, where, strict=True):
        gain = helps(state, seat, card)
        helped = helped or bool(gain)
        parts.append(f"{card}{place}" + (f" → {gain}" if gain else ""))
    if helped:
        return "; ".join(parts)
    none = "it brings no" if len(parts) == 1 else "none brings a"
    return "; ".join(parts) + f" — {none} potion on offer nearer"


# --- the player's own things ------------------------------------------------------------------


def owned_text(state: State, seat: int) -> str:
    owned = state.potions[seat]
    need = [c for c in POTION_CATEGORIES if all(o.category != c for o in owned)]
    if not owned:
        return "You own no potion yet: one of each category (Maleficia, Benedicta, Fortuna) wins."
    listed = ", ".join(
        f"{potion_label(o.name)} ({o.category}"
        + ("" if ready(state, o) else ", spent" if not o.up else ", perk ready next turn")
        + ")"
        for o in owned
    )
    return f"You own {listed}. Still needed to win: {names_text(need)}."


def spells_text(state: State, seat: int) -> str:
    """The spells of a seat's hand, each type once with what it does (and, for some, what it
    would do now)."""
    kinds: dict[str, list[str]] = {}
    for card in state.hands[seat]:
        if card in SPELL_TYPE:
            kinds.setdefault(SPELL_TYPE[card], []).append(card)
    if not kinds:
        return ""
    seats = len(state.in_play())
    parts = [
        f"{', '.join(cards)}: {spell_effect(kind, state.config, seats, short=True)}"
        + spell_note(state, seat, kind)
        for kind, cards in kinds.items()
    ]
    return "Your spells: " + "; ".join(parts) + "."


NOTED = 3  # pile cards or potions a spell's note names at most


def spell_note(state: State, seat: int, kind: str) -> str:
    """What a spell would do now: the next player a Circle Breaker hits, the pile cards a
    Summon from Beyond could take that bring a potion on offer nearer, the potions of the categories
    still needed a Thief's Gamble could steal (with their owners' hands: the more cards, the
    likelier a pair)."""
    if kind == "Circle Breaker":
        return f" (now {name(state, next_seat(state, seat))})"
    if kind == "Summon from Beyond":
        found = [
            f"{card} from {name(state, owner)}"
            for owner in range(state.seats)
            for card in dict.fromkeys(reversed(state.piles[owner]))
            if helps(state, seat, card)
        ]
        return f" (useful now: {', '.join(found[:NOTED])})" if found else ""
    if kind == "Thief's Gamble":
        owned = {o.category for o in state.potions[seat]}
        found = [
            f"{potion_label(o.name)} from {name(state, other)}"
            f" ({_plural(len(state.hands[other]), 'card')} in hand)"
            for other in order_from(state, seat)
            for o in state.potions[other]
            if o.category not in owned
        ]
        return f" (now: {'; '.join(found[:NOTED])})" if found else ""
    return ""


def perks_text(state: State, seat: int) -> str:
    parts = []
    for owned in state.potions[seat]:
        if not ready(state, owned):
            continue
        part = f"{potion_label(owned.name)}: {perk_text(owned.name)}"
        if POTIONS[owned.name].perk == "mimic":
            useful = [
                i
                for i in state.mimic_log
                if any(p and i in POTIONS[p].recipe for p in state.revealed.values())
            ]
            part += f" (now: {', '.join(useful)})" if useful else " (nothing on offer yet)"
        parts.append(part)
    return "Perks ready to use: " + "; ".join(parts) + "." if parts else ""


# --- views ------------------------------------------------------------------------------------


def _seat_view(state: State, seat: int) -> JSON:
    return {
        "name": name(state, seat),
        "hand_size": len(state.hands[seat]),
        "table_count": table_count(state, seat),
        "potions": [o.label() for o in state.potions[seat]],
        "categories": categories(state, seat),
        "pile": list(state.piles[seat]),
        "skips": state.skips[seat],
        "wards": state.wards[seat],
        "cauldron": state.cauldron[seat],
        "out": state.out[seat],
    }


def view(state: State, seat: int | None) -> JSON:
    pending = state.pending
    data: dict[str, JSON] = {
        "turn": state.turn,
        "active": name(state, state.active),
        "direction": state.direction,
        "seats": [_seat_view(state, s) for s in range(state.seats)],
        "deck_size": len(state.deck),
        "revealed": dict(state.revealed),
        "potion_deck_sizes": {c: len(state.potion_decks[c]) for c in POTION_CATEGORIES},
        "chained": sorted(state.chained),
        "seal": state.seal,
        "mimic_log": list(state.mimic_log),
        "window": None if pending is None else pending["window"],
        "over": state.over,
        "winners": [name(state, s) for s in state.winners],
        "end_reason": state.end_reason,
    }
    if seat is not None:
        data["seat"] = seat
        data["hand"] = list(state.hands[seat])
        data["limit"] = limit(state, seat)
        if pending is not None and seat in pending["seats"]:
            data["prompted"] = pending["window"]
            if pending["window"] in ("astral", "foresight"):
                data["seen"] = list(pending["cards"])
            if pending["window"] == "discard":
                data["count"] = pending["count"]
            if pending["window"] in ("block", "pair"):
                data["potion"] = pending.get("potion") or pending.get("steal")
                data["user"] = name(state, pending.get("user", pending.get("thief", 0)))
                data["ask"] = pending.get("ask")  # a Request's ingredient (public)
    return data


def or_text(items: Sequence[str]) -> str:
    """``A``, ``A or B``, ``A, B or C``: a choice between names."""
    return names_text(items).removesuffix(f" and {items[-1]}") + (
        f" or {items[-1]}" if len(items) > 1 else ""
    )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def seat_line(state: State, seat: int) -> str:
    labels = [potion_label(o.name) + ("" if o.up else " (spent)") for o in state.potions[seat]]
    potions = ", ".join(labels) or "no potions"
    pile = state.piles[seat]
    top = f"top {pile[-1]}" if pile else "empty"
    extra = "".join(
        [
            f", {_plural(state.skips[seat], 'skip')}" if state.skips[seat] else "",
            f", {_plural(state.wards[seat], 'ward')}" if state.wards[seat] else "",
            ", Cauldron bonus" if state.cauldron[seat] else "",
            ", left" if state.out[seat] else "",
        ]
    )
    return (
        f"{name(state, seat)}: {_plural(len(state.hands[seat]), 'card')} in hand, {potions};"
        f" pile {len(pile)} ({top}){extra}."
    )


END_REASONS = {
    "three_categories": "a potion of each category",
    "turn_limit": "the turn limit",
    "ended": "the round was ended",
    "left": "the others left",
}


def table_text(state: State, row: bool = True) -> str:
    """The table as everyone sees it; without ``row`` when the potions on offer are shown
    beside it in full."""
    direction = "clockwise" if state.direction == "cw" else "counter-clockwise"
    lines = [
        f"Turn {state.turn}, {name(state, state.active)} to play, play goes {direction}."
        f" Deck: {_plural(len(state.deck), 'card')}."
    ]
    offer = ", ".join(
        f"{c}: {potion_label(p) if p else 'none left'}"
        + (" (chained)" if p in state.chained else "")
        for c, p in state.revealed.items()
    )
    if row:
        lines.append(f"On offer: {offer}." + (f" Sealed: {state.seal}." if state.seal else ""))
    lines += [seat_line(state, s) for s in range(state.seats)]
    if state.over:
        winners = names_text([name(state, s) for s in state.winners])
        why = END_REASONS.get(state.end_reason or "", state.end_reason)
        lines.append(f"Over: {winners} won ({why}).")
    return "\n".join(lines)


def describe(state: State, seat: int | None) -> str:
    """``/look``: a seat's own situation first (its hand, potions, what fits the potions on
    offer, its spells and perks), then the table; the public gets the table and the recipes."""
    if seat is None:
        return fit(table_text(state, row=False), offer_text(state, None))
    own = [hand_text(state.hands[seat]), owned_text(state, seat), offer_text(state, seat)]
    own += [spells_text(state, seat), perks_text(state, seat)]
    return fit("\n".join(p for p in own if p), table_text(state, row=False))


def fit(first: str, second: str, limit_: int = 1900) -> str:
    """Two parts joined, the second cut to what fits Discord's 2,000 characters."""
    room = limit_ - len(first) - 1
    if room <= 0:
        return first[:limit_]
    return first + "\n" + (second if len(second) <= room else second[: room - 1] + "…")


# --- prompts ----------------------------------------------------------------------------------


def prompt(state: State, seat: int) -> str:
    pending = state.pending
    assert pending is not None
    window = pending["window"]
    parts = [p for p in PROMPTS[window](state, seat) if p]
    if window == "main" and len("\n".join(parts)) > PROMPT_CHARS:  # the perks' gists go first
        parts[2] = offer_text(state, seat, gist=False)
    news = state.news[seat]  # what a timed-out discard of its took (engine.keep_news)
    if news:  # after the prompt's first line, before the hand it explains
        parts.insert(1, news)
    return shorten(parts, (3 if window == "main" else len(parts)) + bool(news))


def timeout_news(state: State, seat: int, cards: Sequence[str]) -> str:
    """What the default of ``seat``'s own discard or pair window took from its hand when the
    window timed out, for its next prompt (``state``: before the window resolved)."""
    pending = state.pending
    assert pending is not None
    if pending["window"] == "pair":
        thief = name(state, pending["thief"])
        return (
            f"Your answer to {thief}'s Thief's Gamble timed out: you discarded your pair of"
            f" {cards[0]}."
        )
    return (
        f"Your discard at the end of turn {state.turn} timed out: you discarded {', '.join(cards)}."
    )


def shorten(parts: list[str], keep: int) -> str:
    """The prompt's parts, one per line; past ``PROMPT_CHARS`` the parts after the first
    ``keep`` are dropped (the main phase's spells and perks, which its help repeats) before
    the text is cut."""
    text = "\n".join(parts)
    while len(text) > PROMPT_CHARS and len(parts) > keep:
        parts = parts[:-1]
        text = "\n".join(parts) + "\n(your spells and perks: `help`)"
    return text if len(text) <= PROMPT_CHARS else text[: PROMPT_CHARS - 1] + "…"


def _draw(state: State, seat: int) -> list[str]:
    assert state.pending is not None
    owners = [state.names.index(option[5:]) for option in state.pending["options"][1:]]
    tops = [state.piles[owner][-1] for owner in owners]
    where = [" (your pile)" if o == seat else f" ({name(state, o)}'s pile)" for o in owners]
    source = (
        "Draw the deck's top card (unseen), or take a pile's top card: "
        + cards_helping(state, seat, tops, where)
        + "."
        if owners
        else "Draw the deck's top card (no pile has a card you may take)."
    )
    return [
        f"Turn {state.turn}: your draw. {owned_text(state, seat)}",
        hand_text(state.hands[seat]),
        source,
        offer_text(state, seat, gist=False),
    ]


def _main(state: State, seat: int) -> list[str]:
    actions = f" ({_plural(state.actions, 'action')} so far)" if state.actions else ""
    return [
        f"Turn {state.turn}: your move{actions}. {owned_text(state, seat)}",
        hand_text(state.hands[seat]),
        offer_text(state, seat),
        spells_text(state, seat),
        perks_text(state, seat),
    ]


def idle(state: State, hand: Sequence[str]) -> list[str]:
    """The ingredient cards of a hand that no potion on offer needs now: without one of them,
    no potion on offer would lack more."""
    counts = Counter(hand)
    shown = [p for p in state.revealed.values() if p is not None]
    found = []
    for card in dict.fromkeys(hand):
        if card in SPELL_TYPE or card == WILD:
            continue
        fewer = counts - Counter([card])
        if all(_missing(state, p, fewer)[0] == _missing(state, p, counts)[0] for p in shown):
            found.append(card if counts[card] == 1 else f"{card} (one of {counts[card]})")
    return found


def _discard(state: State, seat: int) -> list[str]:
    assert state.pending is not None
    count, hand = int(state.pending["count"]), state.hands[seat]
    potions = len(state.potions[seat])
    bonus = " with your Cauldron bonus" if state.cauldron[seat] else ""
    spare = idle(state, hand)
    return [
        f"Turn {state.turn}, end of your turn: {len(hand)} cards in hand + 3 × {potions}"
        f" {'potion' if potions == 1 else 'potions'} = {table_count(state, seat)}, over the"
        f" limit of {limit(state, seat)}{bonus}: discard exactly {_plural(count, 'card')}.",
        hand_text(hand),
        f"No potion on offer needs now: {', '.join(spare)}." if spare else "",
        offer_text(state, seat, gist=False),
    ]


def _seen(state: State, seat: int) -> str:
    assert state.pending is not None
    cards = state.pending["cards"]
    return cards_helping(state, seat, cards, [""] * len(cards))


def _astral(state: State, seat: int) -> list[str]:
    return [
        f"Astral Projection: the deck's top cards, top first: {_seen(state, seat)}. Keep one;"
        " the others go back on top of the deck in the order you list them.",
        hand_text(state.hands[seat]),
        offer_text(state, seat, gist=False),
    ]


def _foresight(state: State, seat: int) -> list[str]:
    assert state.pending is not None
    after = names_text([name(state, s) for s in order_from(state, state.active)][:1])
    return [
        f"Foresight: the deck's top {len(state.pending['cards'])} cards, top first:"
        f" {_seen(state, seat)}. Put them all back in the order you choose, the new top first:"
        f" the next draws from the deck take them in that order ({after} plays next).",
        hand_text(state.hands[seat]),
        offer_text(state, seat, gist=False),
    ]


def _block(state: State, seat: int) -> list[str]:
    pending = state.pending
    assert pending is not None
    user, potion = name(state, pending["user"]), pending["potion"]
    beater = BLOCKED_BY[POTIONS[potion].category]
    spells = eligible_blocks(state, seat, potion)
    hand = state.hands[seat]
    if pending["perk"] == "hand_reset":
        what = (
            f"{user} uses {potion_label(potion)} ({POTIONS[potion].category}): Hand reset."
            f" Unless you block, your {_plural(len(hand), 'card')} go into the deck and you are"
            f" dealt as many new ones."
        )
    else:
        ask = pending["ask"]
        what = (
            f"{user} uses {potion_label(potion)} ({POTIONS[potion].category}): Request for {ask}."
            f" Unless you block, you give {user} one {ask}"
            + (
                "; if you block, the next player holding one is asked."
                if state.config["request_block_passes"]
                else "."
            )
        )
    how = (
        f"You may block with a {beater} spell (it goes to your pile, its own effect does not"
        f" happen): {', '.join(spells)}. Or pass."
    )
    return [what, how, hand_text(hand)]


def _pair(state: State, seat: int) -> list[str]:
    pending = state.pending
    assert pending is not None
    thief, potion = name(state, pending["thief"]), potion_label(pending["steal"])
    return [
        f"{thief}'s Thief's Gamble on your {potion} found pairs in your hand: {thief} takes"
        f" {potion}, and you discard the pair you choose: {or_text(pending['options'])}."
    ]


PROMPTS = {
    "draw": _draw,
    "main": _main,
    "astral": _astral,
    "foresight": _foresight,
    "discard": _discard,
    "block": _block,
    "pair": _pair,
}


# --- the help behind a prompt: the typed grammar of the decision and the board -----------------

GRAMMAR = {
    "draw": "`deck`: the deck's top card. `pile <player>`: the top card of that player's pile"
    " (not a spell), e.g. `pile {other}` or `pile P{other_n}`.",
    "main": "\n".join(
        [
            "`craft <potion on offer> with <card>, <card>, <card>`: the cards it spends, e.g."
            " 3 of its ingredients; a missing ingredient can be paid with the other 2 cards of"
            " its family, or once with the Secret Ingredient. Add ` using <your Pairs-wild"
            " potion>` (a pair of equal cards counts as one ingredient) or ` using <your Mimic"
            " potion> as <ingredient already crafted with>`.",
            "`play <spell>` for Circle Breaker, Twist of Fate, Astral Projection, Crackling"
            " Cauldron, e.g. `play Twist of Fate (Fortuna)`;"
            " `play Venom Brew (…) on <player>`;"
            " `play Summon from Beyond (…) from <player> take <card>`;"
            " `play Hex Seal (…) seal <ingredient family>`;"
            " `play Thief's Gamble (…) on <player> steal <potion> wager <4 cards>`.",
            "`perk <your potion>`; Chain: `perk <potion> on <potion on offer>`; Request:"
            " `perk <potion> ask <ingredient>`.",
            "`end`: end your turn (then, over the table limit, you discard).",
        ]
    ),
    "astral": "`keep <card>, <card>, <card>`: all the seen cards, the one you keep first, then"
    " the new top of the deck and the next.",
    "foresight": "`order <card>, <card>, …`: all the seen cards, the new top first.",
    "discard": "`discard <card>, <card>, …`: exactly the number asked, from your hand (the"
    " cards alone, separated by commas, also do).",
    "block": "`block <spell>` (a spell of the category that beats the perk's) or `pass`.",
    "pair": "`pair <ingredient>`: the pair you discard.",
}
BLOCKS = "Blocks: Benedicta beats Maleficia, Fortuna beats Benedicta, Maleficia beats Fortuna."
COMMON = (
    "Names in full as shown, any case; lists separated by commas; players by name or seat"
    " (P1, P2, …)."
)


def help_text(state: State, seat: int) -> str:
    """Request.help: the whole typed grammar of the open decision, then the board."""
    pending = state.pending
    assert pending is not None
    window = pending["window"]
    other = order_from(state, seat)[0] if order_from(state, seat) else seat
    grammar = GRAMMAR[window].format(other=name(state, other), other_n=other + 1)
    parts = [f"Typed answers. {COMMON}", grammar]
    if window == "main":  # what a prompt too long for Discord leaves out (``shorten``)
        parts += [spells_text(state, seat), perks_text(state, seat)]
    players = ", ".join(f"{n} (P{i + 1})" for i, n in enumerate(state.names))
    parts.append(f"Players: {players}. {BLOCKS}")
    return fit("\n".join(p for p in parts if p), table_text(state), HELP_CHARS)


# --- acknowledgements -------------------------------------------------------------------------


def summary(state: State, seat: int, act: Act) -> str:
    """What an accepted answer will do, in words (the host adds "locked for turn N")."""
    names = state.names
    if act.kind == "deck":
        return "Draw from the deck"
    if act.kind == "pile":
        assert act.seat is not None
        whose = "your own pile" if act.seat == seat else f"{names[act.seat]}'s pile"
        return f"Take {state.piles[act.seat][-1]} from {whose}"
    if act.kind == "craft":
        assert act.potion is not None
        text = f"Craft {potion_label(act.potion)} with {names_text(act.cards)}"
        if act.using is not None:
            text += f" using {potion_label(act.using)}" + (f" as {act.name}" if act.name else "")
        return text
    if act.kind == "play":
        return _play_summary(state, seat, act)
    if act.kind == "perk":
        assert act.potion is not None
        text = f"Use {potion_label(act.potion)}: {PERK_TEXT[POTIONS[act.potion].perk]}"
        if act.using is not None:
            return f"{text} on {potion_label(act.using)}"
        return f"{text}, asking for {act.name}" if act.name is not None else text
    if act.kind == "keep":
        back = act.cards[1:]
        return f"Keep {act.cards[0]}; back on top: {', '.join(back)} (top first)"
    if act.kind == "order":
        return f"Put the top {len(act.cards)} back as {', '.join(act.cards)} (top first)"
    if act.kind == "discard":
        return f"Discard {names_text(act.cards)}{keeping(state.hands[seat], act.cards)}"
    if act.kind == "block":
        return f"Block with {act.card}"
    if act.kind == "pair":
        assert act.card is not None
        return f"Discard your pair of {act.card}{keeping(state.hands[seat], [act.card] * 2)}"
    if act.kind == "pass":
        return _pass_summary(state)
    return "End your turn"


def keeping(hand: Sequence[str], cards: Sequence[str]) -> str:
    """The hand a discard leaves, for its acknowledgement (§14: the hand, always current; no
    message of its own follows the discard)."""
    kept = without(hand, cards)
    return (
        f"; you keep {_plural(len(kept), 'card')}: {cards_text(kept)}"
        if kept
        else "; you keep no card"
    )


def _play_summary(state: State, seat: int, act: Act) -> str:
    spell = act.card
    assert spell is not None
    kind = SPELL_TYPE[spell]
    target = "" if act.seat is None else state.names[act.seat]
    if kind == "Circle Breaker":
        return f"Play {spell}: {name(state, next_seat(state, seat))} loses their next turn"
    if kind == "Venom Brew":
        return f"Play {spell} on {target}: they discard a random card"
    if kind == "Summon from Beyond":
        return f"Play {spell}: take {act.name} from {target}'s pile"
    if kind == "Hex Seal":
        return f"Play {spell}: seal {act.name}"
    if kind == "Thief's Gamble":
        assert act.potion is not None
        return (
            f"Play {spell} on {target} to steal {potion_label(act.potion)},"
            f" wagering {names_text(act.cards)}"
        )
    effect = spell_effect(kind, state.config, len(state.in_play()))
    return f"Play {spell}: {effect.split(';')[0]}"


def _pass_summary(state: State) -> str:
    pending = state.pending
    assert pending is not None
    user = name(state, pending["user"])
    if pending["perk"] == "hand_reset":
        return f"Pass: {user}'s Hand reset deals you a new hand"
    return f"Pass: you give {pending['ask']} to {user}"
