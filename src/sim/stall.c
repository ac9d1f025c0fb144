/* The stall rule and its message (stall.h). */
#include <stdarg.h>
#include <stdio.h>

#include "engine/probe.h"
#include "sim/stall.h"
#include "util/num.h"

#define LISTED 10 /* job ids named per group, then "and N more" */

void berth__stall_init(struct berth__stall *s)
{
    *s = (struct berth__stall){BERTH_TIME_NONE, 0, 0, 0};
}

/* 1 when some pending job could start alone with the run's placement, 0 none, < 0 error. */
static int any_fits(struct berth__engine *e, berth_us now, struct berth_err *err)
{
    struct berth__probe pr;
    int rc = berth__probe_open(&pr, e, now, err);
    for (size_t i = 0; !rc && i < e->njobs; i++)
        if (e->jobs[i].state == BERTH_JOB_PENDING)
            rc = berth__probe_fits(&pr, &e->jobs[i], BERTH_PROBE_RUN, err);
    berth__probe_close(&pr);
    return rc;
}

int berth__stall_step(struct berth__stall *s, struct berth__engine *e, int idle, int ran,
                      int settled, berth_us span, berth_us now, struct berth_err *err)
{
    if (!idle) {
        berth__stall_init(s);
        return 0;
    }
    if (!ran)
        return 0;
    if (s->since == BERTH_TIME_NONE)
        s->since = now;
    if (++s->passes < 2)
        return 0;
    /* the cluster stays as it is through the spell, but for servers a policy lends */
    if (!s->probed && e->cluster->reserved_servers == 0) {
        int rc = any_fits(e, now, err);
        if (rc < 0)
            return rc;
        s->probed = 1;
        s->certain = rc == 0;
    }
    if (s->certain)
        return 1;
    berth_us need = span > BERTH__STALL_IDLE_US ? span : BERTH__STALL_IDLE_US;
    return settled && now - s->since >= need;
}

/* A message under construction: appends never overflow it (a long one is cut). */
struct msg {
    char s[BERTH_ERR_MSG_MAX];
    size_t n;
};

__attribute__((format(printf, 2, 3))) static void add(struct msg *m, const char *fmt, ...)
{
    if (m->n + 1 >= sizeof m->s)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(m->s + m->n, sizeof m->s - m->n, fmt, ap);
    va_end(ap);
    m->n = k < 0 ? m->n : m->n + (size_t)k < sizeof m->s ? m->n + (size_t)k : sizeof m->s - 1;
}

/* The pending jobs of one kind: how many, and the first LISTED. */
struct group {
    size_t n;
    uint32_t first[LISTED];
};

enum { G_SPACE, G_PLACE, G_HELD, NGROUPS };

/* The most GPUs one server of a type job j may use holds. */
static int32_t largest_server(const struct berth_cluster *c, const struct berth__job *j)
{
    int32_t most = 0;
    for (size_t t = 0; t < c->ntypes; t++)
        if ((!j->type_mask || (j->type_mask >> t & 1)) && c->types[t].max_per_server > most)
            most = c->types[t].max_per_server;
    return most;
}

/* "ID (what it asks for)" for a job of group g. */
static void add_job(struct msg *m, const struct berth_cluster *c, const struct berth__job *j, int g)
{
    const struct berth_jobspec *s = j->spec;
    const struct berth_jobspec_extra *x = berth_jobspec_extra(s);
    add(m, "%.40s", s->id);
    if (g == G_HELD)
        return;
    if (!j->gpus)
        add(m, " (no GPU");
    else if (j->share < 1000)
        add(m, " (%.3g of a GPU", j->share / 1000.0);
    else
        add(m, " (%d GPU%s", j->gpus, j->gpus == 1 ? "" : "s");
    int32_t most = largest_server(c, j);
    if (j->gpus > most && j->share == 1000)
        add(m, ", more than a server holds: %d", most);
    if (x->cpu_milli)
        add(m, ", %.4g CPUs", x->cpu_milli / 1000.0);
    if (x->mem_mib)
        add(m, ", %lld MiB", (long long)x->mem_mib);
    if (x->gpu_mem_mib && j->gpus)
        add(m, ", %lld MiB per GPU", (long long)x->gpu_mem_mib);
    add(m, ")");
}

