/* Golden and property tests of the multiple-choice knapsack (policy/mckp.c), the allocation
 * step of Aryl/Lyra: hand-computed answers for both methods, the case where the greedy
 * falls short of the optimum, infeasible input, and random instances checked against
 * brute force (exact = the true optimum; greedy within one option of it). */
#include "check.h"
#include "solve/mckp.h"
#include "util/rng.h"

#define O(w, v)                                                                                    \
    {                                                                                              \
        (w), (v)                                                                                   \
    }

/* Jobs A, B, C; options = extra workers as (GPUs, JCT reduction in hours).
 *   A: (0,0) (1,5) (2,8);  B: (0,0) (2,7) (3,9);  C: (0,0) (1,4).   Capacity 4.
 * Every combination within 4 GPUs: A1+B1+C1 = 5+7+4 = 16 is the only one worth 16 (A2+B1
 * = 15, A1+B2 = 14, A2+C1 = 12, B2+C1 = 13). Greedy on value per GPU: A's first step 5,
 * C's 4, B's first 3.5, A's second 3, B's second 2 -> A1, C1, B1 fill the 4 GPUs: also 16. */
static const struct berth__mckp_option abc[] = {O(0, 0), O(1, 5), O(2, 8), O(0, 0),
                                                O(2, 7), O(3, 9), O(0, 0), O(1, 4)};
static const uint32_t abc_first[] = {0, 3, 6, 8};

static void golden(void)
{
    for (int method = BERTH_MCKP_EXACT; method <= BERTH_MCKP_GREEDY; method++) {
        uint32_t choice[3];
        double v;
        struct berth_err err = {0};
        CHECK_I64(berth__mckp_solve(abc, abc_first, 3, 4, method, choice, &v, &err), 0);
        CHECK_DBL(v, 16, 0);
        CHECK_I64(choice[0], 1);
        CHECK_I64(choice[1], 1);
        CHECK_I64(choice[2], 1);
        /* capacity 0: everyone at the lightest option */
        CHECK_I64(berth__mckp_solve(abc, abc_first, 3, 0, method, choice, &v, &err), 0);
        CHECK_DBL(v, 0, 0);
        CHECK_I64(choice[0] + choice[1] + choice[2], 0);
        /* capacity 9: everyone at the most: 8 + 9 + 4 = 21 (6 GPUs) */
        CHECK_I64(berth__mckp_solve(abc, abc_first, 3, 9, method, choice, &v, &err), 0);
        CHECK_DBL(v, 21, 0);
    }
}

/* Capacity 3, A: (0,0) (2,10); B: (0,0) (3,14). Greedy takes A first (5 per GPU against
 * 4.67), then B does not fit: 10. The optimum is B alone: 14. AUTO picks the exact method
 * on a problem this small. */
static void greedy_falls_short(void)
{
    const struct berth__mckp_option o[] = {O(0, 0), O(2, 10), O(0, 0), O(3, 14)};
    const uint32_t first[] = {0, 2, 4};
    uint32_t choice[2];
    double v;
    struct berth_err err = {0};
    CHECK_I64(berth__mckp_solve(o, first, 2, 3, BERTH_MCKP_GREEDY, choice, &v, &err), 0);
    CHECK_DBL(v, 10, 0);
    CHECK_I64(berth__mckp_solve(o, first, 2, 3, BERTH_MCKP_AUTO, choice, &v, &err), 0);
    CHECK_DBL(v, 14, 0);
    CHECK_I64(choice[0], 0);
    CHECK_I64(choice[1], 1);
}

/* A non-concave group: (0,0) (1,1) (2,10). The hull skips the 1-GPU option: the greedy's
 * only step goes straight to 2 GPUs (5 per GPU). With 1 GPU it cannot take it: 0, while the
 * exact answer is 1. Also: a shrink option of negative value and weight 0 is never taken
 * over a free (0, 0). */
static void non_concave(void)
{
    const struct berth__mckp_option o[] = {O(0, 0), O(1, 1), O(2, 10), O(0, -3)};
    const uint32_t first[] = {0, 4};
    uint32_t choice[1];
    double v;
    struct berth_err err = {0};
    CHECK_I64(berth__mckp_solve(o, first, 1, 2, BERTH_MCKP_GREEDY, choice, &v, &err), 0);
    CHECK_DBL(v, 10, 0);
    CHECK_I64(choice[0], 2);
    CHECK_I64(berth__mckp_solve(o, first, 1, 1, BERTH_MCKP_GREEDY, choice, &v, &err), 0);
    CHECK_DBL(v, 0, 0);
    CHECK_I64(berth__mckp_solve(o, first, 1, 1, BERTH_MCKP_EXACT, choice, &v, &err), 0);
    CHECK_DBL(v, 1, 0);
    CHECK_I64(choice[0], 1);
}

