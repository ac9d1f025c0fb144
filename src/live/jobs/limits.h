/* Per-user limits, so that no user can take the daemon's memory and disk, or the cluster's
 * GPUs, from the others: settings (`--user-limit [USER:]KEY=VALUE`, repeatable, in flags or
 * the config file; a USER-less setting is everyone's default) and what each user holds now.
 *
 *   max_pending N     jobs waiting (pending or held) at once; more submissions get 429
 *   submit_rate R     submissions per second, sustained (token bucket; 429 + Retry-After)
 *   submit_burst B    submissions at once before the rate applies
 *   max_gpus N        GPUs a user's jobs may hold or be queued for in the scheduler at once;
 *                     jobs beyond it wait outside the scheduler (reason UserGPULimit) and
 *                     enter it, in submission order, as the user's jobs end
 *
 * 0 means no limit. The usage table is guarded by the daemon's lock. */
#ifndef BERTH_LIVE_LIMITS_H
#define BERTH_LIVE_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"
#include "berth/time.h"

struct berth__limit_set {
    int64_t max_pending, max_gpus;
    double submit_rate, submit_burst;
};

struct berth__user_limit {
    char user[64];
    struct berth__limit_set set; /* -1: not set here (the default applies) */
};

struct berth__limits {
    struct berth__limit_set dflt;
    struct berth__user_limit *per;
    size_t nper, cap;
};

/* The built-in defaults: 10,000 waiting jobs, 50 submissions/s with bursts of 500, no GPU
 * limit. */
void berth__limits_init(struct berth__limits *l);
void berth__limits_free(struct berth__limits *l);
/* Applies one "[USER:]KEY=VALUE"; BERTH_EINPUT naming the part at fault. */
int berth__limits_parse(struct berth__limits *l, const char *spec, struct berth_err *err);
/* The limits of user (their own settings over the defaults). */
void berth__limits_for(const struct berth__limits *l, const char *user,
                       struct berth__limit_set *out);

/* What one user holds now. */
struct berth__usage {
    char *user;
    int64_t waiting;     /* pending or held, not over */
    int64_t sched_gpus;  /* GPUs of the user's jobs inside the scheduler (max_gpus counts these) */
    double tokens;       /* the submission bucket */
    berth_us refilled;   /* when tokens were last topped up */
    uint32_t *held_back; /* ids waiting for max_gpus, in submission order */
    size_t nheld, held_cap, held_head;
};

struct berth__usage_table;

int berth__usage_create(struct berth__usage_table **out);
void berth__usage_free(struct berth__usage_table *t);
/* The record of user (created at first use); NULL when out of memory. */
struct berth__usage *berth__usage_of(struct berth__usage_table *t, const char *user);
/* Calls fn for every user's record. */
void berth__usage_each(struct berth__usage_table *t, void (*fn)(void *ctx, struct berth__usage *u),
                       void *ctx);
/* Takes one submission token at now: 0, or the seconds to wait before one is there. */
int berth__usage_take_token(struct berth__usage *u, const struct berth__limit_set *s, berth_us now);

#endif
