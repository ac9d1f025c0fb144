/* The per-server summary of preemptive admissions (sched/preempt_pick.c), on hand-made
 * cases: which server a gang completes first, which victims it needs and which GPUs it gets,
 * when the answer changes because two key lines cross, when a job stops being a victim, and
 * when the cluster changes under the summary. Keys are set by the test (line(): rank and
 * slope per job). */
#include "plantest.h"
#include "sched/preempt_pick.h"

enum { NJ = 8 };

struct fix {
    struct berth_cluster *c;
    struct pjob pj[NJ];
    struct berth__job jobs[NJ];
    struct berth__ppick_line lines[NJ];
    struct berth__ppick *pp;
};

static void line(void *ctx, uint32_t j, struct berth__ppick_line *out)
{
    *out = ((const struct fix *)ctx)->lines[j];
}

/* Job j runs on server s, GPUs [g0, g0 + n), its key rank + slope * t. */
static void run_on(struct fix *f, uint32_t j, uint32_t s, uint32_t g0, int32_t n, int64_t rank,
                   int64_t slope)
{
    static const char *ids[NJ] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    pjob_init(&f->pj[j], j, ids[j], n, 0, -1);
    f->jobs[j] = f->pj[j].job;
    f->jobs[j].spec = &f->pj[j].spec;
    f->jobs[j].slots = malloc((size_t)n * sizeof *f->jobs[j].slots);
    for (int32_t k = 0; k < n; k++)
        f->jobs[j].slots[k] = (struct berth__slot){s, g0 + (uint32_t)k};
    f->jobs[j].state = BERTH_JOB_RUNNING;
    berth__alloc_take(f->c, &f->jobs[j]);
    f->lines[j] = (struct berth__ppick_line){1, rank, slope};
}

static int fix_open(struct fix *f, const char *cluster)
{
    memset(f, 0, sizeof *f);
    if (!(f->c = parse_ok(cluster)) || berth__cluster_track_owners(f->c) ||
        berth__cluster_track_changes(f->c))
        return -1;
    return 0;
}

static void fix_close(struct fix *f)
{
    berth__ppick_destroy(f->pp);
    for (int j = 0; j < NJ; j++)
        free(f->jobs[j].slots);
    berth_cluster_free(f->c);
}

static const char *kept_of(const struct berth__ppick_result *r, const struct fix *f)
{
    static char buf[64];
    size_t o = 0;
    buf[0] = '\0';
    for (int32_t i = 0; i < r->nkept; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? "," : "",
                              f->jobs[r->kept[i]].spec->id);
    return buf;
}

/* Two servers of 4 GPUs. Server 0: a (2 GPUs, key 50) and b (2 GPUs, key 10). Server 1: one
 * GPU idle, c (1 GPU, key 40), d (2 GPUs, key 30). A gang of 4 completes server 1 at d (key
 * 30: c then d) and server 0 at b (key 10): server 1 first, taking c and d; its GPUs: the idle
 * one (3) and c's and d's, the lowest four of them: 0, 1, 2, 3. With the bar at 30 (the waiting
 * job's key), d is no victim (not worse), and server 0 needs b (10): nothing. */
static void test_by_hand(void)
{
    struct fix f;
    if (fix_open(&f, "2x4:v100"))
        return;
    run_on(&f, 0, 0, 0, 2, 50, 0);
    run_on(&f, 1, 0, 2, 2, 10, 0);
    run_on(&f, 2, 1, 0, 1, 40, 0);
    run_on(&f, 3, 1, 1, 2, 30, 0);
    CHECK(f.pp = berth__ppick_create(f.c, line, &f));
    struct berth__ppick_result r;
    CHECK_I64(berth__ppick_find(f.pp, f.jobs, 0, 4, 0, 7, 100, &r), 1);
    CHECK_I64(r.server, 1);
    CHECK_STR(kept_of(&r, &f), "c,d");
    CHECK_I64(r.slots[0].gpu, 0);
    CHECK_I64(r.slots[3].gpu, 3);
    CHECK_I64(berth__ppick_find(f.pp, f.jobs, 0, 4, 30, 7, 100, &r), 0);
    /* a gang of 2: server 0 completes at a (key 50), server 1 at c (idle 1 + c's 1): a first */
    CHECK_I64(berth__ppick_find(f.pp, f.jobs, 0, 2, 0, 7, 100, &r), 1);
    CHECK_I64(r.server, 0);
    CHECK_STR(kept_of(&r, &f), "a");
    /* a stops being a victim (its protection, say): server 1 via c (40) now */
    f.lines[0].victim = 0;
    CHECK_I64(berth__ppick_touch_job(f.pp, &f.jobs[0]), 0);
    CHECK_I64(berth__ppick_find(f.pp, f.jobs, 0, 2, 0, 7, 100, &r), 1);
    CHECK_I64(r.server, 1);
    CHECK_STR(kept_of(&r, &f), "c");
    /* c finishes (its GPUs idle): server 1 holds a gang of 2 without victims: not known */
    berth__alloc_give(f.c, &f.jobs[2]);
    CHECK_I64(berth__ppick_find(f.pp, f.jobs, 0, 2, 0, 7, 100, &r), -1);
    fix_close(&f);
}

