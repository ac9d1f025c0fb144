/* Golden and property tests of Salus' memory lanes (policy/salus_lanes.c, salus_mem.c):
 * hand-computed admissions under the lane manager's rule, lane removal and reuse, the GPU
 * search, the memory estimates, and random admit/leave sequences checked against a naive
 * re-derivation after every step. */
#include <string.h>

#include "check.h"
#include "policy/salus/salus_lanes.h"
#include "util/rng.h"

#include "jobspec_make.h"

#define NONE BERTH_LANE_NONE

/* Lanes of P + E (salus-pack) on one V100: 16384 - 300 = 16084 MiB.
 *   j0 (1000, 4000): free 16084 >= 5000 -> new lane A of 5000, free 11084
 *   j1 (1000, 4000): new lane B of 5000, free 6084
 *   j2 (1000, 4000): new lane C of 5000, free 1084
 *   j3 (500, 500):   new lane D of 1000, free 84
 *   j4 (10, 10):     new lane E of 20, free 64
 *   j5 (100, 100):   free 64 < 200, so the lanes are tried. A: 100 + max(100, 4000) = 4100
 *                    > 5000 - 1000 = 4000, and likewise B, C; D: 100 + 500 = 600 > 500;
 *                    E: 100 + 100 > 10. Refused. (A lane made at exactly P + E has
 *                    size - P = E left, so a second job needs P2 + max(E2, E) <= E: only
 *                    P2 = 0 fits. This is Salus' code; the lead asked us to check it.)
 *   j6 (0, 10):      free 64 >= 10 -> new lane F of 10 (a new lane is always tried first)
 *   j7 (0, 60):      free 54 < 60; the lanes in Salus' order (a new lane goes before the
 *                    first with MORE available memory, so F, 10 available, goes after E,
 *                    20 - 10 = 10): E, F, D (500), A, B, C. E: 0 + max(60, 10) > 10;
 *                    F: 60 > 10; D: 0 + max(60, 500) = 500 <= 500 -> D, persistent 500.
 * Then j3 leaves D: j7 alone, D stays (500 persistent 0, peak 60). j7 leaves: D is removed,
 * its 1000 go back: free 54 + 1000 = 1054, and j8 (400, 600) gets a new lane of 1000. */
static void pack_golden(void)
{
    struct berth__lanes L;
    int64_t cap[] = {berth__salus_gpu_cap("v100", 0)};
    CHECK_I64(cap[0], 16084);
    CHECK_I64(berth__lanes_init(&L, 1, cap, 1), 0);
    CHECK_I64(berth__lanes_reserve_jobs(&L, 9), 0);
    static const int64_t pe[][2] = {{1000, 4000}, {1000, 4000}, {1000, 4000}, {500, 500},
                                    {10, 10},     {100, 100},   {0, 10},      {0, 60}};
    uint32_t lane[8];
    for (uint32_t j = 0; j < 8; j++)
        lane[j] = berth__lanes_admit(&L, 0, j, pe[j][0], pe[j][1], pe[j][0] + pe[j][1]);
    for (uint32_t j = 0; j < 5; j++)
        CHECK(lane[j] != NONE);
    CHECK(lane[0] != lane[1] && lane[1] != lane[2] && lane[3] != lane[4]);
    CHECK_I64(lane[5], NONE);
    CHECK(lane[6] != NONE && lane[6] != lane[4]);
    CHECK_I64(lane[7], lane[3]);
    CHECK_I64(L.gpu[0].free, 54);
    CHECK_I64(L.gpu[0].nlanes, 6);
    CHECK_I64(L.lane[lane[3]].persist, 500);
    CHECK_I64(L.lane[lane[3]].njobs, 2);
    CHECK_I64(berth__lane_maxpeak(&L, lane[3]), 500);
    CHECK_I64(berth__lanes_check(&L), 0);
    /* the lanes' order: E, F, D, A, B, C */
    uint32_t order[] = {lane[4], lane[6], lane[3], lane[0], lane[1], lane[2]}, k = 0;
    for (uint32_t l = L.gpu[0].head; l != NONE && k < 6; l = L.lane[l].next, k++)
        CHECK_I64(l, order[k]);
    CHECK_I64(k, 6);

    CHECK_I64(berth__lanes_leave(&L, 3), lane[3]);
    CHECK_I64(L.lane[lane[3]].njobs, 1);
    CHECK_I64(berth__lane_maxpeak(&L, lane[3]), 60);
    CHECK_I64(L.gpu[0].free, 54);
    CHECK_I64(berth__lanes_leave(&L, 7), lane[3]);
    CHECK_I64(L.gpu[0].free, 1054);
    CHECK_I64(L.gpu[0].nlanes, 5);
    CHECK_I64(berth__lanes_leave(&L, 7), NONE); /* not in a lane any more */
    uint32_t l8 = berth__lanes_admit(&L, 0, 8, 400, 600, 1000);
    CHECK(l8 != NONE);
    CHECK_I64(l8, lane[3]); /* the freed record is reused */
    CHECK_I64(L.lane[l8].size, 1000);
    CHECK_I64(L.gpu[0].free, 54);
    CHECK_I64(berth__lanes_check(&L), 0);
    berth__lanes_free(&L);
}

