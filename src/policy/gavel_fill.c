/* The Gavel policies' fill of idle GPUs without preempting (gavel.c's top comment), and the
 * segment summaries by which a pass that can start none of the pending jobs skips trying them
 * one by one. */
#include <stdint.h>
#include <string.h>

#include "policy/gavel_int.h"
#include "sched/plan.h"
#include "sched/refuse.h"

/* ---- the fill ----------------------------------------------------------------------------- */

/* Starts pending job k on its fastest type with room (any server for a CPU-only job). */
static int start_best(struct gavel *g, const struct berth__view *v, struct berth__plan *p, size_t k,
                      struct berth_err *err)
{
    const struct berth__job *j = &v->jobs[g->act[k].job];
    if (j->gpus == 0)
        return berth__gavel_try_start(g, v, p, k, 0, err);
    uint64_t tried = 0;
    for (size_t n = 0; n < g->nt; n++) {
        int best = -1;
        double bt = 0;
        for (size_t t = 0; t < g->nt; t++) {
            double r = (tried >> t & 1) ? 0 : berth__gavel_tput(v, j, t);
            if (r > bt) {
                bt = r;
                best = (int)t;
            }
        }
        if (best < 0)
            return 0;
        tried |= (uint64_t)1 << best;
        int rc = berth__gavel_try_start(g, v, p, k, best, err);
        if (rc)
            return rc;
    }
    return 0;
}

/* Idle capacity some job could use: whole GPUs, room on shared GPUs, or CPU for CPU-only
 * jobs (any active one keeps the fill going). */
static int idle(const struct gavel *g, const struct berth__view *v)
{
    return v->cluster->free > 0 || v->cluster->frac_idle > 0 || g->ncpu > 0;
}

/* 1 when job j may run on some type (or is CPU-only). */
static int runnable(const struct gavel *g, const struct berth__view *v, const struct berth__job *j)
{
    if (j->gpus == 0)
        return 1;
    for (size_t t = 0; t < g->nt; t++)
        if (berth__gavel_tput(v, j, t) > 0)
            return 1;
    return 0;
}

/* ---- the fill's summaries ----------------------------------------------------------------- */

/* Drops both summaries (the lists changed other than at their ends, or a summed-up job left). */
void berth__gavel_sum_drop(struct gavel *g)
{
    g->sum[0].ok = g->sum[1].ok = 0;
    g->sum_gen++;
}

/* Empties segment sg (its word buffers stay). */
static void seg_clear(struct fseg *sg)
{
    sg->end = SIZE_MAX;
    sg->close = 0;
    sg->nl = 0;
    for (int c = 0; c < SUM_LETTERS; c++) {
        sg->nword[c] = 0;
        memset(sg->count[c], 0, sizeof sg->count[c]);
    }
}

/* Opens an empty last segment, its run from list position start: 0, or BERTH_ENOMEM. */
static int seg_push(struct fsum *s, size_t start)
{
    if (s->nseg == s->seg_cap) {
        size_t old = s->seg_cap;
        if (BERTH_GROW(s->seg, s->seg_cap, s->nseg + 1))
            return BERTH_ENOMEM;
        memset(s->seg + old, 0, (s->seg_cap - old) * sizeof *s->seg);
    }
    seg_clear(&s->seg[s->nseg]);
    s->seg[s->nseg++].start = start;
    return 0;
}

static int sum_clear(struct fsum *s)
{
    s->ok = 1;
    s->n = 0;
    s->nseg = 0;
    return seg_push(s, 0);
}

/* Appends letter l's gang to cut c's reduced word: cancels an equal last one. */
static int word_push(struct fseg *s, int c, int l)
{
    size_t n = s->nword[c];
    if (n && s->word[c][n - 1] == s->letter[l]) {
        s->nword[c]--;
        s->count[c][l]--;
        return 0;
    }
    if (BERTH_GROW(s->word[c], s->word_cap[c], n + 1))
        return BERTH_ENOMEM;
    s->word[c][s->nword[c]++] = s->letter[l];
    s->count[c][l]++;
    return 0;
}

