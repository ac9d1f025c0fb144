/* Consolidate-or-wait: with measured (or penalised) rates across servers a spread gang can
 * run at a small fraction of its speed, and starting it so can finish it later than waiting
 * for one server to hold it. The plan asks, for a gang its placement spread over servers,
 * whether spreading now pays (plan.h):
 *
 *   spread now:  done after Tc / r, where Tc is the work left at the one-server speed (its
 *                expected run time alone times the fraction left) and r the model's spread
 *                ratio for its class, gang and GPU type (model/tput.h);
 *   wait:        done after W + Tc, where W is the time until the first server of the type
 *                has the gang's GPUs idle, from the running jobs' expected ends (work left
 *                over their current rate) on it.
 *
 * The gang starts spread unless waiting finishes it strictly sooner. No server of the type
 * large enough, a server that could hold it now (the placement chose to spread), no class,
 * no known model type, or r >= 1: it starts. Fractional jobs' GPUs count as never freed
 * (the estimate then leans to spreading).
 *
 * W is the least, over the servers of the type, of the time the server's idle GPUs reach
 * the gang: its k-th earliest end among the whole-GPU jobs on it, k the GPUs it lacks. The
 * cluster's owner map (model/alloc.h) names the job on each GPU, so no walk over the jobs
 * (in overload mostly pending) and no sort of every running slot is needed, as they were
 * per attempt before (90 % of an overloaded las run); and as the test is monotone in W, the
 * first server ready soon enough decides. The server that last decided so for a gang of the
 * same size is asked first:
 * in overload a gang is retried after each victim a preemption frees (50 times a pass), and
 * the same server still decides, so the retry costs O(GPUs per server) instead of a scan
 * from the fullest servers (43 servers a try, 62 % of an overloaded las run at 400,000 jobs).
 * With a topology (cluster->topo) r is the executor's factor (model/topo_rate.h) for the level
 * the placed gang spans over the one a server gives it, for every job (by steps or by
 * duration); the rule then asks only once the gang is placed (the unplaced answer and the
 * patience, which plan_refuse.c and gavel.c use to skip a placement, are "start as usual"),
 * as where the pieces went decides the level.
 * Cost: O(GPUs of the type) per spread gang at most, only when the rule is on. Without the owner
 * map (a plan outside an engine, which turns it on) the gang starts. */
#include <math.h>
#include <stdlib.h>

#include "model/alloc.h"
#include "model/topo.h"
#include "model/topo_rate.h"
#include "model/tput.h"
#include "sched/plan.h"
#include "sched/refuse.h"

/* Microseconds of work left for job k at its one-server speed alone, from its estimate. */
static double left_us(const struct berth__job *k, berth_us now)
{
    double frac = k->work > 0 ? 1.0 - berth__job_done(k, now) / k->work : 1.0;
    return (frac > 0 ? frac : 0) * (double)k->est_us;
}

/* When running whole-GPU job k is expected to end, from its rate (else its estimate). */
static berth_us end_of(const struct berth__job *k, berth_us now)
{
    return k->rate > 0 ? now + (berth_us)((k->work - berth__job_done(k, now)) / k->rate)
                       : now + (berth_us)left_us(k, now);
}

/* How far end_of(k, t) may be from end e = end_of(k, now) at any later t before it, the
 * job's rate and progress as they are; -1 when e is no such bound (no rate: the estimate's
 * end moves with now; an end due by now + tol: its work may have ended, when the end is now).
 * Reckoned again, the end moves only by the rounding of the doubles: each of the four
 * operations is off by at most 2^-53 of the largest magnitude B among work, done and the
 * progress since progress_at (at most twice as large later, while the work is not done), over
 * the rate, and the cast by 1 microsecond; so by 2 + 15 * 2^-53 * B / rate between two
 * reckonings. tol is 4 + 1e-13 * B / rate, some 50 times that. */
static berth_us end_tol(const struct berth__job *k, berth_us now, berth_us e)
{
    if (!(k->rate > 0))
        return -1;
    double b = fabs(k->work) + fabs(k->done) + fabs(k->rate * (double)(now - k->progress_at));
    double tol = 4.0 + 1e-13 * b / k->rate;
    if (!(tol < 1e12))
        return -1; /* not finite, or too loose to decide anything */
    berth_us t = (berth_us)tol + 1;
    return e - t > now ? t : -1;
}

