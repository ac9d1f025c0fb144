/* The packing loop of berth pack (include/berth/pack.h): one pod at a time, each placed by a
 * scorer of fgd.h and charged through model/alloc.h, so the cluster's counters stay exact;
 * per-node F_n(M) is kept current for FGD and for the fragmentation figures. */
#include <stdlib.h>
#include <string.h>

#include "berth/pack.h"
#include "pack/fgd.h"
#include "model/alloc.h"

void berth_pack_opts_init(struct berth_pack_opts *o)
{
    memset(o, 0, sizeof *o);
    o->scorer = "fgd";
    o->seed = 1;
    o->popularity_pct = 95;
}

void berth_pack_result_free(struct berth_pack_result *r)
{
    free(r->points);
    memset(r, 0, sizeof *r);
}

struct run {
    struct berth_cluster *c;
    struct berth__job *jobs;
    struct berth__slot *slots;
    double *frag;
    size_t *order, n;
    struct berth__frag_workload w;
};

static void run_free(struct run *x)
{
    berth_cluster_free(x->c);
    free(x->jobs);
    free(x->slots);
    free(x->frag);
    free(x->order);
    berth__frag_workload_free(&x->w);
}

static int64_t request_milli(const struct berth_jobspec *js)
{
    int32_t share =
        js->gpu_share_milli > 0 && js->gpu_share_milli < 1000 ? js->gpu_share_milli : 1000;
    return (int64_t)js->num_gpus * share;
}

/* The pod order: trace order or shuffled, plus tune's extra draws. */
static int make_order(struct run *x, const struct berth_trace *t, const struct berth_pack_opts *o,
                      int64_t cap_milli, struct berth__rng *rng)
{
    size_t n = berth_trace_count(t), cap = n ? n : 1;
    const struct berth_jobspec *js = berth_trace_jobs(t);
    x->order = malloc(cap * sizeof *x->order);
    if (!x->order)
        return BERTH_ENOMEM;
    int64_t asked = 0;
    for (size_t i = 0; i < n; i++) {
        x->order[i] = i;
        asked += request_milli(&js[i]);
    }
    if (o->shuffle)
        for (size_t i = n; i > 1; i--) {
            size_t k = (size_t)berth__rng_below(rng, i);
            size_t tmp = x->order[i - 1];
            x->order[i - 1] = x->order[k];
            x->order[k] = tmp;
        }
    x->n = n;
    double goal = o->tune * (double)cap_milli;
    while (n && o->tune > 0 && (double)asked < goal) {
        if (x->n == cap) {
            size_t *p = realloc(x->order, 2 * cap * sizeof *p);
            if (!p)
                return BERTH_ENOMEM;
            x->order = p;
            cap *= 2;
        }
        size_t k = (size_t)berth__rng_below(rng, n);
        int64_t r = request_milli(&js[k]);
        if (r == 0)
            continue; /* CPU pods never bring the requested GPUs closer to the goal */
        x->order[x->n++] = k;
        asked += r;
    }
    return 0;
}

static void snap(const struct run *x, struct berth_pack_point *p, int pct, size_t tried,
                 size_t placed, size_t failed, int64_t asked)
{
    double frag = 0;
    memset(p, 0, sizeof *p); /* padding too: points compare with memcmp */
    for (size_t s = 0; s < x->c->nsrv; s++)
        frag += x->frag[s];
    p->pct = pct;
    p->tried = tried;
    p->placed = placed;
    p->failed = failed;
    p->requested = (double)asked / 1000.0;
    p->allocated = (double)berth__cluster_busy_milli(x->c) / 1000.0;
    p->frag = frag / 1000.0;
}

/* Writes j's slots for pick k and charges them. */
static void place(struct run *x, struct berth__job *j, const struct berth__pick *k)
{
    const struct berth__server *v = &x->c->srv[k->server];
    if (j->gpus == 0) {
        j->slots[0] = (struct berth__slot){(uint32_t)k->server, BERTH_NO_GPU};
    } else if (j->share < 1000) {
        j->slots[0] = (struct berth__slot){(uint32_t)k->server, (uint32_t)k->gpu};
    } else {
        uint64_t m = v->free_mask;
        for (int32_t i = 0; i < j->gpus; i++) {
            int g = __builtin_ctzll(m);
            m &= m - 1;
            j->slots[i] = (struct berth__slot){(uint32_t)k->server, (uint32_t)g};
        }
    }
    berth__alloc_take(x->c, j);
    j->state = BERTH_JOB_RUNNING;
}

