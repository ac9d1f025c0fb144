/* Tests for the topology placement (src/sched/place_topo.c) and the plan's topology rules
 * (sched/plan.c): hand-computed cases on 4x8:h100,racks=2 (rack0 = servers 0 and 1, rack1 =
 * servers 2 and 3) in Kueue TAS's terms: a required rack gets the best-fit rack's servers in
 * rank order, waits (BERTH_NOFIT_TOPO) when no rack holds it, a preferred rack starts across
 * racks then, tp = 8 takes whole servers, tp = 4 keeps its groups inside nvl=4 islands, a
 * required nvlink level picks the best-fit island; whatever the run's placement, and exactly
 * consolidate without a topology. */
#include "plantest.h"
#include "model/topo.h"
#include "sched/frag.h"

/* Places a job of gpus GPUs (required / preferred level + 1, tp) on c under placement pl,
 * checks it got want ("" = it did not fit, with nofit), and frees c. */
static void place_case(struct berth_cluster *c, int pl, int32_t gpus, int req, int pref, int tp,
                       const char *want, int nofit)
{
    if (!c)
        return;
    struct pjob pj;
    pjob_init(&pj, 0, "j", gpus, 0, -1);
    struct berth_jobspec_extra *x = jobspec_x(&pj.spec);
    x->topo_required = (int8_t)req;
    x->topo_preferred = (int8_t)pref;
    x->tp = tp;
    struct berth__plan p;
    berth__plan_init(&p);
    struct berth__placement place;
    struct berth_err err = {0};
    CHECK_I64(berth__placement_open(berth_placement_name((size_t)pl), &place, &err), 0);
    CHECK_I64(berth__plan_open(&p, c, &pj.job, 1, 0, &place, 1, 0), 0);
    int rc = berth__plan_start(&p, 0, &err);
    if (!*want) {
        CHECK_I64(rc, BERTH_NOFIT);
        CHECK_I64(p.nofit, nofit);
        CHECK_I64(pj.job.state, BERTH_JOB_PENDING);
        if (nofit == BERTH_NOFIT_TOPO)
            CHECK_I64(berth__place_topo_blocks(c, &pj.job), 1);
    } else {
        CHECK_I64(rc, 0);
        int before = check_failures;
        CHECK_STR(slots_of(&pj.job), want);
        if (check_failures != before)
            fprintf(stderr, "  %d GPUs req %d pref %d tp %d under %s\n", gpus, req, pref, tp,
                    berth_placement_name((size_t)pl));
        char why[200];
        CHECK_I64(berth__place_topo_verify(c, &pj.job, why, sizeof why), 0);
    }
    verify_ok(c);
    berth__plan_free(&p);
    berth__placement_close(&place);
    free(pj.job.slots);
    berth_cluster_free(c);
}

/* 4x8:h100,racks=2 with the GPUs of mask busy on each server (bit g: GPU g busy). */
static struct berth_cluster *racks(const char *spec, uint64_t m0, uint64_t m1, uint64_t m2,
                                   uint64_t m3)
{
    struct berth_cluster *c = parse_ok(spec);
    if (!c)
        return NULL;
    const uint64_t m[4] = {m0, m1, m2, m3};
    for (uint32_t s = 0; s < 4 && s < c->nsrv; s++)
        if (m[s])
            berth__cluster_take_mask(c, s, m[s]);
    return c;
}

#define R2     "4x8:h100,racks=2"
#define RACK   (BERTH_TOPO_RACK + 1)
#define NVLINK (BERTH_TOPO_NVLINK + 1)
#define ALL8   "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7"
#define S1     "1:0 1:1 1:2 1:3 1:4 1:5 1:6 1:7"
#define S2     "2:0 2:1 2:2 2:3 2:4 2:5 2:6 2:7"
#define S3     "3:0 3:1 3:2 3:3 3:4 3:5 3:6 3:7"

