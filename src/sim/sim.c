/* The simulator: the engine driven by a virtual clock and a modelled executor (progress.c).
 *
 * Events are arrivals (the trace, sorted by arrival then file order), completions (events.c)
 * and the policy's own timer (las' quantum). All events at one instant are applied —
 * completions first, then arrivals — and then, in des mode, one scheduling pass runs. In the
 * round modes passes run only at round boundaries (multiples of the round from time 0);
 * arrivals may wait for the next boundary, finished jobs may hold their GPUs until it, and
 * their finish may be recorded there (the round switches, see sim.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/drive.h"
#include "engine/engine.h"
#include "sim/frag_sample.h"
#include "sim/metrics.h"
#include "model/cluster.h"
#include "model/curve.h"
#include "model/infer.h"
#include "model/topo_rate.h"
#include "model/trace.h"
#include "sim/progress.h"
#include "sim/stall.h"
#include "util/num.h"
#include "util/sort.h"

void berth_sim_opts_init(struct berth_sim_opts *o)
{
    memset(o, 0, sizeof *o);
    o->policy = "fifo";
    o->seed = 1;
    o->quantum_us = 60 * BERTH_US_PER_S;
    o->round_admit = o->round_release = o->round_jct = o->flat_progress = o->round_early_end = -1;
    o->whole_steps = -1;
    o->fixed_speed = o->spread_rates = o->spread_wait = -1;
}

const char *berth_sim_mode_name(int mode)
{
    static const char *const names[] = {"des", "rounds", "gavel", "blox", "tiresias"};
    return mode >= 0 && mode < 5 ? names[mode] : NULL;
}

int berth_sim_mode_find(const char *name)
{
    for (int i = 0; i < 5; i++)
        if (!strcmp(name, berth_sim_mode_name(i)))
            return i;
    return -1;
}

/* What a mode means once its defaults and the caller's switches are applied. */
struct timing {
    berth_us round; /* 0 in des mode */
    int admit, release, jct, flat;
    int early; /* rounds end early, when their jobs' work has (round > 0) */
    int whole; /* whole steps per round (needs early) */
    berth_us min_realloc;
    int fixed;               /* every job by its duration */
    struct berth__spread sp; /* how gangs across servers run */
    int wait;                /* consolidate-or-wait */
};

static int pick(int set, int dflt)
{
    return set >= 0 ? set : dflt;
}

/* Each mode's defaults: round length, the round switches, and the progress model. */
static const struct mode_defaults {
    int round_s, admit, release, jct, flat, early, whole;
    int fixed;    /* every job by its duration */
    int measured; /* measured rates across servers (unless jobs run by duration) */
    /* the placement when --placement is not given (NULL: the policy's default) */
    const char *placement;
    int wait; /* consolidate-or-wait (berth's own; no peer does it) */
} mode_defaults[] = {
    /* round, admit, release, jct, flat, early, whole, fixed, measured, placement, wait */
    [BERTH_MODE_DES] = {0, 0, 0, 0, 0, 0, 0, 0, 1, NULL, 1},      /* exact time */
    [BERTH_MODE_ROUNDS] = {300, 1, 1, 0, 0, 0, 0, 0, 1, NULL, 1}, /* rounds */
    /* Gavel: rounds end at their latest finish, whole steps, consolidated rates only */
    [BERTH_MODE_GAVEL] = {360, 1, 1, 0, 0, 1, 1, 0, 0, NULL, 0},
    /* Blox: its shipped scattered placement */
    [BERTH_MODE_BLOX] = {300, 1, 1, 1, 1, 0, 0, 0, 1, "blox-scattered", 0},
    [BERTH_MODE_TIRESIAS] = {0, 0, 0, 0, 0, 0, 0, 1, 0, NULL, 0}, /* Tiresias */
};

/* What each peer mode sets among a policy's own settings (sched/settings.h), when the
 * policy has the setting and the caller did not give it: the peer's quirks, each of which
 * --policy-arg KEY=VALUE turns off again one at a time. */
struct preset {
    int mode;
    const char *key, *value;
};

