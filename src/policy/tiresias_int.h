/* The state of the tiresias policies (tiresias.c), shared with their queues' containers
 * (tiresias_queues.c): the pending heaps, the running chunks and the demotion heap. */
#ifndef BERTH_POLICY_TIRESIAS_INT_H
#define BERTH_POLICY_TIRESIAS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "model/alloc.h"
#include "sched/fairshare.h"
#include "sched/plan.h"
#include "sched/settings.h"

#define MAXQ (BERTH_US_LIST_MAX + 1) /* queue_limits holds at most 8 thresholds */

/* where a job sits here; DEMOTED: running, demoted in this pass, not yet in its new queue's
 * array (the list discipline scans it behind the queue's pending jobs) */
enum { NOWHERE = 0, PENDING = 1, RUNNING = 2, POPPED = 3, DEMOTED = 4, BACK = 5 };
enum { START = 0, RESTORE = 1 };            /* desired-set members to run */
enum { DONE = 0, FAILED = 1, RETYPED = 2 }; /* how applying the plan ended */

struct hent {   /* a pending job: min-heap on (fair-share key, key, job) */
    int64_t fk; /* attained service less fairshare_weight x factor; 0 without fair-share */
    berth_us key;
    uint32_t job;
};

/* A (queue, demand)'s pending jobs: a heap, and in front of it a sorted run of its smallest
 * entries (smallest last, each before every heap entry): those a pass took and gave back
 * when a start failed, so the scan that resumes, and the next pass, take them again in
 * O(1) each (in overload the same gangs are taken and given back pass after pass). A job
 * pushed before the run's largest joins the run at its place. The heap keeps room for the
 * run, so the run can always go back into it (when it grows past BACK_MAX, or the keys move). */
struct pheap {
    struct hent *a;
    size_t n, cap;     /* cap >= n + nback */
    struct hent *back; /* the run in front (where BACK), largest first */
    size_t nback, back_cap;
};

#define BACK_MAX 4096 /* a longer run goes back into the heap: joining it costs O(run) */

struct demand { /* jobs asking for exactly the same resources: a heap per queue */
    int32_t gpus, share;
    uint64_t type_mask;
    int64_t cpu, mem;
    uint8_t single;
    uint8_t blocked; /* a start of this demand failed in the current pass */
    struct pheap q[MAXQ];
};

struct rent { /* a running job in its queue's array, sorted on (key, job) */
    berth_us key;
    uint32_t job;
    int32_t cost; /* milli-GPUs */
    int32_t type; /* GPU type, -1 for a CPU-only job */
};

#define CHUNK 256 /* a queue's running jobs: sorted chunks of at most this many */

struct chunk {
    size_t n;
    struct rent a[]; /* room for the queue's chunk size */
};

/* A sorted array cut in chunks: insert and remove move at most one chunk. What a scan reads
 * of every chunk (its sums, its preempted count) sits in arrays beside the chunk pointers,
 * so a pass that takes chunks as blocks touches no chunk's entries. */
struct runq {
    struct chunk **c;
    size_t nc, ccap;
    size_t chunk;  /* entries per chunk (CHUNK; tests make it tiny) */
    size_t nt;     /* GPU types (at least 1): the stride of csum */
    int64_t *sum;  /* per GPU type: milli-GPUs the queue's running jobs hold */
    int64_t *csum; /* chunk ci, type t: csum[ci * nt + t], the milli-GPUs its jobs hold */
    int *cpre;     /* chunk ci: its jobs preempted in the current pass */
    size_t csum_cap, cpre_cap;
    int npre; /* the queue's jobs preempted in the current pass */
};

struct demote { /* job reaches the limit of queue q at t (stale once it moved or stopped) */
    berth_us t;
    uint32_t job;
    uint8_t q;
};

struct torun { /* a member of the desired set that the plan must (re)start */
    uint32_t job;
    int32_t type, cost; /* the GPU type the count charged (-1: none) and its cost */
    uint8_t kind, q;
    uint8_t phase; /* the scan's phase that chose it (struct scan) */
    size_t ri;     /* RESTORE: its position in the queue's running chunks, or in demoted[] */
};

/* where the scan is: queue, phase (0 running, 1 pending, 2 demoted in this pass: the list
 * discipline only), position in the running chunks or in demoted[] */
struct scan {
    int q, phase;
    size_t ri;
};

