-- REQ {player, amount, max_balance, op, ttl}: a top-up, refused past max_balance;
-- a repeated op returns its first result
local ops = buyops_key(REQ.player)
local again = replay(ops, REQ.op)
if again then return again end
local w = wallet(REQ.player)
if REQ.amount <= 0 or w[1] + REQ.amount > REQ.max_balance then
  return err('buy_in_limit', {balance = w[1]})
end
move({'', NULL, 'buy-in', 'world', 'player:' .. REQ.player, REQ.amount}, false)
return remember(ops, REQ.op, enc(wallet(REQ.player)), REQ.ttl)
