/* Tests for consolidate-or-wait (src/sched/plan_wait.c) on hand-built clusters outside any
 * engine: golden cases worked out by hand (the first server of the gang's type to be ready,
 * the k-th earliest end on a server, GPUs that never free, a server that holds the gang now,
 * the tie that starts), the cases where the rule does not apply, the owner map the allocator
 * keeps for it (model/alloc.h), random states against a brute-force replay of the running
 * jobs' ends in time order, and ends carried from pass to pass (stable ends) against ends
 * read again at every pass. */
#include "model/tput.h"
#include "plantest.h"
#include "sched/refuse.h"

#define SEC  BERTH_US_PER_S
#define MAXJ 64

/* A cluster with its owner map, up to MAXJ jobs (job i has idx i) and a model of one class
 * on v100 whose gangs run at half speed across servers (r = 0.5). */
struct world {
    struct berth_cluster *c;
    struct berth_jobspec spec[MAXJ];
    struct berth__job job[MAXJ];
    char id[MAXJ][8];
    uint32_t n;
    struct berth_tput *m;
    int16_t tput_type[2]; /* cluster type 0 is the model's v100, a second one unknown */
    struct berth__spread sp;
    struct berth__plan p;
    berth_us now;
};

static int world_open(struct world *w, const char *cluster)
{
    memset(w, 0, sizeof *w);
    int cls, t;
    w->c = parse_ok(cluster);
    w->m = berth__tput_new();
    CHECK(w->m != NULL);
    if (!w->c || !w->m || berth__tput_add_type(w->m, "v100", &t) ||
        berth__tput_add_class(w->m, "a", &cls)) {
        berth_cluster_free(w->c);
        berth_tput_free(w->m);
        return -1;
    }
    for (int32_t g = 1; g <= 8; g++)
        CHECK_I64(berth__tput_add_point(w->m, cls, t, g, 0, g), 0);
    CHECK_I64(berth__cluster_track_owners(w->c), 0);
    w->tput_type[0] = (int16_t)t;
    w->tput_type[1] = -1;
    w->sp = (struct berth__spread){0.5, 0};
    w->now = 100 * SEC;
    berth__plan_init(&w->p);
    return 0;
}

static void world_close(struct world *w)
{
    for (uint32_t i = 0; i < w->n; i++)
        free(w->job[i].slots);
    berth__plan_free(&w->p);
    berth_cluster_free(w->c);
    berth_tput_free(w->m);
}

/* A pending job of class a with `gpus` GPUs and est seconds alone, its GPUs from "s:g ..."
 * (NULL: none yet) taken, as a placement in progress leaves them. */
static uint32_t add_job(struct world *w, int32_t gpus, double est, const char *at)
{
    uint32_t i = w->n++;
    struct berth_jobspec *s = &w->spec[i];
    snprintf(w->id[i], sizeof w->id[i], "j%u", i);
    static const struct berth_jobspec_extra class_a = {
        .job_type = "a", .user = "", .status = "", .gpu_type = ""};
    *s = (struct berth_jobspec){.id = w->id[i],
                                .queue = "",
                                .extra = &class_a,
                                .num_gpus = gpus,
                                .min_gpus = gpus,
                                .max_gpus = gpus,
                                .gpu_share_milli = 1000,
                                .duration_us = (berth_us)(est * SEC)};
    struct berth__job *j = &w->job[i];
    berth__job_init(j, s, i, w->c);
    j->state = BERTH_JOB_PENDING;
    j->cls = 0;
    j->est_us = s->duration_us;
    j->work = (double)j->est_us;
    j->slots = calloc((size_t)gpus, sizeof *j->slots);
    CHECK(j->slots != NULL);
    for (int32_t k = 0; at && j->slots && k < gpus; k++) {
        unsigned sv, g;
        int used = 0;
        CHECK_I64(sscanf(at, " %u:%u%n", &sv, &g, &used), 2);
        at += used;
        j->slots[k] = (struct berth__slot){sv, g};
    }
    if (at && j->slots)
        berth__alloc_take(w->c, j);
    return i;
}

/* A running job on "s:g ..." that ends `left` seconds from now: by its rate, or (by_est)
 * by its estimate with half its work done and no rate known. */
static uint32_t add_running(struct world *w, int32_t gpus, const char *at, double left, int by_est)
{
    uint32_t i = add_job(w, gpus, 2 * left, at);
    struct berth__job *j = &w->job[i];
    j->state = BERTH_JOB_RUNNING;
    j->progress_at = w->now;
    if (by_est) { /* left = (1 - done / work) * est_us */
        j->work = 10;
        j->done = 5;
    } else { /* end = now + (work - done) / rate */
        j->work = left * SEC;
        j->rate = 1;
    }
    return i;
}

