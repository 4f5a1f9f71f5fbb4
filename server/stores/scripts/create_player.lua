-- REQ {id, name, token_hash, now, credits, bonus, at}: profile, token, bonus and the buy-in at
-- once; idempotent by id (the caller chose it), so a retry grants nothing twice
if store_lost() then return err('store_lost') end  -- no money into a wiped store
if redis.call('HEXISTS', P .. 'players', REQ.id) == 1 then return ok(wallet(REQ.id)) end
redis.call('HSET', P .. 'players', REQ.id, enc(obj({name = REQ.name})))
redis.call('HSET', P .. 'tokens', REQ.token_hash, REQ.id)
redis.call('HSET', P .. 'tokens:used', REQ.token_hash, REQ.now)
redis.call('SADD', P .. 'ptokens:' .. REQ.id, REQ.token_hash)
if REQ.credits > 0 then
  local grant = {'', NULL, 'buy-in', 'world', 'player:' .. REQ.id, REQ.credits}
  move_outside_round('grant:' .. REQ.id, REQ.at, grant)
end
set_bonus(REQ.id, REQ.bonus)
return ok(wallet(REQ.id))
