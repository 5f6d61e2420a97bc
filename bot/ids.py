"""Match ids as people type them: ``m12`` (as the bot shows them) or ``12``."""

from __future__ import annotations

import re

_MATCH_ID = re.compile(r"[mM]?#?([0-9]{1,18})")


def parse_match_id(text: str) -> int:
    """The match id in ``text`` (``m12``, ``M12``, ``#12`` or ``12``); ValueError names the
    accepted forms and quotes at most a short excerpt of anything else."""
    found = _MATCH_ID.fullmatch(text.strip())
    if found is None or int(found.group(1)) < 1:
        excerpt = text if len(text) <= 20 else text[:20] + "…"
        raise ValueError(f"not a match id: {excerpt!r} (expected m12 or 12)")
    return int(found.group(1))
