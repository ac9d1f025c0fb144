/* Policy settings: one string of KEY=VALUE pairs, separated by commas ("window=10,
 * alpha=0.1"; a list value separates its items with ':', "queue_limits=3250:7200"), that
 * a policy parses in its create against a table of its own. So a new setting is a line in
 * the policy's file, not a field threaded through the simulator, berthd and the CLI.
 * berth__params carries the string (`settings`); what every policy shares (seed, quantum,
 * rounds, restart costs) stays typed there. */
#ifndef BERTH_SCHED_SETTINGS_H
#define BERTH_SCHED_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"
#include "berth/time.h"

enum berth__setting_kind {
    BERTH_SET_SECONDS,      /* a decimal number of seconds -> berth_us, within [min, max] */
    BERTH_SET_DOUBLE,       /* a finite number within [min, max] */
    BERTH_SET_PERMILLE,     /* a percentage with at most one decimal -> int32_t 1/1000 */
    BERTH_SET_SECONDS_LIST, /* increasing seconds, ':' between them -> struct berth__us_list */
    BERTH_SET_BOOL,         /* 0/1, off/on, no/yes, false/true -> int */
};

#define BERTH_US_LIST_MAX 8

struct berth__us_list {
    berth_us v[BERTH_US_LIST_MAX];
    int n;
};

struct berth__setting {
    const char *key;
    int kind;      /* enum berth__setting_kind */
    size_t offset; /* where the value goes in the policy's settings struct */
    double min, max;
    const char *help; /* one line: what it sets, its unit and its default */
};

/* Parses settings s (NULL or "" = none) for policy `policy` into dst by the table t[0..n):
 * only the keys given are written, so dst holds the defaults beforehand. An unknown or
 * repeated key, a missing '=', a value out of range or not of its kind: BERTH_EINPUT
 * naming the policy, the key and what was expected (the policy's keys for an unknown
 * one); dst is then unchanged. */
int berth__settings_parse(const char *policy, const char *s, const struct berth__setting *t,
                          size_t n, void *dst, struct berth_err *err);

#endif
