/* What refused starts leave (src/sched/plan_refuse.c), on hand-built free-GPU buckets outside
 * any engine: the moves of n refused starts of two gang sizes taken alternately in one step
 * (berth__plan_refused_alternating, by a power of their position map) must leave every
 * bucket in the order the n starts' moves one by one (berth__plan_refused_moves) leave it,
 * on random states where no server holds either gang. */
#include "model/cluster.h"
#include "sched/refuse.h"
#include "simtest.h"
#include "util/rng.h"

/* Gives every server of c a random number of idle GPUs below lim (the rest taken), in a
 * random order of takes, so that buckets hold their servers in a shuffled order. */
static void shuffle_state(struct berth_cluster *c, struct berth__rng *r, int lim)
{
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < c->nsrv; i++) {
            uint32_t s = (uint32_t)berth__rng_below(r, c->nsrv);
            struct berth__server *v = &c->srv[s];
            uint64_t all = (UINT64_C(1) << v->ngpus) - 1;
            if (v->free_mask != all)
                berth__cluster_give_mask(c, s, all & ~v->free_mask);
            int keep = (int)berth__rng_below(r, (uint64_t)lim);
            uint64_t take = all;
            for (int g = 0; g < keep; g++)
                take &= ~(UINT64_C(1) << g);
            berth__cluster_take_mask(c, s, take);
        }
}

/* 1 when both clusters' buckets of type 0 hold the same servers in the same order. */
static int same_buckets(const struct berth_cluster *a, const struct berth_cluster *b)
{
    const struct berth__gputype *ta = &a->types[0], *tb = &b->types[0];
    for (int32_t f = 0; f <= ta->max_per_server; f++) {
        int32_t x = ta->head[f], y = tb->head[f];
        for (; x >= 0 && y >= 0; x = a->srv[x].next, y = b->srv[y].next)
            if (x != y)
                return 0;
        if (x != y)
            return 0;
    }
    return 1;
}

static void alternating_equals_one_by_one(void)
{
    struct berth_err err = {0};
    struct berth__rng r;
    berth__rng_seed(&r, 7);
    static const char *clusters[] = {"12x8:v100", "30x8:v100", "9x16:v100"};
    int checked = 0, long_runs = 0;
    for (int trial = 0; trial < 600; trial++) {
        struct berth_cluster *a = NULL, *b = NULL;
        const char *spec = clusters[trial % 3];
        CHECK_I64(berth_cluster_parse(spec, &a, &err), 0);
        CHECK_I64(berth_cluster_parse(spec, &b, &err), 0);
        if (!a || !b)
            return;
        int lim = 2 + (int)berth__rng_below(&r, 4); /* idle GPUs per server below lim */
        struct berth__rng r2 = r;
        shuffle_state(a, &r, lim);
        shuffle_state(b, &r2, lim);
        int32_t max = a->types[0].max_per_server;
        int32_t g1 = lim + (int32_t)berth__rng_below(&r, (uint64_t)(max - lim + 1));
        int32_t g2 = lim + (int32_t)berth__rng_below(&r, (uint64_t)(max - lim + 1));
        uint64_t n = berth__rng_below(&r, 40);
        if (a->types[0].free >= (g1 > g2 ? g1 : g2)) {
            struct berth__plan pa = {.cluster = a}, pb = {.cluster = b};
            berth__plan_refused_alternating(&pa, 0, g1, g2, n);
            for (uint64_t i = 0; i < n; i++)
                berth__plan_refused_moves(&pb, 0, i & 1 ? g2 : g1);
            int ok = same_buckets(a, b);
            if (!ok)
                fprintf(stderr, "  %s, idle below %d, gangs %d and %d, %llu starts: differ\n", spec,
                        lim, g1, g2, (unsigned long long)n);
            CHECK(ok);
            checked++;
            long_runs += n > 4;
        }
        berth_cluster_free(a);
        berth_cluster_free(b);
    }
    CHECK(checked > 300);
    CHECK(long_runs > 200);
}

static const struct check_test tests[] = {
    {"alternating_equals_one_by_one", alternating_equals_one_by_one},
};

CHECK_MAIN(tests)
