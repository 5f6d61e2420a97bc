"""``floral-host backup`` and ``floral-host list``: real processes on real database files."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.bot.test_storage_faults import HANG_LIMIT_S, REPO_ROOT, TOY, make_db

# Writes matches through the real store with automatic checkpoints off, so its commits stay in
# the -wal file; prints "committed N" after the first N, then writes until the stop file exists.
WRITER = """
import asyncio, sys
from pathlib import Path
from bot.store import NewMatch
from bot.store.sqlite import SqliteStore

async def write(path, first, stop):
    store = await SqliteStore.open(path)
    await store._db.execute("PRAGMA wal_autocheckpoint=0")
    count = 0
    while not stop.exists():
        new = NewMatch("toy", 1, 2, (11, 12), ("W", "X"), (9,), {}, count, None)
        await store.create_match(new, {"s": count}, 1.0, [])
        count += 1
        if count == first:
            print(f"committed {count}", flush=True)
    await store.close()

asyncio.run(write(Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])))
"""


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "FLORAL_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=HANG_LIMIT_S,
    )


def count(db: Path, sql: str) -> int:
    connection = sqlite3.connect(db)
    try:
        return int(connection.execute(sql).fetchone()[0])
    finally:
        connection.close()


def test_a_backup_taken_while_another_process_writes_is_whole_and_consistent(
    tmp_path: Path,
) -> None:
    db, stop = make_db(tmp_path / "live.db"), tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), "50", str(stop)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "committed 50\n"
        (tmp_path / "plain.db").write_bytes(db.read_bytes())  # what `cp` of the file gets
        done = cli("backup", str(tmp_path / "copy.db"), "--db", str(db), cwd=tmp_path)
    finally:
        stop.touch()
        writer.communicate(timeout=HANG_LIMIT_S)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"backed up {db} to {tmp_path / 'copy.db'} (")
    copy = tmp_path / "copy.db"
    assert count(tmp_path / "plain.db", "SELECT count(*) FROM matches") == 3  # the rest is in -wal
    matches = count(copy, "SELECT count(*) FROM matches")
    assert matches >= 53 and count(copy, "SELECT max(id) FROM matches") == matches
    assert count(copy, "SELECT count(*) FROM steps") == matches  # each match with its step 0
    connection = sqlite3.connect(copy)
    assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert connection.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # one file
    connection.close()
    assert not list(tmp_path.glob(".copy.db.partial*"))
    listed = cli("list", "--db", str(copy), cwd=tmp_path)
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == matches


def test_a_backup_never_overwrites_unless_forced(tmp_path: Path) -> None:
    db, dest = make_db(tmp_path / "host.db"), tmp_path / "old-backup.db"
    dest.write_bytes(b"an earlier backup")
    refused = cli("backup", str(dest), "--db", str(db), cwd=tmp_path)
    assert refused.returncode != 0 and dest.read_bytes() == b"an earlier backup"
    assert refused.stderr.strip() == (
        f"floral-host backup: {dest}: already exists; choose a new name, or --force replaces it"
    )
    forced = cli("backup", str(dest), "--db", str(db), "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert count(dest, "SELECT count(*) FROM matches") == 3


def test_a_backup_into_a_missing_folder_says_so(tmp_path: Path) -> None:
    db, dest = make_db(tmp_path / "host.db"), tmp_path / "nowhere" / "copy.db"
    refused = cli("backup", str(dest), "--db", str(db), cwd=tmp_path)
    assert refused.returncode != 0 and not dest.parent.exists()
    assert refused.stderr.strip() == (
        f"floral-host backup: {dest}: its folder does not exist; create the folder first"
    )


def test_a_backup_restores_as_a_working_database(tmp_path: Path) -> None:
    db = make_db(tmp_path / "host.db")
    assert cli("backup", str(tmp_path / "copy.db"), "--db", str(db), cwd=tmp_path).returncode == 0
    restored = tmp_path / "restored" / "floral-host.db"
    restored.parent.mkdir()
    (tmp_path / "copy.db").rename(restored)  # restore: the bot stopped, the copy put in place
    audit = cli("audit", "--db", str(restored), cwd=tmp_path)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert audit.stdout.splitlines()[-1] == '{"matches": 3, "finished": 0, "mismatches": 0}'


def test_list_shows_each_stored_match_with_its_status(tmp_path: Path) -> None:
    db = make_db(tmp_path / "host.db", matches=2)
    listed = cli("list", "--db", str(db), cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert [json.loads(line) for line in listed.stdout.splitlines()] == [  # piped: JSON
        {
            "match": f"m{n}",
            "game": TOY,
            "players": [f"Alice{n - 1}", f"Bob{n - 1}"],
            "status": "setup",
            "step": 0,
            "created": "2023-11-14 22:13 UTC",
        }
        for n in (1, 2)
    ]
    empty = tmp_path / "empty.db"
    make_db(empty, matches=0)
    nothing = cli("list", "--db", str(empty), cwd=tmp_path)
    assert (nothing.stdout, nothing.stderr) == ("", "no matches stored yet\n")
    (tmp_path / ".env").write_text(f"FLORAL_DB={db}\nFLORAL_GRACE_SECONDS=soon\n")
    from_env = cli("list", cwd=tmp_path)  # FLORAL_DB from .env; another bad setting is no matter
    assert from_env.returncode == 0 and from_env.stdout == listed.stdout, from_env.stderr
    missing = cli("list", "--db", str(tmp_path / "none.db"), cwd=tmp_path)
    assert missing.returncode != 0 and missing.stderr.count("\n") == 1
    assert "none.db: no database here" in missing.stderr


def test_a_database_of_an_older_version_is_backed_up_as_it_is(tmp_path: Path) -> None:
    """The backup one takes before an upgrade's first run: an older schema is copied untouched
    (audit and list ask for the upgrade first; backup reads no record)."""
    db, dest = make_db(tmp_path / "old.db"), tmp_path / "copy.db"
    with sqlite3.connect(db) as connection:  # as the previous floral-host left it
        connection.execute("ALTER TABLE matches DROP COLUMN timers")
        connection.execute("DELETE FROM schema_migrations WHERE version > 1")
    connection.close()
    before = db.read_bytes()
    done = cli("backup", str(dest), "--db", str(db), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert db.read_bytes() == before
    assert count(dest, "SELECT MAX(version) FROM schema_migrations") == 1
    assert count(dest, "SELECT count(*) FROM matches") == count(db, "SELECT count(*) FROM matches")
    listed = cli("list", "--db", str(db), cwd=tmp_path)
    assert listed.returncode == 1 and "older than this floral-host's" in listed.stderr
