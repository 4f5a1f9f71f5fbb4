-- REQ {rounds, transfers, holds, players}: raises, folds, refunds; no funds check
-- beyond "no wallet below zero", all or nothing; journalled under open rounds
local open = {}
for _, rid in ipairs(REQ.rounds) do
  local state = state_of(rid)
  if state and state ~= 'open' then return err('closed', {round = rid, state = state}) end
  open[rid] = state == 'open'
end
local account, needed = short_account(REQ.transfers)
if account then return err('cover', {account = account, needed = needed}) end
for _, h in ipairs(REQ.holds) do hold(h) end
for _, t in ipairs(REQ.transfers) do move(t, open[t[1]]) end
return ok(wallets(REQ.players))