static void test_required_rack(void)
{
    /* all idle: both racks hold 16, the tie goes to rack0: servers 0 and 1 in rank order */
    place_case(racks(R2, 0, 0, 0, 0), BERTH_PLACE_CONSOLIDATE, 16, RACK, 0, 0, ALL8 " " S1, 0);
    /* rack0 has 14 idle, rack1 16: 16 GPUs need rack1 (the only one that holds it) */
    place_case(racks(R2, 0x3, 0, 0, 0), BERTH_PLACE_CONSOLIDATE, 16, RACK, 0, 0, S2 " " S3, 0);
    /* 12 GPUs: both hold it, rack0 (14 idle) is the best fit; inside it the fragment first
     * (server 0's 6 idle), then the rest on the tightest server that holds it (6 of 1) */
    place_case(racks(R2, 0x3, 0, 0, 0), BERTH_PLACE_CONSOLIDATE, 12, RACK, 0, 0,
               "0:2 0:3 0:4 0:5 0:6 0:7 1:0 1:1 1:2 1:3 1:4 1:5", 0);
    /* whatever the run's placement (spread would level it over four servers) */
    place_case(racks(R2, 0x3, 0, 0, 0), BERTH_PLACE_SPREAD, 16, RACK, 0, 0, S2 " " S3, 0);
    /* 8 GPUs fit one server: the node level comes first (server 1, the lowest whole one) */
    place_case(racks(R2, 0x3, 0, 0, 0), BERTH_PLACE_SPREAD, 8, RACK, 0, 0, S1, 0);
    /* each rack 12 idle (24 in all): required rack waits with reason Topology */
    place_case(racks(R2, 0xf, 0, 0xf, 0), BERTH_PLACE_CONSOLIDATE, 16, RACK, 0, 0, "",
               BERTH_NOFIT_TOPO);
    /* too few GPUs at all is Resources (a count), not Topology */
    place_case(racks(R2, 0xff, 0xff, 0xf, 0), BERTH_PLACE_CONSOLIDATE, 16, RACK, 0, 0, "",
               BERTH_NOFIT_COUNT);
}

static void test_preferred_and_tp(void)
{
    /* preferred rack, each rack 12 idle: it starts across racks (the cluster level: the
     * emptiest servers first, 1 then 3) */
    place_case(racks(R2, 0xf, 0, 0xf, 0), BERTH_PLACE_CONSOLIDATE, 16, 0, RACK, 0, S1 " " S3, 0);
    /* preferred rack that a rack holds: inside it, as required would */
    place_case(racks(R2, 0x3, 0, 0, 0), BERTH_PLACE_SPREAD, 16, 0, RACK, 0, S2 " " S3, 0);
    /* tp = 8: every piece a whole server. Server 0 has 4 idle, 3 has 6: neither holds a
     * group; racks hold 8 each; the cluster level takes servers 1 and 2 */
    place_case(racks(R2, 0xf, 0, 0, 0x3), BERTH_PLACE_CONSOLIDATE, 16, 0, 0, 8, S1 " " S2, 0);
    /* the same gang preferring a rack: rack1 (14 idle) cannot hold 16, nor rack0 (12):
     * consolidate's pieces at the cluster level, 8 of server 1 (the emptiest, lower index),
     * then the tightest that holds the other 8 (server 2) */
    place_case(racks(R2, 0xf, 0, 0, 0x3), BERTH_PLACE_CONSOLIDATE, 16, 0, RACK, 0, S1 " " S2, 0);
    /* tp = 4 on nvl=4 islands: server 0 has GPU 0 busy (island 0: 3 idle), server 1 GPUs
     * 0-3 busy: groups only in the whole islands, GPUs 4-7 of each (not 1-7 of server 0) */
    place_case(racks("2x8:h100,nvl=4", 0x1, 0xf, 0, 0), BERTH_PLACE_CONSOLIDATE, 8, 0, 0, 4,
               "0:4 0:5 0:6 0:7 1:4 1:5 1:6 1:7", 0);
    /* required nvlink on nvl=4: the best-fit island (4 idle: island 1 of server 0) */
    place_case(racks("2x8:h100,nvl=4", 0x1, 0, 0, 0), BERTH_PLACE_CONSOLIDATE, 4, NVLINK, 0, 0,
               "0:4 0:5 0:6 0:7", 0);
    /* 3 GPUs: island 0 of server 0 (3 idle) fits best */
    place_case(racks("2x8:h100,nvl=4", 0x1, 0, 0, 0), BERTH_PLACE_CONSOLIDATE, 3, NVLINK, 0, 0,
               "0:1 0:2 0:3", 0);
    /* 5 GPUs cannot lie in one 4-GPU island */
    place_case(racks("2x8:h100,nvl=4", 0, 0, 0, 0), BERTH_PLACE_CONSOLIDATE, 5, NVLINK, 0, 0, "",
               BERTH_NOFIT_TOPO);
}

