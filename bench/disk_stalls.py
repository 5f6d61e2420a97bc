"""Does this disk stall on a sync, and is the stall the device's? Prints JSON; no host, no bot.

An acknowledgement waits for its move's line in the answers' journal to be fdatasync'ed
(``bot.store.journal``), so a disk whose sync now and then takes 100 ms makes every ack waiting
meanwhile that late, whatever the host does (``bench/host_load.py``: ``journal_sync_ms_max``).
This measures the disk alone: two threads, each appending small records (``--bytes``) to a file
of its own in a new folder under ``--dir`` and fdatasync'ing after each one, for ``--seconds``.

Usage: python bench/disk_stalls.py [--seconds 60] [--dir DIR] [--stall-ms 30] [--bytes 200]

``--dir``: the system's temp folder by default; give the database's folder to measure its disk.

Reading the result: ``files.a``/``files.b`` hold each file's ``syncs``, sync times
(``sync_ms_p50/p99/max``) and ``stalls``, its syncs slower than ``--stall-ms``. A stall is
``starved`` when its thread spent over half of it waiting for a CPU (Linux's
``/proc/thread-self/schedstat``: the machine's other work, not the disk; ``cpu_wait_ms_max``);
else ``together`` when the other file was stalled too (not starved) over half of it, else
``rode_through`` when the other file completed a fast sync (within ``--stall-ms``) inside it
(the stall was that file's alone), ``unclear`` otherwise (the other file's thread starved).
``stalls_together``, ``stalls_rode_through`` and ``stalls_starved`` sum them over both files
(a stall both share counts once in each). Stalls ``together`` are device-wide: they held every
file of the disk (the device, or the filesystem's journal on it, which both files share), not
one process or file. ``verdict``: ``device-wide`` when some stalls were shared and none ridden
through, ``per-file`` the reverse, else ``mixed`` or ``no stalls`` (``starved`` ones aside).
``stalls`` lists the first 50: seconds from the start, file, ms, the verdict (``other``) and
the thread's CPU wait meanwhile.
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
    """One file's syncs, in order: when each started and was done (``time.perf_counter``), and
    how long of it its thread waited for a CPU (s)."""

    name: str
    starts: array[float] = field(default_factory=lambda: array("d"))
    ends: array[float] = field(default_factory=lambda: array("d"))
    cpu_waits: array[float] = field(default_factory=lambda: array("d"))


def append_and_sync(path: Path, record: bytes, until: float, syncs: Syncs) -> None:
    """Append ``record`` to ``path`` and fdatasync it, again and again until ``until``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    try:
        # this thread's time spent runnable without a CPU (Linux; none elsewhere)
        stat = os.open("/proc/thread-self/schedstat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        stat = None
    try:
        while time.perf_counter() < until:
            os.write(fd, record)
            waited = cpu_wait_s(stat)
            started = time.perf_counter()
            os.fdatasync(fd)
            syncs.ends.append(time.perf_counter())
            syncs.cpu_waits.append(cpu_wait_s(stat) - waited)
            syncs.starts.append(started)
    finally:
        os.close(fd)
        if stat is not None:
            os.close(stat)


def cpu_wait_s(stat: int | None) -> float:
    """The thread's time on a run queue so far, in seconds (its schedstat's second field)."""
    return int(os.pread(stat, 100, 0).split()[1]) / 1e9 if stat is not None else 0.0


def overlapping(stall: tuple[float, float], other: Syncs) -> list[tuple[float, float, float]]:
    """The other's syncs that overlap the stall (one may start before it, none after): when
    each started and was done, and its thread's CPU wait."""
    start, end = stall
    first = max(0, bisect_left(other.starts, start) - 1)
    last = bisect_left(other.starts, end)
    syncs = zip(
        other.starts[first:last], other.ends[first:last], other.cpu_waits[first:last], strict=True
    )
    return [(s, e, waited) for s, e, waited in syncs if e > start]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def verdict(stall: tuple[float, float], cpu_wait: float, other: Syncs, stall_s: float) -> str:
    """``starved``, ``together``, ``rode_through`` or ``unclear``: the stall's own thread
    waiting for a CPU, or what the other file did meanwhile."""
    start, end = stall
    if cpu_wait > (end - start) / 2:
        return "starved"
    syncs = overlapping(stall, other)
    # the other file's own stalls (not its thread's wait for a CPU) over this one
    shared = sum(
        min(e, end) - max(s, start)
        for s, e, waited in syncs
        if e - s > stall_s and waited <= (e - s) / 2
    )
    if shared > (end - start) / 2:
        return "together"
    if any(s >= start and e <= end and e - s <= stall_s for s, e, _ in syncs):
        return "rode_through"
    return "unclear"


def measure(folder: Path, seconds: float, stall_ms: float, size: int) -> dict[str, Any]:
    files = (Syncs("a"), Syncs("b"))
    record = b"x" * (size - 1) + b"\n"
    until = time.perf_counter() + seconds
    threads = [
        threading.Thread(target=append_and_sync, args=(folder / s.name, record, until, s))
        for s in files
    ]
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
        for s, e, waited in zip(syncs.starts, syncs.ends, syncs.cpu_waits, strict=True):
            if e - s > stall_s:
                said = verdict((s, e), waited, other, stall_s)
                counts[said] += 1
                at_s, stall = round(s - began, 3), round((e - s) * 1000, 1)
                cpu_wait = round(waited * 1000, 1)
                listed.append(
                    {
                        "at_s": at_s,
                        "file": syncs.name,
                        "ms": stall,
                        "other": said,
                        "cpu_wait_ms": cpu_wait,
                    }
                )
        figures[syncs.name] = {
            "syncs": len(ms),
            "sync_ms_p50": round(statistics.median(ms), 3) if ms else 0,
            "sync_ms_p99": round(percentile(ms, 0.99), 3),
            "sync_ms_max": round(max(ms, default=0.0), 3),
            "cpu_wait_ms_max": round(max(syncs.cpu_waits, default=0.0) * 1000, 3),
            "stalls": sum(counts.values()),
            **counts,
        }
    listed.sort(key=lambda stall: stall["at_s"])
    together = sum(f["together"] for f in figures.values())
    alone = sum(f["rode_through"] for f in figures.values())
    verdicts = {(True, False): "device-wide", (False, True): "per-file"}
    return {
        "files": figures,
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
