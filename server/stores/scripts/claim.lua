-- REQ {holder, ttl_ms, tables: [[table, epoch], ...]}: hold each table's lease, in
-- one step for all of a process's tables (one round trip per heartbeat).
-- owner:<table> is "<holder>@<epoch>" with the lease's expiry; epoch:<table> is the
-- table's current epoch. Ours: renewed, same epoch. Another's: refused. Free: ours
-- again with the same epoch if we held it last and nobody claimed it since (or the
-- store lost every epoch, restarted empty), else a new epoch: above the last one
-- and at least Redis' clock in ms, so epochs keep growing even across a store that
-- lost them. `epoch` is the one the caller holds (0: none).
-- A lease that ran out, last held by another, is taken only once it has been seen
-- free (free:<table>, the Redis time of the first look) for a third of the TTL: a
-- holder that was only cut off (Redis stalled past the TTL, every lease lapsing at
-- once) renews as soon as Redis answers and takes it back first, with its epoch, so
-- its round is not voided. A released lease (free:<table> is 0) is taken at once.
local clock = redis.call('TIME')
local now_ms = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

local function claim(tid, held)
  local owner_key, epoch_key = P .. 'owner:' .. tid, P .. 'epoch:' .. tid
  local free_key = P .. 'free:' .. tid
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
    if holder ~= REQ.holder then return obj({epoch = current, owner = holder or owner}) end
    hold_for(tonumber(epoch))
    return obj({epoch = tonumber(epoch), fresh = tonumber(epoch) ~= held})
  end
  if held > 0 and (held == current or current == 0) then
    redis.call('DEL', free_key)
    redis.call('SET', epoch_key, cents(held))
    hold_for(held)
    return obj({epoch = held, fresh = false})
  end
  if current > 0 and REQ.ttl_ms > 0 then
    local since = tonumber(redis.call('GET', free_key))
    if not since then
      redis.call('SET', free_key, cents(now_ms), 'PX', cents(REQ.ttl_ms))
      return obj({epoch = current, owner = ''})
    elseif now_ms - since < REQ.ttl_ms / 3 then
      return obj({epoch = current, owner = ''})
    end
  end
  redis.call('DEL', free_key)
  current = math.max(current + 1, now_ms)
  redis.call('SET', epoch_key, cents(current))
  hold_for(current)
  return obj({epoch = current, fresh = true})
end

if store_lost() then return err('store_lost') end  -- no epoch starts over in a wiped store
local out = obj()
for _, entry in ipairs(REQ.tables) do out[entry[1]] = claim(entry[1], entry[2]) end
return ok(out)
