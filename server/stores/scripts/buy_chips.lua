-- REQ {player, amount, max_balance, max_amount (-1: none), op, ttl, at}: a top-up, refused
-- past max_balance or over max_amount, or to a suspended player.
-- The op is remembered with its amount: a repeat buys nothing and answers the
-- wallet as it is now; a repeat with another amount is refused.
if store_lost() then return err('store_lost') end  -- no money into a wiped store
local ops = buyops_key(REQ.player)
local first = redis.call('HGET', ops, REQ.op)
if first == 'dead' then return err('abandoned', {op = REQ.op}) end
if first then
  -- before amounts were kept, the first wallet was: such a repeat cannot be checked
  local bought = tonumber(first)
  if bought and bought ~= REQ.amount then
    return err('purchase_conflict', {op = REQ.op, first = bought, amount = REQ.amount})
  end
  return ok(wallet(REQ.player))
end
local barred = suspended_error(REQ.player)  -- a suspended player buys nothing
if barred then return barred end
local w = wallet(REQ.player)
if REQ.max_amount >= 0 and REQ.amount > REQ.max_amount then
  return err('buy_in_limit', {balance = w[1], per_purchase = true})
end
if REQ.amount <= 0 or w[1] + REQ.amount > REQ.max_balance then
  return err('buy_in_limit', {balance = w[1]})
end
local bought = {'', NULL, 'buy-in', 'world', 'player:' .. REQ.player, REQ.amount}
move_outside_round(REQ.op, REQ.at, bought)
redis.call('HSET', ops, REQ.op, cents(REQ.amount))
expire(ops, REQ.ttl)
return ok(wallet(REQ.player))
