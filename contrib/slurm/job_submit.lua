-- berth's Slurm job_submit hook: a new job in berth's partitions waits held (priority 0) so
-- that only berth places and releases it; a user cannot release or re-prioritize it himself.
-- Jobs in other partitions are Slurm's, untouched. Install next to slurm.conf with
-- JobSubmitPlugins=lua (tests/slurm/cluster.sh does); docs/slurm.md has the runbook.
--
-- berthd writes berth_scope next to this script every second: its heartbeat, how old the
-- heartbeat may get (berthd --slurm-failsafe), the default partition and berth's partitions
-- (berthd --slurm-partitions; "*": all). When the heartbeat is stale (berthd is down), the
-- hook holds nothing and users may release their own jobs (contrib/slurm/berth-release-held
-- releases the held ones): Slurm schedules them until berthd is back. Without the file
-- (berthd never ran) every job is held, as before the scope existed.

-- Users allowed to release jobs and to opt out of the hold: root and the uids listed in
-- berth_admin_uids.txt next to this script (one uid a line; berthd's uid goes there).
local admins = { [0] = true }
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local f = io.open(here .. "berth_admin_uids.txt", "r")
if f then
    for line in f:lines() do
        local uid = tonumber(line:match("^%s*(%d+)%s*$"))
        if uid then admins[uid] = true end
    end
    f:close()
end

-- An admin's job whose script carries this marker is left to Slurm (infrastructure, tests).
local OPT_OUT = "#BERTH: slurm-places-this"

-- berth_scope, read at each call (a few lines): nil when absent, else
-- { fresh = bool, age = seconds, default = name, all = bool, parts = { name = true } }
local function scope()
    local s = io.open(here .. "berth_scope", "r")
    if not s then return nil end
    local t = { parts = {}, all = false }
    local beat, stale = nil, 60
    for line in s:lines() do
        local k, v = line:match("^(%S+)%s+(%S+)")
        if k == "heartbeat" then beat = tonumber(v)
        elseif k == "stale_after" then stale = tonumber(v) or stale
        elseif k == "default" then t.default = v
        elseif k == "partitions" then
            if v == "*" then t.all = true end
            for p in v:gmatch("[^,]+") do t.parts[p] = true end
        end
    end
    s:close()
    t.age = beat and (os.time() - beat) or math.huge
    t.fresh = t.age <= stale
    return t
end

function slurm_job_submit(job_desc, part_list, submit_uid)
    if admins[submit_uid] and job_desc.script and job_desc.script:find(OPT_OUT, 1, true) then
        job_desc.comment = "berth:slurm-places-this" -- berthd leaves it alone
        return slurm.SUCCESS
    end
    local sc = scope()
    if sc and not sc.fresh then
        slurm.log_info(string.format("berth: berthd's heartbeat is %s s old: job left to Slurm",
                                     tostring(sc.age)))
        return slurm.SUCCESS
    end
    if sc and not sc.all then
        -- the job's partitions ("a,b"; none: the default one): held when all are berth's;
        -- a job listing both kinds keeps only Slurm's, so berth's partitions run only
        -- what berth placed
        local asked = job_desc.partition or sc.default or ""
        local mine, theirs = 0, {}
        for p in asked:gmatch("[^,]+") do
            if sc.parts[p] then mine = mine + 1 else theirs[#theirs + 1] = p end
        end
        if #theirs > 0 then
            if mine > 0 then
                job_desc.partition = table.concat(theirs, ",")
                slurm.log_user("berth: partitions scheduled by berth dropped from this job; " ..
                               "it runs in " .. job_desc.partition)
            end
            return slurm.SUCCESS
        end
    end
    job_desc.priority = 0
    return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    if admins[modify_uid] then
        return slurm.SUCCESS
    end
    -- priority is NO_VAL when the update does not touch it; a release sets INFINITE and a
    -- number re-prioritizes: both belong to berth while berthd's heartbeat is fresh
    -- (a hold, priority 0, is harmless and allowed)
    if job_desc.priority ~= nil and job_desc.priority ~= slurm.NO_VAL and job_desc.priority ~= 0 then
        local sc = scope()
        if sc and not sc.fresh then
            return slurm.SUCCESS -- berthd is down: users may release their jobs
        end
        slurm.log_user("berth: jobs are started by berth; release and priority changes are refused")
        return slurm.ERROR
    end
    return slurm.SUCCESS
end

slurm.log_info("berth job_submit.lua loaded")
return slurm.SUCCESS
