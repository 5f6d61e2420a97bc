"""Pictures for Discord: pure functions from plain data (a game's view, its stored steps) to PNG
bytes and a text alternative (the attachment's description, for screen readers).

* ``pictures.card``: the end-of-match card every game gets (title, winners, the score over the
  turns as a chart when the game declares ``PictureHooks.scores``, and what the game reveals);
* ``pictures.floral_extract``: a Floral Extract player's garden, and its rune maps at the end;
* ``pictures.hooks``: what a game's picture module may declare, and the two entry points the
  Discord transport calls (``end_card``, ``seat_picture``).

Nothing here touches Discord, the clock or the store; the transport renders off the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass

DESCRIPTION_LIMIT = 1024  # Discord's limit on an attachment's description


def fit_description(text: str, limit: int = DESCRIPTION_LIMIT) -> str:
    """``text`` within Discord's limit, cut at a word with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut + "…"


@dataclass(frozen=True, slots=True)
class Picture:
    """A rendered image: PNG bytes, its text alternative (<= 1,024 characters) and a file name."""

    png: bytes
    description: str
    filename: str

    def __post_init__(self) -> None:
        if len(self.description) > DESCRIPTION_LIMIT:
            object.__setattr__(self, "description", fit_description(self.description))


__all__ = ["DESCRIPTION_LIMIT", "Picture", "fit_description"]
