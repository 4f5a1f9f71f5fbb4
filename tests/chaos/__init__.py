"""The chaos test: money under faults, across a fleet of real processes.

A real `redis-server` (append-only file, fsync always) and three real
`stud-server serve` processes share five tables, each table configured on two
of them. Bots play over real WebSockets and write down every request and the
reply they got (the ground truth of what a player was told), every showdown
result and every `balance` frame. Meanwhile faults land mid-round on a seeded
schedule: a host SIGKILLed or SIGSTOPped past its lease, Redis SIGTERMed,
SIGKILLed (both restarted from the AOF) or SIGSTOPped past the store timeout
and the lease, clients cutting their TCP connection mid-decision, one token
racing antes and chip purchases on several connections of several processes.

Then everything is healed and the fleet settles; the bots stop playing but stay
connected until no money is in flight, and the wallet each was last told is put
beside the store's; the bots stop, every server is stopped with SIGTERM, and the
run is reconciled from Redis and the bots' and servers' logs (`reconcile`): the
books, holds and open rounds, each player's balance against what they were told,
each round's ledger against what its seats were told and shown, one host per
table at a time, every table playing again once the faults stopped, and no
wallet left shown stale.

Modules:
    journal    what the bots did and were told (requests, results, balances)
    cluster    the processes: Redis with its AOF, the table servers, their configs
    bots       the players: follow their table, resume by token, log everything
    faults     the seeded schedule and the injector
    store      reading the namespace out of Redis for the reconciliation
    logs       the servers' JSON logs
    reconcile  the checks (pure functions of the evidence) and the report
    run        one whole run; `python -m tests.chaos` (`make chaos`)
"""
