-- REQ {op = "issue" | "revoke" | "resume", token_hash, id?, now?, idle?}: a session
-- token of a player. `tokens` maps each token's hash to its player; `ptokens:<id>`
-- lists a player's hashes, so a password change can revoke all of them but one;
-- `tokens:used` holds when each was last used (issued, or resumed with).
local TOKENS, USED = P .. 'tokens', P .. 'tokens:used'
if REQ.op == 'issue' then
  if redis.call('HEXISTS', P .. 'players', REQ.id) == 0 then
    return err('unknown_player', {player = REQ.id})
  end
  redis.call('HSET', TOKENS, REQ.token_hash, REQ.id)
  redis.call('HSET', USED, REQ.token_hash, REQ.now)
  redis.call('SADD', P .. 'ptokens:' .. REQ.id, REQ.token_hash)
  return ok(true)
end
local pid = redis.call('HGET', TOKENS, REQ.token_hash)
local function forget()
  redis.call('HDEL', TOKENS, REQ.token_hash)
  redis.call('HDEL', USED, REQ.token_hash)
  redis.call('SREM', P .. 'ptokens:' .. pid, REQ.token_hash)
end
if REQ.op == 'resume' then
  -- a use of the token (a resume, or a look at a live connection's: `idle` -1): one
  -- unused for longer than `idle` seconds is forgotten; one with no use time (kept by
  -- an earlier release) counts from now
  if not pid then return ok(false) end
  local used = tonumber(redis.call('HGET', USED, REQ.token_hash))
  if used and REQ.idle >= 0 and REQ.now - used > REQ.idle then
    forget()
    return ok(false)
  end
  local profile = redis.call('HGET', P .. 'players', pid)
  if not profile then return ok(false) end
  redis.call('HSET', USED, REQ.token_hash, REQ.now)
  local p = cjson.decode(profile)
  return ok(obj({id = pid, name = p.name, username = p.username}))
end
if pid then forget() end
return ok(pid ~= false and pid ~= nil)
