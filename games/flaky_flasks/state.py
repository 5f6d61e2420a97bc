"""The shape of a match's state: plain JSON, declared here so that mypy --strict checks every key
of every ``g["key"]`` lookup. Nothing here runs: these are the types of the dicts the rules
(``rules.py``, ``flow.py``) build, store and read back.

A state is ``{"config": Config, "ckey": str, "g": G}``; ``g`` holds the game data. At the end,
the view's shape (``engine.FlakyFlasks.view``): ``PublicView``, and a seat's ``SeatView``, which
the AI players read.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from games.protocol import JSON

Stage = Literal["play", "propagate", "done"]
WindowKind = Literal["setup", "hex", "counter", "work", "market", "offer", "reply"]
MarketKind = Literal["river", "tableau"]  # the card river and the tile tableau
MARKET_KINDS: tuple[MarketKind, ...] = ("river", "tableau")


class Slot(TypedDict):
    """A card on a slot: its id and the symbols still on it (a coin card has none)."""

    id: str
    left: list[str]


class Potion(TypedDict):
    n: int  # 1 or 2: brew order within the round
    symbols: list[str]  # canonical order


class Sale(TypedDict):
    potion: int
    panel: str
    coins: int
    fame: int


class Player(TypedDict):
    fame: int
    coins: int  # permanent
    temp: int  # temporary coins (Coin cards at Cleanup), gone after the Market
    charge: int
    hand: list[str]  # card ids, draw order
    deck: list[str]  # top first during the turns; catalogue order outside them
    discard: list[str]
    slots: list[Slot | None]
    channels: list[list[str]]  # tile specs (``kiln``, ``prism@G``) from slot to cauldron
    spare: list[str]  # tile ids, catalogue order
    cauldron: list[str]
    potions: list[Potion]
    brewed: int  # potions brewed this round
    sales: list[Sale]
    jammed: bool
    market_passed: bool
    stage: Stage  # in the work window: play -> propagate -> done


class Window(TypedDict):
    """The rules page's open window (``R1.T1.work``)."""

    kind: WindowKind
    label: str
    serial: int  # counts every window opened, so a replay knows when one ended
    prompted: list[int]
    finished: list[int]  # prompted seats whose part of the window has ended
    log: list[str]  # the work window's public lines, posted when it closes
    counters: list[list[int | str]]  # a counter window's answers: [seat, card id]


class ChainEntry(TypedDict):
    seat: int
    card: str
    kind: Literal["hex", "counter"]
    target: NotRequired[int | None]  # a Hex's target seat


class Ritual(TypedDict):
    order: list[int]  # this turn's order
    idx: int  # whose sub-turn it is, in ``order``
    chain: list[ChainEntry]
    passed: bool  # the sub-turn player passed


class Market(TypedDict):
    order: list[int]
    pos: int  # the next sub-turn, in ``order``


Offer = TypedDict("Offer", {"from": int, "text": str})  # "from" is a keyword


class Bargain(TypedDict):
    order: list[int]
    idx: int
    offer: Offer | None


class Counts(TypedDict):
    """Windows opened in this turn (hex, counter) or round (market): their labels' numbers."""

    hex: int
    counter: int
    market: int


class Rows(TypedDict):
    """Each unlocked tier's open row (``"1"`` -> ids by position; None: empty)."""

    river: dict[str, list[str | None]]
    tableau: dict[str, list[str | None]]


class Decks(TypedDict):
    """Each unlocked tier's market deck, top first."""

    river: dict[str, list[str]]
    tableau: dict[str, list[str]]


class Chance(TypedDict, total=False):
    """Where the match's orders come from: the seed (live) or a script's orders."""

    seed: int
    river: dict[str, list[str]]
    tableau: dict[str, list[str]]
    panels: dict[str, list[str]]
    decks: dict[str, dict[str, list[str]]]  # round -> seat name -> deck top


class G(TypedDict):
    names: list[str]
    chance: Chance
    round: int
    first: int  # this round's first player
    turn: int  # 1 or 2 during the turns, else 0
    fumes: list[int]  # [light, dark]
    panels: list[str]  # revealed, board order
    piles: dict[str, list[str]]  # each tier's unrevealed panels, in reveal order
    rows: Rows
    decks: Decks
    players: list[Player]
    out: list[int]  # seats that left
    win: Window | None
    serial: int
    counts: Counts
    ritual: Ritual
    market: Market
    bargain: Bargain
    over: bool
    reason: str
    winners: list[int]
    standings: list[int]
    steps: int  # host windows resolved (the view's "steps")
    shuffled: dict[str, list[str]]  # this round's deck orders by seat name (for exports)
    dealt: NotRequired[dict[str, dict[str, list[str]]]]  # every pile's order as drawn


class Config(TypedDict):
    """The rules page's options (§16), every one filled in (``config.parse_config``)."""

    rounds: int
    bargain: bool
    prompt_mode: str
    fume_decay: int
    hand_size: int
    slots: int
    channel_length: int
    river_size: int
    tableau_size: int
    window_s: int
    work_window_s: int
    reaction_window_s: int
    content_set: JSON  # "house" or a content set object
    seed: NotRequired[int]


class State(TypedDict):
    config: Config
    ckey: str  # the content set's cache key (``config.content_key``)
    g: G


# --- the view (``engine.FlakyFlasks.view``): what a seat, or the public, may know -------------


class WindowView(TypedDict):
    kind: WindowKind
    label: str


class Fumes(TypedDict):
    light: int
    dark: int


class PublicPlayer(TypedDict):
    """A board as every seat sees it (``render.public_player``): never the hand or the deck
    order, only their sizes, and the collection's counts."""

    name: str
    fame: int
    coins: int
    temp_coins: int
    charge: int
    hand_size: int
    deck_size: int
    discard: list[str]  # catalogue order
    slots: list[Slot | None]
    channels: list[list[str]]
    spare: list[str]
    cauldron: list[str]  # canonical order
    potions: list[Potion]
    sales: list[Sale]
    jammed: bool
    market_passed: bool
    stage: Stage
    collection: list[tuple[str, int]]  # (card id, copies) over deck, hand and discard, sorted
    out: bool


class Me(TypedDict):
    """What only the seat itself knows."""

    hand: list[str]  # draw order
    deck: list[str]  # catalogue order: the cards, never their order


class PublicView(TypedDict):
    turn: int  # the phases of §4 played so far (``engine.turn_of``)
    steps: int
    round: int
    rounds: int
    phase_turn: int  # G's ``turn``: 1 or 2 during the turns, else 0
    first_player: str
    window: WindowView | None
    fumes: Fumes
    panels: list[str]
    river: dict[str, list[str | None]]  # Rows' river
    tableau: dict[str, list[str | None]]  # Rows' tableau
    players: list[PublicPlayer]
    chain: list[ChainEntry]
    over: bool
    winners: list[str]
    config: Config
    content_key: str


class SeatView(PublicView):
    """A seat's view: the public one, the seat and its secrets (what the AI players read)."""

    seat: int
    me: Me
