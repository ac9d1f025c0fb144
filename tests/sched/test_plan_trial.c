/* Trials of the plan (sched/plan_trial.c): everything a trial did is taken back exactly — the
 * order of every free-GPU bucket, masks, counts, owners, shares and the partial lists, CPU and
 * memory, the jobs' records and slots, the touched list — and a trial that is kept equals the
 * same edits made without one. A hand-made case, then random edits on random clusters (two
 * GPU types, CPU and memory on some servers, fractional jobs, gangs across servers). */
#include "plantest.h"
#include "util/rng.h"

/* Everything the trial may touch, as text: two states are the same when their texts are. */
static char *dump(const struct berth_cluster *c, const struct berth__job *jobs, size_t njobs,
                  const struct berth__plan *p)
{
    size_t cap = 1 << 20, o = 0;
    char *b = malloc(cap);
    if (!b)
        return NULL;
#define OUT(...) o += (size_t)snprintf(b + o, o < cap ? cap - o : 0, __VA_ARGS__)
    OUT("free %d\n", c->free);
    for (size_t t = 0; t < c->ntypes; t++) {
        const struct berth__gputype *ty = &c->types[t];
        OUT("type %zu free %d:", t, ty->free);
        for (int f = 0; f <= ty->max_per_server; f++) {
            OUT(" [%d]", f);
            for (int32_t s = ty->head[f]; s >= 0; s = c->srv[s].next)
                OUT(" %d(%d)", s, c->srv[s].prev);
        }
        OUT(" partial");
        for (size_t i = 0; i < ty->npartial; i++)
            OUT(" %u:%u", ty->partial[i].server, ty->partial[i].gpu);
        OUT("\n");
    }
    for (size_t s = 0; s < c->nsrv; s++) {
        const struct berth__server *v = &c->srv[s];
        OUT("srv %zu mask %llx nfree %d cpu %lld mem %lld out %llx", s,
            (unsigned long long)v->free_mask, v->nfree, (long long)v->cpu_free,
            (long long)v->mem_free, (unsigned long long)v->out_mask);
        for (int g = 0; v->shares && g < v->ngpus; g++)
            OUT(" %d/%lld/%d", v->shares->used[g], (long long)v->shares->mem[g], v->shares->pos[g]);
        for (int g = 0; c->owner && g < c->max_per_server; g++)
            OUT(" o%u", c->owner[s * (size_t)c->max_per_server + (size_t)g]);
        OUT("\n");
    }
    OUT("frac_idle %lld out %d\n", (long long)c->frac_idle, c->out_gpus);
    for (size_t i = 0; i < njobs; i++) {
        const struct berth__job *j = &jobs[i];
        /* a job not running: its slots are not read (a restore reads the plan's snapshot) */
        OUT("job %zu st %d since %lld run %lld gpu %lld type %d srv %d gpus %d share %d:", i,
            j->state, (long long)j->since, (long long)j->run_us, (long long)j->gpu_us, j->type,
            j->servers, j->gpus, j->share);
        for (int32_t k = 0; j->state == BERTH_JOB_RUNNING && k < berth__job_nslots(j); k++)
            OUT(" %u:%u", j->slots[k].server, j->slots[k].gpu);
        OUT("\n");
    }
    OUT("plan touched %zu snaps %zu pending %zu running %zu:", p->ntouched, p->nsnaps, p->npending,
        p->nrunning);
    for (size_t i = 0; i < p->ntouched; i++)
        OUT(" %u/%d", p->touched[i].job, p->touched[i].was_running);
    for (size_t i = 0; i < njobs; i++)
        OUT(" %d", p->touch_of[i]);
#undef OUT
    CHECK(o < cap);
    return b;
}

static void check_same(const char *what, const char *a, const char *b)
{
    if (!a || !b || strcmp(a, b)) {
        check_failures++;
        fprintf(stderr, "  %s: the states differ\n", what);
        if (a && b) {
            size_t i = 0;
            while (a[i] && a[i] == b[i])
                i++;
            size_t from = i > 200 ? i - 200 : 0;
            fprintf(stderr, "  before: ...%.400s\n  after:  ...%.400s\n", a + from, b + from);
        }
    }
}

/* A trial that preempts, starts and restores, taken back: the buckets' order is the old one
 * (an ordinary restore would leave the servers it touched at the heads of their buckets). */
