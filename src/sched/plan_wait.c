/* Consolidate-or-wait: with measured (or penalised) rates across servers a spread gang can
 * run at a small fraction of its speed, and starting it so can finish it later than waiting
 * for one server to hold it. The plan asks, for a gang its placement spread over servers,
 * whether spreading now pays (plan.h):
 *
 *   spread now:  done after Tc / r, where Tc is the work left at the one-server speed (its
 *                expected run time alone times the fraction left) and r the model's spread
 *                ratio for its class, gang and GPU type (model/tput.h);
 *   wait:        done after W + Tc, where W is the time until the first server of the type
 *                has the gang's GPUs idle, from the running jobs' expected ends (work left
 *                over their current rate) on it.
 *
 * The gang starts spread unless waiting finishes it strictly sooner. No server of the type
 * large enough, a server that could hold it now (the placement chose to spread), no class,
 * no known model type, or r >= 1: it starts. Fractional jobs' GPUs count as never freed
 * (the estimate then leans to spreading). Cost: O(jobs + slots log slots) per spread gang,
 * only when the rule is on. */
#include <stdlib.h>

#include "model/alloc.h"
#include "model/tput.h"
#include "sched/plan.h"

struct freeing {
    berth_us at;
    uint32_t server;
};

static int by_time(const void *a, const void *b)
{
    const struct freeing *x = a, *y = b;
    return x->at < y->at   ? -1
           : x->at > y->at ? 1
                           : (x->server > y->server) - (x->server < y->server);
}

/* Microseconds of work left for job k at its one-server speed alone, from its estimate. */
static double left_us(const struct berth__job *k, berth_us now)
{
    double frac = k->work > 0 ? 1.0 - berth__job_done(k, now) / k->work : 1.0;
    return (frac > 0 ? frac : 0) * (double)k->est_us;
}

int berth__plan_spread_pays(const struct berth__plan *p, const struct berth__job *j, int t)
{
    const struct berth_cluster *c = p->cluster;
    if (!p->wait.tput || j->cls < 0 || j->gpus <= 1 || berth__job_share(j) < 1000 ||
        c->types[t].max_per_server < j->gpus)
        return 1;
    int mt = p->wait.tput_type ? p->wait.tput_type[t] : -1;
    if (mt < 0)
        return 1;
    double r = berth__tput_spread_ratio(p->wait.tput, p->wait.spread, j->cls, mt, j->gpus);
    if (!(r > 0 && r < 1))
        return 1;
    int32_t *idle = calloc(c->nsrv ? c->nsrv : 1, sizeof *idle);
    size_t n = 0, cap = 64;
    struct freeing *ev = malloc(cap * sizeof *ev);
    if (!idle || !ev) {
        free(idle);
        free(ev);
        return -1;
    }
    int rc = 1, now_fits = 0;
    for (uint32_t s = 0; s < c->nsrv; s++)
        idle[s] = c->srv[s].type == t && !c->srv[s].reserved ? c->srv[s].nfree : 0;
    for (int32_t k = 0; k < j->gpus; k++) /* the gang's own GPUs, placed but not yet taken */
        idle[j->slots[k].server]++;
    for (uint32_t s = 0; s < c->nsrv && !now_fits; s++)
        now_fits = c->srv[s].type == t && idle[s] >= j->gpus;
    for (size_t i = 0; i < p->njobs && !now_fits; i++) {
        const struct berth__job *k = &p->jobs[i];
        if (k->state != BERTH_JOB_RUNNING || k->gpus == 0 || berth__job_share(k) < 1000)
            continue;
        berth_us end = k->rate > 0
                           ? p->now + (berth_us)((k->work - berth__job_done(k, p->now)) / k->rate)
                           : p->now + (berth_us)left_us(k, p->now);
        for (int32_t g = 0; g < berth__job_nslots(k); g++) {
            uint32_t s = k->slots[g].server;
            if (c->srv[s].type != t)
                continue;
            if (n == cap) {
                struct freeing *m = realloc(ev, 2 * cap * sizeof *ev);
                if (!m) {
                    rc = -1;
                    goto out;
                }
                ev = m;
                cap *= 2;
            }
            ev[n++] = (struct freeing){end, s};
        }
    }
    if (now_fits)
        goto out;
    qsort(ev, n, sizeof *ev, by_time);
    for (size_t i = 0; i < n; i++)
        if (++idle[ev[i].server] >= j->gpus) { /* the first server that holds it: wait? */
            double tc = left_us(j, p->now), wait = (double)(ev[i].at - p->now);
            rc = wait + tc >= tc / r;
            break;
        }
out:
    free(idle);
    free(ev);
    return rc;
}