/* Per server, the expected ends of the running whole-GPU jobs on it, sorted: valid within
 * one pass (the jobs' rates hold) while the server's gen (every take and give) holds, so a
 * pass that retries many gangs reads each server's jobs once per change. A server with GPUs
 * of a gang being placed is not kept: the gang becomes running with no take of its own.
 *
 * With stable ends (plan.h) an entry also serves later passes while its gen holds, as a
 * bound: each end, reckoned again at a later now, moves only by rounding, at most tol[s]
 * microseconds (end_tol), so a question whose answer is the same anywhere within tol of
 * the kept end is answered from it, and only the others read the jobs again (in overload
 * nine in ten of the ends read were the same ones as in the pass before, and reading them
 * was a fifth of a las run). */
#define WITNESSES 8

struct berth__ready {
    berth_us *ends; /* stride per server */
    berth_us *tol;  /* per server: how far its ends may be from a later pass's, -1: unknown */
    uint32_t *gen, *pass;
    uint8_t *n;
    size_t nsrv, stride;
    const struct berth_cluster *cluster; /* the one it was made for */
    /* per gang size (the last entry for every larger one): the servers that last made such
     * a gang wait, newest at wnext - 1 (UINT32_MAX: none); gangs of different sizes wait for
     * different servers, and the one that decided last is often the one a start just took */
    uint32_t witness[BERTH_MAX_SERVER_GPUS + 1][WITNESSES];
    uint8_t wnext[BERTH_MAX_SERVER_GPUS + 1];
    size_t asked; /* servers asked so far (the tests count them) */
    size_t reads; /* servers' jobs read (refresh) so far */
};

void berth__plan_wait_free(struct berth__plan *p)
{
    if (!p->ready)
        return;
    free(p->ready->ends);
    free(p->ready->tol);
    free(p->ready->gen);
    free(p->ready->pass);
    free(p->ready->n);
    free(p->ready);
    p->ready = NULL;
}

void berth__plan_wait_forget(struct berth__plan *p, const struct berth__job *jobs, size_t njobs)
{
    struct berth__ready *r = p->ready;
    for (size_t i = 0; r && i < p->ntouched; i++) {
        uint32_t x = p->touched[i].job;
        /* one that was not running took every GPU it holds in the pass: those servers' gen
         * moved, and while it was being placed there they were not kept */
        const struct berth__job *k = x < njobs && p->touched[i].was_running ? &jobs[x] : NULL;
        for (int32_t g = 0; k && k->slots && k->gpus > 0 && g < k->gpus; g++)
            if (k->slots[g].server < r->nsrv)
                r->pass[k->slots[g].server] = 0;
    }
}

/* The cache sized for the plan's cluster, or NULL when out of memory. */
static struct berth__ready *ready_of(struct berth__plan *p)
{
    const struct berth_cluster *c = p->cluster;
    size_t stride = (size_t)c->max_per_server, n = c->nsrv ? c->nsrv : 1;
    struct berth__ready *r = p->ready;
    if (r && r->nsrv == n && r->stride == stride && r->cluster == c)
        return r;
    berth__plan_wait_free(p);
    if (!(r = calloc(1, sizeof *r)))
        return NULL;
    p->ready = r;
    r->cluster = c;
    r->nsrv = n;
    r->stride = stride;
    for (size_t k = 0; k <= BERTH_MAX_SERVER_GPUS; k++)
        for (size_t i = 0; i < WITNESSES; i++)
            r->witness[k][i] = UINT32_MAX;
    r->ends = malloc(n * (stride ? stride : 1) * sizeof *r->ends);
    r->tol = malloc(n * sizeof *r->tol);
    r->gen = calloc(n, sizeof *r->gen);
    r->pass = calloc(n, sizeof *r->pass); /* 0: no pass yet (an open makes pass >= 1) */
    r->n = calloc(n, sizeof *r->n);
    if (!r->ends || !r->tol || !r->gen || !r->pass || !r->n) {
        berth__plan_wait_free(p);
        return NULL;
    }
    return r;
}

