"""Counters and histograms for `/metrics`, in Prometheus' text format.

Hand-written rather than a client library: a dozen series, no labels beyond an
error code, and nothing here may block the event loop.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

LAG_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


@dataclass
class Histogram:
    buckets: tuple[float, ...] = LAG_BUCKETS
    counts: list[int] = field(default_factory=lambda: [0] * (len(LAG_BUCKETS) + 1))
    total: float = 0.0
    n: int = 0

    def observe(self, value: float) -> None:
        self.total += value
        self.n += 1
        for i, bound in enumerate(self.buckets):
            if value <= bound:
                self.counts[i] += 1
                return
        self.counts[-1] += 1

    def render(self, name: str) -> list[str]:
        lines, running = [], 0
        for bound, count in zip(self.buckets, self.counts, strict=False):
            running += count
            lines.append(f'{name}_bucket{{le="{bound}"}} {running}')
        lines.append(f'{name}_bucket{{le="+Inf"}} {self.n}')
        lines.append(f"{name}_sum {self.total:.6f}")
        lines.append(f"{name}_count {self.n}")
        return lines


@dataclass
class Metrics:
    rounds: int = 0
    hands: int = 0
    frames_in: int = 0
    frames_out: int = 0
    writes: int = 0
    broadcasts: int = 0
    suspensions: int = 0
    slow_closes: int = 0
    keepalive_closes: int = 0
    store_retries: Callable[[], int] = lambda: 0
    store_abandoned: Callable[[], int] = lambda: 0
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[int] = field(default_factory=Counter)
    broadcast_lag: Histogram = field(default_factory=Histogram)
    action_latency: Histogram = field(default_factory=Histogram)
    loop_lag: Histogram = field(default_factory=Histogram)

    def render(self, gauges: dict[str, tuple[str, Callable[[], float]]]) -> str:
        out: list[str] = []

        def metric(name: str, kind: str, help_: str, lines: list[str]) -> None:
            out.append(f"# HELP {name} {help_}")
            out.append(f"# TYPE {name} {kind}")
            out.extend(lines)

        families: dict[str, tuple[str, list[str]]] = {}
        for name, (help_, read) in gauges.items():  # 'x{label="v"}': one sample of family x
            family = name.partition("{")[0]
            families.setdefault(family, (help_, []))[1].append(f"{name} {read()}")
        for family, (help_, lines) in families.items():
            metric(family, "gauge", help_, lines)
        metric(
            "stud_rounds_total", "counter", "Rounds settled.", [f"stud_rounds_total {self.rounds}"]
        )
        metric(
            "stud_hands_settled_total",
            "counter",
            "Hands settled.",
            [f"stud_hands_settled_total {self.hands}"],
        )
        metric(
            "stud_frames_in_total",
            "counter",
            "Frames received.",
            [f"stud_frames_in_total {self.frames_in}"],
        )
        metric(
            "stud_frames_out_total",
            "counter",
            "Frames sent (a broadcast counts each receiver).",
            [f"stud_frames_out_total {self.frames_out}"],
        )
        metric(
            "stud_socket_writes_total",
            "counter",
            "Socket writes of server frames (a connection's frames of one loop turn are one).",
            [f"stud_socket_writes_total {self.writes}"],
        )
        metric(
            "stud_broadcasts_total",
            "counter",
            "Table broadcasts.",
            [f"stud_broadcasts_total {self.broadcasts}"],
        )
        metric(
            "stud_slow_consumer_closes_total",
            "counter",
            "Connections closed for letting more than max_unsent_bytes pile up unread.",
            [f"stud_slow_consumer_closes_total {self.slow_closes}"],
        )
        metric(
            "stud_keepalive_closes_total",
            "counter",
            "Connections closed by the keepalive: unread for a ping timeout, or their peer silent.",
            [f"stud_keepalive_closes_total {self.keepalive_closes}"],
        )
        metric(
            "stud_table_suspensions_total",
            "counter",
            "Times a table was suspended (store or lease away).",
            [f"stud_table_suspensions_total {self.suspensions}"],
        )
        metric(
            "stud_store_retries_total",
            "counter",
            "Store writes repeated with the same operation id after an unknown outcome.",
            [f"stud_store_retries_total {self.store_retries()}"],
        )
        metric(
            "stud_store_abandoned_total",
            "counter",
            "Writes in doubt past store_patience, cancelled in the store (never applied).",
            [f"stud_store_abandoned_total {self.store_abandoned()}"],
        )
        metric(
            "stud_errors_total",
            "counter",
            "Error frames sent, by code.",
            [f'stud_errors_total{{code="{code}"}} {n}' for code, n in sorted(self.errors.items())],
        )
        metric(
            "stud_closes_total",
            "counter",
            "Connections closed by the server, by close code.",
            [f'stud_closes_total{{code="{code}"}} {n}' for code, n in sorted(self.closes.items())],
        )
        metric(
            "stud_broadcast_lag_seconds",
            "histogram",
            "Time to encode a table change and hand it to every viewer's socket.",
            self.broadcast_lag.render("stud_broadcast_lag_seconds"),
        )
        metric(
            "stud_action_seconds",
            "histogram",
            "Time from a table request's arrival to its broadcast.",
            self.action_latency.render("stud_action_seconds"),
        )
        metric(
            "stud_event_loop_lag_seconds",
            "histogram",
            "How late a timer sampled every 50 ms ran: how long other work held the loop.",
            self.loop_lag.render("stud_event_loop_lag_seconds"),
        )
        return "\n".join(out) + "\n"
