"""Answering prompts by DM: persistent buttons and menus, and typed answers.

Every component's custom id carries the match id, the window step and short keys for its
choices, never more: a button is ``fx:<match>:<step>:<key>``, a menu ``fx:<kind>:<match>:<step>``
(``:<n>`` for the n-th menu of a kind) whose options' values are keys. A choice's key is its
value when that is a short word used once in the request (readable ids, and prompts sent before
keys existed keep working), else ``#<index>`` in the request's choices. The cog maps a key back
through the seat's open request (``Host.prompts_for``), so choices may be many and long; a click
on an old prompt maps to nothing and the host refuses it as before. Components are
``DynamicItem``s, so they keep working after a restart.

Choices show as buttons while they fit (five rows of five, less the rows menus take), in menus
past that, and a menu of more than 25 shows one page at a time: its last option turns the page
by editing the message. A two-step menu (a ``"steps"`` group) asks a stage first (over pages
past 25 stages), then the stage's choices. When a request's groups want more menus than a message
has rows, the two-step ones stay and the others join one two-step menu: first the group, then its
choices.
A multi-choice request is one menu with the request's minimum and maximum; its answer is the
values joined by the request's separator, as a player would type it. Past 25 choices (Discord
sends one menu's picks at a time), it is picked in several menus, four to a screen (``More
choices…`` shows the next screen), whose picks add up in the message itself: each pick edits the
prompt, its menus showing what is picked and its ``Send`` button
(``fx:done:<match>:<step>:p<bits>``) carrying every pick so far, so a restart loses nothing;
``Send`` answers with them all (the game checks the count). Up to ``MULTI_MOST`` choices (what
a custom id can carry); past that, picked within one page of one menu, or typed.

A player with prompts in several matches (a practice beside a real match) types an answer, or
sends it with ``/submit`` by DM, all the same (``route``): it goes to the one prompt whose game
would take it (``Host.would_accept``); when several would, one short menu asks which match
(``fa:<match>:<step>:<answer>``); when none would, each game's reason is told. Sharded, the
process holding shard 0 gets every DM and sees every match's prompts (``FloralBot.open_prompts``:
other processes' read from the store); an answer for a match another process hosts is handed
there (``FloralBot.hand_over_answer``), which submits it and answers the player.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import logging
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord
from discord.ext import commands

from bot.client import ANSWER_FOR, FloralBot, typed_reply_nonce
from bot.discord_transport import HELP_PREFIX, fit
from bot.host import HostError, OpenPrompt, SubmitResult
from bot.outbox import choices_text
from bot.transport import request_to_json
from cogs.cards import cards_page, my_match
from cogs.common import (
    ack_text,
    custom_id_of,
    floral_bot,
    match_name,
    refusal_text,
    respond,
    update_message,
)
from games.protocol import Accepted, Refused, Request
from games.text import excerpt

log = logging.getLogger(__name__)

TYPED_MAX = 3  # longer DM text is chat, not an answer, unless it names choices
ASKED_WORDS = ("help", "cards")  # typed in a DM, answered by the bot (unless a choice's name)
MENU_FROM = 3  # a group hinted "menu" with this many choices or more is a menu, else buttons
ROWS = 5  # Discord: five action rows a message, five buttons a row, 25 options a menu
PER_ROW = 5
PER_MENU = 25
PER_PAGE = PER_MENU - 1  # a paged menu keeps one option to turn the page
BUTTON_LABEL, OPTION_LABEL = 80, 100
WORD = re.compile(r"[A-Za-z0-9_-]{1,20}")  # a value short and plain enough to be its own key
KEY = r"[A-Za-z0-9_-]{1,20}|#\d{1,6}"
ROUTE_SHOWN = 5  # the matches a which-match menu (or a refusal) names, at most: one row
REASON_CHARS = 200  # each game's reason, as a refusal quotes it
PAGE = ">"  # an option value ">3": show page 3 of this menu
PICK = "pick"  # the menus of a multi-choice request past 25 choices, their picks kept
PICK_SCREEN = ROWS - 1  # such menus a screen shows: a row is kept for its buttons
MULTI_MOST = 400  # choices whose picks a Send button's id carries (a bit each, within 100)
PICKS_KEPT = 1000  # prompts whose latest picks this process remembers (see ``latest_picks``)
DONE, SCREEN = "fx:done:", "fx:screen:"
SENT = re.compile(rf"{DONE}(?P<match>\d+):(?P<step>\d+):p(?P<picks>[A-Za-z0-9_-]*)")


def clip(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters (an ellipsis marks a cut); never empty."""
    text = text.strip() or "?"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def choice_keys(values: Sequence[str]) -> list[str]:
    """The key of each choice: its value if a short word used once, else ``#<index>``."""
    counts = Counter(values)
    return [
        value if WORD.fullmatch(value) and counts[value] == 1 else f"#{i}"
        for i, value in enumerate(values)
    ]


def value_of(key: str, values: Sequence[str]) -> str | None:
    """The value a key stands for among a request's choice values; None: not one of them."""
    if not key.startswith("#"):
        return key if key in values else None
    index = int(key[1:]) if key[1:].isdigit() else -1
    return values[index] if 0 <= index < len(values) else None


