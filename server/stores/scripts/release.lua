-- REQ {table, holder, epoch}: give a table's lease up if it is still ours
local owner_key = P .. 'owner:' .. REQ.table
if redis.call('GET', owner_key) == REQ.holder .. '@' .. cents(REQ.epoch) then
  redis.call('DEL', owner_key)
end
return ok(true)