static const struct preset presets[] = {
    {BERTH_MODE_TIRESIAS, "exact_demotion", "0"},
    {BERTH_MODE_GAVEL, "fill", "0"},         /* Gavel leaves idle GPUs idle between rounds */
    {BERTH_MODE_GAVEL, "fastest_type", "0"}, /* Gavel's base fifo's type choice */
    {BERTH_MODE_GAVEL, "zero_reset", "1"},   /* Gavel's _last_reset_time == 0 test */
    {BERTH_MODE_GAVEL, "half_credit", "1"},  /* Gavel's half-round credit in time received */
    {BERTH_MODE_GAVEL, "exec_time", "1"},    /* time received: Gavel's execution times */
};

static int resolve_timing(const struct berth_sim_opts *o, struct timing *t, struct berth_err *err)
{
    if (o->mode < 0 || o->mode > 4)
        return berth_err_set(err, BERTH_EINPUT, "--mode: unknown mode %d", o->mode);
    if (o->round_us < 0 || o->min_realloc_us < 0)
        return berth_err_set(err, BERTH_EINPUT, "--round and --min-realloc must be >= 0");
    const struct mode_defaults *d = &mode_defaults[o->mode];
    int fixed = pick(o->fixed_speed, d->fixed) > 0;
    int early = pick(o->round_early_end, d->early) > 0;
    *t = (struct timing){
        .round = !d->round_s   ? 0
                 : o->round_us ? o->round_us
                               : d->round_s * BERTH_US_PER_S,
        .admit = pick(o->round_admit, d->admit),
        .release = pick(o->round_release, d->release),
        .jct = pick(o->round_jct, d->jct),
        .flat = pick(o->flat_progress, d->flat),
        .early = early,
        .whole = pick(o->whole_steps, d->whole && early) > 0, /* the mode's go with early ends */
        .min_realloc = o->min_realloc_us,
        .fixed = fixed,
        .sp = {o->spread_factor > 0 ? o->spread_factor : 0,
               pick(o->spread_rates, d->measured && !fixed) > 0},
        .wait = pick(o->spread_wait, d->wait) > 0,
    };
    if (o->mode == BERTH_MODE_GAVEL && !t->min_realloc)
        t->min_realloc = 1920 * BERTH_US_PER_S;
    if (!t->round && (t->admit || t->release || t->jct || t->early))
        return berth_err_set(err, BERTH_EINPUT,
                             "--round-admit, --round-release, --round-jct and --round-early-end "
                             "need a round mode (--mode rounds, gavel or blox)");
    if (t->whole && !t->early)
        return berth_err_set(err, BERTH_EINPUT,
                             "--whole-steps on needs rounds that end early (--round-early-end "
                             "on, as --mode gavel has them)");
    return 0;
}