/* One lane of the whole GPU (salus-srtf, salus-fair), 16084 MiB:
 *   j0 (1000, 4000): free 16084 >= 16084 -> the lane, persistent 1000
 *   j1 (2000, 6000): 2000 + max(6000, 4000) = 8000 <= 16084 - 1000 = 15084 -> in, 3000
 *   j2 (3000, 9000): 3000 + 9000 = 12000 <= 13084 -> in, 6000
 *   j3 (1000, 1000): 1000 + max(1000, 9000) = 10000 <= 10084 -> in, 7000
 *   j4 (100, 100):   100 + 9000 = 9100 > 9084 -> refused
 * j2 leaves (persistent 4000, peak 6000): j4: 100 + 6000 = 6100 <= 12084 -> in.
 * Without sharing (salus-fifo) j1 is refused: the lane holds one job. */
static void whole_golden(void)
{
    for (int share = 1; share >= 0; share--) {
        struct berth__lanes L;
        int64_t cap[] = {16084};
        CHECK_I64(berth__lanes_init(&L, 1, cap, share), 0);
        CHECK_I64(berth__lanes_reserve_jobs(&L, 5), 0);
        uint32_t l = berth__lanes_admit(&L, 0, 0, 1000, 4000, 16084);
        CHECK(l != NONE);
        CHECK_I64(L.gpu[0].free, 0);
        uint32_t l1 = berth__lanes_admit(&L, 0, 1, 2000, 6000, 16084);
        if (!share) {
            CHECK_I64(l1, NONE);
            CHECK_I64(berth__lanes_check(&L), 0);
            berth__lanes_free(&L);
            continue;
        }
        CHECK_I64(l1, l);
        CHECK_I64(berth__lanes_admit(&L, 0, 2, 3000, 9000, 16084), l);
        CHECK_I64(berth__lanes_admit(&L, 0, 3, 1000, 1000, 16084), l);
        CHECK_I64(L.lane[l].persist, 7000);
        CHECK_I64(berth__lanes_admit(&L, 0, 4, 100, 100, 16084), NONE);
        CHECK_I64(berth__lanes_leave(&L, 2), l);
        CHECK_I64(berth__lane_maxpeak(&L, l), 6000);
        CHECK_I64(berth__lanes_admit(&L, 0, 4, 100, 100, 16084), l);
        CHECK_I64(L.lane[l].persist, 4100);
        CHECK_I64(L.lane[l].njobs, 4);
        CHECK_I64(berth__lanes_check(&L), 0);
        berth__lanes_free(&L);
    }
}

/* The GPU search: the first GPU at or after `from` with at least need in a tree, and the GPU
 * with the most. Caps 1000, 3000, 2000, 500, 2500 (8 leaves, 3 of them padding). */
