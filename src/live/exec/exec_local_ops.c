/* The local executor's entry in the executor table (executor.h): the inventory from --gpus
 * or NVML, and each attempt run under the shim (exec_local.c) with the CUDA, MPS and gang
 * variables of its GPUs on this machine. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/daemon/daemon.h"
#include "model/cluster.h"
#include "live/exec/nvml.h"

static int local_open(struct berth__daemon *d, struct berth_err *err)
{
    char spec[512];
    const char *s = d->o.gpus;
    if (!s) {
        int rc = berth__nvml_inventory(NULL, spec, sizeof spec, err);
        if (rc) {
            char msg[BERTH_ERR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            return berth_err_set(err, BERTH_EINPUT,
                                 "%s; give --gpus NxG:type for a fake inventory (for example "
                                 "--gpus 1x4:a100)",
                                 msg);
        }
        s = spec;
    }
    return berth_cluster_parse(s, &d->cluster, err);
}

static void local_close(struct berth__daemon *d)
{
    (void)d;
}

static int local_sync(struct berth__daemon *d, berth_us now, struct berth_err *err)
{
    (void)d, (void)now, (void)err;
    berth__lexec_reap();
    return 0;
}

static int local_launch(struct berth__daemon *d, struct berth__ljob *j, berth_us now,
                        struct berth_err *err)
{
    char **env = berth__daemon_job_env(d, j, 1);
    if (!env)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int rc = berth__lexec_launch(&d->ex, j, env, err);
    berth__strv_free(env);
    if (!rc)
        berth__ljob_note(j, now, BERTH_L_RUNNING, "attempt %d started (pid %d)", j->attempt,
                         j->shim_pid);
    return rc;
}

static int local_poll(struct berth__daemon *d, struct berth__ljob *j)
{
    return berth__lexec_poll(&d->ex, j);
}

static void local_stop(struct berth__daemon *d, struct berth__ljob *j, int force)
{
    berth__lexec_signal(&d->ex, j, force ? SIGKILL : j->ckpt_sig);
    if (force)
        berth__ljob_note(j, berth__wall_us(), j->state, "grace period over: SIGKILL sent");
}

static int local_started(struct berth__daemon *d, const struct berth__ljob *j)
{
    char f[64], path[4200];
    snprintf(f, sizeof f, "a%d.pid", j->attempt);
    berth__lexec_path(&d->ex, j->id, f, path, sizeof path);
    return access(path, F_OK) == 0;
}

const struct berth__executor berth__exec_local = {.name = "local",
                                                  .lost = "its supervisor vanished",
                                                  .open = local_open,
                                                  .close = local_close,
                                                  .sync = local_sync,
                                                  .launch = local_launch,
                                                  .poll = local_poll,
                                                  .stop = local_stop,
                                                  .started = local_started};

const struct berth__executor *berth__executor_find(const char *name)
{
    if (!strcmp(name, "local"))
        return &berth__exec_local;
    if (!strcmp(name, "slurm"))
        return &berth__exec_slurm;
    return NULL;
}
