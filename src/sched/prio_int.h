/* The ordering scheduler's private part (sched/prio*.c only): its state (the pending heaps
 * per shape, the running heaps per slope, the per-job places and the pass's scratch), the
 * small helpers they share inline, and what they call of each other. */
#ifndef BERTH_SCHED_PRIO_INT_H
#define BERTH_SCHED_PRIO_INT_H

#include "model/alloc.h"
#include "sched/fairshare.h"
#include "sched/preempt_pick.h"
#include "sched/prio.h"
#include "sched/quota.h"
#include "sched/reserve.h"
#include "sched/tenant.h"

struct pent { /* a pending job: min-heap on (key, job) */
    int64_t key;
    uint32_t job;
};

struct rent {      /* a running job: key(t) = rank + slope * t; max-heap, worst on top */
    __int128 rank; /* key at start minus slope * start time: orders a heap at any time */
    uint32_t job;
    int32_t gpus;
};

struct pheap {
    int32_t gpus;
    uint64_t type_mask;
    int32_t share;    /* milli of one GPU (1000 = whole GPUs) */
    int64_t cpu, mem; /* per GPU, when the cluster models them */
    uint8_t single;
    uint8_t blocked;  /* in the current pass */
    int32_t tq, tu;   /* with quotas: the jobs' queue and user (-1: any) */
    uint32_t blocker; /* the job at its head when it was blocked (for why) */
    struct pent *a;
    size_t n, cap;
    /* jobs backfill set aside, in (key, job) order: side[sh..sn), side[sh] live when
     * sh < sn, dead entries (the job started, left, re-keyed) dropped lazily. The shape's
     * head is the better of side[sh] and a[0]: set-aside jobs skip the heap's log n. */
    struct pent *side;
    size_t sh, sn, scap;
    size_t nnew, fill; /* this pass's set-aside jobs of the shape, while they go in */
};

struct rheap { /* preemptible running jobs of one slope on one GPU type */
    int64_t slope;
    int16_t type;
    int64_t gpus; /* GPUs held by the jobs in the heap */
    struct rent *a;
    size_t n, cap;
};

enum { NOWHERE = 0, PENDING = 1, RUNNING = 2, PROTECTED = 3, ASIDE = 4 /* pending, in side */ };

struct protect { /* a running job that started at t and may not be preempted yet */
    berth_us t;
    uint32_t job;
};

struct skip { /* a job backfill set aside this pass: its key and shape then */
    int64_t key;
    uint32_t job;
    int32_t shape; /* -1: it goes back into the heap */
};

struct berth__prio {
    struct berth__prio_cfg cfg;
    struct pheap *shapes;
    size_t nshapes, shapes_cap;
    struct rheap *slopes;
    size_t nslopes, slopes_cap;
    /* per job */
    uint32_t *pos;
    uint16_t *cls;
    uint8_t *where;
    size_t jcap;
    /* scratch for one admission */
    uint32_t *victims;
    size_t nvictims, vcap;
    uint8_t *vwas; /* a reclaim's victims: where each was (protected ones stay protected) */
    size_t vwcap;
    /* running jobs inside their minimum run time, in start order (lazy deletion) */
    struct protect *prot;
    size_t prot_head, nprot, prot_cap;
    /* the controls (cfg.queues, backfill, fair-share); all absent in the plain scheduler */
    int controls; /* any of them is on */
    struct berth__tenants ten;
    struct berth__quota *quota;
    struct berth__fairshare fs;
    int has_fs;
    struct berth__reserve rs;
    int has_rs;
    /* this pass's reservation (backfill) */
    int res_on, res_type;
    berth_us res_t;
    int32_t res_extra;
    uint32_t res_job;
    int res_topo_on;              /* the reservation lies in one topology domain: */
    struct berth__rtopo res_topo; /* that domain (extra: its GPUs left over at res_t) */
    struct skip *skip;            /* jobs backfill left out of this pass (put back after it) */
    size_t nskip, skip_cap;
    int entitled; /* the last quota refusal was only the cohort's borrowers (a reclaim) */
    /* why, per job: the pass that last looked at it, what it found, who held it */
    uint32_t pass, *wpass, *wblk;
    uint8_t *wcode;
    uint32_t strict_head; /* the job a strict stop stopped at this pass, NOBODY */
    double npreempted;    /* this pass's victims that stayed preempted (cfg.max_preempt) */
    int budget_hit;       /* this pass stopped preempting at cfg.max_preempt */
    /* an admission's trial (admit_in_trial): starts are made in the plan only, and what
     * the bookkeeping needs afterwards is kept here */
    int trial, trial_on_res;
    int trial_counted; /* the trial stopped where p's gang had enough idle GPUs (count_type) */
    struct berth__slot *tslots; /* the GPUs the trial gave the job */
    size_t tslots_cap;
    uint8_t *kept; /* per victim of the trial: the job needed its GPUs */
    size_t kept_cap;
    size_t *walk; /* victims_hold's stack of heap positions */
    size_t walk_cap;
    int nofit; /* why the last try_start did not start its job (enum berth__nofit) */
    /* the fast path of admissions by preemption (admit_fast), made at the first one */
    struct berth__ppick *pp;
    const struct berth_cluster *pp_cluster;
    int pp_off;
    const struct berth__job *vjobs; /* the view's jobs, for berth__prio_remove_job's word to pp */
};

/* Both heaps are 4-ary: half the depth of a binary heap, and a node's children share a
 * cache line, which matters once hundreds of thousands of jobs wait. */
#define ARITY 4

static inline int berth__prio_pless(const struct pent *a, const struct pent *b)
{
    return a->key < b->key || (a->key == b->key && a->job < b->job);
}

/* The shape's best pending job, or NULL. */
static inline const struct pent *berth__prio_phead(const struct pheap *h)
{
    if (h->sh < h->sn && (!h->n || berth__prio_pless(&h->side[h->sh], &h->a[0])))
        return &h->side[h->sh];
    return h->n ? &h->a[0] : NULL;
}

/* What berth__prio_try_admit found when the job did not start. */
enum { NOT_FIT = 0, STARTED = 1, QUOTA = 2, BF_WAIT = 3 };

/* prio_heap.c: the heaps, the side queues and the protection queue */
int berth__prio_push_pending(struct berth__prio *q, const struct berth__view *v, uint32_t j);
int berth__prio_push_preemptible(struct berth__prio *q, const struct berth__job *j);
int berth__prio_push_started(struct berth__prio *q, const struct berth__job *j);
int berth__prio_expire_protection(struct berth__prio *q, const struct berth__view *v);
void berth__prio_remove_job(struct berth__prio *q, uint32_t j);
int berth__prio_rekey_all(struct berth__prio *q, const struct berth__view *v);
int berth__prio_put_aside(struct berth__prio *q, const struct berth__view *v);

/* prio.c: the pass */
int berth__prio_note_run(struct berth__prio *q, const struct berth__job *j, int on);
int berth__prio_started(struct berth__prio *q, const struct berth__view *v, uint32_t j, int on_res,
                        struct berth_err *err);
int berth__prio_try_admit(struct berth__prio *q, const struct berth__view *v,
                          struct berth__plan *plan, uint32_t j, struct berth_err *err);

/* prio_preempt.c: admission by preemption */
int berth__prio_admit_preempting(struct berth__prio *q, const struct berth__view *v,
                                 struct berth__plan *plan, const struct pent *pe,
                                 struct berth_err *err);
int berth__prio_admit_reclaiming(struct berth__prio *q, const struct berth__view *v,
                                 struct berth__plan *plan, uint32_t pj, struct berth_err *err);

#endif