static void find_golden(void)
{
    struct berth__lanes L;
    int64_t cap[] = {1000, 3000, 2000, 500, 2500};
    const int F = BERTH_LANES_FREE, R = BERTH_LANES_ROOM;
    CHECK_I64(berth__lanes_init(&L, 5, cap, 1), 0);
    CHECK_I64(berth__lanes_reserve_jobs(&L, 3), 0);
    CHECK_I64(berth__lanes_find(&L, F, 2500, 0), 1);
    CHECK_I64(berth__lanes_find(&L, F, 2500, 2), 4);
    CHECK_I64(berth__lanes_find(&L, F, 2600, 2), NONE);
    CHECK_I64(berth__lanes_find(&L, F, 500, 3), 3);
    CHECK_I64(berth__lanes_find(&L, F, 1, 5), NONE);
    CHECK_I64(berth__lanes_find(&L, F, 3001, 0), NONE);
    CHECK_I64(berth__lanes_find_most(&L, F, 1), 1);
    CHECK_I64(berth__lanes_find_most(&L, F, 3001), NONE);
    CHECK_I64(berth__lanes_find_most(&L, R, 0), NONE); /* no lanes yet */
    /* a job of 200 + 2000 in a new lane of 2200 on GPU 1 leaves it 800 free, and the lane
     * room for 2200 - 200 - 2000 = 0 more persistent memory (a job with a peak <= 2000) */
    CHECK(berth__lanes_admit_new(&L, 1, 0, 200, 2000, 2200) != NONE);
    CHECK_I64(berth__lanes_find(&L, F, 2001, 0), 4); /* GPU 2 has 2000 */
    CHECK_I64(berth__lanes_find_most(&L, F, 1), 4);  /* 2500 */
    CHECK_I64(berth__lanes_find(&L, R, 0, 0), 1);
    CHECK_I64(berth__lanes_find(&L, R, 1, 0), NONE);
    CHECK_I64(berth__lanes_find_most(&L, R, 0), 1);
    /* sharing: 100 + max(1000, 2000) = 2100 > 2000; 100 + max(1500, 2000) fits neither;
     * 100 + max(500, 2000) = 2100 > 2000 too: only p = 0 fits a lane made at exactly p + e */
    CHECK_I64(berth__lanes_admit_shared(&L, 1, 1, 100, 500), NONE);
    CHECK_I64(berth__lanes_admit_shared(&L, 1, 1, 0, 500), L.lane_of[0]);
    CHECK_I64(berth__lanes_admit_new(&L, 3, 2, 300, 300, 600), NONE); /* 500 free */
    CHECK_I64(berth__lanes_admit_new(&L, 3, 2, 300, 300, 500), NONE); /* lane < p + e */
    CHECK_I64(berth__lanes_check(&L), 0);
    berth__lanes_free(&L);
}

/* Memory estimates: the trace's split wins; Gavel classes scale ephemeral memory with the
 * batch size; gpu_mem_mib alone is split 1:9; gpu_mem_mib above p + e raises e. */
static void memory_golden(void)
{
    struct berth_jobspec s;
    memset(&s, 0, sizeof s);
    jobspec_x(&s)->job_type = "";
    int64_t p, e;
    jobspec_x(&s)->persist_mib = 700;
    jobspec_x(&s)->ephem_mib = 3000;
    berth__salus_job_mem(&s, &p, &e);
    CHECK_I64(p, 700);
    CHECK_I64(e, 3000);
    jobspec_x(&s)->gpu_mem_mib = 5000; /* 700 + 3000 < 5000: e = 4300 */
    berth__salus_job_mem(&s, &p, &e);
    CHECK_I64(e, 4300);
    jobspec_x(&s)->persist_mib = jobspec_x(&s)->ephem_mib = 0;
    berth__salus_job_mem(&s, &p, &e); /* ceil(5000 / 10) = 500, 4500 */
    CHECK_I64(p, 500);
    CHECK_I64(e, 4500);
    jobspec_x(&s)->gpu_mem_mib = 0;
    jobspec_x(&s)->job_type = "ResNet-50 (batch size 64)"; /* 400, 90 x 64 = 5760 */
    berth__salus_job_mem(&s, &p, &e);
    CHECK_I64(p, 400);
    CHECK_I64(e, 5760);
    jobspec_x(&s)->job_type =
        "Recommendation (batch size 8192)"; /* 500, 512 x 8192 / 1024 = 4096 */
    berth__salus_job_mem(&s, &p, &e);
    CHECK_I64(p, 500);
    CHECK_I64(e, 4096);
    jobspec_x(&s)->job_type = "A3C";
    berth__salus_job_mem(&s, &p, &e);
    CHECK_I64(p + e, 500);
    jobspec_x(&s)->job_type = "ResNet-500"; /* not ResNet-50: the default */
    berth__salus_job_mem(&s, &p, &e);
    CHECK_I64(p, 512);
    CHECK_I64(e, 4608);
    CHECK_I64(berth__salus_gpu_cap("k80", 0), 11988);
    CHECK_I64(berth__salus_gpu_cap("a100", 0), 40660);
    CHECK_I64(berth__salus_gpu_cap("v100", 32768), 32468);
    CHECK_I64(berth__salus_gpu_cap("mystery", 0), 16084);
}

