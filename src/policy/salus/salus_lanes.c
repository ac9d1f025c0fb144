/* Salus' memory lanes: admission, removal and reuse, and the GPU search (salus_lanes.h). */
#include <stdlib.h>
#include <string.h>

#include "policy/salus/salus_lanes.h"
#include "util/mem.h"

#define NONE BERTH_LANE_NONE

/* The most persistent memory one more job could bring into one of GPU g's lanes if its peak
 * is no larger than the lane's: max over lanes of size - persistent - maxpeak (0 when lanes
 * are not shared). A job of p fits a lane only if p <= that, whatever its peak. */
static int64_t lane_room(const struct berth__lanes *L, uint32_t g)
{
    int64_t r = -1; /* no lane: not even a job of p = 0 can join one */
    if (L->share)
        for (uint32_t l = L->gpu[g].head; l != NONE; l = L->lane[l].next) {
            int64_t v = L->lane[l].size - L->lane[l].persist - berth__lane_maxpeak(L, l);
            r = v > r ? v : r;
        }
    return r;
}

static void tree_put(int64_t *tree, size_t leaves, uint32_t g, int64_t v)
{
    size_t i = leaves + g;
    tree[i] = v;
    for (i /= 2; i >= 1; i /= 2)
        tree[i] = tree[2 * i] > tree[2 * i + 1] ? tree[2 * i] : tree[2 * i + 1];
}

static void tree_set(struct berth__lanes *L, uint32_t g)
{
    tree_put(L->tree[0], L->leaves, g, L->gpu[g].free);
    tree_put(L->tree[1], L->leaves, g, lane_room(L, g));
}

int berth__lanes_init(struct berth__lanes *L, size_t ngpus, const int64_t *cap, int share)
{
    memset(L, 0, sizeof *L);
    L->share = share;
    L->free_lane = NONE;
    L->ngpus = ngpus;
    L->leaves = 1;
    while (L->leaves < ngpus)
        L->leaves *= 2;
    L->gpu = calloc(ngpus ? ngpus : 1, sizeof *L->gpu);
    L->tree[0] = calloc(2 * L->leaves, sizeof *L->tree[0]);
    L->tree[1] = calloc(2 * L->leaves, sizeof *L->tree[1]);
    if (!L->gpu || !L->tree[0] || !L->tree[1])
        return -1;
    for (size_t g = 0; g < ngpus; g++) {
        L->gpu[g] = (struct berth__lane_gpu){cap[g], cap[g], NONE, 0};
        L->tree[0][L->leaves + g] = cap[g];
    }
    for (size_t i = 0; i < 2 * L->leaves; i++)
        L->tree[1][i] = -1;
    for (size_t i = L->leaves - 1; i >= 1; i--)
        L->tree[0][i] =
            L->tree[0][2 * i] > L->tree[0][2 * i + 1] ? L->tree[0][2 * i] : L->tree[0][2 * i + 1];
    return 0;
}

void berth__lanes_free(struct berth__lanes *L)
{
    free(L->gpu);
    free(L->lane);
    free(L->lane_of);
    free(L->next);
    free(L->persist);
    free(L->peak);
    free(L->tree[0]);
    free(L->tree[1]);
    memset(L, 0, sizeof *L);
}

int berth__lanes_reserve_jobs(struct berth__lanes *L, size_t n)
{
    if (n <= L->njobs)
        return 0;
    size_t c1 = L->njobs, c2 = L->njobs, c3 = L->njobs, c4 = L->njobs;
    if (BERTH_GROW(L->lane_of, c1, n) || BERTH_GROW(L->next, c2, n) ||
        BERTH_GROW(L->persist, c3, n) || BERTH_GROW(L->peak, c4, n))
        return -1;
    for (size_t j = L->njobs; j < n; j++) {
        L->lane_of[j] = L->next[j] = NONE;
        L->persist[j] = L->peak[j] = 0;
    }
    L->njobs = n;
    return 0;
}

int64_t berth__lane_maxpeak(const struct berth__lanes *L, uint32_t l)
{
    int64_t m = 0;
    for (uint32_t j = L->lane[l].head; j != NONE; j = L->next[j])
        if (L->peak[j] > m)
            m = L->peak[j];
    return m;
}

int berth__lane_fits(const struct berth__lanes *L, uint32_t l, int64_t p, int64_t e)
{
    const struct berth__lane *ln = &L->lane[l];
    if (ln->njobs && !L->share)
        return 0;
    int64_t peak = berth__lane_maxpeak(L, l);
    return p + (e > peak ? e : peak) <= ln->size - ln->persist;
}

static void join(struct berth__lanes *L, uint32_t l, uint32_t j, int64_t p, int64_t e)
{
    struct berth__lane *ln = &L->lane[l];
    L->lane_of[j] = l;
    L->persist[j] = p;
    L->peak[j] = e;
    L->next[j] = NONE;
    if (ln->tail != NONE)
        L->next[ln->tail] = j;
    else
        ln->head = j;
    ln->tail = j;
    ln->njobs++;
    ln->persist += p;
}

/* A new lane of size on GPU g, inserted before the first lane with more available memory
 * (Salus keeps its lanes in ascending order of availability at creation). */
