"""One chaos run, start to report; `python -m tests.chaos` runs one from the shell.

    start Redis (AOF) and the three servers
    start the bots; wait until every table has shown a result (bounded)
    inject faults for `seconds`                                (faults.py)
    heal: SIGCONT whatever is stopped, restart whatever is down
    calm: let the fleet settle until every table played again (bounded)
    quiet: hush the bots (connected, sending nothing) until no money is in flight
           (bounded); then note the wallet each was last told beside the store's
    stop the bots; SIGTERM every server and wait (graceful: open rounds voided)
    read the store, the logs, the journal; reconcile          (reconcile.py)

Every wait is bounded; every process is ours and is stopped in the end, also
when the run fails. Files in the work directory: the servers' configs and logs
(logs/<server>.<incarnation>.log), redis/, journal.json, store.json,
report.json and summary.txt.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.chaos.bots import ChaosBot
from tests.chaos.cluster import TABLES, Cluster, Settings
from tests.chaos.faults import KINDS, Injector
from tests.chaos.journal import Journal
from tests.chaos.logs import read_logs
from tests.chaos.reconcile import Evidence, Facts, reconcile
from tests.chaos.report import Report
from tests.chaos.store import StoreDump, dump_store, read_wallets, settled_since

#: Players per table: the seats each one plays.
PLAYERS: dict[str, list[int]] = {
    "pct-a": [2, 1, 1],
    "pct-b": [1, 2],
    "casino": [3, 1],
    "stud": [1, 1, 1],
    "bermuda": [2, 2],
}


@dataclass(frozen=True)
class Options:
    seconds: float = 60.0  # of fault injection
    seed: int = 1
    workdir: Path | None = None
    kinds: tuple[str, ...] = KINDS  # the fault kinds to inject (none: a calibration run)
    settings: Settings = field(default_factory=Settings)
    warmup_max: float = 15.0  # until every table has shown a result
    calm_min: float = 3.0
    calm_max: float = 25.0  # until every table played again after the faults
    quiet_max: float = 20.0  # until no round is open and nothing held, bots hushed
    pushes_max: float = 3.0  # then for the last wallet pushes (the fleet's news: ~1 s)
    bots_stop_max: float = 12.0
    shutdown_max: float = 20.0


async def _wait_until(check: object, seconds: float) -> None:
    """Poll `check()` (truthy: done) every 0.25 s, for at most `seconds`."""
    deadline = time.monotonic() + seconds
    assert callable(check)
    while time.monotonic() < deadline and not check():
        await asyncio.sleep(0.25)


async def _calm(cluster: Cluster, options: Options, since: float) -> None:
    tables = sorted(TABLES)
    deadline = since + options.calm_max
    while time.time() < deadline:
        try:
            done = await settled_since(
                cluster.redis.url, cluster.namespace, tables, int(since * 1000)
            )
        except Exception:  # Redis still coming back: look again
            done = set()
        if done == set(tables) and time.time() - since >= options.calm_min:
            return
        await asyncio.sleep(0.5)


async def _quiet(cluster: Cluster, bots: list[ChaosBot], options: Options, facts: Facts) -> None:
    """Hush the bots; once no money is in flight, and pushes had time to land, note what
    each connected bot was last told of its wallet beside what the store holds."""
    for bot in bots:
        bot.hush()
    deadline = time.monotonic() + options.quiet_max
    wallets = None
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):  # Redis still coming back: look again
            wallets = await read_wallets(cluster.redis.url, cluster.namespace)
            if wallets.at_rest:
                break
        await asyncio.sleep(0.25)
    facts.wallets_at_rest = wallets is not None and wallets.at_rest
    if not facts.wallets_at_rest:
        return
    await asyncio.sleep(options.pushes_max)
    told = {b.name: (b.wire.url, dict(b.wire.wallet)) for b in bots if b.wire and b.wire.wallet}
    wallets = await read_wallets(cluster.redis.url, cluster.namespace)
    facts.wallets_at_rest = wallets.at_rest
    for bot in bots:
        if bot.name not in told or not bot.player_id:
            continue
        url, shown = told[bot.name]
        store = {
            "balance": wallets.balance.get(bot.player_id),
            "held": wallets.held.get(bot.player_id, 0),
        }
        facts.wallets_compared.append(
            {"bot": bot.name, "player": bot.player_id, "url": url, "shown": shown, "store": store}
        )


async def run_chaos(options: Options) -> Report:
    began = time.time()
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="stud-chaos-"))
    workdir.mkdir(parents=True, exist_ok=True)
    namespace = f"chaos-{options.seed}-{random.randrange(16**6):06x}"
    cluster = Cluster(workdir, namespace, options.settings)
    journal = Journal()
    rng = random.Random(options.seed)
    stop = asyncio.Event()
    bots: list[ChaosBot] = []
    tasks: list[asyncio.Task[None]] = []
    injector: Injector | None = None
    facts = Facts(
        starting_credits=options.settings.starting_credits,
        tables=sorted(TABLES),
        fleet_ttl=options.settings.fleet_ttl,
        expected_kinds=list(options.kinds),
    )
    dump = StoreDump()
    try:
        await cluster.start()
        for table, seats in PLAYERS.items():
            for k, n in enumerate(seats):
                bot_rng = random.Random(rng.getrandbits(64))
                bots.append(
                    ChaosBot(f"{table}-{k}", table, n, cluster.urls, journal, bot_rng, stop)
                )
        tasks = [asyncio.create_task(b.run()) for b in bots]
        await _wait_until(
            lambda: {s.table for s in journal.shown} >= set(TABLES), options.warmup_max
        )
        injector = Injector(cluster, bots, journal, options.seed, options.kinds)
        await asyncio.wait_for(injector.run(options.seconds), options.seconds + 90)
        facts.faults = injector.faults
        await cluster.heal()
        facts.calm_start = time.time()
        await _calm(cluster, options, facts.calm_start)
        await _quiet(cluster, bots, options, facts)
        stop.set()
        _, pending = await asyncio.wait(tasks, timeout=options.bots_stop_max)
        for t in pending:
            t.cancel()
        facts.shutdown_start = time.time()
        facts.exits = await cluster.terminate_servers(options.shutdown_max)
        await cluster.heal_redis()  # (it is up: the servers just stopped through it)
        dump = await dump_store(cluster.redis.url, namespace)
    finally:
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if injector is not None:
            facts.faults = injector.faults
            facts.injector_errors = injector.errors
        await cluster.close()
        journal.save(workdir / "journal.json")
    dump.save(workdir / "store.json")
    facts.bot_failures = [f"{b.name}: {f}" for b in bots for f in b.failures]
    (workdir / "facts.json").write_text(json.dumps(facts.to_dict()), encoding="utf-8")
    return reconcile_dir(workdir, options.seed, options.seconds, time.time() - began)


def reconcile_dir(workdir: Path, seed: int, seconds: float, wall: float) -> Report:
    """Reconcile a run from the files it left in `workdir`; writes its report there."""
    journal = Journal.load(workdir / "journal.json")
    dump = StoreDump.load(workdir / "store.json")
    facts = Facts.from_dict(json.loads((workdir / "facts.json").read_text(encoding="utf-8")))
    files = sorted((workdir / "logs").glob("*.log"))
    logs = read_logs((p.stem.replace(".", "#"), p) for p in files)
    checks, by_kind = reconcile(Evidence(journal, dump, logs, facts))
    report = Report(
        seed=seed,
        seconds=seconds,
        workdir=str(workdir),
        wall_seconds=wall,
        checks=checks,
        faults=facts.faults,
        by_kind=by_kind,
        totals={
            "servers": len({p.stem.split(".")[0] for p in files}),
            "incarnations": len(files),
            "tables": len(facts.tables),
            "players": len(journal.players),
            "requests": len(journal.ops),
            "results_shown": len(journal.shown),
            "settled": sum(r.state == "settled" for r in dump.rounds.values()),
            "voided": sum(r.state == "voided" for r in dump.rounds.values()),
            "open": sum(r.state == "open" for r in dump.rounds.values()),
            "fault_kinds_injected": sorted({f.kind for f in facts.faults}),
        },
    )
    report.save(workdir)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.chaos", description=__doc__)
    parser.add_argument("--seconds", type=float, default=120.0, help="of fault injection")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path, help="default: a new temporary directory")
    parser.add_argument("--json", action="store_true", help="print report.json, not the summary")
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help=f"comma-separated fault kinds to inject, of {','.join(KINDS)}; '' for none",
    )
    parser.add_argument(
        "--reconcile", type=Path, metavar="WORKDIR", help="only reconcile a finished run again"
    )
    args = parser.parse_args(argv)
    if args.reconcile is not None:
        report = reconcile_dir(args.reconcile, args.seed, args.seconds, 0.0)
    else:
        kinds = tuple(k for k in args.kinds.split(",") if k)
        unknown = set(kinds) - set(KINDS)
        if unknown:
            parser.error(f"unknown fault kinds: {', '.join(sorted(unknown))}")
        options = Options(args.seconds, args.seed, args.workdir, kinds=kinds)
        report = asyncio.run(run_chaos(options))
    if args.json:
        print((Path(report.workdir) / "report.json").read_text(encoding="utf-8"))
    else:
        print(report.summary(), end="")
    with contextlib.suppress(BrokenPipeError):
        sys.stdout.flush()
    return 0 if report.clean else 1
