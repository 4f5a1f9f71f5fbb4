"""The compose stack without Docker: docker-compose.yml's services, started natively.

There is no container engine on the machines that run this suite, so this test
reads docker-compose.yml and starts what it describes as plain processes: a
`redis-server` with the compose file's persistence arguments, and each
`stud-server` replica with its compose command and environment. Only what a
container changes is mapped: the bind-mounted tables file to its file in the
repository, container ports to free loopback ports, the `redis` host name to
the local Redis, and the image's paths under /app (its WORKDIR, a copy of the
repository) to the repository. Then it plays rounds through both replicas,
restarts Redis from its append-only file, and checks that nothing settled is
lost and that the replicas keep serving.

`deploy/lint.sh` (in `make lint`) validates the same file with Docker Compose
itself, and the Dockerfile with hadolint.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from clients.connection import ServerError, StudClient
from server.config import (
    ENVIRONMENT,
    AccountsConfig,
    AdminConfig,
    Config,
    JackpotConfig,
    Limits,
    WalletConfig,
    load_config,
)
from server.game.table import TableConfig, Timers
from server.stores.redis import RedisStore
from tests.redis_fixture import RedisServer, free_port, time_limit

__all__ = ["time_limit"]  # fixture used below

pytestmark = pytest.mark.usefixtures("time_limit")

ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = ROOT / "docker-compose.yml"
OPERATIONS = ROOT / "README.md"  # the configuration reference lives in the README
DOCKERFILE = ROOT / "Dockerfile"
#: Seconds any one wait below may take: generous, since CI machines are shared.
WAIT = 20.0
#: The players below act at once: betting and decision windows long enough never to
#: end a round by themselves, a short pause after the showdown, a short shutdown.
TEST_ENV = {
    "STUD_BETTING_SECONDS": "30",
    "STUD_DECISION_SECONDS": "30",
    "STUD_RESULTS_SECONDS": "0.2",
    "STUD_SHUTDOWN_GRACE": "5",
}


# ----- the compose file -------------------------------------------------------


def load_compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("services"), dict)
    return data


def as_list(command: Any) -> list[str]:
    """A compose command in either form, as an argument list."""
    return shlex.split(command) if isinstance(command, str) else [str(a) for a in command]


def environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def redis_service(compose: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    found = [
        (name, svc)
        for name, svc in compose["services"].items()
        if str(svc.get("image", "")).startswith("redis:")
    ]
    assert len(found) == 1, "docker-compose.yml should have one Redis service"
    return found[0]


def replica_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        name: svc
        for name, svc in compose["services"].items()
        if as_list(svc.get("command", []))[:2] == ["stud-server", "serve"]
    }


def bind_mounts(service: dict[str, Any]) -> dict[str, Path]:
    """Container path -> host path of each bind mount (named volumes are skipped)."""
    mounts = {}
    for volume in service.get("volumes", []):
        if isinstance(volume, dict):
            source, target = volume.get("source", ""), volume["target"]
            if volume.get("type") != "bind":
                continue
        else:
            source, target = volume.split(":")[:2]
            if not source.startswith((".", "/")):
                continue
        mounts[target] = (COMPOSE_FILE.parent / source).resolve()
    return mounts


def published_ports(service: dict[str, Any]) -> dict[int, int]:
    """Container port -> host port."""
    ports = {}
    for entry in service.get("ports", []):
        if isinstance(entry, dict):
            ports[int(entry["target"])] = int(entry["published"])
        else:
            *_, host, container = str(entry).split(":")
            ports[int(container.split("/")[0])] = int(host)
    return ports


def seconds(duration: str | int | float) -> float:
    """A compose duration ("1m30s", "40s", "500ms") in seconds."""
    if isinstance(duration, int | float):
        return float(duration)
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 1e-6}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", duration)
    assert parts and "".join(n + u for n, u in parts) == duration, duration
    return sum(float(n) * units[u] for n, u in parts)


def image_tag(image: str) -> str:
    """The tag of `name:tag` or `name:tag@sha256:...`; "" without one."""
    last = image.partition("@")[0].rpartition("/")[2]
    return last.partition(":")[2]


def tables_config(service: dict[str, Any]) -> tuple[Path, Config]:
    """The host file a replica's --config names through its bind mount, loaded."""
    command = as_list(service["command"])
    container_path = command[command.index("--config") + 1]
    host_path = bind_mounts(service)[container_path]
    return host_path, load_config(host_path, env={})


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_the_compose_file_keeps_the_operators_promises() -> None:
    compose = load_compose()
    services = compose["services"]
    named_volumes = set(compose.get("volumes") or {})
    for name, svc in services.items():
        tag = image_tag(str(svc.get("image", "")))
        assert tag and tag != "latest", f"{name}: pin its image to a release"

    # Redis: the official image, an append-only file fsynced on every write, on a volume
    redis_name, redis = redis_service(compose)
    args = as_list(redis["command"])
    assert args[0] == "redis-server"
    assert args[args.index("--appendonly") + 1] == "yes"
    assert args[args.index("--appendfsync") + 1] == "always"  # durable for money
    volumes = [str(v).split(":") for v in redis["volumes"]]
    assert any(src in named_volumes and dst == "/data" for src, dst, *_ in volumes)
    assert redis["healthcheck"]["test"] and redis.get("restart")

    # the replicas: at least two, on that Redis, each with its own address and tables
    replicas = replica_services(compose)
    assert len(replicas) >= 2
    envs = {name: environment(svc) for name, svc in replicas.items()}
    public = {env["STUD_PUBLIC_URL"] for env in envs.values()}
    assert len(public) == len(replicas), "each replica needs its own public address"
    assert len({env["REDIS_URL"] for env in envs.values()}) == 1
    assert len({env.get("STUD_REDIS_NAMESPACE", "stud") for env in envs.values()}) == 1
    hosted: dict[str, str] = {}
    configs = []
    for name, svc in replicas.items():
        env = envs[name]
        assert urlsplit(env["REDIS_URL"]).hostname == redis_name
        assert svc["depends_on"][redis_name]["condition"] == "service_healthy"
        assert svc.get("restart") in ("always", "unless-stopped", "on-failure")
        command = as_list(svc["command"])
        assert command[command.index("--log-format") + 1] == "json"
        # the published host port is the one in the address the lobby gives out
        host_port = published_ports(svc)[int(env["STUD_PORT"])]
        assert urlsplit(env["STUD_PUBLIC_URL"]).port == host_port
        path, config = tables_config(svc)
        assert path.is_relative_to(ROOT / "deploy"), path
        configs.append(config)
        for t in config.tables:
            assert t.table_id not in hosted, f"{t.table_id} is in {hosted.get(t.table_id)} too"
            hosted[t.table_id] = name
        # docker stop waits longer than the server lets running rounds finish
        assert seconds(svc["stop_grace_period"]) > config.shutdown_grace
    # one wallet and one jackpot for all: the replicas' files agree on them
    assert len({(c.wallet, tuple(sorted(c.jackpots.items()))) for c in configs}) == 1

    # Prometheus, only in the monitoring profile, scrapes every replica
    prometheus = next(s for s in services.values() if "prometheus" in str(s.get("image")))
    assert prometheus["profiles"] == ["monitoring"]
    scrape = yaml.safe_load(bind_mounts(prometheus)["/etc/prometheus/prometheus.yml"].read_text())
    targets = {
        target
        for job in scrape["scrape_configs"]
        for static in job["static_configs"]
        for target in static["targets"]
    }
    assert targets == {f"{name}:{envs[name]['STUD_PORT']}" for name in replicas}

    # the image: not root, a health check
    instructions = dockerfile_instructions()
    user = [args for word, args in instructions if word == "USER"][-1]
    assert user.split(":")[0] not in ("root", "0")
    assert any(word == "HEALTHCHECK" for word, _ in instructions)


