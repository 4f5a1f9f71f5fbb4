-- REQ {id, username, folded, hash, token_hash, now}: make a player an account. The
-- case-folded username is claimed in `users` (folded -> {player, hash}) and the
-- profile gains the username, in one step, so two processes claiming one name at
-- once get one account and one username_taken. A repeat (same player, same name)
-- changes nothing; nothing here moves money (the guest's credits are the grant).
local USERS, PLAYERS = P .. 'users', P .. 'players'
local profile = redis.call('HGET', PLAYERS, REQ.id)
if not profile then return err('unknown_player', {player = REQ.id}) end
local p = cjson.decode(profile)
local owner = redis.call('HGET', USERS, REQ.folded)
if owner then
  if cjson.decode(owner).player == REQ.id then return ok(obj({name = p.name, username = p.username})) end
  return err('username_taken', {username = REQ.username})
end
if p.username then return err('already_registered', {username = p.username}) end
redis.call('HSET', USERS, REQ.folded, enc(obj({player = REQ.id, hash = REQ.hash})))
local out = obj()
for k, v in pairs(p) do out[k] = v end
out.username = REQ.username
redis.call('HSET', PLAYERS, REQ.id, enc(out))
redis.call('HSET', P .. 'tokens', REQ.token_hash, REQ.id)
redis.call('HSET', P .. 'tokens:used', REQ.token_hash, REQ.now)
redis.call('SADD', P .. 'ptokens:' .. REQ.id, REQ.token_hash)
return ok(obj({name = p.name, username = REQ.username}))
