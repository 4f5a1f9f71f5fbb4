-- REQ {op, ...}: the console's writes that move no money.
--   put {folded, entry, replace}: an operator (replacing one revokes its tokens)
--   remove {folded}: an operator gone, and its tokens
--   issue {folded, name, hash, ttl_ms}: a bearer token; revoke {hash}
--   seen {ttl_ms}: a console is looking
--   publish {process, row, tables {id: detail}}: what a process shows every console
local function revoke_all(folded)
  local set = P .. 'optokens:' .. folded
  for _, h in ipairs(redis.call('SMEMBERS', set)) do redis.call('DEL', P .. 'optoken:' .. h) end
  redis.call('DEL', set)
end

if REQ.op == 'put' then
  local existing = redis.call('HGET', OPERATORS, REQ.folded)
  if existing and not REQ.replace then return ok(false) end
  redis.call('HSET', OPERATORS, REQ.folded, REQ.entry)
  if existing then revoke_all(REQ.folded) end
  return ok(true)
end

if REQ.op == 'remove' then
  local gone = redis.call('HDEL', OPERATORS, REQ.folded) == 1
  revoke_all(REQ.folded)
  return ok(gone)
end

if REQ.op == 'issue' then
  local set = P .. 'optokens:' .. REQ.folded
  for _, h in ipairs(redis.call('SMEMBERS', set)) do  -- forget the expired ones
    if redis.call('EXISTS', P .. 'optoken:' .. h) == 0 then redis.call('SREM', set, h) end
  end
  redis.call('SET', P .. 'optoken:' .. REQ.hash, REQ.name, 'PX', cents(REQ.ttl_ms))
  redis.call('SADD', set, REQ.hash)
  return ok(true)
end

if REQ.op == 'revoke' then
  local key = P .. 'optoken:' .. REQ.hash
  local name = redis.call('GET', key)
  if name then
    redis.call('SREM', P .. 'optokens:' .. string.lower(name), REQ.hash)
    redis.call('DEL', key)
  end
  return ok(name ~= false and name ~= nil)
end

if REQ.op == 'seen' then
  redis.call('SET', P .. 'admin:seen', '1', 'PX', cents(REQ.ttl_ms))
  return ok(true)
end

if REQ.op == 'publish' then
  redis.call('HSET', P .. 'admin:procs', REQ.process, REQ.row)
  for tid, detail in pairs(REQ.tables) do redis.call('HSET', P .. 'admin:tables', tid, detail) end
  return ok(true)
end

return err('unknown_op', {op = REQ.op})
