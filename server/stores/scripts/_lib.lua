-- Shared by every script (prepended at load time). Conventions:
--   ARGV[1]  the key prefix, "{namespace}:" (one hash slot, so a script may touch any key)
--   ARGV[2]  the request, JSON (cjson decodes integers exactly up to 2^53)
--   ARGV[3]  optional raw JSON text stored as is (a round record): TEXT; in batch.lua
--            each batched script gets its own as a parameter of that name
-- Money is integer cents held in one hash, P.."acct", field = account name.
-- Lua numbers are doubles: integers are exact below 2^53 and every amount is
-- checked below that bound by the caller. Numbers are written with
-- string.format('%d') and replies are JSON built by `enc`, because tostring()
-- and cjson.encode() print only 14 significant digits.
-- Replies: {"ok": value} or {"err": code, ...details}.

local P = ARGV[1]
local REQ = cjson.decode(ARGV[2])
local TEXT = ARGV[3]
local NULL = cjson.null
local ACCT = P .. 'acct'
local HELD = P .. 'held'
local BONUS = P .. 'bonus'
local SEEDS = P .. 'seeds'

local OBJ, RAW, WALLET = {}, {}, {}
local function obj(t) return setmetatable(t or {}, OBJ) end
local function raw(text) return setmetatable({text}, RAW) end

local function cents(n)
  if n ~= n or n >= 2^63 or n < -2^63 or n ~= math.floor(n) then
    error('not an integer number of cents: ' .. tostring(n))
  end
  return string.format('%d', n)
end