/* Whether whole-GPU job o of the plan (an owner map entry) counts: running (its GPUs free at
 * its expected end). */
static int counts(const struct berth__plan *p, uint32_t o)
{
    if (o >= p->njobs)
        return 0;
    const struct berth__job *k = &p->jobs[o];
    return k->state == BERTH_JOB_RUNNING && k->gpus > 0 && berth__job_share(k) >= 1000;
}

/* GPUs of server s the gang j would find idle now: the idle ones and its own. */
static int32_t idle_for(const struct berth_cluster *c, uint32_t s, const struct berth__job *j)
{
    const struct berth__server *v = &c->srv[s];
    int32_t n = v->reserved ? 0 : v->nfree;
    for (uint32_t g = 0; g < v->ngpus; g++)
        n += berth__gpu_owner(c, s, g) == j->idx;
    return n;
}

/* 1 when some server of type t could hold gang j now (the placement chose to spread): a
 * server of its own (placed: j holds GPUs there), or one in a bucket of at least its size. */
static int fits_now(const struct berth_cluster *c, const struct berth__job *j, int t, int placed)
{
    for (int32_t k = 0; placed && k < j->gpus; k++) {
        uint32_t s = j->slots[k].server;
        if ((k == 0 || s != j->slots[k - 1].server) && c->srv[s].type == t &&
            idle_for(c, s, j) >= j->gpus)
            return 1;
    }
    const struct berth__gputype *ty = &c->types[t];
    for (int32_t f = j->gpus; f <= ty->max_per_server; f++)
        for (int32_t s = ty->head[f]; s >= 0; s = c->srv[s].next)
            if (!c->srv[s].reserved)
                return 1;
    return 0;
}

/* Reads the running jobs on server s into the cache r: their ends at this pass's now. */
static void refresh(const struct berth__plan *p, struct berth__ready *r, uint32_t s)
{
    const struct berth_cluster *c = p->cluster;
    const struct berth__server *v = &c->srv[s];
    berth_us *ends = r->ends + (size_t)s * r->stride, tol = 0;
    int n = 0;
    uint32_t prev = UINT32_MAX;
    berth_us pe = 0;
    int held = 0;
    r->reads++;
    for (uint32_t g = 0; g < v->ngpus; g++) {
        uint32_t o = berth__gpu_owner(c, s, g);
        if (!counts(p, o)) {
            held |= o != UINT32_MAX; /* a gang being placed: it may start unseen */
            continue;
        }
        /* a job's GPUs sit side by side: one end for a run of them */
        berth_us e = pe;
        if (o != prev) {
            e = end_of(&p->jobs[o], p->now);
            berth_us t = tol < 0 ? -1 : end_tol(&p->jobs[o], p->now, e);
            tol = t < 0 ? -1 : t > tol ? t : tol;
        }
        int k = n++;
        for (; k > 0 && ends[k - 1] > e; k--) /* insertion: at most 64 */
            ends[k] = ends[k - 1];
        ends[k] = e;
        prev = o;
        pe = e;
    }
    r->n[s] = (uint8_t)n;
    r->pass[s] = held ? 0 : p->pass; /* kept only with no such gang on it */
    r->gen[s] = v->gen;
    r->tol[s] = p->wait.stable_ends ? tol : -1;
}

/* GPUs gang j lacks on server s now. */
static int32_t lack_on(const struct berth_cluster *c, uint32_t s, const struct berth__job *j)
{
    const struct berth__server *v = &c->srv[s];
    int32_t lack = j->gpus - (v->reserved ? 0 : v->nfree);
    for (uint32_t g = 0; g < v->ngpus; g++)
        lack -= berth__gpu_owner(c, s, g) == j->idx;
    return lack;
}

/* When server s's idle GPUs first reach a gang that lacks `lack` GPUs there, from its
 * cached ends (sorted); BERTH_TIME_NONE when they never do. */
static berth_us cached_ready(const struct berth__plan *p, const struct berth__ready *r, uint32_t s,
                             int32_t lack)
{
    if (lack <= 0) /* it holds the gang now (fits_now answered first) */
        return p->now;
    if (r->n[s] < lack)
        return BERTH_TIME_NONE; /* its other GPUs never free (fractional jobs, work outside) */
    return r->ends[(size_t)s * r->stride + (size_t)(lack - 1)];
}