/* The patience on type 0 of pending job k the shortcut answers; INT64_MIN when it cannot. */
static berth_us sum_patience(struct gavel *g, const struct berth__view *v,
                             const struct berth__plan *p, size_t k)
{
    const struct berth__job *j = &v->jobs[g->act[k].job];
    return j->gpus >= 2 && j->share == 1000 && !j->single &&
                   j->gpus <= v->cluster->types[0].max_per_server && berth__gavel_tput(v, j, 0) > 0
               ? berth__gavel_patience_of(g, v, p, k, 0)
               : INT64_MIN;
}

/* Adds pending job `job`, a gang of `gang` GPUs of patience pat, at the end of segment sg's
 * run: 0, 1 when sg would follow a ninth gang size, or BERTH_ENOMEM. */
static int seg_add(struct fseg *sg, uint32_t job, int32_t gang, berth_us pat)
{
    int l = 0;
    while (l < sg->nl && sg->letter[l] != gang)
        l++;
    if (l == SUM_LETTERS)
        return 1;
    if (l == sg->nl) { /* a new size: its cut starts as the cut of the next smaller size */
        int below = -1;
        for (int c = 0; c < sg->nl; c++)
            if (sg->letter[c] < gang && (below < 0 || sg->letter[c] > sg->letter[below]))
                below = c;
        sg->nl++;
        sg->letter[l] = gang;
        sg->minpat[l] = pat;
        sg->minjob[l] = job;
        for (int c = 0; c < SUM_LETTERS; c++)
            sg->count[c][l] = 0;
        sg->nword[l] = 0;
        if (below >= 0) {
            if (BERTH_GROW(sg->word[l], sg->word_cap[l], sg->nword[below] + 1))
                return BERTH_ENOMEM;
            memcpy(sg->word[l], sg->word[below], sg->nword[below] * sizeof *sg->word[l]);
            sg->nword[l] = sg->nword[below];
            memcpy(sg->count[l], sg->count[below], sizeof sg->count[l]);
        }
    } else if (pat < sg->minpat[l]) {
        sg->minpat[l] = pat;
        sg->minjob[l] = job;
    }
    for (int c = 0; c < sg->nl; c++)
        if (sg->letter[c] >= gang && word_push(sg, c, l))
            return BERTH_ENOMEM;
    return 0;
}

/* Sums up pending job k (on type 0) at the end of s, at list position s->n: into the last
 * segment's run, or, when the shortcut cannot answer it, as the entry that closes it. A ninth
 * gang size in a segment drops the summary (rebuilt at the next round start). */
static int sum_add(struct gavel *g, const struct berth__view *v, const struct berth__plan *p,
                   struct fsum *s, size_t k)
{
    size_t at = s->n++;
    if (BERTH_GROW(s->item, s->item_cap, at + 1))
        return BERTH_ENOMEM;
    g->act[k].sum_gen = g->sum_gen;
    g->act[k].at[s == &g->sum[1]] = (uint32_t)at;
    berth_us pat = sum_patience(g, v, p, k);
    struct fseg *sg = &s->seg[s->nseg - 1];
    s->item[at] = (struct fitem){pat, pat == INT64_MIN ? 0 : v->jobs[g->act[k].job].gpus};
    if (pat == INT64_MIN) { /* the shortcut cannot answer it: it closes the segment */
        sg->end = at;
        sg->close = 1;
        return seg_push(s, at + 1);
    }
    int rc = seg_add(sg, g->act[k].job, s->item[at].gang, pat);
    if (rc == 1)
        s->ok = 0;
    if (rc)
        return rc == 1 ? 0 : rc;
    if (at + 1 - sg->start < berth__gavel_seg_run)
        return 0;
    sg->end = at + 1; /* a full run: the next entries go to a new segment */
    return seg_push(s, at + 1);
}

/* Whether the fill may go by its summaries this pass: one GPU type (a job's fastest type is
 * then its ranked type) and refused starts the plan answers without placing them. */
