-- Shared by the operator console's scripts (prepended after _lib.lua). Keys:
--   operators            hash   folded name -> {"name", "hash", "created_ms", "role"}
--                               (no "role": written before roles, an admin)
--   optoken:<sha256>     string the operator a bearer token belongs to, with its TTL
--   optokens:<folded>    set    the operator's token hashes (revoked on removal)
--   action:<id>          hash   digest, state (pending|done), act, row: one act, once
--   admin:pending        hash   action id -> act, for the table's host to carry out
--   audit, audit:by:<t>  list   the audit rows, oldest first (all, and per target;
--                               a table act naming a player under it too)
--   paused, suspended    hash   table / player id -> {by, reason, since_ms, action}
--                               (SUSPENDED is _lib.lua's: the money scripts read it)
--   adjustments          list   [action id, transfer] of every operator's money move
local AUDIT = P .. 'audit'
local PENDING = P .. 'admin:pending'
local PAUSED = P .. 'paused'
local OPERATORS = P .. 'operators'
local function action_key(id) return P .. 'action:' .. id end

-- a repeated action id: its first outcome (or still pending), a conflict, or nil
local function replay_act(id, digest)
  local key = action_key(id)
  local first = redis.call('HGET', key, 'digest')
  if not first then return nil end
  if first ~= digest then return err('conflict', {action_id = id}) end
  local row = redis.call('HGET', key, 'row')
  if row then return '{"ok":{"state":"done","row":' .. row .. '},"replayed":true}' end
  return '{"ok":{"state":"pending"},"replayed":true}'
end

-- the act done: its audit row (JSON text) appended once, its id kept `ttl` seconds
local function record_act(id, digest, target, row, ttl, also)
  local key = action_key(id)
  redis.call('HSET', key, 'digest', digest, 'state', 'done', 'row', row)
  if ttl > 0 then redis.call('EXPIRE', key, ttl) end
  redis.call('RPUSH', AUDIT, row)
  redis.call('RPUSH', AUDIT .. ':by:' .. target, row)
  -- and under the player the act names, when that is another target (a table's remove)
  for _, t in ipairs(also or {}) do redis.call('RPUSH', AUDIT .. ':by:' .. t, row) end
  return '{"ok":{"state":"done","row":' .. row .. '},"replayed":false}'
end
