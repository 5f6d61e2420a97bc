"""A database that cannot be used stops every command with one line and a non-zero exit.

Each case runs the real commands as subprocesses (``python -m bot ...``) on a real file that is
really broken: garbage, truncated, immutable or on a read-only mount, on a full tmpfs, locked by
another process, or written by a newer floral-host. Mounts are made in a private mount namespace
(``unshare``), so they vanish with the process. ``run`` points at a socket that accepts TCP but
never answers: a bot that tried to reach Discord before checking its database would hang there,
and the socket records whether anyone connected.

Every subprocess has a time limit; it only stops a broken command (one that hangs) from hanging
the suite, and a hang fails the test.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.store import NewMatch
from bot.store.sqlite import SqliteStore
from games.protocol import Setup
from tests.bot.toy_game import GAME

REPO_ROOT = Path(__file__).resolve().parents[2]
HANG_LIMIT_S = 60.0
TOY = "tests.bot.toy_game"
WRITERS = ("run", "simulate")
READERS = ("audit", "export", "list", "backup")


# --- helpers --------------------------------------------------------------------------------


async def _fill(path: Path, matches: int) -> None:
    store = await SqliteStore.open(path)
    for index in range(matches):
        names = (f"Alice{index}", f"Bob{index}")
        config = GAME.parse_config({}, 2)
        state, _ = GAME.new_match(Setup(config, 2, index, names))
        new = NewMatch(TOY, 1, 2, (11, 12), names, (9,), config, index, None)
        await store.create_match(new, GAME.dump(state), 1_700_000_000.0 + index, [])
    await store.close()


def make_db(path: Path, matches: int = 3) -> Path:
    """A real floral-host database with ``matches`` toy matches (audit and export can read them)."""
    asyncio.run(_fill(path, matches))
    return path


@dataclass
class Result:
    name: str
    returncode: int
    stdout: str
    stderr: str

    def one_line(self, *words: str) -> str:
        """The single stderr line of a refusal, checked to hold each of ``words``."""
        lines = self.stderr.strip().splitlines()
        assert self.returncode == 1, (self.name, self.returncode, self.stdout, self.stderr)
        assert len(lines) == 1, (self.name, self.stderr)
        for word in words:
            assert word in lines[0], (self.name, word, lines[0])
        return lines[0]


class SilentDiscord:
    """A TCP port that accepts connections into its backlog and never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.setblocking(False)
        port = self.sock.getsockname()[1]
        self.env = {
            "DISCORD_TOKEN": "not.a.token",
            "DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10",
            "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}/gateway",
        }

    def contacted(self) -> bool:
        try:
            connection, _ = self.sock.accept()
        except BlockingIOError:
            return False
        connection.close()
        return True


@pytest.fixture
def discord() -> Iterator[SilentDiscord]:
    silent = SilentDiscord()
    yield silent
    silent.sock.close()


def command(name: str, db: Path, tmp: Path) -> list[str]:
    return {
        "run": ["run"],
        "simulate": ["simulate", TOY, "--quiet", "--db", str(db)],
        "audit": ["audit", "--db", str(db)],
        "export": ["export", "1", "--db", str(db)],
        "list": ["list", "--db", str(db)],
        "backup": ["backup", str(tmp / "copy.db"), "--db", str(db)],
    }[name]


def run_commands(
    names: Sequence[str],
    db: Path,
    tmp: Path,
    discord: SilentDiscord,
    setup: str | None = None,
    env: Mapping[str, str] | None = None,
) -> dict[str, Result]:
    """Run the commands (as separate processes) on ``db``: the readers at once, the writers one
    after another (two at once would meet the one-process-per-database refusal first, which
    tests/bot/test_owner.py tests); ``setup`` is shell run first in a private mount namespace.
    ``run`` finds the database through FLORAL_DB."""
    writers = [name for name in names if name in WRITERS]
    results = {}
    for batch in [*([name] for name in writers), [n for n in names if n not in WRITERS]]:
        results |= _run_at_once(batch, db, tmp, discord, setup, env)
    return results


