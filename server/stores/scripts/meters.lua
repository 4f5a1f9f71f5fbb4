-- REQ ignored: every meter created by ensure_meter, read in one step
local out = obj()
for _, name in ipairs(redis.call('HKEYS', SEEDS)) do out[name] = balance('meter:' .. name) end
return ok(out)