local function enc(v)
  local tv = type(v)
  if tv == 'number' then return cents(v) end
  if tv == 'string' then return cjson.encode(v) end
  if tv == 'boolean' then return v and 'true' or 'false' end
  if v == nil or v == NULL then return 'null' end
  if tv ~= 'table' then error('cannot encode a ' .. tv) end
  local mt = getmetatable(v)
  if mt == RAW then return v[1] end
  if mt == WALLET then return '[' .. cents(v[1]) .. ',' .. cents(v[2]) .. ',' .. cents(v[3]) .. ']' end
  local out = {}
  if mt == OBJ then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do out[#out + 1] = cjson.encode(k) .. ':' .. enc(v[k]) end
    return '{' .. table.concat(out, ',') .. '}'
  end
  for i = 1, #v do out[i] = enc(v[i]) end
  return '[' .. table.concat(out, ',') .. ']'
end

local function ok(value) return '{"ok":' .. enc(value) .. '}' end
local function err(code, details)
  local t = obj(details or {})
  t.err = code
  return enc(t)
end

local function num(v) return tonumber(v or '0') or 0 end

-- The namespace's origin mark is gone (a FLUSHALL under a live connection): a script
-- that would make something from nothing (a meter at its seed, a table's epoch)
-- writes nothing then, and answers store_lost (redis_origin.py).
local function store_lost() return redis.call('EXISTS', P .. 'origin') == 0 end

-- The store's age (redis_link.py): KEYS[1], when given, is a counter of one process's
-- writes; a write that succeeds bumps it, and its reply goes out as "<age>;<reply>".
-- The process remembers the highest age it was answered, so a Redis back on older
-- data (a backup, with the same origin mark) is known by an age gone down.
-- A write Redis refuses at its maxmemory (noeviction) goes without its age: a replay
-- that writes nothing must still be answered there.
local function aged(reply)
  if KEYS[1] and string.find(reply, '{"ok":', 1, true) then
    local age = redis.pcall('INCR', KEYS[1])
    if type(age) == 'number' then return string.format('%d', age) .. ';' .. reply end
  end
  return reply
end

-- A script runs alone, so what it has read or written of the balances, bonuses and
-- holds (and, below, of the epochs and the rounds' states) stays true until it
-- ends: a batch of many writes asks Redis once per field, and every write of
-- these hashes goes through `add`, which keeps its answer.
local KNOWN = {[ACCT] = {}, [BONUS] = {}, [HELD] = {}}
local function field(hash, name)
  local known = KNOWN[hash]
  local v = known[name]
  if v == nil then
    v = num(redis.call('HGET', hash, name))
    known[name] = v
  end
  return v
end
local function add(hash, name, delta)
  local v = redis.call('HINCRBY', hash, name, cents(delta))
  KNOWN[hash][name] = v
  return v
end
local function set_bonus(pid, amount)
  redis.call('HSET', BONUS, pid, cents(amount))
  KNOWN[BONUS][pid] = amount
end
local function balance(account) return field(ACCT, account) end
local function is_player(account) return string.sub(account, 1, 7) == 'player:' end
local function is_meter(account) return string.sub(account, 1, 6) == 'meter:' end

-- an operator's suspension of a player (admin_acts.lua): player id -> JSON
-- {by, reason, since_ms, action}. A script that puts the player's new money into
-- play or into the wallet (an ante and its progressive stake, a chip purchase)
-- answers this refusal before writing anything; a hand already dealt plays out.
local SUSPENDED = P .. 'suspended'
local function suspended_error(pid)
  local entry = redis.call('HGET', SUSPENDED, pid)
  if not entry then return nil end
  return err('suspended', {player = pid, reason = cjson.decode(entry).reason})
end

-- rounds: a hash (table, state, digest, result), the ledger of what they moved,
-- the holds their seats still have, and each table's set of open rounds
local function round_key(rid) return P .. 'round:' .. rid end
local function ledger_key(rid) return P .. 'round:' .. rid .. ':ledger' end
local function holds_key(rid) return P .. 'round:' .. rid .. ':holds' end
local function open_key(tid) return P .. 'table:' .. tid .. ':open' end
-- a round's state and table as this script last read or wrote them (false: none)
local ROUNDS = {}
local function round_of(rid)
  local r = ROUNDS[rid]
  if r == nil then
    local got = redis.call('HMGET', round_key(rid), 'state', 'table')
    r = {state = got[1], table = got[2]}
    ROUNDS[rid] = r
  end
  return r
end
local function state_of(rid) return round_of(rid).state end
local function open_round(rid, tid)
  redis.call('HSET', round_key(rid), 'table', tid, 'state', 'open')
  ROUNDS[rid] = {state = 'open', table = tid}
end

-- {balance, bonus, held}: three integers, encoded without `enc`'s type dispatch
local function wallet(pid)
  return setmetatable({balance('player:' .. pid), field(BONUS, pid), field(HELD, pid)}, WALLET)
end

local function wallets(pids)
  local out = obj()
  for _, pid in ipairs(pids) do out[pid] = wallet(pid) end
  return out
end

-- a transfer is [round_id, seat, reason, source, target, amount]
local function move(t, journal)
  add(ACCT, t[4], -t[6])
  add(ACCT, t[5], t[6])
  if journal then redis.call('RPUSH', ledger_key(t[1]), enc(t)) end
end

-- money moved outside any round (starting credits, a purchase, a meter's first seed, an
-- operator's act), once by `op`: a row {op, at (ms), transfer} in the `moves` journal,
-- oldest first and never trimmed, and in each player's `moves:<id>`, newest first, its
-- last 100 (base.MOVES_LIMIT)
local MOVES_KEPT = 100
local function move_outside_round(op, at, t)
  move(t, false)
  local row = enc(obj({op = op, at = at, transfer = t}))
  redis.call('RPUSH', P .. 'moves', row)
  for _, account in ipairs({t[4], t[5]}) do
    if is_player(account) then
      local key = P .. 'moves:' .. string.sub(account, 8)
      redis.call('LPUSH', key, row)
      redis.call('LTRIM', key, 0, MOVES_KEPT - 1)
    end
  end
end

-- a refund from a meter: what it holds above its seed; the house pays the rest
local function refund(t, journal)
  if not is_meter(t[4]) then return move(t, journal) end
  -- a meter gives back only what it holds above its seed: a share reseeded away since
  -- (a hit, an operator) is the house's now, and the meter never ends below its seed
  local spare = balance(t[4]) - num(redis.call('HGET', SEEDS, string.sub(t[4], 7)))
  local from_meter = math.min(math.max(spare, 0), t[6])
  if from_meter > 0 then move({t[1], t[2], t[3], t[4], t[5], from_meter}, journal) end
  if from_meter < t[6] then move({t[1], t[2], t[3], 'house', t[5], t[6] - from_meter}, journal) end
end

-- refuse a batch before any of it applies if a wallet would go below zero;
-- returns the first short account (in order of appearance) and what it lacks
local function short_account(transfers)
  local order, net = {}, {}
  for _, t in ipairs(transfers) do
    for _, side in ipairs({{t[4], -t[6]}, {t[5], t[6]}}) do
      local account = side[1]
      if net[account] == nil then
        net[account] = 0
        order[#order + 1] = account
      end
      net[account] = net[account] + side[2]
    end
  end
  for _, account in ipairs(order) do
    if is_player(account) and balance(account) + net[account] < 0 then
      return account, -net[account]
    end
  end
  return nil, 0
end

-- a hold is [round_id, seat, player_id, amount]: > 0 places, < 0 releases
local function hold(h)
  local key, seat = holds_key(h[1]), cents(h[2])
  if h[4] > 0 then
    redis.call('HINCRBY', key, seat, cents(h[4]))
    redis.call('HSET', key, seat .. ':player', h[3])
    add(HELD, h[3], h[4])
  else
    local released = math.min(-h[4], num(redis.call('HGET', key, seat)))
    redis.call('HDEL', key, seat, seat .. ':player')
    if released ~= 0 then add(HELD, h[3], -released) end
  end
end

-- a closed round holds nothing: release what its seats still hold
local function release_round(rid)
  local key = holds_key(rid)
  local flat = redis.call('HGETALL', key)
  local amounts, owners = {}, {}
  for i = 1, #flat, 2 do
    local seat = string.match(flat[i], '^(.*):player$')
    if seat then owners[seat] = flat[i + 1] else amounts[flat[i]] = num(flat[i + 1]) end
  end
  for seat, amount in pairs(amounts) do
    if amount ~= 0 and owners[seat] then
      add(HELD, owners[seat], -amount)
    end
  end
  redis.call('DEL', key)
end

-- operation ids: a round's in round:<id>:ops, a player's buy-ins in buyops:<id>;
-- each id -> its first result (JSON), or 'dead' once abandoned
local function ops_key(rid) return P .. 'round:' .. rid .. ':ops' end
local function buyops_key(pid) return P .. 'buyops:' .. pid end

-- the reply to a repeated operation id (its first result), or nil for a new one
local function replay(key, op)
  local first = redis.call('HGET', key, op)
  if not first then return nil end
  if first == 'dead' then return err('abandoned', {op = op}) end
  return '{"ok":' .. first .. ',"replayed":true}'
end

-- EXPIRE once per key and ttl in a script: a batch's writes share their round's keys
local EXPIRING = {}
local function expire(key, ttl)
  if ttl > 0 and EXPIRING[key] ~= ttl then
    redis.call('EXPIRE', key, ttl)
    EXPIRING[key] = ttl
  end
end

local function remember(key, op, result, ttl)
  redis.call('HSET', key, op, result)
  expire(key, ttl)
  return '{"ok":' .. result .. ',"replayed":false}'
end

-- the fence: a write for a table carries the epoch of its host's lease, refused
-- unless it is the table's current one (a host that lost the table writes nothing)
local EPOCHS = {}
local function fence_error(tid, epoch)
  local current = EPOCHS[tid]
  if current == nil then
    current = num(redis.call('GET', P .. 'epoch:' .. tid))
    EPOCHS[tid] = current
  end
  if current ~= epoch then
    -- who holds it now, for the viewers' `table_moved` (owner: "<holder>@<epoch>")
    local owner = redis.call('GET', P .. 'owner:' .. tid)
    local holder = owner and string.match(owner, '^(.*)@%d+$') or ''
    return err('not_owner', {table = tid, epoch = current, holder = holder})
  end
  return nil
end

-- close a round: out of its table's open set; its keys expire after `ttl` seconds
local function close_round(rid, state, ttl)
  local key, r = round_key(rid), round_of(rid)
  if r.table then redis.call('SREM', open_key(r.table), rid) end
  redis.call('HSET', key, 'state', state)
  r.state = state
  expire(key, ttl)
  expire(ledger_key(rid), ttl)
  expire(ops_key(rid), ttl)
end

local function push_capped(key, entry, cap)
  redis.call('LPUSH', key, entry)
  redis.call('LTRIM', key, 0, cap - 1)
end
