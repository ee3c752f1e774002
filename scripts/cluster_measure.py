"""Measure a study on a real two-worker Dask cluster on 127.0.0.1: the client's memory over the run
and how busy the workers were.

    python scripts/cluster_measure.py --games 10000      # the client's RSS, sampled every 0.5 s
    python scripts/cluster_measure.py --games 2000       # utilisation of the two workers

It starts ``dask scheduler`` and two ``dask worker`` processes (one thread each, the pinned maths
path, no dashboard, bound to 127.0.0.1), runs ``stonelab run scenarios/druids/classic.toml
--address ...`` as a subprocess, samples the client's resident memory (``/proc/PID/status``), and
prints one JSON object: games, wall time, RSS at 10 %, 50 % and the end of the run, and the
workers' utilisation (the games' own wall times summed, over workers x the run's wall time).
Everything it starts is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "core"))

from cluster_procs import Cluster, stonelab, stored  # noqa: E402

from sim.core import mathpath  # noqa: E402


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        cluster = Cluster(tmp)
        try:
            env = mathpath.pinned_environ({}) if mathpath.applies() else {}
            for _ in range(args.workers):
                cluster.add_worker(env=env)
            cluster.wait_workers(args.workers)
            out = tmp / "run"
            t0 = time.monotonic()
            p = stonelab(["run", str(ROOT / "scenarios" / "druids" / "classic.toml"), "--games", str(args.games),
                          "--address", cluster.address, "--out", str(out), "--no-report"], ROOT)
            samples: list[tuple[int, float]] = []  # (games stored, client RSS in MB)
            from distributed import Client, get_task_stream

            with Client(cluster.address, timeout="10s") as observer, get_task_stream(client=observer) as ts:
                while p.poll() is None:
                    r = rss_mb(p.pid)
                    if r is not None:
                        samples.append((stored(out), r))
                    time.sleep(0.5)
                wall = time.monotonic() - t0
            stream = list(ts.data)  # filled when the block ends
            _, err = p.communicate()
            if p.returncode != 0:
                print(err, file=sys.stderr)
                return 1
            con = sqlite3.connect(out / "results.sqlite")
            n, busy = con.execute("SELECT COUNT(*), SUM(wall_s) FROM games").fetchone()
            con.close()
        finally:
            cluster.stop()

    def at(frac: float) -> float | None:
        """The client's RSS at the first sample with ``frac`` of the games stored."""
        return next((round(r, 1) for k, r in samples if k >= frac * n), None)

    # the workers' busy time in batches, over the span from the first batch's start to the last's end
    spans: dict[str, float] = {}
    first, last = float("inf"), 0.0
    for rec in stream:
        if "play_batch" not in str(rec.get("key")):
            continue
        for part in rec.get("startstops", ()):
            if part.get("action") == "compute":
                spans[rec["worker"]] = spans.get(rec["worker"], 0.0) + part["stop"] - part["start"]
                first, last = min(first, part["start"]), max(last, part["stop"])
    span = last - first
    print(json.dumps({"games": n, "workers": args.workers, "wall_s": round(wall, 1),
                      "client_rss_mb_at_10pct_stored": at(0.1), "at_50pct": at(0.5), "at_90pct": at(0.9),
                      "at_100pct": at(1.0), "games_wall_s_sum": round(busy, 1),
                      "batches_span_s": round(span, 2),
                      "utilisation_per_worker": {w: round(b / span, 3) for w, b in sorted(spans.items())}},
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
