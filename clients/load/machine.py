"""The machine a run measures on: the open-file limit, CPU pinning and where each
process runs (`Plan`), the event loop, a process's CPU time and memory from
`/proc`, the load average, a free loopback port.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import socket
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path


def raise_nofile() -> int:
    """Lift the soft open-file limit to the hard one; return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return soft


def pin(cpus: Sequence[int] | None) -> None:
    if cpus and hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, set(cpus))


@contextlib.contextmanager
def pinned(cpus: Sequence[int] | None) -> Iterator[None]:
    """This process on `cpus` for the duration (the caller's affinity comes back)."""
    before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    pin(cpus)
    try:
        yield
    finally:
        if before is not None and cpus:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, before)


def use_uvloop() -> bool:
    """Run this process's loops on uvloop when it is installed."""
    try:
        import uvloop
    except ImportError:
        return False
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return True


def on_uvloop() -> bool:
    """This process's running loop is uvloop's (what a report says it measured on)."""
    return type(asyncio.get_running_loop()).__module__.startswith("uvloop")


def proc_cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/PID/stat."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_memory_mb(pid: int) -> dict[str, float]:
    """VmRSS (now) and VmHWM (peak) of a process in MiB, from /proc/PID/status."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
    return out


def loadavg() -> list[float]:
    with contextlib.suppress(OSError):
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    return []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Plan:
    """Where everything runs."""

    pin: bool = True
    server_cpus: list[int] = field(default_factory=list)
    generator_cpus: list[int] = field(default_factory=list)

    @classmethod
    def make(cls, pin_: bool) -> Plan:
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        if not pin_ or len(cpus) < 2:
            return cls(False, [], [])
        return cls(True, cpus[:1], cpus[1:])