static berth_us boundary_at_or_after(berth_us t, berth_us round)
{
    berth_us r = t % round;
    return r ? t - r + round : t;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int record(struct berth_sim_result *r, size_t *cap, berth_us t,
                  const struct berth__engine *e)
{
    struct berth_series_row row = {t, berth__engine_busy_gpus(e), (int32_t)e->nrunning,
                                   (int32_t)e->npending};
    if (r->nseries) {
        const struct berth_series_row *last = &r->series[r->nseries - 1];
        if (last->busy_gpus == row.busy_gpus && last->running == row.running &&
            last->pending == row.pending)
            return 0;
    }
    if (BERTH_GROW(r->series, *cap, r->nseries + 1))
        return -1;
    r->series[r->nseries++] = row;
    return 0;
}

/* An events row for what the engine preempted, migrated and resized at t since the last
 * row (*last: the engine's totals then). */
static int record_events(struct berth_sim_result *r, size_t *cap, berth_us t,
                         const struct berth__engine *e, uint64_t last[3])
{
    uint64_t now[3] = {e->preemptions, e->migrations, e->resizes};
    if (now[0] == last[0] && now[1] == last[1] && now[2] == last[2])
        return 0;
    if (BERTH_GROW(r->events, *cap, r->nevents + 1))
        return -1;
    r->events[r->nevents++] = (struct berth_event_row){
        t, (int32_t)(now[0] - last[0]), (int32_t)(now[1] - last[1]), (int32_t)(now[2] - last[2])};
    memcpy(last, now, sizeof now);
    return 0;
}

/* The time at which job i (in arrival order) enters the engine. */
/* Inference demand against the "inference" pool: the pool starts reserved; the integrals
 * of what inference used, what was lent, and what inference lacked; shortfall episodes
 * (demand above the servers inference holds) give the reclaim latency. */
struct pools {
    int32_t servers, gpus; /* the pool */
    double used_gpu_us, lent_gpu_us, short_server_us;
    berth_us short_since; /* start of the shortfall in progress, BERTH_TIME_NONE if none */
    double lat_max_us, lat_sum_us;
    uint64_t episodes;
};

static int pools_init(struct pools *pl, struct berth__engine *e, const struct berth_infer *s,
                      berth_us now, struct berth_err *err)
{
    size_t ns;
    int rc = berth__engine_reserve_pool(e, "inference", &ns, err);
    if (rc)
        return rc;
    if (!ns)
        return berth_err_set(err, BERTH_EINPUT,
                             "--inference: the cluster has no server in pool \"inference\" "
                             "(give servers \"pool\": \"inference\" in a cluster JSON file)");
    pl->servers = (int32_t)ns;
    pl->gpus = e->cluster->reserved_gpus;
    berth__engine_set_infer_demand(e, berth_infer_at(s, now, pl->servers));
    return 0;
}

static void pools_advance(struct pools *pl, struct berth__engine *e, const struct berth_infer *s,
                          berth_us from, berth_us to)
{
    const struct berth_cluster *c = e->cluster;
    double dt = (double)(to - from);
    pl->used_gpu_us += (double)e->infer_demand * pl->gpus / pl->servers * dt;
    pl->lent_gpu_us += (double)(pl->gpus - c->reserved_gpus) * dt;
    if (e->infer_demand > c->reserved_servers)
        pl->short_server_us += (double)(e->infer_demand - c->reserved_servers) * dt;
    berth__engine_set_infer_demand(e, berth_infer_at(s, to, pl->servers));
}

/* After a pass: a shortfall starts, or one in progress ends (a reclaim gave servers back). */
static void pools_check(struct pools *pl, const struct berth__engine *e, berth_us now)
{
    int short_now = e->infer_demand > e->cluster->reserved_servers;
    if (short_now && pl->short_since == BERTH_TIME_NONE) {
        pl->short_since = now;
    } else if (!short_now && pl->short_since != BERTH_TIME_NONE) {
        double lat = (double)(now - pl->short_since);
        pl->lat_max_us = lat > pl->lat_max_us ? lat : pl->lat_max_us;
        pl->lat_sum_us += lat;
        pl->episodes++;
        pl->short_since = BERTH_TIME_NONE;
    }
}

static void pools_summarise(const struct pools *pl, const struct berth__engine *e,
                            const struct berth_cluster *c, struct berth_sim_summary *s)
{
    s->has_infer = 1;
    s->infer_servers = pl->servers;
    s->infer_gpu_hours = pl->used_gpu_us / 3600e6;
    s->loaned_gpu_hours = pl->lent_gpu_us / 3600e6;
    s->infer_short_server_hours = pl->short_server_us / 3600e6;
    s->lends = e->lends;
    s->reclaims = e->reclaims;
    s->reclaim_latency_max_s = pl->lat_max_us / 1e6;
    s->reclaim_latency_avg_s = pl->episodes ? pl->lat_sum_us / (double)pl->episodes / 1e6 : 0;
    double span = s->makespan_s * 1e6 * (double)berth_cluster_gpus(c);
    s->cluster_usage = span > 0 ? (s->gpu_util * span + pl->used_gpu_us) / span : 0;
}

/* Time limits: the modelled executor, wrapped so that a job's start also sets the instant
 * it reaches its limit (its limit less the run time of its earlier attempts) and a stop
 * takes that instant away; when it comes first, the job is stopped there (timed out). */
struct limits {
    struct berth__progress *p;
    struct berth__events ev;
};

static void lim_start(void *ctx, struct berth__job *j, berth_us now)
{
    struct limits *l = ctx;
    berth__progress_start(l->p, j, now);
    if (j->limit_us > 0)
        berth__events_set(&l->ev, j->idx,
                          now + (j->limit_us > j->run_us ? j->limit_us - j->run_us : 0));
}

static void lim_stop(void *ctx, struct berth__job *j, berth_us now)
{
    struct limits *l = ctx;
    berth__progress_stop(l->p, j, now);
    berth__events_remove(&l->ev, j->idx);
}

static void lim_migrate(void *ctx, struct berth__job *j, berth_us now)
{
    struct limits *l = ctx;
    berth__progress_migrate(l->p, j, now); /* it runs on: its limit stays where it was */
}

/* Gives every job without a limit of its own its run time alone times factor (at least 1 us),
 * and hooks the limits into the executor when any job has one. 1 when one has, 0 when none
 * has, -1 when out of memory. */
static int limits_init(struct limits *l, struct berth__engine *e, struct berth__progress *p,
                       double factor)
{
    int any = 0;
    for (size_t i = 0; i < e->njobs; i++) {
        struct berth__job *j = &e->jobs[i];
        if (!j->limit_us && factor > 0) {
            double lim = (double)j->est_us * factor;
            j->limit_us = lim >= (double)BERTH_MAX_TIME_US ? BERTH_MAX_TIME_US
                          : lim < 1                        ? 1
                                                           : (berth_us)(lim + 0.999999);
        }
        any |= j->limit_us > 0;
    }
    if (!any)
        return 0;
    l->p = p;
    if (berth__events_init(&l->ev, e->njobs))
        return -1;
    e->exec = (struct berth__engine_exec){l, lim_start, lim_stop, lim_migrate};
    return 1;
}

/* When job i is admitted, with round_end the end of the round under way (rounds that end
 * early; BERTH_TIME_NONE when none is: the arrival starts one). An arrival after that end
 * answers its own time, which comes after the end: the end's pass sets the next. */
static berth_us admit_time(const struct berth__engine *e, size_t i, const struct timing *tm,
                           berth_us round_end)
{
    berth_us a = e->jobs[i].spec->arrival_us;
    if (!tm->admit)
        return a;
    if (!tm->early)
        return boundary_at_or_after(a, tm->round);
    return round_end != BERTH_TIME_NONE && a <= round_end ? round_end : a;
}

/* Whether settings string s gives key. */
static int has_key(const char *s, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = s; p && *p; p = strchr(p, ','), p = p ? p + 1 : NULL) {
        p += strspn(p, " ");
        if (!strncmp(p, key, k) && (p[k] == '=' || p[k] == ' '))
            return 1;
    }
    return 0;
}

