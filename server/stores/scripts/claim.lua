-- REQ {table, holder, epoch, ttl_ms}: hold a table's lease. owner:<table> is
-- "<holder>@<epoch>" with the lease's expiry; epoch:<table> counts the claims.
-- Ours: renewed, same epoch. Another's: refused. Free: ours again with the same
-- epoch if we held it last and nobody claimed it since (or the store lost every
-- epoch, restarted empty), else a new epoch: above the last one and at least
-- Redis' clock in ms, so epochs keep growing even across a store that lost them.
local owner_key, epoch_key = P .. 'owner:' .. REQ.table, P .. 'epoch:' .. REQ.table
local current = num(redis.call('GET', epoch_key))
local owner = redis.call('GET', owner_key)
local function hold_for(epoch)
  local value = REQ.holder .. '@' .. cents(epoch)
  if REQ.ttl_ms > 0 then
    redis.call('SET', owner_key, value, 'PX', cents(REQ.ttl_ms))
  else
    redis.call('SET', owner_key, value)
  end
end
if owner then
  local holder, epoch = string.match(owner, '^(.*)@(%d+)$')
  if holder ~= REQ.holder then return ok(obj({epoch = current, owner = holder or owner})) end
  hold_for(tonumber(epoch))
  return ok(obj({epoch = tonumber(epoch), fresh = tonumber(epoch) ~= REQ.epoch}))
end
if REQ.epoch > 0 and (REQ.epoch == current or current == 0) then
  redis.call('SET', epoch_key, cents(REQ.epoch))
  hold_for(REQ.epoch)
  return ok(obj({epoch = REQ.epoch, fresh = false}))
end
local clock = redis.call('TIME')
current = math.max(current + 1, tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000))
redis.call('SET', epoch_key, cents(current))
hold_for(current)
return ok(obj({epoch = current, fresh = true}))
