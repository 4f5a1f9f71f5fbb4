-- REQ {table, epoch, round, transfers, holds, ttl}: the server's void of an unsettled
-- round: its refunds, its holds released, closed; voiding twice refunds once
if store_lost() then return err('store_lost') end  -- no money into a wiped store
local rid = REQ.round
local round = round_of(rid)
local state = round.state
local refused = fence_error(REQ.table, REQ.epoch)  -- a stale host learns it lost the table
if refused then return refused end
if state == 'voided' then return ok(true) end
if state == 'settled' then return err('closed', {round = rid, state = state}) end
local tid = round.table
if tid and tid ~= REQ.table then return err('wrong_table', {round = rid, table = tid}) end
local account, needed = short_account(REQ.transfers)
if account then return err('cover', {account = account, needed = needed}) end
-- a round is opened by its first bet: one unknown here went with data gone back in time,
-- and refunding the table's bets of it would pay back stakes the data never took
if not state then return err('unknown_round', {round = rid}) end
-- and each seat refunded has its ante in the round's ledger, and in play (what its
-- player's rows gave less what they got back) at least what is refunded: a stake
-- missing went with the data (a raise loaded away, the ante kept)
local staked, in_play = {}, {}
for _, row in ipairs(redis.call('LRANGE', ledger_key(rid), 0, -1)) do
  local t = cjson.decode(row)
  if t[3] == 'ante' then staked[cents(t[2]) .. ':' .. t[4]] = true end
  if is_player(t[4]) then in_play[t[2]] = (in_play[t[2]] or 0) + t[6] end
  if is_player(t[5]) then in_play[t[2]] = (in_play[t[2]] or 0) - t[6] end
end
for _, t in ipairs(REQ.transfers) do
  if not staked[cents(t[2]) .. ':' .. t[5]] then return err('unknown_round', {round = rid}) end
  in_play[t[2]] = in_play[t[2]] - t[6]
  if in_play[t[2]] < 0 then return err('unknown_round', {round = rid}) end
end
for _, h in ipairs(REQ.holds) do hold(h) end
for _, t in ipairs(REQ.transfers) do refund(t, true) end
release_round(rid)
close_round(rid, 'voided', REQ.ttl)
return ok(true)