static int may_skip(const struct gavel *g, const struct berth__plan *p)
{
    return !berth__gavel_no_fast && g->nt == 1 && berth__plan_refusals_covered(p);
}

/* The fill's worklists from the ranking and the active set, summed up at once when the fill
 * may skip. */
static int fill_lists(struct gavel *g, const struct berth__view *v, const struct berth__plan *p)
{
    if (BERTH_GROW(g->fent, g->fent_cap, g->nent + 1) ||
        BERTH_GROW(g->fjob, g->fjob_cap, g->nact + 1))
        return BERTH_ENOMEM;
    berth__gavel_sum_drop(g);
    int sum = may_skip(g, p);
    if (sum && (sum_clear(&g->sum[0]) || sum_clear(&g->sum[1])))
        return BERTH_ENOMEM;
    g->nfent = g->nfjob = 0;
    for (size_t e = 0; e < g->nent; e++) {
        uint32_t job = g->ent[e].job;
        if (v->jobs[job].state != BERTH_JOB_PENDING || g->pos[job] == NONE)
            continue;
        g->fent[g->nfent++] = (uint32_t)e;
        if (sum && g->sum[0].ok && sum_add(g, v, p, &g->sum[0], g->pos[job]))
            return BERTH_ENOMEM;
    }
    for (size_t k = 0; k < g->nact; k++) {
        if (v->jobs[g->act[k].job].state != BERTH_JOB_PENDING)
            continue;
        g->fjob[g->nfjob++] = g->act[k].job;
        if (sum && g->sum[1].ok && sum_add(g, v, p, &g->sum[1], k))
            return BERTH_ENOMEM;
    }
    g->fill_ok = 1;
    return 0;
}

/* Rebuilds summary i from its whole list, dropping the entries no longer pending there and
 * then (the walk passes over them, and only a round start or a requeue, which rebuild the
 * lists, makes a job pending again). */
static int sum_build(struct gavel *g, const struct berth__view *v, const struct berth__plan *p,
                     int i)
{
    struct fsum *s = &g->sum[i];
    if (sum_clear(s))
        return BERTH_ENOMEM;
    uint32_t *list = i ? g->fjob : g->fent;
    size_t *n = i ? &g->nfjob : &g->nfent, w = 0;
    for (size_t x = 0; x < *n; x++) {
        uint32_t job = i ? list[x] : g->ent[list[x]].job;
        if (v->jobs[job].state != BERTH_JOB_PENDING || g->pos[job] == NONE)
            continue;
        list[w++] = list[x];
        if (s->ok && sum_add(g, v, p, s, g->pos[job]))
            return BERTH_ENOMEM;
    }
    *n = w;
    return 0;
}

#define SKIP_SIZES 64 /* distinct gang sizes a skip follows over all segments */

/* A skip's gang sizes: per size, the least patience over both summaries when the skip began
 * (the bound its wait is sought to: at most the patience of every job still summed up), and
 * that wait once sought (known). */
struct skip {
    int n;
    int32_t size[SKIP_SIZES];
    berth_us bound[SKIP_SIZES], ready[SKIP_SIZES];
    uint8_t known[SKIP_SIZES];
    int32_t f, m; /* idle GPUs of type 0, and the most idle on one server */
};

/* The least patience per gang size over every segment of both summaries: 0 when there are
 * more than SKIP_SIZES sizes. */
static int skip_bounds(const struct gavel *g, struct skip *k)
{
    k->n = 0;
    for (int i = 0; i < 2; i++)
        for (size_t q = 0; q < g->sum[i].nseg; q++) {
            const struct fseg *sg = &g->sum[i].seg[q];
            for (int l = 0; l < sg->nl; l++) {
                int r = 0;
                while (r < k->n && k->size[r] != sg->letter[l])
                    r++;
                if (r == k->n) {
                    if (r == SKIP_SIZES)
                        return 0;
                    k->n++;
                    k->size[r] = sg->letter[l];
                    k->bound[r] = sg->minpat[l];
                    k->known[r] = 0;
                } else if (sg->minpat[l] < k->bound[r]) {
                    k->bound[r] = sg->minpat[l];
                }
            }
        }
    return 1;
}

