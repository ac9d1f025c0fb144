/* The multiple-choice knapsack at the heart of Aryl/Lyra's allocation: every job (a group)
 * picks exactly one option (how many extra workers: a weight in GPUs and a value, its JCT
 * reduction), within a GPU capacity, maximising the total value.
 *
 * Exact by dynamic programming over capacity when groups x (capacity + 1) is small enough
 * (BERTH_MCKP_DP_CELLS); otherwise greedy on the upper convex hull of each group's options,
 * taking the steps of best value per GPU first (the LP relaxation's order; at most one
 * group's last step away from the LP optimum). Deterministic: ties go to the earlier group
 * and the lighter option. */
#ifndef BERTH_POLICY_MCKP_H
#define BERTH_POLICY_MCKP_H

#include <stddef.h>
#include <stdint.h>

#include "berth/err.h"

struct berth__mckp_option {
    int32_t weight; /* GPUs, >= 0 */
    double value;   /* any finite value; more is better */
};

#define BERTH_MCKP_DP_CELLS (INT64_C(1) << 22)

enum { BERTH_MCKP_AUTO = 0, BERTH_MCKP_EXACT = 1, BERTH_MCKP_GREEDY = 2 };

/* Group g's options are opts[first[g] .. first[g + 1]). Fills choice[g] with the index of
 * the chosen option within its group and *value with the total. Each group needs an option
 * that fits on its own with the others at their lightest, or the problem has no answer
 * (BERTH_EINPUT naming the capacity). method: BERTH_MCKP_AUTO, _EXACT or _GREEDY. */
int berth__mckp_solve(const struct berth__mckp_option *opts, const uint32_t *first, size_t ngroups,
                      int32_t capacity, int method, uint32_t *choice, double *value,
                      struct berth_err *err);

#endif