def picks_word(picked: Collection[int], count: int) -> str:
    """Picked choices (indices among ``count``) as a word for a custom id: a bit each, in
    URL-safe base64 (400 choices: 67 characters)."""
    bits = sum(1 << i for i in picked if 0 <= i < count)
    raw = bits.to_bytes((count + 7) // 8, "little")
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def picks_of(word: str, count: int) -> frozenset[int]:
    """The picks a ``picks_word`` stands for (nothing for a word no Send button made)."""
    try:
        raw = base64.urlsafe_b64decode(word + "=" * (-len(word) % 4))
    except ValueError:
        return frozenset()
    bits = int.from_bytes(raw, "little")
    return frozenset(i for i in range(min(count, bits.bit_length())) if bits >> i & 1)


def open_request(bot: FloralBot, user_id: int, match_id: int, step: int) -> OpenRequest | None:
    """The request the user may answer now in that window; None: the prompt is old."""
    for prompt in bot.host.prompts_for(user_id):
        if prompt.match_id == match_id and prompt.holds(step):
            return OpenRequest(prompt.request, prompt.deadline)
    return None


@dataclass(frozen=True, slots=True)
class OpenRequest:
    request: Request
    deadline: float


async def answer(interaction: discord.Interaction, match_id: int, step: int, raw: str) -> None:
    """Submit an answer for the clicking user; acknowledge or refuse, ephemerally. In a DM, an
    acknowledgement carries the seat's next prompt when it comes at once (``send_next``)."""
    bot = floral_bot(interaction)
    # in the DMs, unless another process deferred it ephemerally (``bot.handoff``)
    riding = interaction.guild is None and not interaction.response.is_done()
    result = await bot.host.submit(match_id, interaction.user.id, raw, step=step, reply=riding)
    text = ack_text(result) if result.accepted else refusal_text(result)
    if riding and await send_next(bot, result, text, interaction.response.send_message):
        return
    await respond(interaction, text)


async def send_next(
    bot: FloralBot,
    result: SubmitResult,
    head: str,
    send: Callable[..., Awaitable[object]],
) -> bool:
    """Send ``head`` (an answer's acknowledgement) with what its seat is sent next, in one
    message (``Host.reply_messages``): a button's answer costs none of the bot's requests, so
    its next prompt goes free; a typed one's reply is one request for both. False (nothing
    sent) when nothing is waiting or it does not fit one message: the outbox sends it."""
    if not result.accepted or bot.transport is None:
        return False
    handover = await bot.host.reply_messages(result)
    if handover is None:
        return False
    reply = await bot.transport.reply(head, handover.deliveries)
    if reply is None:
        await handover.done(False)
        return False
    try:
        await send(reply.content, **reply.kwargs)
    except BaseException:
        await handover.done(False)
        raise
    await handover.done(True)
    return True


async def answer_keys(
    interaction: discord.Interaction, match_id: int, step: int, keys: Sequence[str]
) -> None:
    """Submit the choices ``keys`` stand for. Keys that map to nothing (an old prompt) go to the
    host as they are, so it refuses them with its usual reason."""
    bot = floral_bot(interaction)
    found = open_request(bot, interaction.user.id, match_id, step)
    if found is None:
        await answer(interaction, match_id, step, ",".join(keys))
        return
    request = found.request
    values = [c.value for c in request.choices]
    raw = request.join_answer([value_of(key, values) or key for key in keys])
    await answer(interaction, match_id, step, raw)


class ChoiceButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=rf"fx:(?P<match>\d+):(?P<step>\d+):(?P<key>{KEY})",
):
    """One choice of a prompt (a flower, a rune, a coin; a declaration when there are few)."""

    def __init__(
        self,
        match_id: int,
        step: int,
        key: str,
        label: str = "",
        quiet: bool = False,
        value: str | None = None,
    ) -> None:
        style = discord.ButtonStyle.secondary if quiet else discord.ButtonStyle.primary
        super().__init__(
            discord.ui.Button(
                label=clip(label or (value or key), BUTTON_LABEL),
                style=style,
                custom_id=f"fx:{match_id}:{step}:{key}",
            )
        )
        self.match_id, self.step, self.key = match_id, step, key
        self.value = key if value is None else value  # after a restart: mapped on a click

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ChoiceButton:
        return cls(int(match["match"]), int(match["step"]), match["key"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_keys(interaction, self.match_id, self.step, [self.key])


class DeclareSelect(
    discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]],
    template=r"fx:(?P<kind>[A-Za-z][A-Za-z0-9_-]{0,19}):(?P<match>\d+):(?P<step>\d+)"
    r"(?::(?P<n>\d+))?",
):
    """Choices as a menu: a group the game shows as a menu (Floral Extract's declarations),
    choices past what buttons can hold (``kind`` "menu") or a multi-choice answer ("multi").
    Its options' values are choice keys, or ``>page`` to turn a paged menu's page."""

    def __init__(
        self,
        match_id: int,
        step: int,
        options: list[discord.SelectOption] | None = None,
        *,
        kind: str = "menu",
        n: int = 0,
        placeholder: str = "Choose…",
        min_values: int = 1,
        max_values: int = 1,
    ) -> None:
        suffix = f":{n}" if n else ""
        super().__init__(
            discord.ui.Select(
                custom_id=f"fx:{kind}:{match_id}:{step}{suffix}",
                placeholder=placeholder,
                options=options or [discord.SelectOption(label="?")],
                min_values=min_values,
                max_values=max_values,
            )
        )
        self.match_id, self.step, self.kind, self.n = match_id, step, kind, n

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> DeclareSelect:
        return cls(
            int(match["match"]), int(match["step"]), kind=match["kind"], n=int(match["n"] or 0)
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        values = self.item.values
        if self.kind == PICK:
            await self.pick(interaction, values)
            return
        turn = next((v for v in values if v.startswith(PAGE)), None)
        if turn is not None:
            await self.show_page(interaction, int(turn[1:]) if turn[1:].isdigit() else 0)
            return
        await answer_keys(interaction, self.match_id, self.step, values)

    async def pick(self, interaction: discord.Interaction, keys: Sequence[str]) -> None:
        """This menu's picks replace its earlier ones among the prompt's picks so far; the
        prompt shows them (nothing is sent until Send)."""
        found = open_request(floral_bot(interaction), interaction.user.id, self.match_id, self.step)
        if found is None:  # an old prompt: the host says why
            await answer(interaction, self.match_id, self.step, ",".join(keys))
            return
        count = len(found.request.choices)
        mine = set(range(self.n * PER_MENU, min(count, (self.n + 1) * PER_MENU)))
        index = {
            key: i for i, key in enumerate(choice_keys([c.value for c in found.request.choices]))
        }
        chosen = {index[key] for key in keys if key in index} & mine
        picked = (latest_picks(interaction, count) - mine) | chosen
        remember_picks(interaction, frozenset(picked))
        payload = request_to_json(found.request, self.match_id, self.step, found.deadline)
        screen = {(PICK, 0): self.n // PICK_SCREEN}
        await update_message(interaction, view=prompt_view(payload, screen, picked))

    async def show_page(self, interaction: discord.Interaction, page: int) -> None:
        """Edit the prompt to show another page of this menu (the request is still open)."""
        found = open_request(floral_bot(interaction), interaction.user.id, self.match_id, self.step)
        if found is None:  # an old prompt: the host says why
            await answer(interaction, self.match_id, self.step, f"{PAGE}{page}")
            return
        payload = request_to_json(found.request, self.match_id, self.step, found.deadline)
        view = prompt_view(payload, pages={(self.kind, self.n): page})
        await update_message(interaction, view=view)


def turns_a_page(data: Mapping[str, Any]) -> bool:
    """A raw interaction that picks a menu's page-turning option, a pick kept in the prompt or
    another screen of picks (each edits the prompt)."""
    if custom_id_of(data).startswith((f"fx:{PICK}:", SCREEN)):
        return True
    values = data.get("data", {}).get("values") if data.get("type") == 3 else None
    return isinstance(values, list) and any(str(v).startswith(PAGE) for v in values)


# message id -> the picks this process last showed on that prompt, newest last: a second pick
# made before the first one's edit reached the player's screen carries the old picks
_latest_picks: dict[int, frozenset[int]] = {}


def latest_picks(interaction: discord.Interaction, count: int) -> frozenset[int]:
    """The prompt's picks so far: those this process last showed on it, or (after a restart)
    those its Send button carries."""
    message = interaction.message
    kept = _latest_picks.get(message.id) if message is not None else None
    return kept if kept is not None else picks_shown(interaction, count)


def remember_picks(interaction: discord.Interaction, picked: frozenset[int]) -> None:
    message = interaction.message
    if message is None:
        return
    _latest_picks.pop(message.id, None)
    _latest_picks[message.id] = picked
    while len(_latest_picks) > PICKS_KEPT:
        del _latest_picks[next(iter(_latest_picks))]


def picks_shown(interaction: discord.Interaction, count: int) -> frozenset[int]:
    """The picks so far of the prompt whose component was used: its Send button's."""
    message = interaction.message
    for row in message.components if message is not None else []:
        for part in getattr(row, "children", ()):
            sent = SENT.fullmatch(getattr(part, "custom_id", None) or "")
            if sent is not None:
                return picks_of(sent["picks"], count)
    return frozenset()


@dataclass(slots=True)
class Menu:
    """One select menu of a prompt: the choices (indices) it offers over all its pages."""

    kind: str
    indices: list[int]
    placeholder: str = "Choose…"
    n: int = 0
    multi: tuple[int, int] | None = None  # (min, max) choices of a multi-choice answer
    # a two-step menu: each stage's name and choices; its first pages (``lists``: one, or one
    # per 24 stages past 25) list the stages, the next ones each show a stage's choices
    steps: list[tuple[str, list[int]]] | None = None
    group: str = ""  # the choice group it shows (none: several, or choices past the buttons)
    pages: int = field(init=False, default=1)
    lists: int = field(init=False, default=1)

    def __post_init__(self) -> None:
        if self.steps is not None:
            self.lists = 1 if len(self.steps) <= PER_MENU else -(-len(self.steps) // PER_PAGE)
            self.pages = self.lists + len(self.steps)
        elif len(self.indices) > PER_MENU:
            self.pages = -(-len(self.indices) // PER_PAGE)

    def page_indices(self, page: int) -> list[int]:
        if self.steps is not None:
            return [] if page < self.lists else self.steps[page - self.lists][1]
        if self.pages == 1:
            return self.indices
        return self.indices[page * PER_PAGE : (page + 1) * PER_PAGE]

    def stages_listed(self, page: int) -> range:
        """The stages a listing page shows (by their index in ``steps``)."""
        assert self.steps is not None
        if self.lists == 1:
            return range(len(self.steps))
        return range(page * PER_PAGE, min(len(self.steps), (page + 1) * PER_PAGE))


def stages_of(
    choices: Sequence[Mapping[str, Any]], indices: list[int]
) -> list[tuple[str, list[int]]] | None:
    """A ``"steps"`` group's stages in order (a stage past a page as several, ``Salt``, ``Salt
    (2)``), or None when it reads better as one menu: a single stage that fits a page, or a
    choice without one. Past 25 stages, the stages are listed over pages (a Flaky Flasks hand
    of 27 cards)."""
    stages: dict[str, list[int]] = {}
    for i in indices:
        stages.setdefault(str(choices[i].get("stage") or ""), []).append(i)
    paged = [part for name, members in stages.items() for part in paged_stage(name, members)]
    return None if "" in stages or len(paged) < 2 else paged


def paged_stage(name: str, members: list[int]) -> list[tuple[str, list[int]]]:
    """A stage as stages of at most a page each: ``name``, ``name (2)`` …"""
    chunks = [members[i : i + PER_PAGE] for i in range(0, len(members), PER_PAGE)]
    return [(name if k == 0 else f"{name} ({k + 1})", chunk) for k, chunk in enumerate(chunks)]


def menu_kind(group: str) -> str:
    """A group's name as a menu id's kind when it can be one (it must not look like a match id)."""
    return group if re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,19}", group) else "menu"


def plan(request: Mapping[str, Any]) -> tuple[list[int], list[int], list[Menu]]:
    """(buttons, quiet buttons, menus) for a request's choices, by index, in at most five rows."""
    choices = list(request.get("choices", []))
    low, high = int(request.get("min_choices", 1)), int(request.get("max_choices", 1))
    if high > 1:
        span = f"{low}" if low == high else f"{low} to {high}"
        if not PER_MENU < len(choices) <= MULTI_MOST:
            every = list(range(len(choices)))
            return [], [], [Menu("multi", every, f"Choose {span}…", 0, (low, high))]
        starts = range(0, len(choices), PER_MENU)
        return [], [], [
            Menu(PICK, list(range(start, min(len(choices), start + PER_MENU))),
                 f"Choose {span} in all: {start + 1}–{min(len(choices), start + PER_MENU)}…",
                 n, (low, high))
            for n, start in enumerate(starts)
        ]  # fmt: skip
    hints: Mapping[str, str] = request.get("presentation") or {}
    groups: dict[str, list[int]] = {}
    for i, choice in enumerate(choices):
        groups.setdefault(choice["group"], []).append(i)
    buttons: list[int] = []
    quiet: list[int] = []
    menus: list[Menu] = []
    for group, indices in groups.items():
        steps = stages_of(choices, indices) if hints.get(group) == "steps" else None
        label = clip(f"{group.capitalize()}…" if group else "Choose…", 100)
        if steps is not None:
            menus.append(Menu(menu_kind(group), indices, label, steps=steps, group=group))
        elif hints.get(group) not in ("menu", "steps"):
            buttons += indices
        elif len(indices) < MENU_FROM:  # one or two read better as (quiet) buttons
            quiet += indices
        else:
            menus.append(Menu(menu_kind(group), indices, label, group=group))
    if len(menus) >= ROWS:  # too many menus: the plain ones join as one, the group first
        joined = joined_menus(menus)
        if joined is None:  # not even so: one paged menu of everything
            return [], [], [Menu("menu", list(range(len(choices))))]
        menus = joined
    loose = buttons + quiet
    rows_left = ROWS - len(menus)
    if len(loose) <= rows_left * PER_ROW:
        return buttons, quiet, number(menus)
    chunks = [loose[i : i + PER_MENU] for i in range(0, len(loose), PER_MENU)]
    if len(chunks) > rows_left:
        chunks = [loose]  # paged
    return [], [], number(menus + [Menu("menu", chunk) for chunk in chunks])


def joined_menus(menus: list[Menu]) -> list[Menu] | None:
    """More menus than a message has rows for (a row kept for buttons): the two-step ones as
    they are, and the others joined in one two-step menu whose first step picks the group (a
    group past a page takes several stages, ``Buy``, ``Buy (2)``); None when that is still too
    many rows or stages."""
    kept = [menu for menu in menus if menu.steps is not None]
    stages: list[tuple[str, list[int]]] = []
    for menu in menus:
        if menu.steps is None:
            name = menu.group.replace("_", " ").capitalize() or "Other"
            stages += paged_stage(name, menu.indices)
    if len(kept) + 1 >= ROWS or len(stages) > PER_MENU:
        return None
    indices = [i for _, members in stages for i in members]
    return [*kept, Menu("menu", indices, "Choose what to do…", steps=stages)]


def number(menus: list[Menu]) -> list[Menu]:
    """Give menus of the same kind distinct numbers, so their custom ids differ."""
    seen: Counter[str] = Counter()
    for menu in menus:
        menu.n = seen[menu.kind]
        seen[menu.kind] += 1
    return menus


def screens(menus: Sequence[Menu]) -> int:
    """The screens a request's menus take: several for many menus of picks, else one."""
    picking = [menu for menu in menus if menu.kind == PICK]
    return max(1, -(-len(picking) // PICK_SCREEN))


def menu_select(
    request: Mapping[str, Any],
    keys: Sequence[str],
    menu: Menu,
    page: int,
    picked: Collection[int] = (),
) -> DeclareSelect:
    choices = request["choices"]
    page = page % menu.pages
    shown = menu.page_indices(page)
    options = [
        discord.SelectOption(
            label=clip(choices[i]["label"] or choices[i]["value"], OPTION_LABEL),
            value=keys[i],
            default=i in picked,
        )
        for i in shown
    ]
    placeholder = menu.placeholder
    if menu.steps is not None:  # first the stage, then the choices of that stage
        if page < menu.lists:
            options = [stage_option(menu, k) for k in menu.stages_listed(page)]
            if menu.lists > 1:
                after = (page + 1) % menu.lists
                more = f"More… (page {after + 1} of {menu.lists})" if after else "Back to page 1…"
                options.append(discord.SelectOption(label=more, value=f"{PAGE}{after}"))
                placeholder = f"{placeholder} (page {page + 1} of {menu.lists})"
        else:
            stage = page - menu.lists
            back = stage // PER_PAGE if menu.lists > 1 else 0
            options.append(discord.SelectOption(label="← Back", value=f"{PAGE}{back}"))
            placeholder = f"{menu.steps[stage][0]}: choose…"
    elif menu.pages > 1:
        after = (page + 1) % menu.pages
        more = f"More… (page {after + 1} of {menu.pages})" if after else "Back to page 1…"
        options.append(discord.SelectOption(label=more, value=f"{PAGE}{after}"))
        placeholder = f"{placeholder} (page {page + 1} of {menu.pages})"
    low, high = 1, 1
    if menu.kind == PICK and menu.multi is not None:  # any of this menu's, none included
        low, high = 0, min(menu.multi[1], len(options))
    elif menu.multi is not None:
        low = min(menu.multi[0], len(shown), 1 if menu.pages > 1 else PER_MENU)
        high = max(low, min(menu.multi[1], len(options)))
    match_id, step = int(request["match_id"]), int(request["step"])
    return DeclareSelect(
        match_id,
        step,
        options,
        kind=menu.kind,
        n=menu.n,
        placeholder=clip(placeholder, 150),
        min_values=low,
        max_values=high,
    )


def stage_option(menu: Menu, k: int) -> discord.SelectOption:
    """The option that shows stage ``k`` of a two-step menu, saying how many ways it has."""
    assert menu.steps is not None
    name, members = menu.steps[k]
    return discord.SelectOption(
        label=clip(name, OPTION_LABEL),
        value=f"{PAGE}{menu.lists + k}",
        description=f"{len(members)} way{'s' if len(members) > 1 else ''}",
    )


def prompt_view(
    request: Mapping[str, Any],
    pages: Mapping[tuple[str, int], int] | None = None,
    picked: Collection[int] = frozenset(),
) -> discord.ui.View:
    """Buttons and menus for a request's choices (``pages``: the page each paged menu shows,
    by (kind, n), and for menus of picks the screen, by (``PICK``, 0); page 0 otherwise;
    ``picked``: the picks so far), and a Help button where a row has room. Never past
    Discord's limits."""
    choices = list(request.get("choices", []))
    match_id, step = int(request["match_id"]), int(request["step"])
    keys = choice_keys([c["value"] for c in choices])
    buttons, quiet, menus = plan(request) if choices else ([], [], [])
    view = discord.ui.View(timeout=None)
    for i in buttons + quiet:
        choice = choices[i]
        item = ChoiceButton(match_id, step, keys[i], choice["label"], i in quiet, choice["value"])
        view.add_item(item)
    if menus and menus[0].kind == PICK:
        add_picks(view, request, keys, menus, (pages or {}).get((PICK, 0), 0), picked)
    else:
        for menu in menus:
            page = (pages or {}).get((menu.kind, menu.n), 0)
            view.add_item(menu_select(request, keys, menu, page))
    with contextlib.suppress(ValueError):  # every row full: the how-to card names `help`
        view.add_item(HelpButton(match_id, step))
    return view


def add_picks(
    view: discord.ui.View,
    request: Mapping[str, Any],
    keys: Sequence[str],
    menus: Sequence[Menu],
    screen: int,
    picked: Collection[int],
) -> None:
    """A screen of menus of picks, then Send with every pick so far (and the next screen)."""
    match_id, step = int(request["match_id"]), int(request["step"])
    count, shown = len(keys), screens(menus)
    screen %= shown
    for menu in menus[screen * PICK_SCREEN : (screen + 1) * PICK_SCREEN]:
        view.add_item(menu_select(request, keys, menu, 0, picked))
    low, high = int(request.get("min_choices", 1)), int(request.get("max_choices", 1))
    view.add_item(SendButton(match_id, step, picks_word(picked, count), len(picked), (low, high)))
    if shown > 1:
        view.add_item(ScreenButton(match_id, step, (screen + 1) % shown, shown))


class SendButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=SENT.pattern,
):
    """Send a multi-choice answer picked in several menus: the picks its id carries."""

    def __init__(
        self, match_id: int, step: int, word: str, count: int = 0, span: tuple[int, int] = (1, 1)
    ) -> None:
        low, high = span
        wanted = f"{low}" if low == high else f"{low} to {high}"
        super().__init__(
            discord.ui.Button(
                label=f"✅ Send {count} picked ({wanted} wanted)",
                style=discord.ButtonStyle.success,
                custom_id=f"{DONE}{match_id}:{step}:p{word}",
            )
        )
        self.match_id, self.step, self.word = match_id, step, word

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> SendButton:
        return cls(int(match["match"]), int(match["step"]), match["picks"])

    async def callback(self, interaction: discord.Interaction) -> None:
        found = open_request(floral_bot(interaction), interaction.user.id, self.match_id, self.step)
        if found is None:  # an old prompt: the host says why
            await answer(interaction, self.match_id, self.step, "")
            return
        raw = picks_answer(found.request, self.word)
        await answer(interaction, self.match_id, self.step, raw)


def picks_answer(request: Request, word: str) -> str:
    """The answer a Send button's picks make: their values, in the choices' order, joined as
    a player would type them."""
    picked = sorted(picks_of(word, len(request.choices)))
    return request.join_answer([request.choices[i].value for i in picked])


class ScreenButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=rf"{SCREEN}(?P<match>\d+):(?P<step>\d+):s(?P<screen>\d+)",
):
    """Show another screen of a multi-choice request's menus, the picks so far kept."""

    def __init__(self, match_id: int, step: int, screen: int, screens: int = 0) -> None:
        where = f" ({screen + 1} of {screens})" if screens else ""
        super().__init__(
            discord.ui.Button(
                label=f"More choices…{where}",
                style=discord.ButtonStyle.secondary,
                custom_id=f"{SCREEN}{match_id}:{step}:s{screen}",
            )
        )
        self.match_id, self.step, self.screen = match_id, step, screen

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> ScreenButton:
        return cls(int(match["match"]), int(match["step"]), int(match["screen"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        found = open_request(floral_bot(interaction), interaction.user.id, self.match_id, self.step)
        if found is None:  # an old prompt: the host says why
            await answer(interaction, self.match_id, self.step, "")
            return
        picked = latest_picks(interaction, len(found.request.choices))
        payload = request_to_json(found.request, self.match_id, self.step, found.deadline)
        view = prompt_view(payload, {(PICK, 0): self.screen}, picked)
        await update_message(interaction, view=view)


class HelpButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=rf"{HELP_PREFIX}(?P<match>\d+):(?P<step>\d+):\?",
):
    """A prompt's Help: the decision's reference (``Request.help``), just for the clicker."""

    def __init__(self, match_id: int, step: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="❔ Help",
                style=discord.ButtonStyle.secondary,
                custom_id=f"{HELP_PREFIX}{match_id}:{step}:?",
            )
        )
        self.match_id, self.step = match_id, step

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> HelpButton:
        return cls(int(match["match"]), int(match["step"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        found = open_request(floral_bot(interaction), interaction.user.id, self.match_id, self.step)
        if found is None:
            await respond(interaction, "✖ That prompt has expired; answer the current one.")
            return
        await respond(interaction, help_text(found.request, self.match_id))


def help_text(request: Request, match_id: int) -> str:
    """What ``help`` answers at a prompt: the game's reference for this decision
    (``Request.help``); for a game that gives none, the prompt again and how to answer it."""
    head = f"❔ **Help: your prompt in match {match_name(match_id)}**"
    body = request.help.strip() or f"{request.prompt}\n{how_to_answer(request)}"
    return fit(f"{head}\n{body}")


def how_to_answer(request: Request) -> str:
    """How a prompt is answered: its buttons or menu, or the choices typed; and its default."""
    values = [choice.value for choice in request.choices]
    if not values:
        ways = "Type your answer here or use `/submit`."
    elif request.max_choices > 1:
        span = f"{request.min_choices} to {request.max_choices}"
        example = request.join_answer(values[:2])
        ways = (
            f"Pick {span} in the menu, or type them joined by {request.separator!r}"
            f" (as in `{example}`). The choices: {choices_text(request)}."
        )
    else:
        ways = f"Use a button or the menu, or type one of: {choices_text(request)}."
    return f"{ways} If you don't answer in time: {request.default}."


def is_a_choice(request: Request, text: str) -> bool:
    """Whether ``text`` names one of the request's choices (then it is an answer, not a word
    the bot answers itself, such as ``help``)."""
    return text.casefold() in {choice.value.casefold() for choice in request.choices}


def every_page(request: Mapping[str, Any]) -> Iterator[discord.ui.View]:
    """The prompt's view at each page of its paged menus (for checks: every choice reachable)."""
    view = prompt_view(request)
    if view is None:
        return
    yield view
    menus = plan(request)[2]
    for screen in range(1, screens(menus)):
        yield prompt_view(request, pages={(PICK, 0): screen})
    for menu in menus:
        for page in range(1, menu.pages):
            paged = prompt_view(request, pages={(menu.kind, menu.n): page})
            assert paged is not None
            yield paged


def offered_values(view: discord.ui.View, request: Mapping[str, Any]) -> list[str]:
    """The choice values a view's components answer with (page turns left out)."""
    values = [c["value"] for c in request.get("choices", [])]
    offered: list[str] = []
    for item in view.children:
        if isinstance(item, ChoiceButton):
            offered.append(item.value)
        elif isinstance(item, DeclareSelect):
            keys = [o.value for o in item.item.options if not o.value.startswith(PAGE)]
            offered += [v for v in (value_of(k, values) for k in keys) if v is not None]
    return offered


class WhichMatchButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"(?s)fa:(?P<match>\d+):(?P<step>\d+):(?P<raw>.+)",
):
    """An answer that fits prompts in several matches, sent to the one the player picks."""

    def __init__(self, match_id: int, step: int, raw: str, label: str = "") -> None:
        super().__init__(
            discord.ui.Button(
                label=clip(label or match_name(match_id), BUTTON_LABEL),
                style=discord.ButtonStyle.primary,
                custom_id=f"fa:{match_id}:{step}:{raw}",
            )
        )
        self.match_id, self.step, self.raw = match_id, step, raw

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> WhichMatchButton:
        return cls(int(match["match"]), int(match["step"]), match["raw"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer(interaction, self.match_id, self.step, self.raw)


@dataclass(frozen=True, slots=True)
class Routed:
    """Where an answer goes: the one prompt to submit it to; else what to tell the player (a
    which-match menu in ``view``, or why it answers none)."""

    prompt: OpenPrompt | None = None
    text: str = ""
    view: discord.ui.View | None = None
    refused: bool = False  # submitted to ``prompt``, and refused
    handed: bool = False  # sent to the process hosting its match, which answers the player
    result: SubmitResult | None = None  # submitted to ``prompt``: how it went


async def route(bot: FloralBot, user_id: int, raw: str, prompts: Sequence[OpenPrompt]) -> Routed:
    """Among several open prompts, the one whose game would take ``raw``."""
    if len(prompts) == 1:
        return Routed(prompts[0])
    verdicts = [(p, bot.host.would_accept(p.match_id, user_id, raw)) for p in prompts]
    fitting = [p for p, verdict in verdicts if isinstance(verdict, Accepted)]
    # a prompt answered for good takes nothing more: the ones still open come first
    fitting = [p for p in fitting if not p.answered or p.request.revisable] or fitting
    if len(fitting) == 1:
        return Routed(fitting[0])
    titles = {p.match_id: await prompt_title(bot, p.match_id) for p in prompts}
    if not fitting:
        lines = [
            f"• {titles[p.match_id]}: {clip(verdict.reason, REASON_CHARS)}"
            for p, verdict in verdicts[:ROUTE_SHOWN]
            if isinstance(verdict, Refused)
        ]
        return Routed(text="\n".join(["✖ That answers none of your prompts:", *lines]))
    shown = fitting[:ROUTE_SHOWN]
    buttons = [WhichMatchButton(p.match_id, p.step, raw, titles[p.match_id]) for p in shown]
    if any(len(button.item.custom_id or "") > 100 for button in buttons):
        return Routed(
            text="Your answer fits prompts in several matches: answer with the buttons of the"
            " prompt you mean, or `/submit` with its `match`."
        )
    view = discord.ui.View(timeout=None)
    for button in buttons:
        view.add_item(button)
    text = f"Your answer {excerpt(raw)} fits prompts in several matches: which one is it for?"
    return Routed(text=text, view=view)


async def prompt_title(bot: FloralBot, match_id: int) -> str:
    """``m3 · Toy Guess (practice)``: a match as a which-match menu names it."""
    record = (await bot.host.status(match_id)).match
    title = bot.host.game(record.game).title
    return f"{match_name(match_id)} · {title}{' (practice)' if record.practice else ''}"


async def submit_routed(
    bot: FloralBot,
    user_id: int,
    raw: str,
    prompts: Sequence[OpenPrompt],
    interaction: discord.Interaction | None = None,
    reply: bool = False,
) -> Routed:
    """``route``, then the answer submitted where it goes: the acknowledgement or refusal
    (and, when the player has several prompts, which match it went to). An answer for a match
    another process hosts goes there (``handed``: that process answers the player).
    ``reply``: the caller sends the seat's next messages with it (``send_next``)."""
    routed = await route(bot, user_id, raw, prompts)
    prompt = routed.prompt
    if prompt is None:
        return routed
    among = bot.among(prompts)
    if await bot.hand_over_answer(prompt.match_id, among, interaction):
        return Routed(prompt, handed=True)
    result = await bot.host.submit(prompt.match_id, user_id, raw, step=prompt.step, reply=reply)
    text = ack_text(result) if result.accepted else refusal_text(result)
    if among > 1:
        text = f"{text}\n↳ {await prompt_title(bot, prompt.match_id)}"
    return Routed(prompt, text, refused=not result.accepted, result=result)


def replying_once(message: discord.Message) -> Callable[..., Awaitable[discord.Message]]:
    """The channel's send for the reply to a typed DM, with a nonce of the DM's own: sent again
    (``typed_reply_nonce``), it is dropped by Discord, so the player sees one reply."""
    return functools.partial(message.channel.send, nonce=typed_reply_nonce(message.id))


class Prompts(commands.Cog):
    """Typed answers in DMs."""

    def __init__(self, bot: FloralBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.guild is not None or message.author.bot:
            return
        text = message.content.strip()
        if not text:
            return
        user_id = message.author.id
        prompts = await self.bot.open_prompts(user_id)
        word = text.casefold()
        if word in ASKED_WORDS and not any(is_a_choice(p.request, text) for p in prompts):
            await self._asked(message, word, prompts)
            return
        if len(text) > TYPED_MAX and not self._is_an_answer(user_id, text, prompts):
            await message.channel.send(
                fit(
                    "✖ That is not an answer to your prompt, so it is not sent."
                    f"{self._why_not(user_id, text, prompts)} Type an answer as the prompt"
                    " shows it, a short one (one character), or use the buttons or /submit."
                )
            )
            return
        routed = await self._typed(user_id, text, prompts)
        if routed.handed:  # the process hosting its match answers
            return
        send = replying_once(message)
        result = routed.result
        if result is not None and await send_next(self.bot, result, routed.text, send):
            return  # the reply carried the seat's next prompt
        extra: dict[str, Any] = {"view": routed.view} if routed.view is not None else {}
        await send(fit(routed.text), **extra)

    async def _asked(
        self, message: discord.Message, word: str, prompts: Sequence[OpenPrompt]
    ) -> None:
        """``help``: the open prompt's reference; ``cards``: the match's cards (first page)."""
        user_id = message.author.id
        if word == "help":
            await message.channel.send(fit(self._help(prompts)))
            return
        try:
            match_id = await my_match(self.bot, user_id, message.channel.id)
        except HostError as error:
            await message.channel.send(fit(f"✖ {error}"))
            return
        shown = await cards_page(self.bot, match_id, 1)
        extra: dict[str, Any] = {}
        if shown.embed is not None:
            extra["embed"] = shown.embed
        if shown.view is not None:
            extra["view"] = shown.view
        await message.channel.send(fit(shown.text), **extra)

    @staticmethod
    def _help(prompts: Sequence[OpenPrompt]) -> str:
        if len(prompts) == 1:
            return help_text(prompts[0].request, prompts[0].match_id)
        if prompts:
            return "You have prompts in several matches: press the Help button of the one you mean."
        return (
            "Nothing is asked of you right now. Type `cards` for your match's cards; `/rules`"
            " explains each game."
        )

    def _is_an_answer(self, user_id: int, text: str, prompts: Sequence[OpenPrompt]) -> bool:
        """Whether longer text answers an open prompt: it names choices (for a multi-choice
        request, only choices), or the game would take it (a typed grammar: ``discard A, B``).
        Other longer text is chat: refused here, never logged as an attempt."""
        for prompt in prompts:
            known = {choice.value.casefold() for choice in prompt.request.choices}
            if all(part.casefold() in known for part in prompt.request.split_answer(text)):
                return True
            if isinstance(self.bot.host.would_accept(prompt.match_id, user_id, text), Accepted):
                return True
        return False

    def _why_not(self, user_id: int, text: str, prompts: Sequence[OpenPrompt]) -> str:
        """The game's reason, when exactly one prompt is open (it may explain the grammar)."""
        if len(prompts) != 1:
            return ""
        verdict = self.bot.host.would_accept(prompts[0].match_id, user_id, text)
        return f" {verdict.reason}" if isinstance(verdict, Refused) else ""

    async def _typed(self, user_id: int, text: str, prompts: Sequence[OpenPrompt]) -> Routed:
        if prompts:
            return await submit_routed(self.bot, user_id, text, prompts, reply=True)
        # a paused match, say: the host tells why nothing can be answered now
        pinned = ANSWER_FOR.get()
        mine = [
            r.id
            for r in await self.bot.host.list_matches(active_only=True)
            if user_id in r.players and r.status in ("running", "paused")
        ]
        if pinned is not None:
            mine = [pinned.match_id]
        if len(mine) != 1:
            return Routed(text="Nothing is asked of you right now.")
        if await self.bot.hand_over_answer(mine[0], 1):
            return Routed(handed=True)
        return Routed(text=refusal_text(await self.bot.host.submit(mine[0], user_id, text)))


async def setup(bot: commands.Bot) -> None:
    assert isinstance(bot, FloralBot)
    bot.add_dynamic_items(
        ChoiceButton, DeclareSelect, SendButton, ScreenButton, HelpButton, WhichMatchButton
    )
    bot.views.build = prompt_view
    bot.page_turns.append(turns_a_page)
    await bot.add_cog(Prompts(bot))