static void bad_input(void)
{
    uint32_t choice[3];
    double v;
    struct berth_err err = {0};
    /* every group's lightest option needs a GPU, capacity 1 for 2 groups */
    const struct berth__mckp_option o[] = {O(1, 1), O(1, 1)};
    const uint32_t first[] = {0, 1, 2};
    for (int m = BERTH_MCKP_EXACT; m <= BERTH_MCKP_GREEDY; m++) {
        CHECK_I64(berth__mckp_solve(o, first, 2, 1, m, choice, &v, &err), BERTH_EINPUT);
        CHECK_HAS(err.msg, "exceed the capacity of 1");
    }
    const uint32_t empty_first[] = {0, 0};
    CHECK_I64(berth__mckp_solve(o, empty_first, 1, 1, 0, choice, &v, &err), BERTH_EINPUT);
    CHECK_HAS(err.msg, "group 0 has no option");
    const struct berth__mckp_option neg[] = {O(-1, 1)};
    const uint32_t one[] = {0, 1};
    CHECK_I64(berth__mckp_solve(neg, one, 1, 1, 0, choice, &v, &err), BERTH_EINPUT);
    CHECK_I64(berth__mckp_solve(abc, abc_first, 3, -1, 0, choice, &v, &err), BERTH_EINPUT);
}

/* Random instances (4 groups of up to 4 options, weights 0..4, capacity 0..10): exact
 * equals brute force; greedy is feasible, never better, and at most the largest single
 * option value below it. */
static void random_vs_brute_force(void)
{
    struct berth__rng r;
    berth__rng_seed(&r, 7);
    for (int it = 0; it < 2000; it++) {
        struct berth__mckp_option o[16];
        uint32_t first[5] = {0};
        size_t n = 0;
        double vmax = 0;
        for (int g = 0; g < 4; g++) {
            int k = 1 + (int)(berth__rng_unit(&r) * 4);
            for (int i = 0; i < k; i++) {
                o[n] = (struct berth__mckp_option){
                    i == 0 ? 0 : (int32_t)(berth__rng_unit(&r) * 5),
                    i == 0 ? 0 : (double)(int)(berth__rng_unit(&r) * 20)};
                vmax = o[n].value > vmax ? o[n].value : vmax;
                n++;
            }
            first[g + 1] = (uint32_t)n;
        }
        int32_t cap = (int32_t)(berth__rng_unit(&r) * 11);
        double brute = -1;
        for (uint32_t a = first[0]; a < first[1]; a++)
            for (uint32_t b = first[1]; b < first[2]; b++)
                for (uint32_t c = first[2]; c < first[3]; c++)
                    for (uint32_t d = first[3]; d < first[4]; d++)
                        if (o[a].weight + o[b].weight + o[c].weight + o[d].weight <= cap) {
                            double v = o[a].value + o[b].value + o[c].value + o[d].value;
                            brute = v > brute ? v : brute;
                        }
        uint32_t ch[4];
        double ve, vg;
        struct berth_err err = {0};
        CHECK_I64(berth__mckp_solve(o, first, 4, cap, BERTH_MCKP_EXACT, ch, &ve, &err), 0);
        CHECK_DBL(ve, brute, 0);
        CHECK_I64(berth__mckp_solve(o, first, 4, cap, BERTH_MCKP_GREEDY, ch, &vg, &err), 0);
        int32_t w = 0;
        double v = 0;
        for (int g = 0; g < 4; g++) {
            CHECK(ch[g] < first[g + 1] - first[g]);
            w += o[first[g] + ch[g]].weight;
            v += o[first[g] + ch[g]].value;
        }
        CHECK(w <= cap);
        CHECK_DBL(v, vg, 0);
        CHECK(vg <= ve && vg >= ve - vmax);
    }
}

static const struct check_test tests[] = {
    {"golden", golden},
    {"greedy_falls_short", greedy_falls_short},
    {"non_concave", non_concave},
    {"bad_input", bad_input},
    {"random_vs_brute_force", random_vs_brute_force},
};

CHECK_MAIN(tests)