static void test_undo_by_hand(void)
{
    struct berth_cluster *c = parse_ok("4x8:v100");
    if (!c)
        return;
    struct pjob a, b, d;
    pjob_init(&a, 0, "a", 3, 0, -1);
    pjob_init(&b, 1, "b", 3, 0, -1);
    pjob_init(&d, 2, "d", 8, 0, -1);
    struct berth__job jobs[3] = {a.job, b.job, d.job};
    jobs[0].spec = &a.spec;
    jobs[1].spec = &b.spec;
    jobs[2].spec = &d.spec;
    struct berth__plan p;
    berth__plan_init(&p);
    struct berth_err err = {0};
    const struct berth__placement *pl = berth__placement_stateless(BERTH_PLACE_CONSOLIDATE);
    CHECK_I64(berth__plan_open(&p, c, jobs, 3, 0, pl, 3, 0), 0);
    CHECK_I64(berth__plan_start(&p, 0, &err), 0); /* a on server 0 */
    CHECK_I64(berth__plan_start(&p, 1, &err), 0); /* b on server 0 too (tightest) */
    CHECK_STR(slots_of(&jobs[1]), "0:3 0:4 0:5");
    CHECK_STR(bucket(c, 0, 8), "1,2,3");
    CHECK_STR(bucket(c, 0, 2), "0");
    /* a later pass: a trial preempts a and b, starts d on server 0, gives b back, undone */
    CHECK_I64(berth__plan_open(&p, c, jobs, 3, 10 * BERTH_US_PER_S, pl, 1, 2), 0);
    char *before = dump(c, jobs, 3, &p);
    CHECK_I64(berth__plan_trial_begin(&p), 0);
    CHECK_I64(berth__plan_trial_room(&p, 16), 0);
    CHECK_I64(berth__plan_preempt(&p, 0, &err), 0);
    CHECK_I64(berth__plan_preempt(&p, 1, &err), 0);
    CHECK_STR(bucket(c, 0, 8), "0,1,2,3");
    CHECK_I64(berth__plan_start(&p, 2, &err), 0);
    CHECK_STR(slots_of(&jobs[2]), "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7");
    CHECK_I64(berth__plan_can_restore(&p, 1), 0);
    CHECK_I64(berth__plan_preempt(&p, 2, &err), 0);
    CHECK_I64(berth__plan_restore(&p, 1, &err), 0);
    CHECK_STR(bucket(c, 0, 5), "0");
    uint32_t gen_in_trial = c->srv[0].gen;
    berth__plan_trial_undo(&p);
    /* the gen moves on: a cache keyed by it must not take the rolled-back state for the
     * trial's last (plan_wait.c's ends) */
    CHECK(c->srv[0].gen != gen_in_trial);
    char *after = dump(c, jobs, 3, &p);
    check_same("undo by hand", before, after);
    CHECK_STR(bucket(c, 0, 8), "1,2,3");
    CHECK_STR(bucket(c, 0, 2), "0");
    CHECK_I64(jobs[0].state, BERTH_JOB_RUNNING);
    CHECK_I64(jobs[0].since, 0); /* not folded: as if never preempted */
    CHECK_I64(jobs[2].state, BERTH_JOB_PENDING);
    CHECK_I64(p.ntouched, 0);
    verify_ok(c);
    free(before);
    free(after);
    for (int k = 0; k < 3; k++)
        free(jobs[k].slots);
    berth__plan_free(&p);
    berth_cluster_free(c);
}

enum { NJOBS = 48 };

struct world {
    struct berth_cluster *c;
    struct berth_jobspec spec[NJOBS];
    struct berth__job jobs[NJOBS];
    char ids[NJOBS][8];
};

/* Servers of two types, some with CPU and memory, owners tracked; shares on (fractional
 * jobs) when frac. */
static struct berth_cluster *random_cluster(struct berth__rng *r, int frac)
{
    struct berth__cluster_builder b;
    berth__builder_init(&b);
    int n = 3 + (int)berth__rng_below(r, 6), cm = (int)berth__rng_below(r, 2);
    for (int i = 0; i < n; i++) {
        struct berth__server_spec sp = {.type = i % 3 == 2 ? "k80" : "v100",
                                        .gpus = 1 + (int32_t)berth__rng_below(r, 8)};
        if (cm && berth__rng_below(r, 2)) {
            sp.cpu_milli = 8000 + 1000 * (int64_t)berth__rng_below(r, 24);
            sp.mem_mib = 65536;
        }
        if (berth__builder_add(&b, &sp))
            break;
    }
    struct berth_cluster *c = NULL;
    struct berth_err err = {0};
    if (berth__builder_build(&b, "test", &c, &err))
        c = NULL;
    berth__builder_free(&b);
    if (c && (berth__cluster_track_owners(c) || (frac && berth__cluster_enable_shares(c)))) {
        berth_cluster_free(c);
        c = NULL;
    }
    return c;
}

