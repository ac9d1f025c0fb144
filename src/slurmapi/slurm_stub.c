/* slurm_api.h where libslurm was not found at build time: every call fails with
 * BERTH_EUNSUPPORTED and says how to get a build with Slurm. */
#include <stdlib.h>

#include "slurmapi/slurm_api.h"

#define NO_SLURM                                                                                   \
    "slurm: this berth was built without libslurm (install libslurm-dev, Slurm 22.05, and "        \
    "rebuild)"

bool berth__slurm_built(void)
{
    return false;
}

int berth__slurm_open(struct berth__slurm **out, const char *conf, struct berth_err *e)
{
    (void)conf;
    *out = NULL;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

void berth__slurm_close(struct berth__slurm *s)
{
    (void)s;
}

int berth__slurm_errno(const struct berth__slurm *s)
{
    (void)s;
    return 0;
}

int berth__slurm_partitions(struct berth__slurm *s, struct berth__slurm_partition **parts,
                            size_t *n, struct berth_err *e)
{
    (void)s;
    *parts = NULL;
    *n = 0;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_nodes(struct berth__slurm *s, struct berth__slurm_node **nodes, size_t *n,
                       struct berth_err *e)
{
    (void)s;
    *nodes = NULL;
    *n = 0;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_jobs(struct berth__slurm *s, struct berth__slurm_job **jobs, size_t *n,
                      struct berth_err *e)
{
    (void)s;
    *jobs = NULL;
    *n = 0;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_jobs_poll(struct berth__slurm *s, struct berth__slurm_job **jobs, size_t *n,
                           bool *changed, struct berth_err *e)
{
    (void)s;
    *jobs = NULL;
    *n = 0;
    *changed = false;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_job(struct berth__slurm *s, uint32_t id, struct berth__slurm_job *job,
                     struct berth_err *e)
{
    (void)s, (void)id, (void)job;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_submit_held(struct berth__slurm *s, const struct berth__slurm_submit *sub,
                             uint32_t *id, struct berth_err *e)
{
    (void)s, (void)sub;
    *id = 0;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_place(struct berth__slurm *s, uint32_t id, const struct berth__slurm_place *p,
                       struct berth_err *e)
{
    (void)s, (void)id, (void)p;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_admin_comment(struct berth__slurm *s, uint32_t id, const char *text,
                               struct berth_err *e)
{
    (void)s, (void)id, (void)text;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_split_task(struct berth__slurm *s, uint32_t array_id, uint32_t task,
                            const char *text, struct berth_err *e)
{
    (void)s, (void)array_id, (void)task, (void)text;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_set_time_limit(struct berth__slurm *s, uint32_t id, berth_us limit_us,
                                struct berth_err *e)
{
    (void)s, (void)id, (void)limit_us;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_job_script(struct berth__slurm *s, uint32_t id, char **script, struct berth_err *e)
{
    (void)s, (void)id;
    *script = NULL;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_signal(struct berth__slurm *s, uint32_t id, int sig, int tree, struct berth_err *e)
{
    (void)s, (void)id, (void)sig, (void)tree;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_hold(struct berth__slurm *s, uint32_t id, struct berth_err *e)
{
    (void)s, (void)id;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_requeue_ended(struct berth__slurm *s, uint32_t id, struct berth_err *e)
{
    (void)s, (void)id;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_requeue_hold(struct berth__slurm *s, uint32_t id, struct berth_err *e)
{
    (void)s, (void)id;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_resize(struct berth__slurm *s, uint32_t id, const struct berth__slurm_place *p,
                        struct berth_err *e)
{
    (void)s, (void)id, (void)p;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_cancel(struct berth__slurm *s, uint32_t id, struct berth_err *e)
{
    (void)s, (void)id;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_kill_wait(struct berth__slurm *s, uint32_t *secs, struct berth_err *e)
{
    (void)s;
    *secs = 0;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_submit_array(struct berth__slurm *s, const struct berth__slurm_array *a,
                              uint32_t *id, struct berth_err *e)
{
    (void)s;
    (void)a;
    *id = 0;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}

int berth__slurm_array_active(struct berth__slurm *s, uint32_t id, size_t *active,
                              struct berth_err *e)
{
    (void)s;
    (void)id;
    *active = 0;
    return berth_err_set(e, BERTH_EUNSUPPORTED, NO_SLURM);
}