static uint32_t new_lane(struct berth__lanes *L, uint32_t g, int64_t size)
{
    uint32_t l = L->free_lane;
    if (l != NONE) {
        L->free_lane = L->lane[l].next;
    } else {
        if (L->nlane >= NONE - 2 || BERTH_GROW(L->lane, L->lane_cap, L->nlane + 1))
            return NONE - 1;
        l = (uint32_t)L->nlane++;
    }
    L->lane[l] = (struct berth__lane){size, 0, g, NONE, NONE, 0, NONE, NONE};
    uint32_t *at = &L->gpu[g].head;
    while (*at != NONE && L->lane[*at].size - L->lane[*at].persist <= size)
        at = &L->lane[*at].next;
    L->lane[l].next = *at;
    *at = l;
    L->gpu[g].free -= size;
    L->gpu[g].nlanes++;
    return l;
}

uint32_t berth__lanes_admit_new(struct berth__lanes *L, uint32_t g, uint32_t j, int64_t p,
                                int64_t e, int64_t lane_size)
{
    if (L->gpu[g].free < lane_size || lane_size < p + e)
        return NONE;
    uint32_t l = new_lane(L, g, lane_size);
    if (l == NONE - 1)
        return l;
    join(L, l, j, p, e);
    tree_set(L, g);
    return l;
}

uint32_t berth__lanes_admit_shared(struct berth__lanes *L, uint32_t g, uint32_t j, int64_t p,
                                   int64_t e)
{
    for (uint32_t l = L->gpu[g].head; l != NONE; l = L->lane[l].next)
        if (berth__lane_fits(L, l, p, e)) {
            join(L, l, j, p, e);
            tree_set(L, g);
            return l;
        }
    return NONE;
}

uint32_t berth__lanes_admit(struct berth__lanes *L, uint32_t g, uint32_t j, int64_t p, int64_t e,
                            int64_t lane_size)
{
    if (L->gpu[g].free >= lane_size && lane_size >= p + e)
        return berth__lanes_admit_new(L, g, j, p, e, lane_size);
    return berth__lanes_admit_shared(L, g, j, p, e);
}

uint32_t berth__lanes_leave(struct berth__lanes *L, uint32_t j)
{
    if (j >= L->njobs || L->lane_of[j] == NONE)
        return NONE;
    uint32_t l = L->lane_of[j], prev = NONE;
    struct berth__lane *ln = &L->lane[l];
    for (uint32_t k = ln->head; k != j; k = L->next[k])
        prev = k;
    if (prev == NONE)
        ln->head = L->next[j];
    else
        L->next[prev] = L->next[j];
    if (ln->tail == j)
        ln->tail = prev;
    ln->njobs--;
    ln->persist -= L->persist[j];
    if (ln->active == j)
        ln->active = NONE;
    L->lane_of[j] = L->next[j] = NONE;
    uint32_t g = ln->gpu;
    if (!ln->njobs) { /* removed: its memory goes back to the GPU */
        uint32_t *at = &L->gpu[g].head;
        while (*at != l)
            at = &L->lane[*at].next;
        *at = ln->next;
        L->gpu[g].free += ln->size;
        L->gpu[g].nlanes--;
        ln->next = L->free_lane;
        L->free_lane = l;
    }
    tree_set(L, g);
    return l;
}

uint32_t berth__lanes_find(const struct berth__lanes *L, int which, int64_t need, uint32_t from)
{
    const int64_t *tree = L->tree[which];
    if (from >= L->ngpus)
        return NONE;
    /* climb from leaf `from` until a right sibling (or the leaf itself) has room, then
     * descend to its leftmost leaf with room */
    size_t i = L->leaves + from;
    if (tree[i] < need) {
        for (;;) {
            if (i == 1)
                return NONE;
            if (!(i & 1) && tree[i + 1] >= need) {
                i++;
                break;
            }
            i /= 2;
        }
        while (i < L->leaves)
            i = tree[2 * i] >= need ? 2 * i : 2 * i + 1;
    }
    size_t g = i - L->leaves;
    return g < L->ngpus ? (uint32_t)g : NONE;
}

uint32_t berth__lanes_find_most(const struct berth__lanes *L, int which, int64_t need)
{
    const int64_t *tree = L->tree[which];
    if (!L->ngpus || tree[1] < need)
        return NONE;
    size_t i = 1;
    while (i < L->leaves)
        i = tree[2 * i] >= tree[2 * i + 1] ? 2 * i : 2 * i + 1;
    return (uint32_t)(i - L->leaves);
}

int berth__lanes_check_gpu(const struct berth__lanes *L, uint32_t g)
{
    int64_t used = 0;
    uint32_t n = 0;
    for (uint32_t l = L->gpu[g].head; l != NONE; l = L->lane[l].next, n++) {
        const struct berth__lane *ln = &L->lane[l];
        int64_t p = 0;
        uint32_t k = 0;
        for (uint32_t j = ln->head; j != NONE; j = L->next[j], k++) {
            if (L->lane_of[j] != l)
                return -1;
            p += L->persist[j];
        }
        if (ln->gpu != g || k != ln->njobs || !k || p != ln->persist || (!L->share && k > 1) ||
            p + berth__lane_maxpeak(L, l) > ln->size)
            return -1;
        used += ln->size;
    }
    if (n != L->gpu[g].nlanes || used + L->gpu[g].free != L->gpu[g].cap || L->gpu[g].free < 0 ||
        L->tree[0][L->leaves + g] != L->gpu[g].free || L->tree[1][L->leaves + g] != lane_room(L, g))
        return -1;
    return 0;
}

int berth__lanes_check(const struct berth__lanes *L)
{
    for (size_t g = 0; g < L->ngpus; g++)
        if (berth__lanes_check_gpu(L, (uint32_t)g))
            return -1;
    return 0;
}
