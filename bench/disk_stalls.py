"""Does this disk stall on a sync, and is the stall the device's? Prints JSON; no host, no bot.

An acknowledgement waits for its move's line in the answers' journal to be fdatasync'ed
(``bot.store.journal``), so a disk whose sync now and then takes 100 ms makes every ack waiting
meanwhile that late, whatever the host does (``bench/host_load.py``: ``journal_sync_ms_max``).
This measures the disk alone: two threads, each appending small records (``--bytes``) to a file
of its own in a new folder under ``--dir`` and fdatasync'ing after each one, for ``--seconds``.

Usage: python bench/disk_stalls.py [--seconds 60] [--dir DIR] [--stall-ms 30] [--bytes 200]

``--dir``: the system's temp folder by default; give the database's folder to measure its disk.

Reading the result: ``files.a``/``files.b`` hold each file's ``syncs`` and sync times
(``sync_ms_p50/p99/max``) and its ``stalls``, syncs slower than ``--stall-ms``. Of a file's
stalls, ``rode_through`` counts those during which the other file completed a fast sync (one
within ``--stall-ms``, started and done inside the stall: the stall was that file's alone),
``together`` those the other file was stalled through too (no fast sync done inside, a stall
overlapping), ``starved`` those over half of which a third thread's 1 ms sleep overran (the
process had no CPU: the machine's other work, not the disk; ``sleep_late_ms_p99/max``),
``unclear`` the rest. ``stalls_together``/``stalls_rode_through``/``stalls_starved`` sum them
over both files (a stall both share counts once in each). Stalls ``together`` are device-wide:
they held every file of the disk (the device, or the filesystem's journal on it, which both
files share) while the process could run, not one process or file; ``verdict`` says
``device-wide`` when every stall not ``starved`` was shared and none ridden through
(``per-file``: the reverse; ``mixed``; ``no stalls``). ``stalls`` lists the first 50 (seconds
from the start, file, ms, which of the four).
Other processes may be running (``load_before/after``: the 1-minute load average): their
writes share the disk's queue, their work the CPUs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from array import array
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_LISTED = 50  # stalls listed one by one


@dataclass
class Syncs:
    """One file's syncs (or the clock's sleeps), in order: when each started and was done
    (``time.perf_counter``)."""

    name: str
    starts: array[float] = field(default_factory=lambda: array("d"))
    ends: array[float] = field(default_factory=lambda: array("d"))


def append_and_sync(path: Path, record: bytes, until: float, syncs: Syncs) -> None:
    """Append ``record`` to ``path`` and fdatasync it, again and again until ``until``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    try:
        while time.perf_counter() < until:
            os.write(fd, record)
            started = time.perf_counter()
            os.fdatasync(fd)
            syncs.ends.append(time.perf_counter())
            syncs.starts.append(started)
    finally:
        os.close(fd)


def tick(until: float, sleeps: Syncs) -> None:
    """Sleep 1 ms, again and again until ``until``: a sleep much longer is the process left
    without a CPU (the machine's other work), not the disk."""
    while time.perf_counter() < until:
        started = time.perf_counter()
        time.sleep(0.001)
        sleeps.ends.append(time.perf_counter())
        sleeps.starts.append(started)


def overlapping(stall: tuple[float, float], other: Syncs) -> list[tuple[float, float]]:
    """The other's intervals that overlap the stall: one may start before it, none after."""
    start, end = stall
    first = max(0, bisect_left(other.starts, start) - 1)
    last = bisect_left(other.starts, end)
    pairs = zip(other.starts[first:last], other.ends[first:last], strict=True)
    return [(s, e) for s, e in pairs if e > start]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def verdict(stall: tuple[float, float], other: Syncs, clock: Syncs, stall_s: float) -> str:
    """``rode_through``, ``starved``, ``together`` or ``unclear``: what the other file (and
    the clock) did meanwhile."""
    start, end = stall
    syncs = overlapping(stall, other)
    if any(s >= start and e <= end and e - s <= stall_s for s, e in syncs):
        return "rode_through"
    sleeps = overlapping(stall, clock)
    if any(min(e, end) - max(s, start) > (end - start) / 2 for s, e in sleeps):
        return "starved"
    if any(e - s > stall_s for s, e in syncs):
        return "together"
    return "unclear"


def measure(folder: Path, seconds: float, stall_ms: float, size: int) -> dict[str, Any]:
    files, clock = (Syncs("a"), Syncs("b")), Syncs("clock")
    record = b"x" * (size - 1) + b"\n"
    until = time.perf_counter() + seconds
    threads = [
        threading.Thread(target=append_and_sync, args=(folder / s.name, record, until, s))
        for s in files
    ]
    threads.append(threading.Thread(target=tick, args=(until, clock)))
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stall_s = stall_ms / 1000
    figures: dict[str, Any] = {}
    listed: list[dict[str, Any]] = []
    for syncs, other in ((files[0], files[1]), (files[1], files[0])):
        ms = [(e - s) * 1000 for s, e in zip(syncs.starts, syncs.ends, strict=True)]
        counts = {"rode_through": 0, "together": 0, "starved": 0, "unclear": 0}
        for s, e in zip(syncs.starts, syncs.ends, strict=True):
            if e - s > stall_s:
                said = verdict((s, e), other, clock, stall_s)
                counts[said] += 1
                at_s, stall = round(s - began, 3), round((e - s) * 1000, 1)
                listed.append({"at_s": at_s, "file": syncs.name, "ms": stall, "other": said})
        figures[syncs.name] = {
            "syncs": len(ms),
            "sync_ms_p50": round(statistics.median(ms), 3) if ms else 0,
            "sync_ms_p99": round(percentile(ms, 0.99), 3),
            "sync_ms_max": round(max(ms, default=0.0), 3),
            "stalls": sum(counts.values()),
            **counts,
        }
    listed.sort(key=lambda stall: stall["at_s"])
    together = sum(f["together"] for f in figures.values())
    alone = sum(f["rode_through"] for f in figures.values())
    verdicts = {(True, False): "device-wide", (False, True): "per-file"}
    late = [(e - s) * 1000 - 1 for s, e in zip(clock.starts, clock.ends, strict=True)]
    return {
        "files": figures,
        "sleep_late_ms_p99": round(percentile(late, 0.99), 3),
        "sleep_late_ms_max": round(max(late, default=0.0), 3),
        "stalls_starved": sum(f["starved"] for f in figures.values()),
        "stalls_together": together,
        "stalls_rode_through": alone,
        "verdict": verdicts.get((together > 0, alone > 0), "mixed") if listed else "no stalls",
        "stalls": listed[:MAX_LISTED],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="where the files go")
    parser.add_argument("--stall-ms", type=float, default=30.0, help="a sync slower: a stall")
    parser.add_argument("--bytes", type=int, default=200, help="each record's size")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="disk_stalls-", dir=args.dir) as scratch:
        folder = Path(scratch)
        device = os.stat(folder).st_dev
        figures = measure(folder, args.seconds, args.stall_ms, max(1, args.bytes))
    print(
        json.dumps(
            {
                "seconds": args.seconds,
                "dir": str(Path(args.dir).resolve()),
                "device": f"{os.major(device)}:{os.minor(device)}",
                "stall_ms": args.stall_ms,
                "bytes": max(1, args.bytes),
                **figures,
                "load_before": round(load_before, 2),
                "load_after": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
