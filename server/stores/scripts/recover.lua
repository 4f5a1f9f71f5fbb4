-- REQ {table, epoch, ttl}: void every open round of a table from its journal alone
-- (a crashed process or an older epoch left them): each recorded transfer reversed,
-- newest first, each hold released, the round closed; a second call finds nothing
local refused = fence_error(REQ.table, REQ.epoch)
if refused then return refused end
local open = open_key(REQ.table)
local ids = redis.call('SMEMBERS', open)
table.sort(ids)
local voided = {}
for _, rid in ipairs(ids) do
  if state_of(rid) == 'open' then
    local rows = redis.call('LRANGE', ledger_key(rid), 0, -1)
    for i = #rows, 1, -1 do
      local t = cjson.decode(rows[i])
      refund({rid, t[2], 'refund', t[5], t[4], t[6]}, true)
    end
    release_round(rid)
    close_round(rid, 'voided', REQ.ttl)
    voided[#voided + 1] = rid
  else
    redis.call('SREM', open, rid)
  end
end
return ok(voided)