struct jstate {   /* the policy's view of one job: 16 bytes (millions of jobs) */
    berth_us key; /* its place in its queue: entry time, or its rank in Tiresias' list */
    uint32_t pos; /* index in its pending heap */
    uint16_t dm;  /* its demand */
    uint8_t q : 4, where : 3, excluded : 1; /* q < MAXQ <= 16, where <= DEMOTED */
};
_Static_assert(sizeof(struct jstate) == 16 && MAXQ <= 16 && BACK < 8,
               "struct jstate grew: one per job, keep it packed");

struct rank { /* a job's place in its queue's list (the commit sorts by it) */
    berth_us key;
    uint32_t job;
    uint8_t q;
};

struct tiresias {
    int gpu_time;
    int list;  /* Tiresias' list discipline (else berth's entry-time order) */
    int plain; /* tests: failed starts' jobs go back into the heaps, and a queue that lost
                * a job in the pass reads every job's record (the reference for both) */
    int exact; /* a pass at the exact demotion instant (else at Tiresias' predicted one) */
    int nq;
    berth_us limit[MAXQ - 1];
    size_t ntypes;
    int64_t *total; /* per GPU type, milli-GPUs */
    struct demand *dem;
    size_t ndem, dem_cap;
    struct runq run[MAXQ];
    struct demote *heap;
    size_t nheap, heap_cap;
    struct jstate *js; /* per job */
    size_t jn, jcap;   /* entries set up, room */
    /* per pass */
    int64_t *budget;
    struct torun *tr;
    size_t ntr, tr_cap;
    int64_t *snaps; /* the budget before each tr entry: ntypes values per entry */
    size_t snaps_cap;
    uint32_t *pre;
    size_t npre, pre_cap;
    uint32_t *excl;
    size_t nexcl, excl_cap;
    /* the list discipline: per queue, the rank the next job at the pending segment's head
     * and tail and at the running segment's tail gets; the jobs demoted in this pass, by
     * job number; scratch for the commit */
    berth_us phead[MAXQ], ptail[MAXQ], rtail[MAXQ];
    uint32_t *demoted;
    struct rank *tmp;
    size_t ndemoted, demoted_cap, ntmp, tmp_cap;
    /* fair-share (fairshare_weight > 0): usage per user and queue; a pending job's place in
     * its queue moves by the weight times its factor, in the unit of attained service */
    int has_fs;
    berth_us fs_weight;
    struct berth__tenants ten;
    struct berth__fairshare fs;
};

/* ---- attained service and demotion instants ------------------------------------------ */

static inline int64_t berth__tiresias_attained(const struct tiresias *s, const struct berth__job *j)
{
    return s->gpu_time ? j->gpu_us : j->run_us; /* folded at j->since */
}

static inline int64_t berth__tiresias_rate(const struct tiresias *s, const struct berth__job *j)
{
    return s->gpu_time ? j->gpus : 1;
}

static inline int64_t berth__tiresias_cost_of(const struct berth__job *j)
{
    if (j->gpus == 0)
        return 0;
    return berth__job_share(j) < 1000 ? berth__job_share(j) : (int64_t)j->gpus * 1000;
}

/* tiresias_queues.c */
int berth__tiresias_hless(const struct hent *a, const struct hent *b);
int64_t berth__tiresias_fs_key(const struct tiresias *s, const struct berth__job *j);
void berth__tiresias_hdown(struct tiresias *s, struct pheap *h, size_t i);
const struct hent *berth__tiresias_phead(const struct pheap *h);
void berth__tiresias_hremove(struct tiresias *s, struct pheap *h, size_t i);
void berth__tiresias_rejoin(struct tiresias *s, struct pheap *h);
void berth__tiresias_back_remove(struct tiresias *s, struct pheap *h, uint32_t j);
int berth__tiresias_push_pending(struct tiresias *s, const struct berth__view *v, uint32_t j);
int berth__tiresias_take_block(struct tiresias *s, const int64_t *sum);
int berth__tiresias_run_insert(struct tiresias *s, const struct berth__job *j);
void berth__tiresias_run_remove(struct tiresias *s, uint32_t j);
struct demote berth__tiresias_dem_pop(struct tiresias *s);
int berth__tiresias_schedule_demotion(struct tiresias *s, const struct berth__job *j);
int berth__tiresias_stale(const struct tiresias *s, const struct berth__job *jobs,
                          const struct demote *e);

#endif
