-- REQ {holder, tables: [[table, epoch], ...]}: give each table's lease up if it is
-- still ours (one round trip for all of a process's tables at shutdown); a standby
-- takes it at once, without the wait a lease that ran out has (claim.lua)
for _, held in ipairs(REQ.tables) do
  local owner_key = P .. 'owner:' .. held[1]
  if redis.call('GET', owner_key) == REQ.holder .. '@' .. cents(held[2]) then
    redis.call('DEL', owner_key)
    redis.call('SET', P .. 'free:' .. held[1], '0', 'PX', 60000)  -- given up: no wait
  end
end
return ok(true)