/* The idle GPUs of type 0 and the most idle on one server; the waits are sought again. */
static void skip_capacity(const struct berth__view *v, struct skip *k)
{
    const struct berth_cluster *c = v->cluster;
    const struct berth__gputype *ty = &c->types[0];
    k->f = ty->free;
    k->m = 0;
    for (int32_t b = ty->max_per_server; b >= 1 && !k->m; b--)
        for (int32_t s = ty->head[b]; s >= 0 && !k->m; s = c->srv[s].next)
            k->m = c->srv[s].reserved ? 0 : b;
    for (int r = 0; r < k->n; r++)
        k->known[r] = 0;
}

/* 1 when a pending gang of `gang` GPUs (job `job`) and patience pat that fits by count is
 * refused: no server holds it and some server is ready sooner than its patience, as
 * berth__plan_start_refused would find (the wait of a pending gang depends on its size
 * alone). 0 when it may start, or an error. */
static int gang_dead(struct berth__plan *p, const struct berth__view *v, struct skip *k,
                     int32_t gang, uint32_t job, berth_us pat)
{
    if (gang <= k->m)
        return 0;
    int r = 0;
    while (r < k->n && k->size[r] != gang)
        r++;
    if (r == k->n)
        return 0; /* not reached: every summed-up size has a bound */
    if (!k->known[r]) {
        if (berth__plan_wait_ready(p, &v->jobs[job], 0, k->bound[r], &k->ready[r]))
            return BERTH_ENOMEM;
        k->known[r] = 1;
    }
    return k->ready[r] != BERTH_TIME_NONE && k->ready[r] < pat;
}

/* 1 when no entry of segment sg's run can start: each gang size that fits by count is
 * refused down to its least patience (gang_dead); *cut: its letters that fit by count. 0
 * when some may start, or an error. */
static int seg_dead(struct berth__plan *p, const struct berth__view *v, struct skip *k,
                    const struct fseg *sg, int *cut)
{
    *cut = -1;
    for (int c = 0; c < sg->nl; c++) {
        if (sg->letter[c] > k->f)
            continue;
        int rc = gang_dead(p, v, k, sg->letter[c], sg->minjob[c], sg->minpat[c]);
        if (rc <= 0)
            return rc;
        if (*cut < 0 || sg->letter[c] > sg->letter[*cut])
            *cut = c;
    }
    return 1;
}

/* Does what n refused starts leave, of the gangs w[0..n) in order (a reduced word: no two
 * equal gangs in a row, so with two sizes they alternate): two sizes at once, or, when the
 * word has a third size (more), one by one. */
static void word_moves(struct berth__plan *p, const int32_t *w, size_t n, int more)
{
    if (!n)
        return;
    if (more) {
        for (size_t x = 0; x < n; x++)
            berth__plan_refused_moves(p, 0, w[x]);
        return;
    }
    berth__plan_refused_alternating(p, 0, w[0], n > 1 ? w[1] : w[0], n);
}

/* word_moves on a reduced word, its sizes not known. */
static void word_apply(struct berth__plan *p, const int32_t *w, size_t n)
{
    int more = 0;
    for (size_t i = 2; i < n && !more; i++)
        more = w[i] != w[0] && w[i] != w[1];
    word_moves(p, w, n, more);
}

/* Does what trying every entry of segment s's run refused leaves: cut c's word (its sizes
 * from the letters' counts). */
static void seg_apply(struct berth__plan *p, const struct fseg *s, int c)
{
    if (c < 0 || !s->nword[c])
        return;
    const int32_t *w = s->word[c];
    int32_t b = s->nword[c] > 1 ? w[1] : w[0];
    int more = 0;
    for (int l = 0; l < s->nl; l++)
        more |= s->count[c][l] && s->letter[l] != w[0] && s->letter[l] != b;
    word_moves(p, w, s->nword[c], more);
}

