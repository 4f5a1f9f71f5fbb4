-- REQ {op, act {id, operator, ts, action, target, reason, also}, digest, request_text, ttl, ...}:
-- an operator's act, applied once by its id with its audit row, in one step.
--   adjust   {player, amount (signed), max, act_max (0: none)}: a wallet credited from /
--            debited to the house, at most act_max cents either way
--   meter    {name, amount (-1: its seed)}: a meter set, the difference from / to the house
--   suspend  {player, suspend, entry}: a player suspended (entry kept) or not
--   submit   {act_text}: a table's act, pending until its host finishes it
--   finish   {paused?}, ARGV[3] the row: the host's outcome
if store_lost() then return err('store_lost') end  -- no money into a wiped store
local A = REQ.act
if REQ.op ~= 'finish' then
  local again = replay_act(A.id, REQ.digest)
  if again then return again end
end

local function done(outcome, result)
  local row = enc(obj({
    id = A.id, operator = A.operator, ts = A.ts, action = A.action, target = A.target,
    reason = A.reason, outcome = outcome,
    details = obj({request = raw(REQ.request_text), result = result}),
  }))
  return record_act(A.id, REQ.digest, A.target, row, REQ.ttl, A.also)
end

-- a move of the operator's: not part of any round, in the moves journal under the act's
-- id, and in the adjustments ledger as before
local function adjust_move(t)
  move_outside_round(A.id, A.ts, t)
  redis.call('RPUSH', P .. 'adjustments', enc({A.id, t}))
end

if REQ.op == 'adjust' then
  local pid = REQ.player
  if redis.call('HEXISTS', P .. 'players', pid) == 0 then
    return done('refused', obj({code = 'unknown_player'}))
  end
  local amount = REQ.amount
  local act_max = REQ.act_max or 0
  if act_max > 0 and math.abs(amount) > act_max then
    return done('refused', obj({code = 'over_act_limit', limit = act_max}))
  end
  local w = wallet(pid)
  if amount < 0 and w[1] - w[3] < -amount then
    return done('refused', obj({code = 'insufficient_funds', available = w[1] - w[3]}))
  end
  if amount > 0 and w[1] + amount > REQ.max then
    return done('refused', obj({code = 'over_limit', balance = w[1], limit = REQ.max}))
  end
  local me = 'player:' .. pid
  if amount > 0 then
    adjust_move({'', NULL, 'adjustment', 'house', me, amount})
  else
    adjust_move({'', NULL, 'adjustment', me, 'house', -amount})
  end
  w = wallet(pid)
  return done('applied', obj({amount = amount, balance = w[1], bonus = w[2], held = w[3]}))
end

if REQ.op == 'meter' then
  local seed = redis.call('HGET', SEEDS, REQ.name)
  if not seed then return done('refused', obj({code = 'unknown_jackpot'})) end
  seed = num(seed)
  local account = 'meter:' .. REQ.name
  local before = balance(account)
  local target, reason = REQ.amount, 'adjustment'
  if target < 0 then
    target, reason = seed, 'reseed'
  elseif target < seed then  -- PROTOCOL.md section 7: the meter never stays below its seed
    return done('refused', obj({code = 'below_seed', seed = seed, amount = before}))
  end
  if target == before then
    return done('unchanged', obj({name = REQ.name, before = before, after = before, seed = seed}))
  end
  if target > before then
    adjust_move({'', NULL, reason, 'house', account, target - before})
  else
    adjust_move({'', NULL, reason, account, 'house', before - target})
  end
  return done('applied', obj({name = REQ.name, before = before, after = balance(account), seed = seed}))
end

if REQ.op == 'suspend' then
  local pid = REQ.player
  if redis.call('HEXISTS', P .. 'players', pid) == 0 then
    return done('refused', obj({code = 'unknown_player'}))
  end
  local was = redis.call('HEXISTS', SUSPENDED, pid) == 1
  if was == REQ.suspend then return done('unchanged', obj({suspended = was})) end
  if REQ.suspend then
    redis.call('HSET', SUSPENDED, pid, REQ.entry)
  else
    redis.call('HDEL', SUSPENDED, pid)
  end
  return done('applied', obj({suspended = REQ.suspend}))
end

if REQ.op == 'submit' then
  redis.call('HSET', action_key(A.id), 'digest', REQ.digest, 'state', 'pending', 'act', REQ.act_text)
  redis.call('HSET', PENDING, A.id, REQ.act_text)
  return '{"ok":{"state":"pending"},"replayed":false}'
end

if REQ.op == 'finish' then
  local key = action_key(A.id)
  local first = redis.call('HGET', key, 'digest')
  if first and first ~= REQ.digest then return err('conflict', {action_id = A.id}) end
  local row = redis.call('HGET', key, 'row')
  if row then return '{"ok":{"state":"done","row":' .. row .. '},"replayed":true}' end
  redis.call('HDEL', PENDING, A.id)
  if type(REQ.paused) == 'table' then
    local tid = string.sub(A.target, 7)  -- 'table:<id>'
    if type(REQ.paused.set) == 'string' then
      redis.call('HSET', PAUSED, tid, REQ.paused.set)
    else
      redis.call('HDEL', PAUSED, tid)
    end
  end
  return record_act(A.id, REQ.digest, A.target, ARGV[3], REQ.ttl, A.also)
end

return err('unknown_op', {op = REQ.op})
