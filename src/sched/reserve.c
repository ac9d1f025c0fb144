/* Running jobs' expected ends and the head job's reservation (reserve.h). */
#include <stdlib.h>
#include <string.h>

#include "sched/reserve.h"
#include "util/mem.h"

int berth__reserve_init(struct berth__reserve *r, size_t ntypes)
{
    memset(r, 0, sizeof *r);
    r->types = calloc(ntypes ? ntypes : 1, sizeof *r->types);
    r->ntypes = ntypes;
    return r->types ? 0 : -1;
}

void berth__reserve_free(struct berth__reserve *r)
{
    for (size_t t = 0; r->types && t < r->ntypes; t++)
        free(r->types[t].a);
    free(r->types);
    free(r->pos);
    free(r->type);
    free(r->scratch);
    memset(r, 0, sizeof *r);
}

static int before(const struct berth__rend *a, const struct berth__rend *b)
{
    return a->end < b->end || (a->end == b->end && a->job < b->job);
}

static void set(struct berth__reserve *r, struct berth__rheap *h, size_t i, struct berth__rend e)
{
    h->a[i] = e;
    r->pos[e.job] = (uint32_t)i;
}

static void up(struct berth__reserve *r, struct berth__rheap *h, size_t i)
{
    struct berth__rend e = h->a[i];
    while (i > 0 && before(&e, &h->a[(i - 1) / 2])) {
        set(r, h, i, h->a[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    set(r, h, i, e);
}

static void down(struct berth__reserve *r, struct berth__rheap *h, size_t i)
{
    struct berth__rend e = h->a[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && before(&h->a[c + 1], &h->a[c]))
            c++;
        if (!before(&h->a[c], &e))
            break;
        set(r, h, i, h->a[c]);
        i = c;
    }
    set(r, h, i, e);
}

void berth__reserve_remove(struct berth__reserve *r, uint32_t j)
{
    if (j >= r->jcap || r->type[j] < 0)
        return;
    struct berth__rheap *h = &r->types[r->type[j]];
    size_t i = r->pos[j];
    r->type[j] = -1;
    struct berth__rend last = h->a[--h->n];
    if (i < h->n) {
        set(r, h, i, last);
        up(r, h, i);
        down(r, h, r->pos[last.job]);
    }
}

int berth__reserve_add(struct berth__reserve *r, uint32_t j, int t, int32_t gpus, berth_us end)
{
    if (t < 0 || (size_t)t >= r->ntypes)
        return 0;
    if (j >= r->jcap) {
        size_t c1 = r->jcap, c2 = r->jcap;
        if (BERTH_GROW(r->pos, c1, (size_t)j + 1) || BERTH_GROW(r->type, c2, (size_t)j + 1))
            return -1;
        size_t c = c1 < c2 ? c1 : c2;
        for (size_t i = r->jcap; i < c; i++)
            r->type[i] = -1;
        r->jcap = c;
    }
    berth__reserve_remove(r, j);
    struct berth__rheap *h = &r->types[t];
    if (BERTH_GROW(h->a, h->cap, h->n + 1))
        return -1;
    r->type[j] = (int16_t)t;
    set(r, h, h->n++, (struct berth__rend){end, j, gpus});
    up(r, h, h->n - 1);
    return 0;
}

int berth__reserve_shadow(struct berth__reserve *r, int t, berth_us now, int32_t idle, int32_t need,
                          berth_us *T, int32_t *extra)
{
    if (idle >= need) {
        *T = now;
        *extra = idle - need;
        return 0;
    }
    if (t < 0 || (size_t)t >= r->ntypes)
        return 1;
    const struct berth__rheap *h = &r->types[t];
    /* best-first over the heap: a frontier of heap indices, the smallest end on top */
    size_t nf = 0;
    if (!h->n)
        return 1;
    if (BERTH_GROW(r->scratch, r->scap, 1))
        return -1;
    r->scratch[nf++] = 0;
    int32_t have = idle;
    berth_us at = BERTH_TIME_NONE; /* T once found: jobs ending then free their GPUs too */
    while (nf) {
        size_t top = r->scratch[0];
        if (at != BERTH_TIME_NONE && h->a[top].end > at)
            break;
        size_t last = r->scratch[--nf], i = 0; /* pop the frontier's best */
        for (;;) {                             /* sift last down from the root */
            size_t c = 2 * i + 1;
            if (c >= nf)
                break;
            if (c + 1 < nf && before(&h->a[r->scratch[c + 1]], &h->a[r->scratch[c]]))
                c++;
            if (!before(&h->a[r->scratch[c]], &h->a[last]))
                break;
            r->scratch[i] = r->scratch[c];
            i = c;
        }
        if (nf)
            r->scratch[i] = last;
        have += h->a[top].gpus;
        if (at == BERTH_TIME_NONE && have >= need)
            at = h->a[top].end;
        for (size_t c = 2 * top + 1; c <= 2 * top + 2 && c < h->n; c++) {
            if (BERTH_GROW(r->scratch, r->scap, nf + 1))
                return -1;
            size_t k = nf++; /* push c: sift up */
            while (k > 0 && before(&h->a[c], &h->a[r->scratch[(k - 1) / 2]])) {
                r->scratch[k] = r->scratch[(k - 1) / 2];
                k = (k - 1) / 2;
            }
            r->scratch[k] = c;
        }
    }
    if (at != BERTH_TIME_NONE) {
        *T = at > now ? at : now;
        *extra = have - need;
        return 0;
    }
    return 1;
}
