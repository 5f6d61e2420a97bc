"""What a deal trades (§A7), as text: items, who holds them, and an offer in words.

An item is one card or one coin, written as the game names it: an ingredient in front by its
label (``Toadstool``, ``Toadstool (Potent)``: a card with an effect is named with it), a coin in
hand as ``coin 3``, and, while brews lie face down (§A9), a card by its place in a brew, ``card
2`` (the second card its owner won), since nobody else can see which is which. A list of items
is written with commas; ``2 Toadstool`` is two of them, ``nothing`` none. Favours are free text,
recorded only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from games.protocol import JSON
from games.text import excerpt, names_text, read_number

from .config import canonical_type, coin_values, types_in_play
from .effects import label, split_label
from .state import Offer, Seat, State

NOTHING = "nothing"
FAVOUR_CHARS = 200  # a favour's text is cut to this
MAX_ITEMS = 60  # items in one list: more than anyone can hold
MENU_ITEMS = 24  # a menu of picks holds 25: the items and Nothing
_COUNT = re.compile(r"([0-9]{1,2})\s*[x×]?\s+(.+)|(.+?)\s*[x×]\s*([0-9]{1,2})", re.IGNORECASE)
_COIN = re.compile(r"coin\s*([0-9]{1,2})|([0-9]{1,2})\s*coins?", re.IGNORECASE)
_CARD = re.compile(r"card\s*#?\s*([0-9]{1,3})", re.IGNORECASE)
_MENTION = re.compile("@(?!\u200b)")
ZWSP = "\u200b"


class Bad(ValueError):
    """A list of items that cannot be read; the message says why, to the player."""


def face_down(state: State) -> bool:
    return bool(state.config["vision_of_blindness"] or state.config["utter_darkness"])


# --- reading ---------------------------------------------------------------------------------


def read_items(state: State, text: str) -> list[str]:
    """The items a typed list names, each as the game writes it; Bad says why not."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if len(parts) > MAX_ITEMS:
        raise Bad(f"Name at most {MAX_ITEMS} items.")
    items: list[str] = []
    for part in parts:
        if part.casefold() == NOTHING:
            continue
        count, name = _counted(part)
        items += [_item(state, name)] * count
        if len(items) > MAX_ITEMS:
            raise Bad(f"Name at most {MAX_ITEMS} items.")
    return sorted(items, key=_order)


def _order(item: str) -> tuple[int, int, str]:
    """Cards first (by place, else by name), then coins by value."""
    kind, _, rest = item.partition(" ")
    if kind in ("card", "coin") and rest.isdigit():
        return (1 if kind == "coin" else 0), int(rest), ""
    return 0, 0, item


def _counted(part: str) -> tuple[int, str]:
    """``2 Toadstool`` and ``Toadstool x2`` are two; a coin's own number is not a count."""
    if _COIN.fullmatch(part) or _CARD.fullmatch(part):
        return 1, part
    match = _COUNT.fullmatch(part)
    if match is None:
        return 1, part
    number, name = (match[1], match[2]) if match[1] else (match[4], match[3])
    count = read_number(number) or 0
    if count < 1:
        raise Bad(f"{excerpt(part)}: a count is 1 or more.")
    return count, name.strip()


def _item(state: State, text: str) -> str:
    coin = _COIN.fullmatch(text)
    if coin:
        value = int(coin[1] or coin[2])
        if value not in coin_values(state.config):
            values = coin_values(state.config)
            raise Bad(f"There is no {value} coin: coins are {values[0]}-{values[-1]}.")
        return f"coin {value}"
    card = _CARD.fullmatch(text)
    if face_down(state):
        if card is None:
            raise Bad(
                f"{excerpt(text)}: brews lie face down, so name a card by its place, e.g. card 2."
            )
        return f"card {int(card[1])}"
    name, effect = split_label(text)
    found = canonical_type(name, types_in_play(state.config))
    if found is None:
        raise Bad(f"{excerpt(text)} is not an ingredient, a coin (coin 3) or 'nothing'.")
    return label(found, effect)


# --- holding ---------------------------------------------------------------------------------