/* The job at position x of fill list i. */
static uint32_t list_job(const struct gavel *g, int i, size_t x)
{
    return i ? g->fjob[x] : g->ent[g->fent[x]].job;
}

/* Tries the entry at position at of fill list i, as the walk does: 1 started, 0 not (or not
 * pending any more), or an error. */
static int try_entry(struct gavel *g, const struct berth__view *v, struct berth__plan *p, int i,
                     size_t at, struct berth_err *err)
{
    uint32_t job = list_job(g, i, at);
    if (v->jobs[job].state != BERTH_JOB_PENDING || g->pos[job] == NONE)
        return 0;
    return i ? start_best(g, v, p, g->pos[job], err)
             : berth__gavel_try_start(g, v, p, g->pos[job], g->ent[g->fent[at]].type, err);
}

/* The list positions of segment q's run in summary s. */
static void seg_range(const struct fsum *s, size_t q, size_t *start, size_t *end)
{
    *start = s->seg[q].start;
    *end = s->seg[q].end == SIZE_MAX ? s->n : s->seg[q].end;
}

/* Sums up segment q of list i's run again from its items (the jobs that started since gone). */
static int seg_resum(struct gavel *g, int i, size_t q)
{
    struct fsum *s = &g->sum[i];
    struct fseg *sg = &s->seg[q];
    size_t start, end, keep = sg->end;
    int close = sg->close;
    seg_range(s, q, &start, &end);
    seg_clear(sg);
    sg->start = start;
    sg->end = keep;
    sg->close = close;
    for (size_t x = start; x < end; x++) {
        int rc =
            s->item[x].gang ? seg_add(sg, list_job(g, i, x), s->item[x].gang, s->item[x].pat) : 0;
        if (rc)
            return rc < 0 ? rc : 0; /* not reached: a run's sizes are fewer after a start */
    }
    return 0;
}

