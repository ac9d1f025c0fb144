/* FGD's fragmentation measure F_n(M) and the target workload M built from a trace (see
 * frag.h for the definition and its source). */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "model/alloc.h"
#include "sched/frag.h"

static void key_of(const struct berth__job *j, struct berth__frag_type *k)
{
    memset(k, 0, sizeof *k);
    k->cpu_milli = berth_jobspec_extra(j->spec)->cpu_milli;
    k->gpus = j->gpus;
    k->milli = j->gpus ? j->share : 0;
    k->type_mask = j->type_mask;
}

static int key_cmp(const struct berth__frag_type *a, const struct berth__frag_type *b)
{
    if (a->cpu_milli != b->cpu_milli)
        return a->cpu_milli < b->cpu_milli ? -1 : 1;
    if (a->milli != b->milli)
        return a->milli < b->milli ? -1 : 1;
    if (a->gpus != b->gpus)
        return a->gpus < b->gpus ? -1 : 1;
    if (a->type_mask != b->type_mask)
        return a->type_mask < b->type_mask ? -1 : 1;
    return 0;
}

static int by_key(const void *x, const void *y)
{
    return key_cmp(x, y);
}

static int by_count(const void *x, const void *y)
{
    const struct berth__frag_type *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return key_cmp(a, b);
}

int berth__frag_workload_build(const struct berth__job *jobs, size_t n, int threshold_pct,
                               struct berth__frag_workload *w)
{
    memset(w, 0, sizeof *w);
    if (!n)
        return 0;
    struct berth__frag_type *all = malloc(n * sizeof *all);
    if (!all)
        return BERTH_ENOMEM;
    for (size_t i = 0; i < n; i++)
        key_of(&jobs[i], &all[i]);
    qsort(all, n, sizeof *all, by_key);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && !key_cmp(&all[m - 1], &all[i])) {
            all[m - 1].count++;
        } else {
            all[m] = all[i];
            all[m++].count = 1;
        }
    }
    qsort(all, m, sizeof *all, by_count);
    size_t keep = 0, covered = 0;
    while (keep < m && (threshold_pct >= 100 || covered * 100 < (size_t)threshold_pct * n))
        covered += all[keep++].count;
    for (size_t i = 0; i < keep; i++)
        all[i].p = (double)all[i].count / (double)covered;
    w->t = all;
    w->n = keep;
    w->pods = n;
    return 0;
}

void berth__frag_workload_free(struct berth__frag_workload *w)
{
    free(w->t);
    memset(w, 0, sizeof *w);
}

void berth__frag_node_view(const struct berth_cluster *c, uint32_t s, struct berth__frag_node *v)
{
    const struct berth__server *sv = &c->srv[s];
    v->cpu_left = sv->cpu_milli ? sv->cpu_free : INT64_MAX;
    v->ngpus = sv->ngpus;
    v->type = sv->type;
    for (int g = 0; g < sv->ngpus; g++) {
        if ((sv->free_mask >> g) & 1)
            v->left[g] = 1000;
        else
            v->left[g] = sv->shares && sv->shares->used[g] ? 1000 - sv->shares->used[g] : 0;
    }
}

int64_t berth__frag_node_idle(const struct berth__frag_node *v)
{
    int64_t idle = 0;
    for (int g = 0; g < v->ngpus; g++)
        idle += v->left[g];
    return idle;
}

double berth__frag_node(const struct berth__frag_workload *w, const struct berth__frag_node *v)
{
    int64_t idle = berth__frag_node_idle(v);
    if (!idle)
        return 0.0;
    double f = 0.0;
    for (size_t i = 0; i < w->n; i++) {
        const struct berth__frag_type *m = &w->t[i];
        int64_t lost = idle; /* no GPU asked, wrong model, or the pod does not fit */
        if (m->milli > 0 && (!m->type_mask || ((m->type_mask >> v->type) & 1))) {
            int32_t fit = 0;
            int64_t small = 0; /* idle milli on GPUs too full for m */
            for (int g = 0; g < v->ngpus; g++) {
                if (v->left[g] >= m->milli)
                    fit++;
                else
                    small += v->left[g];
            }
            if (fit >= m->gpus && v->cpu_left >= m->cpu_milli)
                lost = small;
        }
        f += m->p * (double)lost;
    }
    return f;
}

static int type_ok(const struct berth_cluster *c, uint32_t s, const struct berth__job *j)
{
    return !j->type_mask || ((j->type_mask >> c->srv[s].type) & 1);
}

/* 1 when GPU g of server s can take sharing pod j's share. */
int berth__frag_share_fits(const struct berth_cluster *c, uint32_t s, int g,
                           const struct berth__job *j)
{
    const struct berth__server *v = &c->srv[s];
    int idle = (v->free_mask >> g) & 1;
    int used = v->shares ? v->shares->used[g] : 0;
    if (!idle && (used == 0 || used + j->share > 1000))
        return 0;
    return berth__gpu_mem_fits(c, s, (uint32_t)g, j);
}

int berth__frag_feasible(const struct berth_cluster *c, uint32_t s, const struct berth__job *j)
{
    const struct berth__server *v = &c->srv[s];
    if (j->gpus == 0)
        return berth__server_cpu_mem_fit(c, s, j, 1);
    if (!v->ngpus || !type_ok(c, s, j))
        return 0;
    if (j->share < 1000) {
        if (!berth__server_cpu_mem_fit(c, s, j, 1))
            return 0;
        for (int g = 0; g < v->ngpus; g++)
            if (berth__frag_share_fits(c, s, g, j))
                return 1;
        return 0;
    }
    return berth__server_room(c, s, j) >= j->gpus;
}

double berth__frag_delta(const struct berth__frag_workload *w, const struct berth_cluster *c,
                         uint32_t s, const struct berth__job *j, double before, int32_t *gpu)
{
    struct berth__frag_node n, after;
    berth__frag_node_view(c, s, &n);
    int64_t cpu = berth__job_cpu_per_gpu(j) * berth__job_nslots(j);
    *gpu = -1;
    if (n.cpu_left != INT64_MAX)
        n.cpu_left -= cpu;
    if (j->gpus == 0)
        return berth__frag_node(w, &n) - before;
    if (j->share >= 1000) {
        int32_t need = j->gpus;
        for (int g = 0; g < n.ngpus && need; g++)
            if (n.left[g] == 1000) {
                n.left[g] = 0;
                need--;
            }
        return berth__frag_node(w, &n) - before;
    }
    double best = DBL_MAX;
    int seen[1001] = {0}; /* GPUs with equal room give equal F_n: try one of each */
    for (int g = 0; g < n.ngpus; g++) {
        if (!berth__frag_share_fits(c, s, g, j) || seen[n.left[g]])
            continue;
        seen[n.left[g]] = 1;
        after = n;
        after.left[g] -= j->share;
        double d = berth__frag_node(w, &after) - before;
        if (d < best) {
            best = d;
            *gpu = g;
        }
    }
    return best;
}
