-- REQ {}: every meter created by ensure_meter, read in one step; or REQ {name}: that
-- one meter. A wiped store (its origin mark gone) has no meter to read: an absent
-- one is not 0 cents, and a process shown 0 would publish it (store_lost instead).
if REQ.name ~= nil then
  if store_lost() then return err('store_lost') end
  local one = obj()
  one[REQ.name] = balance('meter:' .. REQ.name)
  return ok(one)
end
local out = obj()
for _, name in ipairs(redis.call('HKEYS', SEEDS)) do out[name] = balance('meter:' .. name) end
return ok(out)