/* When server s's idle GPUs first reach gang j's size, from the ends of the running jobs on
 * it (read into the cache r when its entry does not serve); BERTH_TIME_NONE when they never
 * do. With bound set, an entry of an earlier pass may answer: the time is then within *bound
 * of the one this pass would reckon (0: it is that one). */
static berth_us ready_at(const struct berth__plan *p, struct berth__ready *r, uint32_t s,
                         const struct berth__job *j, berth_us *bound)
{
    int kept = r->gen[s] == p->cluster->srv[s].gen && r->pass[s] != 0 &&
               (r->pass[s] == p->pass || (bound && r->tol[s] >= 0));
    if (!kept)
        refresh(p, r, s);
    if (bound)
        *bound = kept && r->pass[s] != p->pass ? r->tol[s] : 0;
    return cached_ready(p, r, s, lack_on(p->cluster, s, j));
}

/* ready_at from this pass's ends: server s read again. */
static berth_us ready_now(const struct berth__plan *p, struct berth__ready *r, uint32_t s,
                          const struct berth__job *j)
{
    refresh(p, r, s);
    return cached_ready(p, r, s, lack_on(p->cluster, s, j));
}

/* Whether server s is ready for gang j soon enough that waiting for it beats spreading. The
 * test is monotone in the time, so an end kept from an earlier pass decides when the test
 * gives the same answer at both ends of its bound (and is due after now: a job whose work
 * ended waits with its end at now). */
static int ready_soon(const struct berth__plan *p, struct berth__ready *rd, uint32_t s,
                      const struct berth__job *j, double tc, double spread)
{
    berth_us tol, at = ready_at(p, rd, s, j, &tol);
    rd->asked++;
    if (at != BERTH_TIME_NONE && tol > 0) {
        if (at - tol > p->now) {
            if ((double)(at + tol - p->now) + tc < spread)
                return 1;
            if (!((double)(at - tol - p->now) + tc < spread))
                return 0;
        }
        at = ready_now(p, rd, s, j); /* too close to call: this pass's ends */
    }
    return at != BERTH_TIME_NONE && (double)(at - p->now) + tc < spread;
}

/* With a topology (p->wait.trate): what gang j runs at on the slots it holds against one
 * server of its type, by the executor's own factor (model/topo_rate.h: the level it spans
 * against the level one server gives it, nvlink, or node when the gang is wider than the
 * server's NVLink islands, as on its first slot's server: one of the gang's type). */
static double topo_ratio(const struct berth__plan *p, const struct berth__job *j)
{
    const struct berth_cluster *c = p->cluster;
    const char *type = berth_jobspec_extra(j->spec)->job_type;
    int32_t nvl = c->srv[j->slots[0].server].nvl; /* placed: a server of type t */
    int one = nvl > 0 && j->gpus > nvl ? BERTH_TOPO_NODE : BERTH_TOPO_NVLINK;
    int span = berth__topo_span(c, j->slots, j->gpus);
    return berth__topo_rate_factor(p->wait.trate, type, span) /
           berth__topo_rate_factor(p->wait.trate, type, one);
}

/* Whether the rule asks at all about gang j on type t (*mt: the model's type): a
 * multi-GPU whole-GPU gang that one server of the type can hold, with the owner map; without
 * a topology also a class of the model and a model type (the spread ratio needs them; with
 * one the level's factor applies to every job, by steps or by duration). */
static int asks(const struct berth__plan *p, const struct berth__job *j, int t, int *mt)
{
    const struct berth_cluster *c = p->cluster;
    if (!p->wait.tput || !c->owner || j->gpus <= 1 || berth__job_share(j) < 1000 ||
        c->types[t].max_per_server < j->gpus)
        return 0;
    *mt = p->wait.tput_type ? p->wait.tput_type[t] : -1;
    return p->wait.trate || (j->cls >= 0 && *mt >= 0);
}

