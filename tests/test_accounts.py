"""Accounts over real WebSockets on one server: register, login, logout,
change_password, the throttle, and what is never said or kept."""

from __future__ import annotations

import asyncio
import logging

import pytest

from clients.connection import ServerError, StudClient
from tests.conftest import ClientFactory, ServerFactory
from tests.decks import shuffles

START = 100_000  # conftest's starting credits
PASSWORD = "correct horse battery"
DEALER_AK = ["Ad", "Kc", "9h", "4s", "2d"]


async def refused(client: StudClient, t: str, **fields: object) -> ServerError:
    with pytest.raises(ServerError) as e:
        await client.request(t, **fields)
    return e.value


async def play_a_round(client: StudClient, table: str = "alpha") -> None:
    await client.request("sit", table=table, seat=0)
    await client.request("ante", table=table, seat=0, amount=500)
    await client.request("deal", table=table)
    await client.wait_table(table, lambda s: s["phase"] == "deciding")
    await client.request("raise", table=table, seat=0)
    await client.wait_table(table, lambda s: s["phase"] == "showdown")


async def test_a_guest_registers_and_keeps_its_wallet_history_and_seats(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    hand = ["Kh", "Kd", "7s", "7c", "3h"]  # two pair beats the dealer's ace-king: 2:1
    server = await make_server(shuffle=shuffles([hand, DEALER_AK]))
    ann = await connect(server, "Ann")
    assert ann.welcome["username"] is None and ann.welcome["resumed"] is False
    await play_a_round(ann)
    await ann.wait_for(lambda c: c.balance["balance"] == START + 500 + 2_000)
    world = (await server.store.totals())["world"]
    reply = await ann.register("Ann_99", PASSWORD)
    assert reply["username"] == "Ann_99"
    # nothing granted: the guest's credits were the free-play grant
    assert (await server.store.totals())["world"] == world
    # the same token resumes the account, seat and history included
    await ann.close()
    again = await connect(server, None, token=ann.token)
    assert again.player_id == ann.player_id and again.welcome["username"] == "Ann_99"
    assert again.welcome["resumed"] is True
    assert again.welcome["seats"] == {"alpha": [0]}
    assert again.balance["balance"] == START + 2_500
    history = await again.request("history")
    assert history["t"] == "ok"
    rounds = [f for f in again.frames if f["t"] == "history"][-1]["rounds"]
    assert len(rounds) == 1 and rounds[0]["seats"][0]["player_id"] == ann.player_id
    # registering twice is refused
    err = await refused(again, "register", username="other_name", password=PASSWORD)
    assert err.code == "already_registered"


async def test_login_switches_a_connection_and_closes_the_older_one(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann = await connect(server, "Ann")
    await ann.request("buy_chips", amount=12_345)
    await ann.register("ann_99", PASSWORD)
    device = await connect(server, "someone")  # a guest on another device
    guest_token = device.token
    world = (await server.store.totals())["world"]
    welcome = await device.login("ANN_99", PASSWORD)  # any case
    assert welcome["t"] == "welcome" and welcome["player_id"] == ann.player_id
    assert welcome["username"] == "ann_99" and welcome["name"] == "Ann"
    assert welcome["resumed"] is True and welcome["token"] not in (ann.token, guest_token)
    assert welcome["balance"]["balance"] == START + 12_345
    assert set(welcome) >= {"v", "seats", "jackpots", "limits"}
    await asyncio.wait_for(ann.closed, 5)  # one connection per player: the newest wins
    assert ann.ws.close_code == 1000
    # a login grants nothing, and the guest that was stays a guest
    assert (await server.store.totals())["world"] == world
    guest = await connect(server, None, token=guest_token)
    assert guest.welcome["username"] is None and guest.player_id != ann.player_id
    # both tokens of the account work (one per device)
    other = await connect(server, None, token=ann.token)
    assert other.player_id == ann.player_id


async def test_unknown_users_and_wrong_passwords_are_answered_alike(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    probe = await connect(server, "probe")
    checks = server.passwords.done
    wrong = await refused(probe, "login", username="ann_99", password="not the password")
    assert server.passwords.done == checks + 1  # one argon2 check
    unknown = await refused(probe, "login", username="nobody_here", password="not the password")
    assert server.passwords.done == checks + 2  # one argon2 check too (a dummy hash)
    assert wrong.code == unknown.code == "bad_credentials"
    assert {k: v for k, v in wrong.frame.items() if k != "id"} == {
        k: v for k, v in unknown.frame.items() if k != "id"
    }


async def test_failures_are_throttled_per_account_and_per_address(
    make_server: ServerFactory, connect: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="stud.accounts")

    def throttled() -> list[list[str]]:  # the log names only the counters at their limit
        said = [r for r in caplog.records if r.getMessage() == "password checks throttled"]
        return [list(getattr(r, "keys", [])) for r in said]

    limits = {"max_failures_per_account": 3, "max_failures_per_address": 5, "window": 600}
    server = await make_server(accounts=limits)
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    probe = await connect(server, "probe")
    for _ in range(3):
        e = await refused(probe, "login", username="ann_99", password="wrong password!")
        assert e.code == "bad_credentials"
    checks = server.passwords.done
    # at the limit even the right password is not checked
    e = await refused(probe, "login", username="ann_99", password=PASSWORD)
    assert e.code == "too_many_attempts" and 0 < e.frame["retry_after"] <= 600
    assert server.passwords.done == checks
    assert throttled() == [["user:ann_99"]]  # the address is at 3 of 5
    # two more failures from this address under other names reach the address' limit
    for name in ("bob_1", "cy_2"):
        assert (await refused(probe, "login", username=name, password="x" * 12)).code == (
            "bad_credentials"
        )
    e = await refused(probe, "login", username="dee_3", password="x" * 12)
    assert e.code == "too_many_attempts"
    assert throttled()[-1] == ["addr:127.0.0.1"]
    # the counts are the store's: shared by every process on it
    counts = await server.store.failures(["user:ann_99", "addr:127.0.0.1"])
    assert [c.count for c in counts] == [3, 5]


async def test_a_burst_of_wrong_passwords_is_held_to_the_limit(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """The limit was read before the check and the failure counted after it: thirty
    wrong passwords sent at once were all checked (a limit of 3). Each check is counted
    before it is made now, and one refused at the limit is not counted."""
    limits = {"max_failures_per_account": 3, "max_failures_per_address": 1000, "window": 600}
    server = await make_server(accounts=limits)
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    probes = [await connect(server, f"p{i}") for i in range(30)]
    checks = server.passwords.done
    results = await asyncio.gather(
        *(
            refused(p, "login", username="ann_99", password=f"wrong password {i}")
            for i, p in enumerate(probes)
        )
    )
    codes = [r.code for r in results]
    assert codes.count("bad_credentials") == 3 and server.passwords.done - checks == 3, codes
    assert codes.count("too_many_attempts") == 27, codes
    (counted,) = await server.store.failures(["user:ann_99"])
    assert counted.count == 3


async def test_a_successful_login_clears_its_account_count(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(accounts={"max_failures_per_account": 3})
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    probe = await connect(server, "probe")
    for _ in range(2):
        await refused(probe, "login", username="ann_99", password="wrong password!")
    await probe.login("ann_99", PASSWORD)
    assert (await server.store.failures(["user:ann_99"]))[0].count == 0


async def test_usernames_and_passwords_are_checked(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann = await connect(server, "Ann")
    bob = await connect(server, "Bob")
    for password in ("short", "x" * 129, "Ann_99", "ANN_99"):
        e = await refused(ann, "register", username="ann_99", password=password)
        assert e.code == "weak_password" and e.frame["field"] == "password"
        assert password not in e.frame["message"]
    e = await refused(ann, "register", username="ann-99", password=PASSWORD)
    assert e.code == "invalid_field" and e.frame["field"] == "username"
    await ann.register("ann_99", PASSWORD)
    e = await refused(bob, "register", username="Ann_99", password=PASSWORD)
    assert e.code == "username_taken"
    e = await refused(bob, "change_password", old=PASSWORD, new="another password")
    assert e.code == "not_registered"
    # a refused registration left Bob a guest
    assert bob.welcome["username"] is None


async def test_logout_revokes_the_token_and_unwelcomes_the_connection(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    await ann.request("logout")
    e = await refused(ann, "balance")
    assert e.code == "not_welcomed"
    e = await refused(ann, "hello", v=1, token=ann.token)
    assert e.code == "invalid_token"
    await ann.hello(name="Ann again")  # the connection goes on as a new guest
    assert ann.welcome["username"] is None
    back = await ann.login("ann_99", PASSWORD)
    assert back["username"] == "ann_99"


async def test_signing_in_or_out_is_refused_while_seated(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    guest = await connect(server, "guest")
    await guest.request("sit", table="alpha")
    e = await refused(guest, "login", username="ann_99", password=PASSWORD)
    assert e.code == "seated"
    assert (await refused(guest, "logout")).code == "seated"
    await guest.request("leave", table="alpha")
    assert (await guest.login("ann_99", PASSWORD))["player_id"] == ann.player_id


async def test_a_hand_left_folded_does_not_hold_sign_ins_up_and_a_raised_one_says_why(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """After `leave`, `login` was refused 'leave the table first', which `leave` could not
    do any more (not_at_table): a folded hand has nothing left in play, and a raised
    one is waited for in words that say so."""
    server = await make_server(timers={"betting": 30, "decision": 30, "results": 30})
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    folder, raiser = await connect(server, "folder"), await connect(server, "raiser")
    waiter = await connect(server, "waiter")  # undecided: the round stays in deciding
    for seat, guest in enumerate((folder, raiser, waiter)):
        await guest.request("sit", table="alpha", seat=seat)
        await guest.request("ante", table="alpha", seat=seat, amount=100)
    for guest in (folder, raiser, waiter):
        await guest.request("deal", table="alpha")
    await folder.wait_table("alpha", lambda s: s["phase"] == "deciding")
    await raiser.request("raise", table="alpha", seat=1)
    await raiser.request("leave", table="alpha")
    e = await refused(raiser, "logout")
    assert e.code == "seated" and "leave the table" not in e.frame["message"], e.frame
    assert "hand at 'alpha' is still in play" in e.frame["message"]
    await folder.request("fold", table="alpha", seat=0)
    await folder.request("leave", table="alpha")
    assert (await folder.login("ann_99", PASSWORD))["player_id"] == ann.player_id
    assert server.rooms["alpha"].table.phase == "deciding"  # the round goes on meanwhile


async def test_a_login_rejoins_the_accounts_seats(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    await ann.request("sit", table="beta", seat=1)
    device = await connect(server, "device")
    welcome = await device.login("ann_99", PASSWORD)
    assert welcome["seats"] == {"beta": [1]}
    snap = await device.wait_table("beta", lambda s: s["seats"][1] is not None)
    assert snap["seats"][1]["player_id"] == ann.player_id
    await device.request("stand", table="beta", seat=1)  # it is this connection's seat now


async def test_change_password_revokes_the_other_devices(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    laptop = await connect(server, "x")
    await laptop.login("ann_99", PASSWORD)
    laptop_token = laptop.token
    await laptop.close()
    phone = await connect(server, "y")
    await phone.login("ann_99", PASSWORD)
    e = await refused(phone, "change_password", old="not it at all", new="brand new password")
    assert e.code == "bad_credentials"
    e = await refused(phone, "change_password", old=PASSWORD, new="tiny")
    assert e.code == "weak_password" and e.frame["field"] == "new"
    await phone.request("change_password", old=PASSWORD, new="brand new password")
    assert (await refused(await connect(server, None), "hello", v=1, token=laptop_token)).code == (
        "invalid_token"
    )
    again = await connect(server, None, token=phone.token)  # this device's token still works
    assert again.player_id == ann.player_id
    probe = await connect(server, "probe")
    assert (await refused(probe, "login", username="ann_99", password=PASSWORD)).code == (
        "bad_credentials"
    )
    assert (await probe.login("ann_99", "brand new password"))["player_id"] == ann.player_id


async def test_hashes_are_argon2id_with_the_configured_parameters(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(accounts={"time_cost": 1, "memory_cost": 2048})
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    creds = await server.store.credentials("ann_99")
    assert creds is not None
    assert creds.password_hash.startswith("$argon2id$v=19$m=2048,t=1,p=1$")
    assert PASSWORD not in creds.password_hash


async def test_an_old_hash_is_replaced_at_the_next_login(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    creds = await server.store.credentials("ann_99")
    assert creds is not None
    from argon2 import PasswordHasher

    old = PasswordHasher(time_cost=1, memory_cost=512, parallelism=1).hash(PASSWORD)
    assert await server.store.set_password("ann_99", ann.player_id, creds.password_hash, old)
    device = await connect(server, "device")
    await device.login("ann_99", PASSWORD)

    async def rehashed() -> None:
        while True:
            c = await server.store.credentials("ann_99")
            if c is not None and c.password_hash != old:
                return
            await asyncio.sleep(0.01)

    await asyncio.wait_for(rehashed(), 10)
    c = await server.store.credentials("ann_99")
    assert c is not None and not server.passwords.needs_rehash(c.password_hash)


async def test_a_burst_past_the_hash_queue_is_answered_busy(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    accounts = {"max_waiting_hashes": 1, "memory_cost": 19_456, "time_cost": 2}
    server = await make_server(accounts=accounts)
    probes = [await connect(server, f"p{i}") for i in range(10)]
    results = await asyncio.gather(
        *(
            p.request("login", username=f"user_{i}", password="x" * 12)
            for i, p in enumerate(probes)
        ),
        return_exceptions=True,
    )
    codes = sorted(r.code for r in results if isinstance(r, ServerError))
    assert len(codes) == 10 and "bad_credentials" in codes and "busy" in codes, codes
    busy = next(r for r in results if isinstance(r, ServerError) and r.code == "busy")
    assert busy.frame["retry_after"] >= 1


async def test_no_password_is_logged(
    make_server: ServerFactory, connect: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    server = await make_server()
    ann = await connect(server, "Ann")
    await ann.register("ann_99", PASSWORD)
    probe = await connect(server, "probe")
    await refused(probe, "login", username="ann_99", password="a wrong one, logged?")
    await probe.login("ann_99", PASSWORD)
    await probe.request("change_password", old=PASSWORD, new="a new secret here")
    # the server's own records (stud-server keeps the websockets library's frame
    # dumps off: its loggers stay at WARNING or above)
    ours = [r for r in caplog.records if r.name.startswith("stud")]
    text = "\n".join(f"{r.getMessage()} {r.__dict__}" for r in ours)
    assert "account registered" in text and "signed in" in text
    for secret in (PASSWORD, "a wrong one, logged?", "a new secret here"):
        assert secret not in text


async def test_accounts_whose_token_went_while_the_fleet_channel_was_down_are_closed(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """A sign-out's news can be lost while a process's channel to the fleet is down: when
    it is back, every player connected there is checked, and one whose token no longer
    resumes it is closed, a guest too (its logout on another process, right after a
    Redis restart, left its other connections buying chips); the others stay."""
    server = await make_server()
    ann = await connect(server, "Ann")
    await ann.register("Ann_lost", PASSWORD)
    bob = await connect(server, "Bob")
    await bob.register("Bob_kept", PASSWORD)
    guest = await connect(server, "Cy")
    gone = await connect(server, "Di")
    await server.store.revoke_token(ann.token)  # as a password change elsewhere did
    await server.store.revoke_token(gone.token)  # as the guest's logout elsewhere did
    server.check_accounts()
    for closed in (ann, gone):
        await asyncio.wait_for(closed.ws.wait_closed(), 10)
        assert closed.ws.protocol.close_rcvd is not None
        assert closed.ws.protocol.close_rcvd.code == 1008
    assert (await bob.request("balance"))["t"] == "ok"
    assert (await guest.request("balance"))["t"] == "ok"


async def test_a_fleet_channel_back_pushes_the_wallets_it_may_have_missed(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Wallet news lost while the channel was down (another process's credit) is made up
    when it is back: every connected player's wallet is read and pushed."""
    server = await make_server()
    ann = await connect(server, "Ann")
    await server.store.buy_chips(ann.player_id, 700, 10 * START, "buy:elsewhere")  # no news
    server.news_lost()
    await ann.wait_for(lambda c: c.balance.get("balance") == START + 700, timeout=10)


async def test_one_address_makes_a_bounded_number_of_new_players(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Each `hello` with a name makes a player kept for good: 300 from one client in half
    a second were all made. Past the limit a new one is refused; resuming is not."""
    server = await make_server(accounts={"max_new_players_per_address": 3})
    made = [await connect(server, f"guest{i}") for i in range(3)]
    late = await connect(server, None)
    with pytest.raises(ServerError) as refused:
        await late.hello(name="one too many")
    assert refused.value.code == "too_many_attempts"
    assert 590 <= refused.value.frame["retry_after"] <= 600
    back = await connect(server, None, token=made[0].token)  # a resume makes nobody
    assert back.player_id == made[0].player_id
    assert len({c.player_id for c in made}) == 3


async def test_a_player_who_left_at_the_showdown_may_sign_out_at_once(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """The hand stays on view until the round ends, settled: no bet to give up, so
    `seated` (which keeps a change of identity from costing a bet) does not apply."""
    server = await make_server(timers={"betting": 30, "decision": 30, "results": 30})
    ann = await connect(server, "Ann")
    await ann.register("ann_show", PASSWORD)
    await play_a_round(ann)  # raised: the showdown, for 30 s
    await ann.request("leave", table="alpha")
    assert server.rooms["alpha"].table.seats[0] is not None  # still on view
    assert (await ann.request("logout"))["t"] == "ok"


async def test_login_as_the_first_message_makes_no_guest(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Signing in on a new device used to need a `hello` first, which made a guest kept
    for good and counted against the address's new players: with a limit of one, the
    account holder could not sign in again from that address."""
    server = await make_server(accounts={"max_new_players_per_address": 1})
    ann = await connect(server, "Ann")  # the address's one new player
    await ann.register("ann_first", PASSWORD)
    device = await connect(server, None)
    welcome = await device.login("ANN_first", PASSWORD)
    assert welcome["t"] == "welcome" and welcome["v"] == 1 and welcome["resumed"] is True
    assert welcome["player_id"] == ann.player_id and welcome["username"] == "ann_first"
    assert (await device.request("balance"))["t"] == "ok"
    stranger = await connect(server, None)
    with pytest.raises(ServerError) as refused:  # still the one limit for new players
        await stranger.hello(name="Cy")
    assert refused.value.code == "too_many_attempts"
    with pytest.raises(ServerError) as wrong:  # a wrong password welcomes nothing
        await stranger.login("ann_first", "not the password at all")
    assert wrong.value.code == "bad_credentials"
    with pytest.raises(ServerError) as still:
        await stranger.request("balance")
    assert still.value.code == "not_welcomed"
