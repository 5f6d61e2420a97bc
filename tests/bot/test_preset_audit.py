"""A spellbook preset is read once, at setup: editing the preset file later changes nothing in
the audit or the export of a match set up with it. Matches stored before that (their config
names the preset) still load and audit, reading the preset as they always did."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bot.audit import audit_store
from bot.export import export_match
from bot.store import MatchRecord, NewMatch
from games.floral_extract import GAME, books
from games.floral_extract.config import PRESET_KEY
from games.protocol import Setup
from tests.bot.conftest import CHANNEL, GUILD, PLAYERS, HostEnv

CLASSIC = books.load_preset("classic").to_json()
EDITED_WATER = {"type": "set", "n": 3, "set": [4, 5, 6]}


async def play(env: HostEnv, record: MatchRecord, windows: int = 5) -> None:
    """A few windows, every seat answering one of the choices it is offered, then the end."""
    for window in range(windows):
        await env.host.wait_idle()
        state = GAME.load((await env.host.store.latest_step(record.id)).snapshot)
        for request in GAME.requests(state):
            choice = request.choices[(window + request.seat) % len(request.choices)]
            answer = await env.host.submit(record.id, PLAYERS[request.seat], choice.value)
            assert answer.accepted, answer.text
    await env.host.wait_idle()
    await env.host.end(record.id)


def edit_classic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The presets from a copy whose classic book waters on other runes."""
    presets = tmp_path / "presets"
    shutil.copytree(Path(str(books.PRESET_DIR)), presets)
    data = json.loads((presets / "classic.json").read_text())
    data["spellbook"]["water"] = EDITED_WATER
    (presets / "classic.json").write_text(json.dumps(data))
    monkeypatch.setattr(books, "PRESET_DIR", presets)
    assert books.load_preset("classic").to_json()["water"] == EDITED_WATER


async def test_a_preset_edited_after_setup_changes_no_audit_or_export(
    env: HostEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = await env.host.create_match(
        "floral-extract",
        guild_id=GUILD,
        channel_id=CHANNEL,
        players=PLAYERS,
        config={"spellbook": "Classic"},
        seed=11,
    )
    assert record.config["spellbook"] == CLASSIC and record.config[PRESET_KEY] == "classic"
    record = await env.host.start_match(record.id)
    await play(env, record)
    before = await export_match(env.host.store, record.id)

    edit_classic(tmp_path, monkeypatch)

    assert await audit_store(env.host.store) == ({"matches": 1, "finished": 1, "mismatches": 0}, [])
    after = await export_match(env.host.store, record.id)
    assert after == before and after["spellbook"] == CLASSIC


async def test_a_match_stored_with_a_preset_name_still_loads_and_audits(env: HostEnv) -> None:
    """As a database written before presets were read at setup holds it."""
    config = {**GAME.parse_config({}), "spellbook": "classic"}
    state, _ = GAME.new_match(Setup(config, 2, 5))
    new = NewMatch("floral-extract", GUILD, CHANNEL, PLAYERS, ("P1", "P2"), (), config, 5, None)
    match_id = await env.host.store.create_match(new, GAME.dump(state), env.clock(), [])
    host = await env.reopen()

    record = await host.start_match(match_id)
    assert record.config["spellbook"] == "classic"  # the stored config is left as it was
    await play(env, record)

    assert await audit_store(host.store) == ({"matches": 1, "finished": 1, "mismatches": 0}, [])
    assert (await export_match(host.store, match_id))["spellbook"] == CLASSIC
