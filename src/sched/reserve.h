/* EASY backfill's bookkeeping: when each running job is expected to end (its time limit
 * left, else its expected time left), one min-heap per GPU type, and the reservation of
 * the job at the head of the queue: the earliest instant T at which the GPUs idle now plus
 * those of the jobs ending by T cover its gang on one GPU type, and how many GPUs of that
 * type are left over then ("extra"). A later job may start before it only if it ends by T
 * or takes no more than the extra GPUs (EASY, Lifka 1995; Slurm's sched/backfill).
 *
 * GPUs are counted per type, not per server: a reservation for a gang that must fit one
 * server may come earlier than the gang can really start (the cost of O(log n) upkeep).
 * Finding T walks the heap best-first: O(k log k) for the k jobs that end before T. */
#ifndef BERTH_SCHED_RESERVE_H
#define BERTH_SCHED_RESERVE_H

#include <stddef.h>
#include <stdint.h>

#include "berth/time.h"

struct berth__rend {
    berth_us end;
    uint32_t job;
    int32_t gpus; /* whole GPUs it holds */
};

struct berth__rheap {
    struct berth__rend *a;
    size_t n, cap;
};

struct berth__reserve {
    struct berth__rheap *types;
    size_t ntypes;
    uint32_t *pos; /* per job: index in its type's heap */
    int16_t *type; /* per job: which heap, -1 = none */
    size_t jcap;
    size_t *scratch; /* the best-first walk's frontier */
    size_t scap;
};

int berth__reserve_init(struct berth__reserve *r, size_t ntypes);
void berth__reserve_free(struct berth__reserve *r);
/* Running job j holds gpus GPUs of type t until about end (replacing any entry it had). */
int berth__reserve_add(struct berth__reserve *r, uint32_t j, int t, int32_t gpus, berth_us end);
void berth__reserve_remove(struct berth__reserve *r, uint32_t j);
/* The earliest T >= now at which idle + the GPUs of type t's jobs ending by T reach need, and
 * what is left over then (*extra). 0, 1 when even every running job of the type ending would
 * not do, -1 when out of memory. */
int berth__reserve_shadow(struct berth__reserve *r, int t, berth_us now, int32_t idle, int32_t need,
                          berth_us *T, int32_t *extra);

/* A reservation inside one topology domain (reserve_topo.c): the head's gang can start in
 * domain dom (of table kind: BERTH__TOPO_RACK, _BLOCK; -1: dom is a server) at T, with
 * extra GPUs of that domain left over then. */
struct berth__rtopo {
    berth_us T;
    int32_t extra;
    int kind;
    int32_t dom;
};

struct berth_cluster;
struct berth__job;

/* The table kind whose domains a reservation at topology level `level` holds (racks,
 * blocks), or -1 (node and nvlink: one server). */
int berth__reserve_domain_kind(int level);
/* The domain of level `level` where a gang of need GPUs of type t could start earliest, by
 * the idle GPUs there and the expected ends of the running jobs (jobs: the engine's, their
 * slots read) in r's heap of type t: 0 with *out filled, 1 when no domain ever holds it, -1
 * when out of memory. c must have a topology when level is rack or block. */
int berth__reserve_topo(struct berth__reserve *r, const struct berth_cluster *c,
                        const struct berth__job *jobs, int t, int level, berth_us now, int32_t need,
                        struct berth__rtopo *out);
/* The level of job j's reservation inside one domain: its required level, else its
 * preferred one, when below the cluster and the cluster has a topology (node for nvlink, or
 * for a level without domains here); -1: none (the per-type count). */
int berth__reserve_topo_level(const struct berth_cluster *c, const struct berth__job *j);
/* 1 when server s lies in the reservation's domain. */
int berth__reserve_in_domain(const struct berth_cluster *c, const struct berth__rtopo *rt,
                             uint32_t s);

#endif
