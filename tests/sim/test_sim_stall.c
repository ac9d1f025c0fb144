/* The stall rule (sim/stall.h): for every policy and every placement of the registries, in every
 * time mode, a random small trace with one job that can never start ends with BERTH_ESTALLED
 * naming that job and why, within a bound of simulated time and of wall time (an alarm fails a
 * run that hangs); the same trace without that job runs to the end. And waits on a policy's own
 * clock with the cluster idle (Gavel's re-solve interval) are not stalls. */
#include <signal.h>

#include "sim/stall.h" /* BERTH__STALL_IDLE_US: how long a spell the policy holds may last */
#include "simtest.h"
#include "util/rng.h"

/* 4 servers of 2 GPUs with 8 cores each: the impossible job asks for 64 cores, or (under
 * blox-consolidated, which places a gang only on a server with exactly its count idle) for a
 * gang of 4 */
#define CLUSTER_JSON                                                                               \
    "{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 2, \"cpus\": 8, \"count\": 4}]}"
#define RUN_ALARM_S 60 /* no run of these tiny traces takes a second */

static char hung[160];

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(2, hung, strlen(hung));
    (void)w;
    _exit(1);
}

/* The gangs every placement can eventually place on the cluster: the Salus policies run 1-GPU
 * jobs only; blox-consolidated places only a gang of a server's size on an idle cluster. */
static const int *gangs_for(const char *policy, const char *placement, int *n)
{
    static const int one[] = {1}, two[] = {2}, mixed[] = {1, 1, 1, 2, 4};
    if (!strncmp(policy, "salus-", 6)) {
        *n = 1;
        return one;
    }
    if (!strcmp(placement, "blox-consolidated")) {
        *n = 1;
        return two;
    }
    *n = 5;
    return mixed;
}

/* A random trace of n jobs; with_imp adds job IMP, which can never start, in the middle.
 * *bound_s: the last arrival plus all the work, a time by which every job could be done. */
static char *random_trace(uint64_t seed, int n, const char *policy, const char *placement,
                          int with_imp, double *bound_s)
{
    struct berth__rng r;
    berth__rng_seed(&r, seed);
    int ng;
    const int *gangs = gangs_for(policy, placement, &ng);
    size_t cap = (size_t)n * 64 + 256, len = 0;
    char *s = malloc(cap);
    len += (size_t)snprintf(s + len, cap - len, "job_id,arrival_s,duration_s,num_gpus,cpus\n");
    double t = 0, work = 0;
    for (int i = 0; i < n; i++) {
        t += berth__rng_unit(&r) < 0.3 ? 0 : berth__rng_exp(&r, 1.0 / 200);
        double d = 1 + berth__rng_unit(&r) * 1800;
        work += d;
        len += (size_t)snprintf(s + len, cap - len, "j%d,%.3f,%.3f,%d,0\n", i, t, d,
                                gangs[berth__rng_below(&r, (uint64_t)ng)]);
        if (with_imp && i == n / 2) {
            int gang4 = !strcmp(placement, "blox-consolidated") && strncmp(policy, "salus-", 6);
            len += (size_t)snprintf(s + len, cap - len, "IMP,%.3f,100,%d,%d\n", t, gang4 ? 4 : 1,
                                    gang4 ? 0 : 64);
        }
    }
    *bound_s = t + work;
    return s;
}

/* The time a stall message names (t=... s), or -1. */
static double stall_time(const char *msg)
{
    const char *p = strstr(msg, "stalled at t=");
    double t = -1;
    return p && sscanf(p + strlen("stalled at t="), "%lf", &t) == 1 ? t : -1;
}

