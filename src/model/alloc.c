/* Charging a job's GPUs, fractional shares, CPU and memory to the cluster (see alloc.h). */
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"

static int64_t per_gpu(int64_t total, int32_t gpus)
{
    return gpus > 0 ? (total + gpus - 1) / gpus : total;
}

int64_t berth__job_cpu_per_gpu(const struct berth__job *j)
{
    return per_gpu(berth_jobspec_extra(j->spec)->cpu_milli, j->gpus);
}

int64_t berth__job_mem_per_gpu(const struct berth__job *j)
{
    return per_gpu(berth_jobspec_extra(j->spec)->mem_mib, j->gpus);
}

int berth__server_cpu_mem_fit(const struct berth_cluster *c, uint32_t s, const struct berth__job *j,
                              int32_t n)
{
    const struct berth__server *v = &c->srv[s];
    if (v->cpu_milli && berth__job_cpu_per_gpu(j) * n > v->cpu_free)
        return 0;
    if (v->mem_mib && berth__job_mem_per_gpu(j) * n > v->mem_free)
        return 0;
    return 1;
}

int berth__gpu_mem_fits(const struct berth_cluster *c, uint32_t s, uint32_t g,
                        const struct berth__job *j)
{
    const struct berth__server *v = &c->srv[s];
    int64_t need = berth_jobspec_extra(j->spec)->gpu_mem_mib;
    if (!v->gpu_mem_mib || !need)
        return 1;
    int64_t held = j->share < 1000 && v->shares ? v->shares->mem[g] : 0;
    return held + need <= v->gpu_mem_mib;
}

int berth__server_pick_share_gpu(const struct berth_cluster *c, uint32_t s,
                                 const struct berth__job *j, int most)
{
    const struct berth__server *v = &c->srv[s];
    int32_t share = berth__job_share(j);
    int best = -1, best_room = 0;
    if (v->closed) /* a closed server takes no new share (its idle GPUs are held out) */
        return -1;
    if (v->shares)
        for (int g = 0; g < v->ngpus; g++) {
            int room = 1000 - v->shares->used[g];
            if (v->shares->used[g] == 0 || room < share ||
                !berth__gpu_mem_fits(c, s, (uint32_t)g, j))
                continue;
            if (best < 0 || (most ? room > best_room : room < best_room)) {
                best = g;
                best_room = room;
            }
        }
    if (best < 0 && v->free_mask &&
        berth__gpu_mem_fits(c, s, (uint32_t)__builtin_ctzll(v->free_mask), j))
        best = __builtin_ctzll(v->free_mask); /* an idle GPU holds no memory yet */
    return best;
}

int32_t berth__server_room(const struct berth_cluster *c, uint32_t s, const struct berth__job *j)
{
    const struct berth__server *v = &c->srv[s];
    if (berth__job_share(j) < 1000)
        return berth__server_cpu_mem_fit(c, s, j, 1) &&
               berth__server_pick_share_gpu(c, s, j, 0) >= 0;
    int32_t n = v->nfree;
    if (!v->gpu_mem_mib && !v->cpu_milli && !v->mem_mib)
        return n; /* GPUs alone: the job's own figures need not be read */
    if (v->gpu_mem_mib && berth_jobspec_extra(j->spec)->gpu_mem_mib > v->gpu_mem_mib)
        return 0; /* its GPUs are too small for the job */
    int64_t cpu = berth__job_cpu_per_gpu(j), mem = berth__job_mem_per_gpu(j);
    if (v->cpu_milli && cpu > 0 && v->cpu_free / cpu < n)
        n = (int32_t)(v->cpu_free / cpu);
    if (v->mem_mib && mem > 0 && v->mem_free / mem < n)
        n = (int32_t)(v->mem_free / mem);
    return n < 0 ? 0 : n;
}

int berth__cluster_enable_shares(struct berth_cluster *c)
{
    if (c->shares_ready)
        return 0;
    c->shares_ready = 1; /* from here on berth_cluster_free releases what was made */
    for (size_t t = 0; t < c->ntypes; t++) {
        struct berth__gputype *ty = &c->types[t];
        ty->partial = malloc(((size_t)ty->total + 1) * sizeof *ty->partial);
        if (!ty->partial)
            return -1;
        ty->partial_cap = (size_t)ty->total + 1;
    }
    for (size_t s = 0; s < c->nsrv; s++) {
        struct berth__server *v = &c->srv[s];
        if (!v->ngpus)
            continue;
        v->shares = calloc(1, sizeof *v->shares);
        if (!v->shares)
            return -1;
        for (int k = 0; k < BERTH_MAX_SERVER_GPUS; k++)
            v->shares->pos[k] = -1;
    }
    return 0;
}

