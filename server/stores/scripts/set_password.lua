-- REQ {id, folded, old, new, keep}: compare and set an account's password hash.
-- true when the hash is `new` now (a repeat is true again), false when it was no
-- longer `old` (another change came first). With `keep` (a token hash, or ''
-- for none), every other token of the account is revoked in the same step.
local USERS = P .. 'users'
local entry = redis.call('HGET', USERS, REQ.folded)
if not entry then return err('unknown_player', {player = REQ.id}) end
local e = cjson.decode(entry)
if e.player ~= REQ.id then return err('unknown_player', {player = REQ.id}) end
if e.hash == REQ.new then return ok(true) end
if e.hash ~= REQ.old then return ok(false) end
redis.call('HSET', USERS, REQ.folded, enc(obj({player = REQ.id, hash = REQ.new})))
if REQ.keep ~= '' then
  local key = P .. 'ptokens:' .. REQ.id
  for _, h in ipairs(redis.call('SMEMBERS', key)) do
    if h ~= REQ.keep then
      redis.call('HDEL', P .. 'tokens', h)
      redis.call('HDEL', P .. 'tokens:used', h)
      redis.call('SREM', key, h)
    end
  end
end
return ok(true)
