/* The summary's fragmentation per topology level (sim/frag_sample.c), hand-computed, and
 * its absence on a flat cluster.
 *
 * 2x8:h100,racks=2 (one server per rack, so nvlink = node = rack; no blocks). A (4 GPUs)
 * runs 0..7200 s on one server, B (8) 3600..7200 s on the other.
 *   0..3600:    idle 4 + 8 = 12, 4 of them in A's server (not wholly idle): 1/3; 1 whole.
 *   3600..7200: idle 4, all in A's server: 1; none whole.
 * Over the 7200 s: idle_in_partial (1/3 + 1) / 2 = 2/3, whole_idle_domains 1/2. With C
 * (1 GPU, 3650..3750 s) added the answer is the same: the state is measured at most every
 * 300 simulated seconds, and C comes and goes between two measures. */
#include "simtest.h"

static void golden(void)
{
    static const char *const csv[] = {
        "job_id,arrival_s,duration_s,num_gpus\nA,0,7200,4\nB,3600,3600,8\n",
        "job_id,arrival_s,duration_s,num_gpus\nA,0,7200,4\nB,3600,3600,8\nC,3650,100,1\n",
    };
    for (size_t i = 0; i < sizeof csv / sizeof *csv; i++) {
        struct simtest st;
        struct berth_err err = {0};
        int rc = simtest_run(csv[i], "2x8:h100,racks=2", "fifo", NULL, &st, &err);
        CHECK_I64(rc, 0);
        if (rc) {
            fprintf(stderr, "  %s\n", err.msg);
            continue;
        }
        const struct berth_sim_summary *s = &st.r.summary;
        CHECK_I64(s->has_topology, 1);
        for (int l = BERTH_TOPO_NVLINK; l <= BERTH_TOPO_RACK; l++) {
            CHECK_I64(s->frag_level[l], 1);
            CHECK_DBL(s->frag_idle_in_partial[l], 2.0 / 3, 1e-12);
            CHECK_DBL(s->frag_whole_idle[l], 0.5, 1e-12);
        }
        CHECK_I64(s->frag_level[BERTH_TOPO_BLOCK], 0);   /* no blocks= */
        CHECK_I64(s->frag_level[BERTH_TOPO_CLUSTER], 0); /* never measured */
        simtest_free(&st);
    }
}

/* Two racks of two servers, in two blocks: rack and block differ from node. A (8 GPUs,
 * required node) fills one server for its whole run (the only job), so at every level
 * below block one domain is busy and the 24 idle GPUs are: node 0 stranded, 3 whole; rack
 * 8/24 stranded (A's rack-mate), 1 whole; block (one rack each) the same as rack. */
static void levels(void)
{
    struct simtest st;
    struct berth_err err = {0};
    int rc = simtest_run("job_id,arrival_s,duration_s,num_gpus\nA,0,1000,8\n",
                         "4x8:h100,racks=2,blocks=2", "fifo", NULL, &st, &err);
    CHECK_I64(rc, 0);
    if (rc) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    const struct berth_sim_summary *s = &st.r.summary;
    CHECK_DBL(s->frag_idle_in_partial[BERTH_TOPO_NODE], 0, 1e-12);
    CHECK_DBL(s->frag_whole_idle[BERTH_TOPO_NODE], 3, 1e-12);
    CHECK_DBL(s->frag_idle_in_partial[BERTH_TOPO_RACK], 8.0 / 24, 1e-12);
    CHECK_DBL(s->frag_whole_idle[BERTH_TOPO_RACK], 1, 1e-12);
    CHECK_I64(s->frag_level[BERTH_TOPO_BLOCK], 1);
    CHECK_DBL(s->frag_idle_in_partial[BERTH_TOPO_BLOCK], 8.0 / 24, 1e-12);
    CHECK_DBL(s->frag_whole_idle[BERTH_TOPO_BLOCK], 1, 1e-12);
    simtest_free(&st);
}

/* Islands of 4 inside servers (2x8:h100,racks=1,nvl=4): A (2 GPUs, within one island) is
 * the only job. nvlink: 4 islands, 14 idle GPUs, A's island's 2 not wholly idle: 1/7, 3
 * whole islands; node: A's server's 6 idle: 6/14, 1 whole server. */
static void islands(void)
{
    struct simtest st;
    struct berth_err err = {0};
    int rc = simtest_run("job_id,arrival_s,duration_s,num_gpus,topology\nA,0,1000,2,nvlink\n",
                         "2x8:h100,racks=1,nvl=4", "fifo", NULL, &st, &err);
    CHECK_I64(rc, 0);
    if (rc) {
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    const struct berth_sim_summary *s = &st.r.summary;
    CHECK_DBL(s->frag_idle_in_partial[BERTH_TOPO_NVLINK], 1.0 / 7, 1e-12);
    CHECK_DBL(s->frag_whole_idle[BERTH_TOPO_NVLINK], 3, 1e-12);
    CHECK_DBL(s->frag_idle_in_partial[BERTH_TOPO_NODE], 6.0 / 14, 1e-12);
    CHECK_DBL(s->frag_whole_idle[BERTH_TOPO_NODE], 1, 1e-12);
    simtest_free(&st);
}

static void flat(void)
{
    struct simtest st;
    struct berth_err err = {0};
    int rc = simtest_run("job_id,arrival_s,duration_s,num_gpus\nA,0,7200,4\nB,3600,3600,8\n",
                         "2x8:h100", "fifo", NULL, &st, &err);
    CHECK_I64(rc, 0);
    if (rc)
        return;
    CHECK_I64(st.r.summary.has_topology, 0);
    simtest_free(&st);
}

static const struct check_test tests[] = {
    {"golden", golden},
    {"levels", levels},
    {"islands", islands},
    {"flat", flat},
};

CHECK_MAIN(tests)