/* Random admissions and departures on 6 GPUs, both lane rules: after every step the lanes
 * re-derive (berth__lanes_check), the search agrees with a scan, and a refused job really
 * fits no GPU (checked by brute force against every lane and the free memory). */
static void random_sequences(void)
{
    struct berth__rng r;
    berth__rng_seed(&r, 42);
    for (int round = 0; round < 40; round++) {
        int share = round % 3 != 0, pack = round % 2;
        int64_t cap[6];
        for (int g = 0; g < 6; g++)
            cap[g] = 2000 + (int64_t)berth__rng_below(&r, 8) * 1000;
        struct berth__lanes L;
        CHECK_I64(berth__lanes_init(&L, 6, cap, share), 0);
        enum { N = 300 };
        CHECK_I64(berth__lanes_reserve_jobs(&L, N), 0);
        for (uint32_t j = 0; j < N; j++) {
            if (berth__rng_unit(&r) < 0.4) { /* someone leaves */
                uint32_t k = (uint32_t)berth__rng_below(&r, j + 1);
                berth__lanes_leave(&L, k);
            }
            int64_t p = (int64_t)berth__rng_below(&r, 800),
                    e = 1 + (int64_t)berth__rng_below(&r, 3000);
            uint32_t got = NONE;
            /* the salus policies' search order: the most free memory, then the first GPU
             * with room for a new lane, then the most lane room, then the first */
            for (int w = BERTH_LANES_FREE; w <= BERTH_LANES_ROOM && got == NONE; w++) {
                int64_t need = w == BERTH_LANES_FREE ? p + e : p;
                uint32_t g = berth__lanes_find_most(&L, w, need);
                if (g == NONE)
                    continue;
                got = w == BERTH_LANES_FREE
                          ? berth__lanes_admit_new(&L, g, j, p, e, pack ? p + e : cap[g])
                          : berth__lanes_admit_shared(&L, g, j, p, e);
                for (g = berth__lanes_find(&L, w, need, 0); g != NONE && got == NONE;
                     g = berth__lanes_find(&L, w, need, g + 1))
                    got = berth__lanes_admit(&L, g, j, p, e, pack ? p + e : cap[g]);
            }
            if (got == NONE) /* brute force: nowhere */
                for (uint32_t g = 0; g < 6; g++) {
                    CHECK(L.gpu[g].free < (pack ? p + e : cap[g]) || cap[g] < p + e);
                    for (uint32_t l = L.gpu[g].head; l != NONE; l = L.lane[l].next)
                        CHECK(!berth__lane_fits(&L, l, p, e));
                }
            CHECK_I64(berth__lanes_check(&L), 0);
        }
        berth__lanes_free(&L);
    }
}

static const struct check_test tests[] = {
    {"pack_golden", pack_golden},           {"whole_golden", whole_golden},
    {"find_golden", find_golden},           {"memory_golden", memory_golden},
    {"random_sequences", random_sequences},
};

CHECK_MAIN(tests)
