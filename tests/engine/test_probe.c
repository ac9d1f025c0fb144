/* Probes (engine/probe.h): whether a pending job could start alone on the cluster as it is,
 * by the run's placement or by consolidate, with the engine left exactly as it was (its
 * cluster's free GPUs, bucket heads and generations, and its jobs). Cluster 2x4:v100. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "engine/probe.h"
#include "jobspec_make.h"

static struct berth_cluster *cl;
static struct berth_jobspec specs[8];

static struct berth__engine *mk(const char *placement)
{
    struct berth_err err = {0};
    struct berth__params p = {.quantum_us = BERTH_US_PER_S};
    struct berth__engine *e = NULL;
    if (!cl)
        CHECK(!berth_cluster_parse("2x4:v100", &cl, &err));
    CHECK(!berth__engine_create(cl, "fifo-skip", placement, &p, NULL, &e, &err));
    berth__engine_set_check(e, 1);
    return e;
}

static uint32_t add(struct berth__engine *e, int i, int gpus, int lo, int hi)
{
    struct berth_err err = {0};
    static char ids[8][8];
    snprintf(ids[i], sizeof ids[i], "j%d", i);
    specs[i] = jobspec_make(ids[i], 100, gpus, lo, hi);
    uint32_t idx = 0;
    CHECK(!berth__engine_add(e, &specs[i], &idx, &err));
    CHECK(!berth__engine_arrive(e, idx, 0, &err));
    return idx;
}

/* What a probe must leave as it was: every server's idle mask, count, gen and bucket links. */
struct snap {
    uint64_t mask[2];
    int32_t nfree[2], next[2], free;
    uint32_t gen[2];
};

static struct snap snap_of(const struct berth__engine *e)
{
    struct snap s = {.free = e->cluster->free};
    for (int k = 0; k < 2; k++) {
        s.mask[k] = e->cluster->srv[k].free_mask;
        s.nfree[k] = e->cluster->srv[k].nfree;
        s.next[k] = e->cluster->srv[k].next;
        s.gen[k] = e->cluster->srv[k].gen;
    }
    return s;
}

static int fits(struct berth__engine *e, uint32_t j, int by)
{
    struct berth_err err = {0};
    struct berth__probe pr;
    struct snap before = snap_of(e);
    struct berth__job copy = e->jobs[j];
    int rc = berth__probe_open(&pr, e, 0, &err);
    CHECK_I64(rc, 0);
    if (!rc)
        rc = berth__probe_fits(&pr, &e->jobs[j], by, &err);
    berth__probe_close(&pr);
    struct snap after = snap_of(e);
    CHECK(!memcmp(&before, &after, sizeof before));
    CHECK(!memcmp(&copy, &e->jobs[j], sizeof copy)); /* the job record too */
    CHECK_I64(berth__engine_verify(e, &err), 0);
    return rc;
}

/* blox-consolidated places a gang only on a server with exactly its count idle: on the idle
 * cluster a 4-GPU gang fits, 2 and 8 do not (consolidate places both, 8 across the two
 * servers); an elastic 8 (4..8) fits at its smallest. Once j0 holds server 0, a 2-GPU gang
 * still does not (server 1 has 4 idle), 8 not even consolidated, the elastic one at 4. */
static void test_blox_consolidated(void)
{
    struct berth_err err = {0};
    struct berth__engine *e = mk("blox-consolidated");
    uint32_t four = add(e, 0, 4, 4, 4), two = add(e, 1, 2, 2, 2), eight = add(e, 2, 8, 8, 8);
    uint32_t el = add(e, 3, 8, 4, 8);
    CHECK_I64(fits(e, four, BERTH_PROBE_RUN), 1);
    CHECK_I64(fits(e, two, BERTH_PROBE_RUN), 0);
    CHECK_I64(fits(e, two, BERTH_PROBE_CONSOLIDATE), 1);
    CHECK_I64(fits(e, eight, BERTH_PROBE_RUN), 0);
    CHECK_I64(fits(e, eight, BERTH_PROBE_CONSOLIDATE), 1);
    CHECK_I64(fits(e, el, BERTH_PROBE_RUN), 1);
    CHECK(!berth__engine_pass(e, 0, &err)); /* fifo-skip: j0 on server 0, the rest wait */
    CHECK_I64(e->jobs[four].state, BERTH_JOB_RUNNING);
    CHECK_I64(e->jobs[el].state, BERTH_JOB_PENDING); /* fifo-skip starts it at 8 */
    CHECK_I64(fits(e, two, BERTH_PROBE_RUN), 0);
    CHECK_I64(fits(e, two, BERTH_PROBE_CONSOLIDATE), 1);
    CHECK_I64(fits(e, eight, BERTH_PROBE_CONSOLIDATE), 0);
    CHECK_I64(fits(e, el, BERTH_PROBE_RUN), 1); /* 4 on server 1 */
    berth__engine_destroy(e);
}

/* A job asking 16 cores of servers with 8: no placement finds room even on the idle cluster;
 * its neighbour asking 4 fits. */
static void test_cpu(void)
{
    struct berth_cluster *c8 = NULL;
    struct berth_err err = {0};
    const char *path = "/tmp/berth-test-probe.json";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("{\"servers\": [{\"gpu_type\": \"v100\", \"gpus\": 2, \"cpus\": 8, \"count\": 2}]}", f);
    fclose(f);
    CHECK(!berth_cluster_parse(path, &c8, &err));
    unlink(path);
    struct berth__params p = {.quantum_us = BERTH_US_PER_S};
    struct berth__engine *e = NULL;
    CHECK(!berth__engine_create(c8, "las", NULL, &p, NULL, &e, &err));
    specs[6] = jobspec_make("big", 100, 1, 1, 1);
    jobspec_x(&specs[6])->cpu_milli = 16000;
    specs[7] = jobspec_make("ok", 100, 1, 1, 1);
    jobspec_x(&specs[7])->cpu_milli = 4000;
    uint32_t big, ok;
    CHECK(!berth__engine_add(e, &specs[6], &big, &err));
    CHECK(!berth__engine_add(e, &specs[7], &ok, &err));
    CHECK(!berth__engine_arrive(e, big, 0, &err));
    CHECK(!berth__engine_arrive(e, ok, 0, &err));
    CHECK_I64(fits(e, big, BERTH_PROBE_RUN), 0);
    CHECK_I64(fits(e, big, BERTH_PROBE_CONSOLIDATE), 0);
    CHECK_I64(fits(e, ok, BERTH_PROBE_RUN), 1);
    berth__engine_destroy(e);
    berth_cluster_free(c8);
}

static void test_cleanup(void)
{
    berth_cluster_free(cl);
    cl = NULL;
}

static const struct check_test tests[] = {
    {"blox_consolidated", test_blox_consolidated},
    {"cpu", test_cpu},
    {"cleanup", test_cleanup},
};

CHECK_MAIN(tests)
