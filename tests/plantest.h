/* Helpers of the plan and placement tests (tests/sched/): clusters parsed and verified, a
 * job outside any engine, a job's GPUs as text, a partly busy cluster. */
#ifndef BERTH_TESTS_PLANTEST_H
#define BERTH_TESTS_PLANTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/cluster.h"
#include "model/alloc.h"
#include "sched/plan.h"

#include "jobspec_make.h"

static inline struct berth_cluster *parse_ok(const char *spec)
{
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    int rc = berth_cluster_parse(spec, &c, &err);
    if (rc)
        fprintf(stderr, "  berth_cluster_parse(%s): %s\n", spec, err.msg);
    CHECK_I64(rc, 0);
    return rc ? NULL : c;
}

static inline void verify_ok(const struct berth_cluster *c)
{
    struct berth_err err = {0};
    int rc = berth__cluster_verify(c, &err);
    if (rc)
        fprintf(stderr, "  verify: %s\n", err.msg);
    CHECK_I64(rc, 0);
}

struct pjob {
    struct berth_jobspec spec;
    struct berth__job job;
};

static inline void pjob_init(struct pjob *p, uint32_t idx, const char *id, int32_t gpus, int single,
                             int want_type)
{
    memset(p, 0, sizeof *p);
    p->spec.id = id;
    jobspec_x(&p->spec)->job_type = jobspec_x(&p->spec)->user = p->spec.queue =
        jobspec_x(&p->spec)->gpu_type = "";
    p->spec.num_gpus = p->spec.min_gpus = p->spec.max_gpus = gpus;
    p->spec.gpu_share_milli = 1000;
    p->spec.duration_us = 100 * BERTH_US_PER_S;
    p->spec.single_server = (uint8_t)single;
    berth__job_init(&p->job, &p->spec, idx, NULL);
    p->job.state = BERTH_JOB_PENDING;
    p->job.type_mask = want_type >= 0 ? UINT64_C(1) << want_type : 0;
}

static inline int cmp_slot(const void *a, const void *b)
{
    const struct berth__slot *x = a, *y = b;
    if (x->server != y->server)
        return x->server < y->server ? -1 : 1;
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

/* A job's GPUs, sorted: "2:0 2:1 0:6" style ("server:gpu", by server then GPU). */
static inline const char *slots_of(const struct berth__job *j)
{
    static char buf[1024];
    struct berth__slot s[128];
    int32_t n = j->spec->num_gpus;
    if (!j->slots || n > 128)
        return "(none)";
    memcpy(s, j->slots, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_slot);
    size_t o = 0;
    buf[0] = '\0';
    for (int32_t k = 0; k < n && o < sizeof buf - 24; k++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%u:%u", k ? " " : "", s[k].server,
                              s[k].gpu);
    return buf;
}

/* The busy state shared by the placement cases: four 8-GPU servers with 2, 5, 8 and 4 idle
 * GPUs (the highest-numbered GPUs of each server idle). */
static inline struct berth_cluster *partly_busy(void)
{
    struct berth_cluster *c = parse_ok("4x8:v100");
    if (!c)
        return NULL;
    berth__cluster_take_mask(c, 0, 0x3f); /* 2 idle: GPUs 6,7 */
    berth__cluster_take_mask(c, 1, 0x07); /* 5 idle: GPUs 3..7 */
    berth__cluster_take_mask(c, 3, 0x0f); /* 4 idle: GPUs 4..7 */
    verify_ok(c);
    return c;
}

/* The servers in bucket (t, f), in list order: "0,2,3" ("" when empty). */
static inline const char *bucket(const struct berth_cluster *c, size_t t, int f)
{
    static char buf[256];
    size_t o = 0;
    buf[0] = '\0';
    if (f > c->types[t].max_per_server)
        return buf;
    for (int32_t s = c->types[t].head[f]; s >= 0 && o < sizeof buf - 16; s = c->srv[s].next)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%d", o ? "," : "", (int)s);
    return buf;
}

#endif
