/* Helpers shared by the simulator tests: run a trace given as CSV text on a cluster spec,
 * and find a job's result by id. */
#ifndef BERTH_TESTS_SIMTEST_H
#define BERTH_TESTS_SIMTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "berth/berth.h"
#include "check.h"

/* Writes text to a fresh temporary file; returns its path (static buffer). */
static inline const char *simtest_write(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/berth-simtest-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* Writes text to a fresh temporary file whose name ends in suffix; returns its path (a
 * static buffer of its own). */
static inline const char *simtest_write_named(const char *text, const char *suffix)
{
    static char path[80];
    snprintf(path, sizeof path, "/tmp/berth-simtest-XXXXXX%s", suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* A finished run: the result points into the trace's job specs, so both live together. */
struct simtest {
    struct berth_trace *t;
    struct berth_sim_result r;
};

/* Runs csv on cluster with options o (invariant checks and the series are turned on).
 * Returns 0 and fills st (free it with simtest_free), or the error code (err filled). */
static inline int simtest_run_opts(const char *csv, const char *cluster,
                                   const struct berth_sim_opts *o, struct simtest *st,
                                   struct berth_err *err)
{
    const char *path = simtest_write(csv);
    struct berth_cluster *c = NULL;
    memset(st, 0, sizeof *st);
    int rc = berth_cluster_parse(cluster, &c, err);
    if (!rc)
        rc = berth_trace_load(path, "native", &st->t, err);
    if (!rc) {
        struct berth_sim_opts oo = *o;
        oo.check_invariants = 1;
        oo.record_series = 1;
        rc = berth_sim_run(st->t, c, &oo, &st->r, err);
    }
    unlink(path);
    berth_cluster_free(c);
    if (rc) {
        berth_trace_free(st->t);
        st->t = NULL;
    }
    return rc;
}

/* Runs csv on cluster under policy (placement NULL = default), other options default. */
static inline int simtest_run(const char *csv, const char *cluster, const char *policy,
                              const char *placement, struct simtest *st, struct berth_err *err)
{
    struct berth_sim_opts o;
    berth_sim_opts_init(&o);
    o.policy = policy;
    o.placement = placement;
    return simtest_run_opts(csv, cluster, &o, st, err);
}

static inline void simtest_free(struct simtest *st)
{
    berth_sim_result_free(&st->r);
    berth_trace_free(st->t);
    st->t = NULL;
}

static inline const struct berth_job_result *simtest_job(const struct berth_sim_result *r,
                                                         const char *id)
{
    for (size_t i = 0; i < r->njobs; i++)
        if (!strcmp(r->jobs[i].spec->id, id))
            return &r->jobs[i];
    return NULL;
}

#endif