int berth_pack_run(const struct berth_trace *t, const struct berth_cluster *c0,
                   const struct berth_pack_opts *o, struct berth_pack_result *r,
                   struct berth_err *err)
{
    memset(r, 0, sizeof *r);
    int scorer = berth__scorer_find(o->scorer ? o->scorer : "");
    if (scorer < 0)
        return berth_err_set(
            err, BERTH_EINPUT,
            "unknown scorer '%s' (fgd, best-fit, first-fit, dot-product, random, fgd-k8s)",
            o->scorer ? o->scorer : "");
    if (o->tune < 0 || o->tune > 100 || o->popularity_pct < 1 || o->popularity_pct > 100)
        return berth_err_set(err, BERTH_EINPUT,
                             "tune must be 0..100 and popularity_pct 1..100, found %g and %d",
                             o->tune, o->popularity_pct);
    struct run x = {0};
    struct berth__rng rng;
    berth__rng_seed(&rng, o->seed);
    int rc = BERTH_ENOMEM;
    int64_t cap_milli = 1000 * (int64_t)c0->total;
    const struct berth_jobspec *js = berth_trace_jobs(t);
    size_t total_slots = 0;
    if (!(x.c = berth__cluster_clone(c0)) || berth__cluster_enable_shares(x.c))
        goto fail;
    if ((rc = make_order(&x, t, o, cap_milli, &rng)))
        goto fail;
    rc = BERTH_ENOMEM;
    x.jobs = calloc(x.n ? x.n : 1, sizeof *x.jobs);
    x.frag = calloc(x.c->nsrv ? x.c->nsrv : 1, sizeof *x.frag);
    if (!x.jobs || !x.frag)
        goto fail;
    uint8_t *known = calloc(x.n ? x.n : 1, 1); /* the pod's GPU model is in the cluster */
    if (!known)
        goto fail;
    for (size_t i = 0; i < x.n; i++) {
        known[i] = !berth__job_init(&x.jobs[i], &js[x.order[i]], (uint32_t)i, x.c);
        total_slots += (size_t)berth__job_nslots(&x.jobs[i]);
    }
    x.slots = malloc((total_slots ? total_slots : 1) * sizeof *x.slots);
    if (!x.slots) {
        free(known);
        goto fail;
    }
    total_slots = 0;
    for (size_t i = 0; i < x.n; i++) {
        x.jobs[i].slots = x.slots + total_slots;
        total_slots += (size_t)berth__job_nslots(&x.jobs[i]);
    }
    /* M is the trace's own pods (tune's draws only repeat them) */
    if (berth__frag_workload_build(x.jobs, x.n, o->popularity_pct, &x.w)) {
        free(known);
        goto fail;
    }
    for (uint32_t s = 0; s < x.c->nsrv; s++) {
        struct berth__frag_node v;
        berth__frag_node_view(x.c, s, &v);
        x.frag[s] = berth__frag_node(&x.w, &v);
    }
    size_t npoints_cap = 128;
    r->points = malloc(npoints_cap * sizeof *r->points);
    if (!r->points) {
        free(known);
        goto fail;
    }
    struct berth__score_ctx ctx = {scorer, &x.w, x.frag, &rng};
    int64_t asked = 0;
    int next_pct = 1;
    for (size_t i = 0; i < x.n; i++) {
        struct berth__job *j = &x.jobs[i];
        struct berth__pick k;
        asked += request_milli(j->spec);
        if (known[i] && !berth__pack_choose(&ctx, x.c, j, &k)) {
            place(&x, j, &k);
            struct berth__frag_node v;
            berth__frag_node_view(x.c, (uint32_t)k.server, &v);
            x.frag[k.server] = berth__frag_node(&x.w, &v);
            r->placed++;
        } else {
            r->failed++;
            if (!r->has_first_fail) {
                r->has_first_fail = 1;
                snap(&x, &r->first, -1, i + 1, r->placed, r->failed, asked);
            }
        }
        if (o->progress && !((i + 1) & 1023))
            o->progress(o->progress_ctx, (double)(i + 1), (double)x.n, "pods");
        while (cap_milli > 0 && asked * 100 >= (int64_t)next_pct * cap_milli) {
            if (r->npoints == npoints_cap) {
                struct berth_pack_point *p = realloc(r->points, 2 * npoints_cap * sizeof *p);
                if (!p) {
                    free(known);
                    goto fail;
                }
                r->points = p;
                npoints_cap *= 2;
            }
            snap(&x, &r->points[r->npoints++], next_pct++, i + 1, r->placed, r->failed, asked);
        }
    }
    free(known);
    if (o->progress)
        o->progress(o->progress_ctx, (double)x.n, (double)x.n, "pods");
    snap(&x, &r->end, -1, x.n, r->placed, r->failed, asked);
    if ((rc = berth__cluster_verify(x.c, err)))
        goto fail;
    r->scorer = berth__scorer_name(scorer);
    r->capacity = (double)c0->total;
    r->pods = x.n;
    r->typical = x.w.n;
    run_free(&x);
    return 0;
fail:
    run_free(&x);
    berth_pack_result_free(r);
    if (rc == BERTH_ENOMEM)
        return berth_err_set(err, BERTH_ENOMEM, "packing run: out of memory");
    return rc;
}
