-- REQ {op = "issue" | "revoke", token_hash, id?}: a session token of a player.
-- `tokens` maps each token's hash to its player; `ptokens:<id>` lists a player's
-- hashes, so a password change can revoke all of them but one.
local TOKENS = P .. 'tokens'
if REQ.op == 'issue' then
  if redis.call('HEXISTS', P .. 'players', REQ.id) == 0 then
    return err('unknown_player', {player = REQ.id})
  end
  redis.call('HSET', TOKENS, REQ.token_hash, REQ.id)
  redis.call('SADD', P .. 'ptokens:' .. REQ.id, REQ.token_hash)
  return ok(true)
end
local pid = redis.call('HGET', TOKENS, REQ.token_hash)
if pid then
  redis.call('HDEL', TOKENS, REQ.token_hash)
  redis.call('SREM', P .. 'ptokens:' .. pid, REQ.token_hash)
end
return ok(pid ~= false and pid ~= nil)
