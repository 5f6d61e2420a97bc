"""The pictures of any registered game, from its registry entry and its stored steps.

A game declares ``GameInfo.pictures`` (``games.registry.PictureHooks``): ``scores`` for the end
card's chart, and ``module``, the path of a module that may define

* ``seat_picture(view, names) -> Picture | None``: attached to a seat's turn DM (Floral
  Extract: the garden); ``view`` is ``game.view(state, seat)``;
* ``end_reveals(views, names) -> list[Reveal]``: tables the end card shows (Floral Extract: the
  rune maps); ``views`` are every seat's view of the final state, so the module decides what the
  end reveals to everyone.

A game without hooks still gets the end card with its title and winners. Both entry points are
plain, blocking functions: the Discord transport runs them in a worker thread.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from games.protocol import JSON
from games.registry import GameInfo
from pictures import Picture
from pictures.card import EndCard, Reveal, render


def _module(info: GameInfo) -> ModuleType | None:
    hooks = info.pictures
    if hooks is None or hooks.module is None:
        return None
    return importlib.import_module(hooks.module)


def end_card_data(
    info: GameInfo,
    names: Sequence[str],
    outcome: JSON,
    snapshots: Sequence[JSON],
    subtitle: str = "",
) -> EndCard:
    """What the end card shows: ``snapshots`` are the match's states in step order (step 0,
    the start, first), ``outcome`` the stored ``{"winners", "reason", ...}``."""
    game = info.game
    # every state for the chart; else the last alone (a long match loads in no time)
    chosen = snapshots if charts_scores(info) else snapshots[-1:]
    return end_card_of_states(info, names, outcome, [game.load(s) for s in chosen], subtitle)


def charts_scores(info: GameInfo) -> bool:
    """Whether the end card charts the scores over every step (else it needs the last state)."""
    return info.pictures is not None and info.pictures.scores is not None


def end_card_of_states(
    info: GameInfo,
    names: Sequence[str],
    outcome: JSON,
    states: Sequence[Any],
    subtitle: str = "",
) -> EndCard:
    """``end_card_data`` from the engine's states themselves: every step's in order when the
    card ``charts_scores``, else at least the last (a replay hands them over without a dump
    and load of each)."""
    game, hooks = info.game, info.pictures
    seats = len(names)
    turns: list[int] = []
    scores: list[tuple[float, ...]] = []
    if hooks is not None and hooks.scores is not None:
        for index, state in enumerate(states):
            row = [float(v) for v in hooks.scores(state)][:seats]
            row += [0.0] * (seats - len(row))
            turn = hooks.turn(state) if hooks.turn is not None else index
            if turns and turn == turns[-1]:
                scores[-1] = tuple(row)  # a step within the same turn: its last state counts
            else:
                turns.append(turn)
                scores.append(tuple(row))
    reveals: list[Reveal] = []
    module = _module(info)
    end_reveals = getattr(module, "end_reveals", None) if module is not None else None
    if end_reveals is not None and states:
        views = [game.view(states[-1], seat) for seat in range(seats)]
        reveals = list(end_reveals(views, names))
    found: Mapping[str, Any] = outcome if isinstance(outcome, Mapping) else {}
    winners = tuple(int(s) for s in found.get("winners") or () if isinstance(s, int))
    reason, detail = str(found.get("reason") or ""), str(found.get("detail") or "")
    if detail and any(name and name in detail for name in names):
        reason = detail.rstrip(".")  # written for people ("Ada brewed three Mandrake Root")
    return EndCard(
        game=info.name,
        title=info.title,
        names=tuple(names),
        winners=winners,
        reason=reason,
        subtitle=subtitle,
        turns=tuple(turns),
        scores=tuple(scores),
        score_label=hooks.score_label if hooks is not None else "points",
        turn_label=hooks.turn_label if hooks is not None else "turn",
        reveals=tuple(reveals),
    )


def end_card(
    info: GameInfo,
    names: Sequence[str],
    outcome: JSON,
    snapshots: Sequence[JSON],
    subtitle: str = "",
) -> Picture:
    """The end-of-match card of any game."""
    return render(end_card_data(info, names, outcome, snapshots, subtitle))


def has_seat_picture(info: GameInfo) -> bool:
    module = _module(info)
    return module is not None and hasattr(module, "seat_picture")


def seat_picture(info: GameInfo, snapshot: JSON, seat: int, names: Sequence[str]) -> Picture | None:
    """The game's picture for one seat's DM after the step ``snapshot`` follows, if it has one."""
    module = _module(info)
    draw = getattr(module, "seat_picture", None) if module is not None else None
    if draw is None:
        return None
    game = info.game
    view = game.view(game.load(snapshot), seat)
    picture = draw(view if isinstance(view, Mapping) else {}, names)
    return picture if isinstance(picture, Picture) else None


__all__ = [
    "charts_scores",
    "end_card",
    "end_card_data",
    "end_card_of_states",
    "has_seat_picture",
    "seat_picture",
]
