/* The multiple-choice knapsack (see mckp.h). */
#include <stdlib.h>
#include <string.h>

#include "solve/mckp.h"

/* Index (within the group) of group g's lightest option; among equally light ones the most
 * valuable, then the earliest. */
static uint32_t lightest(const struct berth__mckp_option *o, const uint32_t *first, size_t g)
{
    uint32_t best = 0;
    for (uint32_t k = 1; k < first[g + 1] - first[g]; k++) {
        const struct berth__mckp_option *x = &o[first[g] + k], *b = &o[first[g] + best];
        if (x->weight < b->weight || (x->weight == b->weight && x->value > b->value))
            best = k;
    }
    return best;
}

static int exact(const struct berth__mckp_option *o, const uint32_t *first, size_t n, int32_t cap,
                 uint32_t *choice, double *value, struct berth_err *err)
{
    size_t cells = (size_t)cap + 1;
    double *dp = malloc(cells * sizeof *dp), *next = malloc(cells * sizeof *next);
    uint32_t *pick = malloc(n * cells * sizeof *pick);
    unsigned char *ok = malloc(cells), *nok = malloc(cells);
    if (!dp || !next || !pick || !ok || !nok) {
        free(dp), free(next), free(pick), free(ok), free(nok);
        return berth_err_set(err, BERTH_ENOMEM, "knapsack: out of memory");
    }
    /* dp[c]: best value of the groups so far using exactly c GPUs (ok[c]: reachable) */
    memset(ok, 0, cells);
    ok[0] = 1;
    dp[0] = 0;
    for (size_t g = 0; g < n; g++) {
        memset(nok, 0, cells);
        uint32_t *pg = pick + g * cells;
        for (size_t c = 0; c < cells; c++) {
            if (!ok[c])
                continue;
            for (uint32_t k = 0; k < first[g + 1] - first[g]; k++) {
                const struct berth__mckp_option *x = &o[first[g] + k];
                if (x->weight > cap - (int32_t)c)
                    continue;
                size_t d = c + (size_t)x->weight;
                double v = dp[c] + x->value;
                if (!nok[d] || v > next[d]) {
                    nok[d] = 1;
                    next[d] = v;
                    pg[d] = k;
                }
            }
        }
        double *t = dp;
        dp = next;
        next = t;
        unsigned char *u = ok;
        ok = nok;
        nok = u;
    }
    /* the best total, the lightest among equals */
    size_t best = cells;
    for (size_t c = 0; c < cells; c++)
        if (ok[c] && (best == cells || dp[c] > dp[best]))
            best = c;
    int rc = 0;
    if (best == cells) {
        rc = berth_err_set(err, BERTH_EINPUT,
                           "knapsack: the groups' lightest options alone exceed the capacity "
                           "of %d",
                           cap);
    } else {
        *value = dp[best];
        for (size_t g = n; g-- > 0;) {
            choice[g] = pick[g * cells + best];
            best -= (size_t)o[first[g] + choice[g]].weight;
        }
    }
    free(dp), free(next), free(pick), free(ok), free(nok);
    return rc;
}

struct step {
    double dv;
    int32_t dw;
    uint32_t group, order, to; /* to: the option index the step reaches */
};