int berth__cluster_track_owners(struct berth_cluster *c)
{
    if (c->owner)
        return 0;
    size_t n = c->nsrv * (size_t)c->max_per_server;
    if (!(c->owner = malloc((n ? n : 1) * sizeof *c->owner)))
        return -1;
    memset(c->owner, 0xff, (n ? n : 1) * sizeof *c->owner);
    return 0;
}

static void partial_add(struct berth_cluster *c, uint32_t s, uint32_t g)
{
    struct berth__gputype *ty = &c->types[c->srv[s].type];
    /* room for every GPU of the type was made by berth__cluster_enable_shares */
    BERTH__CLUSTER_SAVE(c, c->srv[s].shares->pos[g]);
    BERTH__CLUSTER_SAVE(c, ty->partial[ty->npartial]);
    BERTH__CLUSTER_SAVE(c, ty->npartial);
    c->srv[s].shares->pos[g] = (int32_t)ty->npartial;
    ty->partial[ty->npartial++] = (struct berth__partial){s, g};
}

static void partial_remove(struct berth_cluster *c, uint32_t s, uint32_t g)
{
    struct berth__gputype *ty = &c->types[c->srv[s].type];
    int32_t i = c->srv[s].shares->pos[g];
    BERTH__CLUSTER_SAVE(c, ty->npartial);
    struct berth__partial last = ty->partial[--ty->npartial];
    if ((size_t)i < ty->npartial) {
        BERTH__CLUSTER_SAVE(c, ty->partial[i]);
        BERTH__CLUSTER_SAVE(c, c->srv[last.server].shares->pos[last.gpu]);
        ty->partial[i] = last;
        c->srv[last.server].shares->pos[last.gpu] = i;
    }
    BERTH__CLUSTER_SAVE(c, c->srv[s].shares->pos[g]);
    c->srv[s].shares->pos[g] = -1;
}

static void charge_cpu_mem(struct berth_cluster *c, uint32_t s, const struct berth__job *j,
                           int32_t n)
{
    struct berth__server *v = &c->srv[s];
    v->gen++; /* every take and give of GPUs, shares, CPU or memory passes here */
    if (v->cpu_milli) {
        BERTH__CLUSTER_SAVE(c, v->cpu_free);
        v->cpu_free -= berth__job_cpu_per_gpu(j) * n;
    }
    if (v->mem_mib) {
        BERTH__CLUSTER_SAVE(c, v->mem_free);
        v->mem_free -= berth__job_mem_per_gpu(j) * n;
    }
}

static void take_share(struct berth_cluster *c, const struct berth__job *j, uint32_t s, uint32_t g)
{
    int32_t share = berth__job_share(j);
    struct berth__shares *sh = c->srv[s].shares; /* made by berth__cluster_enable_shares */
    BERTH__CLUSTER_SAVE(c, sh->used[g]);
    BERTH__CLUSTER_SAVE(c, sh->mem[g]);
    BERTH__CLUSTER_SAVE(c, c->frac_idle);
    if (sh->used[g] == 0)
        berth__cluster_take_mask(c, s, UINT64_C(1) << g);
    else
        c->frac_idle -= 1000 - sh->used[g];
    sh->used[g] = (uint16_t)(sh->used[g] + share);
    sh->mem[g] += berth_jobspec_extra(j->spec)->gpu_mem_mib;
    if (sh->used[g] < 1000)
        c->frac_idle += 1000 - sh->used[g];
    if (sh->used[g] < 1000 && sh->pos[g] < 0)
        partial_add(c, s, g);
    else if (sh->used[g] >= 1000 && sh->pos[g] >= 0)
        partial_remove(c, s, g);

    charge_cpu_mem(c, s, j, 1);
}

