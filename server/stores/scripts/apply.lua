-- REQ {table, epoch, op, round, transfers, holds, players, ttl}: one round's raises,
-- folds, refunds; no funds check beyond "no wallet below zero", all or nothing;
-- journalled in its open round; a repeated op returns its first result
if store_lost() then return err('store_lost') end  -- no money into a wiped store
local ops = ops_key(REQ.round)
local again = replay(ops, REQ.op)
if again then return again end
local refused = fence_error(REQ.table, REQ.epoch)
if refused then return refused end
local round = round_of(REQ.round)
local state, tid = round.state, round.table
-- a round is opened by its first bet: one unknown here went with data gone back in time
if not state then return err('unknown_round', {round = REQ.round}) end
if state ~= 'open' then return err('closed', {round = REQ.round, state = state}) end
if tid and tid ~= REQ.table then return err('wrong_table', {round = REQ.round, table = tid}) end
-- a release finds the seat's hold, placed by its ante: none, the ante went with the data
for _, h in ipairs(REQ.holds) do
  local held = num(redis.call('HGET', holds_key(h[1]), cents(h[2])))
  if h[4] < 0 and held < -h[4] then return err('unknown_round', {round = REQ.round}) end
end
local account, needed = short_account(REQ.transfers)
if account then return err('cover', {account = account, needed = needed}) end
for _, h in ipairs(REQ.holds) do hold(h) end
for _, t in ipairs(REQ.transfers) do
  if t[3] == 'refund' then refund(t, true) else move(t, true) end
end
return remember(ops, REQ.op, enc(wallets(REQ.players)), REQ.ttl)