def _run_at_once(
    names: Sequence[str],
    db: Path,
    tmp: Path,
    discord: SilentDiscord,
    setup: str | None,
    env: Mapping[str, str] | None,
) -> dict[str, Result]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "FLORAL_"))}
    full_env = {**base, "PYTHONPATH": str(REPO_ROOT), "FLORAL_DB": str(db), **discord.env}
    full_env.update(env or {})
    processes = {}
    for name in names:
        argv = [sys.executable, "-m", "bot", *command(name, db, tmp)]
        if setup is not None:
            script = f'{setup}\nexec "$@"'
            argv = ["unshare", "--mount", "--map-root-user", "sh", "-ec", script, "sh", *argv]
        processes[name] = subprocess.Popen(
            argv, cwd=tmp, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    results = {}
    for name, process in processes.items():
        try:
            out, err = process.communicate(timeout=HANG_LIMIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            pytest.fail(f"{name} hung on {db}")
        results[name] = Result(name, process.returncode, out, err)
    return results


def refused_by_all(results: Mapping[str, Result], db: Path, *words: str) -> None:
    for result in results.values():
        result.one_line(str(db), *words)


@pytest.fixture
def read_only_file() -> Iterator[list[Path]]:
    """Files made unwritable by ``make_read_only``: as root, permission bits do not stop writes,
    so root uses the immutable attribute (chattr +i), cleared afterwards."""
    made: list[Path] = []
    yield made
    for path in made:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(0o644)


def make_read_only(path: Path, registry: list[Path]) -> None:
    registry.append(path)
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(path)], check=True)
    else:
        path.chmod(0o444)


# --- cases ----------------------------------------------------------------------------------


def test_a_file_that_is_not_sqlite(tmp_path: Path, discord: SilentDiscord) -> None:
    db = tmp_path / "garbage.db"
    db.write_bytes(b"these are not the pages you are looking for\n" * 200)
    before = db.read_bytes()
    results = run_commands(WRITERS + READERS, db, tmp_path, discord)
    refused_by_all(results, db, "not a usable SQLite database")
    assert db.read_bytes() == before and not discord.contacted()


def test_a_truncated_database(tmp_path: Path, discord: SilentDiscord) -> None:
    db = make_db(tmp_path / "cut.db", matches=40)
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    results = run_commands(WRITERS + READERS, db, tmp_path, discord)
    refused_by_all(results, db, "malformed", "restore it from a backup")
    assert db.read_bytes() == data[: len(data) // 2] and not discord.contacted()


def test_damage_found_while_reading_is_one_line_too(tmp_path: Path, discord: SilentDiscord) -> None:
    """Only a page of match rows is damaged, so opening works and the damage shows mid-read."""
    db = make_db(tmp_path / "damaged.db", matches=60)
    data, page = bytearray(db.read_bytes()), 4096
    start = data.index(b"Alice30") // page * page
    data[start : start + page] = b"\xff" * page
    db.write_bytes(bytes(data))
    results = run_commands(("audit", "list", "backup"), db, tmp_path, discord)
    for name in ("audit", "list"):
        results[name].one_line(str(db), "not a usable SQLite database", "restore it from a backup")
    results["backup"].one_line(str(db), "damaged", "restore an earlier backup")
    assert not (tmp_path / "copy.db").exists()


def test_a_read_only_file_stops_writers_and_still_reads(
    tmp_path: Path, discord: SilentDiscord, read_only_file: list[Path]
) -> None:
    db = make_db(tmp_path / "frozen.db")
    make_read_only(db, read_only_file)
    results = run_commands(WRITERS + READERS, db, tmp_path, discord)
    for name in WRITERS:
        results[name].one_line(str(db), "read-only")
    assert results["audit"].returncode == 0, results["audit"].stderr
    first = json.loads(results["list"].stdout.splitlines()[0])
    assert (first["match"], first["game"], first["players"]) == ("m1", TOY, ["Alice0", "Bob0"])
    assert not discord.contacted()


def test_a_read_only_mount_stops_writers_and_still_reads(
    tmp_path: Path, discord: SilentDiscord
) -> None:
    folder = tmp_path / "mounted"
    folder.mkdir()
    db = make_db(folder / "host.db")
    read_only = f"mount --bind {folder} {folder}\nmount -o remount,bind,ro {folder}"
    results = run_commands(WRITERS + READERS, db, tmp_path, discord, setup=read_only)
    for name in WRITERS:
        results[name].one_line(str(db))
    assert results["audit"].returncode == 0, results["audit"].stderr
    assert json.loads(results["list"].stdout.splitlines()[0])["match"] == "m1"
    assert results["backup"].returncode == 0, results["backup"].stderr
    assert not discord.contacted()


def test_an_unwritable_folder_stops_writers(tmp_path: Path, discord: SilentDiscord) -> None:
    folder = tmp_path / "mounted"
    folder.mkdir()
    read_only = f"mount --bind {folder} {folder}\nmount -o remount,bind,ro {folder}"
    for db in (folder / "new.db", folder / "sub" / "new.db"):
        results = run_commands(WRITERS, db, tmp_path, discord, setup=read_only)
        refused_by_all(results, db, "writable")
    assert list(folder.iterdir()) == [] and not discord.contacted()


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_a_database_locked_by_another_process(
    tmp_path: Path, discord: SilentDiscord, journal: str
) -> None:
    db = make_db(tmp_path / "locked.db")
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(db), journal],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        results = run_commands(WRITERS + READERS, db, tmp_path, discord)
    finally:
        holder.communicate("", timeout=HANG_LIMIT_S)  # stdin closes: it rolls back and exits
    for name in WRITERS:
        results[name].one_line(str(db), "locked by another process")
    if journal == "wal":  # readers are not blocked by a writer
        assert results["audit"].returncode == 0, results["audit"].stderr
    else:  # an exclusive lock in rollback mode blocks readers too
        for name in READERS:
            results[name].one_line(str(db), "locked by another process")
    assert not discord.contacted()