def missing(state: State, seat: int, items: Sequence[str], stamp: int | None = None) -> str:
    """Why ``seat`` cannot hand over ``items`` now ("" when it can), with the seat's name.
    ``stamp``: its ``removed`` count when the items were named by place."""
    player = state.seats[seat]
    wanted = Counter(items)
    coins = Counter(player.hand)
    cards = Counter(player.labels())
    for item, count in wanted.items():
        kind, _, rest = item.partition(" ")
        if kind == "coin":
            if coins[int(rest)] < count:
                return f"{player.name} {_holds(count, f'{rest} coin')} in hand"
        elif kind == "card" and rest.isdigit() and face_down(state):
            if stamp is not None and stamp != player.removed:
                return f"{player.name}'s cards have moved since the offer was made"
            if count > 1 or not 1 <= int(rest) <= len(player.brew):
                held = "1 card" if len(player.brew) == 1 else f"{len(player.brew)} cards"
                return f"{player.name} has no card {rest} in front ({held})"
        elif cards[item] < count:
            return f"{player.name} {_holds(count, item)} in front"
    return ""


def _holds(count: int, what: str) -> str:
    return f"does not hold {'a' if count == 1 else count} {what}"


def own_items(state: State, seat: int, viewer: int) -> tuple[list[tuple[str, str]], bool]:
    """What ``seat`` could give, as (item, label) for ``viewer``, each item once (a menu picks
    each choice once: more copies are typed), in at most ``MENU_ITEMS``: every coin value in
    hand and the cards in front, by name (with their effect) or, face down, by place. True
    when some cards did not fit (places past the menu's room are typed too)."""
    player = state.seats[seat]
    coins = [(f"coin {coin}", f"coin {coin}") for coin in sorted(set(player.hand))]
    if face_down(state):
        peek = seat == viewer and not state.config["utter_darkness"]
        cards = [
            (f"card {i + 1}", f"card {i + 1}: {card}" if peek else f"card {i + 1} (face down)")
            for i, card in enumerate(player.labels())
        ]
    else:
        counts = Counter(player.labels())
        cards = [(card, card if n == 1 else f"{card} (one of {n})") for card, n in counts.items()]
    room = MENU_ITEMS - len(coins)
    return cards[:room] + coins, len(cards) > room


def has_copies(state: State, seat: int) -> bool:
    """Whether ``seat`` holds two of an item (a menu picks one of each: the rest are typed)."""
    player = state.seats[seat]
    many = len(set(player.hand)) < len(player.hand)
    return many or (not face_down(state) and len(set(player.labels())) < len(player.brew))


# --- words -----------------------------------------------------------------------------------


def items_text(items: Sequence[str], owner: str = "") -> str:
    """``Toadstool ×2 and coin 3``; cards by place are ``Bo's card 2`` (``owner``: Bo; or
    ``your``)."""
    if not items:
        return NOTHING
    counts = Counter(items)
    parts = []
    for item, count in counts.items():
        if item.startswith("card ") and owner:
            whose = owner if owner == "your" else f"{owner}'s"
            item = f"{whose} {item}"
        parts.append(item if count == 1 else f"{item} ×{count}")
    return names_text(parts)


def clipped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def favour_text(text: str) -> str:
    """A favour as recorded: one line, cut to ``FAVOUR_CHARS`` characters, unable to ping
    anyone (every ``@`` gets an invisible space after it: no ``@everyone``, ``<@id>`` or
    ``<@&role>`` reaches Discord whole). Reading a recorded favour again gives it unchanged."""
    flat = " ".join(text.replace(ZWSP, "").split())[:FAVOUR_CHARS]
    return _MENTION.sub("@" + ZWSP, flat)


def offer_line(state: State, offer: Offer, viewer: int | None = None) -> str:
    """An offer in words, for one of its two parties (or a moderator)."""
    by, to = state.seats[offer.by], state.seats[offer.to]
    give = items_text(offer.give, "your" if viewer == offer.by else by.name)
    ask = items_text(offer.ask, "your" if viewer == offer.to else to.name)
    if viewer == offer.by:
        head = f"Your offer {offer.id} to {to.name}: you give {give}; you get {ask}."
    elif viewer == offer.to:
        head = f"Offer {offer.id} from {by.name}: you get {give}; you give {ask}."
    else:
        head = f"Offer {offer.id}: {by.name} gives {give}; {to.name} gives {ask}."
    return head + (f" Favour: “{offer.favour}”." if offer.favour else "")


def offer_data(state: State, offer: Offer) -> JSON:
    """An offer as structured data: its secret's shape (``render.secrets``)."""
    return {
        "offer": offer.id,
        "by": state.seats[offer.by].name,
        "to": state.seats[offer.to].name,
        "give": list(offer.give),
        "ask": list(offer.ask),
        "favour": offer.favour,
    }


def seat_items(seat: Seat) -> list[str]:
    """A seat's cards by label (what a face-up deal names)."""
    return seat.labels()