/* berth__plan_spread_pays for job i on type 0 in a plan opened now. */
static int pays(struct world *w, uint32_t i)
{
    CHECK_I64(berth__plan_open(&w->p, w->c, w->job, w->n, w->now,
                               berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), 1, 0),
              0);
    w->p.wait = (struct berth__plan_wait){w->m, w->tput_type, &w->sp, NULL, 0};
    return berth__plan_spread_pays(&w->p, &w->job[i], 0);
}

/* Three 4-GPU servers; the gang j (4 GPUs) placed on 0:2 0:3 1:2 1:3. Server 0 is ready when
 * A ends (600 s, by its estimate), server 1 when the later of B (300 s) and C (1500 s) ends,
 * server 2 when D ends (800 s): W = 600. Spreading is done after 2E (r = 0.5), waiting after
 * 600 + E: it waits when E > 600, and the tie E = 600 starts. */
static void test_first_ready_server(void)
{
    static const struct {
        double est;
        int want;
    } cases[] = {{1000, 0}, {601, 0}, {600, 1}, {300, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct world w;
        if (world_open(&w, "3x4:v100"))
            return;
        uint32_t j = add_job(&w, 4, cases[i].est, "0:2 0:3 1:2 1:3");
        add_running(&w, 2, "0:0 0:1", 600, 1);
        add_running(&w, 1, "1:0", 300, 0);
        add_running(&w, 1, "1:1", 1500, 0);
        add_running(&w, 4, "2:0 2:1 2:2 2:3", 800, 0);
        if (pays(&w, j) != cases[i].want)
            fprintf(stderr, "  first_ready_server case %zu\n", i);
        CHECK_I64(pays(&w, j), cases[i].want);
        verify_ok(w.c);
        world_close(&w);
    }
}

/* The server that last made a gang wait is asked first. The gang j (4 GPUs, E = 1000) holds
 * 0:2 0:3 1:2 1:3; server 0 is ready at 600 s (A, by its estimate), server 1 at 1500 s (C),
 * server 2 at 5000 s (D): only server 0 makes it wait (1600 < 2000), and the scan (from the
 * server last moved to the full bucket, 2) asks the others first. Asked again in the same
 * pass (a retry after a preemption), server 0 alone answers. Once A runs to 5000 s too, the
 * next pass finds no server soon enough (server 1: 2500 >= 2000): it starts, though the old
 * witness was server 0. */
static void test_witness_first(void)
{
    struct world w;
    if (world_open(&w, "3x4:v100"))
        return;
    uint32_t j = add_job(&w, 4, 1000, "0:2 0:3 1:2 1:3");
    uint32_t a = add_running(&w, 2, "0:0 0:1", 600, 1);
    add_running(&w, 1, "1:0", 300, 0);
    add_running(&w, 1, "1:1", 1500, 0);
    add_running(&w, 4, "2:0 2:1 2:2 2:3", 5000, 0);
    CHECK_I64(pays(&w, j), 0);
    CHECK_I64(berth__plan_wait_asked(&w.p), 3);
    CHECK_I64(berth__plan_spread_pays(&w.p, &w.job[j], 0), 0);
    CHECK_I64(berth__plan_wait_asked(&w.p), 4);
    w.job[a].est_us = 2 * 5000 * SEC; /* left: half of it */
    CHECK_I64(pays(&w, j), 1);
    world_close(&w);
}

/* The k-th earliest end: j (4 GPUs) holds 0:1 0:2 0:3 and 1:0, so server 0 lacks one GPU
 * (V's, 1200 s) and server 1 three (X 900 s, Y 100 s, Z 400 s: the third is 900 s). W =
 * 900: E = 1000 waits (1900 < 2000), E = 900 starts (1800 = 1800). */
static void test_kth_end(void)
{
    static const struct {
        double est;
        int want;
    } cases[] = {{1000, 0}, {900, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct world w;
        if (world_open(&w, "2x4:v100"))
            return;
        uint32_t j = add_job(&w, 4, cases[i].est, "0:1 0:2 0:3 1:0");
        add_running(&w, 1, "0:0", 1200, 0);
        add_running(&w, 1, "1:1", 900, 0);
        add_running(&w, 1, "1:2", 100, 1);
        add_running(&w, 1, "1:3", 400, 0);
        CHECK_I64(pays(&w, j), cases[i].want);
        world_close(&w);
    }
}

/* GPUs that never free (work outside the engine), a reserved server, a server that holds
 * the gang now. Server 0's other GPUs are held out, so only server 2 (800 s) can be ready:
 * E = 1000 waits (1800 < 2000), E = 700 starts (1500 >= 1400). An idle server 2 holds the
 * gang now: it starts even with E = 10,000; reserved, it holds nothing and never frees, and
 * server 1 (1500 s) decides: E = 2000 waits (3500 < 4000), E = 1000 starts. */
static void test_never_free_and_fits_now(void)
{
    static const struct {
        int server2; /* 0: D on it, 1: idle, 2: reserved */
        double est;
        int want;
    } cases[] = {{0, 1000, 0}, {0, 700, 1}, {1, 10000, 1}, {2, 2000, 0}, {2, 1000, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct world w;
        if (world_open(&w, "3x4:v100"))
            return;
        if (cases[i].server2 == 2)
            CHECK_I64(berth__cluster_reserve(w.c, 2), 0);
        uint32_t j = add_job(&w, 4, cases[i].est, "0:2 0:3 1:2 1:3");
        berth__cluster_hold_out(w.c, 0, 2); /* 0:0 and 0:1 */
        add_running(&w, 2, "1:0 1:1", 1500, 0);
        if (cases[i].server2 == 0)
            add_running(&w, 4, "2:0 2:1 2:2 2:3", 800, 0);
        if (pays(&w, j) != cases[i].want)
            fprintf(stderr, "  never_free_and_fits_now case %zu\n", i);
        CHECK_I64(pays(&w, j), cases[i].want);
        world_close(&w);
    }
}

/* Only servers of the gang's type count: a k80 server about to free is no place to wait
 * for. The v100 servers are ready after 1500 s: E = 1000 starts (2500 >= 2000). */
static void test_other_type_ignored(void)
{
    struct world w;
    if (world_open(&w, "2x4:v100,1x4:k80"))
        return;
    uint32_t j = add_job(&w, 4, 1000, "0:2 0:3 1:2 1:3");
    add_running(&w, 2, "0:0 0:1", 1500, 0);
    add_running(&w, 2, "1:0 1:1", 1500, 0);
    add_running(&w, 4, "2:0 2:1 2:2 2:3", 1, 0);
    CHECK_I64(pays(&w, j), 1);
    world_close(&w);
}

/* Within one pass the answers for later gangs see a gang that started since (it turns
 * running with no take of its own, so a server's cached ends must not be kept while a gang
 * is being placed on it). G (3 GPUs) on 0:0 1:0 1:1 starts (every server ready at 5000 s);
 * then H (2 GPUs, E = 1000) on 2:3 3:3: server 0 (one GPU idle) is ready when G ends, 50 s:
 * H waits (1050 < 2000); without G's end it would start. */
static void test_started_gang_seen(void)
{
    struct world w;
    if (world_open(&w, "4x4:v100"))
        return;
    uint32_t g = add_job(&w, 3, 100, "0:0 1:0 1:1");
    add_running(&w, 2, "0:2 0:3", 5000, 0);
    add_running(&w, 2, "1:2 1:3", 5000, 0);
    add_running(&w, 3, "2:0 2:1 2:2", 5000, 0);
    add_running(&w, 3, "3:0 3:1 3:2", 5000, 0);
    CHECK_I64(pays(&w, g), 1);
    w.job[g].state = BERTH_JOB_RUNNING; /* as the plan's start marks it, in the same pass */
    w.job[g].work = 50.0 * SEC;
    w.job[g].rate = 1;
    w.job[g].progress_at = w.now;
    uint32_t h = add_job(&w, 2, 1000, "2:3 3:3");
    w.p.njobs = w.n;
    CHECK_I64(berth__plan_spread_pays(&w.p, &w.job[h], 0), 0);
    world_close(&w);
}

/* Where the rule does not apply the gang starts: one GPU, no class, no spread slowdown
 * (r = 1), no owner map; and the rule off (no model) in the plan. */
static void test_rule_off(void)
{
    for (int c = 0; c < 5; c++) {
        struct world w;
        if (world_open(&w, "2x4:v100"))
            return;
        uint32_t j = add_job(&w, c == 0 ? 1 : 2, 1000, c == 0 ? "0:3" : "0:3 1:3");
        add_running(&w, 3, "0:0 0:1 0:2", 1, 0);
        add_running(&w, 3, "1:0 1:1 1:2", 1, 0);
        CHECK_I64(pays(&w, j), c == 0); /* the 2-GPU gang waits a second: control */
        if (c == 1)
            w.job[j].cls = -1;
        if (c == 2)
            w.sp.factor = 0; /* no factor, no spread points: r = 1 */
        if (c == 3) {
            free(w.c->owner);
            w.c->owner = NULL;
        }
        if (c < 4)
            CHECK_I64(pays(&w, j), 1);
        CHECK_I64(berth__plan_open(&w.p, w.c, w.job, w.n, w.now,
                                   berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), 1, 0),
                  0);
        w.p.wait = (struct berth__plan_wait){0}; /* what the engine sets when the rule is off */
        CHECK_I64(berth__plan_spread_pays(&w.p, &w.job[j], 0), 1);
        world_close(&w);
    }
}

/* The owner map follows every take and give of whole GPUs (not fractional shares), and a
 * clone does not carry it. */
static void test_owner_map(void)
{
    struct world w;
    if (world_open(&w, "2x4:v100"))
        return;
    uint32_t a = add_job(&w, 3, 10, "0:1 1:0 1:3");
    CHECK_I64(berth__gpu_owner(w.c, 0, 1), a);
    CHECK_I64(berth__gpu_owner(w.c, 1, 0), a);
    CHECK_I64(berth__gpu_owner(w.c, 1, 3), a);
    CHECK_I64(berth__gpu_owner(w.c, 0, 0), UINT32_MAX);
    CHECK_I64(berth__gpu_owner(w.c, 1, 1), UINT32_MAX);
    berth__alloc_give_range(w.c, &w.job[a], 1, 3);
    CHECK_I64(berth__gpu_owner(w.c, 0, 1), a);
    CHECK_I64(berth__gpu_owner(w.c, 1, 0), UINT32_MAX);
    CHECK_I64(berth__gpu_owner(w.c, 1, 3), UINT32_MAX);
    uint32_t b = add_job(&w, 1, 10, NULL);
    w.spec[b].gpu_share_milli = 500;
    w.job[b].share = 500;
    w.job[b].slots[0] = (struct berth__slot){1, 3};
    CHECK_I64(berth__cluster_enable_shares(w.c), 0);
    berth__alloc_take(w.c, &w.job[b]);
    CHECK_I64(berth__gpu_owner(w.c, 1, 3), UINT32_MAX);
    struct berth_cluster *d = berth__cluster_clone(w.c);
    CHECK(d != NULL && d->owner == NULL);
    berth_cluster_free(d);
    berth__alloc_give(w.c, &w.job[b]);
    berth__alloc_give_range(w.c, &w.job[a], 0, 1);
    CHECK_I64(berth__gpu_owner(w.c, 0, 1), UINT32_MAX);
    verify_ok(w.c);
    world_close(&w);
}

/* When job i ends: the random states' running jobs all go by rate 1 from nothing done. */
static berth_us end_at(const struct world *w, uint32_t i)
{
    const struct berth__job *k = &w->job[i];
    return k->state == BERTH_JOB_RUNNING ? w->now + (berth_us)k->work : BERTH_TIME_NONE;
}

/* The brute force: replay the running jobs' ends in time order (every slot of every running
 * whole-GPU job), each one freeing its GPU, until some server of type 0 has the gang's GPUs
 * idle (its idle ones and the gang's own count from the start). */
static int replay(struct world *w, uint32_t ji)
{
    const struct berth__job *j = &w->job[ji];
    int32_t idle[16] = {0};
    for (uint32_t s = 0; s < w->c->nsrv; s++)
        idle[s] = w->c->srv[s].reserved ? 0 : w->c->srv[s].nfree;
    for (int32_t k = 0; k < j->gpus; k++)
        idle[j->slots[k].server]++;
    for (uint32_t s = 0; s < w->c->nsrv; s++)
        if (idle[s] >= j->gpus)
            return 1;
    berth_us last = BERTH_TIME_NONE;
    for (;;) {
        berth_us next = BERTH_TIME_NONE; /* the earliest end after last */
        for (uint32_t i = 0; i < w->n; i++) {
            berth_us end = end_at(w, i);
            if (end != BERTH_TIME_NONE && end > last && (next == BERTH_TIME_NONE || end < next))
                next = end;
        }
        if (next == BERTH_TIME_NONE)
            return 1;
        for (uint32_t i = 0; i < w->n; i++) {
            const struct berth__job *k = &w->job[i];
            for (int32_t g = 0; end_at(w, i) == next && g < k->gpus; g++)
                if (++idle[k->slots[g].server] >= j->gpus) {
                    double tc = (double)j->est_us;
                    return (double)(next - w->now) + tc >= tc / 0.5;
                }
        }
        last = next;
    }
}

/* The slots of a run of n GPUs from s:g on, as add_job reads them ("s:g s:g+1 ..."). */
static void run_at(uint32_t s, int g, int n, char *at, size_t cap)
{
    size_t o = 0;
    at[0] = 0;
    for (int k = 0; k < n; k++)
        o += (size_t)snprintf(at + o, cap - o, "%u:%d ", s, g + k);
}

/* Random states of six 4-GPU servers (ends on a 100 s grid, so ties are common; some GPUs
 * held out) against the replay. */
#define RND(n) ((int)((x = x * 6364136223846793005ULL + 1442695040888963407ULL) >> 33) % (n))
static void test_random_against_replay(void)
{
    uint64_t x = 12345;
    int waited = 0, started = 0;
    for (int round = 0; round < 400; round++) {
        struct world w;
        if (world_open(&w, "6x4:v100"))
            return;
        for (uint32_t s = 0; s < 6; s++)
            if (RND(5) == 0)
                berth__cluster_hold_out(w.c, s, 1 + RND(2));
        for (uint32_t s = 0; s < 6; s++)
            for (int g = 0; g < 4;) {
                int n = 1 + RND(3);
                if (g + n > 4)
                    n = 4 - g;
                char at[64];
                uint64_t run = ((UINT64_C(1) << n) - 1) << g; /* all idle: not held out */
                int ok = RND(3) != 0 && (w.c->srv[s].free_mask & run) == run;
                run_at(s, g, n, at, sizeof at);
                if (ok && w.n < MAXJ - 1)
                    add_running(&w, n, at, 100.0 * (1 + RND(20)), 0);
                g += n;
            }
        /* the gang: up to 4 idle GPUs, the lowest first, from two or more servers */
        char at[64] = "";
        size_t o = 0;
        int32_t want = 2 + RND(3), got = 0, servers = 0;
        for (uint32_t s = 0; s < 6 && got < want; s++) {
            int took = 0;
            for (int g = 0; g < 4 && got < want; g++)
                if (w.c->srv[s].free_mask >> g & 1 && (took < 1 || RND(2))) {
                    o += (size_t)snprintf(at + o, sizeof at - o, "%u:%d ", s, g);
                    got++;
                    took++;
                }
            servers += took > 0;
        }
        if (got == want && servers > 1) {
            uint32_t j = add_job(&w, want, 100.0 * (1 + RND(30)), at);
            int rc = pays(&w, j), ref = replay(&w, j);
            if (rc != ref)
                fprintf(stderr, "  round %d: gang %d on %s: %d, the replay %d\n", round, want, at,
                        rc, ref);
            CHECK_I64(rc, ref);
            waited += rc == 0;
            started += rc == 1;
        }
        world_close(&w);
    }
    CHECK(waited > 20 && started > 20); /* both answers were exercised */
}

/* berth__plan_spread_pays_unplaced for pending job i (holding no GPUs) on type 0 in plan q,
 * opened at now with stable ends on or off (the cache q keeps from earlier passes stays). A
 * server holding GPUs of a gang being placed is read at every question, so these ask about
 * gangs not placed, as berth__plan_start_refused_now does. */
static int pays_in(struct world *w, struct berth__plan *q, uint32_t i, int stable)
{
    CHECK_I64(berth__plan_open(q, w->c, w->job, w->n, w->now,
                               berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), 1, 0),
              0);
    q->wait = (struct berth__plan_wait){w->m, w->tput_type, &w->sp, NULL, stable};
    return berth__plan_spread_pays_unplaced(q, &w->job[i], 0);
}

/* Stable ends carry a server's ends to later passes as bounds. The gang j (4 GPUs, not
 * placed); A (0:0 0:1, two GPUs idle beside it) ends at 700 s by its rate, server 1 at
 * 1500 s, server 2 at 5000 s: W = 700 s - now. At 100 s, E = 1000 waits (600 + 1000 <
 * 2000): the scan reads the three servers. At 300 s the same question (400 + 1000 < 2000)
 * is answered from server 0's kept end, far from the threshold: no read. A gang with E a few
 * microseconds from W (waits by 3 us; the tie, which starts) is within the bound of the kept
 * end: the end is read again, and the answer is this pass's (the tie then scans on, and the
 * other servers' kept ends, far off, answer without a read). Without stable ends every pass
 * reads the witness again. */
static void test_carried_bound_decides(void)
{
    struct world w;
    if (world_open(&w, "3x4:v100"))
        return;
    uint32_t j = add_job(&w, 4, 1000, NULL);
    add_running(&w, 2, "0:0 0:1", 600, 0);
    add_running(&w, 4, "1:0 1:1 1:2 1:3", 1400, 0);
    add_running(&w, 4, "2:0 2:1 2:2 2:3", 4900, 0);
    CHECK_I64(pays_in(&w, &w.p, j, 1), 0);
    size_t reads = berth__plan_wait_reads(&w.p);
    CHECK_I64(reads, 3);
    w.now = 300 * SEC;
    CHECK_I64(pays_in(&w, &w.p, j, 1), 0);
    CHECK_I64(berth__plan_wait_reads(&w.p), (int64_t)reads); /* the witness's kept end */
    w.now = 300 * SEC + 1;                                   /* a new pass, the same ends */
    w.job[j].est_us = 400 * SEC + 2;
    w.job[j].work = (double)w.job[j].est_us;
    CHECK_I64(pays_in(&w, &w.p, j, 1), 0); /* 399.999999 + 400.000002 < 800.000004 */
    CHECK_I64(berth__plan_wait_reads(&w.p), (int64_t)reads + 1);
    w.now = 300 * SEC + 2;
    w.job[j].est_us = 400 * SEC - 2; /* 399.999998 + 399.999998 = 799.999996: the tie */
    w.job[j].work = (double)w.job[j].est_us;
    CHECK_I64(pays_in(&w, &w.p, j, 1), 1);
    CHECK_I64(berth__plan_wait_reads(&w.p), (int64_t)reads + 2);
    /* stable ends off: the same questions read the ends again at every pass */
    struct berth__plan q;
    berth__plan_init(&q);
    w.job[j].est_us = 1000 * SEC;
    w.job[j].work = (double)w.job[j].est_us;
    for (int k = 0; k < 3; k++) {
        w.now = (300 + k) * SEC;
        CHECK_I64(pays_in(&w, &q, j, 0), 0);
        CHECK_I64(berth__plan_wait_reads(&q), 3 + k); /* the scan, then the witness */
    }
    berth__plan_free(&q);
    world_close(&w);
}

/* A job the last pass touched (started, resized, restored) may run at a new rate on a server
 * whose gen did not move: its servers' kept ends are dropped at the next open. A (0:0 0:1)
 * ends at 700 s and makes j wait at 100 s; the pass touches A, whose executor then halves
 * and halves again its rate (its end moves to 2500 s): at 101 s no server is ready soon
 * enough (server 1: 1399 + 1000 >= 2000) and j starts. */
static void test_touched_job_forgotten(void)
{
    struct world w;
    if (world_open(&w, "3x4:v100"))
        return;
    uint32_t j = add_job(&w, 4, 1000, NULL);
    uint32_t a = add_running(&w, 2, "0:0 0:1", 600, 0);
    add_running(&w, 4, "1:0 1:1 1:2 1:3", 1400, 0);
    add_running(&w, 4, "2:0 2:1 2:2 2:3", 4900, 0);
    CHECK_I64(pays_in(&w, &w.p, j, 1), 0);
    CHECK_I64(berth__plan_touch(&w.p, a), 0);
    w.job[a].rate = 0.25;
    w.now = 101 * SEC;
    CHECK_I64(pays_in(&w, &w.p, j, 1), 1);
    world_close(&w);
}

/* Running job k's end at now by its rate, as plan_wait.c reckons it. */
static berth_us end_by_rate(const struct berth__job *k, berth_us now)
{
    return k->rate > 0 ? now + (berth_us)((k->work - berth__job_done(k, now)) / k->rate)
                       : BERTH_TIME_NONE;
}

/* Random states carried over passes: running jobs at uneven rates with work done (so their
 * ends round differently at each now), time moving on by a microsecond to hours (past some
 * ends: a job whose work ended waits with its end at now), now and then a job ending (its
 * GPUs given back), and gangs whose estimates sit a few microseconds either side of their
 * wait (the cases a bound cannot decide). The plan that carries its ends answers as a plan
 * that reads every end again, and reads fewer. */
static void test_carried_matches_fresh(void)
{
    static const double rates[] = {1.0 / 7.0, 0.3, 1.0 / 3.0, 0.1, 3.7, 1e-3};
    uint64_t x = 4242;
    size_t carried_reads = 0, fresh_reads = 0, carried_ready_reads = 0, fresh_ready_reads = 0;
    int waited = 0, started = 0, close = 0, drifted = 0;
    for (int round = 0; round < 150; round++) {
        struct world w;
        if (world_open(&w, "6x4:v100"))
            return;
        for (uint32_t s = 0; s < 6; s++)
            for (int g = 0; g < 4;) {
                int n = 1 + RND(3);
                if (g + n > 4)
                    n = 4 - g;
                char at[64];
                run_at(s, g, n, at, sizeof at);
                if (RND(3) != 0 && w.n < MAXJ - 4) {
                    uint32_t i = add_running(&w, n, at, 100.0 * (1 + RND(50)), 0);
                    struct berth__job *k = &w.job[i];
                    k->rate = rates[RND(6)];
                    if (RND(2)) { /* any end */
                        double big = (double)(1 + RND(1000000)) * 1e4;
                        k->work = big + RND(1000) / 7.0;
                        k->done = k->work * RND(90) / 100.0;
                        k->progress_at = w.now - RND(1000) * SEC;
                    } else { /* an end on a whole microsecond, reckoned a hair either side */
                        k->work = (double)(1 + RND(5000)) * 1000.0;
                        k->done = 0;
                        k->progress_at = w.now - RND(1000);
                    }
                }
                g += n;
            }
        /* pending gangs of 2..4 GPUs, not placed */
        uint32_t gang[3];
        int ngang = 3;
        for (int t = 0; t < ngang; t++) {
            int32_t g = 2 + RND(3);
            gang[t] = add_job(&w, g, 100.0 * (1 + RND(30)), NULL);
        }
        struct berth__plan fresh;
        berth__plan_init(&fresh);
        berth_us first_end[MAXJ];
        for (uint32_t i = 0; i < w.n; i++)
            first_end[i] = end_by_rate(&w.job[i], w.now);
        for (int pass = 0; pass < 8; pass++) {
            for (uint32_t i = 0; i < w.n; i++) /* ends that rounded otherwise than at first */
                drifted += w.job[i].state == BERTH_JOB_RUNNING && w.job[i].rate > 0 &&
                           end_by_rate(&w.job[i], w.now) > w.now &&
                           end_by_rate(&w.job[i], w.now) != first_end[i];
            if (pass) { /* time moves on; sometimes a running job ends */
                static const berth_us steps[] = {1, 7, SEC, 60 * SEC, 600 * SEC, 7200 * SEC};
                w.now += steps[RND(6)];
                uint32_t i = (uint32_t)RND((int)w.n);
                if (RND(4) == 0 && w.job[i].state == BERTH_JOB_RUNNING) {
                    berth__alloc_give(w.c, &w.job[i]);
                    w.job[i].state = BERTH_JOB_DONE;
                }
            }
            for (int t = 0; t < ngang; t++) {
                struct berth__job *jg = &w.job[gang[t]];
                if (RND(2)) { /* a few microseconds from its wait, when it has one */
                    berth_us wait = BERTH_TIME_NONE;
                    CHECK_I64(pays_in(&w, &fresh, gang[t], 0) >= 0, 1);
                    CHECK_I64(berth__plan_wait_ready(&fresh, jg, 0, 0, &wait), 0);
                    if (wait != BERTH_TIME_NONE && wait > 10) {
                        jg->est_us = wait + RND(7) - 3; /* waits iff wait < E */
                        jg->work = (double)jg->est_us;
                        close++;
                    }
                }
                size_t f0 = berth__plan_wait_reads(&fresh), c0 = berth__plan_wait_reads(&w.p);
                int want = pays_in(&w, &fresh, gang[t], 0), got = pays_in(&w, &w.p, gang[t], 1);
                fresh_reads += berth__plan_wait_reads(&fresh) - f0;
                carried_reads += berth__plan_wait_reads(&w.p) - c0;
                if (got != want)
                    fprintf(stderr, "  round %d pass %d gang %d: carried %d, fresh %d\n", round,
                            pass, t, got, want);
                CHECK_I64(got, want);
                waited += want == 0;
                started += want == 1;
                /* berth__plan_wait_ready: the least wait is the same; so is whether it is
                 * sooner than a bound a few microseconds from it (a kept end answers with a
                 * time between the server's wait and the bound) */
                berth_us lf, lc, bnd, got_w;
                f0 = berth__plan_wait_reads(&fresh);
                c0 = berth__plan_wait_reads(&w.p);
                CHECK_I64(berth__plan_wait_ready(&fresh, jg, 0, INT64_MIN, &lf), 0);
                CHECK_I64(berth__plan_wait_ready(&w.p, jg, 0, INT64_MIN, &lc), 0);
                CHECK_I64(lc, lf);
                bnd = lf == BERTH_TIME_NONE ? RND(1000) * SEC : lf + RND(7) - 3;
                CHECK_I64(berth__plan_wait_ready(&w.p, jg, 0, bnd, &got_w), 0);
                int soon = lf != BERTH_TIME_NONE && lf < bnd;
                CHECK_I64(got_w != BERTH_TIME_NONE && got_w < bnd, soon);
                CHECK(soon ? got_w >= lf : got_w == lf);
                fresh_ready_reads += berth__plan_wait_reads(&fresh) - f0;
                carried_ready_reads += berth__plan_wait_reads(&w.p) - c0;
            }
        }
        berth__plan_free(&fresh);
        world_close(&w);
    }
    CHECK(waited > 50 && started > 50 && close > 50);
    CHECK(drifted > 50); /* ends that a later pass rounds otherwise were among them */
    CHECK(carried_reads < fresh_reads); /* the kept ends answered some */
    CHECK(carried_ready_reads < fresh_ready_reads);
    if (carried_reads >= fresh_reads || carried_ready_reads >= fresh_ready_reads)
        fprintf(stderr, "  reads: carried %zu, fresh %zu; waits: carried %zu, fresh %zu\n",
                carried_reads, fresh_reads, carried_ready_reads, fresh_ready_reads);
}

/* The free-GPU buckets of type 0, in order, as text. */
static void buckets(const struct berth_cluster *c, char *out, size_t cap)
{
    size_t o = 0;
    for (int f = 0; f <= c->types[0].max_per_server; f++) {
        o += (size_t)snprintf(out + o, cap - o, "[%d]", f);
        for (int32_t s = c->types[0].head[f]; s >= 0 && o < cap; s = c->srv[s].next)
            o += (size_t)snprintf(out + o, cap - o, " %d", s);
    }
}

/* A start that consolidate-or-wait refuses is decided without placing the gang
 * (berth__plan_start_refused_now, sched/plan_refuse.c): on random states it answers as the
 * placement does, and leaves the buckets in the same order (the servers the placement would have
 * taken and given back at the heads of their buckets); a start it lets through is the placement's.
 */
static void test_unplaced_matches_placed(void)
{
    uint64_t x = 777;
    int refused = 0, started = 0;
    for (int round = 0; round < 400; round++) {
        struct world w;
        if (world_open(&w, "8x4:v100"))
            return;
        for (uint32_t s = 0; s < 8; s++)
            for (int g = 0; g < 4;) {
                int n = 1 + RND(3);
                n = g + n > 4 ? 4 - g : n;
                char at[64];
                run_at(s, g, n, at, sizeof at);
                if (RND(3) != 0 && w.n < MAXJ - 1)
                    add_running(&w, n, at, 100.0 * (1 + RND(20)), 0);
                g += n;
            }
        int32_t gang = 2 + RND(3);
        uint32_t j = add_job(&w, gang, 100.0 * (1 + RND(30)), NULL);
        struct berth_cluster *twin = berth__cluster_clone(w.c);
        struct berth__slot *mine = w.job[j].slots, theirs[8], got[2][8];
        if (!twin || berth__cluster_track_owners(twin)) {
            check_failures++;
            world_close(&w);
            return;
        }
        memcpy(twin->owner, w.c->owner, w.c->nsrv * (size_t)w.c->max_per_server * 4);
        const struct berth__job before = w.job[j];
        int rc[2];
        char b[2][512];
        for (int way = 0; way < 2; way++) { /* 0: as built, 1: placed for real (the twin) */
            struct berth_cluster *c = way ? twin : w.c;
            struct berth_err err = {0};
            w.job[j] = before;
            w.job[j].slots = way ? theirs : mine;
            berth__plan_no_unplaced = way;
            CHECK_I64(berth__plan_open(&w.p, c, w.job, w.n, w.now,
                                       berth__placement_stateless(BERTH_PLACE_CONSOLIDATE), 1, 0),
                      0);
            w.p.wait = (struct berth__plan_wait){w.m, w.tput_type, &w.sp, NULL, 0};
            rc[way] = berth__plan_start(&w.p, j, &err);
            buckets(c, b[way], sizeof b[way]);
            memcpy(got[way], w.job[j].slots, (size_t)w.job[j].gpus * sizeof *got[way]);
        }
        w.job[j].slots = mine;
        berth__plan_no_unplaced = 0;
        CHECK_I64(rc[0], rc[1]);
        CHECK_STR(b[0], b[1]);
        if (rc[0] == 0 && rc[1] == 0)
            CHECK(!memcmp(got[0], got[1], (size_t)w.job[j].gpus * sizeof *got[0]));
        refused += rc[0] == BERTH_NOFIT;
        started += rc[0] == 0;
        berth_cluster_free(twin);
        world_close(&w);
    }
    CHECK(refused > 20 && started > 20);
}

static const struct check_test tests[] = {
    {"first_ready_server", test_first_ready_server},
    {"witness_first", test_witness_first},
    {"kth_end", test_kth_end},
    {"never_free_and_fits_now", test_never_free_and_fits_now},
    {"other_type_ignored", test_other_type_ignored},
    {"started_gang_seen", test_started_gang_seen},
    {"rule_off", test_rule_off},
    {"owner_map", test_owner_map},
    {"random_against_replay", test_random_against_replay},
    {"unplaced_matches_placed", test_unplaced_matches_placed},
    {"carried_bound_decides", test_carried_bound_decides},
    {"carried_matches_fresh", test_carried_matches_fresh},
    {"touched_job_forgotten", test_touched_job_forgotten},
};

CHECK_MAIN(tests)
