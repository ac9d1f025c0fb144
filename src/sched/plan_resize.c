/* Resizing a running elastic job in place (plan.h): grow by idle GPUs on a chosen server,
 * shrink by the GPUs on a server or by the last-taken ones. Aryl puts extra workers on
 * loaned servers and returns a loaned server by shrinking exactly the workers on it, as
 * Lyra does, instead of re-placing the whole gang. */
#include "model/alloc.h"
#include "sched/plan.h"

/* The checks every in-place resize shares: a running whole-GPU job, the new size within
 * its elastic range. */
static int resizable(struct berth__plan *p, uint32_t ji, int32_t n, struct berth_err *err)
{
    const struct berth__job *j = &p->jobs[ji];
    int32_t lo = j->spec->min_gpus > 1 ? j->spec->min_gpus : 1;
    if (j->state != BERTH_JOB_RUNNING || !j->gpus || j->share < 1000)
        return berth_err_set(err, BERTH_EINTERNAL,
                             "plan: job %s resized while not running on whole GPUs", j->spec->id);
    if (n < lo || n > j->spec->max_gpus)
        return berth_err_set(err, BERTH_EINTERNAL,
                             "plan: job %s cannot run %d GPUs (elastic range %d..%d)", j->spec->id,
                             n, lo, j->spec->max_gpus);
    if (berth__plan_touch(p, ji))
        return berth_err_set(err, BERTH_ENOMEM, "plan: out of memory");
    berth__plan_trial_save_job(p, &p->jobs[ji]);
    return 0;
}

int berth__plan_grow_on(struct berth__plan *p, uint32_t ji, uint32_t s, int32_t n,
                        struct berth_err *err)
{
    struct berth__job *j = &p->jobs[ji];
    int rc = resizable(p, ji, j->gpus + n, err);
    if (rc)
        return rc;
    const struct berth_cluster *c = p->cluster;
    if (n < 1 || s >= c->nsrv)
        return berth_err_set(err, BERTH_EINTERNAL, "plan: job %s grown by %d GPUs on server %u",
                             j->spec->id, n, s);
    if (c->srv[s].type != j->type || (j->single && s != j->slots[0].server) ||
        berth__server_room(c, s, j) < n)
        return BERTH_NOFIT;
    int32_t k0 = j->gpus;
    uint64_t m = c->srv[s].free_mask;
    for (int32_t k = 0; k < n; k++) {
        unsigned g = (unsigned)__builtin_ctzll(m);
        m &= m - 1;
        j->slots[k0 + k] = (struct berth__slot){s, g};
    }
    if (berth__plan_topo_ok(p, j, j->slots,
                            k0 + n)) /* it would leave its required level's domain */
        return BERTH_NOFIT;
    berth__job_fold(j, p->now);
    berth__alloc_take_range(p->cluster, j, k0, k0 + n);
    j->gpus += n;
    berth__plan_note_span(p, j);
    return 0;
}

/* Gives back slots [n, gpus) and makes n the gang size. */
static void drop_tail(struct berth__plan *p, struct berth__job *j, int32_t n)
{
    berth__job_fold(j, p->now);
    berth__alloc_give_range(p->cluster, j, n, j->gpus);
    j->gpus = n;
    berth__plan_note_span(p, j);
}

int berth__plan_shrink_on(struct berth__plan *p, uint32_t ji, uint32_t s, int32_t n,
                          struct berth_err *err)
{
    struct berth__job *j = &p->jobs[ji];
    int32_t on = 0;
    for (int32_t k = 0; k < j->gpus; k++)
        on += j->slots[k].server == s;
    if (n < 1 || n > on)
        return berth_err_set(err, BERTH_EINTERNAL,
                             "plan: job %s holds %d GPUs on server %u, not %d", j->spec->id, on, s,
                             n);
    int rc = resizable(p, ji, j->gpus - n, err);
    if (rc)
        return rc;
    /* stable: the last n slots on s move to the end, the others keep their order */
    struct berth__slot tmp[BERTH_MAX_SERVER_GPUS];
    int32_t nt = 0, w = 0, skip = on - n; /* the first on - n slots on s stay */
    for (int32_t k = 0; k < j->gpus; k++) {
        if (j->slots[k].server == s && skip-- <= 0)
            tmp[nt++] = j->slots[k];
        else
            j->slots[w++] = j->slots[k];
    }
    for (int32_t k = 0; k < nt; k++)
        j->slots[w + k] = tmp[k];
    drop_tail(p, j, w);
    return 0;
}

int berth__plan_shrink_off(struct berth__plan *p, uint32_t ji, uint32_t s, struct berth_err *err)
{
    const struct berth__job *j = &p->jobs[ji];
    int32_t on = 0;
    for (int32_t k = 0; k < j->gpus; k++)
        on += j->slots[k].server == s;
    if (!on)
        return berth_err_set(err, BERTH_EINTERNAL, "plan: job %s holds no GPU on server %u",
                             j->spec->id, s);
    return berth__plan_shrink_on(p, ji, s, on, err);
}

int berth__plan_shrink_to(struct berth__plan *p, uint32_t ji, int32_t n, struct berth_err *err)
{
    struct berth__job *j = &p->jobs[ji];
    int rc = n < j->gpus ? resizable(p, ji, n, err)
                         : berth_err_set(err, BERTH_EINTERNAL,
                                         "plan: job %s shrunk to %d GPUs from "
                                         "%d",
                                         j->spec->id, n, j->gpus);
    if (!rc)
        drop_tail(p, j, n);
    return rc;
}