def test_the_operations_guide_names_the_images_pinned() -> None:
    """OPERATIONS.md's "Image versions" names every base image of the Dockerfile and
    every image of the compose file, at the release pinned there, and no other."""
    guide = (ROOT / "docs" / "OPERATIONS.md").read_text(encoding="utf-8")
    line = guide.split("**Image versions**", 1)[1].split("\n- ", 1)[0]
    named = set(re.findall(r"`([\w./-]+:[\w.-]+)`", line))
    pinned = {args.split()[0] for word, args in dockerfile_instructions() if word == "FROM"}
    pinned |= {str(svc["image"]) for svc in load_compose()["services"].values()}
    pinned -= {str(svc.get("image")) for svc in replica_services(load_compose()).values()}
    assert named == pinned


def reference_rows() -> dict[str, dict[str, list[str]]]:
    """README.md's configuration reference: section -> setting -> its row's cells."""
    text = OPERATIONS.read_text(encoding="utf-8")
    reference = text.split("## Configuration reference", 1)[1].split("\n## ", 1)[0]
    sections: dict[str, dict[str, list[str]]] = {}
    section = ""
    for line in reference.splitlines():
        if line.startswith("### "):
            section = line.removeprefix("### ").strip("` ")
            sections[section] = {}
        elif line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            sections[section][cells[0].strip("`")] = cells
    return sections