/* Whether the policy has a setting named key. */
static int policy_has(const struct berth__policy_ops *ops, const char *key)
{
    for (size_t i = 0; ops && i < ops->nsettings; i++)
        if (!strcmp(ops->settings[i].key, key))
            return 1;
    return 0;
}

/* The policy's settings string: the caller's, then the settings the options carry as fields
 * (--queue-limits, --loan-headroom), which only their policies take, then the mode's preset
 * quirks the policy has and the caller did not set. */
static int settings_of(const struct berth_sim_opts *o, char *buf, size_t len, struct berth_err *err)
{
    size_t n = (size_t)snprintf(buf, len, "%s", o->policy_settings ? o->policy_settings : "");
    char num[32];
    const struct berth__policy_ops *ops = berth__policy_lookup(o->policy);
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        if (presets[i].mode == o->mode && policy_has(ops, presets[i].key) &&
            !has_key(o->policy_settings, presets[i].key))
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s=%s", n ? "," : "",
                                  presets[i].key, presets[i].value);
    if (o->nqueue_limits > 0 && o->nqueue_limits <= 8) {
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%squeue_limits=", n ? "," : "");
        for (int i = 0; i < o->nqueue_limits; i++)
            n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? ":" : "",
                                  berth__fmt_us(num, o->queue_limits_us[i]));
    }
    if (o->loan_headroom_milli)
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%sloan_headroom=%d.%d", n ? "," : "",
                              o->loan_headroom_milli > 0 ? o->loan_headroom_milli / 10 : 0,
                              o->loan_headroom_milli > 0 ? o->loan_headroom_milli % 10 : 0);
    if (n >= len)
        return berth_err_set(err, BERTH_EINPUT, "policy settings: longer than %zu bytes", len - 1);
    return 0;
}