static void give_share(struct berth_cluster *c, const struct berth__job *j, uint32_t s, uint32_t g)
{
    struct berth__shares *sh = c->srv[s].shares;
    int32_t share = berth__job_share(j);
    BERTH__CLUSTER_SAVE(c, sh->used[g]);
    BERTH__CLUSTER_SAVE(c, sh->mem[g]);
    BERTH__CLUSTER_SAVE(c, c->frac_idle);
    if (sh->used[g] < 1000)
        c->frac_idle -= 1000 - sh->used[g];
    sh->used[g] = (uint16_t)(sh->used[g] - share);
    sh->mem[g] -= berth_jobspec_extra(j->spec)->gpu_mem_mib;
    if (sh->used[g] > 0)
        c->frac_idle += 1000 - sh->used[g];
    if (sh->used[g] == 0) {
        if (sh->pos[g] >= 0)
            partial_remove(c, s, g);
        berth__cluster_give_mask(c, s, UINT64_C(1) << g);
    } else if (sh->pos[g] < 0) {
        partial_add(c, s, g);
    }

    charge_cpu_mem(c, s, j, -1);
}

/* Charges (or gives back) whole-GPU slots [k0, k1) of j, one bucket move per run of slots
 * on the same server. */
static void whole_range(struct berth_cluster *c, const struct berth__job *j, int32_t k0, int32_t k1,
                        int give)
{
    const struct berth__slot *sl = j->slots;
    for (int32_t k = k0; k < k1;) {
        uint32_t s = sl[k].server;
        uint64_t mask = 0;
        int32_t n = 0;
        for (; k < k1 && sl[k].server == s; k++, n++) {
            mask |= UINT64_C(1) << sl[k].gpu;
            if (c->owner) {
                uint32_t *o = &c->owner[(size_t)s * (size_t)c->max_per_server + sl[k].gpu];
                BERTH__CLUSTER_SAVE(c, *o);
                *o = give ? UINT32_MAX : j->idx;
            }
        }
        if (give)
            berth__cluster_give_mask(c, s, mask);
        else
            berth__cluster_take_mask(c, s, mask);

        charge_cpu_mem(c, s, j, give ? -n : n);
    }
}

void berth__alloc_take_range(struct berth_cluster *c, const struct berth__job *j, int32_t k0,
                             int32_t k1)
{
    if (j->gpus == 0) { /* CPU-only: the server's CPU and memory */
        for (int32_t k = k0; k < k1; k++)
            charge_cpu_mem(c, j->slots[k].server, j, 1);
        return;
    }
    if (berth__job_share(j) < 1000) {
        for (int32_t k = k0; k < k1; k++)
            take_share(c, j, j->slots[k].server, j->slots[k].gpu);
        return;
    }
    whole_range(c, j, k0, k1, 0);
}

void berth__alloc_give_range(struct berth_cluster *c, const struct berth__job *j, int32_t k0,
                             int32_t k1)
{
    if (j->gpus == 0) {
        for (int32_t k = k0; k < k1; k++)
            charge_cpu_mem(c, j->slots[k].server, j, -1);
        return;
    }
    if (berth__job_share(j) < 1000) {
        for (int32_t k = k0; k < k1; k++)
            give_share(c, j, j->slots[k].server, j->slots[k].gpu);
        return;
    }
    whole_range(c, j, k0, k1, 1);
}

void berth__alloc_take(struct berth_cluster *c, const struct berth__job *j)
{
    berth__alloc_take_range(c, j, 0, berth__job_nslots(j));
}

void berth__alloc_give(struct berth_cluster *c, const struct berth__job *j)
{
    berth__alloc_give_range(c, j, 0, berth__job_nslots(j));
}

int berth__alloc_can_take(const struct berth_cluster *c, const struct berth__job *j,
                          const struct berth__slot *slots)
{
    if (j->gpus == 0)
        return berth__server_cpu_mem_fit(c, slots[0].server, j, 1);
    if (berth__job_share(j) < 1000) {
        const struct berth__server *v = &c->srv[slots[0].server];
        uint32_t g = slots[0].gpu;
        int used = v->shares ? v->shares->used[g] : 0;
        int idle = (v->free_mask >> g) & 1;
        if (!idle && (used == 0 || used + berth__job_share(j) > 1000))
            return 0;
        if (!berth__gpu_mem_fits(c, slots[0].server, g, j))
            return 0;
        return berth__server_cpu_mem_fit(c, slots[0].server, j, 1);
    }
    for (int32_t k = 0; k < j->gpus; k++) {
        if (!((c->srv[slots[k].server].free_mask >> slots[k].gpu) & 1))
            return 0;
        if (c->has_cpu_mem) { /* the whole run of this server's slots must fit */
            int32_t n = 0;
            for (int32_t m = 0; m < j->gpus; m++)
                n += slots[m].server == slots[k].server;
            if (!berth__server_cpu_mem_fit(c, slots[k].server, j, n))
                return 0;
        }
    }
    return 1;
}