def test_the_operations_guide_documents_every_setting() -> None:
    rows = reference_rows()
    sections: dict[str, Any] = {
        "[server]": Config,
        "[limits]": Limits,
        "[wallet]": WalletConfig,
        "[accounts]": AccountsConfig,
        "[admin]": AdminConfig,
        "[timers]": Timers,
        "[jackpots.NAME]": JackpotConfig,
    }
    nested = {"limits", "wallet", "accounts", "admin", "timers", "variants", "jackpots", "tables"}
    nested |= {"name"}
    for section, kind in sections.items():
        settings = {f.name for f in dataclasses.fields(kind)} - nested
        assert set(rows[section]) == settings, section
    for variable, dotted in ENVIRONMENT.items():
        section, _, name = dotted.rpartition(".")
        row = rows[f"[{section or 'server'}]"][name]
        assert row[2] == f"`{variable}`", f"{dotted} is set by {variable}"
    documented = {cells[2].strip("`") for table in rows.values() for cells in table.values()}
    assert documented - {"—"} == set(ENVIRONMENT)


# ----- the services, as processes ---------------------------------------------


class ComposeRedis(RedisServer):
    """redis-server with the compose file's arguments, on a loopback port, its
    data in a directory of ours (the container's /data volume)."""

    def __init__(self, args: list[str]) -> None:
        super().__init__()
        self.args = args

    @property
    def log(self) -> Path:
        return self.dir / "redis.log"

    def start(self, timeout: float = 10.0) -> None:
        assert self.process is None, "already running"
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [
                    shutil.which("redis-server") or "redis-server",
                    *self.args[1:],
                    *("--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir)),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while not self.ping():
            if self.process.poll() is not None or time.monotonic() > deadline:
                output = self.log.read_text(errors="replace")[-2000:]
                self.stop()
                raise RuntimeError(f"redis-server did not start:\n{output}")
            time.sleep(0.02)


def in_repository(arg: str) -> str:
    """An argument of the image's, outside it: /app (WORKDIR, the repository's copy)
    is the repository, and `python` the interpreter running these tests."""
    if arg == "python":
        return sys.executable
    return str(ROOT / arg.removeprefix("/app/")) if arg.startswith("/app/") else arg


def stud_server_command() -> list[str]:
    """The `stud-server` console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("stud-server")
    return [str(script)] if script.exists() else [sys.executable, "-m", "server.cli"]


@dataclass
class Replica:
    """One `stud-server` service of the compose file, as a local process."""

    name: str
    service: dict[str, Any]
    redis: ComposeRedis
    log: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def config(self) -> Config:
        return tables_config(self.service)[1]

    def command(self) -> list[str]:
        args = as_list(self.service["command"])
        mounts = bind_mounts(self.service)
        return stud_server_command() + [str(mounts.get(a, a)) for a in args[1:]]

    def environment(self) -> dict[str, str]:
        env = {
            k: v for k, v in os.environ.items() if not k.startswith("STUD_") and k != "REDIS_URL"
        }
        env.update(environment(self.service))
        redis_url = urlsplit(env["REDIS_URL"])
        env["REDIS_URL"] = urlunsplit(redis_url._replace(netloc=f"127.0.0.1:{self.redis.port}"))
        env["STUD_HOST"] = "127.0.0.1"  # the container's 0.0.0.0: here, loopback only
        env["STUD_PORT"] = str(self.port)
        env["STUD_PUBLIC_URL"] = self.url
        env.update(TEST_ENV)
        return env

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                self.command(), env=self.environment(), stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + WAIT
        while True:
            try:
                with urllib.request.urlopen(f"{self.http}/healthz", timeout=1) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not start:\n{self.log_text()[-3000:]}")
            time.sleep(0.05)

    def stop(self) -> int | None:
        """SIGTERM, as `docker compose stop` sends; the exit status."""
        process, self.process = self.process, None
        if process is None:
            return None
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
            return None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def log_records(self) -> list[dict[str, Any]]:
        """The replica's log: with --log-format json, every line is one JSON object."""
        records = []
        for line in self.log_text().splitlines():
            if line.strip():
                record = json.loads(line)
                assert isinstance(record, dict), line
                records.append(record)
        return records

    def healthcheck(self) -> subprocess.CompletedProcess[str]:
        """The Dockerfile's HEALTHCHECK command, run here against this replica."""
        _, args = next(i for i in dockerfile_instructions() if i[0] == "HEALTHCHECK")
        command = json.loads(args[args.index("CMD") + len("CMD") :].strip())
        native = [in_repository(a) for a in command]
        return subprocess.run(
            native, env=self.environment(), capture_output=True, text=True, timeout=WAIT
        )


@dataclass
class Stack:
    redis: ComposeRedis
    replicas: list[Replica]
    namespace: str

    async def store(self) -> RedisStore:
        return await RedisStore.connect(self.redis.url, namespace=self.namespace)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    compose = load_compose()
    _, redis_svc = redis_service(compose)
    redis = ComposeRedis(as_list(redis_svc["command"]))
    replicas = [
        Replica(name, svc, redis, tmp_path / f"{name}.log")
        for name, svc in replica_services(compose).items()
    ]
    namespace = environment(replicas[0].service).get("STUD_REDIS_NAMESPACE", "stud")
    try:
        redis.start()
        with ThreadPoolExecutor(len(replicas)) as pool:
            for started in [pool.submit(r.start) for r in replicas]:
                started.result()
        yield Stack(redis, replicas, namespace)
    finally:
        for r in replicas:
            r.stop()
        redis.cleanup()


# ----- playing ----------------------------------------------------------------


async def open_client(url: str, name: str | None = None, token: str | None = None) -> StudClient:
    client = await StudClient.open(url)
    await client.hello(name=name, token=token)
    return client


def table_frame(client: StudClient, table: str, phase: str, round_id: str | None = None) -> Any:
    """The first snapshot of `table` in `phase` (of `round_id`) among every frame received."""
    return next(
        (
            f
            for f in client.frames
            if f["t"] == "table"
            and f["table"] == table
            and f["phase"] == phase
            and (round_id is None or f["round_id"] == round_id)
        ),
        None,
    )


async def ante(client: StudClient, table: str, seat: int, amount: int) -> None:
    """An ante with the progressive bet; retried while the replica reconnects to Redis."""
    deadline = time.monotonic() + WAIT
    await client.wait_table(table, lambda s: s["phase"] == "waiting", timeout=WAIT)
    while True:
        try:
            await client.request("ante", table=table, seat=seat, amount=amount, progressive=True)
            return
        except ServerError as e:
            if e.code != "store_unavailable" or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


async def finish_round(client: StudClient, table: str, seat: int) -> str:
    """Deal, raise, and wait for the showdown; the round id."""
    await client.request("deal", table=table)
    deciding = await client.wait_for(lambda c: table_frame(c, table, "deciding"), WAIT)
    round_id: str = deciding["round_id"]
    await client.request("raise", table=table, seat=seat)
    await client.wait_for(lambda c: table_frame(c, table, "showdown", round_id), WAIT)
    client.frames.clear()  # the next round's frames only
    return round_id


async def meter(stack: Stack) -> int:
    store = await stack.store()
    try:
        return await store.meter("main")
    finally:
        await store.close()


async def ante_moves_the_meter(
    stack: Stack, client: StudClient, table: TableConfig, seat: int, watchers: list[StudClient]
) -> None:
    """An ante with the progressive feeds the shared meter; every watcher, on any replica,
    shows the new amount."""
    before = await meter(stack)
    await ante(client, table.table_id, seat, table.min_ante)
    now = await meter(stack)
    assert now == before + table.stake * table.contribution_bp // 10_000
    for w in watchers:
        await w.wait_for(lambda c: c.jackpots.get("main") == now, WAIT)


async def snapshot(stack: Stack, players: list[str]) -> dict[str, Any]:
    """Everything a Redis restart must keep: every account and each player's history."""
    store = await stack.store()
    try:
        return {
            "totals": await store.totals(),
            "history": {pid: await store.history(pid) for pid in players},
        }
    finally:
        await store.close()


async def test_two_replicas_share_wallets_and_jackpot_and_survive_a_redis_restart(
    stack: Stack,
) -> None:
    a, b = stack.replicas[:2]
    table_a = a.config.tables[0]
    table_b = b.config.tables[0]
    second_b = b.config.tables[1]

    # each replica passes the image's health check and serves the browser client at /
    for r in (a, b):
        check = await asyncio.to_thread(r.healthcheck)
        assert check.returncode == 0, check.stderr
        with urllib.request.urlopen(f"{r.http}/", timeout=5) as page:
            assert page.read() == (ROOT / "clients" / "web" / "index.html").read_bytes()

    alice = await open_client(a.url, "alice")
    bob = await open_client(b.url, "bob")
    resumed: StudClient | None = None
    try:
        assert alice.balance["balance"] == a.config.wallet.starting_credits
        # each lobby lists every replica's tables, with the public address of each
        everywhere = {t.table_id: a.url for t in a.config.tables}
        everywhere.update({t.table_id: b.url for t in b.config.tables})
        for c in (alice, bob):
            await c.request("lobby", watch=True)
            await c.wait_for(
                lambda c: c.lobby and {t["id"]: t["url"] for t in c.lobby["tables"]} == everywhere,
                WAIT,
            )

        # alice plays on a; her progressive stake moves the meter bob sees on b
        seat_a = (await alice.request("sit", table=table_a.table_id))["seat"]
        await ante_moves_the_meter(stack, alice, table_a, seat_a, [alice, bob])
        r1 = await finish_round(alice, table_a.table_id, seat_a)

        # bob plays on b; alice sees his stake on a
        seat_b = (await bob.request("sit", table=table_b.table_id))["seat"]
        await ante_moves_the_meter(stack, bob, table_b, seat_b, [alice, bob])
        r2 = await finish_round(bob, table_b.table_id, seat_b)

        # alice resumes on b with her token: the same player, the same wallet
        store = await stack.store()
        wallet = (await store.wallet(alice.player_id)).to_public()
        await store.close()
        await alice.wait_for(lambda c: c.balance == wallet, WAIT)
        resumed = await open_client(b.url, token=alice.token)
        assert resumed.player_id == alice.player_id and resumed.balance == wallet
        seat_2 = (await resumed.request("sit", table=second_b.table_id))["seat"]
        await ante(resumed, second_b.table_id, seat_2, second_b.min_ante)
        r3 = await finish_round(resumed, second_b.table_id, seat_2)
        # ... and what she won or lost on b is what a shows her
        await resumed.wait_for(lambda c: table_frame(c, second_b.table_id, "waiting"), WAIT)
        store = await stack.store()
        wallet = (await store.wallet(alice.player_id)).to_public()
        await store.close()
        await alice.request("balance")
        assert alice.balance == wallet and resumed.balance == wallet
        assert wallet["held"] == 0

        players = [alice.player_id, bob.player_id]
        before = await snapshot(stack, players)
        assert [h["round_id"] for h in before["history"][alice.player_id]] == [r3, r1]
        assert [h["round_id"] for h in before["history"][bob.player_id]] == [r2]
        assert sum(before["totals"].values()) == 0  # wallets + house + meter = buy-ins

        # Redis stops (SIGTERM: `docker compose restart redis`) and comes back from its AOF
        await asyncio.to_thread(stack.redis.stop)
        assert (stack.redis.dir / "appendonlydir").is_dir()
        (stack.redis.dir / "dump.rdb").unlink(missing_ok=True)  # the AOF alone, then
        await asyncio.to_thread(stack.redis.start)
        assert "DB loaded from append only file" in stack.redis.log.read_text(errors="replace")
        after = await snapshot(stack, players)
        assert after == before  # every settled round and every wallet balance kept

        # the replicas reconnect and keep serving: a round on each, the meter shared again
        await ante_moves_the_meter(stack, alice, table_a, seat_a, [alice, bob])
        r4 = await finish_round(alice, table_a.table_id, seat_a)
        await ante(bob, table_b.table_id, seat_b, table_b.min_ante)
        r5 = await finish_round(bob, table_b.table_id, seat_b)
        final = await snapshot(stack, players)
        assert [h["round_id"] for h in final["history"][alice.player_id]] == [r4, r3, r1]
        assert [h["round_id"] for h in final["history"][bob.player_id]] == [r5, r2]
        assert sum(final["totals"].values()) == 0

        # SIGTERM: a replica shuts down cleanly and closes its clients with 1001
        assert await asyncio.to_thread(a.stop) == 0
        await asyncio.wait_for(asyncio.shield(alice.closed), WAIT)
        assert alice.ws.close_code == 1001
    finally:
        for client in (alice, bob, resumed):
            if client is not None:
                await client.close()
    assert b.stop() == 0

    # the logs: JSON lines; every settled round logged with its id by its replica
    settled = {
        r.name: {
            rec["round_id"]: rec["table"]
            for rec in r.log_records()
            if rec["msg"] == "round settled"
        }
        for r in (a, b)
    }
    assert settled[a.name] == {r1: table_a.table_id, r4: table_a.table_id}
    assert settled[b.name] == {
        r2: table_b.table_id,
        r3: second_b.table_id,
        r5: table_b.table_id,
    }
    for r in (a, b):
        assert any(rec["msg"] == "shutting down" for rec in r.log_records())


def parse_metrics(text: str) -> dict[str, Any]:
    """Metric families by name, as Prometheus' text format defines them."""
    try:
        return {f.name: f for f in text_string_to_metric_families(text)}
    except ValueError:
        valid = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
        bad = [
            line
            for line in text.splitlines()
            if line.startswith(("# HELP ", "# TYPE ")) and not valid.fullmatch(line.split()[2])
        ]
        pytest.fail(f"/metrics is not Prometheus text format; bad metric names: {bad}")


async def test_prometheus_can_scrape_every_replica(stack: Stack) -> None:
    compose = load_compose()
    prometheus = next(
        s for s in compose["services"].values() if "prometheus" in str(s.get("image"))
    )
    scrape = yaml.safe_load(
        bind_mounts(prometheus)["/etc/prometheus/prometheus.yml"].read_text(encoding="utf-8")
    )
    paths = {job.get("metrics_path", "/metrics") for job in scrape["scrape_configs"]}
    assert paths == {"/metrics"}
    player = await open_client(stack.replicas[0].url, "counted")
    try:
        table = stack.replicas[0].config.tables[0]
        seat = (await player.request("sit", table=table.table_id))["seat"]
        await ante(player, table.table_id, seat, table.min_ante)
        await finish_round(player, table.table_id, seat)
        for i, r in enumerate(stack.replicas):
            rounds = 1 if i == 0 else 0
            with urllib.request.urlopen(f"{r.http}/metrics", timeout=5) as reply:
                assert reply.headers["Content-Type"].startswith("text/plain")
                text = reply.read().decode()
            families = parse_metrics(text)
            assert families["stud_rounds"].type == "counter"
            assert families["stud_rounds"].samples[0].value == rounds
            jackpots = {s.labels["name"]: s.value for s in families["stud_jackpot_cents"].samples}
            assert set(jackpots) == {"main"}
    finally:
        await player.close()
