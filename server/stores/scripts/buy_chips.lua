-- REQ {player, amount, max_balance}: a top-up, refused past max_balance
local w = wallet(REQ.player)
if REQ.amount <= 0 or w[1] + REQ.amount > REQ.max_balance then
  return err('buy_in_limit', {balance = w[1]})
end
move({'', NULL, 'buy-in', 'world', 'player:' .. REQ.player, REQ.amount}, false)
return ok(wallet(REQ.player))
