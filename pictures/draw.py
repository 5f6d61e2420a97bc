"""Drawing helpers shared by every picture: the palette, fonts, a canvas drawn at twice the size
and reduced (smooth edges without a slow filter), PNG encoding and text fitting.

Fonts are Pillow's own (``ImageFont.load_default(size=...)``, Pillow >= 10.1): no font file,
no system path.
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

COMPRESS_LEVEL = 3  # zlib: level 6 takes half as long again for files ~10% smaller
SCALE = 2  # drawn at this multiple, then reduced: anti-aliased shapes and text

Colour = tuple[int, int, int]

BACKGROUND: Colour = (251, 247, 239)
PANEL: Colour = (255, 255, 255)
PANEL_EDGE: Colour = (226, 218, 204)
INK: Colour = (45, 42, 38)
MUTED: Colour = (128, 120, 110)
GRID: Colour = (232, 226, 216)
ACCENT: Colour = (46, 125, 91)  # the host's green
GOLD: Colour = (214, 162, 42)

# one colour per seat, distinct for common colour blindness (Okabe-Ito)
SEAT_COLOURS: tuple[Colour, ...] = (
    (0, 114, 178),
    (213, 94, 0),
    (0, 158, 115),
    (204, 121, 167),
    (230, 159, 0),
    (86, 180, 233),
    (120, 100, 60),
    (90, 90, 90),
)


def seat_colour(seat: int) -> Colour:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def mix(a: Colour, b: Colour, t: float) -> Colour:
    """``a`` moved a fraction ``t`` towards ``b``."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def one_line(text: str) -> str:
    """``text`` on one line without control characters (names are anyone's text)."""
    return "".join(
        " " if ch.isspace() else ch
        for ch in text
        if unicodedata.category(ch) not in ("Cc", "Cs") or ch.isspace()
    )


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's default font at ``size`` points of the final image."""
    return ImageFont.load_default(size=size * SCALE)


@dataclass
class Canvas:
    """An image drawn in final-image coordinates at ``SCALE`` times the size."""

    width: int
    height: int
    background: Colour = BACKGROUND

    def __post_init__(self) -> None:
        self.image = Image.new("RGB", (self.width * SCALE, self.height * SCALE), self.background)
        self.draw = ImageDraw.Draw(self.image)

    @staticmethod
    def _s(value: float) -> int:
        return round(value * SCALE)

    def box(self, box: Sequence[float]) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = box
        return (self._s(x0), self._s(y0), self._s(x1), self._s(y1))

    def rect(
        self,
        box: Sequence[float],
        fill: Colour | None = None,
        outline: Colour | None = None,
        width: float = 1,
        radius: float = 0,
    ) -> None:
        self.draw.rounded_rectangle(
            self.box(box), self._s(radius), fill=fill, outline=outline, width=self._s(width)
        )

    def ellipse(
        self,
        centre: tuple[float, float],
        rx: float,
        ry: float | None = None,
        fill: Colour | None = None,
        outline: Colour | None = None,
        width: float = 1,
    ) -> None:
        x, y = centre
        ry = rx if ry is None else ry
        self.draw.ellipse(
            self.box((x - rx, y - ry, x + rx, y + ry)),
            fill=fill,
            outline=outline,
            width=self._s(width),
        )

    def polygon(
        self, points: Sequence[tuple[float, float]], fill: Colour, outline: Colour | None = None
    ) -> None:
        self.draw.polygon([(self._s(x), self._s(y)) for x, y in points], fill=fill, outline=outline)

    def line(self, points: Sequence[tuple[float, float]], fill: Colour, width: float = 1) -> None:
        scaled = [(self._s(x), self._s(y)) for x, y in points]
        self.draw.line(scaled, fill=fill, width=self._s(width), joint="curve")

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int = 14,
        fill: Colour = INK,
        anchor: str = "la",
        bold: bool = False,
    ) -> None:
        self.draw.text(
            (self._s(xy[0]), self._s(xy[1])),
            one_line(text),
            font=font(size),
            fill=fill,
            anchor=anchor,
            stroke_width=1 if bold else 0,
            stroke_fill=fill,
        )

    def text_width(self, text: str, size: int = 14) -> float:
        return float(self.draw.textlength(one_line(text), font=font(size))) / SCALE

    def fit_text(self, text: str, size: int, width: float) -> str:
        """``text`` cut with an ellipsis to fit ``width``."""
        text = one_line(text)
        if self.text_width(text, size) <= width:
            return text
        while text and self.text_width(text + "…", size) > width:
            text = text[:-1]
        return text + "…"

    def png(self) -> bytes:
        """The image at its final size as a PNG. Full colour: a palette would be smaller, but
        its colours shift with the content, so parts that did not change would."""
        final = self.image.reduce(SCALE)
        out = io.BytesIO()
        final.save(out, "PNG", compress_level=COMPRESS_LEVEL)
        return out.getvalue()
