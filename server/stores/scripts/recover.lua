-- REQ {table, epoch, ttl}: void every open round of a table from its journal alone
-- (a crashed process or an older epoch left them): each recorded transfer still in
-- play reversed, newest first (a transfer and a later one that gave it back, as an
-- ante withdrawn before the crash and its refund, are both left as they are), each
-- hold released, the round closed; a second call finds nothing
if store_lost() then return err('store_lost') end  -- no money into a wiped store
local refused = fence_error(REQ.table, REQ.epoch)
if refused then return refused end
local open = open_key(REQ.table)
local ids = redis.call('SMEMBERS', open)
table.sort(ids)
local voided = {}
for _, rid in ipairs(ids) do
  if state_of(rid) == 'open' then
    local rows = redis.call('LRANGE', ledger_key(rid), 0, -1)
    local kept, open_rows = {}, {}  -- the rows in play; (seat, from, to, cents) -> where
    for i, row in ipairs(rows) do
      local t = cjson.decode(row)
      local undone = open_rows[cjson.encode({t[2], t[5], t[4], t[6]})]  -- the row it gives back
      if undone and #undone > 0 then
        kept[table.remove(undone)] = nil
      else
        kept[i] = t
        local key = cjson.encode({t[2], t[4], t[5], t[6]})
        open_rows[key] = open_rows[key] or {}
        table.insert(open_rows[key], i)
      end
    end
    for i = #rows, 1, -1 do
      local t = kept[i]
      if t then refund({rid, t[2], 'refund', t[5], t[4], t[6]}, true) end
    end
    release_round(rid)
    close_round(rid, 'voided', REQ.ttl)
    voided[#voided + 1] = rid
  else
    redis.call('SREM', open, rid)
  end
end
return ok(voided)