_Static_assert(sizeof(struct berth_job_result) <= sizeof(struct berth__job),
               "a job's result is written over its engine record");

/* Per-job results and FTF, once every job is done. They are written over the engine's job
 * records, which the run no longer needs (result i lies below record i, so each record is
 * read before anything is written over it): the results cost no memory of their own.
 * active[i] is the integral of active jobs over job i's life (arrival to finish). */
static int finish_results(struct berth_sim_result *out, struct berth__engine *e,
                          struct berth__progress *p, const struct timing *tm, const double *active,
                          const struct berth_cluster *c)
{
    size_t n = e->njobs;
    int32_t total = berth_cluster_gpus(c);
    unsigned char *buf = (unsigned char *)berth__engine_take_jobs(e);
    for (size_t i = 0; i < n; i++) {
        struct berth__job jc;
        memcpy(&jc, buf + i * sizeof jc, sizeof jc);
        const struct berth__job *j = &jc;
        struct berth__retired left = berth__progress_retired(p, i); /* every i, in order */
        berth_us fin = tm->jct ? j->finish : left.work_end;
        if (fin == BERTH_TIME_NONE || fin > j->finish)
            fin = j->finish;
        struct berth_job_result res, *r = &res;
        *r = (struct berth_job_result){
            .spec = j->spec,
            .first_start_us = j->first_start,
            .finish_us = fin,
            .run_us = j->run_us,
            .preemptions = j->preemptions,
            .gpu_type = j->type,
            .servers = j->servers,
            .span = c->topo && j->first_start != BERTH_TIME_NONE ? (int32_t)j->span : -1,
            .restarts = left.restarts,
            .restart_lost_us = left.lost,
            .iso_us = j->est_us,
            .by_steps = p->steps[i],
            .resizes = j->resizes,
            .gpu_us = j->gpu_us,
            .limit_us = j->limit_us,
            .timed_out = j->timed_out};
        /* Themis' fair share: 1/N of the cluster, N the average number of active jobs over
         * the job's life; a gang smaller than its share runs as fast as alone */
        /* it held its GPUs from its work's end to the release (round modes): not running */
        berth_us held = j->run_us - (j->finish - fin);
        r->wait_us = fin == BERTH_TIME_NONE ? BERTH_TIME_NONE
                                            : fin - j->spec->arrival_us - (held > 0 ? held : 0);
        berth_us life = j->finish - j->queued_us; /* from its admission */
        double nbar = life > 0 ? active[i] / (double)life : 1.0;
        double g = j->gpus ? (double)j->gpus * j->share / 1000.0 : 0.0;
        double slow = total > 0 && nbar * g > total ? nbar * g / total : 1.0;
        r->ftf_rho = r->iso_us > 0 ? (double)(fin - j->spec->arrival_us) / (r->iso_us * slow) : 0;
        memcpy(buf + i * sizeof res, &res, sizeof res);
    }
    /* kept at the records' size: the run's peak is behind it (the per-job state goes next) */
    if (!n)
        free(buf);
    out->jobs = n ? (struct berth_job_result *)(void *)buf : calloc(1, sizeof *out->jobs);
    out->njobs = n;
    return out->jobs ? 0 : -1;
}

