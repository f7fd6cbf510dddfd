// Lua scripts shared by several recipes.

/** Compare-and-delete unlock, verbatim from the distlock page (the distlock summary; the other Redis posts give the same). */
export const COMPARE_AND_DELETE = `
if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end`;
