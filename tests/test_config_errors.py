"""A wrong setting is refused by name, by `check-config` as by `serve`: the error says
which one and what it may be, not a list of every rule of its section."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.config import ConfigError, build_config, load_config


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"limits": {"max_frame_bytes": 100}}, "limits.max_frame_bytes: at least 256"),
        ({"limits": {"rate_per_second": 0}}, "limits.rate_per_second: more than 0"),
        ({"limits": {"rate_burst": 0}}, "limits.rate_burst: at least 1"),
        ({"jackpots": {"main": {"seed": -1}}}, "jackpots.main.seed: must be >= 0"),
        (
            {"jackpots": {"main": {"contribution_bp": 10_001}}},
            "jackpots.main.contribution_bp: must be 0..10000",
        ),
        ({"server": {"redis_url": "http://x"}}, "server.redis_url: 'http://x' is neither"),
        ({"server": {"redis_url": "redis://h/zero"}}, "server.redis_url: 'redis://h/zero'"),
        ({"server": {"redis_url": "redis://h:port/0"}}, "server.redis_url: "),
        ({"server": {"redis_url": "redis://ann:pw@h/0"}}, "server.redis_url: a password only"),
        ({"server": {"redis_namespace": "a b"}}, "server.redis_namespace: 1-64 of"),
        ({"server": {"shutdown_grace": -5}}, "server.shutdown_grace: must be >= 0"),
        ({"server": {"public_url": "http://x"}}, "server.public_url: a ws:// or wss://"),
        (
            {"wallet": {"starting_credits": 2_000_000, "max_balance": 1_000_000}},
            "wallet.starting_credits: at most wallet.max_balance (1000000 cents)",
        ),
        (
            {"server": {"port": 18896}, "admin": {"port": 18896}},
            "admin.port: the same address as server.port",
        ),
        (
            {"accounts": {"token_idle_days": 0.001}},  # no one could resume: an hour at least
            "accounts.token_idle_days: 0 (tokens never expire) or 0.042 (an hour) to 36500 "
            "days, got 0.001",
        ),
        ({"accounts": {"token_idle_days": -1}}, "accounts.token_idle_days: 0 (tokens never"),
        ({"wallet": {"max_buy_chips": 0}}, "wallet.max_buy_chips: at least 1 cent"),
        ({"server": {"static_dir": "/nonexistent/web"}}, "server.static_dir: no such directory"),
        ({"admin": {"static_dir": "/nonexistent/admin"}}, "admin.static_dir: no such directory"),
        (
            {"jackpots": {"big": {}}, "tables": [{"id": "t1"}]},
            "tables[0] (t1).jackpot: unknown jackpot 'main' (a table without `jackpot =` "
            "feeds 'main') (have ['big'])",
        ),
    ],
)
def test_a_wrong_setting_is_named(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as e:
        build_config(data)
    assert str(e.value).startswith(message), str(e.value)


@pytest.mark.parametrize(
    "url", ["redis://127.0.0.1:6379/0", "redis://:secret@redis:6380", "unix:///run/redis.sock"]
)
def test_a_redis_url_the_store_takes_is_taken(url: str) -> None:
    assert build_config({"server": {"redis_url": url}}).redis_url == url


def _table(**fields: Any) -> dict[str, Any]:
    return {"tables": [{"id": "high", "variant": "casino-stud", **fields}]}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {**_table(min_ante=400_000, max_ante=500_000), "wallet": {"max_balance": 1_000_000}},
            "tables[0] (high).min_ante: 400000 cents with its raise (3 x 400000) is more than "
            "wallet.max_balance (1000000 cents)",
        ),
        (_table(max_ante=99_999_999_999_999_999_999), "tables[0] (high).max_ante: at most"),
        (_table(progressive_stake=99_999_999_999_999), "tables[0] (high).progressive_stake"),
        (_table(seats=0), "tables[0] (high): seats must be"),
        (_table(min_ante="5"), "tables[0] (high).min_ante: must be an integer"),
        ({"wallet": {"max_balance": 2**53}}, "wallet.max_balance: at most 9007199254740991"),
    ],
)
def test_a_table_nobody_could_bet_at_is_refused_by_its_id(
    data: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as e:
        build_config(data)
    assert str(e.value).startswith(message), str(e.value)


def test_a_setting_from_the_environment_is_named_by_its_variable() -> None:
    with pytest.raises(ConfigError) as e:
        load_config(env={"STUD_BETTING_SECONDS": "-3"})
    assert str(e.value).startswith("STUD_BETTING_SECONDS=-3: timers.betting"), str(e.value)
    with pytest.raises(ConfigError) as e:
        load_config(env={"STUD_PORT": "70000"})
    assert str(e.value).startswith("STUD_PORT=70000: server.port"), str(e.value)


#: Each numeric setting with a value that would break serving (or mean nothing), refused
#: by its own name and value: not "ok", and not a list of its section's rules.
BAD_NUMBERS = [
    ("limits", "hello_timeout", -1),  # every connection was dropped at once
    ("limits", "hello_timeout", 0),
    ("limits", "max_tables_per_connection", 0),  # every join was refused
    ("limits", "max_frame_bytes", 100),
    ("limits", "rate_per_second", 0),
    ("limits", "rate_burst", 0),
    ("limits", "max_unsent_bytes", 1000),
    ("server", "reconnect_grace", -1),  # acted as 0
    ("server", "fleet_ttl", 0),
    ("server", "store_timeout", 0),
    ("server", "store_patience", -1),
    ("server", "shutdown_grace", -5),
    ("server", "jackpot_push_interval", 0),
    ("server", "jackpot_push_budget", 0),
    ("server", "max_seats_per_player", 0),
    ("server", "port", 70000),
    ("accounts", "time_cost", 0),
    ("accounts", "parallelism", 0),
    ("accounts", "memory_cost", 7),
    ("accounts", "hash_threads", 0),
    ("accounts", "max_waiting_hashes", 0),
    ("accounts", "window", 0),
    ("accounts", "max_failures_per_account", 0),
    ("accounts", "max_failures_per_address", 0),
    ("accounts", "max_new_players_per_address", -1),
    ("accounts", "token_idle_days", -1),
    ("admin", "token_ttl", 0),
    ("admin", "poll_interval", 0),
    ("admin", "action_timeout", 0),
    ("admin", "rate_per_second", 0),
    ("admin", "rate_burst", 0),
    ("admin", "port", -2),
    ("admin", "max_adjustment", -1),
    ("wallet", "starting_bonus", -1),
    ("timers", "decision", 0),
]


@pytest.mark.parametrize(("section", "key", "value"), BAD_NUMBERS)
def test_each_number_is_checked_and_named_alone_with_its_value(
    section: str, key: str, value: float
) -> None:
    with pytest.raises(ConfigError) as e:
        build_config({section: {key: value}})
    text = str(e.value)
    assert text.startswith(f"{section}.{key}:"), text
    assert text.endswith(f"got {value!r}"), text


@pytest.mark.parametrize(
    ("section", "key"),
    [("limits", "hello_timeout"), ("server", "fleet_ttl"), ("admin", "poll_interval")],
)
@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_number_that_is_not_finite_is_refused(section: str, key: str, value: float) -> None:
    with pytest.raises(ConfigError) as e:
        build_config({section: {key: value}})
    assert str(e.value).startswith(f"{section}.{key}: a finite number"), str(e.value)


@pytest.mark.parametrize("header", [" ", "X Forwarded For", "X-Forwarded-For:", "Ünicode"])
def test_an_address_header_that_is_no_header_name_is_refused(header: str) -> None:
    with pytest.raises(ConfigError) as e:
        build_config({"accounts": {"address_header": header}})
    assert str(e.value).startswith("accounts.address_header: a header name"), str(e.value)


@pytest.mark.parametrize("header", ["", "X-Forwarded-For", "X-Real-IP"])
def test_an_address_header_that_is_a_header_name_or_none_is_taken(header: str) -> None:
    assert build_config({"accounts": {"address_header": header}}).accounts.address_header == header


def test_the_environment_names_a_number_by_its_variable() -> None:
    with pytest.raises(ConfigError) as e:
        load_config(env={"STUD_RECONNECT_GRACE": "-1"})
    assert str(e.value) == (
        "STUD_RECONNECT_GRACE=-1: server.reconnect_grace: must be >= 0 seconds, got -1"
    )


def _stud(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2 with one `stud-server: ...` line naming each of `words`, no traceback."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("stud-server: "), result.stderr
    for word in words:
        assert word in lines[0], result.stderr


def test_a_config_file_that_is_not_utf8_is_refused_by_name(tmp_path: Path) -> None:
    """Read as text, a file in another encoding is no TOML: said as a missing file is."""
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfe[server]\n")
    with pytest.raises(ConfigError) as e:
        load_config(bad, env={})
    assert str(e.value).startswith(f"cannot read config {bad}: not UTF-8"), str(e.value)
    _refused(_stud("check-config", str(bad)), "cannot read config", str(bad), "UTF-8")
    _refused(_stud("serve", "--port", "0", "--config", str(bad)), "cannot read config")


@pytest.mark.parametrize(
    ("option", "key", "value"),
    [
        ("--public-url", "public_url", "not a url"),
        ("--public-url", "public_url", "http://x"),
        ("--public-url", "public_url", "ws//x"),
        ("--redis", "redis_url", "http://x"),
    ],
)
def test_serve_s_options_are_checked_as_the_file_s_settings(
    option: str, key: str, value: str
) -> None:
    """`--public-url` and `--redis` override the file and the environment, and are refused
    in their words (a wrong public_url was served and advertised by the lobby)."""
    with pytest.raises(ConfigError) as e:
        build_config({"server": {key: value}})
    _refused(_stud("serve", "--port", "0", "--admin-port", "-1", option, value), str(e.value))


def test_an_act_limit_is_whole_cents_from_the_file_or_the_environment(tmp_path: Path) -> None:
    """`[admin] max_adjustment`: 0 (no limit of its own, the default) or more cents; a
    negative one would refuse every credit and debit, and is refused at start."""
    assert build_config({}).admin.max_adjustment == 0
    assert build_config({"admin": {"max_adjustment": 5_000}}).admin.max_adjustment == 5_000
    env = {"STUD_ADMIN_MAX_ADJUSTMENT": "2500"}
    assert load_config(env=env).admin.max_adjustment == 2_500
    with pytest.raises(ConfigError) as e:
        load_config(env={"STUD_ADMIN_MAX_ADJUSTMENT": "-1"})
    assert str(e.value) == (
        "STUD_ADMIN_MAX_ADJUSTMENT=-1: admin.max_adjustment: must be >= 0 cents (0: no limit)"
        ", got -1"
    )
    with pytest.raises(ConfigError) as e:
        build_config({"admin": {"max_adjustment": 2**53}})
    assert str(e.value).startswith("admin.max_adjustment: at most 9007199254740991"), str(e.value)
    with pytest.raises(ConfigError) as e:
        build_config({"admin": {"max_adjustment": 50.5}})
    assert str(e.value).startswith("admin.max_adjustment: expected int"), str(e.value)
    bad = tmp_path / "limit.toml"
    bad.write_text("[admin]\nmax_adjustment = -500\n", encoding="utf-8")
    _refused(_stud("check-config", str(bad)), "admin.max_adjustment", "got -500")
    _refused(
        _stud("serve", "--port", "0", "--admin-port", "-1", "--config", str(bad)),
        "admin.max_adjustment",
    )
