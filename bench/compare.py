"""Move submission of two or more builds of the referee (checkouts of this repository), in turns in
one run: moves per second, p50 and p99, the workers' and PostgreSQL's CPU per move, how busy the
machine was and how the workers split wrk's connections. A change to the write path is compared
this way, each build against the others measured minutes apart, because the machine drifts more
from one minute to the next than most changes move the figures. Prints a line per run; never passes
or fails.

    git worktree add /tmp/before <commit>
    python -m bench.compare /tmp/before . --db postgres --clients 16 --rounds 3

Each build is served by its own gunicorn (its own gunicorn.conf.py, gevent by default) from its own
directory, on a fresh database, with 64 fresh games and the move stream of ``bench.throughput``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from bench.common import Server, cpu_seconds, database_url, games_file, machine, move_stream, wrk

def postgres_cpu_seconds() -> float:
    """CPU time used so far by every PostgreSQL process of the machine (its backends included)."""
    return cpu_seconds(subprocess.run(["pgrep", "postgres"], capture_output=True, text=True).stdout.split())


def machine_times() -> tuple[int, int]:
    """All and idle jiffies of the machine so far (/proc/stat)."""
    fields = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(fields), fields[3] + fields[4]  # idle + iowait


# The rate limiter as deployed (on, its counts in a SQLite file in the instance folder), with a
# creation limit that the bench's games never reach
RATE_LIMITED = {"RATELIMIT_ENABLED": "1", "RATELIMIT_CREATE": "1000000 per minute"}


def run_build(build: str, db: str, clients: int, duration: float, moves_file: str, runs: int,
              worker_class: str, rate_limit: bool = False) -> list[dict]:
    tmp = tempfile.mkdtemp(prefix="bench-compare-")
    rows = []
    with Server("wsgi:app", database_url=database_url(db, tmp), root=build,
                GUNICORN_WORKER_CLASS=worker_class, PYTHONPATH=os.path.abspath(build),
                **(RATE_LIMITED if rate_limit else {})) as server:
        server.wait("/readyz")
        for run in range(runs):
            games = games_file(server.base, clients, os.path.join(tmp, f"games-{run}.txt"))
            cpu, pg, (all_before, idle_before) = server.cpu_seconds(), postgres_cpu_seconds(), machine_times()
            with ThreadPoolExecutor(1) as pool:
                running = pool.submit(wrk, server.base, clients, duration, "moves", "/", games_file=games,
                                      moves_file=moves_file)
                time.sleep(min(1.0, duration / 3))
                split = server.connections()  # wrk's connections, each held by one worker for the run
                result = running.result()
            all_after, idle_after = machine_times()
            moves = max(result["requests"], 1)
            rows.append(dict(build=build, db=db, clients=clients, run=run, **result, split=split,
                             worker_ms=1000 * (server.cpu_seconds() - cpu) / moves,
                             postgres_ms=1000 * (postgres_cpu_seconds() - pg) / moves if db == "postgres" else 0.0,
                             busy=1 - (idle_after - idle_before) / max(all_after - all_before, 1)))
            r = rows[-1]
            print(f"{build:24} {db:8} c={clients:<3} {r['rps']:7.0f} moves/s  p50 {r['p50']:6.2f} ms  p99 {r['p99']:6.2f} ms  "
                  f"worker {r['worker_ms']:.3f} ms/move  postgres {r['postgres_ms']:.3f} ms/move  busy {r['busy']:.2f}  "
                  f"split {'/'.join(map(str, r['split']))}  bad {r['bad'] + r['socket_errors']}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("builds", nargs="+", help="directories, each a checkout of this repository")
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--clients", nargs="+", type=int, default=[16])
    parser.add_argument("--rounds", type=int, default=3, help="turns of every build")
    parser.add_argument("--runs", type=int, default=2, help="wrk runs per build and turn, each on fresh games")
    parser.add_argument("--duration", type=float, default=6.0, help="seconds per wrk run")
    parser.add_argument("--worker-class", default="gevent", dest="worker_class")
    parser.add_argument("--rate-limit", action="store_true", dest="rate_limit",
                        help="serve with the rate limiter on, as deployed (the other benches turn it off)")
    args = parser.parse_args()
    print(machine(), flush=True)
    stream = move_stream(1000)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as moves_file:
        moves_file.write("\n".join(json.dumps(m, separators=(",", ":")) for m in stream) + "\n")
    rows = []
    for db in args.db:
        for clients in args.clients:
            for _ in range(args.rounds):
                for build in args.builds:
                    rows += run_build(build, db, clients, args.duration, moves_file.name, args.runs, args.worker_class,
                                      args.rate_limit)
    print(f"\n{'build':24} {'db':8} {'clients':>7} {'moves/s':>15} {'worker ms':>13} {'postgres ms':>13}")
    for db in args.db:
        for clients in args.clients:
            for build in args.builds:
                mine = [r for r in rows if r["build"] == build and r["db"] == db and r["clients"] == clients]
                rps, worker, pg = ([r[k] for r in mine] for k in ("rps", "worker_ms", "postgres_ms"))
                print(f"{build:24} {db:8} {clients:>7} {min(rps):7.0f}-{max(rps):<7.0f} "
                      f"{min(worker):6.3f}-{max(worker):<6.3f} {min(pg):6.3f}-{max(pg):<6.3f}")


if __name__ == "__main__":
    main()