static void random_jobs(struct world *w, struct berth__rng *r, int frac)
{
    for (int i = 0; i < NJOBS; i++) {
        snprintf(w->ids[i], sizeof w->ids[i], "j%d", i);
        int32_t g = 1 + (int32_t)berth__rng_below(r, 10);
        w->spec[i] = jobspec_make(w->ids[i], 100 * BERTH_US_PER_S, g, g, g);
        struct berth_jobspec_extra *x = jobspec_x(&w->spec[i]);
        x->job_type = x->user = x->gpu_type = "";
        if (frac && berth__rng_below(r, 3) == 0) {
            w->spec[i].num_gpus = w->spec[i].min_gpus = w->spec[i].max_gpus = 1;
            w->spec[i].gpu_share_milli = (int16_t)(100 * (1 + berth__rng_below(r, 9)));
        }
        if (berth__rng_below(r, 3) == 0)
            x->cpu_milli = 1000 * (int64_t)(1 + berth__rng_below(r, 8));
        w->spec[i].single_server = (uint8_t)(berth__rng_below(r, 4) == 0);
        berth__job_init(&w->jobs[i], &w->spec[i], (uint32_t)i, w->c);
        w->jobs[i].state = BERTH_JOB_PENDING;
    }
}

/* One random edit of the plan (any may be refused). */
static void random_edit(struct berth__plan *p, struct world *w, struct berth__rng *r)
{
    struct berth_err err = {0};
    uint32_t j = (uint32_t)berth__rng_below(r, NJOBS);
    struct berth__job *job = &w->jobs[j];
    switch (berth__rng_below(r, 5)) {
    case 0:
        if (job->state == BERTH_JOB_RUNNING)
            CHECK_I64(berth__plan_preempt(p, j, &err), 0);
        break;
    case 1:
        if (job->state == BERTH_JOB_PENDING) {
            int rc = berth__plan_start(p, j, &err);
            CHECK(rc == 0 || rc == BERTH_NOFIT);
        }
        break;
    case 2:
        if (job->state == BERTH_JOB_PENDING && berth__plan_can_restore(p, j))
            CHECK_I64(berth__plan_restore(p, j, &err), 0);
        break;
    case 3:
        if (job->state == BERTH_JOB_PENDING) {
            int rc = berth__plan_start_on(p, j, (uint32_t)berth__rng_below(r, w->c->nsrv), &err);
            CHECK(rc == 0 || rc == BERTH_NOFIT);
        }
        break;
    default: /* a whole-GPU job on the lowest idle GPUs of its type, across servers */
        if (job->state == BERTH_JOB_PENDING && job->share == 1000 && job->gpus > 0 &&
            !job->single) {
            struct berth__slot sl[16];
            int32_t n = 0;
            int t = -1;
            for (size_t s = 0; s < w->c->nsrv && n < job->gpus; s++) {
                if (t >= 0 && w->c->srv[s].type != t)
                    continue;
                for (uint64_t m = w->c->srv[s].free_mask; m && n < job->gpus; m &= m - 1) {
                    t = w->c->srv[s].type;
                    sl[n++] = (struct berth__slot){(uint32_t)s, (uint32_t)__builtin_ctzll(m)};
                }
            }
            if (n == job->gpus) {
                int rc = berth__plan_start_slots(p, j, sl, &err);
                CHECK(rc == 0 || rc == BERTH_NOFIT);
            }
        }
        break;
    }
}

/* Random clusters and jobs; a first pass starts some, then in each later pass a trial of
 * random edits is either taken back (the state must be the one before) or kept (the state
 * must be the one the same edits make on a copy without a trial). */
