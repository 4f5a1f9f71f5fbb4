-- REQ {holder, tables: [[table, epoch], ...]}: give each table's lease up if it is
-- still ours (one round trip for all of a process's tables at shutdown)
for _, held in ipairs(REQ.tables) do
  local owner_key = P .. 'owner:' .. held[1]
  if redis.call('GET', owner_key) == REQ.holder .. '@' .. cents(held[2]) then
    redis.call('DEL', owner_key)
  end
end
return ok(true)