/* The segment whose run holds list position x of summary s. */
static size_t seg_of(const struct fsum *s, size_t x)
{
    size_t lo = 0, hi = s->nseg - 1; /* the last segment starting at or before x */
    while (lo < hi) {
        size_t mid = hi - (hi - lo) / 2;
        if (s->seg[mid].start <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The position of active job k in a segment's run of list i's summary, or SIZE_MAX when it
 * is in none (not in that list, a closing entry, or started since). */
static size_t run_pos(const struct gavel *g, int i, size_t k)
{
    const struct fsum *s = &g->sum[i];
    size_t x = g->act[k].at[i];
    return x < s->n && list_job(g, i, x) == g->act[k].job && s->item[x].gang ? x : SIZE_MAX;
}

/* Job `job`, summed up in list i's run, started: it leaves the segment that held it, which
 * is summed up again. 0, or an error. */
static int seg_started(struct gavel *g, int i, uint32_t job)
{
    size_t x = run_pos(g, i, g->pos[job]);
    if (x == SIZE_MAX)
        return 0;
    g->sum[i].item[x].gang = 0;
    return seg_resum(g, i, seg_of(&g->sum[i], x));
}

/* Fills over segment q of list i's run, some job of which may start, as the walk would, from
 * its items: the refused starts' gangs gather into a reduced word whose bucket moves are done
 * before the next job that may start is tried (a start takes the idle GPUs and the waits
 * again; with no idle capacity left the fill stops). Then the segment, and those of the other
 * list that held a job that started, are summed up again. 0, or an error. */
static int seg_live(struct gavel *g, const struct berth__view *v, struct berth__plan *p, int i,
                    size_t q, struct skip *k, struct berth_err *err)
{
    struct fsum *s = &g->sum[i];
    size_t start, end, n = 0;
    seg_range(s, q, &start, &end);
    if (BERTH_GROW(g->word, g->word_cap, end - start + 1))
        return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    int rc = 0;
    for (size_t x = start; x < end; x++) {
        int32_t gang = s->item[x].gang;
        if (!gang || gang > k->f)
            continue; /* started, or a try that does nothing */
        uint32_t job = list_job(g, i, x);
        if ((rc = gang_dead(p, v, k, gang, job, s->item[x].pat)) < 0)
            return berth_err_set(err, rc, "gavel: out of memory");
        if (rc) { /* refused: its gang joins the word (an equal last one cancels) */
            if (n && g->word[n - 1] == gang)
                n--;
            else
                g->word[n++] = gang;
            continue;
        }
        word_apply(p, g->word, n);
        n = 0;
        if ((rc = try_entry(g, v, p, i, x, err)) < 0)
            return rc;
        if (!rc)
            continue;
        s->item[x].gang = 0;
        if ((rc = seg_started(g, !i, job)))
            return berth_err_set(err, rc, "gavel: out of memory");
        skip_capacity(v, k);
        if (!idle(g, v))
            break;
    }
    word_apply(p, g->word, n);
    berth__gavel_seg_walks++;
    if ((rc = seg_resum(g, i, q)))
        return berth_err_set(err, rc, "gavel: out of memory");
    return 0;
}

/* The patiences of the jobs the last round preempted, summed up at its pass with the work
 * done of their last report, taken again: each item, and its segment's least patience when
 * lower (a higher one leaves a bound below the least, which only sends the segment to
 * seg_live, where each item answers for itself). 0, or 1 when one can no longer be answered
 * by the shortcut (the summaries are then built again). */
static int refresh_stale(struct gavel *g, const struct berth__view *v, const struct berth__plan *p)
{
    g->stale = 0;
    for (size_t n = 0; n < g->npre; n++) {
        uint32_t job = g->pre[n];
        size_t k = g->pos[job];
        if (k == NONE || g->act[k].sum_gen != g->sum_gen)
            continue; /* left, or started since */
        berth_us pat = sum_patience(g, v, p, k);
        for (int i = 0; i < 2; i++) {
            struct fsum *s = &g->sum[i];
            size_t x = run_pos(g, i, k);
            if (x == SIZE_MAX)
                continue;
            if (pat == INT64_MIN)
                return 1;
            s->item[x].pat = pat;
            struct fseg *sg = &s->seg[seg_of(s, x)];
            for (int l = 0; l < sg->nl; l++)
                if (sg->letter[l] == s->item[x].gang && pat < sg->minpat[l]) {
                    sg->minpat[l] = pat;
                    sg->minjob[l] = job;
                }
        }
    }
    return 0;
}

/* The pass's fill over the summed-up entries of both lists, segment by segment: a segment
 * none of whose run can start (seg_dead) gets only the bucket moves of its refused starts,
 * another is gone through job by job from its items (seg_live), and the entry that closes it
 * is tried as the walk would try it; after a start the idle GPUs and the waits are taken
 * again, and with no idle capacity left the fill stops, as the walk does (may_skip). 1: done (the
 * walk goes on with the entries appended to fjob since its summary); 0: the shortcut does not apply
 * (the walk goes through both lists); or an error. */
static int fill_skip(struct gavel *g, const struct berth__view *v, struct berth__plan *p,
                     struct berth_err *err)
{
    if (!may_skip(g, p))
        return 0;
    for (int i = 0; i < 2; i++)
        if (!g->sum[i].ok && sum_build(g, v, p, i))
            return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    struct skip k;
    if (!g->sum[0].ok || !g->sum[1].ok || (g->stale && refresh_stale(g, v, p)) ||
        !skip_bounds(g, &k))
        return 0;
    skip_capacity(v, &k);
    for (int i = 0; i < 2; i++) {
        struct fsum *s = &g->sum[i];
        for (size_t q = 0; q < s->nseg && idle(g, v); q++) {
            struct fseg *sg = &s->seg[q];
            int cut, rc = seg_dead(p, v, &k, sg, &cut);
            if (rc < 0)
                return berth_err_set(err, rc, "gavel: out of memory");
            if (rc)
                seg_apply(p, sg, cut);
            else if ((rc = seg_live(g, v, p, i, q, &k, err)))
                return rc;
            if (!sg->close || !idle(g, v))
                continue;
            if ((rc = try_entry(g, v, p, i, sg->end, err)) < 0)
                return rc;
            if (rc) { /* started: the cluster changed */
                skip_capacity(v, &k);
                berth__gavel_skip_starts++;
            }
        }
    }
    berth__gavel_skipped++;
    return 1;
}

/* Fills idle GPUs without preempting (see the top comment). */
int berth__gavel_fill(struct gavel *g, const struct berth__view *v, struct berth__plan *p,
                      struct berth_err *err)
{
    int rc;
    if (!g->fill) { /* Gavel leaves idle GPUs idle; CPU-only jobs (not Gavel's) still start */
        for (size_t k = 0; k < g->nact && g->ncpu; k++)
            if (v->jobs[g->act[k].job].state == BERTH_JOB_PENDING &&
                v->jobs[g->act[k].job].gpus == 0 &&
                (rc = berth__gavel_try_start(g, v, p, k, 0, err)) < 0)
                return rc;
        return 0;
    }
    if (g->kind == FIFO) {
        size_t k = berth__gavel_no_fast ? 0 : g->fifo_from;
        for (; k < g->nact && idle(g, v); k++) {
            const struct berth__job *j = &v->jobs[g->act[k].job];
            if (j->state != BERTH_JOB_PENDING || !runnable(g, v, j))
                continue; /* a job that can run nowhere blocks no one */
            if ((rc = start_best(g, v, p, k, err)) < 0)
                return rc;
            if (rc == 0)
                break; /* the head blocks */
        }
        g->fifo_from = k; /* none before it may start (until a round start or a requeue) */
        return 0;
    }
    if (!g->fill_ok && (rc = fill_lists(g, v, p)))
        return berth_err_set(err, rc, "gavel: out of memory");
    size_t from[2] = {0, 0};
    if ((rc = fill_skip(g, v, p, err)) < 0)
        return rc;
    if (rc) {
        from[0] = g->nfent;
        from[1] = g->sum[1].n;
    } else { /* the walk below drops entries anywhere */
        berth__gavel_sum_drop(g);
    }
    /* the ranked entries, then every active job: those not pending (any more) are dropped;
     * after a skip only the jobs appended to fjob since its summary */
    size_t i = from[0], w = i;
    for (; i < g->nfent && idle(g, v); i++) {
        uint32_t e = g->fent[i], job = g->ent[e].job;
        if (v->jobs[job].state != BERTH_JOB_PENDING || g->pos[job] == NONE)
            continue;
        if ((rc = berth__gavel_try_start(g, v, p, g->pos[job], g->ent[e].type, err)) < 0)
            return rc;
        if (!rc)
            g->fent[w++] = e;
    }
    memmove(g->fent + w, g->fent + i, (g->nfent - i) * sizeof *g->fent);
    g->nfent = w + (g->nfent - i);
    for (i = from[1], w = from[1]; i < g->nfjob && idle(g, v); i++) {
        uint32_t job = g->fjob[i];
        if (v->jobs[job].state != BERTH_JOB_PENDING || g->pos[job] == NONE)
            continue;
        if ((rc = start_best(g, v, p, g->pos[job], err)) < 0)
            return rc;
        if (!rc)
            g->fjob[w++] = job;
    }
    int whole = i == g->nfjob; /* every entry kept is pending */
    memmove(g->fjob + w, g->fjob + i, (g->nfjob - i) * sizeof *g->fjob);
    g->nfjob = w + (g->nfjob - i);
    if (g->sum[1].ok && whole) /* the kept new entries join the summary */
        for (size_t x = from[1]; x < w && g->sum[1].ok; x++)
            if (sum_add(g, v, p, &g->sum[1], g->pos[g->fjob[x]]))
                return berth_err_set(err, BERTH_ENOMEM, "gavel: out of memory");
    return 0;
}
