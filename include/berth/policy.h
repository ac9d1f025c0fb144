/* The policy registry as the outside world sees it: names, one-line summaries, default
 * placements. The policy interface itself (view, plan) is internal: src/sched/policy_ops.h. */
#ifndef BERTH_POLICY_H
#define BERTH_POLICY_H

#include <stddef.h>

size_t berth_policy_count(void);
const char *berth_policy_name(size_t i);
const char *berth_policy_summary(size_t i);
const char *berth_policy_default_placement(size_t i);
/* The settings policy i takes ("KEY=VALUE,..." in berth_sim_opts.policy_settings): how many,
 * each one's key and a one-line help (unit and default); NULL past the end. */
size_t berth_policy_setting_count(size_t i);
const char *berth_policy_setting_key(size_t i, size_t k);
const char *berth_policy_setting_help(size_t i, size_t k);
/* Index of a policy by exact name, or -1. */
int berth_policy_find(const char *name);

/* Placement helpers selectable with --placement. */
size_t berth_placement_count(void);
const char *berth_placement_name(size_t i);
const char *berth_placement_summary(size_t i);
int berth_placement_find(const char *name);

#endif
