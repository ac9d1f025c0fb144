-- berth's Slurm cli_filter: sbatch, srun and salloc run it on the submit host before they
-- send a job (CliFilterPlugins=lua in slurm.conf, this file next to it). It keeps one thing
-- berthd needs and Slurm 22.05 does not show it: the job's --signal=[B:]SIG@SECS as given on
-- the command line (22.05's job records, scontrol and the job_submit hook never carry it;
-- berthd reads #SBATCH --signal from the script itself). The value is written as the first
-- word of the job's comment, "berth-signal=B:USR1@50", before any comment of the user's;
-- berthd takes it as the adopted job's checkpoint signal and lead time (docs/slurm.md).
-- It runs as the submitting user and only describes the user's own job: a user who writes
-- the word himself only chooses his own job's signal.

function slurm_cli_setup_defaults(options, early_pass)
    return slurm.SUCCESS
end

function slurm_cli_pre_submit(options, offset)
    local sig = options["signal"]
    if sig ~= nil and sig ~= "" and sig ~= "0@0" then -- "0@0": no --signal
        local c = options["comment"]
        options["comment"] = "berth-signal=" .. sig .. ((c ~= nil and c ~= "") and (" " .. c) or "")
    end
    return slurm.SUCCESS
end

function slurm_cli_post_submit(offset, jobid, stepid)
    return slurm.SUCCESS
end
