/* The local executor's entry in the executor table (executor.h): the inventory from --gpus
 * or NVML, and each attempt run under the shim (exec_local.c) with the CUDA, MPS and gang
 * variables of its GPUs on this machine, which the host's job_env gives. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/exec/exec_local.h"
#include "live/exec/executor.h"
#include "live/exec/nvml.h"
#include "model/cluster.h"

/* The local executor's state: its host, whose files say where attempts live. */
struct xlocal {
    const struct berth__exec_host *h;
};

static int local_open(const struct berth__exec_host *h, void **self,
                      struct berth_cluster **inventory, struct berth_err *err)
{
    struct xlocal *x = calloc(1, sizeof *x);
    if (!x)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    x->h = h;
    int rc = h->gpus ? berth_cluster_parse(h->gpus, inventory, err)
                     : berth__nvml_inventory(NULL, inventory, err);
    if (rc && !h->gpus && rc != BERTH_ENOMEM) {
        char msg[BERTH_ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        rc = berth_err_set(err, BERTH_EINPUT,
                           "%s; give --gpus NxG:type for a fake inventory (for example "
                           "--gpus 1x4:a100)",
                           msg);
    }
    if (rc) {
        free(x);
        return rc;
    }
    *self = x;
    return 0;
}

static void local_close(void *self)
{
    free(self);
}

static int local_sync(void *self, berth_us now, struct berth_err *err)
{
    (void)self, (void)now, (void)err;
    berth__lexec_reap();
    return 0;
}

static int local_launch(void *self, struct berth__ljob *j, berth_us now, struct berth_err *err)
{
    const struct berth__exec_host *h = ((struct xlocal *)self)->h;
    char **env = h->job_env(h->ctx, j, 1);
    if (!env)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int rc = berth__lexec_launch(h->files, j, env, err);
    berth__strv_free(env);
    if (!rc)
        berth__ljob_note(j, now, BERTH_L_RUNNING, "attempt %d started (pid %d)", j->attempt,
                         j->shim_pid);
    return rc;
}

static int local_poll(void *self, struct berth__ljob *j)
{
    return berth__lexec_poll(((struct xlocal *)self)->h->files, j);
}

static void local_stop(void *self, struct berth__ljob *j, int force)
{
    const struct berth__exec_host *h = ((struct xlocal *)self)->h;
    berth__lexec_signal(h->files, j, force ? SIGKILL : j->ckpt_sig);
    if (force)
        berth__ljob_note(j, h->now(h->ctx), j->state, "grace period over: SIGKILL sent");
}

static int local_started(void *self, const struct berth__ljob *j)
{
    char f[64], path[4200];
    snprintf(f, sizeof f, "a%d.pid", j->attempt);
    berth__lexec_path(((struct xlocal *)self)->h->files, j->id, f, path, sizeof path);
    return access(path, F_OK) == 0;
}

static int local_dropped(void *self, const struct berth__ljob *j, int64_t *out, int64_t *err_)
{
    return berth__lexec_dropped(((struct xlocal *)self)->h->files, j, out, err_);
}

static int local_pids(void *self, uint64_t id, int attempt, pid_t *out, size_t max)
{
    return berth__lexec_pids(((struct xlocal *)self)->h->files, id, attempt, out, max);
}

const struct berth__executor berth__exec_local = {.name = "local",
                                                  .lost = "its supervisor vanished",
                                                  .open = local_open,
                                                  .close = local_close,
                                                  .sync = local_sync,
                                                  .launch = local_launch,
                                                  .poll = local_poll,
                                                  .stop = local_stop,
                                                  .started = local_started,
                                                  .dropped = local_dropped,
                                                  .pids = local_pids};

const struct berth__executor *berth__executor_find(const char *name)
{
    if (!strcmp(name, "local"))
        return &berth__exec_local;
    if (!strcmp(name, "slurm"))
        return &berth__exec_slurm;
    return NULL;
}