static int cmp_step(const void *a, const void *b)
{
    const struct step *x = a, *y = b;
    /* best value per GPU first: dv_x / dw_x > dv_y / dw_y, compared without division */
    double l = x->dv * (double)y->dw, r = y->dv * (double)x->dw;
    if (l != r)
        return l > r ? -1 : 1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* A binary min-heap of groups keyed by each group's next step (cmp_step order): merging the
 * groups' step lists, each already in cmp_step order (slopes fall along a concave hull), gives
 * the same sequence as sorting every step, at O(log groups) per step taken. */
static int heap_less(const struct step *steps, const uint32_t *at, uint32_t a, uint32_t b)
{
    return cmp_step(&steps[at[a]], &steps[at[b]]) < 0;
}

static void heap_down(uint32_t *h, size_t n, size_t i, const struct step *steps, const uint32_t *at)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && heap_less(steps, at, h[l], h[m]))
            m = l;
        if (l + 1 < n && heap_less(steps, at, h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        uint32_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static int greedy(const struct berth__mckp_option *o, const uint32_t *first, size_t n, int32_t cap,
                  uint32_t *choice, double *value, struct berth_err *err)
{
    size_t nopts = first[n];
    struct step *steps = malloc((nopts ? nopts : 1) * sizeof *steps);
    uint32_t *hull = malloc((nopts ? nopts : 1) * sizeof *hull);
    /* per group: index of its next step in steps[] and one past its last; the heap */
    uint32_t *at = malloc((n ? n : 1) * sizeof *at), *end = malloc((n ? n : 1) * sizeof *end);
    uint32_t *heap = malloc((n ? n : 1) * sizeof *heap);
    if (!steps || !hull || !at || !end || !heap) {
        free(steps), free(hull), free(at), free(end), free(heap);
        return berth_err_set(err, BERTH_ENOMEM, "knapsack: out of memory");
    }
    size_t ns = 0;
    int64_t used = 0;
    double total = 0;
    for (size_t g = 0; g < n; g++) {
        uint32_t base = lightest(o, first, g), m = 0;
        choice[g] = base;
        used += o[first[g] + base].weight;
        total += o[first[g] + base].value;
        at[g] = (uint32_t)ns;
        /* upper concave hull from the lightest option, over heavier options of more value:
         * walk options by weight (insertion order on ties), keep slopes decreasing */
        uint32_t cnt = first[g + 1] - first[g];
        hull[m++] = base;
        for (;;) {
            const struct berth__mckp_option *h = &o[first[g] + hull[m - 1]];
            uint32_t best = UINT32_MAX;
            double bdv = 0;
            int32_t bdw = 0;
            for (uint32_t k = 0; k < cnt; k++) {
                const struct berth__mckp_option *x = &o[first[g] + k];
                if (x->weight <= h->weight || x->value <= h->value)
                    continue;
                double dv = x->value - h->value;
                int32_t dw = x->weight - h->weight;
                /* steepest slope; on a tie the farther (heavier) option, so collinear
                 * points collapse into one step */
                if (best == UINT32_MAX || dv * bdw > bdv * dw ||
                    (dv * bdw == bdv * dw && dw > bdw)) {
                    best = k;
                    bdv = dv;
                    bdw = dw;
                }
            }
            if (best == UINT32_MAX)
                break;
            steps[ns++] = (struct step){bdv, bdw, (uint32_t)g, m - 1, best};
            hull[m++] = best;
        }
        end[g] = (uint32_t)ns;
    }
    free(hull);
    if (used > cap) {
        free(steps), free(at), free(end), free(heap);
        return berth_err_set(err, BERTH_EINPUT,
                             "knapsack: the groups' lightest options alone exceed the capacity "
                             "of %d",
                             cap);
    }
    /* best value per GPU first; a group's steps are taken in order, and one that does not
     * fit closes its group */
    size_t nh = 0;
    for (size_t g = 0; g < n; g++)
        if (at[g] < end[g])
            heap[nh++] = (uint32_t)g;
    for (size_t i = nh / 2; i-- > 0;)
        heap_down(heap, nh, i, steps, at);
    while (nh && used < cap) { /* every step weighs at least 1 GPU */
        uint32_t g = heap[0];
        const struct step *s = &steps[at[g]];
        if (used + s->dw > cap) {
            heap[0] = heap[--nh];
        } else {
            used += s->dw;
            total += s->dv;
            choice[g] = s->to;
            if (++at[g] == end[g])
                heap[0] = heap[--nh];
        }
        heap_down(heap, nh, 0, steps, at);
    }
    *value = total;
    free(steps), free(at), free(end), free(heap);
    return 0;
}

int berth__mckp_solve(const struct berth__mckp_option *opts, const uint32_t *first, size_t ngroups,
                      int32_t capacity, int method, uint32_t *choice, double *value,
                      struct berth_err *err)
{
    *value = 0;
    if (capacity < 0)
        return berth_err_set(err, BERTH_EINPUT, "knapsack: capacity %d < 0", capacity);
    for (size_t g = 0; g < ngroups; g++) {
        if (first[g + 1] <= first[g])
            return berth_err_set(err, BERTH_EINPUT, "knapsack: group %zu has no option", g);
        for (uint32_t k = first[g]; k < first[g + 1]; k++)
            if (opts[k].weight < 0 || !(opts[k].value == opts[k].value))
                return berth_err_set(err, BERTH_EINPUT,
                                     "knapsack: group %zu option %u: weight %d, value %g", g,
                                     k - first[g], opts[k].weight, opts[k].value);
    }
    if (method == BERTH_MCKP_EXACT ||
        (method == BERTH_MCKP_AUTO &&
         (int64_t)ngroups * ((int64_t)capacity + 1) <= BERTH_MCKP_DP_CELLS))
        return exact(opts, first, ngroups, capacity, choice, value, err);
    return greedy(opts, first, ngroups, capacity, choice, value, err);
}
