-- REQ {keys, window_ms}: count one failed password check under each key
-- (fails:<key>); a key's first failure opens its window (PEXPIRE), so the count
-- and its expiry are set together and no counter is left without an end.
local counts = {}
for i, key in ipairs(REQ.keys) do
  local k = P .. 'fails:' .. key
  local n = redis.call('INCR', k)
  if n == 1 or redis.call('PTTL', k) < 0 then redis.call('PEXPIRE', k, REQ.window_ms) end
  counts[i] = n
end
return ok(counts)
