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

#endif