static void one(const char *cluster, const char *pol, const char *place, int mode, uint64_t seed)
{
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = pol;
    o.placement = place;
    o.mode = mode;
    o.seed = seed;
    for (int with_imp = 0; with_imp <= 1; with_imp++) {
        double bound;
        char *csv = random_trace(seed, 24, pol, place, with_imp, &bound);
        struct simtest st;
        struct berth_err err = {0};
        snprintf(hung, sizeof hung, "test_sim_stall: %s/%s mode %s seed %llu%s hung\n", pol, place,
                 berth_sim_mode_name(mode), (unsigned long long)seed, with_imp ? " with IMP" : "");
        alarm(RUN_ALARM_S);
        int rc = simtest_run_opts(csv, cluster, &o, &st, &err);
        alarm(0);
        int ok;
        if (!with_imp) {
            ok = rc == 0 && st.r.summary.completed == st.r.njobs;
        } else {
            /* the reason: no server has its 64 cores, or the placement finds no GPUs for it */
            const char *why = strcmp(place, "blox-consolidated") || !strncmp(pol, "salus-", 6)
                                  ? "no server can hold"
                                  : "placement blox-consolidated";
            /* a policy that holds placeable jobs behind IMP is given a spell of
             * BERTH__STALL_IDLE_US; blox-las' starvation guard may start some of them 1000 h
             * into one (they then run, and a new spell begins) */
            double t = stall_time(err.msg);
            ok = rc == BERTH_ESTALLED && strstr(err.msg, "IMP (") && strstr(err.msg, why) &&
                 t >= 0 && t <= bound + 2.0 * (double)BERTH__STALL_IDLE_US / 1e6;
        }
        if (!ok)
            fprintf(stderr, "  %s/%s mode %s seed %llu%s: rc %d: %s\n", pol, place,
                    berth_sim_mode_name(mode), (unsigned long long)seed,
                    with_imp ? " with IMP" : "", rc, rc ? err.msg : "not every job completed");
        CHECK(ok);
        if (!rc)
            simtest_free(&st);
        free(csv);
    }
}

static void every_policy_placement_mode(void)
{
    const char *cluster = simtest_write_named(CLUSTER_JSON, ".json");
    char cpath[80];
    snprintf(cpath, sizeof cpath, "%s", cluster);
    signal(SIGALRM, on_alarm);
    for (size_t p = 0; p < berth_policy_count(); p++)
        for (size_t pl = 0; pl < berth_placement_count(); pl++)
            for (int mode = 0; berth_sim_mode_name(mode); mode++)
                for (uint64_t seed = 1; seed <= 2; seed++)
                    one(cpath, berth_policy_name(p), berth_placement_name(pl), mode, seed);
    unlink(cpath);
}

/* Gavel's rounds re-solve their allocation at most every --min-realloc (1920 s in gavel mode):
 * B and C, arriving on an idle cluster at 500 and 510 s, wait with the cluster idle through
 * several rounds for the re-solve, and start at 2300 s, as they did before the stall rule (the
 * spell is probed, B fits, and the run goes on untouched). */
static void clock_waits_are_not_stalls(void)
{
    static const char *csv = "job_id,arrival_s,duration_s,num_gpus\n"
                             "A,0,100,1\n"
                             "B,500,100,1\n"
                             "C,510,100,2\n";
    const char *pols[] = {"gavel-max-min", "gavel-fifo", "themis-ftf"};
    for (size_t i = 0; i < sizeof pols / sizeof *pols; i++) {
        struct berth_sim_opts o;
        berth_sim_opts_init(&o);
        o.policy = pols[i];
        o.mode = BERTH_MODE_GAVEL;
        struct simtest st;
        struct berth_err err = {0};
        int rc = simtest_run_opts(csv, "2x4:v100", &o, &st, &err);
        CHECK_I64(rc, 0);
        if (rc) {
            fprintf(stderr, "  %s: %s\n", pols[i], err.msg);
            continue;
        }
        CHECK_I64(st.r.summary.completed, 3);
        const struct berth_job_result *b = simtest_job(&st.r, "B"), *c = simtest_job(&st.r, "C");
        CHECK(b && c);
        if (b && c) {
            CHECK_I64(b->first_start_us, 2300 * BERTH_US_PER_S);
            CHECK_I64(c->first_start_us, 2300 * BERTH_US_PER_S);
            CHECK_I64(b->finish_us, 2400 * BERTH_US_PER_S);
        }
        simtest_free(&st);
    }
}

static const struct check_test tests[] = {
    {"every_policy_placement_mode", every_policy_placement_mode},
    {"clock_waits_are_not_stalls", clock_waits_are_not_stalls},
};

CHECK_MAIN(tests)
