-- REQ {opens, table, epoch, op, round, player, transfers, holds, ttl}: the suspension
-- and the funds checks, the debit, the holds and the journal entry (the round is opened
-- by its first bet: `opens` false, the table's round is open already, and one unknown
-- here went with data gone back in time) in one step; a repeated op returns its first
-- result
if store_lost() then return err('store_lost') end  -- no money into a wiped store
local ops = ops_key(REQ.round)
local again = replay(ops, REQ.op)
if again then return again end
local refused = fence_error(REQ.table, REQ.epoch)
if refused then return refused end
local round = round_of(REQ.round)
local state, tid = round.state, round.table
if not state and not REQ.opens then return err('unknown_round', {round = REQ.round}) end
if state and state ~= 'open' then return err('closed', {round = REQ.round, state = state}) end
if tid and tid ~= REQ.table then return err('wrong_table', {round = REQ.round, table = tid}) end
local barred = suspended_error(REQ.player)  -- no new bet of a suspended player
if barred then return barred end
local needed = 0
for _, t in ipairs(REQ.transfers) do needed = needed + t[6] end
for _, h in ipairs(REQ.holds) do needed = needed + math.max(h[4], 0) end
local w = wallet(REQ.player)
local available = w[1] - w[3]
if needed > available then
  return err('funds', {needed = needed, available = available, bonus = w[2]})
end
if not state then
  open_round(REQ.round, REQ.table)
  redis.call('SADD', open_key(REQ.table), REQ.round)
end
for _, t in ipairs(REQ.transfers) do move(t, true) end
for _, h in ipairs(REQ.holds) do hold(h) end
return remember(ops, REQ.op, enc(wallet(REQ.player)), REQ.ttl)