/* Without a topology the placement is consolidate, and the plan never routes a job to it. */
static void test_flat(void)
{
    struct berth_cluster *a = partly_busy(), *b = partly_busy();
    if (!a || !b)
        return;
    for (int32_t g = 1; g <= 19; g++) {
        struct pjob pa, pb;
        pjob_init(&pa, 0, "a", g, 0, -1);
        pjob_init(&pb, 0, "b", g, 0, -1);
        jobspec_x(&pb.spec)->topo_required = RACK;
        struct berth__plan p, q;
        berth__plan_init(&p);
        berth__plan_init(&q);
        struct berth__placement topo;
        struct berth_err err = {0};
        CHECK_I64(berth__placement_open("topology", &topo, &err), 0);
        CHECK_I64(berth__plan_open(&p, a, &pa.job, 1, 0,
                                   berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), 1, 0),
                  0);
        CHECK_I64(berth__plan_open(&q, b, &pb.job, 1, 0, &topo, 1, 0), 0);
        CHECK(!q.topo_place.ops);
        CHECK_I64(berth__plan_start(&p, 0, &err), 0);
        CHECK_I64(berth__plan_start(&q, 0, &err), 0);
        char want[1024];
        snprintf(want, sizeof want, "%s", slots_of(&pa.job));
        CHECK_STR(slots_of(&pb.job), want);
        berth__alloc_give(a, &pa.job);
        berth__alloc_give(b, &pb.job);
        berth__plan_free(&p);
        berth__plan_free(&q);
        berth__placement_close(&topo);
        free(pa.job.slots);
        free(pb.job.slots);
    }
    berth_cluster_free(a);
    berth_cluster_free(b);
}

/* --check's rule (berth__place_topo_verify) catches a gang across racks with a required
 * rack, and a tp group across servers; it passes what the placement makes. */
static void test_verify(void)
{
    struct berth_cluster *c = parse_ok(R2);
    if (!c)
        return;
    struct pjob pj;
    pjob_init(&pj, 0, "v", 4, 0, -1);
    struct berth_jobspec_extra *x = jobspec_x(&pj.spec);
    struct berth__slot sl[4] = {{1, 0}, {1, 1}, {2, 0}, {2, 1}}; /* rack0 and rack1 */
    pj.job.slots = sl;
    pj.job.state = BERTH_JOB_RUNNING;
    char why[200];
    CHECK_I64(berth__place_topo_verify(c, &pj.job, why, sizeof why), 0);
    x->topo_required = RACK;
    CHECK_I64(berth__place_topo_verify(c, &pj.job, why, sizeof why), -1);
    CHECK_STR(why, "job v spans cluster, its required level is rack");
    x->topo_required = 0;
    x->tp = 2; /* groups {1:0 1:1} and {2:0 2:1}: whole */
    CHECK_I64(berth__place_topo_verify(c, &pj.job, why, sizeof why), 0);
    sl[1] = (struct berth__slot){2, 2}; /* group 0 now 1:0 2:2 */
    CHECK_I64(berth__place_topo_verify(c, &pj.job, why, sizeof why), -1);
    CHECK_STR(why, "job v: tensor-parallel group 0 (of 2 GPUs) spans servers");
    berth_cluster_free(c);
}

/* Per-level fragmentation: 4x8 in 2 racks, server 0 with 4 busy, server 2 with 2: of 26
 * idle GPUs, whole servers 1 and 3 hold 16 (10 / 26 stranded at the node level), no rack is
 * wholly idle (all 26 stranded). */
static void test_frag_levels(void)
{
    struct berth_cluster *c = racks(R2, 0xf, 0, 0x3, 0);
    if (!c)
        return;
    struct berth__frag_level f;
    CHECK_I64(berth__frag_topo(c, BERTH_TOPO_NODE, &f), 0);
    CHECK_I64(f.domains, 4);
    CHECK_I64(f.whole, 2);
    CHECK_I64(f.idle, 26);
    CHECK_DBL(f.stranded, 10.0 / 26, 1e-12);
    CHECK_I64(berth__frag_topo(c, BERTH_TOPO_RACK, &f), 0);
    CHECK_I64(f.domains, 2);
    CHECK_I64(f.whole, 0);
    CHECK_DBL(f.stranded, 1.0, 1e-12);
    CHECK_I64(berth__frag_topo(c, BERTH_TOPO_CLUSTER, &f), -1);
    berth_cluster_free(c);
    struct berth_cluster *flat = parse_ok("2x8:h100");
    if (flat)
        CHECK_I64(berth__frag_topo(flat, BERTH_TOPO_NODE, &f), -1);
    berth_cluster_free(flat);
}

static const struct check_test tests[] = {
    {"frag_levels", test_frag_levels},
    {"verify", test_verify},
    {"required_rack", test_required_rack},
    {"preferred_and_tp", test_preferred_and_tp},
    {"flat", test_flat},
};

CHECK_MAIN(tests)