static void test_undo_random(void)
{
    struct berth__rng r;
    int cases = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        berth__rng_seed(&r, seed);
        int frac = seed % 3 == 0;
        struct world *w = calloc(1, sizeof *w), *twin = calloc(1, sizeof *twin);
        if (!w || !twin || !(w->c = random_cluster(&r, frac))) {
            free(w);
            free(twin);
            continue;
        }
        random_jobs(w, &r, frac);
        const struct berth__placement *pl =
            berth__placement_stateless((int)(seed % 3)); /* consolidate, spread, best-fit */
        struct berth__plan p;
        berth__plan_init(&p);
        struct berth_err err = {0};
        CHECK_I64(berth__plan_open(&p, w->c, w->jobs, NJOBS, 0, pl, NJOBS, 0), 0);
        for (uint32_t j = 0; j < NJOBS; j++)
            if (berth__rng_below(&r, 2))
                (void)berth__plan_start(&p, j, &err);
        for (int pass = 1; pass <= 6; pass++) {
            size_t npend = 0, nrun = 0;
            for (int j = 0; j < NJOBS; j++) {
                npend += w->jobs[j].state == BERTH_JOB_PENDING;
                nrun += w->jobs[j].state == BERTH_JOB_RUNNING;
            }
            berth_us now = (berth_us)pass * 7 * BERTH_US_PER_S;
            CHECK_I64(berth__plan_open(&p, w->c, w->jobs, NJOBS, now, pl, npend, nrun), 0);
            for (int k = 0; k < (int)berth__rng_below(&r, 4); k++) /* edits before the trial */
                random_edit(&p, w, &r);
            char *before = dump(w->c, w->jobs, NJOBS, &p);
            /* the twin: the same world, edited without a trial */
            struct berth__plan tp;
            berth__plan_init(&tp);
            twin->c = berth__cluster_clone(w->c);
            int keep = (int)berth__rng_below(&r, 2);
            if (!twin->c || berth__cluster_track_owners(twin->c)) {
                check_failures++;
                free(before);
                break;
            }
            if (w->c->owner)
                memcpy(twin->c->owner, w->c->owner,
                       w->c->nsrv * (size_t)w->c->max_per_server * sizeof *w->c->owner);
            memcpy(twin->spec, w->spec, sizeof w->spec);
            memcpy(twin->jobs, w->jobs, sizeof w->jobs);
            for (int j = 0; j < NJOBS; j++) {
                twin->jobs[j].spec = &w->spec[j];
                if (w->jobs[j].slots) {
                    size_t n = (size_t)w->spec[j].max_gpus > 1 ? (size_t)w->spec[j].max_gpus : 1;
                    twin->jobs[j].slots = malloc(n * sizeof *twin->jobs[j].slots);
                    memcpy(twin->jobs[j].slots, w->jobs[j].slots, n * sizeof *twin->jobs[j].slots);
                }
            }
            CHECK_I64(
                berth__plan_open(&tp, twin->c, twin->jobs, NJOBS, now, pl, p.npending, p.nrunning),
                0);
            CHECK_I64(berth__plan_trial_begin(&p), 0);
            struct berth__rng r2 = r;
            int nedits = 1 + (int)berth__rng_below(&r, 12);
            for (int k = 0; k < nedits; k++) {
                CHECK_I64(berth__plan_trial_room(&p, 20), 0);
                random_edit(&p, w, &r);
            }
            verify_ok(w->c);
            if (keep) {
                berth__plan_trial_end(&p);
                (void)berth__rng_below(&r2, 12);
                for (int k = 0; k < nedits; k++)
                    random_edit(&tp, twin, &r2);
                /* the cluster and the jobs as the twin's (the plans' touched lists differ in
                 * what came before the trial) */
                char *mine = dump(w->c, w->jobs, NJOBS, &tp);
                char *theirs = dump(twin->c, twin->jobs, NJOBS, &tp);
                check_same("kept trial", theirs, mine);
                free(mine);
                free(theirs);
            } else {
                berth__plan_trial_undo(&p);
                char *after = dump(w->c, w->jobs, NJOBS, &p);
                check_same("undone trial", before, after);
                free(after);
            }
            verify_ok(w->c);
            cases++;
            free(before);
            for (int j = 0; j < NJOBS; j++)
                free(twin->jobs[j].slots);
            berth__plan_free(&tp);
            berth_cluster_free(twin->c);
            if (check_failures) {
                fprintf(stderr, "  seed %llu pass %d\n", (unsigned long long)seed, pass);
                break;
            }
        }
        for (int j = 0; j < NJOBS; j++)
            free(w->jobs[j].slots);
        berth__plan_free(&p);
        berth_cluster_free(w->c);
        free(w);
        free(twin);
        if (check_failures)
            break;
    }
    CHECK(cases > 1000);
}

static const struct check_test tests[] = {
    {"undo_by_hand", test_undo_by_hand},
    {"undo_random", test_undo_random},
};

CHECK_MAIN(tests)
