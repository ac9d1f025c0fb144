/* SpeCon (Mao et al., IEEE Systems Journal 2022): spread placement, then speculative
 * migration of slow-growing jobs off the most congested server. What specon.c offers
 * beyond its two policy tables (`specon`, and `spread`: the same without migration): the
 * growth and labelling rules, pure, so tests can check them by hand. */
#ifndef BERTH_POLICY_SPECON_H
#define BERTH_POLICY_SPECON_H

#include "sched/policy_ops.h"

struct berth__specon_cfg {
    berth_us window_us;   /* growth is measured over one window; one migration per window */
    berth_us cooldown_us; /* a migrated job is not moved again before this */
    double alpha;         /* slow-growing: growth below alpha metric points per second */
    double theta;         /* a source server must be busier than this (or jobs pend) */
    double near_epochs;   /* fewer epochs left than this: near completion, exempt */
};

/* The configuration from policy `policy`'s settings s (sched/settings.h: window, cooldown,
 * alpha, theta, near_epochs; NULL or "" = SpeCon's defaults: 10 s, 60 s, 0.1, 0.5, 2).
 * BERTH_EINPUT for a bad setting. */
int berth__specon_cfg(const char *policy, const char *s, struct berth__specon_cfg *cfg,
                      struct berth_err *err);

/* Growth in metric points per second from a reading prev at prev_at to cur at t (t >
 * prev_at). */
double berth__specon_growth(double prev, berth_us prev_at, double cur, berth_us t);

enum berth__specon_label {
    BERTH_SPECON_WARMUP = 0, /* no reading a whole window old: new or just (re)started */
    BERTH_SPECON_NEAR_END,   /* fewer than near_epochs epochs left: exempt */
    BERTH_SPECON_COOLING,    /* migrated less than a cool-down ago: exempt */
    BERTH_SPECON_FAST,       /* growing at alpha or more */
    BERTH_SPECON_SLOW,       /* growing slower than alpha: a migration candidate */
};

/* Job j's label at window pass now: has_growth says whether a reading exactly one window
 * old exists (then growth is the growth since), cool_until when its cool-down ends. */
int berth__specon_label(const struct berth__specon_cfg *cfg, const struct berth__job *j,
                        berth_us now, int has_growth, double growth, berth_us cool_until);

#endif