/* Lines that cross: on server 0, a (key 100 + t) and b (key 4 t), 2 GPUs each; on server 1,
 * c (key 60) on all 4. A gang of 4 completes server 0 at the better of a and b, server 1 at
 * c. At t = 10, a = 110, b = 40: server 0 completes at 40, server 1 at 60: server 1. At t =
 * 15, b = 60 = c, and c's number is the higher: c is tried first, still server 1. From t = 16
 * server 0 (b = 64). At t = 34 b (136) overtakes a (134): the victims' order follows. */
static void test_crossing(void)
{
    struct fix f;
    if (fix_open(&f, "2x4:v100"))
        return;
    run_on(&f, 0, 0, 0, 2, 100, 1);
    run_on(&f, 1, 0, 2, 2, 0, 4);
    run_on(&f, 2, 1, 0, 4, 60, 0);
    CHECK(f.pp = berth__ppick_create(f.c, line, &f));
    struct berth__ppick_result r;
    CHECK_I64(berth__ppick_find(f.pp, f.jobs, 0, 4, 0, 7, 10, &r), 1);
    CHECK_I64(r.server, 1);
    CHECK_I64(berth__ppick_find(f.pp, f.jobs, 0, 4, 0, 7, 15, &r), 1);
    CHECK_I64(r.server, 1); /* b = 60 = c, c's number is higher: c is tried first */
    CHECK_I64(berth__ppick_find(f.pp, f.jobs, 0, 4, 0, 7, 16, &r), 1);
    CHECK_I64(r.server, 0);
    CHECK_STR(kept_of(&r, &f), "a,b"); /* a = 116 before b = 64 */
    /* later b overtakes a (4 t vs 100 + t: t > 33.3): the order of the victims follows */
    CHECK_I64(berth__ppick_find(f.pp, f.jobs, 0, 4, 0, 7, 34, &r), 1);
    CHECK_STR(kept_of(&r, &f), "b,a");
    fix_close(&f);
}

/* A job that completes two servers at once (a gang across them): the placement's tightest,
 * the one with fewer idle GPUs once freed; on a tie, the later in the job's slots. */
static void test_two_servers(void)
{
    struct fix f;
    if (fix_open(&f, "3x4:v100"))
        return;
    /* a spans servers 0 and 1 (GPUs 0-1 of each, the worst key); b has server 1's other two
     * (key 5, below the bar of 10 used here); server 0's GPUs 2-3 are idle; c fills server 2 */
    run_on(&f, 1, 1, 2, 2, 5, 0);
    pjob_init(&f.pj[0], 0, "a", 4, 0, -1);
    f.jobs[0] = f.pj[0].job;
    f.jobs[0].spec = &f.pj[0].spec;
    f.jobs[0].slots = malloc(4 * sizeof *f.jobs[0].slots);
    f.jobs[0].slots[0] = (struct berth__slot){0, 0};
    f.jobs[0].slots[1] = (struct berth__slot){0, 1};
    f.jobs[0].slots[2] = (struct berth__slot){1, 0};
    f.jobs[0].slots[3] = (struct berth__slot){1, 1};
    f.jobs[0].state = BERTH_JOB_RUNNING;
    berth__alloc_take(f.c, &f.jobs[0]);
    f.lines[0] = (struct berth__ppick_line){1, 90, 0};
    run_on(&f, 2, 2, 0, 4, 20, 0); /* c fills server 2 */
    CHECK(f.pp = berth__ppick_create(f.c, line, &f));
    struct berth__ppick_result r;
    /* a gang of 2: server 0 holds it already (2 idle), which the summary leaves to the trial */
    CHECK_I64(berth__ppick_find(f.pp, f.jobs, 0, 2, 10, 7, 100, &r), -1);
    /* d takes server 0's idle GPUs (key 1: tried after a): a completes servers 0 and 1 with 2
     * idle GPUs each, a tie the later of a's slots breaks (server 1, the head of its bucket) */
    run_on(&f, 3, 0, 2, 2, 1, 0);
    CHECK_I64(berth__ppick_find(f.pp, f.jobs, 0, 2, 10, 7, 100, &r), 1);
    CHECK_I64(r.server, 1);
    CHECK_STR(kept_of(&r, &f), "a");
    CHECK_I64(r.slots[0].gpu, 0);
    CHECK_I64(r.slots[1].gpu, 1);
    fix_close(&f);
}

static const struct check_test tests[] = {
    {"by_hand", test_by_hand},
    {"crossing", test_crossing},
    {"two_servers", test_two_servers},
};

CHECK_MAIN(tests)