static int spread_pays(struct berth__plan *p, const struct berth__job *j, int t, int placed)
{
    const struct berth_cluster *c = p->cluster;
    int mt;
    if (!asks(p, j, t, &mt))
        return 1;
    /* with a topology the answer depends on where the pieces went: unplaced, the gang starts
     * as usual and the rule asks once it is placed (plan_refuse.c's shortcut stays off) */
    if (p->wait.trate && !placed)
        return 1;
    double r = p->wait.trate
                   ? topo_ratio(p, j)
                   : berth__tput_spread_ratio(p->wait.tput, p->wait.spread, j->cls, mt, j->gpus);
    if (!(r > 0 && r < 1) || fits_now(c, j, t, placed))
        return 1;
    /* wait when some server is ready soon enough: the test is monotone in the wait, so one
     * such server decides as the earliest would, and the scan stops there */
    struct berth__ready *rd = ready_of(p);
    if (!rd)
        return -1;
    double tc = left_us(j, p->now), spread = tc / r;
    size_t gi = j->gpus < BERTH_MAX_SERVER_GPUS ? (size_t)j->gpus : BERTH_MAX_SERVER_GPUS;
    uint32_t *wit = rd->witness[gi];
    for (size_t i = 0; i < WITNESSES; i++) { /* the newest first */
        uint32_t w = wit[(rd->wnext[gi] + WITNESSES - 1 - i) % WITNESSES];
        if (w < c->nsrv && c->srv[w].type == t && ready_soon(p, rd, w, j, tc, spread))
            return 0;
    }
    const struct berth__gputype *ty = &c->types[t];
    for (int32_t f = 0; f <= ty->max_per_server; f++)
        for (int32_t s = ty->head[f]; s >= 0; s = c->srv[s].next)
            if (ready_soon(p, rd, (uint32_t)s, j, tc, spread)) {
                wit[rd->wnext[gi]] = (uint32_t)s;
                rd->wnext[gi] = (uint8_t)((rd->wnext[gi] + 1) % WITNESSES);
                return 0;
            }
    return 1;
}

int berth__plan_spread_pays(struct berth__plan *p, const struct berth__job *j, int t)
{
    return spread_pays(p, j, t, 1);
}

int berth__plan_spread_pays_unplaced(struct berth__plan *p, const struct berth__job *j, int t)
{
    return spread_pays(p, j, t, 0);
}

/* Whether a wait of w microseconds beats spreading: the test above. */
static int wait_sooner(berth_us w, double tc, double spread)
{
    return (double)w + tc < spread;
}

/* The least w for which wait_sooner(w) fails (it is monotone in w: the sum rounds
 * monotonically), by bisection from w near spread - tc; INT64_MAX when it holds for every
 * wait up to 2^62 microseconds, INT64_MIN when for none from -2^62. */
