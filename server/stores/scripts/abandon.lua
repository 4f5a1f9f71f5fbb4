-- REQ {op, round | player, ttl}: make an operation's outcome definite. Applied: true,
-- nothing changes. Not applied: the id is marked dead (a late arrival of the
-- original then applies nothing) and the answer is false.
local key = REQ.round ~= '' and ops_key(REQ.round) or buyops_key(REQ.player)
local first = redis.call('HGET', key, REQ.op)
if first then return ok(first ~= 'dead') end
redis.call('HSET', key, REQ.op, 'dead')
expire(key, REQ.ttl)
return ok(false)
