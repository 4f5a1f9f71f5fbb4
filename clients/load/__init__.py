"""`stud-client load`: how many players and spectators one server process carries.

Two modes, each printing one JSON document:

- **tables** (`--tables T --seats B --spectators S --seconds D`): start a server
  process (or target `--url`), open T tables with B bot seats each and S
  spectators spread over them, play for D seconds, then let every bot finish
  the hand it is in, leave and read its wallet, and check the books. Tables
  start at random moments within `--stagger` seconds (default: the showdown
  pause `--results`), as tables opened at different times would.
- **fan-out** (`--fanout N`): one table, N spectators; how long one state change
  takes to reach all of them, beside a bare `websockets` server
  (`clients/loadserver.py`) broadcasting the same bytes to the same N clients.

Layout on a small machine: the server process is pinned to CPU 0 and the
generator's processes to the other CPUs (`--no-pin` leaves placement to the
kernel). The generator is lean so that it is not what is measured: each
connection is a bare RFC 6455 client (`RawSocket`, an `asyncio.Protocol`: no
task, no queue, no future per frame) and every bot and spectator is a state
machine driven by the frames it receives. They speak the real protocol
(msgpack maps, PROTOCOL.md) over real sockets, on loopback only. A generator
process turns its garbage collector off for the measured window (a full
collection of 10,000 clients' state would hold every frame in flight), and
reports what the collection after it found (`garbage_after_window`).

Latency: a bot's action is timed from the moment it is written to the socket
until the first snapshot that shows it reaches that bot (`player`) and each
spectator of the table (`spectator`); bots and spectators of one table live in
one process, so one clock times both. Throughput, CPU and memory come from the
server: `/metrics` counters, `/proc/PID/stat` and `/proc/PID/status` (VmRSS,
VmHWM), sampled at the start and end of the measured window; the books from
`GET /ledger` (loopback only) before and after. Redis commands come from
`INFO commandstats`: `redis_calls` are the window's totals, of every client of
that Redis, and `redis_calls_per_hand` is given only for a Redis the run
started for itself.

The parts, one module each, none importing this package:

- `rawsocket`: the RFC 6455 client and the msgpack frames;
- `simulated`: the bots and spectators and what they measure;
- `latency`: the latency histograms and their percentiles;
- `table_worker`, `fanout_worker`: a generator process of each mode;
- `workers`: the generator processes' entry point and the parent's handle on them;
- `machine`: CPU pinning, where each process runs, `/proc` CPU time and memory;
- `servers`: the server processes a run starts, their config, waiting for them;
- `report`: `/metrics`, Redis commandstats, the ledger and the reconciliation;
- `tables`, `fanout`: the two runs (`run_load`, `run_fanout`);
- `command`: the `stud-client load` arguments and command.
"""

from __future__ import annotations

from clients.load.command import add_arguments, load_command
from clients.load.fanout import FanoutOptions, run_fanout
from clients.load.latency import bucket, summarize
from clients.load.rawsocket import RawSocket, open_raw, pack, unpack
from clients.load.servers import tables_config
from clients.load.tables import LoadOptions, run_load

__all__ = [
    "FanoutOptions",
    "LoadOptions",
    "RawSocket",
    "add_arguments",
    "bucket",
    "load_command",
    "open_raw",
    "pack",
    "run_fanout",
    "run_load",
    "summarize",
    "tables_config",
    "unpack",
]