static void add_list(struct msg *m, const struct berth__engine *e, const struct group *gr, int g)
{
    size_t k = gr->n < LISTED ? gr->n : LISTED;
    add(m, ": job%s ", gr->n == 1 ? "" : "s");
    for (size_t i = 0; i < k; i++) {
        if (i)
            add(m, "%s", i + 1 == k && gr->n == k ? " and " : ", ");
        add_job(m, e->cluster, &e->jobs[gr->first[i]], g);
    }
    if (gr->n > k)
        add(m, " and %zu more", gr->n - k);
}

/* Sorts every pending job into its group: no room even idle, not by this placement, or held
 * by the policy though it could be placed. */
static int classify(struct berth__engine *e, berth_us now, struct group gr[NGROUPS],
                    struct berth_err *err)
{
    struct berth__probe pr;
    int rc = berth__probe_open(&pr, e, now, err);
    for (size_t i = 0; !rc && i < e->njobs; i++) {
        if (e->jobs[i].state != BERTH_JOB_PENDING)
            continue;
        int g = G_HELD, fits = berth__probe_fits(&pr, &e->jobs[i], BERTH_PROBE_RUN, err);
        if (fits == 0) {
            fits = berth__probe_fits(&pr, &e->jobs[i], BERTH_PROBE_CONSOLIDATE, err);
            g = fits ? G_PLACE : G_SPACE;
        }
        if (fits < 0) {
            rc = fits;
            break;
        }
        if (gr[g].n < LISTED)
            gr[g].first[gr[g].n] = (uint32_t)i;
        gr[g].n++;
    }
    berth__probe_close(&pr);
    return rc;
}

/* How a group of n of the pending jobs is named: "it", "all of them" or "N of them". */
static void add_qty(struct msg *m, size_t n, size_t pending)
{
    if (pending == 1)
        add(m, "it");
    else if (n == pending)
        add(m, "any of them");
    else
        add(m, "%zu of them", n);
}

int berth__stall_fail(const struct berth__stall *s, struct berth__engine *e, berth_us now, int last,
                      struct berth_err *err)
{
    struct group gr[NGROUPS] = {{0}};
    int rc = classify(e, now, gr, err);
    if (rc)
        return rc;
    struct msg m = {.n = 0};
    char t[32];
    size_t np = e->npending;
    add(&m,
        "sim: stalled at t=%s s with %zu of %zu jobs done: nothing runs, no job is still to "
        "arrive, and ",
        berth__fmt_us(t, now), e->ndone, e->njobs);
    int gave_up = gr[G_HELD].n && !last && s->since != BERTH_TIME_NONE;
    if (gave_up && np == 1)
        add(&m, "the pending job has not started");
    else if (gave_up)
        add(&m, "none of the %zu pending jobs has started", np);
    else if (np == 1)
        add(&m, "the pending job can never start");
    else
        add(&m, "none of the %zu pending jobs can ever start", np);
    if (gave_up)
        add(&m, " in %llu passes over %.4g h with the cluster idle", (unsigned long long)s->passes,
            (double)(now - s->since) / 3600e6);
    if (e->cluster->reserved_servers)
        add(&m, " (%d servers reserved for their pool)", e->cluster->reserved_servers);
    if (gr[G_SPACE].n) {
        add(&m, "; no server can hold ");
        add_qty(&m, gr[G_SPACE].n, np);
        add(&m, " even idle (GPUs with the CPU and memory asked for)");
        add_list(&m, e, &gr[G_SPACE], G_SPACE);
    }
    if (gr[G_PLACE].n) {
        add(&m, "; placement %s (%s) finds no GPUs for ", e->place.ops->name,
            e->place.ops->summary);
        add_qty(&m, gr[G_PLACE].n, np);
        add(&m, " even on the idle cluster");
        add_list(&m, e, &gr[G_PLACE], G_PLACE);
    }
    if (gr[G_HELD].n) {
        size_t n = gr[G_HELD].n;
        int other = gr[G_SPACE].n || gr[G_PLACE].n;
        add(&m, "; policy %s ", e->ops->name);
        if (n == 1)
            add(&m, "does not start %s, though it could be placed", other ? "the other one" : "it");
        else
            add(&m, "starts none of the %s%zu that could be placed", other ? "other " : "", n);
        if (!gave_up)
            add(&m, ", and asks for no further pass");
        add_list(&m, e, &gr[G_HELD], G_HELD);
    }
    return berth_err_set(err, BERTH_ESTALLED, "%s", m.s);
}
