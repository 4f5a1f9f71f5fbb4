"""A wrong setting is refused by name, by `check-config` as by `serve`: the error says
which one and what it may be, not a list of every rule of its section."""

from __future__ import annotations

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