static berth_us least_wait(double tc, double spread)
{
    const berth_us lim = (berth_us)1 << 62;
    if (wait_sooner(lim, tc, spread))
        return INT64_MAX;
    if (!wait_sooner(-lim, tc, spread))
        return INT64_MIN;
    berth_us lo = -lim, hi = lim; /* wait_sooner(lo), !wait_sooner(hi) */
    double x = spread - tc;
    if (x > (double)-lim && x < (double)lim) {
        berth_us a = (berth_us)x - 2, b = (berth_us)x + 2;
        if (wait_sooner(a, tc, spread) && !wait_sooner(b, tc, spread))
            lo = a, hi = b;
    }
    while (hi - lo > 1) {
        berth_us mid = lo + (hi - lo) / 2;
        if (wait_sooner(mid, tc, spread))
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

berth_us berth__plan_wait_patience(const struct berth__plan *p, const struct berth__job *j, int t)
{
    int mt;
    if (!asks(p, j, t, &mt) || p->wait.trate) /* with a topology: asked once placed */
        return INT64_MIN;
    double r = berth__tput_spread_ratio(p->wait.tput, p->wait.spread, j->cls, mt, j->gpus);
    if (!(r > 0 && r < 1))
        return INT64_MIN;
    double tc = left_us(j, p->now);
    return least_wait(tc, tc / r);
}

/* When server s's idle GPUs first reach gang j's size, within *tol of the time (0: exact):
 * an end kept from an earlier pass answers as a bound, unless it is due by now (a job whose
 * work ended waits with its end at now), when the server is read again. */
static berth_us ready_near(const struct berth__plan *p, struct berth__ready *rd, uint32_t s,
                           const struct berth__job *j, berth_us *tol)
{
    rd->asked++;
    berth_us at = ready_at(p, rd, s, j, tol);
    if (at != BERTH_TIME_NONE && *tol > 0 && at - *tol <= p->now) {
        at = ready_now(p, rd, s, j);
        *tol = 0;
    }
    return at;
}

/* 1 when server s is sooner than bound for gang j (*wait: its wait, or a time between that
 * and bound when it came from a kept end), reading it again when its kept end is too close
 * to tell; 0 when not (*hi: its latest possible wait, *exact: whether that is its wait). */
static int sooner(const struct berth__plan *p, struct berth__ready *rd, uint32_t s,
                  const struct berth__job *j, berth_us bound, berth_us *wait, berth_us *hi,
                  int *exact)
{
    berth_us tol, at = ready_near(p, rd, s, j, &tol);
    if (at == BERTH_TIME_NONE) {
        *hi = BERTH_TIME_NONE;
        *exact = 1;
        return 0;
    }
    if (at + tol - p->now < bound) {
        *wait = at + tol - p->now;
        return 1;
    }
    if (tol > 0 && at - tol - p->now < bound) { /* too close to call */
        at = ready_now(p, rd, s, j);
        tol = 0;
        if (at - p->now < bound) {
            *wait = at - p->now;
            return 1;
        }
    }
    *hi = at + tol - p->now;
    *exact = tol == 0;
    return 0;
}

int berth__plan_wait_ready(struct berth__plan *p, const struct berth__job *j, int t, berth_us bound,
                           berth_us *wait)
{
    const struct berth_cluster *c = p->cluster;
    struct berth__ready *rd = ready_of(p);
    if (!rd)
        return -1;
    size_t gi = j->gpus < BERTH_MAX_SERVER_GPUS ? (size_t)j->gpus : BERTH_MAX_SERVER_GPUS;
    uint32_t *wit = rd->witness[gi];
    berth_us hi, best = BERTH_TIME_NONE;     /* the least latest-possible wait */
    int exact, loose = 0;                    /* some server answered from a kept end */
    for (size_t i = 0; i < WITNESSES; i++) { /* the newest first */
        uint32_t w = wit[(rd->wnext[gi] + WITNESSES - 1 - i) % WITNESSES];
        if (w < c->nsrv && c->srv[w].type == t && sooner(p, rd, w, j, bound, wait, &hi, &exact))
            return 0;
    }
    const struct berth__gputype *ty = &c->types[t];
    for (int32_t f = 0; f <= ty->max_per_server; f++)
        for (int32_t s = ty->head[f]; s >= 0; s = c->srv[s].next) {
            if (sooner(p, rd, (uint32_t)s, j, bound, wait, &hi, &exact)) {
                wit[rd->wnext[gi]] = (uint32_t)s;
                rd->wnext[gi] = (uint8_t)((rd->wnext[gi] + 1) % WITNESSES);
                return 0;
            }
            if (hi == BERTH_TIME_NONE)
                continue;
            loose |= !exact;
            if (best == BERTH_TIME_NONE || hi < best)
                best = hi;
        }
    /* none sooner than bound: the least wait. A server whose kept end may be below the least
     * latest-possible one is read again; the others cannot hold the least. */
    berth_us least = BERTH_TIME_NONE, tol, at;
    for (int32_t f = 0; loose && f <= ty->max_per_server; f++)
        for (int32_t s = ty->head[f]; s >= 0; s = c->srv[s].next) {
            at = ready_near(p, rd, (uint32_t)s, j, &tol);
            if (at == BERTH_TIME_NONE || at - tol - p->now > best)
                continue;
            if (tol > 0)
                at = ready_now(p, rd, (uint32_t)s, j);
            if (least == BERTH_TIME_NONE || at - p->now < least)
                least = at - p->now;
        }
    *wait = loose ? least : best;
    return 0;
}

size_t berth__plan_wait_asked(const struct berth__plan *p)
{
    return p->ready ? p->ready->asked : 0;
}

size_t berth__plan_wait_reads(const struct berth__plan *p)
{
    return p->ready ? p->ready->reads : 0;
}
