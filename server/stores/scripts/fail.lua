-- REQ {keys, window_ms, by}: count one failed password check under each key
-- (fails:<key>), or with `by` -1 take one back (never below 0); a key's first
-- failure opens its window (PEXPIRE), so the count and its expiry are set
-- together and no counter is left without an end.
local by = REQ.by or 1
local counts = {}
for i, key in ipairs(REQ.keys) do
  local k = P .. 'fails:' .. key
  local n = redis.call('INCRBY', k, by)
  if n <= 0 then
    redis.call('DEL', k)
    n = 0
  elseif n == by or redis.call('PTTL', k) < 0 then
    redis.call('PEXPIRE', k, REQ.window_ms)
  end
  counts[i] = n
end
return ok(counts)