int berth_sim_run(const struct berth_trace *t, const struct berth_cluster *c,
                  const struct berth_sim_opts *o, struct berth_sim_result *out,
                  struct berth_err *err)
{
    double wall0 = wall_now();
    memset(out, 0, sizeof *out);
    struct timing tm = {0};
    int rc = resolve_timing(o, &tm, err);
    if (rc || (rc = berth_trace_check(t, c, err)))
        return rc;
    size_t n = berth_trace_count(t);
    const struct berth_jobspec *specs = berth_trace_jobs(t);
    struct berth_topo_model trate_v;
    const struct berth_topo_model *trate = NULL;
    if (berth_cluster_has_topology(c)) {
        int typed = 0; /* a job type's own --spread-penalty TYPE=F */
        for (size_t k = 0; o->tput && k < berth_tput_class_count(o->tput); k++)
            typed |= berth__tput_spread_factor(o->tput, (int)k) > 0;
        if (o->spread_factor > 0 || typed)
            return berth_err_set(err, BERTH_EINPUT,
                                 "--spread-penalty: the cluster has a topology, whose rate by "
                                 "the level a gang spans replaces it (see --topology-model)");
        berth__topo_rate_default(&trate_v);
        trate = o->topology_model ? o->topology_model : &trate_v;
    } else if (o->topology_model) {
        return berth_err_set(err, BERTH_EINPUT,
                             "--topology-model: the cluster has no topology (give racks=, "
                             "blocks=, nvl= or a cluster file with racks)");
    }
    struct berth__engine *e = NULL;
    struct berth__progress p = {0};
    struct limits lim = {0};
    int has_lim = 0;
    uint32_t *ord = malloc((n ? n : 1) * sizeof *ord);
    int64_t *arrival = malloc((n ? n : 1) * sizeof *arrival);
    double *act_arr = calloc(n ? n : 1, sizeof *act_arr);
    if (!ord || !arrival || !act_arr) {
        rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
        goto done;
    }
    char settings[1024];
    if ((rc = settings_of(o, settings, sizeof settings, err)))
        goto done;
    struct berth__params params = {.seed = o->seed,
                                   .quantum_us = o->quantum_us,
                                   .round_us = tm.round ? tm.round : o->round_us,
                                   .round_passes = tm.early,
                                   .min_realloc_us = tm.min_realloc,
                                   .restart_us = o->restart_us,
                                   .restart_tiers = o->restart_tiers,
                                   .settings = settings,
                                   .queues = o->queues};
    const char *placement = o->placement ? o->placement : mode_defaults[o->mode].placement;
    if ((rc = berth__engine_create(c, o->policy, placement, &params, NULL, &e, err)) ||
        (rc = berth__engine_set_tput(e, o->tput, err)))
        goto done;
    berth__engine_set_spread(e, &tm.sp);
    berth__engine_set_spread_wait(e, tm.wait);
    /* progress.c sets a rate at a start only; rounds that end early re-spread steps */
    berth__engine_set_stable_ends(e, !tm.early);
    berth__engine_set_check(e, o->check_invariants);
    berth__engine_set_metric(e, berth__curve_job_metric, NULL); /* from the class's curve */
    snprintf(out->policy, sizeof out->policy, "%s", e->ops->name);
    snprintf(out->placement, sizeof out->placement, "%s",
             berth_placement_name((size_t)e->params.placement));
    snprintf(out->mode, sizeof out->mode, "%s", berth_sim_mode_name(o->mode));
    for (size_t i = 0; i < n; i++) /* arrival order, then file order */
        arrival[i] = specs[i].arrival_us;
    if (berth__sort_index_i64(arrival, ord, n)) {
        rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
        goto done;
    }
    free(arrival);
    arrival = NULL;
    for (size_t i = 0; i < n; i++) {
        uint32_t idx;
        if ((rc = berth__engine_add(e, &specs[ord[i]], &idx, err)))
            goto done;
    }
    free(ord);
    ord = NULL;
    berth__engine_set_topo_rate(e, trate);
    if ((rc = berth__progress_init(&p, e, o, tm.fixed, &tm.sp,
                                   tm.release && !tm.early ? tm.round : 0, berth_trace_path(t),
                                   err)))
        goto done;
    if ((tm.early && berth__progress_use_ends(&p, tm.release)) ||
        (tm.whole && berth__progress_use_whole_steps(&p))) {
        rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
        goto done;
    }
    uint32_t bad;
    if ((rc = berth__engine_check(e, &bad, err))) { /* the policy refuses a job: bad input */
        char why[BERTH_ERR_MSG_MAX];
        snprintf(why, sizeof why, "%s", err->msg);
        rc = berth_err_set(err, rc, "%s:%u: job %s: %s", berth_trace_path(t),
                           e->jobs[bad].spec->line, e->jobs[bad].spec->id, why);
        goto done;
    }
    p.flat = tm.flat;
    has_lim = limits_init(&lim, e, &p, o->time_limit_factor);
    if (has_lim < 0) {
        rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
        goto done;
    }

