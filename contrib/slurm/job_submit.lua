-- berth's Slurm job_submit hook: every new job waits held (priority 0) so that only berth
-- places and releases jobs; a user cannot release or re-prioritize a job himself.
-- Install next to slurm.conf with JobSubmitPlugins=lua (tests/slurm/cluster.sh does).

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

function slurm_job_submit(job_desc, part_list, submit_uid)
    if admins[submit_uid] and job_desc.script and job_desc.script:find(OPT_OUT, 1, true) then
        job_desc.comment = "berth:slurm-places-this" -- berthd leaves it alone
        return slurm.SUCCESS
    end
    job_desc.priority = 0
    return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    if admins[modify_uid] then
        return slurm.SUCCESS
    end
    -- priority is NO_VAL when the update does not touch it; a release sets INFINITE and a
    -- number re-prioritizes: both belong to berth
    -- (a hold, priority 0, is harmless and allowed)
    if job_desc.priority ~= nil and job_desc.priority ~= slurm.NO_VAL and job_desc.priority ~= 0 then
        slurm.log_user("berth: jobs are started by berth; release and priority changes are refused")
        return slurm.ERROR
    end
    return slurm.SUCCESS
end

slurm.log_info("berth job_submit.lua loaded")
return slurm.SUCCESS
