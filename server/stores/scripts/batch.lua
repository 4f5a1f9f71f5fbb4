-- REQ: a list of {script, request[, text]}: the bets, applies and settlements of
-- one event-loop turn, sent in one round trip; `text` is the ARGV index of the
-- write's raw text (a settlement's round record). Each runs as its own script
-- would, on its own request (its op id, its table's fence), in order; an error in
-- one is its reply alone. Reply: the JSON list of their replies.
local out = {}
for i, item in ipairs(REQ) do
  local run = BATCHED[item[1]]
  if not run then
    out[i] = err('unknown_script', {script = item[1]})
  else
    local fine, reply = pcall(run, item[2], item[3] and ARGV[item[3]])
    if fine then
      out[i] = reply
    else
      local message = type(reply) == 'table' and reply.err or tostring(reply)
      out[i] = err('script_failed', {message = message})
    end
  end
end
return '[' .. table.concat(out, ',') .. ']'