    size_t next = 0, series_cap = 0, events_cap = 0;
    uint64_t ev_last[3] = {0, 0, 0}, steps = 0;
    berth_us now = n ? admit_time(e, 0, &tm, BERTH_TIME_NONE) : 0;
    struct berth__drive drive;
    if (tm.early)
        berth__drive_init_ends(&drive);
    else
        berth__drive_init(&drive, tm.round);
    double busy_integral = 0, active_integral = 0;
    uint64_t events = 0;
    struct pools pl = {.short_since = BERTH_TIME_NONE};
    if (o->infer && (rc = pools_init(&pl, e, o->infer, now, err)))
        goto done;
    struct berth__stall stall;
    berth__stall_init(&stall);
    struct berth__frag_sample fs;
    const int frag_on = e->cluster->topo != NULL; /* a flat cluster does no work for it */
    berth__frag_sample_init(&fs);
    for (;;) {
        berth_us tnext = BERTH_TIME_NONE;
        const struct berth__ev *top = berth__events_top(&p.ev);
        if (next < n)
            tnext = admit_time(e, next, &tm, drive.next);
        if (top && (tnext == BERTH_TIME_NONE || top->t < tnext))
            tnext = top->t;
        const struct berth__ev *ltop = has_lim ? berth__events_top(&lim.ev) : NULL;
        if (ltop && (tnext == BERTH_TIME_NONE || ltop->t < tnext))
            tnext = ltop->t;
        if (drive.next != BERTH_TIME_NONE && (tnext == BERTH_TIME_NONE || drive.next < tnext))
            tnext = drive.next;
        berth_us tinf = o->infer && (next < n || e->npending || e->nrunning)
                            ? berth_infer_next(o->infer, now)
                            : BERTH_TIME_NONE;
        if (tinf != BERTH_TIME_NONE && (tnext == BERTH_TIME_NONE || tinf < tnext))
            tnext = tinf;
        if (tnext == BERTH_TIME_NONE)
            break;
        busy_integral += (double)(berth__cluster_busy_milli(e->cluster) -
                                  1000 * (int64_t)e->cluster->reserved_gpus) /
                         1000.0 * (double)(tnext - now);
        active_integral += (double)(e->npending + e->nrunning) * (double)(tnext - now);
        if (o->infer)
            pools_advance(&pl, e, o->infer, now, tnext);
        now = tnext;
        events += tinf == now;
        if (tinf == now)
            berth__drive_touch(&drive); /* the inference demand moved */
        while ((top = berth__events_top(&p.ev)) && top->t == now) {
            uint32_t j = top->job;
            events++;
            berth__progress_finish(&p, &e->jobs[j], now);
            if (berth__progress_retire(&p, &e->jobs[j], now)) {
                rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
                goto done;
            }
            if (has_lim)
                berth__events_remove(&lim.ev, j);
            act_arr[j] = active_integral - act_arr[j]; /* over its life, from now on */
            if ((rc = berth__engine_finish(e, j, now, err)))
                goto done;
            berth__drive_touch(&drive);
        }
        /* then the jobs that reach their time limit now (work done at the very instant wins) */
        while (has_lim && (top = berth__events_top(&lim.ev)) && top->t == now) {
            uint32_t j = top->job;
            events++;
            berth__events_remove(&lim.ev, j);
            berth__progress_stop(&p, &e->jobs[j], now);
            if (berth__progress_retire(&p, &e->jobs[j], now)) {
                rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
                goto done;
            }
            e->jobs[j].timed_out = 1;
            act_arr[j] = active_integral - act_arr[j]; /* over its life, from now on */
            if ((rc = berth__engine_finish(e, j, now, err)))
                goto done;
            berth__drive_touch(&drive);
        }
        while (next < n && admit_time(e, next, &tm, drive.next) == now) {
            events++;
            act_arr[next] = active_integral;
            if ((rc = berth__engine_arrive(e, (uint32_t)next++, now, err)))
                goto done;
            berth__drive_touch(&drive);
        }
        events += drive.next == now;
        int ran = 0;
        if ((rc = berth__drive_step(&drive, e, now, &ran, err)))
            goto done;
        if (tm.early && ran) /* the round this pass started, and its end */
            berth__drive_set_end(&drive, e->npending || e->nrunning
                                             ? berth__progress_round(&p, now, tm.round, 1)
                                             : BERTH_TIME_NONE);
        if (o->infer)
            pools_check(&pl, e, now);
        if (p.ev.oom || (has_lim && lim.ev.oom)) {
            rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
            goto done;
        }
        if (p.failed) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "sim: a job got a rate of 0 at t=%lld us (a GPU type or gang "
                               "size the throughput model cannot run)",
                               (long long)now);
            goto done;
        }
        if (o->record_series && (record(out, &series_cap, now, e) ||
                                 record_events(out, &events_cap, now, e, ev_last))) {
            rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
            goto done;
        }
        if (frag_on)
            berth__frag_sample_step(&fs, e->cluster, now);
        if (o->progress && !(++steps & 4095))
            o->progress(o->progress_ctx, (double)e->ndone, (double)n, "jobs");
        /* an idle spell that can never end (sim/stall.h) */
        int idle = e->nrunning == 0 && e->npending > 0 && next >= n && !berth__events_top(&p.ev) &&
                   !(has_lim && berth__events_top(&lim.ev));
        int settled =
            !o->infer || o->infer->diurnal || berth_infer_next(o->infer, now) == BERTH_TIME_NONE;
        rc = berth__stall_step(&stall, e, idle, ran, settled,
                               o->infer && o->infer->diurnal ? o->infer->period : 0, now, err);
        if (rc) {
            if (rc > 0)
                rc = berth__stall_fail(&stall, e, now, 0, err);
            goto done;
        }
    }
    if (o->progress)
        o->progress(o->progress_ctx, (double)e->ndone, (double)n, "jobs");
    if (e->ndone != n) { /* no event is to come: the pending jobs can never start */
        rc = e->nrunning || !e->npending
                 ? berth_err_set(err, BERTH_EINTERNAL,
                                 "sim: no event to come at t=%lld us with %zu of %zu jobs done "
                                 "(%zu running, %zu pending)",
                                 (long long)now, e->ndone, n, e->nrunning, e->npending)
                 : berth__stall_fail(&stall, e, now, 1, err);
        goto done;
    }
    /* the per-job state goes before the aggregates sort their copies of the figures */
    if (finish_results(out, e, &p, &tm, act_arr, c)) {
        rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
        goto done;
    }
    berth__progress_free_jobs(&p);
    free(act_arr);
    act_arr = NULL;
    if (berth__summarise(out, busy_integral, p.type_gpu_us, c)) {
        rc = berth_err_set(err, BERTH_ENOMEM, "sim: out of memory");
        goto done;
    }
    if (frag_on)
        berth__frag_sample_end(&fs, now, &out->summary);
    out->summary.preemptions = e->preemptions;
    out->summary.migrations = e->migrations;
    out->summary.resizes = e->resizes;
    out->summary.passes = e->passes;
    out->summary.events = events;
    if (o->infer)
        pools_summarise(&pl, e, c, &out->summary);
done:
    if (has_lim > 0)
        berth__events_free(&lim.ev);
    berth__progress_free(&p);
    berth__engine_destroy(e);
    free(ord);
    free(arrival);
    free(act_arr);
    if (rc)
        berth_sim_result_free(out);
    else
        out->summary.wall_s = wall_now() - wall0;
    return rc;
}

void berth_sim_result_free(struct berth_sim_result *r)
{
    free(r->jobs);
    free(r->series);
    free(r->events);
    free(r->by_user);
    free(r->by_queue);
    for (size_t i = 0; r->by_type && i < r->nby_type; i++)
        free((char *)r->by_type[i].name);
    free(r->by_type);
    r->jobs = NULL;
    r->series = NULL;
    r->events = NULL;
    r->nevents = 0;
    r->by_user = r->by_queue = r->by_type = NULL;
    r->njobs = r->nseries = r->nby_user = r->nby_queue = r->nby_type = 0;
}