LOCK_HOLDER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute(f"PRAGMA journal_mode={sys.argv[2]}")
db.execute("BEGIN EXCLUSIVE")
db.execute("INSERT INTO schema_migrations VALUES (1000, 'held')")
print("locked", flush=True)
sys.stdin.read()
db.execute("ROLLBACK")
"""


def test_a_full_disk(tmp_path: Path, discord: SilentDiscord) -> None:
    source = make_db(tmp_path / "source.db")
    disk = tmp_path / "disk"
    disk.mkdir()
    size_kb = source.stat().st_size // 1024 + 64
    full = (
        f"mount -t tmpfs -o size={size_kb}k tmpfs {disk}\ncp {source} {disk}/host.db\n"
        f"dd if=/dev/zero of={disk}/filler bs=4k 2>/dev/null || true"
    )
    results = run_commands(WRITERS + READERS, disk / "host.db", tmp_path, discord, setup=full)
    refused_by_all(results, disk / "host.db", "the disk is full")
    fresh = run_commands(WRITERS, disk / "new.db", tmp_path, discord, setup=full)
    refused_by_all(fresh, disk / "new.db", "the disk is full")
    assert not discord.contacted()


def test_a_newer_database_is_refused_and_left_untouched(
    tmp_path: Path, discord: SilentDiscord
) -> None:
    db = make_db(tmp_path / "future.db")
    with sqlite3.connect(db) as connection:
        connection.execute("INSERT INTO schema_migrations VALUES (99, 'later')")
    connection.close()
    before = db.read_bytes()
    results = run_commands(WRITERS + READERS, db, tmp_path, discord)
    refused_by_all(results, db, "newer floral-host", "schema version 99", "upgrade floral-host")
    assert db.read_bytes() == before and not discord.contacted()
    assert not (tmp_path / "copy.db").exists()


def test_missing_or_empty_files_are_reported_and_nothing_is_made(
    tmp_path: Path, discord: SilentDiscord
) -> None:
    absent = tmp_path / "absent" / "host.db"
    refused_by_all(run_commands(READERS, absent, tmp_path, discord), absent, "no database here")
    assert not absent.parent.exists()
    empty = tmp_path / "empty" / "host.db"
    empty.parent.mkdir()
    empty.touch()
    refused_by_all(run_commands(READERS, empty, tmp_path, discord), empty, "the file is empty")
    assert list(empty.parent.iterdir()) == [empty] and empty.stat().st_size == 0


def test_another_programs_sqlite_database_is_not_touched(
    tmp_path: Path, discord: SilentDiscord
) -> None:
    db = tmp_path / "other.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
    connection.close()
    before = db.read_bytes()
    results = run_commands(WRITERS + READERS, db, tmp_path, discord)
    refused_by_all(results, db, "not floral-host's")
    assert db.read_bytes() == before
